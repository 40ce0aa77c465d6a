"""The day's budget, asked before every model call of this process (litellm's or an agent CLI's).

A sync or a consolidation opens the budget (`watching`) with what the day's commits already record
(memgit.core.budget); every call then asks first (`ask`: the request's tokens plus the output it
may bring) and records what it spent (`record`). A call that would pass a limit is not made:
`BudgetExceeded` says how much was spent and when the budget resets. One guard per process,
shared by the extraction threads (a lock keeps the count whole).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from memgit.core import tokens as token_count
from memgit.core.budget import Spend
from memgit.errors import LLMError

EXPECTED_OUTPUT = 1_000  # tokens a call is assumed to bring back, for the check before it


class BudgetExceeded(LLMError):
    """The day's budget would be passed by the next call: nothing is sent, nothing recorded as failed."""

    budget = True

    def __init__(self, message: str):
        super().__init__(message)
        self.usage = None


class _Guard:
    def __init__(self, spend: Spend, clock):
        self.spend, self.clock = spend, clock
        self.lock = threading.Lock()


_guard: _Guard | None = None


@contextmanager
def watching(spend: Spend, clock=time.time) -> Iterator[None]:
    """Check every model call made inside the block against `spend` (the day so far)."""
    global _guard
    before, _guard = _guard, _Guard(spend, clock)
    try:
        yield
    finally:
        _guard = before


def exceeded(spend: Spend, now: float, tokens: int) -> BudgetExceeded:
    return BudgetExceeded(f"the daily model budget would be passed by the next call (~{tokens:,} tokens): "
                          f"{spend.text(now)}; raise [llm] max_tokens_per_day or max_cost_per_day to go on today")


def ask(model: str, messages: Sequence[dict], max_tokens: int) -> None:
    """Refuse a call that would pass the day's budget.

    Raises:
        BudgetExceeded: spent today plus this call's estimate is over a limit.
    """
    guard = _guard
    if guard is None:
        return
    text = "\n".join(m["content"] if isinstance(m.get("content"), str) else str(m.get("content")) for m in messages)
    estimate = token_count.count(text) + min(max_tokens, EXPECTED_OUTPUT)
    with guard.lock:
        if guard.spend.over(estimate):
            raise exceeded(guard.spend, guard.clock(), estimate)


def record(tokens: int, cost: float | None) -> None:
    """Count a call's tokens and cost against the day."""
    guard = _guard
    if guard is not None:
        with guard.lock:
            guard.spend = guard.spend.added(tokens, cost)


def current() -> Spend | None:
    return _guard.spend if _guard is not None else None
