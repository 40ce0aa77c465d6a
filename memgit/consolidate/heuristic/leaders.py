"""Which group leads each cluster of a scope's Memory, decided in a fixed priority order.

Every group has a fixed priority (a hash of its key). Taken in priority order, a group joins the
most similar *leader* of higher priority, or leads a cluster of its own; so every member is similar
to its leader (no chains of ever-less-alike learnings), and the clusters are a function of the set
of groups alone, never of the order the notes arrived in. `settle` and `drop` keep that assignment
true by deciding again only the groups similar to one that changed, in priority order: a sync that
adds one note touches a handful of groups, and renders byte-for-byte what a recompute from all notes
renders.

Candidates come from prefix-filter postings: two sets with Jaccard >= t share a token among their
first |x| - ceil(t·|x|) + 1 tokens in any fixed global order. The order is rarest first, by the
token counts frozen when the Memory was last built in full (new tokens count as rare); it decides
how fast candidates are found, never which pairs are similar.

The groups, postings and conflicts live in the Memory's database (memgit.consolidate.heuristic.memory).
"""

from __future__ import annotations

import hashlib
import heapq
import math
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from memgit.consolidate.heuristic.graph import (
    CHOICE_TYPES, THRESHOLD, Signature, contradicts, probe, signature, similar, threshold,
)

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


def priority_of(kind: str, norm: str) -> int:
    """A group's fixed priority: a hash of its key, so that no order of arrival changes the clusters."""
    return int.from_bytes(hashlib.blake2b(f"{kind}\0{norm}".encode(), digest_size=8).digest(), "big") >> 1


class Leaders:
    """The cluster assignment over a Memory's database connection (see the module's docstring)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self._order: dict[str, int] | None = None  # token -> count: the order prefixes are taken in
        self._static: dict[int, tuple[tuple[int, str, str], Signature]] = {}  # gid -> (rank, signature)

    def assign_all(self, groups: Sequence[Group], counts: dict[str, int]) -> tuple[
            dict[tuple[int, str, str], list[int]], dict[int, int], list[tuple[int, int]]]:
        """Decide every group at once, in priority order, with the token order taken from `counts`:
        return the postings, each group's leader and the contradictions, for the caller to write.

        The postings are kept in memory meanwhile, so nothing cascades: a full build of a
        10,000-note scope is a matter of the similarity tests alone.
        """
        self._order = counts
        self._static.clear()
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
        return postings, leader_of, conflicts

    def _posted(self, postings: dict, kind: int, group: Group, least: Callable[[int], float]) -> set[int]:
        found: set[int] = set()
        for token in self._prefix(group, least):
            found.update(postings.get((kind, group.type, token), ()))
        found.discard(group.id)
        return found

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

    def group(self, gid: int) -> Group:
        return Group(gid, *self.db.execute("SELECT type, norm, priority, leader FROM groups WHERE id = ?",
                                           (gid,)).fetchone())

    def about(self, gid: int) -> tuple[tuple[int, str, str], Signature]:
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
        found = [gid for gid in self._candidates(EVERYONE, group, threshold) if similar(sig, self.about(gid)[1])]
        return [self.group(gid) for gid in found]

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
            rank, theirs = self.about(gid)
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

    def settle(self, group: Group, *, last: bool = False) -> None:
        """Place a new group (post it, link its contradictions), then decide what it affects."""
        self._post(EVERYONE, group, probe, add=True)
        if group.type in CHOICE_TYPES:
            sig = signature(group.type, group.norm)
            rows = [(a, b) for other in self._candidates(EVERYONE, group, probe)
                    if contradicts(sig, self.about(other)[1])
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

    def drop(self, group: Group) -> None:
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
