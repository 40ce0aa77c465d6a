"""A scope's memory, kept up to date note by note: its notes, their learnings in groups, and the clusters.

A *group* is every learning of one type that normalises to the same text; the groups' clusters are
decided by memgit.consolidate.heuristic.leaders (in a fixed priority order, so that adding or
removing a note renders byte-for-byte what a recompute from all notes renders) and read by
memgit.consolidate.heuristic.view. This module keeps the records: which notes there are, which
learnings each holds, in which group, and the sessions behind each group.

The state lives in an embedded SQLite database: in memory for a one-off consolidation, in a file
under .git/memgit/ for the cache a sync reuses (memgit.consolidate.heuristic.cache), so that a sync reads
only the rows it touches rather than the whole memory of a 10,000-note project.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from memgit.core.edited import edited_files
from memgit.core.model import Note
from memgit.consolidate.heuristic import view as view_mod
from memgit.consolidate.heuristic.graph import Cluster, Occurrence, desc, group_key, note_occurrences, recency, signature
from memgit.consolidate.heuristic.leaders import Group, Leaders, packed, priority_of
from memgit.consolidate.heuristic.scope import GLOBAL_TYPES, portable
from memgit.consolidate.heuristic.view import View

SCHEMA_VERSION = 7  # 3: members stored by group, so a cluster's members are read in one range; 4: postings of
#                    every group under the prefix `leaders.posted` says, leaders read from `groups`; 5: a token's
#                    groups in one row (a JSON list), the token counts in one (a team's first build wrote
#                    ~160,000 rows for them, a third of its SQLite time); 6: the files each note's session edited;
#                    7: the git branch each note's session worked on
REBUILD_GROWTH = 2  # take the token order again once the groups have doubled since it was taken
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notes(path TEXT PRIMARY KEY, version TEXT, session TEXT, stamp INTEGER,
                                 "when" TEXT, title TEXT, source TEXT, edited TEXT, branch TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS groups(id INTEGER PRIMARY KEY, type TEXT, norm TEXT, priority INTEGER, leader INTEGER,
                                  nwords INTEGER, sessions INTEGER DEFAULT 0, latest INTEGER DEFAULT 0);
CREATE TABLE IF NOT EXISTS members(gid INTEGER, path TEXT, seq INTEGER, text TEXT, portable INTEGER,
                                   PRIMARY KEY(gid, path, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS postings(type TEXT, token TEXT, gids TEXT, PRIMARY KEY(type, token)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conflicts(a INTEGER, b INTEGER, PRIMARY KEY(a, b)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS backing(gid INTEGER, session TEXT, n INTEGER, PRIMARY KEY(gid, session)) WITHOUT ROWID;
"""
# The secondary indexes, apart: a full build drops them, fills the tables, and makes them again (made
# over rows already there, they cost less than kept up to date row by row: the bench's team memory of
# 31,619 groups is written in ~1.8 s instead of ~2.4 s). A group's key is one of them: unique, as a
# constraint of the table kept it (whose index could not be dropped).
_INDEXES = {  # name: (kind, what)
    "groups_key": ("UNIQUE INDEX", "ON groups(type, norm)"),
    "groups_leader": ("INDEX", "ON groups(leader)"),
    "groups_lonely": ("INDEX", "ON groups(type, latest DESC, norm) WHERE leader = id AND sessions <= 1"),
    "members_path": ("INDEX", "ON members(path, seq)"),
}


@dataclass(frozen=True, slots=True)
class NoteInfo:
    """What a scope's summary needs of a note besides its learnings."""

    path: str
    session: str
    when: str
    title: str
    edited: tuple[str, ...] = ()  # the file names its session edited (memgit.core.edited), when all are known
    branch: str = ""  # the git branch its session worked on, "" when unknown


