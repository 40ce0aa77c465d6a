"""Read a Codex rollout (plain, `.zst`, or a TypeScript-era `.json`) into a normalised Transcript."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memgit.errors import TranscriptError
from memgit.core.model import AGENT_CODEX, Transcript
from memgit.sources.codex.discovery import thread_id
from memgit.sources.codex.rollout import RolloutParser
from memgit.sources.files import open_stream
from memgit.sources.lines import RecordRange
from memgit.sources.trim import Clean, utc

HEADER_LINES = 5  # a rollout's own header is its first line; a bare one may follow a blank


def read_transcript(path: Path, *, start: int = 0, session_id: str | None = None,
                    clean: Clean | None = None) -> Transcript:
    """Read a rollout from byte `start` to its last complete line.

    Args:
        path: a `rollout-*.jsonl`, `rollout-*.jsonl.zst` or TypeScript-era `rollout-*.json` file.
        start: where the previous read ended, in bytes of the decompressed stream for a `.zst`
            (0 for the whole file). A `.json` document is always read whole (`start` 0 returned).
        session_id: the ledger key; the thread UUID of the file name, else of its header.
        clean: redacts a long text before it is cut (built-in rules when not given).

    Returns:
        The transcript of that range. The session's cwd, branch and version come from the file's
        own header even when the range starts after it.

    Raises:
        TranscriptError: the file cannot be opened or read, or it is a `.zst` file and no zstd
            decoder is installed.
    """
    path = Path(path)
    parser = RolloutParser(file_id=thread_id(path.name), clean=clean)
    try:
        if path.name.endswith(".json"):
            start, end, bad = 0, *_read_document(path, parser)
        else:
            if start > 0:
                _read_header(path, parser)
            with open_stream(path) as f:
                records = RecordRange(f, start)
                for record in records:
                    parser.feed(record)
            end, bad = records.end, records.bad_lines
    except OSError as e:
        raise TranscriptError(f"cannot read rollout {path}: {e.strerror or e}; is it still there?") from e
    return Transcript(
        session_id=session_id or parser.file_id or parser.thread_id or path.name.split(".", 1)[0],
        agent=AGENT_CODEX, source=str(path), cwd=parser.cwd, git_branch=parser.git_branch,
        started=utc(parser.first_ts), ended=utc(parser.last_ts), title=parser.title,
        version=parser.version, turns=parser.finish(), start=start, end=end, bad_lines=bad,
        records=parser.records, injected=parser.injected, skipped=parser.skipped,
    )


def peek_cwd(path: Path) -> str | None:
    """Return the cwd of a rollout's header, or None (unreadable, no header yet, none recorded)."""
    path = Path(path)
    parser = RolloutParser(file_id=thread_id(path.name))
    try:
        if path.name.endswith(".json"):
            _read_document(path, parser)
        else:
            _read_header(path, parser)
    except (OSError, TranscriptError):  # a peek used to filter: a vanished or undecodable file has none
        return None
    return parser.cwd


def _read_header(path: Path, parser: RolloutParser) -> None:
    """Adopt the file's own header (its first `session_meta`, or a bare one) without counting it."""
    with open_stream(path) as f:
        for n, record in enumerate(RecordRange(f, 0)):
            payload = record.get("payload")
            if record.get("type") == "session_meta" and isinstance(payload, dict):
                parser.adopt_header(payload, at_start=False)
                return
            if "type" not in record and "payload" not in record and isinstance(record.get("id"), str):
                parser.bare = True
                parser.adopt_header(record, at_start=False)
                return
            if n + 1 >= HEADER_LINES:
                return


def _read_document(path: Path, parser: RolloutParser) -> tuple[int, int]:
    """Feed a TypeScript-era `{"session": {...}, "items": [...]}` document; (its size, bad lines)."""
    data = path.read_bytes()
    try:
        doc: Any = json.loads(data)
    except (ValueError, RecursionError):  # torn or not JSON: consumed, counted, nothing read
        return len(data), 1
    if not isinstance(doc, dict):
        return len(data), 1
    session = doc.get("session")
    if isinstance(session, dict):
        parser.bare = True
        parser.adopt_header(session, at_start=False)
        if isinstance(session.get("timestamp"), str):
            parser.first_ts = session["timestamp"]
    items = doc.get("items")
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            parser.feed(item)
    return len(data), 0
