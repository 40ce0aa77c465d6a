"""Decisions: a choice with its reason.

- an *accepted plan* (ExitPlanMode approved, or "Implement the following plan:"): its title and
  what it sets out to do, and its statements that choose one thing over another;
- the person *choosing* with a reason ("let's start fresh from main, the old approach adds
  complexity");
- the agent stating a choice that was made ("X instead of Y", "we decided …", "the approach is …");
- a compaction summary's "Problem Solving" section (Solution / Decision / Approach bullets).
"""

from __future__ import annotations

import re

from memgit.extract.heuristic import compaction
from memgit.extract.heuristic.candidate import REASON, Candidate, concreteness, fluff, hedged, monologue, reasoned
from memgit.extract.heuristic.filters import drop_opener, problem, scrub
from memgit.extract.heuristic.preferences import standing_rule, strip_filler
from memgit.extract.heuristic.session import Session
from memgit.core.scan import clip
from memgit.extract.heuristic.text import Unit, plain, sentence_case

MAX_CHARS = 320
_CHOICE = re.compile(
    r"\b(?:let'?s|we(?:'ll| will| should| could| can| don'?t need)|go(?:ing)? with|instead|rather than|"
    r"don'?t need|drop|switch to|start (?:fresh|over|again)|for now|keep (?:it|the|using)|stick (?:to|with)|"
    r"no need)\b",
    re.I,
)
_USER_TRADEOFF = re.compile(r"\b(?:complexity|simpler|for now|later|overkill|not worth|trade-?off)\b", re.I)
DECIDE = re.compile(
    r"\b(?:decided|decision|chose|chosen|opted|(?:we|I)(?:'ll| will) (?:use|go with|keep|drop)|going with|"
    r"the (?:chosen |new )?approach (?:is|was)|trade-?off|instead of|rather than|in favou?r of|"
    r"replac(?:e|es|ed|ing) [^.]{1,60} with|(?:is|are) (?:dropped|removed|kept|deferred)|no longer|"
    r"(?:changed|switched|converted|moved) [^.]{1,60} from [^.]{1,60} to)\b",
    re.I,
)
_PLAN_TITLE = re.compile(r"^#{1,4}\s+(?:(?:implementation |proposed )?plan\s*[:\-–]\s*)?(?P<title>.+?)\s*#*$", re.I)
_PLAN_BODY = re.compile(r"goal|change|approach|summary|solution|decision|overview|proposal|what|objective|design",
                        re.I)
_PLAN_SKIP = re.compile(r"context|background|current|files|verification|test|steps|implementation order|todo",
                        re.I)
_DECISION_LABELS = {"solution", "solved", "decision", "decided", "approach", "resolution", "chosen", "choice"}
_LABEL = re.compile(r"^(?P<label>[A-Z][A-Za-z ]{2,20}):\s+(?P<rest>\S.*)$")


def learn(s: Session) -> list[Candidate]:
    found: list[Candidate] = []
    for plan in s.plans:
        found += _from_plan(plan, s)
    for exchange in s.exchanges:
        if exchange.said and exchange.kind in ("prompt", "queued", "rejection"):
            found += _chosen_by_person(s.units(exchange.said))
        if exchange.answer:  # mid-turn the agent thinks aloud; its answer says what was chosen
            found += _stated(s.units(exchange.answer), s.cwd, after_plan=exchange.kind == "plan")
    for summary in s.compactions:
        found += _from_compaction(summary)
    return found


def plan_title(plan: str) -> str | None:
    for line in plan.splitlines():
        if match := _PLAN_TITLE.match(line.strip()):
            return plain(match.group("title")).strip()
    return None


def _from_plan(plan: str, s: Session) -> list[Candidate]:
    title = plan_title(plan)
    goal, chosen = None, []
    for unit in s.units(plan):
        clean = scrub(unit.text, s.cwd)
        if problem(clean) or fluff(clean) or (unit.heading and _PLAN_SKIP.search(unit.heading)):
            continue
        if monologue(clean) or hedged(clean) or len(clean) > MAX_CHARS:
            continue
        if goal is None and (not unit.heading or _PLAN_BODY.search(unit.heading) or unit.heading == title):
            goal = clean
        elif DECIDE.search(clean) or reasoned(clean):
            chosen.append(clean)
    out = []
    if title and goal:
        text = sentence_case(clip(f"Plan approved: {title.rstrip('.')}. {goal}", MAX_CHARS))
        out.append(Candidate("decision", text, 3.5 + 0.25 * concreteness(goal), "plan"))
    for text in chosen[:3]:
        out.append(Candidate("decision", text, 2.75 + 0.5 * reasoned(text) + 0.25 * concreteness(text), "plan"))
    return out


def _chosen_by_person(said: tuple[Unit, ...]) -> list[Candidate]:
    out = []
    for unit in said:
        text = strip_filler(unit.text)
        if not _CHOICE.search(text) or not (REASON.search(text) or _USER_TRADEOFF.search(text)) or standing_rule(text) or len(text) > MAX_CHARS:
            continue
        if problem(text) is None:
            out.append(Candidate("decision", f'The user decided: "{text}"', 3.25 + 0.25 * concreteness(text), "person"))
    return out


def _stated(said: tuple[Unit, ...], cwd: str | None, *, after_plan: bool) -> list[Candidate]:
    out = []
    for unit in said:
        clean = drop_opener(scrub(unit.text, cwd))
        if not DECIDE.search(clean) or problem(clean) or fluff(clean) or not concreteness(clean) \
                or monologue(clean) or hedged(clean):
            continue
        score = 2.25 + 0.5 * after_plan + 0.75 * reasoned(clean) + 0.25 * concreteness(clean)
        out.append(Candidate("decision", clean, score, "stated"))
    return out


def _from_compaction(summary: str) -> list[Candidate]:
    found = []
    for text, _ in compaction.bullets(compaction.section(summary, "problem", "solution", "decision")):
        label = _LABEL.match(text)
        if label and label.group("label").lower() in _DECISION_LABELS:
            text = label.group("rest")
        elif not DECIDE.search(text):
            continue
        found.append(Candidate("decision", sentence_case(text), 2.75 + 0.25 * concreteness(text), "compaction"))
    return found[:4]
