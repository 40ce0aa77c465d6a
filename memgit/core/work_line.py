"""A session's title as a line of the work done ("Add a Make target …" -> "Added a Make target …").

A title is often the person's first request word for word; what a session is told reports the work,
not the request (the briefing's latest work, and the prompt hook naming a session it points to).
Pure; its patterns compile when first imported, which the prompt hook does only to name a session.
"""

from __future__ import annotations

import re

from memgit.core.scan import clip

_IMPERATIVE = re.compile(r"^(?P<verb>[A-Za-z]+)\b(?P<rest>.*)$", re.S)
_PAST = {"add": "Added", "fix": "Fixed", "update": "Updated", "implement": "Implemented", "make": "Made",
         "create": "Created", "remove": "Removed", "delete": "Deleted", "refactor": "Refactored", "rename": "Renamed",
         "move": "Moved", "write": "Wrote", "run": "Ran", "investigate": "Investigated", "analyse": "Analysed",
         "analyze": "Analyzed", "debug": "Debugged", "review": "Reviewed", "check": "Checked", "improve": "Improved",
         "optimize": "Optimized", "optimise": "Optimised", "consolidate": "Consolidated", "extend": "Extended",
         "replace": "Replaced", "adopt": "Adopted", "apply": "Applied", "plan": "Planned", "do": "Did",
         "build": "Built", "test": "Tested", "set": "Set", "change": "Changed", "convert": "Converted",
         "migrate": "Migrated", "merge": "Merged", "split": "Split", "document": "Documented", "explain": "Explained",
         "summarize": "Summarized", "summarise": "Summarised", "compare": "Compared", "introduce": "Introduced",
         "enable": "Enabled", "disable": "Disabled", "upgrade": "Upgraded", "bump": "Bumped", "release": "Released",
         "prepare": "Prepared", "draft": "Drafted", "generate": "Generated", "clean": "Cleaned", "simplify": "Simplified",
         "restructure": "Restructured", "port": "Ported", "integrate": "Integrated", "repeat": "Repeated",
         "trace": "Traced", "profile": "Profiled", "commit": "Committed", "push": "Pushed", "revert": "Reverted",
         "install": "Installed", "configure": "Configured", "support": "Supported", "handle": "Handled",
         "resolve": "Resolved", "parallelize": "Parallelized", "inline": "Inlined", "derive": "Derived",
         "trim": "Trimmed", "allow": "Allowed", "show": "Showed", "use": "Used", "get": "Got", "find": "Found",
         "explore": "Explored", "evaluate": "Evaluated", "look": "Looked", "research": "Researched", "audit": "Audited", "measure": "Measured"}
_AND_VERB = re.compile(r"(\s(?:and|then|,)\s+)(" + "|".join(_PAST) + r")\b", re.I)
_CLAUSE = re.compile(r"[,;:]|\((?!\))|\s[-–—]\s|\s(?:and then|then|so that|but)\s|[.?!](?:\s|$)")
_ASKED = re.compile(r"^(?:(?:(?:can|could|would|will) you|please|pls|let'?s|i want you to|i(?:'d| would) like you to|"
                    r"help me|i need you to)\s+)+", re.I)
_LOOK = re.compile(r"^(?:have|take|had|took) a (?:quick |closer )?look (?:at|into)\s+", re.I)
_STEP = re.compile(r"^(?:step|phase|part|stage|task)\s*\d+[a-z]?\s*[:.)-]\s*", re.I)  # one step of a plan: its work
_WORKING_ON = re.compile(r"^(?:I'?m|I am|we'?re|we are) (?:currently |now )?working on\s+", re.I)
_LABELLED = re.compile(r"^(?P<verb>[A-Za-z]+):\s+(?=\S)")
_NAMED = re.compile(r"^(?P<what>[^:`]{3,40}):\s+(?P<code>`[^`]+`)\s*$")
# A title that reports trouble ("The cleanup archiving still does not work correctly"): told as is, it
# reads as the project's state today, though the session may have fixed it.
_REPORTED = re.compile(r"\b(?:errors?|fail\w*|warnings?|timeouts?|regression|crash\w*|leak\w*|hangs?|slow|broken|"
                       r"complain\w*|does(?:n'?t| not) (?:work|exist)|not work\w*|occurs?|panics?)\b", re.I)
