"""The commit log as the record of what was processed: trailers in, trailers out (the cache that
saves re-reading history is `memgit.store.ledger_cache`).

Every memgit commit says what it did in its subject `<kind>(<scope>): <what>` and in git trailers
(DESIGN §2). What is processed is computed from those trailers on every branch; the cache under
`.git/memgit/ledger.pickle` only saves re-reading history and may be deleted at any time.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, NamedTuple, Sequence


class CommitInfo(NamedTuple):  # a tuple: the ledger reads 10k of them cold
    sha: str
    parents: tuple[str, ...]
    message: str  # as stored, trailing newline included
    time: int  # commit time, unix seconds

LEDGER_KINDS = ("extract", "skip", "fail")
PURGE = "purge"  # a history rewritten by `memgit purge`: an empty commit on each branch it rewrote
PURGED_TRAILER = "Memgit-Purged"  # on a purge commit: `<kind> <count>`, one per kind removed
REPLACES_TRAILER = "Memgit-Replaces"  # on a purge commit: `<remote>/<branch> <sha>`, the remote's head it replaces
REWROTE_TRAILER = "Memgit-Rewrote"  # on a purge commit: `<old> <new>`, the commit a team's last share names, rewritten
_LEDGER_SUBJECTS = tuple(f"{kind}(" for kind in LEDGER_KINDS)
CACHE_VERSION = 4  # entries stored as lists in field order, pickled
CUT_TRAILER = "Memgit-Cut"  # bytes at the end of the range that were no complete record (a cut transcript)
CUT_KEY = "cut_tail"  # the same, in a session note's front matter
_SUBJECT = re.compile(r"(?P<kind>[a-z]+)\((?P<scope>[^)\n]*)\): (?P<what>[^\n]*)(?:\n|$)")
_TRAILER = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*): (.*)$", re.M)
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


def _trailer_block(message: str) -> list[tuple[str, str]]:
    """The (key, value) lines of a message's last paragraph, or [] when it is not a trailer block.

    One regex over the paragraph rather than one per line: the ledger of 10k commits is read cold
    in a fraction of a second.
    """
    text = message.rstrip()
    cut = text.rfind("\n\n")
    if cut < 0 or not text[:cut].strip():
        return []
    last = text[cut + 2 :].strip("\n")
    found = _TRAILER.findall(last)
    return found if len(found) == last.count("\n") + 1 else []  # a line that is no trailer: none


def parse_trailers(message: str) -> dict[str, list[str]]:
    """Return the trailers of a message's last paragraph (as `git interpret-trailers --parse`)."""
    out: dict[str, list[str]] = {}
    for key, value in _trailer_block(message):
        out.setdefault(key, []).append(value.strip())
    return out


def parse_subject(message: str) -> tuple[str, str, str] | None:
    """Return (kind, scope, what) of a memgit subject, None for any other commit."""
    match = _SUBJECT.match(message)
    return (match["kind"], match["scope"], match["what"]) if match else None


class Entry(NamedTuple):
    """One ledger commit: a session range read and what came of it.

    A tuple, not a dataclass: the ledger of 10k sessions builds 10k of them on every sync.
    """

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
    cut: int = 0  # bytes at the end of the range passed over: the transcript ended in a cut record


def entry_from_commit(info: CommitInfo, branch: str) -> Entry | None:
    """Read a ledger entry from a commit, None when the commit is not one."""
    subject = parse_subject(info.message)
    if not subject or subject[0] not in LEDGER_KINDS:
        return None
    return _entry(info, branch, subject[0], dict(reversed(_trailer_block(info.message))))


def _entry(info: CommitInfo, branch: str, kind: str, trailers: dict[str, str]) -> Entry | None:
    """The entry of a ledger commit of `kind`, from its trailers (each key's first value)."""
    session = trailers.get("Memgit-Session", "").strip()
    start, sep, end = trailers.get("Memgit-Range", "").strip().partition("-")
    if not session or not sep or not start.isdigit() or not end.isdigit() or not start.isascii() or not end.isascii():
        return None
    cut = trailers.get(CUT_TRAILER, "").strip()
    return Entry(info.sha, branch, kind, session, trailers.get("Memgit-Source", "").strip(), int(start), int(end),
                 trailers.get("Memgit-Outcome", "").strip(), trailers.get("Memgit-Reason", "").strip(),
                 trailers.get("Memgit-Note", "").strip(), info.time,
                 int(cut) if cut.isdigit() and cut.isascii() else 0)


def cut_text(size: int) -> str:
    """What a cut tail means, for a person: a note's front matter, `status`."""
    return f"the transcript ends in {size} byte(s) that are no complete record (cut off); read up to them"


def reverted_target(info: CommitInfo) -> str | None:
    """The commit a revert undoes: memgit's trailer or git's own "This reverts commit <sha>."."""
    return _reverted(info.message, dict(reversed(_trailer_block(info.message))))


def _reverted(message: str, trailers: dict[str, str]) -> str | None:
    if trailer := trailers.get("Memgit-Reverts", "").strip():
        return trailer
    match = _GIT_REVERT.search(message)
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

    def extended(self, entries: list[Entry], reverts: dict[str, str]) -> Ledger | None:
        """This ledger with `entries` (newer than all it holds) and `reverts` added, as a new
        Ledger equal to one built from scratch; None when an entry is not newer."""
        known = {e.sha for e in self.entries}
        new = list({e.sha: e for e in entries}.values())
        if any(e.sha in known for e in new):
            return None  # a commit now reached from another branch too: which one it names depends on their order
        if new and self.entries and min(e.time for e in new) <= self.entries[-1].time:
            return None  # the same second: where it sorts depends on every branch's order
        grown = Ledger.__new__(Ledger)
        grown.entries = self.entries + sorted(new, key=lambda e: e.time)
        grown.reverts = {**self.reverts, **reverts}
        grown.by_session = dict(self.by_session)
        for entry in grown.entries[len(self.entries):]:
            grown.by_session[entry.session] = [*grown.by_session.get(entry.session, ()), entry]
        grown.undone_by = dict(self.undone_by)
        for revert, target in reverts.items():
            if revert not in self.reverts:
                grown.undone_by[target] = [*grown.undone_by.get(target, ()), revert]
        return grown

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

def scan(commits: Iterable[CommitInfo], branch: str) -> tuple[list[list], list[list[str]]]:
    """Read ledger entries and reverts from commits given newest first; return them oldest first."""
    entries, reverts = [], []
    for info in commits:  # read as they come (git may still be writing the rest)
        message = info.message
        ledger = message.startswith(_LEDGER_SUBJECTS)
        if not ledger and "Memgit-Reverts" not in message and "This reverts commit" not in message:
            continue  # nothing the ledger reads (most consolidate and edit commits)
        trailers = dict(reversed(_trailer_block(message)))
        if ledger and (subject := parse_subject(message)) and subject[0] in LEDGER_KINDS:
            if entry := _entry(info, branch, subject[0], trailers):
                entries.append(list(entry))
        if target := _reverted(message, trailers):
            reverts.append([info.sha, target])
    entries.reverse()
    reverts.reverse()
    return entries, reverts
