"""Translate a Go RE2 pattern into Python `re` syntax.

Gitleaks writes its rules for Go's regexp package. Nearly all of that syntax means the same in
Python; the differences that occur in its rule set are handled here:

- a flag group such as `(?i)` after the start sets the flag for the rest of the enclosing group
  in Go, while Python accepts global flags only at the very start: it becomes a scoped
  `(?i:...)` closed before each `|` of that group (and reopened after it) and before the group ends;
- POSIX classes inside brackets (`[[:alnum:]]`) are spelled out;
- `\\z` and, with no multi-line flag, `$` (both the end of the text in Go) are Python's `\\Z`
  (Python's `$` also matches before a final newline);
- a `[`, `&`, `~` or `|` inside brackets is escaped, so Python reads no nested set in it.

Whatever else Python would read differently (`\\p{...}`, `\\Q...\\E`, `\\x{...}`) is refused with
`ValueError`, so a rule that cannot be translated faithfully is left out, never run wrongly.
"""

from __future__ import annotations

import re

_POSIX = {
    "alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "ascii": "\\x00-\\x7f", "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
    "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": " \\t\\n\\v\\f\\r", "upper": "A-Z",
    "word": "\\w", "xdigit": "0-9A-Fa-f",
}
_FLAG_GROUP = re.compile(r"\(\?([imsU-]+)\)")
_POSIX_CLASS = re.compile(r"\[:(\^?)([a-z]+):\]")
_UNSUPPORTED_ESCAPES = "pPQEC"


def translate(pattern: str) -> str:
    """Return `pattern` (Go RE2) rewritten for Python's `re`; raise ValueError where they differ."""
    end = "$" if re.search(r"\(\?[a-zA-Z-]*m", pattern) else "\\Z"
    out: list[str] = []
    scopes: list[list[str]] = [[]]  # per open group: the flag scopes opened inside it, innermost last
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            i = _escape(pattern, i, out)
        elif c == "[":
            i = _char_class(pattern, i, out)
        elif c == "(":
            flags = _FLAG_GROUP.match(pattern, i) if pattern.startswith("(?", i) else None
            if flags and "U" in flags.group(1):
                raise ValueError("ungreedy flag (?U) has no Python equivalent")
            if flags and not out and len(scopes) == 1:
                out.append(flags.group())  # at the very start: global in both
            elif flags:
                out.append(f"(?{flags.group(1)}:")
                scopes[-1].append(flags.group(1))
            else:
                out.append("(")
                scopes.append([])
            i = flags.end() if flags else i + 1
        elif c == ")":
            if len(scopes) == 1:
                raise ValueError(f"unbalanced ')' at {i}")
            out.append(")" * len(scopes.pop()) + ")")
            i += 1
        elif c == "|":
            open_ = scopes[-1]
            out.append(")" * len(open_) + "|" + "".join(f"(?{f}:" for f in open_))
            i += 1
        elif c == "$":
            out.append(end)
            i += 1
        else:
            out.append(c)
            i += 1
    if len(scopes) != 1:
        raise ValueError("unbalanced '('")
    out.append(")" * len(scopes[0]))
    return "".join(out)


def _escape(pattern: str, i: int, out: list[str]) -> int:
    if i + 1 >= len(pattern):
        raise ValueError("trailing backslash")
    nxt = pattern[i + 1]
    if nxt in _UNSUPPORTED_ESCAPES or pattern.startswith("\\x{", i):
        raise ValueError(f"escape \\{nxt} has no Python equivalent")
    out.append("\\Z" if nxt == "z" else pattern[i : i + 2])
    return i + 2


def _char_class(pattern: str, i: int, out: list[str]) -> int:
    """Copy the bracket expression at `i` into `out`; return the index after its `]`."""
    parts = ["["]
    i += 1
    if pattern.startswith("^", i):
        parts.append("^")
        i += 1
    first = True
    while i < len(pattern):
        c = pattern[i]
        if c == "]" and not first:
            parts.append("]")
            out.append("".join(parts))
            return i + 1
        first = False
        if c == "\\":
            sub: list[str] = []
            i = _escape(pattern, i, sub)
            parts.extend(sub)
            continue
        posix = _POSIX_CLASS.match(pattern, i) if c == "[" else None
        if posix:
            if posix.group(1) or posix.group(2) not in _POSIX:
                raise ValueError(f"POSIX class {posix.group()} not supported")
            parts.append(_POSIX[posix.group(2)])
            i = posix.end()
            continue
        parts.append("\\" + c if c in "[&~|" else ("\\]" if c == "]" else c))
        i += 1
    raise ValueError("unterminated character class")


def scoped(translated: str) -> str:
    """`translated` as a group that can sit inside a larger pattern: a leading global flag becomes scoped."""
    flags = _FLAG_GROUP.match(translated)
    body = f"(?{flags.group(1)}:{translated[flags.end():]})" if flags else translated
    return f"(?:{body})"
