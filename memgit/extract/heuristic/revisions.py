"""The session as it ended: what it later took back is gone before the learners read it.

A session's final state wins, inside the session too. Before any learner runs, the agent's texts
and the plans lose

- **options not taken**: an answer or a plan that lays out alternatives ("Option A / Option B",
  "Approach 2", "Fix 7 — …", "Alternative: …", "Workaround: …") keeps only the one the person chose
  in their next words ("only implement fix 6", "go with B") or, when they chose none by name, the
  one it recommended; the others were never done;
- **what the person corrected or undid**: "Correction: …", "no, …", "actually …", "revert that",
  "roll back …" — an earlier statement of the agent about the same subject (two distinctive words,
  or a code span, in common) no longer holds; "revert it" with nothing named undoes the exchange
  before;
- **what the agent retracted**: "Actually, …", "I was wrong …", "on closer inspection …" — its
  earlier statements about the same subject;
- **a plan the person turned down and replaced**: the code it named that neither the plan approved
  next nor the work after it names (a file it would have renamed) — the agent's earlier words on it,
  a subagent's report included.

Removed at the level of a line (a paragraph, a list item, a section under an option's heading), so
a note never states a disproved claim, a rejected option or a reverted change as a fact or a
decision. Pure: a new Session, the old one untouched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memgit.extract.heuristic.session import Exchange, Session

_PERSON_SAID = ("prompt", "queued", "rejection")  # exchanges that open with the person's own words
MIN_SHARED = 2  # distinctive words a correction and an earlier line must share to be about one subject
_WORD = re.compile(r"[a-z][a-z0-9_]{2,}")
_CODE = re.compile(r"`([^`\n]{2,80})`")
# Words of any session: sharing them says nothing about the subject.
_COMMON = frozenset(
    """the and for with that this from into when then than them they their there what which while will would should
    could have has had was were are is not but you your our its can all any each also only just now here still
    use used using run runs running test tests code file files function functions change changes changed make
    made fix fixed add added set get new old one two way need needs work works done did does doing want let
    like see look check instead because since should must after before again other more most some same
    case cases call calls called value values line lines error errors issue issues problem time first last
    correction actually wait revert undo roll back restore back please mark set state""".split()
)
_PERSON_TAKES_BACK = re.compile(
    r"^(?:correction|no|nope|wait|actually|not quite|hold on|oops)\b|"
    r"\b(?:that'?s|this is|it'?s) (?:wrong|not right|incorrect|not what I)|"
    r"\b(?:revert|undo|roll ?back|back out|put (?:it |that |them )?back|go back to|restore)\b",
    re.I,
)
_UNDO_ALL = re.compile(r"^(?:please\s+)?(?:revert|undo|roll ?back|back out)\s+(?:it|that|this|these|those|"
                       r"(?:the|your|all|these|those) (?:last )?(?:changes?|edits?|commits?))\W*$", re.I)
_AGENT_TAKES_BACK = re.compile(
    r"^(?:actually|correction|wait)\b[,:]?|\b(?:I was wrong|I misread|I misunderstood|that was (?:wrong|incorrect|"
    r"a mistake)|(?:is|was) (?:not|n't) (?:quite )?(?:right|correct|accurate)|on closer (?:inspection|look)|"
    r"contrary to what I (?:said|wrote)|I (?:need|have) to correct)\b",
    re.I,
)
# An option's label: at the start of a heading, a list item or a paragraph.
_OPTION = re.compile(
    r"^\s*(?:#{1,6}\s+|[-*+]\s+|\d+[.)]\s+)?(?:\*\*|__)?(?P<kind>option|alternative|approach|solution|variant|"
    r"proposal|fix|idea|workaround)(?:\s*#?(?P<label>[A-Z]|\d{1,2})\b)?(?=[\s*_:—–.)-])",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*])")
_HEADING = re.compile(r"^\s*(?P<marks>#{1,6})\s")
_RECOMMENDED = re.compile(r"\b(?:recommended|recommend(?:ation)?|preferred|chosen|selected|best option|my pick)\b", re.I)
_CHOSEN = re.compile(
    r"\b(?P<kind>option|alternative|approach|solution|variant|proposal|fix|idea|workaround)(?:es|s)?\s*#?"
    r"(?P<labels>(?:[A-Z]|\d{1,2})(?:\s*(?:,|and|&|or|\+)\s*(?:[A-Z]|\d{1,2}))*)\b",
    re.I,
)
_GO_AHEAD = re.compile(r"^(?:yes|yep|ok(?:ay)?|sure|go ahead|do it|sounds good|lgtm|proceed|implement (?:it|that|this|them|all)|"
                       r"let'?s do (?:it|that)|(?:fix|do|implement|apply) (?:all|them|everything|these))\b", re.I)
# Several of these may be done (a review's "Fix 1…7"); options and alternatives exclude each other.
PROPOSALS = frozenset({"fix", "idea", "proposal"})


@dataclass(frozen=True, slots=True)
class Revision:
    at: int  # the exchange it happened in
    subject: frozenset[str]  # the distinctive words and code it is about
    undo_all: bool = False  # "revert it": everything the exchange before did


def prune(s: Session) -> Session:
    """The session without its options not taken and what it later corrected, undid or retracted."""
    said_next = _next_words(s.exchanges)
    revisions = [*_revisions(s.exchanges), *_replaced(s)]
    exchanges = []
    for i, x in enumerate(s.exchanges):
        later = [r for r in revisions if r.at > i]
        texts = [_revised(_without_options(t, said_next[i]), later, i) for t in x.texts]
        exchanges.append(replace(x, texts=[t for t in texts if t.strip()]))
    plans = [_without_options(plan, "yes") for plan in s.plans]  # a plan is approved as a whole
    # A subagent's report is the agent's too: what the person later took back of it goes as well.
    reports = [_revised(report, [r for r in revisions if r.at > at], at) for report, at in _reported_at(s)]
    return replace(s, exchanges=exchanges, plans=plans, reports=[r for r in reports if r.strip()])


def _reported_at(s: Session) -> list[tuple[str, int]]:
    """Each subagent report with the exchange whose call returned it (after every exchange when none did)."""
    at = {}
    for i, x in enumerate(s.exchanges):
        for call in x.calls:
            at.setdefault(call.output, i)
    return [(report, at.get(report, len(s.exchanges))) for report in s.reports]


def subject(text: str) -> frozenset[str]:
    """What a line is about: its distinctive words and its code spans."""
    lowered = text.lower()
    found = {w for w in _WORD.findall(lowered) if w not in _COMMON}
    return frozenset(found | _spans(text))


def _next_words(exchanges: list[Exchange]) -> list[str]:
    """For each exchange, what the person said next (their reply to its answer), "" at the end."""
    out, following = [""] * len(exchanges), ""
    for i in range(len(exchanges) - 1, -1, -1):
        out[i] = following
        if exchanges[i].said and exchanges[i].kind in _PERSON_SAID:
            following = exchanges[i].said
    return out


def _revisions(exchanges: list[Exchange]):
    for i, x in enumerate(exchanges):
        if x.said and x.kind in _PERSON_SAID and _PERSON_TAKES_BACK.search(x.said):
            yield Revision(i, subject(x.said), undo_all=_UNDO_ALL.match(x.said.strip()) is not None)
        for text in x.texts:
            for line in text.splitlines():
                if _AGENT_TAKES_BACK.search(line.strip()):
                    yield Revision(i, subject(line))


def _replaced(s: Session):
    """The code a plan the person turned down named and nothing after it did (a file to be renamed, in
    neither the plan approved next nor the work that followed): the agent's earlier words on it were an
    option not taken. By code only, and by name (`Flush()` and `walCheckpoint.go:241` are met in
    "flushes" and `walCheckpoint.go:266`): a plan reworded names the same things in other words."""
    index = {id(x): i for i, x in enumerate(s.exchanges)}
    for at, old, new in s.replaced_plans:
        if id(at) not in index:
            continue
        after = s.exchanges[index[id(at)]:]
        later = "\n".join([new, *(t for x in after for t in x.texts), *(str(c.input) for x in after for c in x.calls)])
        later = later.lower()
        for line in old.splitlines():
            if dropped := {span for span in _spans(line) if _name(span) not in later}:
                yield Revision(index[id(at)], frozenset(dropped))


def _name(span: str) -> str:
    """What a code span names, without its call parentheses, line numbers, quotes and brackets."""
    return re.sub(r"\(\)$|:\d+(?:-\d+)?$", "", span.strip("`").strip("[]\"' ")).strip("[]\"' ")


def _spans(text: str) -> set[str]:
    return {f"`{span.strip().lower()}`" for span in _CODE.findall(text)}


def _revised(text: str, later: list[Revision], at: int) -> str:
    """`text` without the lines a later revision is about."""
    if not later:
        return text
    if any(r.undo_all and r.at == at + 1 for r in later):
        return ""
    kept = []
    for line in text.splitlines():
        if not any(_same_subject(subject(line), r.subject) for r in later) or _AGENT_TAKES_BACK.search(line):
            kept.append(line)
            continue
        # the sentences about the revised subject go; the rest of the paragraph stays
        sentences = [x for x in _SENTENCE.split(line) if not any(_same_subject(subject(x), r.subject) for r in later)]
        if any(x.strip(" -*") for x in sentences):
            kept.append(" ".join(sentences))
    return "\n".join(kept)


def _same_subject(a: frozenset[str], b: frozenset[str]) -> bool:
    shared = a & b
    return len(shared) >= MIN_SHARED or any(w.startswith("`") for w in shared)


def _without_options(text: str, reply: str) -> str:
    """`text` with the alternatives it lays out reduced to the one chosen (see the module docstring)."""
    lines = text.splitlines()
    blocks = _option_blocks(lines)
    if not blocks or (len(blocks) < 2 and not any(kind in ("alternative", "workaround") for kind, *_ in blocks)):
        return text
    chosen = _chosen(reply, blocks, lines)
    drop: set[int] = set()
    for kind, label, start, end in blocks:
        if (kind, label) not in chosen and (kind, "") not in chosen:
            drop.update(range(start, end))
    return "\n".join(line for n, line in enumerate(lines) if n not in drop)


def _option_blocks(lines: list[str]) -> list[tuple[str, str, int, int]]:
    """(kind, label, first line, end) of each option: a heading's section, or an item or paragraph
    with its continuation lines."""
    out = []
    for n, line in enumerate(lines):
        found = _OPTION.match(line)
        if found is None:
            continue
        kind, label = found.group("kind").lower(), (found.group("label") or "").upper()
        if kind in ("fix", "idea", "solution", "proposal", "variant", "approach") and not label:
            continue  # "Fix: …" states what was done, not one of several options
        out.append((kind, label, n, _block_end(lines, n)))
    return out


def _block_end(lines: list[str], start: int) -> int:
    heading = _HEADING.match(lines[start])
    for n in range(start + 1, len(lines)):
        line = lines[n]
        if heading:
            other = _HEADING.match(line)
            if other and len(other.group("marks")) <= len(heading.group("marks")):
                return n
            if _OPTION.match(line) and not other:
                continue
        elif not line.strip() or _OPTION.match(line) or _HEADING.match(line) or re.match(r"^\s*(?:[-*+]|\d+[.)])\s", line):
            if not line.startswith(("  ", "\t")) or not line.strip():
                return n
    return len(lines)


def _chosen(reply: str, blocks, lines: list[str]) -> set[tuple[str, str]]:
    """The options the person named in their reply; else, when they went ahead, every proposal and the
    recommended alternative; else none (nothing was decided)."""
    named = set()
    for found in _CHOSEN.finditer(reply):
        kind = found.group("kind").lower()
        for label in re.split(r"\s*(?:,|and|&|or|\+)\s*", found.group("labels")):
            if label:
                named.add((kind, label.upper()))
    kinds = {kind for kind, *_ in blocks}
    named = {(k, lab) for k, lab in named if k in kinds} or {(k, lab) for _, lab in named
                                                                 for k in kinds if k not in ("alternative", "workaround")}
    if named:
        return named
    if not _GO_AHEAD.match(reply.strip()):
        return set()
    return {(kind, label) for kind, label, start, end in blocks
            if kind in PROPOSALS or (_RECOMMENDED.search("\n".join(lines[start:end]))
                                     and kind not in ("alternative", "workaround"))}
