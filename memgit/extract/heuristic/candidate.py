"""What a learner proposes (a typed candidate with a score) and the signals the learners score by.

Scores are additive and rough on purpose: a few points for where a statement comes from (the
person's correction, the agent's answer to a question, its closing summary) and a point or two for
what makes a statement worth keeping — it names something concrete (`code`, a file, an
identifier) and it gives a reason or a contrast ("because", "instead of"). The ranker keeps the
best-scoring candidates within the note's size.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A code span, a file name, or an identifier a reader could look up.
_CONCRETE = re.compile(
    r"`[^`]+`|\b[\w-]+/[\w./-]+|\b[\w-]+\.(?:py|go|ts|tsx|js|jsx|mjs|json|ya?ml|toml|md|rs|rb|java|kt|sh|sql|"
    r"html|css|lock|cfg|ini|env|txt)\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b|\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|"
    r"\b[a-z0-9]+(?:_[a-z0-9]+)+\b|\b[A-Z]{2,}(?:_[A-Z0-9]+)+\b|--[a-z][\w-]+"
)
REASON = re.compile(
    r"\b(?:because|since|so that|so it|due to|caused by|root cause|the reason|which means|otherwise|"
    r"in order to|to avoid|to keep|to prevent|to make sure|as a result|that'?s why|which is why|without)\b",
    re.I,
)
CONTRAST = re.compile(
    r"\b(?:instead(?: of)?|rather than|not just|only|never|always|must|must not|need(?:s)? to|has to|have to|"
    r"can'?t|cannot|doesn'?t|don'?t|won'?t|isn'?t|aren'?t|no longer|unless|requires?|required)\b",
    re.I,
)
# What an agent says when it merely reports activity or praises its own work.
FLUFF = re.compile(
    r"\b(?:successfully|seamless(?:ly)?|clean(?:er)?|maintainable|much simpler|well-tested|comprehensive|"
    r"robust|elegant|improved|better user experience|ready to|as expected|looks good|all set)\b",
    re.I,
)
# The agent thinking aloud about its own work, or guessing: not yet a finding.
_MONOLOGUE = re.compile(r"^(?:I|I'm|I am|my)\b|\b(?:I'm|I am|I was|I should|I need|I'll|I will|I think|I guess|"
                        r"I suspect|my (?:test|change|code|fix|edit)s?|let me)\b", re.I)
# A guess, not a finding: "might", or a cause inferred before it was checked ("the regression must be because …").
_HEDGED = re.compile(r"\b(?:might|maybe|perhaps|probably|possibly|not sure|seems? to|looks like|could be|"
                     r"actually|hmm|I guess|I suspect|presumably|likely|"
                     r"must (?:be|have been) (?:because|due to|caused by))\b", re.I)


@dataclass(frozen=True, slots=True)
class Candidate:
    """A learning a learner proposes: its type, its text, how strongly it is supported, and why."""

    type: str
    text: str
    score: float
    origin: str = ""  # which rule proposed it (for tests and debugging)


def concreteness(text: str) -> int:
    """How many concrete references (code, files, identifiers) a statement makes, at most 3."""
    return min(3, len(_CONCRETE.findall(text)))


def reasoned(text: str) -> bool:
    return REASON.search(text) is not None


def contrasted(text: str) -> bool:
    return CONTRAST.search(text) is not None


def fluff(text: str) -> bool:
    return FLUFF.search(text) is not None


def monologue(text: str) -> bool:
    return _MONOLOGUE.search(text) is not None


def hedged(text: str) -> bool:
    return _HEDGED.search(text) is not None
