"""The commit log as the record of what was processed: trailers in, trailers out, and a derived cache.

Every memgit commit says what it did in its subject `<kind>(<scope>): <what>` and in git trailers
(DESIGN §2). What is processed is computed from those trailers on every branch; the cache under
`.git/memgit/ledger.json` only saves re-reading history and may be deleted at any time.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Sequence

if TYPE_CHECKING:
    from .repo import CommitInfo, MemoryRepo

LEDGER_KINDS = ("extract", "skip", "fail")
CACHE_VERSION = 2
_SUBJECT = re.compile(r"^(?P<kind>[a-z]+)\((?P<scope>[^)]*)\): (?P<what>.*)$")
_TRAILER = re.compile(r"^(?P<key>[A-Za-z0-9][A-Za-z0-9-]*): (?P<value>.*)$")
_GIT_REVERT = re.compile(r"This reverts commit (?P<sha>[0-9a-f]{40})")


def one_line(text: str, limit: int = 300) -> str:
    """Squash text into one line fit for a subject or a trailer value."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def format_message(kind: str, scope: str, what: str, body: str = "",
                   trailers: Sequence[tuple[str, str | int | None]] = ()) -> str:
    """Build a commit message: subject, optional body, then the trailer paragraph."""
    parts = [f"{kind}({scope}): {one_line(what, 120)}"]
    # A body line starting with --- would hide the trailers from git (patch divider).
    body = "\n".join(line for line in body.strip().splitlines() if not line.startswith("---"))
    if body:
        parts.append(body)
    lines = [f"{key}: {one_line(str(value))}" for key, value in trailers if value not in (None, "")]
    if lines:
        parts.append("\n".join(lines))
    return "\n\n".join(parts) + "\n"


def parse_trailers(message: str) -> dict[str, list[str]]:
    """Return the trailers of a message's last paragraph (as `git interpret-trailers --parse`)."""
    paragraphs = [p for p in message.strip().split("\n\n") if p.strip()]
    if len(paragraphs) < 2:
        return {}
    out: dict[str, list[str]] = {}
    for line in paragraphs[-1].splitlines():
        match = _TRAILER.match(line)
        if not match:
            return {}
        out.setdefault(match["key"], []).append(match["value"].strip())
    return out


def parse_subject(message: str) -> tuple[str, str, str] | None:
    """Return (kind, scope, what) of a memgit subject, None for any other commit."""
    match = _SUBJECT.match(message.split("\n", 1)[0])
    return (match["kind"], match["scope"], match["what"]) if match else None


@dataclass(frozen=True, slots=True)
class Entry:
    """One ledger commit: a session range read and what came of it."""

    sha: str
    branch: str
    kind: str  # extract | skip | fail
    session: str  # "<agent>/<session id>"
    source: str
    start: int
    end: int
    outcome: str
    reason: str = ""
    note: str = ""  # path of the note written (extract)
    time: int = 0


def entry_from_commit(info: CommitInfo, branch: str) -> Entry | None:
    """Read a ledger entry from a commit, None when the commit is not one."""
    subject = parse_subject(info.message)
    if not subject or subject[0] not in LEDGER_KINDS:
        return None
    trailers = parse_trailers(info.message)
    session = (trailers.get("Memgit-Session") or [""])[0]
    span = (trailers.get("Memgit-Range") or [""])[0]
    match = re.fullmatch(r"(\d+)-(\d+)", span)
    if not session or not match:
        return None
    return Entry(
        sha=info.sha, branch=branch, kind=subject[0], session=session,
        source=(trailers.get("Memgit-Source") or [""])[0],
        start=int(match[1]), end=int(match[2]),
        outcome=(trailers.get("Memgit-Outcome") or [""])[0],
        reason=(trailers.get("Memgit-Reason") or [""])[0],
        note=(trailers.get("Memgit-Note") or [""])[0],
        time=info.time,
    )


def reverted_target(info: CommitInfo) -> str | None:
    """The commit a revert undoes: memgit's trailer or git's own "This reverts commit <sha>."."""
    trailer = parse_trailers(info.message).get("Memgit-Reverts")
    if trailer:
        return trailer[0]
    match = _GIT_REVERT.search(info.message)
    return match["sha"] if match else None


