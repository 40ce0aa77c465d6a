"""What of a scope's memory reaches the briefing: the lines a newcomer acts on, not one session's detail.

The briefing is worth its tokens only when every line earns its place, so each type has a bar:

- preferences and conventions: standing ones (memgit.extract.heuristic.standing) or any the person
  repeated in another session; a correction of one task stays in its note;
- gotchas: ones that would bite again — stated as how something behaves or what it needs, fixed in the
  setup rather than the project's code, or seen in two sessions — not the debugging trail of one bug since fixed ("Root cause: …", "`x` failed …;
  `x'` works" after a typo);
- decisions: the ones still in force, stated as how things are done and why, or repeated; not one
  session's changelog ("Changed `X` to `Y` in a.go", "Plan approved: fix …");
- facts: those two sessions found, and a lesson about a tool the project uses, stated as how it
  behaves ("Golangci-lint v2 requires a `version: "2"` field …"): it holds wherever that tool runs, and
  names none of the project's files.

Everything else stays in MEMORY.md and the notes, where the prompt hook and `memgit search` find it
when a prompt needs it. Pure functions over clusters.
"""

from __future__ import annotations

import re

from memgit.consolidate.heuristic.graph import Cluster
from memgit.extract.heuristic.commands import adds_option
from memgit.extract.heuristic.keywords import about_a_tool
from memgit.extract.heuristic.standing import standing, stands_alone

# How something behaves or what it needs: the form of a lesson that still holds.
_RULE = re.compile(
    r"\b(?:must(?: not)?|never|always|only (?:when|if|after|before|works?|once|for|with|in)|need(?:s)? (?:to|a|an|the)|"
    r"has to|have to|requires?|required|cannot|can'?t|won'?t|doesn'?t|does not|don'?t|do not|isn'?t|is not|"
    r"aren'?t|by design|otherwise|unless|make sure|be sure|instead of|rather than|blocks?|fails? (?:when|if|with|on)|"
    r"breaks? (?:when|if)|when\b|whenever|if\b|so that|so (?:the|it|a|an|we)|without|to avoid|to keep|to prevent)\b",
    re.I,
)
# The account of one bug or one change: true of that session, history by the next.
_NARRATIVE = re.compile(
    r"^(?:[A-Z]{1,2}\d{1,2}\s*[—–:-]|mistake:|problem:|root cause|the root cause|(?:the|this|that) (?:real |actual |main )?(?:issue|problem|bug|"
    r"culprit|cause|fix|change)s? (?:is|was|were|here)|what (?:was|went) wrong|changes made|plan approved|"
    r"(?:i |we )?(?:fixed|added|removed|replaced|changed|moved|renamed|extracted|inlined|parameteri[sz]ed|updated|"
    r"created|introduced|implemented|refactored|converted|reduced|increased|deleted|dropped|switched|wrapped|"
    r"merged|bumped|rewrote|rewritten|simplified|consolidated|reworked|restructured)\b|now\b|previously\b|"
    r"before (?:the|this)\b|after (?:the|this) (?:fix|change)|the fix\b|this fix\b|with (?:the|this) fix\b|"
    r"`[^`]{1,80}`\s*(?:[—–:]|-\s)|[\w /&-]{2,40}:\s+(?:(?:the )?(?:user|agent) )?(?:fixed|added|removed|replaced|changed|moved|"
    r"renamed|extracted|reduced|increased|updated|introduced|implemented|refactored|switched|dropped|made|now)\b)",
    re.I,
)
# A narrative in the past tense: "X was never called", "the buffer filled up".
_PAST = re.compile(r"^(?:\S+\s+){0,8}?(?:was|were|had been|did not|didn'?t|wasn'?t|weren'?t|caused|broke|"
                   r"returned|filled|exceeded|crashed|hung|leaked|ran out)\b", re.I)
