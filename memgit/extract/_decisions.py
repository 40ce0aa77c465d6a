"""Decisions and facts from compaction summaries and accepted plans.

A compaction summary (the agent's own recap when the context filled up) has numbered sections;
only its "Summary:" half is read (the "Analysis:" half is a chronological scratchpad):

- "Key Technical Concepts" → [fact]: bullets that name something concrete (a `code span` or a
  **term**: with an explanation), at most three per summary.
- "Problem Solving" → [decision] for Solution/Solved/Decision/Approach bullets and bullets that say
  "decided / chose / instead of"; [fact] for Limitation/Root cause/Insight bullets.
- "Errors and fixes" → [gotcha] "X: symptom; fixed by Y" when a fix is given and the error is not
  a typo-level slip in new code; "User feedback" bullets there → [decision].

An accepted plan (ExitPlanMode answered without error, or a prompt "Implement the following
plan:") → one [decision]: its title and the first sentence of its goal/change/approach section.
"""

from __future__ import annotations

import re

from ._text import clip, is_ephemeral, scrub, sentence_case

MAX_CHARS = 200
_HEADER = re.compile(
    r"^\s*(?:(?:\d+\.\s*)?\**(?P<t1>[A-Z][A-Za-z /&'-]{2,50}?)\**:\**|#{1,4}\s*(?P<t2>[A-Z][A-Za-z /&'-]{2,50}?):?)\s*$"
)
_BULLET = re.compile(r"^(?P<indent>\s*)(?:[-*•]|\d+\.|[a-z]\.)\s+(?P<text>\S.*)$")
_BOLD_LEAD = re.compile(r"^\*\*(?P<term>[^*]{2,80})\*\*\s*:?\s*(?P<rest>.*)$")
_LABEL = re.compile(r"^(?P<label>[A-Z][A-Za-z ]{2,20}):\s+(?P<rest>\S.*)$")
_DECISION_LABELS = {"solution", "solved", "decision", "decided", "approach", "fix", "resolution", "chosen"}
_FACT_LABELS = {"limitation", "root cause", "key insight", "insight", "note", "finding", "constraint", "cause"}
_DECISION_WORDS = re.compile(r"\b(?:decided|chose|chosen|agreed|opted|will use)\b", re.I)
_TRIVIAL_ERROR = re.compile(
    r"redeclared|undefined|declared and not used|naming conflict|misleading|typo|unused|syntax|"
    r"no new variables|wrong (?:line )?count|tests? fail|failing tests?|expected",
    re.I,
)
_FIX = re.compile(r"^(?:\*\*)?(?:fix(?:ed)?|solution|resolved)(?:\*\*)?\s*(?:by|:)?\s*(?:\*\*)?\s*:?\s*", re.I)
_PLAN_TITLE = re.compile(r"^#{1,4}\s+(?:(?:implementation |proposed )?plan\s*[:\-–]\s*)?(?P<title>.+?)\s*#*$", re.I)
_PLAN_BODY_SECTION = re.compile(r"goal|change|approach|summary|solution|decision|overview|proposal|what|objective", re.I)
_PLAN_SKIP_SECTION = re.compile(r"context|background|problem|current|issue|files|verification|test", re.I)
_PROSE = re.compile(r"^(?![#|>`]|\s*[-*•]\s|\s*\d+\.\s|\*\*[^*]+\*\*:?\s*$)\S")
_STEP_LABEL = re.compile(r"^(?:initially|first|originally|then|finally)\s*:\s*", re.I)
_PLAN_PREFIX = re.compile(r"^\s*implement the following plan:\s*", re.I)
_FENCED = re.compile(r"^\s*```.*?^\s*```\s*$", re.S | re.M)
_ERROR_LABEL = re.compile(r"^(?:error|problem|issue)\s*:\s*", re.I)


def _sections(summary: str) -> dict[str, list[str]]:
    """Lines of each section of a compaction summary, keyed by lower-cased title."""
    start = summary.find("\nSummary:")
    body = summary[start + 9 :] if start >= 0 else summary
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in body.splitlines():
        if match := _HEADER.match(line):
            current = sections.setdefault((match.group("t1") or match.group("t2")).strip().lower(), [])
        elif current is not None:
            current.append(line)
    return sections


def _bullets(lines: list[str]) -> list[tuple[str, list[str]]]:
    """Top-level bullets of a section with their child lines."""
    items: list[tuple[str, list[str]]] = []
    base: int | None = None
    for line in lines:
        match = _BULLET.match(line)
        if not match:
            continue
        indent = len(match.group("indent"))
        if base is None:
            base = indent
        if indent <= base:
            items.append((match.group("text").strip(), []))
        elif items:
            items[-1][1].append(match.group("text").strip())
    return items


