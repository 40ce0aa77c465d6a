"""The day's model budget: what the day's commits say was spent, and whether a call still fits.

Counted from the trailers every model call leaves (`Memgit-Tokens`, `Memgit-Cost` on extract, skip,
fail and consolidate commits), so it survives restarts and, after a pull, holds across machines.
A day is a UTC day: every machine agrees on when it starts and when the budget resets.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone

from memgit.core.ledger import CommitInfo, parse_trailers

DAY = 86_400
DEFAULT_MAX_TOKENS = 2_000_000


def day_start(now: float) -> int:
    """The UTC midnight that began the day holding `now`."""
    return int(now) - int(now) % DAY


@dataclass(frozen=True, slots=True)
class Spend:
    """What the day's model calls cost, against the limits (0 = no limit)."""

    tokens: int
    cost: float
    max_tokens: int
    max_cost: float
    day: int  # its UTC midnight

    @property
    def resets_at(self) -> int:
        return self.day + DAY

    def over(self, tokens: int = 0, cost: float = 0.0) -> bool:
        """Would spending `tokens` and `cost` more pass a limit?"""
        return bool((self.max_tokens and self.tokens + tokens > self.max_tokens)
                    or (self.max_cost and self.cost + cost > self.max_cost))

    def added(self, tokens: int, cost: float | None) -> Spend:
        return Spend(self.tokens + tokens, self.cost + (cost or 0.0), self.max_tokens, self.max_cost, self.day)

    def as_dict(self) -> dict:
        return {"tokens": self.tokens, "cost": round(self.cost, 6), "max_tokens": self.max_tokens or None,
                "max_cost": self.max_cost or None, "day": _iso(self.day), "resets_at": _iso(self.resets_at)}

    def text(self, now: float) -> str:
        """`1,234 of 2,000,000 tokens ($0.12) spent today; the budget resets at 00:00 UTC (in 3 h 5 min)`."""
        limit = f" of {self.max_tokens:,}" if self.max_tokens else ""
        money = f"${self.cost:.2f}" + (f" of ${self.max_cost:.2f}" if self.max_cost else "")
        left = max(0, self.resets_at - int(now))
        return (f"{self.tokens:,}{limit} tokens ({money}) spent today; the budget resets at 00:00 UTC "
                f"(in {left // 3600} h {left % 3600 // 60} min)")


def spent(commits: Iterable[CommitInfo], *, since: int) -> tuple[int, float]:
    """Tokens and USD the commits made at or after `since` record (each commit once)."""
    tokens, cost, seen = 0, 0.0, set()
    for info in commits:
        if info.time < since or info.sha in seen:
            continue
        seen.add(info.sha)
        trailers = parse_trailers(info.message)
        for value in trailers.get("Memgit-Tokens", [])[:1]:
            tokens += int(value) if value.isdigit() else 0
        for value in trailers.get("Memgit-Cost", [])[:1]:
            try:
                cost += float(value)
            except ValueError:
                continue
    return tokens, cost


def _iso(ts: int) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