# As memgit.extract.heuristic.gotchas writes it: the report ends with its own "?", "!" or quote, else a period.
REPORTED = re.compile(r"^Problem: (?P<problem>.+?)(?:\.|(?<=[?!\"])) Fix: (?P<fix>.+)$", re.S)
_TROUBLE = re.compile(r"\b(?:error|errors|fail\w*|crash\w*|leak\w*|slow\w*|hang\w*|stuck|panic\w*|timeout|"
                      r"wrong|broken|doesn'?t work|not working|regression)\b", re.I)
# A report that names no subject of its own ("Ok it is still not working either way"): it reads only
# inside its session.
_DANGLING = re.compile(r"^(?:(?:ok(?:ay)?|so|hmm+|well|still|but|and|now|again|yeah|no)\b[,!.]?\s+)*"
                       r"(?:it|this|that|they|these|those|same)\b", re.I)
# A fix told as the change one session made to its code ("moving the check before the early return",
# "ensuring `BaseCommit` is always set in …"): the bug is fixed, the trail stays in the note.
_CODE_CHANGE = re.compile(r"^(?:only |also |by |then )?(?:moving|ensuring|adding|changing|counting|patching|removing|"
                          r"setting|making|updating|replacing|wrapping|skipping|calling|passing|returning|switching|"
                          r"renaming|reordering|deleting|introducing|treating|guarding|initiali[sz]ing|resetting|"
                          r"extracting|inlining|converting|storing|caching)\b", re.I)
_RUN_GOTCHA = re.compile(r'^`(?P<failed>[^`]+)` failed with "[^"]*"; (?:running `(?P<fix>[^`]+)`|`(?P<works>[^`]+)` works)')
# One step of a plan or its label: an instruction for that change, done by the next session.
_STEP = re.compile(r"^(?:(?:solution|fix|change|step|approach|option|plan|goal|idea|proposal)(?:\s*\d+)?\s*:|"
                   r"(?:move|add|remove|inline|replace|extract|rename|create|update|make|use|call|pass|set|wrap|keep|"
                   r"introduce|implement|delete|drop|split|convert|change|switch|return|store|skip)\b)", re.I)
_WHY = re.compile(r"\b(?:because|since|so that|so (?:a|an|the|it|we|that|no|nothing)|to avoid|to prevent|to keep|"
                  r"in order to|which means|as a result|that way|otherwise (?:the|a|it|we))\b", re.I)
MIN_SUPPORT = 2  # sessions that make any learning worth a newcomer's time


def briefed(c: Cluster) -> bool:
    """True when a cluster that holds belongs in the briefing (see the module docstring)."""
    bar = _BAR.get(c.type)
    return c.superseded_by is None and bar is not None and (c.support >= MIN_SUPPORT or bar(c.text))


def earns_a_line(type_: str, text: str) -> bool:
    """True when one session's learning clears its type's bar without a second session's support
    (commands have lines of their own: memgit.consolidate.heuristic.howto)."""
    bar = _BAR.get(type_)
    return bar is not None and bar(text)


def lasting(text: str) -> bool:
    """A statement of how things are or must be, not the story of one change."""
    text = text.strip()
    return bool(_RULE.search(text)) and not _NARRATIVE.match(text) and not _PAST.match(text)


def lasting_decision(text: str) -> bool:
    """A choice still in force, with its reason: how things are done and why, not one step of a plan
    ("Move the `Flush()` into the caller", "Solution: inline the mapping") nor a change made."""
    text = text.strip()
    return lasting(text) and _WHY.search(text) is not None and not _STEP.match(text)


def lasting_gotcha(text: str) -> bool:
    """A gotcha that would bite again: an environment failure with its fix, a command's flag that
    makes it work, or a lesson stated as how something behaves. A run that failed and worked after
    its arguments were corrected is a typo found, not a gotcha."""
    if run := _RUN_GOTCHA.match(text):
        if run.group("fix"):
            return True
        return adds_option(run.group("failed"), run.group("works"))
    if reported := REPORTED.match(text):  # the person's report and the agent's finding: the finding must hold
        problem_, fix = reported.group("problem"), reported.group("fix").strip()
        troubled = _TROUBLE.search(problem_) or _ENV_TROUBLE.search(problem_)
        return (bool(troubled) and not _DANGLING.match(problem_) and not _CODE_CHANGE.match(fix)
                and (lasting(fix) or _set_up(problem_, fix)))
    return lasting(text) and not observed(text)


