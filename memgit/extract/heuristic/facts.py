"""Facts about the codebase: where things live and how they work, as the agent stated them.

The agent's answers are read — above all its answer to a question the person asked, its closing
summary, and what it says it found while investigating ("so the UI reads from `metadata.json`").
A fact names something concrete (code, a file, an identifier) and says what it is or does; a
report of what the agent did ("I've added …", "Updated the template") is not a fact, it belongs in
the note's paragraph. Compaction summaries add their "Key Technical Concepts" and the
limitations and insights of their "Problem Solving" section.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic import compaction
from memgit.extract.heuristic.candidate import Candidate, concreteness, contrasted, fluff, hedged, monologue, reasoned
from memgit.extract.heuristic.filters import drop_opener, problem, scrub
from memgit.extract.heuristic.gotchas import DIAGNOSIS
from memgit.extract.heuristic.session import Exchange, Session
from memgit.extract.heuristic.text import Unit, sentence_case

PER_TEXT = 3
_STATE = re.compile(
    r"\b(?:is|are|was|were|lives?|stor(?:es|ed)|located|defined|declared|reads?|writes?|runs?|uses?|returns?|handles?|"
    r"takes?|holds?|keeps?|calls?|maps?|serves?|requires?|expects?|contains?|points?|loads?|creates?|registers?|"
    r"implements?|provides?|supports?|means|works?|happens|triggers?|checks?|sets?|comes? from|belongs?|"
    r"depends? on|lets?|gives?|accepts?|resolves?|wraps?|exposes?|stays?|gets?)\b",
    re.I,
)
_DID = re.compile(
    r"^(?:I'?ve|I have|I|we'?ve|we have|we)\s+(?:also\s+|now\s+|just\s+)?(?:added|created|updated|fixed|changed|removed|"
    r"moved|implemented|written|wrote|made|replaced|refactored|renamed|modified|ran|run|committed|pushed|switched|"
    r"set up|cleaned|restored|simplified|extracted|introduced|deleted|reverted|applied|kept|verified|tested|"
    r"confirmed|checked)\b"
    r"|^(?:added|created|updated|fixed|changed|removed|moved|implemented|replaced|refactored|renamed|modified|"
    r"deleted|reverted|introduced|extracted)\b",
    re.I,
)
_QUESTION = re.compile(r"\?\s*$|^(?:what|how|where|why|which|when|who|does|do|is|are|can|could|would|should|will)\b",
                       re.I | re.M)
_FINDING = re.compile(r"^(?:so |i see|it turns out|turns out|found|the key|note that|interesting)", re.I)
_FACT_LABELS = {"limitation", "root cause", "key insight", "insight", "note", "finding", "constraint", "cause"}
_LABEL = re.compile(r"^(?P<label>[A-Z][A-Za-z ]{2,20}):\s+(?P<rest>\S.*)$")
_SUBJECT = re.compile(r"^`(?P<name>[\w.-]+)`\s*[:—–-]")  # "`read_file`: Read the contents of a file"
_FINDING_OPENER = re.compile(r"^(?:so|i see|ok(?:ay)?|good(?: context)?|got it)[,.!-]?\s+(?:-\s+)?", re.I)


def learn(s: Session) -> list[Candidate]:
    found: list[Candidate] = []
    closing = s.closing
    for exchange in s.exchanges:
        asked = bool(exchange.said) and _QUESTION.search(exchange.said) is not None
        for text in exchange.texts:
            final = text is exchange.answer
            found += _stated(s.units(text), s.cwd, bonus=_bonus(exchange, final, asked, text is closing), mid=not final)
    for report in s.reports:  # a subagent's findings, as it reported them
        found += _stated(s.units(report), s.cwd, bonus=0.25, mid=False)
    for summary in s.compactions:
        found += _from_compaction(summary)
    tools = {c.name for c in s.calls + s.side_calls if c.name}
    return [c for c in found if not _about_a_tool(c.text, tools)]


def _about_a_tool(text: str, tools: set[str]) -> bool:
    """A statement about one of the agent's own tools (its answer to "what tools do you have?"):
    about the agent, not the project."""
    subject = _SUBJECT.match(text)
    return subject is not None and subject.group("name") in tools


def _bonus(x: Exchange, final: bool, asked: bool, closing: bool) -> float:
    return 0.75 * final + 0.75 * (final and asked) + 0.5 * closing + 0.25 * (final and x.correction)


def _stated(said: tuple[Unit, ...], cwd: str | None, *, bonus: float, mid: bool) -> list[Candidate]:
    scored = []
    for unit in said:
        clean = drop_opener(_FINDING_OPENER.sub("", scrub(unit.text, cwd)))
        if problem(clean) or fluff(clean) or monologue(clean) or hedged(clean) or clean.rstrip().endswith("?"):
            continue
        if DIAGNOSIS.search(clean):
            continue  # a root cause is a gotcha's

        refs = concreteness(clean)
        if not refs or not _STATE.search(clean):
            continue
        score = 1.25 + bonus + 0.4 * refs + 0.5 * reasoned(clean) + 0.25 * contrasted(clean)
        score += 0.5 if mid and _FINDING.match(unit.text) else 0
        score -= 1.25 if _DID.match(clean) else 0
        score -= 0.5 if unit.heading and re.search(r"benefit|summary of changes|changes made|testing", unit.heading, re.I) else 0
        scored.append(Candidate("fact", sentence_case(clean), score, "answer" if not mid else "finding"))
    return sorted(scored, key=lambda c: -c.score)[:PER_TEXT]


def _from_compaction(summary: str) -> list[Candidate]:
    found = []
    for text, _ in compaction.bullets(compaction.section(summary, "technical concept")):
        if concreteness(text) and len(text) >= 30:
            found.append(Candidate("fact", sentence_case(text), 2.25 + 0.25 * concreteness(text), "compaction"))
    for text, _ in compaction.bullets(compaction.section(summary, "problem")):
        label = _LABEL.match(text)
        if label and label.group("label").lower() in _FACT_LABELS:
            found.append(Candidate("fact", sentence_case(text), 2.75, "compaction"))
    return found[:6]
