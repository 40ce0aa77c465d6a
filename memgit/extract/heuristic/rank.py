"""The ranker: the best candidates of every learner, cleaned, deduplicated, within the note's size.

Every candidate passes the filter stage (`filters.problem`) after `filters.scrub`; then the person's
rules and the commands are kept first and the rest by score, one of near-identical statements (the
person's, else the better-scoring one, whatever its type), at most so many of each type, and so many
learnings and characters in all (`budget_for`), so that a note stays a page a person reads: a short
chat keeps a few learnings, a long working session up to `MAX_LEARNINGS`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memgit.core.model import Learning
from memgit.core.vocab import LEARNING_TYPES, PERSONAL, TYPES
from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.filters import is_ephemeral, problem, scrub
from memgit.extract.heuristic.text import sentence_case, words

ORDER = LEARNING_TYPES  # how a note lists them
CAPS = {name: t.note_cap for name, t in TYPES.items()}
MAX_LEARNINGS = 22
MAX_CHARS = 5000
MIN_SCORE = 2.0
FIRST = (*PERSONAL, "command")  # kept before the others, each type within its cap
_STOP = frozenset(
    "the and for with that this from into when then than them they their there what which while will would "
    "should could have has had was were are is not but you your our its it's can all any each also only just "
    "user agent "
    # how an answer frames a finding: "Root cause: x", "The issue is that x" say the same x
    "root cause issue problem reason".split()
)


@dataclass(frozen=True, slots=True)
class Budget:
    """How much of a session a note may keep: learnings in all, of each type, and characters."""

    learnings: int
    caps: dict[str, int]
    chars: int


def budget_for(requests: int, compactions: int) -> Budget:
    """A short chat keeps a few learnings; a long working session (many requests, compactions) more,
    up to MAX_LEARNINGS and MAX_CHARS, so that even its note stays a page a person reads (<= 6 KB)."""
    extra = min(4, requests // 5 + compactions)
    return Budget(
        learnings=min(MAX_LEARNINGS, 4 + 2 * requests + 3 * compactions),
        caps={kind: cap + (extra if kind != "command" else 0) for kind, cap in CAPS.items()},
        chars=min(MAX_CHARS, 2400 + 200 * (requests + 2 * compactions)),
    )


def rank(candidates: list[Candidate], *, cwd: str | None, budget: Budget) -> list[Learning]:
    """Clean, filter, deduplicate and cap the candidates; return the learnings in note order."""
    clean: list[Candidate] = []
    for c in candidates:
        if c.score < MIN_SCORE:
            continue
        if c.type == "command":  # quoted verbatim: only a check, never a rewrite
            text = c.text
            if is_ephemeral(text):
                continue
        else:
            text = sentence_case(scrub(c.text, cwd))
            if problem(text):
                continue
        clean.append(Candidate(c.type, text, c.score, c.origin))
    # The person's rules (and the project's conventions) and the commands that worked first: what the agent
    # found can be found again in the code, what the person asked for and how the project is built and
    # tested cannot, so a long session's changelog never crowds them out.
    clean.sort(key=lambda c: (c.type not in FIRST, -c.score, ORDER.index(c.type), c.text))
    kept: list[tuple[Candidate, frozenset[str]]] = []
    per_type = dict.fromkeys(ORDER, 0)
    size = 0
    for c in clean:
        if len(kept) >= budget.learnings:
            break
        if per_type[c.type] >= budget.caps[c.type] or size + len(c.text) > budget.chars:
            continue
        bag = _content(c.text)
        # Commands are one per purpose already; a rule about a command is not the command.
        if c.type != "command" and any(k.type != "command" and _same(bag, other) for k, other in kept):
            continue
        kept.append((c, bag))
        per_type[c.type] += 1
        size += len(c.text)
    ordered = sorted(kept, key=lambda k: (ORDER.index(k[0].type), -k[0].score, k[0].text))
    return [Learning(c.type, c.text) for c, _ in ordered]


_CODE = re.compile(r"`([^`\n]+)`")


def _content(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A statement's content words, and the code it names."""
    return _words(text), frozenset(_CODE.findall(text))


def _words(text: str) -> frozenset[str]:
    return frozenset(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith(("ss", "us", "is")) else w
                     for w in words(text) if len(w) > 2 and w not in _STOP)


def _same(first: tuple[frozenset[str], frozenset[str]], second: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Near-identical statements: mostly the same words, or one's words nearly all in the other; two
    that name different code say different things ("update `README.md`", "update `schema.go`"), as
    consolidation judges them (memgit.consolidate.heuristic.graph)."""
    (a, code_a), (b, code_b) = first, second
    if not a or not b or (code_a and code_b and not code_a & code_b):
        return False
    overlap = len(a & b)
    return overlap / len(a | b) >= 0.5 or (min(len(a), len(b)) >= 5 and overlap / min(len(a), len(b)) >= 0.8)
