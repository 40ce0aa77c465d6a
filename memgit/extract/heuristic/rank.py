"""The ranker: the best candidates of every learner, cleaned, deduplicated, within the note's size.

Every candidate passes the filter stage (`filters.problem`) after `filters.scrub`; then the highest
scores are kept, one of near-identical statements (the better-scoring one, whatever its type),
at most `CAPS[type]` of each type, and at most `limit` learnings and `MAX_CHARS` characters in all,
so that a note stays a page a person reads. `limit` grows with what the session holds: a short
chat keeps a few learnings, a long working session up to `MAX_LEARNINGS`.
"""

from __future__ import annotations

from ...model import Learning
from .candidate import Candidate
from .filters import is_ephemeral, problem, scrub
from .text import sentence_case, words

ORDER = ("preference", "convention", "command", "gotcha", "decision", "fact")  # how a note lists them
CAPS = {"preference": 6, "convention": 3, "command": 4, "gotcha": 5, "decision": 5, "fact": 6}
MAX_LEARNINGS = 18
MAX_CHARS = 4400
MIN_SCORE = 2.0
_STOP = frozenset(
    "the and for with that this from into when then than them they their there what which while will would "
    "should could have has had was were are is not but you your our its it's can all any each also only just "
    "user agent".split()
)


def limit_for(requests: int, compactions: int) -> int:
    """How many learnings a session of that many requests and compactions may keep."""
    return min(MAX_LEARNINGS, 4 + 2 * requests + 3 * compactions)


def caps_for(requests: int, compactions: int) -> dict[str, int]:
    """Per-type caps, a little higher for long sessions (one more per six requests or two compactions)."""
    extra = min(3, requests // 6 + compactions // 2)
    return {kind: cap + (extra if kind != "command" else 0) for kind, cap in CAPS.items()}


def rank(candidates: list[Candidate], *, cwd: str | None, limit: int,
         caps: dict[str, int] | None = None) -> list[Learning]:
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
    clean.sort(key=lambda c: (-c.score, ORDER.index(c.type), c.text))
    kept: list[tuple[Candidate, frozenset[str]]] = []
    per_type = dict.fromkeys(ORDER, 0)
    size = 0
    for c in clean:
        if len(kept) >= limit:
            break
        if per_type[c.type] >= (caps or CAPS)[c.type] or size + len(c.text) > MAX_CHARS:
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


def _content(text: str) -> frozenset[str]:
    return frozenset(w for w in words(text) if len(w) > 2 and w not in _STOP)


def _same(a: frozenset[str], b: frozenset[str]) -> bool:
    """Near-identical statements: mostly the same words, or one's words nearly all in the other."""
    if not a or not b:
        return False
    overlap = len(a & b)
    return overlap / len(a | b) >= 0.5 or (min(len(a), len(b)) >= 5 and overlap / min(len(a), len(b)) >= 0.8)