# A fix made in the setup (a service's or a tool's configuration, a submodule's URL) and not in the
# project's code: whoever sets the same thing up meets the same trouble ("Vercel cannot clone an SSH
# submodule": switched it to HTTPS; "the stylecheck linter does not exist": ST1003 under staticcheck).
_SETUP = re.compile(r"\.(?:ya?ml|json|toml|ini|cfg|conf|env)\b|\.gitmodules\b|\b(?:submodules?|settings|config|"
                    r"configuration|linters? list|build command|buildCommand|environment variables?)\b", re.I)
_CODE = re.compile(r"\.(?:go|py|pyi|ts|tsx|js|jsx|mjs|rs|rb|java|kt|c|cc|cpp|h|hpp|cs|php|swift|svelte|vue|sh)\b|"
                   r"\w\(\)|\b(?:function|method|struct|class|test|tests)\b", re.I)
# A report about the agent's own doing ("I think you got an API error?"), not about the project's setup.
_ABOUT_AGENT = re.compile(r"\byou (?:got|get|hit|had|have|ran into|broke|made)\b", re.I)
_ENV_TROUBLE = re.compile(r"\b(?:does(?:n'?t| not) exist|not found|unknown|no such|not installed|not recognized|"
                          r"unsupported|permission denied)\b", re.I)


def _set_up(problem: str, fix: str) -> bool:
    return bool(_SETUP.search(fix)) and not _CODE.search(fix) and not _ABOUT_AGENT.search(problem)


# What is happening at the moment of one session, said in the progressive ("the rewrite is serving
# `index.html`, but the CSS is being requested from the root"): a debugging observation. A condition
# keeps its progressive ("if the Docker daemon is not running, the hook skips the scan") and holds.
_PROGRESSIVE = re.compile(r"\b(?:is|are|isn'?t|aren'?t)\s+(?:not\s+|still\s+|now\s+|currently\s+)?(?:being\s+)?"
                          r"(?!going\b|nothing\b|something\b|anything\b|everything\b)[a-z]{3,}ing\b", re.I)
_CONDITION = re.compile(r"\b(?:if|when|whenever|unless|while|until|once|as long as)\b", re.I)
_CLAUSE_START = re.compile(r"[,;:.(—–]|\b(?:but|and|so|because|since|however)\b", re.I)


def observed(text: str) -> bool:
    """True when a main clause of `text` tells what was happening then, in the progressive."""
    for found in _PROGRESSIVE.finditer(text):
        before = text[: found.start()]
        starts = [m.end() for m in _CLAUSE_START.finditer(before)]
        clause = before[starts[-1]:] if starts else before
        if not _CONDITION.search(clause):
            return True
    return False


# Each type's bar for one session's learning (two sessions clear any); commands have lines of their own.
def _standing_alone(text: str) -> bool:
    return standing(text) and stands_alone(text)


def tool_lesson(text: str) -> bool:
    """How a tool the project uses behaves, as a rule that holds wherever it runs: about the tool by
    name, lasting, and naming no file of the project (a path or a source file is this project's)."""
    return about_a_tool(text) and lasting(text) and not observed(text) and not _PROJECT_FILE.search(text)


_PROJECT_FILE = re.compile(r"`[^`]*(?:/|\.(?:go|py|ts|tsx|js|jsx|svelte|vue|rs|rb|java|kt|sql|json|ya?ml|toml|md))"
                           r"[^`]*`")
_BAR = {"preference": _standing_alone, "convention": _standing_alone, "gotcha": lasting_gotcha, "decision": lasting_decision,
        "fact": tool_lesson}
