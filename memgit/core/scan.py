"""Text cut as the search's and the prompt hook's regular expressions cut it, with str methods alone.

A relevant prompt and `memgit search` cut a few texts into words, sentences and quoted spans. The
patterns did it well, but importing `re` (with `enum`) and compiling them costs ~8-10 ms in a fresh
process: half a `python -c pass` on the 2-core machine, at every prompt (bench/README.md, issue 20,
third pass). Each function here finds exactly what its pattern, named in its docstring, finds;
tests/unit/test_scan.py holds them equal over generated text and the fixtures' notes.
"""

from __future__ import annotations

_ASCII_ALNUM = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_SPACED = str.maketrans({c: " " for c in map(chr, range(128)) if not c.isalnum()})
_SENTENCE_STARTS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ`\"'([")


def words(text: str) -> list[str]:
    """The runs of letters and digits in `text`: `re.findall(r"[^\\W_]+", text)` (`[^\\W_]` is
    str.isalnum), how FTS5's unicode61 tokenizer cuts words."""
    if text.isascii():
        return text.translate(_SPACED).split()  # str.translate's fast path for ASCII
    for c in set(text):  # else each character that is no letter or digit, once (translate would look each up)
        if not c.isalnum():
            text = text.replace(c, " ")
    return text.split()


def chunks(query: str) -> list[tuple[str, str]]:
    """`re.findall(r'"([^"]*)"|(\\S+)', query)`: each "quoted phrase" as (phrase, ""), each other run
    of non-space characters as ("", run)."""
    found, i, n = [], 0, len(query)
    while i < n:
        if query[i].isspace():
            i += 1
            continue
        if query[i] == '"':
            end = query.find('"', i + 1)
            if end >= 0:
                found.append((query[i + 1:end], ""))
                i = end + 1
                continue
        end = i + 1
        while end < n and not query[end].isspace():
            end += 1
        found.append(("", query[i:end]))
        i = end
    return found


def _is_word(c: str) -> bool:
    return c.isalnum() or c == "_"  # re's \w


def camel_file_names(text: str) -> list[str]:
    """The camelCase file names of a text (`AppInnerSidebar.tsx`, `walCheckpoint.go`), without their
    extension:
    `re.findall(r"\\b(?=[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Z]{2}[a-z]))[A-Za-z0-9]+(?=\\.[a-z]{1,5}\\b)", text)`.

    Each match ends at a dot: the ASCII letters and digits before it, starting where a word starts,
    holding a lower-case letter before a capital (or two capitals before a lower-case letter), and
    after the dot one to five lower-case letters that end a word.
    """
    found, n = [], len(text)
    dot = text.find(".")
    while dot >= 0:
        ext, stop = dot + 1, min(n, dot + 7)
        while ext < stop and text[ext] in _LOWER:
            ext += 1
        start = dot
        if 1 <= ext - dot - 1 <= 5 and (ext == n or not _is_word(text[ext])):
            while start > 0 and text[start - 1] in _ASCII_ALNUM:
                start -= 1
        if start < dot and (start == 0 or not _is_word(text[start - 1])) and _humped(text[start:dot]):
            found.append(text[start:dot])
        dot = text.find(".", dot + 1)
    return found


def _humped(name: str) -> bool:
    """Whether an ASCII name holds `[a-z][A-Z]` or `[A-Z]{2}[a-z]`."""
    for i in range(len(name) - 1):
        c, d = name[i], name[i + 1]
        if c in _LOWER and d in _UPPER or c in _UPPER and d in _UPPER and i + 2 < len(name) and name[i + 2] in _LOWER:
            return True
    return False


def humps(name: str) -> list[str]:
    """The words of a camelCase name: `re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\\d+", name)`
    ("HTTPServer2" -> HTTP, Server, 2)."""
    found, i, n = [], 0, len(name)
    while i < n:
        c = name[i]
        end = i + 1
        if c in _UPPER:
            while end < n and name[end] in _UPPER:
                end += 1
            if end < n and name[end] in _LOWER:
                if end - i >= 2:  # capitals before the next word's capital
                    found.append(name[i:end - 1])
                    i = end - 1
                    continue
                while end < n and name[end] in _LOWER:  # a capital and its lower-case letters
                    end += 1
        elif c in _LOWER:
            while end < n and name[end] in _LOWER:
                end += 1
        elif c.isdecimal():  # re's \d
            while end < n and name[end].isdecimal():
                end += 1
        else:  # nothing the pattern matches: it moves on
            i = end
            continue
        found.append(name[i:end])
        i = end
    return found


def sentences(text: str) -> list[str]:
    """`re.split(r"(?<=[.!?])\\s+(?=[A-Z`\\"'(\\[])", text)`: cut at the spaces after a full stop, a
    question or an exclamation mark that come before a capital, a quote, a parenthesis or a bracket."""
    pieces, start, n = [], 0, len(text)
    for i in range(1, n):
        if text[i - 1] in ".!?" and text[i].isspace():
            end = i + 1
            while end < n and text[end].isspace():
                end += 1
            if end < n and text[end] in _SENTENCE_STARTS:
                pieces.append(text[start:i])
                start = end
    pieces.append(text[start:])
    return pieces


def quoted(text: str) -> list[str]:
    """The quoted spans of a text, quotes included: `re.findall(r'"[^"]+"|“[^”]+”', text)`."""
    found, i = [], 0
    while True:
        straight, curly = text.find('"', i), text.find("“", i)
        if straight < 0 and curly < 0:
            return found
        i = straight if curly < 0 or 0 <= straight < curly else curly
        end = text.find('"' if text[i] == '"' else "”", i + 1)
        if end > i + 1:
            found.append(text[i:end + 1])
            i = end + 1
        else:
            i += 1


def clip(text: str, limit: int) -> str:
    """Cut `text` at a word boundary so it fits in `limit` characters (with an ellipsis)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return cut + "…"
