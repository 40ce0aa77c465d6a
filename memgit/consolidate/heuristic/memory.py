"""A scope's memory, kept up to date note by note: its groups, their clusters and contradictions.

Clusters: every group has a fixed priority (a hash of its key). Taken in priority order, a group
joins the most similar *leader* of higher priority, or leads a cluster of its own; so every member
is similar to its leader (no chains of ever-less-alike learnings), and the clusters are a function
of the set of groups alone, never of the order the notes arrived in. `add` and `remove` keep that
assignment true by deciding again only the groups similar to one that changed, in priority order:
a sync that adds one note touches a handful of groups, and renders byte-for-byte what a recompute
from all notes renders.

Candidates come from prefix-filter postings: two sets with Jaccard >= t share a token among their
first |x| - ceil(t·|x|) + 1 tokens in any fixed global order. The order is rarest first, by the
token counts frozen when the Memory was last built in full (new tokens count as rare); it decides
how fast candidates are found, never which pairs are similar.

The state lives in an embedded SQLite database: in memory for a one-off consolidation, in a file
under .git/memgit/ for the cache a sync reuses (memgit.consolidate.heuristic.cache), so that a sync reads
only the rows it touches rather than the whole memory of a 10,000-note project.
"""

from __future__ import annotations

import hashlib
import heapq
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from memgit.core.model import Note
from memgit.consolidate.heuristic.graph import (
    CHOICE_TYPES, THRESHOLD, Cluster, Occurrence, Signature, contradicts, desc, group_key, normalise,
    note_occurrences, probe, rank_key, recency, signature, similar, threshold,
)
from memgit.consolidate.heuristic.scope import GLOBAL_TYPES, portable

SCHEMA_VERSION = 3  # 3: members stored by group, so a cluster's members are read in one range
REBUILD_GROWTH = 2  # take the token order again once the groups have doubled since it was taken
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS notes(path TEXT PRIMARY KEY, version TEXT, session TEXT, stamp INTEGER,
                                 "when" TEXT, title TEXT, source TEXT) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS groups(id INTEGER PRIMARY KEY, type TEXT, norm TEXT, priority INTEGER, leader INTEGER,
                                  nwords INTEGER, sessions INTEGER DEFAULT 0, latest INTEGER DEFAULT 0,
                                  UNIQUE(type, norm));