def _plain(text: str) -> str:
    """`**Term**: rest` → `Term: rest`; bold and stray markers removed; volatile details scrubbed."""
    if bold := _BOLD_LEAD.match(text):
        term, rest = bold.group("term").strip().rstrip(":"), bold.group("rest").strip()
        text = f"{term}: {rest}" if rest else term
    return scrub(text.replace("**", ""))


def _lower_first(text: str) -> str:
    return text[0].lower() + text[1:] if re.match(r"[A-Z][a-z]", text) else text


def _fit(text: str) -> str | None:
    text = sentence_case(clip(text, MAX_CHARS))
    return None if len(text) < 20 or is_ephemeral(text) else text


def _concepts(lines: list[str]) -> list[tuple[str, str]]:
    found = []
    for text, _ in _bullets(lines):
        concrete = "`" in text or (_BOLD_LEAD.match(text) and ":" in text)
        plain = _plain(text)
        if concrete and len(plain) >= 30 and (fitted := _fit(plain)):
            found.append(("fact", fitted))
    return found[:3]


def _solutions(lines: list[str]) -> list[tuple[str, str]]:
    found = []
    for text, _ in _bullets(lines):
        plain = _plain(text)
        label = _LABEL.match(plain)
        kind = None
        if label and label.group("label").lower() in _DECISION_LABELS:
            kind, plain = "decision", label.group("rest")
        elif label and label.group("label").lower() in _FACT_LABELS:
            kind = "fact"
        elif _DECISION_WORDS.search(plain):
            kind = "decision"
        if kind and (fitted := _fit(plain)):
            found.append((kind, fitted))
    return found[:3]


def _errors(lines: list[str]) -> list[tuple[str, str]]:
    found = []
    for text, children in _bullets(lines):
        plain = _plain(text)
        if plain.lower().startswith("user feedback"):
            rest = plain.split(":", 1)[-1].strip()
            if fitted := _fit(rest):
                found.append(("decision", fitted))
            continue
        fix_line = next((_plain(c) for c in children if _FIX.match(c.replace("**", ""))), None)
        fixed_by = bool(fix_line and re.match(r"^fixed by\b", fix_line, re.I))
        fix = _FIX.sub("", fix_line) if fix_line else None
        if not fix and (inline := re.search(r"\bFixed by\b\s*(.+)$", plain)):
            fix, fixed_by, plain = inline.group(1), True, plain[: inline.start()].rstrip(" .-—")
        plain = _ERROR_LABEL.sub("", plain)
        if not fix or _TRIVIAL_ERROR.search(plain):
            continue
        joined = f"fixed by {_lower_first(fix)}" if fixed_by else f"fix: {fix}"
        if fitted := _fit(f"{plain.rstrip(' .')}; {joined}"):
            found.append(("gotcha", fitted))
    return found[:2]


def from_compaction(summary: str) -> list[tuple[str, str]]:
    """(type, text) learnings from one compaction summary."""
    sections = _sections(summary)
    found: list[tuple[str, str]] = []
    for title, lines in sections.items():
        if "technical concept" in title:
            found.extend(_concepts(lines))
        elif "problem" in title and ("solv" in title or "solution" in title):
            found.extend(_solutions(lines))
        elif "error" in title:
            found.extend(_errors(lines))
    return found


def intent(summary: str) -> str | None:
    """The first stated intent of a compaction summary ("Primary Request and Intent")."""
    for title, lines in _sections(summary).items():
        if "request" in title or "intent" in title:
            bullets = _bullets(lines)
            if bullets:
                return _STEP_LABEL.sub("", _plain(bullets[0][0]))
            prose = " ".join(line.strip() for line in lines if line.strip())
            return _plain(prose) if prose else None
    return None


def plan_title(plan: str) -> str | None:
    for line in _PLAN_PREFIX.sub("", plan).splitlines():
        if match := _PLAN_TITLE.match(line.strip()):
            return match.group("title").strip().strip("*").strip()
    return None


def from_plan(plan: str) -> str | None:
    """One decision sentence for an accepted plan: its title and what it sets out to do."""
    plan = _FENCED.sub("", _PLAN_PREFIX.sub("", plan))
    title = plan_title(plan)
    body, section, seen_title = None, "", False
    for line in plan.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            if seen_title or not title:
                section = stripped.lstrip("#").strip()
            seen_title = True
            continue
        if section and _PLAN_SKIP_SECTION.search(section):
            continue
        in_body = not title or not section or _PLAN_BODY_SECTION.search(section)
        if in_body and _PROSE.match(stripped) and not stripped.endswith(":"):
            body = stripped
            break
        if in_body and title and (item := _BULLET.match(line)):
            body = item.group("text")
            break
    first = re.split(r"(?<=[.!?])\s", _plain(body))[0] if body else ""
    text = f"{title}: {_lower_first(first)}" if title and first else title or first
    return _fit(_plain(text)) if text else None
