"""Edit a JSON settings file as text, so that every byte memgit did not add stays where it was.

Agents' settings files are written by people (Gemini CLI's may hold `//` and `/* */` comments) and
by the agents themselves; re-serialising one would reorder, reindent and drop comments. memgit
instead inserts each of its entries as one snippet of text at the end of the array or object that
receives it, in the file's own indentation and line endings. Removing those snippets, verbatim,
gives back the original bytes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_WS = " \t\r\n"


@dataclass(slots=True)
class Node:
    """One JSON value's place in the text: [start, end), and its children with theirs."""

    kind: str  # object | array | scalar
    start: int
    end: int = 0
    members: list[tuple[str, Node]] = field(default_factory=list)  # objects
    items: list[Node] = field(default_factory=list)  # arrays

    def member(self, key: str) -> Node | None:
        found = [node for name, node in self.members if name == key]
        return found[-1] if found else None  # JSON.parse and json.loads keep the last duplicate


def strip_comments(text: str) -> str:
    """The text with `//` and `/* */` comments blanked out (same length, newlines kept)."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i = _string_end(text, i)
            continue
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        else:
            i += 1
            continue
        for j in range(i, end):
            if out[j] not in "\r\n":
                out[j] = " "
        i = end
    return "".join(out)


def loads(text: str):
    """Parse JSON that may hold comments (as Gemini CLI reads its settings).

    Raises:
        ValueError: it is not JSON.
    """
    return json.loads(strip_comments(text))


def scan(text: str) -> Node:
    """Where each value of the (comment-free) document is.

    Raises:
        ValueError: it is not one JSON value.
    """
    clean = strip_comments(text)
    json.loads(clean)  # the scanner below trusts the syntax
    node, _ = _value(clean, _skip(clean, 0))
    return node


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in _WS:
        i += 1
    return i


def _string_end(text: str, i: int) -> int:
    i += 1
    while i < len(text):
        if text[i] == "\\":
            i += 2
        elif text[i] == '"':
            return i + 1
        else:
            i += 1
    return i


def _value(text: str, i: int) -> tuple[Node, int]:
    c = text[i]
    if c == "{":
        node, i = Node("object", i), _skip(text, i + 1)
        while text[i] != "}":
            key_end = _string_end(text, i)
            key = json.loads(text[i:key_end])
            i = _skip(text, key_end)  # at ':'
            child, i = _value(text, _skip(text, i + 1))
            node.members.append((key, child))
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node, i + 1
    if c == "[":
        node, i = Node("array", i), _skip(text, i + 1)
        while text[i] != "]":
            child, i = _value(text, i)
            node.items.append(child)
            i = _skip(text, i)
            if text[i] == ",":
                i = _skip(text, i + 1)
        node.end = i + 1
        return node, i + 1
    if c == '"':
        end = _string_end(text, i)
        return Node("scalar", i, end), end
    m = re.compile(r"[^\s,\]}]+").match(text, i)
    return Node("scalar", i, m.end()), m.end()


# ---- inserting -----------------------------------------------------------------------------------


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _indent_of(text: str, pos: int) -> str:
    """The whitespace that starts the line holding `pos`."""
    line = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t]*", text[line:]).group(0)


def _unit(text: str) -> str:
    """One level of the file's indentation (two spaces when it has none to go by)."""
    widths = [len(m.group(1)) for m in re.finditer(r"\n([ ]+)\S", text)]
    if "\n\t" in text:
        return "\t"
    return " " * min(widths) if widths else "  "


def _render(value, indent: str, unit: str, nl: str) -> str:
    dumped = json.dumps(value, indent=unit if unit != "\t" else "\t", ensure_ascii=False)
    return dumped.replace("\n", nl + indent)


def insertion(text: str, container: Node, value, *, key: str | None = None) -> tuple[int, str]:
    """Where and what to insert to append `value` (as member `key` of an object) to `container`."""
    nl, unit = _newline(text), _unit(text)
    children = container.members if container.kind == "object" else container.items
    head = f"{json.dumps(key, ensure_ascii=False)}: " if key is not None else ""
    if children:
        last = children[-1][1] if container.kind == "object" else children[-1]
        first = children[0][1] if container.kind == "object" else children[0]
        # The first child's line gives the indentation (an object's key sits before its value).
        line_start = text.rfind("\n", 0, first.start) + 1
        indent = _indent_of(text, first.start) if line_start > container.start else None
        if indent is None:  # all on one line: stay on it
            return last.end, ", " + head + json.dumps(value, ensure_ascii=False)
        return last.end, "," + nl + indent + head + _render(value, indent, unit, nl)
    outer = _indent_of(text, container.start)
    inner = outer + unit
    return container.start + 1, nl + inner + head + _render(value, inner, unit, nl) + nl + outer


def insert(text: str, at: int, snippet: str) -> str:
    return text[:at] + snippet + text[at:]


def remove(text: str, snippets: list[str]) -> str | None:
    """The text without each snippet (latest first), or None when one is not there exactly once."""
    for snippet in reversed(snippets):
        if text.count(snippet) != 1:
            return None
        text = text.replace(snippet, "", 1)
    return text