@dataclass(slots=True)
class Ledger:
    """What was processed, per session, read from every branch's history."""

    entries: list[Entry] = field(default_factory=list)
    reverts: dict[str, str] = field(default_factory=dict)  # revert sha -> the sha it undoes
    by_session: dict[str, list[Entry]] = field(default_factory=dict, init=False)
    undone_by: dict[str, list[str]] = field(default_factory=dict, init=False)  # sha -> the reverts of it

    def __post_init__(self) -> None:
        unique = {e.sha: e for e in self.entries}  # a commit reached from two branches counts once
        # Entries arrive oldest first per branch; the sort is stable, so commits made in the same
        # second keep their history order (a retry stays after the failure it retried).
        self.entries = sorted(unique.values(), key=lambda e: e.time)
        self.by_session = {}
        for entry in self.entries:
            self.by_session.setdefault(entry.session, []).append(entry)
        self.undone_by = {}
        for revert, target in self.reverts.items():
            self.undone_by.setdefault(target, []).append(revert)

    def is_reverted(self, sha: str) -> bool:
        """True when `sha` is undone: reverted by a commit that is not itself reverted."""
        return any(not self.is_reverted(r) for r in self.undone_by.get(sha, ()))

    def processed_end(self, session: str) -> int:
        """The highest byte recorded for a session; -1 when it was never read."""
        return max((e.end for e in self.by_session.get(session, ())), default=-1)

    def last(self, session: str) -> Entry | None:
        entries = self.by_session.get(session)
        if not entries:
            return None
        top = max(e.end for e in entries)
        return [e for e in entries if e.end == top][-1]

    def failed(self) -> dict[str, Entry]:
        """Sessions whose latest range failed (retried by `sync --retry-failed`)."""
        out = {}
        for session in self.by_session:
            last = self.last(session)
            if last and last.kind == "fail":
                out[session] = last
        return out

    def note_of(self, session: str) -> Entry | None:
        """The newest extraction of a session whose note was not reverted."""
        for entry in reversed(self.by_session.get(session, [])):
            if entry.kind == "extract" and entry.note and not self.is_reverted(entry.sha):
                return entry
        return None

    def find_sessions(self, prefix: str) -> list[str]:
        """Sessions whose id (with or without the agent part) starts with `prefix`."""
        return sorted(
            s for s in self.by_session
            if s.startswith(prefix) or s.split("/", 1)[-1].startswith(prefix)
        )


# ---- the derived cache: .git/memgit/ledger.json, keyed by branch heads ----------------------


def _cache_path(state_dir: Path) -> Path:
    return state_dir / "ledger.json"


def _read_cache(state_dir: Path) -> dict:
    try:
        data = json.loads(_cache_path(state_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else {}


def _write_cache(state_dir: Path, data: dict) -> None:
    """Write the cache atomically; a failure only costs speed next time."""
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        tmp = _cache_path(state_dir).with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, _cache_path(state_dir))
    except OSError:
        pass  # the cache is an optimisation: the ledger stays true without it


def _scan(commits: Iterable[CommitInfo], branch: str) -> tuple[list[dict], list[list[str]]]:
    """Read ledger entries and reverts from commits given newest first; return them oldest first."""
    entries, reverts = [], []
    for info in reversed(list(commits)):
        entry = entry_from_commit(info, branch)
        if entry:
            entries.append(asdict(entry))
        target = reverted_target(info)
        if target:
            reverts.append([info.sha, target])
    return entries, reverts


def load(repo: MemoryRepo, state_dir: Path) -> Ledger:
    """Read the ledger of every branch, reusing the cache for heads that did not move."""
    cache = _read_cache(state_dir)
    cached = cache.get("branches", {})
    fresh: dict[str, dict] = {}
    changed = False
    for branch, head in repo.branches().items():
        old = cached.get(branch)
        if old and old["head"] == head:
            fresh[branch] = old
            continue
        changed = True
        if old and repo.is_ancestor(old["head"], head):
            entries, reverts = _scan(repo.history(head, exclude=old["head"]), branch)
            fresh[branch] = {"head": head, "entries": old["entries"] + entries,
                             "reverts": old["reverts"] + reverts}
        else:  # new branch, or history rewritten: read it all again
            entries, reverts = _scan(repo.history(head), branch)
            fresh[branch] = {"head": head, "entries": entries, "reverts": reverts}
    if changed or set(fresh) != set(cached):
        _write_cache(state_dir, {"version": CACHE_VERSION, "branches": fresh})
    return Ledger(
        entries=[Entry(**e) for b in fresh.values() for e in b["entries"]],
        reverts={r: t for b in fresh.values() for r, t in b["reverts"]},
    )
