"""Claude Code transcripts: read one into a normalised Transcript (finding them: discovery.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from memgit.errors import TranscriptError, TranscriptGone
from memgit.core.model import AGENT_CLAUDE_CODE, Transcript
from memgit.sources.claude_code.discovery import discover, projects_dir, scan  # noqa: F401  (the reader's face)
from memgit.sources.claude_code.records import Clean, RecordParser, utc
from memgit.sources.jsonl import JsonlRange

AGENT = AGENT_CLAUDE_CODE
WARMUP = "Warmup"  # the only prompt of the start-up subagents old versions left behind


def read_transcript(path: Path, *, start: int = 0, session_id: str | None = None,
                    clean: Clean | None = None) -> Transcript:
    """Read a main transcript from byte `start` to its last complete line, subagents folded in.

    Args:
        path: the session's main `.jsonl` file.
        start: where the previous read ended (0 for the whole file).
        session_id: the ledger key; the file name without ".jsonl" when not given.
        clean: redacts a long text before it is cut (built-in rules when not given).

    Returns:
        The transcript of that byte range: `start`/`end` say what was consumed, folded subagent
        turns (sidechain=True) come after the parent's turns.

    Raises:
        TranscriptGone: the file is not there (deleted, or a symlink to nothing).
        TranscriptError: the file cannot be opened or read.
    """
    path = Path(path)
    stem = path.name[:-6] if path.name.endswith(".jsonl") else path.stem
    try:
        parser, records = _parse(path, start, sidechain=False, clean=clean)
    except (FileNotFoundError, NotADirectoryError) as e:  # deleted, or its symlink broken, since it was listed
        raise TranscriptGone(f"transcript {path} is gone: {e.strerror or e}") from e
    except OSError as e:
        raise TranscriptError(f"cannot read transcript {path.name}: {e.strerror or e}; once it is readable, "
                              "run `memgit sync --retry-failed`") from e
    transcript = Transcript(
        session_id=session_id or stem, agent=AGENT_CLAUDE_CODE, source=str(path),
        cwd=parser.cwd, git_branch=parser.git_branch, started=utc(parser.first_ts),
        ended=utc(parser.last_ts), title=parser.title(), version=parser.version,
        turns=parser.finish(), start=start, end=records.end, bad_lines=records.bad_lines,
        records=parser.records, injected=parser.injected, hooks=list(parser.hooks),
    )
    # An empty parent folds nothing: its leftover subagent files are orphans.
    sweep = start == 0 and parser.records > 0
    for sub_path in _subagent_files(path, stem, parser.agent_ids, sweep=sweep):
        _fold(transcript, sub_path, clean)
    return transcript


def peek_cwd(path: Path, *, max_records: int = 100) -> str | None:
    """Return the cwd recorded near the top of a transcript, or None (unreadable, none yet)."""
    try:
        with open(path, "rb") as f:
            for n, record in enumerate(JsonlRange(f, 0)):
                if isinstance(record.get("cwd"), str):
                    return record["cwd"]
                if n >= max_records:  # old files open with many summary records, but not this many
                    break
    except OSError:  # a peek used to filter: a file that vanished simply has no cwd
        return None
    return None


# -- subagents -------------------------------------------------------------------------------


def _subagent_files(path: Path, stem: str, referenced: list[str], *, sweep: bool) -> list[Path]:
    """The subagent files to fold: those referenced in the range, then (sweep) the session's others."""
    project, subagents = path.parent, path.parent / stem / "subagents"
    files: list[Path] = []
    for agent_id in dict.fromkeys(referenced):
        if not agent_id.replace("-", "").replace("_", "").isalnum():  # transcript data, not a path
            continue
        for candidate in (subagents / f"agent-{agent_id}.jsonl", project / f"agent-{agent_id}.jsonl"):
            if candidate.is_file():
                files.append(candidate)
                break
    if sweep:
        others = [Path(d, n) for d, _, names in os.walk(subagents) for n in names
                  if n.startswith("agent-") and n.endswith(".jsonl")]
        others += _old_layout_files(project, stem)
        chosen = set(files)
        files += [p for p in sorted(others) if p not in chosen]
    return files


def _old_layout_files(project: Path, session_id: str) -> list[Path]:
    """Old-layout `agent-*.jsonl` beside the sessions whose first record names this session."""
    try:
        with os.scandir(project) as listing:
            entries = [e.path for e in listing if e.name.startswith("agent-") and e.name.endswith(".jsonl")]
    except OSError:
        return []
    matches = []
    for name in entries:
        try:
            with open(name, "rb") as f:
                first = f.readline(1 << 20)
            record = json.loads(first)
        except (OSError, ValueError, RecursionError):  # unreadable or not JSON: not provably ours
            continue
        if isinstance(record, dict) and record.get("sessionId") == session_id:
            matches.append(Path(name))
    return matches


def _parse(path: Path, start: int, *, sidechain: bool, clean: Clean | None = None) -> tuple[RecordParser, JsonlRange]:
    """Feed the records of `path` from byte `start` to a parser."""
    parser = RecordParser(sidechain=sidechain, clean=clean)
    with open(path, "rb") as f:
        records = JsonlRange(f, start)
        for record in records:
            parser.feed(record)
    return parser, records


def _fold(transcript: Transcript, sub_path: Path, clean: Clean | None = None) -> None:
    """Append a subagent file's turns to the transcript, unless it is start-up warm-up noise."""
    try:
        parser, records = _parse(sub_path, 0, sidechain=True, clean=clean)
    except OSError:  # a subagent file that vanished does not make the session unreadable
        return
    turns = parser.finish()
    if len(turns) <= 2 and turns and turns[0].role == "user" and turns[0].text.strip() == WARMUP:
        return
    transcript.turns.extend(turns)
    transcript.subagents += 1
    transcript.bad_lines += records.bad_lines
    transcript.injected += parser.injected
