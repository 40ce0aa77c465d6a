"""What a session's commit says besides its note: its usage trailers, its cut tail, its dates."""

from __future__ import annotations

from datetime import datetime, timezone

from memgit.core import ledger as ledger_mod
from memgit.core.model import Transcript


def epoch(iso: str | None) -> int | None:
    """Seconds since the epoch of an ISO 8601 time (a transcript's `ended`), None when there is none."""
    try:
        moment = datetime.fromisoformat(iso or "")
    except ValueError:
        return None
    return int((moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).timestamp())


def utc_date(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d")


def usage_trailers(extractor: str, prompt: str, tokens: int, cost: float | None) -> list:
    """Memgit-Extractor, -Prompt, -Tokens and -Cost (only when known) of an extraction."""
    return [("Memgit-Extractor", extractor), ("Memgit-Prompt", prompt or None), ("Memgit-Tokens", tokens),
            ("Memgit-Cost", f"{cost:.6f}" if cost is not None else None)]


def cut_trailer(t: Transcript | None) -> list:
    return [(ledger_mod.CUT_TRAILER, t.cut)] if t is not None and t.cut else []
