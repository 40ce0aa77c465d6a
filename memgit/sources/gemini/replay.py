"""Load a Gemini CLI session file: replay the JSONL records (v0.39+) or parse a legacy document.

JSONL rules, as upstream's `loadConversationRecord` applies them, in this order: `{"$rewindTo": id}`
deletes that message and every later one (all of them when the id is unknown); a record with a
string `id` is a message, and a later line with the same id replaces it in place; `{"$set": {…}}`
merges into the metadata; a record with `sessionId` and `projectHash` is the metadata line (a
one-line legacy document when it also holds `messages`). No metadata after the pass: the file is a
legacy pretty-printed document `{sessionId, projectHash, startTime, lastUpdated, messages, …}`.

One deliberate difference: upstream lets `$set.messages` (written after `/compress`, output masking
or a resume) *replace* the message list, because it rebuilds the model's context. memgit wants what
happened in the session: the messages it already has are kept as first recorded (unmasked), and
the list's new ones (the compression summary) are added after them.

Each message carries the offset of the line that first wrote it: an incremental read takes the
messages first written at or after its start, in their latest state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from memgit.sources.lines import RecordRange


@dataclass(slots=True)
class Conversation:
    """A session file's metadata and messages after replay."""

    meta: dict[str, Any] = field(default_factory=dict)
    messages: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (first offset, message)
    end: int = 0  # offset after the last consumed line (the file's size for a document)
    bad_lines: int = 0
    records: int = 0
    skipped: int = 0  # records of no known kind
    rewinds: int = 0
    document: bool = False  # read as one legacy document: no resumable offset


def load(f: BinaryIO, path: Path) -> Conversation:
    """Replay a session file's records; fall back to reading it as one legacy document."""
    conversation = _replay(f)
    if isinstance(conversation.meta.get("sessionId"), str) and isinstance(conversation.meta.get("projectHash"), str):
        return conversation
    return _document(path.read_bytes())


def _replay(f: BinaryIO) -> Conversation:
    c = Conversation()
    messages: dict[str, list[Any]] = {}  # id -> [first offset, latest record]; dict order = position
    records = RecordRange(f, 0)
    for offset, record in records.with_offsets():
        c.records += 1
        rewind = record.get("$rewindTo")
        if isinstance(rewind, str):
            ids = list(messages)
            for key in ids[ids.index(rewind):] if rewind in messages else ids:
                del messages[key]
            c.rewinds += 1
        elif isinstance(record.get("id"), str):
            _upsert(messages, offset, record)
        elif isinstance(record.get("$set"), dict):
            update = record["$set"]
            listed = update.get("messages")
            for message in listed if isinstance(listed, list) else []:
                if isinstance(message, dict) and isinstance(message.get("id"), str) and message["id"] not in messages:
                    messages[message["id"]] = [offset, message]
            c.meta.update((k, v) for k, v in update.items() if k != "messages")
        elif isinstance(record.get("sessionId"), str) and isinstance(record.get("projectHash"), str):
            c.meta.update((k, v) for k, v in record.items() if k != "messages")
            listed = record.get("messages")
            for message in listed if isinstance(listed, list) else []:
                if isinstance(message, dict) and isinstance(message.get("id"), str):
                    _upsert(messages, offset, message)
        else:
            c.skipped += 1
    c.messages = [(entry[0], entry[1]) for entry in messages.values()]
    c.end, c.bad_lines = records.end, records.bad_lines
    return c


def _upsert(messages: dict[str, list[Any]], offset: int, record: dict[str, Any]) -> None:
    entry = messages.get(record["id"])
    if entry is None:
        messages[record["id"]] = [offset, record]
    else:  # a message grows (tokens, tool results): replaced where it stands
        entry[1] = record


def _document(data: bytes) -> Conversation:
    """A legacy `.json` session: one document, read whole (a torn one is counted and left empty)."""
    c = Conversation(end=len(data), document=True)
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):  # still being rewritten, or not a session at all
        c.bad_lines = 1 if data.strip() else 0
        return c
    if not isinstance(doc, dict) or not isinstance(doc.get("sessionId"), str):
        c.bad_lines = 1
        return c
    c.records = 1
    c.meta = {k: v for k, v in doc.items() if k != "messages"}
    messages: dict[str, list[Any]] = {}
    listed = doc.get("messages")
    for message in listed if isinstance(listed, list) else []:
        if isinstance(message, dict) and isinstance(message.get("id"), str):
            _upsert(messages, 0, message)
    c.messages = [(0, entry[1]) for entry in messages.values()]
    return c
