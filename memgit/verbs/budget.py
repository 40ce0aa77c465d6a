"""The day's model spend, read from the repository: for a sync's budget, its dry run and `memgit status`."""

from __future__ import annotations

from memgit.config import Config
from memgit.core import budget
from memgit.core.budget import Spend


def today(repo, cfg: Config, now: float) -> Spend:
    """What the commits of the UTC day holding `now`, on every branch, record as spent, against the limits."""
    day = budget.day_start(now)
    tokens, cost = budget.spent(repo.since(day), since=day)
    return Spend(tokens, cost, cfg.max_tokens_per_day, cfg.max_cost_per_day, day)


def dry_run(spend: Spend, estimate: int, cost: float | None, now: float) -> dict:
    """The spend so far and what a run would add: does it fit?"""
    return {**spend.as_dict(), "estimate": estimate, "estimate_cost": cost,
            "fits": not spend.over(estimate, cost or 0.0), "text": spend.text(now)}