CREATE INDEX IF NOT EXISTS groups_leader ON groups(leader);
CREATE INDEX IF NOT EXISTS groups_lonely ON groups(type, latest DESC, norm) WHERE leader = id AND sessions <= 1;
CREATE TABLE IF NOT EXISTS members(gid INTEGER, path TEXT, seq INTEGER, text TEXT, portable INTEGER,
                                   PRIMARY KEY(gid, path, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS members_path ON members(path, seq);
CREATE TABLE IF NOT EXISTS postings(kind INTEGER, type TEXT, token TEXT, gid INTEGER,
                                    PRIMARY KEY(kind, type, token, gid)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS conflicts(a INTEGER, b INTEGER, PRIMARY KEY(a, b)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS backing(gid INTEGER, session TEXT, n INTEGER, PRIMARY KEY(gid, session)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS counts(token TEXT PRIMARY KEY, n INTEGER) WITHOUT ROWID;
"""
EVERYONE, LEADERS = 0, 1  # postings: of every group (for similar ones and contradictions), of leaders


@dataclass(frozen=True, slots=True)
class Group:
    id: int
    type: str
    norm: str
    priority: int
    leader: int  # the group leading its cluster (its own id when it leads one); -1: not decided

    @property
    def rank(self) -> tuple[int, str, str]:
        """Its place in the fixed order groups are decided in (a hash: independent of arrival)."""
        return (self.priority, self.type, self.norm)


@dataclass(frozen=True, slots=True)
class NoteInfo:
    """What a scope's summary needs of a note besides its learnings."""

    path: str
    session: str
    when: str
    title: str


@dataclass(slots=True)
class View:
    """What a consolidation renders: the clusters worth listing, strongest first, and the counts of all."""

    clusters: list[Cluster]  # every cluster seen in 2+ sessions or in a contradiction, and the most
    #                          recent single-session ones of each type
    holding: int  # clusters that hold (not superseded), listed or not
    superseded: int
    left_out: dict[str, int]  # single-session clusters of each type not listed


def _priority(kind: str, norm: str) -> int:
    return int.from_bytes(hashlib.blake2b(f"{kind}\0{norm}".encode(), digest_size=8).digest(), "big") >> 1


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
        self.db.executescript(_SCHEMA)
        self._order: dict[str, int] | None = None
        self._static: dict[int, tuple[tuple[int, str, str], Signature]] = {}  # gid -> (rank, signature)

    def close(self) -> None:
        self.db.close()

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
        return [NoteInfo(*row) for row in self.db.execute(
            'SELECT path, session, "when", title FROM notes ORDER BY path')]

    # -- building ---------------------------------------------------------------------------------

    @classmethod
    def of(cls, notes: Iterable[tuple[str, Note]], source: str = "") -> Memory:
        """A Memory of all `notes` at once, in memory (the token order taken from them)."""
        memory = cls()
        memory.build([(path, note_occurrences(path, note, source), _meta(path, note, "", source))
                      for path, note in notes])
        return memory

    def build(self, found: Sequence[tuple[str, Sequence[Occurrence], tuple]], *, flag_portable: bool = True) -> None:
        """Replace everything by these notes: (path, occurrences, (version, session, when, title, source)).

        The groups are decided in priority order, so nothing cascades: the postings are kept in
        memory meanwhile and written at the end, which makes a full build of a 10,000-note scope
        a matter of the similarity tests alone.
        """
        keys = {group_key(o) for _, occurrences_, _ in found for o in occurrences_}
        counts: dict[str, int] = {}
        for kind, norm in keys:
            for word in signature(kind, norm).words:
                counts[word] = counts.get(word, 0) + 1
        self._order = counts
        self._static.clear()
        ids: dict[tuple[str, str], int] = {}
        groups: list[Group] = []
        notes, members = [], []
        for path, occurrences_, (version, session, when, title, source) in found:
            notes.append((path, version, session, -desc(when), when, title, source))
            for seq, o in enumerate(occurrences_):
                key = group_key(o)
                gid = ids.get(key)
                if gid is None:
                    gid = ids[key] = len(ids) + 1
                    groups.append(Group(gid, key[0], key[1], _priority(*key), -1))
                members.append((gid, path, seq, o.text,
                                int(flag_portable and key[0] in GLOBAL_TYPES and portable(o.text))))
        backing: dict[tuple[int, str], int] = {}  # (group, session) -> members
        latest: dict[int, int] = {}
        stamps = {path: stamp for path, _, _, stamp, *_ in notes}
        sessions_of = {path: session for path, _, session, *_ in notes}
        for gid, path, *_ in members:
            key = (gid, sessions_of[path])
            backing[key] = backing.get(key, 0) + 1
            latest[gid] = max(latest.get(gid, 0), stamps[path])
        supported: dict[int, int] = {}
        for gid, _ in backing:
            supported[gid] = supported.get(gid, 0) + 1
        postings: dict[tuple[int, str, str], list[int]] = {}
        leader_of: dict[int, int] = {}
        conflicts: list[tuple[int, int]] = []
        for group in sorted(groups, key=lambda g: g.rank):
            self._static[group.id] = (group.rank, signature(group.type, group.norm))
            sig = self._static[group.id][1]
            if group.type in CHOICE_TYPES:
                for other in self._posted(postings, EVERYONE, group, probe):
                    if contradicts(sig, self._static[other][1]):
                        conflicts += [(group.id, other), (other, group.id)]
            for token in self._prefix(group, probe):
                postings.setdefault((EVERYONE, group.type, token), []).append(group.id)
            leader = self._pick(group, self._posted(postings, LEADERS, group, threshold))
            leader_of[group.id] = leader
            if leader == group.id:
                for token in self._prefix(group, threshold):
                    postings.setdefault((LEADERS, group.type, token), []).append(group.id)
        with self.db:
            self.db.execute("BEGIN")
            for table in ("notes", "groups", "members", "postings", "conflicts", "counts", "backing"):
                self.db.execute(f"DELETE FROM {table}")  # noqa: S608  (fixed names)
            self.db.executemany("INSERT INTO counts(token, n) VALUES (?, ?)", counts.items())
            self.db.executemany("INSERT INTO backing(gid, session, n) VALUES (?, ?, ?)",
                                [(gid, session, n) for (gid, session), n in backing.items()])
            self.set("ordered_at", len(keys))
            self.db.executemany('INSERT INTO notes(path, version, session, stamp, "when", title, source) '
                                "VALUES (?, ?, ?, ?, ?, ?, ?)", notes)
            self.db.executemany("INSERT INTO groups(id, type, norm, priority, leader, nwords, sessions, latest) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                [(g.id, g.type, g.norm, g.priority, leader_of[g.id], len(self._static[g.id][1].words),
                                  supported[g.id], latest[g.id]) for g in groups])
            self.db.executemany("INSERT INTO members(gid, path, seq, text, portable) VALUES (?, ?, ?, ?, ?)", members)
            self.db.executemany("INSERT INTO postings(kind, type, token, gid) VALUES (?, ?, ?, ?)",
                                [(*key, gid) for key, gids in postings.items() for gid in gids])
            self.db.executemany("INSERT OR IGNORE INTO conflicts(a, b) VALUES (?, ?)", conflicts)

    def _posted(self, postings: dict, kind: int, group: Group, least: Callable[[int], float]) -> set[int]:
        found: set[int] = set()
        for token in self._prefix(group, least):
            found.update(postings.get((kind, group.type, token), ()))
        found.discard(group.id)
        return found

    def add(self, path: str, note: Note, *, version: str = "", source: str = "") -> None:
        """Add (or replace) the note at `path`; `version` says which content it was (a blob id)."""
        self.add_occurrences(path, note_occurrences(path, note, source), _meta(path, note, version, source))

    def add_occurrences(self, path: str, found: Sequence[Occurrence], meta: tuple) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self._remove(path)
            new = self._attach(path, found, meta)
            for group in sorted(new, key=lambda g: g.rank):
                self._settle(group)
        groups = self.db.execute("SELECT COUNT(*) FROM groups").fetchone()[0]
        if groups > REBUILD_GROWTH * max(1000, self.get("ordered_at", 0)):
            self._rebuild()

    def remove(self, path: str) -> None:
        with self.db:
            self.db.execute("BEGIN")
            self._remove(path)

    def _attach(self, path: str, found: Sequence[Occurrence], meta: tuple) -> list[Group]:
        """Record a note and its learnings in their groups; return the groups it created."""
        version, session, when, title, source = meta
        self.db.execute('INSERT INTO notes(path, version, session, stamp, "when", title, source) '
                        "VALUES (?, ?, ?, ?, ?, ?, ?)", (path, version, session, -desc(when), when, title, source))
        new = []
        for seq, o in enumerate(found):
            kind, norm = group_key(o)
            row = self.db.execute("SELECT id FROM groups WHERE type = ? AND norm = ?", (kind, norm)).fetchone()
            if row is None:
                priority = _priority(kind, norm)
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
                self._drop(self._group(gid))
            elif self.db.execute("SELECT latest FROM groups WHERE id = ?", (gid,)).fetchone()[0] == stamp:
                self.db.execute("UPDATE groups SET latest = (SELECT COALESCE(MAX(n.stamp), 0) FROM members m JOIN notes n "
                                "ON n.path = m.path WHERE m.gid = ?) WHERE id = ?", (gid, gid))

    def _rebuild(self) -> None:
        """Take the token order again from what the Memory holds now (the result does not change)."""
        found: dict[str, tuple[list[Occurrence], tuple]] = {}
        for path, version, session, when, title, source in self.db.execute(
                'SELECT path, version, session, "when", title, source FROM notes ORDER BY path'):
            found[path] = ([], (version, session, when, title, source))
        for path, kind, text in self.db.execute(
                "SELECT m.path, g.type, m.text FROM members m JOIN groups g ON g.id = m.gid ORDER BY m.path, m.seq"):
            _, session, when, title, source = found[path][1]
            found[path][0].append(Occurrence(kind, text, path, session, when, source, title))
        self.build([(path, occurrences_, meta) for path, (occurrences_, meta) in found.items()])

    # -- the cluster assignment -------------------------------------------------------------------

    def _counts(self) -> dict[str, int]:
        if self._order is None:
            self._order = dict(self.db.execute("SELECT token, n FROM counts"))
        return self._order

    def _prefix(self, group: Group, least: Callable[[int], float]) -> list[str]:
        """The tokens two sets that meet `least` share at least one of (each set uses its own share: a
        pair must meet the higher of the two, so the longer prefix of the two is always enough)."""
        counts = self._counts()
        ordered = sorted(signature(group.type, group.norm).words, key=lambda w: (counts.get(w, 0), w))
        return ordered[: len(ordered) - math.ceil(least(len(ordered)) * len(ordered)) + 1]

    def _group(self, gid: int) -> Group:
        return Group(gid, *self.db.execute("SELECT type, norm, priority, leader FROM groups WHERE id = ?",
                                           (gid,)).fetchone())

    def _about(self, gid: int) -> tuple[tuple[int, str, str], Signature]:
        """A group's rank and signature (they never change: cached for the life of the connection)."""
        found = self._static.get(gid)
        if found is None:
            kind, norm, priority = self.db.execute("SELECT type, norm, priority FROM groups WHERE id = ?",
                                                   (gid,)).fetchone()
            found = self._static[gid] = ((priority, kind, norm), signature(kind, norm))
        return found

    def _candidates(self, kind: int, group: Group, least: Callable[[int], float], *,
                    sizes: tuple[float, float] | None = None) -> list[int]:
        """Groups sharing a prefix token with `group` (and, with `sizes`, of a word count between them)."""
        tokens = self._prefix(group, least)
        if not tokens:
            return []
        marks = ",".join("?" * len(tokens))
        query = (f"SELECT DISTINCT p.gid FROM postings p JOIN groups g ON g.id = p.gid WHERE p.kind = ? AND "  # noqa: S608
                 f"p.type = ? AND p.token IN ({marks}) AND p.gid != ?")
        params: tuple = (kind, group.type, *tokens, group.id)
        if sizes:
            query += " AND g.nwords BETWEEN ? AND ?"
            params += sizes
        return [gid for gid, in self.db.execute(query, params)]

    def _post(self, kind: int, group: Group, least: Callable[[int], float], *, add: bool) -> None:
        rows = [(kind, group.type, token, group.id) for token in self._prefix(group, least)]
        if add:
            self.db.executemany("INSERT OR IGNORE INTO postings(kind, type, token, gid) VALUES (?, ?, ?, ?)", rows)
        else:
            self.db.executemany("DELETE FROM postings WHERE kind = ? AND type = ? AND token = ? AND gid = ?", rows)

    def _similar(self, group: Group) -> list[Group]:
        """The groups similar to `group` (its followers among them): those a change of it may affect."""
        sig = signature(group.type, group.norm)
        found = [gid for gid in self._candidates(EVERYONE, group, threshold) if similar(sig, self._about(gid)[1])]
        return [self._group(gid) for gid in found]

    def _best_leader(self, group: Group) -> int:
        """The most similar leader of higher priority (ties: the higher priority), else the group itself."""
        size = len(signature(group.type, group.norm).words)
        sizes = (THRESHOLD * size, size / THRESHOLD)  # Jaccard >= t needs t|A| <= |B| <= |A|/t
        return self._pick(group, self._candidates(LEADERS, group, threshold, sizes=sizes) if size else ())

    def _pick(self, group: Group, leaders: Iterable[int]) -> int:
        """Of these leaders, the most similar one of higher priority (ties: the higher priority), else
        the group itself. The similarity test is `graph.similar`, inlined: it runs millions of times
        when a large scope is built."""
        sig = signature(group.type, group.norm)
        mine = sig.words
        size = len(mine)
        if not size:
            return group.id
        best, best_score, best_rank = group.id, 0.0, group.rank
        for gid in leaders:
            rank, theirs = self._about(gid)
            if rank > group.rank:
                continue
            words = theirs.words
            common = len(mine & words)
            if not common:
                continue
            score = common / (size + len(words) - common)
            if score < threshold(max(size, len(words))) or not similar(sig, theirs):
                continue
            if score > best_score or score == best_score and rank < best_rank:
                best, best_score, best_rank = gid, score, rank
        return best

    def _settle(self, group: Group, *, last: bool = False) -> None:
        """Place a new group (post it, link its contradictions), then decide what it affects."""
        self._post(EVERYONE, group, probe, add=True)
        if group.type in CHOICE_TYPES:
            sig = signature(group.type, group.norm)
            rows = [(a, b) for other in self._candidates(EVERYONE, group, probe)
                    if contradicts(sig, self._about(other)[1])
                    for a, b in ((group.id, other), (other, group.id))]
            self.db.executemany("INSERT OR IGNORE INTO conflicts(a, b) VALUES (?, ?)", rows)
        self._decide([group], last=last)

    def _decide(self, start: list[Group], *, last: bool = False) -> None:
        """Decide the leader of each group in priority order; a group that starts or stops leading
        makes the lower-priority groups similar to it decide again."""
        heap = [(*g.rank, g.id) for g in start]
        heapq.heapify(heap)
        done: set[int] = set()
        while heap:
            *_, gid = heapq.heappop(heap)
            if gid in done:
                continue
            done.add(gid)
            row = self.db.execute("SELECT type, norm, priority, leader FROM groups WHERE id = ?", (gid,)).fetchone()
            if row is None:
                continue
            group = Group(gid, *row)
            leader = self._best_leader(group)
            was, now = group.leader == gid, leader == gid
            if leader != group.leader:
                self.db.execute("UPDATE groups SET leader = ? WHERE id = ?", (leader, gid))
            if was == now:
                continue
            self._post(LEADERS, group, threshold, add=now)
            if last:
                continue  # built in priority order: no group of lower priority exists yet
            for other in self._similar(group):
                if other.rank > group.rank and other.id not in done:
                    heapq.heappush(heap, (*other.rank, other.id))

    def _drop(self, group: Group) -> None:
        self.db.execute("DELETE FROM groups WHERE id = ?", (group.id,))
        self.db.execute("DELETE FROM backing WHERE gid = ?", (group.id,))
        self._static.pop(group.id, None)
        self._post(EVERYONE, group, probe, add=False)
        self.db.execute("DELETE FROM conflicts WHERE a = ? OR b = ?", (group.id, group.id))
        if group.leader == group.id:
            self._post(LEADERS, group, threshold, add=False)
            affected = [g for g in self._similar(group) if g.rank > group.rank]
            self.db.executemany("UPDATE groups SET leader = -1 WHERE id = ? AND leader = ?",
                                [(g.id, group.id) for g in affected])
            self._decide([Group(g.id, g.type, g.norm, g.priority, -1 if g.leader == group.id else g.leader)
                          for g in affected])

    # -- reading ----------------------------------------------------------------------------------

    def clusters(self) -> list[Cluster]:
        """Every cluster, strongest first (a small scope's whole picture; `view` for large ones)."""
        return self.view(singles=None).clusters

    def view(self, singles: int | None = 40) -> View:
        """The clusters worth rendering: all of two or more sessions, all in a contradiction, and the
        `singles` most recent single-session clusters of each type (all of them when None)."""
        # Clusters of one group are most of a large scope: SQLite picks them; Python sees a few hundred.
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS wide(leader INTEGER PRIMARY KEY)")
        self.db.execute("DELETE FROM wide")
        self.db.execute("INSERT INTO wide SELECT leader FROM groups GROUP BY leader HAVING COUNT(*) > 1 "
                        "UNION SELECT g.leader FROM conflicts c JOIN groups g ON g.id = c.a")
        total = self.db.execute("SELECT COUNT(*) FROM groups WHERE leader = id").fetchone()[0]
        chosen = [leader for leader, in self.db.execute(
            "SELECT leader FROM wide UNION SELECT id FROM groups WHERE leader = id AND sessions > 1")]
        left_out: dict[str, int] = {}
        wide = {leader for leader, in self.db.execute("SELECT leader FROM wide")}
        lonely = "FROM groups WHERE leader = id AND sessions <= 1 AND type = ?"  # the groups_lonely index
        for kind, in self.db.execute("SELECT DISTINCT type FROM groups"):
            if singles is None:
                found = [gid for gid, in self.db.execute(f"SELECT id {lonely}", (kind,)) if gid not in wide]  # noqa: S608
            else:
                found = [gid for gid, in self.db.execute(
                    f"SELECT id {lonely} ORDER BY latest DESC, norm LIMIT ?", (kind, singles + len(wide)))  # noqa: S608
                    if gid not in wide][:singles]
                n = self.db.execute(f"SELECT COUNT(*) {lonely}", (kind,)).fetchone()[0]  # noqa: S608
                n -= len(self._lonely(kind))  # counted above, but listed with the wide clusters
                left_out[kind] = max(0, n - singles)
            chosen += found
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS chosen(leader INTEGER PRIMARY KEY)")
        self.db.execute("DELETE FROM chosen")
        self.db.executemany("INSERT INTO chosen(leader) VALUES (?)", ((leader,) for leader in chosen))
        of_leader: dict[int, Cluster] = {}
        # Note by note, then the members of the chosen groups in one range each: joining the two in
        # SQLite would look up a note per member, the slowest part of a 10k-note scope's view.
        notes = {path: (session or path, when, source, title) for path, session, when, source, title in
                 self.db.execute('SELECT path, session, "when", source, title FROM notes')}
        for leader, kind, text, path in self.db.execute(
                # CROSS JOIN keeps this order (chosen -> their groups -> members): SQLite would rather
                # scan every member. The order of the rows does not matter to a Cluster.
                "SELECT g.leader, g.type, m.text, m.path "
                "FROM chosen c CROSS JOIN groups g ON g.leader = c.leader CROSS JOIN members m ON m.gid = g.id"):
            cluster = of_leader.get(leader)
            if cluster is None:
                cluster = of_leader[leader] = Cluster(kind)
            cluster.occurrences.append(Occurrence(kind, text, path, *notes[path]))
        for a, b in self.db.execute("SELECT ga.leader, gb.leader FROM conflicts c JOIN groups ga ON ga.id = c.a "
                                    "JOIN groups gb ON gb.id = c.b"):
            cluster, other = of_leader[a], of_leader[b]
            if other is cluster or desc(other.recency) > desc(cluster.recency):
                continue  # the other is older: it does not supersede this one
            if desc(other.recency) == desc(cluster.recency) and normalise(other.text) <= normalise(cluster.text):
                continue  # the same age: the later text in sort order holds, so the result is deterministic
            current = cluster.superseded_by
            if current is None or rank_key(other) < rank_key(current):
                cluster.superseded_by = other
        superseded = sum(1 for c in of_leader.values() if c.superseded_by is not None)
        return View(sorted(of_leader.values(), key=rank_key), total - superseded, superseded, left_out)

    def _lonely(self, kind: str) -> set[int]:
        return {gid for gid, in self.db.execute(
            "SELECT id FROM groups WHERE leader = id AND sessions <= 1 AND type = ? AND id IN (SELECT leader FROM wide)",
            (kind,))}

    def portable(self, source: str, paths: Iterable[str] | None = None) -> list[Occurrence]:
        """The learnings that may reach `main` (see scope.py), named as of branch `source`; of the
        notes at `paths` only, when given."""
        where = ""
        if paths is not None:
            self.db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted(path TEXT PRIMARY KEY)")
            self.db.execute("DELETE FROM wanted")
            self.db.executemany("INSERT OR IGNORE INTO wanted(path) VALUES (?)", ((p,) for p in paths))
            where = "AND m.path IN (SELECT path FROM wanted)"
        return [Occurrence(kind, text, path, session or path, when, source, title)
                for kind, text, path, session, when, title in self.db.execute(
                    'SELECT g.type, m.text, m.path, n.session, n."when", n.title FROM members m '
                    f"JOIN groups g ON g.id = m.gid JOIN notes n ON n.path = m.path WHERE m.portable = 1 {where} "  # noqa: S608
                    "ORDER BY m.path, m.seq")]

    def portable_versions(self) -> dict[str, str]:
        """The notes holding a portable learning, and their versions."""
        return dict(self.db.execute("SELECT DISTINCT n.path, n.version FROM members m JOIN notes n ON n.path = m.path "
                                    "WHERE m.portable = 1"))


def _meta(path: str, note: Note, version: str, source: str) -> tuple:
    return (version, note.session or path, recency(note, path), note.title, source)