_QUESTION = re.compile(r"^(?:how|what|when|where|which|who|why|is|are|does|do|did|can|could|should)\b", re.I)
_AUX_QUESTION = re.compile(r"^(?:do|does|did) (?:you|we|i|it|they|these|this)\b", re.I)  # "Do you think …", not "Do X"


def work_line(title: str, limit: int = 90) -> str:
    """A session's title as a line of the work done: its first clause, a request put in the past tense
    ("Add a Make target to format …" -> "Added a Make target to format …"), so that the briefing
    reports what was worked on rather than repeating what one prompt asked for."""
    text = _STEP.sub("", _ASKED.sub("", " ".join(title.split()))).strip()
    text = _WORKING_ON.sub("Worked on ", text)
    if _LOOK.match(text):
        text = _AND_VERB.sub(lambda m: f"{m.group(1)}{_PAST[m.group(2).lower()].lower()}", _LOOK.sub("Looked at ", text))
    text = _LABELLED.sub(r"\g<verb> ", text)  # "Fix: Panic in …" -> "Fix Panic in …"
    text = _NAMED.sub(r"\g<what> \g<code>", text)  # "Add CLI Flag: `-x`" -> "Add CLI Flag `-x`"
    clause = next((c for c in _CLAUSE.finditer(text, 12) if text.count("`", 0, c.start()) % 2 == 0), None)
    text = text[: clause.start()] if clause else text  # never inside a code span: "`rows.Close()`" stays whole
    match = _IMPERATIVE.match(text)
    if _AUX_QUESTION.match(text):
        text = "Looked into: " + text[0].lower() + text[1:]
    elif match and (past := _PAST.get(match.group("verb").lower())):
        text = past + _AND_VERB.sub(lambda m: f"{m.group(1)}{_PAST[m.group(2).lower()].lower()}", match.group("rest"))
    elif _QUESTION.match(text):
        text = "Looked into: " + text[0].lower() + text[1:]
    elif _REPORTED.search(text) and not _heading(text):  # "The shutdown still runs into …": worked on, not a fact
        text = "Worked on: " + (text[0].lower() + text[1:] if text[1:2].islower() else text)
    elif text[:1].islower():
        text = text[0].upper() + text[1:]
    return clip(_whole_phrase(text.rstrip(" .:")), limit)


# A title the note cut ("… into a git submodule or something so they can live…"): a clause or a name
# that opens just before the cut says nothing yet, so the line ends before it, and before a hedge.
_OPENS = frozenset("so because since which that where when while and or but if then called named like".split())
_HEDGE = re.compile(r"\s+(?:or something(?: like that)?|or so|or similar|etc)$", re.I)
MAX_DANGLING = 3  # words after the opener: more, and the phrase has said something


def _whole_phrase(text: str) -> str:
    if not text.endswith("…"):
        return text
    words = text[:-1].split()
    for i in range(len(words) - 1, max(len(words) - 2 - MAX_DANGLING, 3), -1):
        word = words[i].lower()
        gerund = word in ("for", "to", "by") and i + 1 < len(words) and words[i + 1].endswith("ing")
        kept = " ".join(words[:i])
        if (word in _OPENS or gerund) and kept.count("`") % 2 == 0:  # never inside a code span
            return _HEDGE.sub("", kept.rstrip(" ,;:-")) + "…"
    return text


def _heading(text: str) -> bool:
    """A plan's title in Title Case ("Metricstore NATS Slow Consumer Analysis"), not a sentence."""
    long = [w for w in text.split() if len(w) > 3 and w[0].isalpha()]
    return len(long) >= 2 and sum(w[0].isupper() for w in long) >= 0.6 * len(long)