class Memory:
    """The incremental state of one scope (see the module's docstring).

    `Memory()` keeps it in memory; `Memory(path)` in a database file that outlives the process.
    """

    def __init__(self, path: str = ":memory:") -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=MEMORY" if path == ":memory:" else "PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=OFF")  # a cache: a torn file is rebuilt, never trusted blindly
        # Reading a cluster's members is random access over a file of tens of MB: mapped, it costs
        # half what it does through SQLite's 2 MB page cache and read() calls.
        self.db.execute("PRAGMA mmap_size=268435456")
        self.db.executescript(_SCHEMA + "".join(f"CREATE {kind} IF NOT EXISTS {name} {what};\n"
                                                for name, (kind, what) in _INDEXES.items()))
        self.leaders = Leaders(self.db)

    def close(self) -> None:
        self.db.close()
        # The groups' signatures (a full build computes one per group, ~160,000 objects for a team's
        # 31,619): let go, or each later pass of the cycle collector walks them all.
        signature.cache_clear()

    def __enter__(self) -> Memory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- metadata ---------------------------------------------------------------------------------

    def get(self, key: str, default=None):
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row[0] if row else default

    def set(self, key: str, value) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    def versions(self) -> dict[str, str]:
        """Each note's version (a blob id), to tell a changed note from a known one."""
        return dict(self.db.execute("SELECT path, version FROM notes"))

    def __len__(self) -> int:
        return self.db.execute("SELECT COUNT(*) FROM notes").fetchone()[0]

    def infos(self) -> list[NoteInfo]:
        return [NoteInfo(path, session, when, title, tuple(edited.split("\n")) if edited else (), branch or "")
                for path, session, when, title, edited, branch in self.db.execute(
                    'SELECT path, session, "when", title, edited, branch FROM notes ORDER BY path')]

    # -- building ---------------------------------------------------------------------------------

    @classmethod
    def of(cls, notes: Iterable[tuple[str, Note]], source: str = "") -> Memory:
        """A Memory of all `notes` at once, in memory (the token order taken from them)."""
        memory = cls()
        memory.build_notes([(path, "", note) for path, note in notes], source)
        return memory

    def build_notes(self, notes: Iterable[tuple[str, str, Note]], source: str = "") -> None:
        """Replace everything by these notes, (path, version, note), at once (the token order taken from them)."""
        self.build([(path, note_occurrences(path, note, source), _meta(path, note, version, source))
                    for path, version, note in notes])

    def build(self, found: Sequence[tuple[str, Sequence[Occurrence], tuple]], *, flag_portable: bool = True) -> None:
        """Replace everything by these notes: (path, occurrences, meta), meta as `_meta` makes it.

        The groups are decided at once (`Leaders.assign_all`), and everything is written at the end.
        """
        ids: dict[tuple[str, str], int] = {}
        key_of: dict[tuple[str, str], tuple[str, str]] = {}  # (type, text) -> its group's key: teammates share wordings
        groups: list[Group] = []
        notes, members = [], []
        backing: dict[tuple[int, str], int] = {}  # (group, session) -> members
        latest = [0]  # by group id
        portable_: dict[str, int] = {}  # a text's flag (a scope repeats its learnings' wordings)
        for path, occurrences_, (version, session, when, title, source, edited, branch) in found:
            stamp = -desc(when)
            notes.append((path, version, session, stamp, when, title, source, edited, branch))
            for seq, o in enumerate(occurrences_):
                if (key := key_of.get(o[:2])) is None:
                    key = key_of[o[:2]] = group_key(o)
                if (gid := ids.get(key)) is None:
                    gid = ids[key] = len(ids) + 1
                    groups.append(Group(gid, key[0], key[1], priority_of(*key), -1))
                    latest.append(0)
                text = o.text
                if flag_portable and key[0] in GLOBAL_TYPES:
                    if (flag := portable_.get(text)) is None:
                        flag = portable_[text] = int(portable(text))
                else:
                    flag = 0
                members.append((gid, path, seq, text, flag))
                held = (gid, session)
                backing[held] = backing.get(held, 0) + 1
                if stamp > latest[gid]:
                    latest[gid] = stamp
        words = [signature(kind, norm).words for kind, norm in ids]
        counts = Counter(chain.from_iterable(words))
        nwords = [0, *map(len, words)]  # by group id
        supported = Counter(gid for gid, _ in backing)
        postings, leader_of, conflicts = self.leaders.assign_all(groups, counts)
        with self.db:
            self.db.execute("BEGIN")
            for table in ("notes", "groups", "members", "postings", "conflicts", "backing"):
                self.db.execute(f"DELETE FROM {table}")  # noqa: S608  (fixed names)
            for name in _INDEXES:
                self.db.execute(f"DROP INDEX IF EXISTS {name}")  # noqa: S608  (fixed names)
            self.leaders.keep_counts(counts)
            self.db.executemany("INSERT INTO backing(gid, session, n) VALUES (?, ?, ?)",
                                [(gid, session, n) for (gid, session), n in backing.items()])
            self.set("ordered_at", len(ids))
            self.db.executemany('INSERT INTO notes(path, version, session, stamp, "when", title, source, edited, '
                                "branch) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", notes)
            self.db.executemany("INSERT INTO groups(id, type, norm, priority, leader, nwords, sessions, latest) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                [(g.id, g.type, g.norm, g.priority, leader_of[g.id], nwords[g.id], supported[g.id],
                                  latest[g.id]) for g in groups])
            self.db.executemany("INSERT INTO members(gid, path, seq, text, portable) VALUES (?, ?, ?, ?, ?)", members)
            self.db.executemany("INSERT INTO postings(type, token, gids) VALUES (?, ?, ?)",
                                [(kind, token, packed(gids)) for kind, of_kind in postings.items()
                                 for token, gids in of_kind.items()])
            self.db.executemany("INSERT OR IGNORE INTO conflicts(a, b) VALUES (?, ?)", conflicts)
            for name, (kind, what) in _INDEXES.items():
                self.db.execute(f"CREATE {kind} {name} {what}")  # noqa: S608  (fixed names)

    def add(self, path: str, note: Note, *, version: str = "", source: str = "") -> None:
        """Add (or replace) the note at `path`; `version` says which content it was (a blob id)."""
        self.add_occurrences(path, note_occurrences(path, note, source), _meta(path, note, version, source))

    def add_occurrences(self, path: str, found: Sequence[Occurrence], meta: tuple) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self._remove(path)
            new = self._attach(path, found, meta)
            for group in sorted(new, key=lambda g: g.rank):
                self.leaders.settle(group)
        groups = self.db.execute("SELECT COUNT(*) FROM groups").fetchone()[0]
        if groups > REBUILD_GROWTH * max(1000, self.get("ordered_at", 0)):
            self._rebuild()

    def remove(self, path: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self._remove(path)

    def _attach(self, path: str, found: Sequence[Occurrence], meta: tuple) -> list[Group]:
        """Record a note and its learnings in their groups; return the groups it created."""
        version, session, when, title, source, edited, branch = meta
        self.db.execute('INSERT INTO notes(path, version, session, stamp, "when", title, source, edited, branch) '
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (path, version, session, -desc(when), when, title, source, edited, branch))
        new = []
        for seq, o in enumerate(found):
            kind, norm = group_key(o)
            row = self.db.execute("SELECT id FROM groups WHERE type = ? AND norm = ?", (kind, norm)).fetchone()
            if row is None:
                priority = priority_of(kind, norm)
                gid = self.db.execute("INSERT INTO groups(type, norm, priority, leader, nwords) VALUES (?, ?, ?, -1, ?)",
                                      (kind, norm, priority, len(signature(kind, norm).words))).lastrowid
                new.append(Group(gid, kind, norm, priority, -1))
            else:
                gid = row[0]
            self.db.execute("INSERT INTO members(gid, path, seq, text, portable) VALUES (?, ?, ?, ?, ?)",
                            (gid, path, seq, o.text, int(kind in GLOBAL_TYPES and portable(o.text))))
            # The sessions behind the group, and its latest note, counted as members come and go.
            first = self.db.execute("INSERT INTO backing(gid, session, n) VALUES (?, ?, 1) ON CONFLICT(gid, session) "
                                    "DO UPDATE SET n = n + 1 RETURNING n", (gid, session)).fetchone()[0] == 1
            self.db.execute("UPDATE groups SET sessions = sessions + ?, latest = MAX(latest, ?) WHERE id = ?",
                            (int(first), -desc(when), gid))
        return new

    def _remove(self, path: str) -> None:
        """Take a note out: its members leave their groups; a group left empty is dropped."""
        row = self.db.execute("SELECT session, stamp FROM notes WHERE path = ?", (path,)).fetchone()
        if row is None:
            return
        session, stamp = row
        counted = self.db.execute("SELECT gid, COUNT(*) FROM members WHERE path = ? GROUP BY gid", (path,)).fetchall()
        self.db.execute("DELETE FROM members WHERE path = ?", (path,))
        self.db.execute("DELETE FROM notes WHERE path = ?", (path,))
        for gid, n in counted:
            left = self.db.execute("UPDATE backing SET n = n - ? WHERE gid = ? AND session = ? RETURNING n",
                                   (n, gid, session)).fetchone()[0]
            if left <= 0:
                self.db.execute("DELETE FROM backing WHERE gid = ? AND session = ?", (gid, session))
                self.db.execute("UPDATE groups SET sessions = sessions - 1 WHERE id = ?", (gid,))
            if self.db.execute("SELECT 1 FROM members WHERE gid = ? LIMIT 1", (gid,)).fetchone() is None:
                self.leaders.drop(self.leaders.group(gid))
            elif self.db.execute("SELECT latest FROM groups WHERE id = ?", (gid,)).fetchone()[0] == stamp:
                self.db.execute("UPDATE groups SET latest = (SELECT COALESCE(MAX(n.stamp), 0) FROM members m JOIN notes n "
                                "ON n.path = m.path WHERE m.gid = ?) WHERE id = ?", (gid, gid))

    def _rebuild(self) -> None:
        """Take the token order again from what the Memory holds now (the result does not change)."""
        found: dict[str, tuple[list[Occurrence], tuple]] = {}
        for path, version, session, when, title, source, edited, branch in self.db.execute(
                'SELECT path, version, session, "when", title, source, edited, branch FROM notes ORDER BY path'):
            found[path] = ([], (version, session, when, title, source, edited, branch))
        for path, kind, text in self.db.execute(
                "SELECT m.path, g.type, m.text FROM members m JOIN groups g ON g.id = m.gid ORDER BY m.path, m.seq"):
            _, session, when, title, source, _, _ = found[path][1]
            found[path][0].append(Occurrence(kind, text, path, session, when, source, title))
        self.build([(path, occurrences_, meta) for path, (occurrences_, meta) in found.items()])

    # -- reading ----------------------------------------------------------------------------------

    def clusters(self) -> list[Cluster]:
        """Every cluster, strongest first (a small scope's whole picture; `view` for large ones)."""
        return self.view(singles=None).clusters

    def view(self, singles: int | None = 40) -> View:
        """The clusters worth rendering (memgit.consolidate.heuristic.view.view)."""
        return view_mod.view(self.db, singles)

    def portable(self, source: str, paths: Iterable[str] | None = None) -> list[Occurrence]:
        """The learnings that may reach `main` (see scope.py), named as of branch `source`; of the
        notes at `paths` only, when given."""
        return view_mod.portable(self.db, source, paths)

    def portable_versions(self) -> dict[str, str]:
        """The notes holding a portable learning, and their versions."""
        return view_mod.portable_versions(self.db)


def _meta(path: str, note: Note, version: str, source: str) -> tuple:
    """What the Memory records of a note besides its learnings: (version, session, when, title,
    source, the files its session edited joined by newlines, the git branch it worked on)."""
    return (version, note.session or path, recency(note, path), note.title, source,
            "\n".join(edited_files(note.summary)), note.git_branch or "")