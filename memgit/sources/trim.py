"""Bound what a source keeps of a transcript: long texts redacted, then cut to their head and tail.

The Codex and Gemini readers share these; the limits are the Claude Code reader's
(claude_records.py), so a session reads the same whichever agent wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from memgit.core.model import TRIMMED

Clean = Callable[[str], str]  # redacts a text (sync passes its configured redaction)

OUTPUT_HEAD = OUTPUT_TAIL = 1500  # kept of each tool output
INPUT_HEAD = INPUT_TAIL = 1000  # kept of each long string in a tool input
INPUT_DEPTH = 20  # tool inputs nested deeper than this are not kept
PROMPT_HEAD = PROMPT_TAIL = 10000  # kept of a (pasted) prompt; compaction summaries are kept whole

MEMGIT_MARKER = "<memgit-context"
_ISO_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z")  # memgit's own injected context, never evidence of a session


def redact(text: str) -> str:
    """The built-in redaction, imported only when a long text needs it."""
    from memgit.core import redact as rules

    return rules.redact(text)


def trim(text: str, head: int, tail: int, clean: Clean = redact) -> str:
    """Keep the head and the tail of a long text, saying how much was cut.

    The whole text is redacted first: a secret across the cut (a private key whose BEGIN line is
    kept and END line dropped) would no longer be recognisable in either half.
    """
    if len(text) <= head + tail:
        return text
    text = clean(text)
    size = len(text)
    if size <= head + tail:
        return text
    return f"{text[:head]}\n{TRIMMED.format(size - head - tail)}\n{text[size - tail:]}"


def trim_value(value: Any, clean: Clean = redact, depth: int = 0) -> Any:
    """Bound every string inside a tool input (file contents, patches, …)."""
    if isinstance(value, str):
        return trim(value, INPUT_HEAD, INPUT_TAIL, clean)
    if depth > INPUT_DEPTH and isinstance(value, dict | list):
        return "[nested]"
    if isinstance(value, dict):
        return {str(k): trim_value(v, clean, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [trim_value(v, clean, depth + 1) for v in value]
    return value


def trim_output(text: str, clean: Clean = redact) -> str:
    """A tool output as a transcript keeps it: memgit's own context removed, trimmed."""
    if MEMGIT_MARKER in text:  # `memgit context` run by the agent: our own memory, not evidence
        text = strip_tags(text, ("memgit-context",))
    return trim(text.strip(), OUTPUT_HEAD, OUTPUT_TAIL, clean)


def strip_tags(text: str, tags: tuple[str, ...]) -> str:
    """Remove every `<tag …>…</tag>` block (to the end when unclosed)."""
    for tag in tags:
        opening, closing = f"<{tag}", f"</{tag}>"
        start = text.find(opening)
        while start >= 0:
            end = text.find(closing, start)
            text = text[:start] if end < 0 else text[:start] + text[end + len(closing):]
            start = text.find(opening, start)
    return text


def utc(ts: Any) -> str | None:
    """An ISO 8601 timestamp in UTC with a "Z", or None when `ts` is not one."""
    if not isinstance(ts, str) or not ts or len(ts) > 40:
        return None
    if ts.endswith("Z") and _ISO_Z.fullmatch(ts):  # how the agents write them: kept as they are
        return ts
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def epoch_ms(ts: Any) -> int | None:
    """Milliseconds since the epoch of an ISO 8601 timestamp, or None."""
    if not isinstance(ts, str):
        return None
    try:
        moment = datetime.fromisoformat(ts.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)
