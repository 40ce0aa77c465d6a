"""Read a Gemini CLI session file (JSONL v0.39+, or a legacy `.json` document) into a Transcript."""

from __future__ import annotations

import os
import re
from pathlib import Path

from memgit.errors import TranscriptError
from memgit.core.model import AGENT_GEMINI, Transcript
from memgit.sources.files import open_stream
from memgit.sources.gemini import projects
from memgit.sources.gemini.messages import MessageReader
from memgit.sources.gemini.replay import Conversation, load
from memgit.sources.trim import Clean, utc

_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")  # a session id from the data, used as a folder name


def read_transcript(path: Path, *, start: int = 0, session_id: str | None = None,
                    clean: Clean | None = None) -> Transcript:
    """Read a session file from byte `start` to its last complete line.

    Args:
        path: a `session-*.jsonl` or legacy `session-*.json` file under `tmp/<project>/chats/`.
        start: where the previous read ended (0 for the whole file). JSONL is replayed from its
            first line (a rewind or an update may name earlier messages) and the transcript holds
            the messages first written at or after `start`, in their latest state. A legacy
            document is rewritten whole by Gemini: it is always read whole, the transcript's
            `start` is 0 and its range the whole file.
        session_id: the ledger key; the session's `sessionId` when not given.
        clean: redacts a long text before it is cut (built-in rules when not given).

    Returns:
        The transcript of that range; `cwd` is the project root when it can be recovered (see
        memgit.sources.gemini.projects), else None. Subagent sessions (`chats/<session id>/`)
        are folded in as sidechain turns: all of them on a read from 0, later on those started
        within the range.

    Raises:
        TranscriptError: the file cannot be opened or read.
    """
    path = Path(path)
    conversation = _load(path)
    if conversation.document or path.name.endswith(".json"):
        start = 0
    meta = conversation.meta
    subagent = meta.get("kind") == "subagent"
    reader = MessageReader(clean=clean, sidechain=subagent)
    in_range = [m for offset, m in conversation.messages if offset >= start]
    for message in in_range:
        reader.feed(message)
    own_id = meta.get("sessionId") if isinstance(meta.get("sessionId"), str) else None
    transcript = Transcript(
        session_id=session_id or own_id or path.name.split(".", 1)[0], agent=AGENT_GEMINI, source=str(path),
        cwd=_cwd(path, conversation, reader), started=utc(meta.get("startTime")),
        ended=utc(meta.get("lastUpdated")), title=_summary(meta), turns=reader.finish(), start=start,
        end=max(conversation.end, start),  # a file now shorter than `start`: nothing new (as for JSONL)
        bad_lines=conversation.bad_lines, records=conversation.records,
        injected=reader.injected, skipped=conversation.skipped + reader.skipped,
    )
    since = None if start == 0 else _first_time(in_range)
    if own_id and _SAFE_ID.fullmatch(own_id) and not subagent and (start == 0 or since):
        _fold_subagents(transcript, path.parent / own_id, since, clean)
    return transcript


def peek_cwd(path: Path) -> str | None:
    """Return the project root of a session file, or None (unreadable, or not recoverable)."""
    path = Path(path)
    try:
        conversation = _load(path)
    except TranscriptError:  # a peek used to filter: a vanished file has no cwd
        return None
    return _cwd(path, conversation, None)


def _load(path: Path) -> Conversation:
    try:
        with open_stream(path) as f:
            return load(f, path)
    except OSError as e:
        raise TranscriptError(f"cannot read Gemini session {path}: {e.strerror or e}; is it still there?") from e


def _cwd(path: Path, conversation: Conversation, reader: MessageReader | None) -> str | None:
    where = projects.layout(path)
    root, folder = where if where else (None, None)
    messages = [m for _, m in conversation.messages]
    if reader is None:
        reader = MessageReader()
        for message in messages[:5]:  # the bootstrap context is at the top
            reader.feed(message)
    candidates = projects.candidate_paths(conversation.meta, messages, reader.contexts)
    return projects.project_root(root, folder, conversation.meta.get("projectHash"), candidates)


def _summary(meta: dict) -> str | None:
    summary = meta.get("summary")
    return summary.strip() if isinstance(summary, str) and summary.strip() else None


def _first_time(messages: list[dict]) -> str | None:
    for message in messages:
        if isinstance(message.get("timestamp"), str):
            return message["timestamp"]
    return None


def _fold_subagents(transcript: Transcript, folder: Path, since: str | None, clean: Clean | None) -> None:
    """Append the turns of the subagent sessions under `chats/<session id>/` (v0.37+)."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith((".jsonl", ".json")))
    except OSError:  # none (the usual case), or not listable: nothing to fold
        return
    for name in names:
        try:
            conversation = _load(folder / name)
        except TranscriptError:  # a subagent file that vanished does not make the session unreadable
            continue
        started = conversation.meta.get("startTime")
        if since is not None and not (isinstance(started, str) and started >= since):
            continue
        reader = MessageReader(clean=clean, sidechain=True)
        for _, message in conversation.messages:
            reader.feed(message)
        transcript.turns.extend(reader.finish())
        transcript.subagents += 1
        transcript.bad_lines += conversation.bad_lines
        transcript.injected += reader.injected
