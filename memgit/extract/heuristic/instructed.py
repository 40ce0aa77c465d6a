"""The project's instruction files (CLAUDE.md, AGENTS.md, GEMINI.md): standing rules by where they stand.

Two ways a session shows them:

- *loaded*: the harness put the file before the conversation (Codex's AGENTS.md, Gemini CLI's
  GEMINI.md; the source marks the turn "instructions"): its first few rules, each with its heading;
- *written at the person's request*: the person asked the agent to add a rule to the file ("extend
  CLAUDE.md and add that …") and the agent edited it. What it added is the project's standing rule,
  phrased for agents already: each section it wrote becomes one learning, its heading the subject.

A rule is a sentence that says what must, should or must never be done; the sentence that opens its
section is kept with it for the context ("This application processes large volumes of data. All
code changes must prioritise throughput.").
"""

from __future__ import annotations

import re

from memgit.core.model import ToolCall
from memgit.core.scan import clip
from memgit.extract.tools import patches, replacements
from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.session import Session
from memgit.extract.heuristic.standing import INSTRUCTED
from memgit.extract.heuristic.text import Unit, plain, sentence_case, units

FILES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "GEMINI.md")
MAX_LOADED = 2  # rules of a loaded file a note keeps (a long file is not copied into a note)
MAX_WRITTEN = 4  # sections of written rules one session keeps
MAX_CHARS = 420
_RULE = re.compile(
    r"\b(?:must|should|shall|always|never|don'?t|do not|avoid|prefer|only|required?|make sure|ensure|need(?:s)? to|"
    r"has to|have to|instead of|rather than)\b",
    re.I,
)
_ITEM_LABEL = re.compile(r"^(?P<label>[^:]{3,60}):\s+\S")
_MENTION = re.compile(r"\b(?:claude|agents|gemini)(?:\.local)?\.md\b", re.I)


def learn(s: Session, *, standing_rule) -> list[Candidate]:
    """The rules of the instruction files the session loaded or, at the person's request, wrote."""
    out: list[Candidate] = []
    for text in s.instructions:
        out += _loaded(text, standing_rule)
    asked = {m.group(0).lower() for x in s.exchanges if x.said for m in _MENTION.finditer(x.said)}
    written = 0
    for call in s.edits:
        name = _instruction_file(call)
        if name is None or name.lower() not in asked:
            continue
        for candidate in _written(name, _added_text(call)):
            if written < MAX_WRITTEN:
                out.append(candidate)
                written += 1
    return out


def _instruction_file(call: ToolCall) -> str | None:
    path = call.file_path or ""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return next((f for f in FILES if f.lower() == name.lower()), None)


def _added_text(call: ToolCall) -> str:
    """What an edit added to a file: the new lines of a replacement, a written file, or a patch's `+` lines."""
    pairs = replacements(call)
    for patch in patches(call):
        if "\n+" in patch:
            added = [line[1:] for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")]
            pairs.append(("", "\n".join(added)))
    out = []
    for old, new in pairs:
        before = set(old.splitlines())
        out.append("\n".join(line for line in new.splitlines() if line not in before or not line.strip()))
    return "\n\n".join(out)


def _loaded(text: str, standing_rule) -> list[Candidate]:
    """The first few standing rules of a loaded instruction file, each with its heading."""
    out = []
    for unit in units(text):
        if len(unit.text) > 240 or not standing_rule(unit.text):
            continue
        heading = plain(unit.heading).strip(" :")
        statement = f"{heading}: {unit.text}" if heading else sentence_case(unit.text)
        if len(statement) <= 240:
            out.append(Candidate("convention", f"{INSTRUCTED[0]} {statement}", 2.5, "instructions"))
    return out[:MAX_LOADED]


def _written(name: str, added: str) -> list[Candidate]:
    """One learning per section of the added text that holds a rule: its heading, its opening
    sentence and its rules (long list items by their labels)."""
    sections: dict[str, list[Unit]] = {}
    for unit in units(added):
        sections.setdefault(plain(unit.heading).strip(" :"), []).append(unit)
    out = []
    for heading, found in sections.items():
        rules = [u for u in found if _RULE.search(u.text)]
        if not rules:
            continue
        parts = [] if found[0] in rules else [found[0].text]
        for i, u in enumerate(found):
            if u in rules or (u.item and i > 0 and _lead_ends(found, u)):
                introduces = not u.item and i + 1 < len(found) and found[i + 1].item
                parts.append(_short(u).rstrip(".") + ":" if introduces else _short(u))
        body = _join(parts)
        where = f"{name}, {heading}" if heading else name
        text = clip(f"{INSTRUCTED[1]} ({where}): {body}", MAX_CHARS)
        if not text.endswith("…"):
            out.append(Candidate("convention", text, 4.25, "written"))
    return out


def _lead_ends(found: list[Unit], unit: Unit) -> bool:
    """A list item under a rule that introduces it ("For any significant change, you MUST:")."""
    before = [u for u in found[: found.index(unit)] if not u.item]
    return bool(before) and _RULE.search(before[-1].text) is not None


def _short(unit: Unit) -> str:
    """A long list item by its label ("Check all call paths: Trace every caller…" -> its first sentence)."""
    text = unit.text
    if unit.item and len(text) > 120 and (label := _ITEM_LABEL.match(text)):
        rest = text[label.end() - 1:].split(". ")[0].rstrip(".")
        return f"{label.group('label')}: {rest}"
    return text


def _join(parts: list[str]) -> str:
    kept, size = [], 0
    for part in dict.fromkeys(p.strip() for p in parts if p.strip()):
        part = part if part[-1] in ".!?:;" else part + "."
        if size + len(part) > MAX_CHARS - 60 and kept:
            break
        if kept and kept[-1].endswith(":") and part[:1].isupper() and part[1:2].islower():
            part = part[0].lower() + part[1:]  # an item of the list the sentence before introduces
        kept.append(part)
        size += len(part) + 1
    if kept and kept[-1].endswith(":"):  # what it introduced (a table, code) is not prose
        kept[-1] = kept[-1][:-1].rstrip() + "."
    return " ".join(kept)
