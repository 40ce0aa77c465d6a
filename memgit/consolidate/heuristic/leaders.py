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
how fast candidates are found, never which pairs are similar. Each group is posted under its prefix
for the merge threshold (`posted`; a choice's under the longer one for contradictions, `probe`), and
a leader is found among the groups posted under the same tokens that lead a cluster now.

The groups, postings and conflicts live in the Memory's database (memgit.consolidate.heuristic.memory).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import math
import sqlite3
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from operator import attrgetter

from memgit.consolidate.heuristic.graph import (
    CHOICE_TYPES, THRESHOLD, Signature, contradicts, probe, signature, similar, threshold,
)

COUNTS = "token counts"  # the Memory's meta key of the token counts the order is taken from (JSON)
EPS = 1e-9  # how far `_reaching` leans each bound toward keeping a pair (floating point)


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


_RANK = attrgetter("priority", "type", "norm")  # Group.rank, without a call of the property


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
            dict[str, dict[str, list[int]]], dict[int, int], list[tuple[int, int]]]:
        """Decide every group at once, in priority order, with the token order taken from `counts` (it
        counts every word of `groups`): return the postings (type -> token -> groups), each group's
        leader and the contradictions, for the caller to write.

        The postings are kept in memory meanwhile, so nothing cascades: a full build of a
        10,000-note scope is a matter of the similarity tests alone. Each group's words are put in
        the token order once (its prefixes, `_prefix`, are the heads of that list; the order is each
        word's place, an int, so the sort compares no tuples), and a leader is tested only when the
        sizes and the places of the first word the two share let it reach the threshold (`_reaching`).
        It runs once per group of a team's first pull (31,619 of them): the loop keeps to locals.
        """
        self._order = counts
        self._static.clear()
        static = self._static
        postings: dict[str, dict[str, list[int]]] = {}
        leader_of: dict[int, int] = {}
        conflicts: list[tuple[int, int]] = []
        leads: dict[str, dict[str, dict[tuple[int, int], list[int]]]] = {}  # type -> token -> (words, place) -> leaders
        where = _places(counts).__getitem__
        pick, share = self._pick, _share

        for group in sorted(groups, key=_RANK):
            gid, kind, norm = group.id, group.type, group.norm
            sig = signature(kind, norm)
            static[gid] = ((group.priority, kind, norm), sig)
            ordered = sorted(sig.words, key=where)
            n = len(ordered)
            least, cut = share(n)
            leading = ordered[:cut]
            if (of_postings := postings.get(kind)) is None:
                of_postings = postings[kind] = {}
                leads[kind] = {}
            if kind in CHOICE_TYPES:
                probing = ordered[: n - math.ceil(probe(n) * n) + 1]
                for other in _gathered(of_postings, probing, gid):
                    if contradicts(sig, static[other][1]):
                        conflicts += [(gid, other), (other, gid)]
            else:
                probing = leading
            for token in probing:
                if (posted_ := of_postings.get(token)) is None:
                    of_postings[token] = [gid]
                else:
                    posted_.append(gid)
            of_kind = leads[kind]
            found = _reaching(of_kind, leading, n, least) if of_kind and n else None
            leader = pick(group, found) if found else gid  # no candidate: it leads
            leader_of[gid] = leader
            if leader == gid:
                for j, token in enumerate(leading):
                    if (buckets := of_kind.get(token)) is None:
                        of_kind[token] = {(n, j): [gid]}
                    elif (bucket := buckets.get((n, j))) is None:
                        buckets[(n, j)] = [gid]
                    else:
                        bucket.append(gid)
        return postings, leader_of, conflicts

    def keep_counts(self, counts: dict[str, int]) -> None:
        """Store the token counts of a full build (one row: they are read and written whole)."""
        self.db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (COUNTS, json.dumps(counts)))
        self._order = counts

    def counts(self) -> dict[str, int]:
        """The token counts the order of prefixes is taken in (as of the last full build)."""
        if self._order is None:
            row = self.db.execute("SELECT value FROM meta WHERE key = ?", (COUNTS,)).fetchone()
            self._order = json.loads(row[0]) if row else {}
        return self._order

    def postings(self) -> Iterator[tuple[str, str, int]]:
        """Every (type, token, group) posted."""
        for kind, token, gids in self.db.execute("SELECT type, token, gids FROM postings"):
            for gid in unpacked(gids):
                yield kind, token, gid

    def _prefix(self, group: Group, least: Callable[[int], float]) -> list[str]:
        """The tokens two sets that meet `least` share at least one of (each set uses its own share: a
        pair must meet the higher of the two, so the longer prefix of the two is always enough)."""
        counts = self.counts()
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

    def _candidates(self, group: Group, least: Callable[[int], float], *, leaders: bool = False,
                    sizes: tuple[float, float] | None = None) -> list[int]:
        """Groups sharing a prefix token with `group` (those leading a cluster, with `leaders`; with
        `sizes`, of a word count between them)."""
        tokens = self._prefix(group, least)
        if not tokens:
            return []
        query = (f"SELECT DISTINCT g.id FROM postings p, json_each(p.gids) j JOIN groups g ON g.id = j.value "  # noqa: S608
                 f"WHERE p.type = ? AND p.token IN ({','.join('?' * len(tokens))}) AND g.id != ?")
        params: tuple = (group.type, *tokens, group.id)
        if leaders:
            query += " AND g.leader = g.id"
        if sizes:
            query += " AND g.nwords BETWEEN ? AND ?"
            params += sizes
        return [gid for gid, in self.db.execute(query, params)]

    def _post(self, group: Group, *, add: bool) -> None:
        """Post the group under its prefix's tokens, or take it off them (a token's groups are one row)."""
        for token in self._prefix(group, posted(group.type)):
            row = self.db.execute("SELECT gids FROM postings WHERE type = ? AND token = ?",
                                  (group.type, token)).fetchone()
            gids = set(unpacked(row[0])) if row else set()
            if add:
                gids.add(group.id)
            else:
                gids.discard(group.id)
            if gids:
                self.db.execute("INSERT OR REPLACE INTO postings(type, token, gids) VALUES (?, ?, ?)",
                                (group.type, token, packed(sorted(gids))))
            elif row:
                self.db.execute("DELETE FROM postings WHERE type = ? AND token = ?", (group.type, token))

    def _similar(self, group: Group) -> list[Group]:
        """The groups similar to `group` (its followers among them): those a change of it may affect."""
        sig = signature(group.type, group.norm)
        found = [gid for gid in self._candidates(group, threshold) if similar(sig, self.about(gid)[1])]
        return [self.group(gid) for gid in found]

    def _best_leader(self, group: Group) -> int:
        """The most similar leader of higher priority (ties: the higher priority), else the group itself."""
        size = len(signature(group.type, group.norm).words)
        sizes = (THRESHOLD * size, size / THRESHOLD)  # Jaccard >= t needs t|A| <= |B| <= |A|/t
        return self._pick(group, self._candidates(group, threshold, leaders=True, sizes=sizes) if size else ())

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
        static = self._static
        for gid in leaders:
            rank, theirs = static.get(gid) or self.about(gid)
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
        self._post(group, add=True)
        if group.type in CHOICE_TYPES:
            sig = signature(group.type, group.norm)
            rows = [(a, b) for other in self._candidates(group, probe)
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
            if last:
                continue  # built in priority order: no group of lower priority exists yet
            for other in self._similar(group):
                if other.rank > group.rank and other.id not in done:
                    heapq.heappush(heap, (*other.rank, other.id))

    def drop(self, group: Group) -> None:
        self.db.execute("DELETE FROM groups WHERE id = ?", (group.id,))
        self.db.execute("DELETE FROM backing WHERE gid = ?", (group.id,))
        self._static.pop(group.id, None)
        self._post(group, add=False)
        self.db.execute("DELETE FROM conflicts WHERE a = ? OR b = ?", (group.id, group.id))
        if group.leader == group.id:
            affected = [g for g in self._similar(group) if g.rank > group.rank]
            self.db.executemany("UPDATE groups SET leader = -1 WHERE id = ? AND leader = ?",
                                [(g.id, group.id) for g in affected])
            self._decide([Group(g.id, g.type, g.norm, g.priority, -1 if g.leader == group.id else g.leader)
                          for g in affected])


def posted(type_: str) -> Callable[[int], float]:
    """The share a group's prefix in the postings is taken for: the merge threshold's (what similar
    groups share, `similar`), a choice's the contradictions' (`probe`, the longer prefix)."""
    return probe if type_ in CHOICE_TYPES else threshold


def packed(gids: Iterable[int]) -> str:
    """A token's groups as its postings row holds them: a JSON list, which SQLite reads (json_each)."""
    return f"[{','.join(map(str, gids))}]"


def unpacked(text: str) -> list[int]:
    """A token's groups from its postings row."""
    return json.loads(text)


def _gathered(postings: dict[str, list[int]], tokens: list[str], gid: int) -> set[int]:
    """The groups posted under any of `tokens` (the postings of one type), but `gid`."""
    found: set[int] = set()
    for token in tokens:
        found.update(postings.get(token, ()))
    found.discard(gid)
    return found


@lru_cache(maxsize=None)
def _share(words: int) -> tuple[float, int]:
    """The Jaccard a group of `words` words needs to merge, and the length of its prefix for it."""
    least = threshold(words)
    return least, words - math.ceil(least * words) + 1


def _places(counts: dict[str, int]) -> dict[str, int]:
    """Each word's place in the token order: rarest first (by `counts`, which counts every word of
    the groups placed), then alphabetical."""
    words = sorted(counts)
    words.sort(key=counts.__getitem__)  # stable: by count, the alphabetical order kept within one
    return {word: i for i, word in enumerate(words)}


def _reaching(leads: dict[str, dict[tuple[int, int], list[int]]], prefix: list[str], size: int,
              least: float) -> set[int]:
    """The leaders posted under `prefix` (of a group of `size` words) that may reach Jaccard `least`
    with it, by PPJoin's length and position filters: Jaccard >= t needs |B| between t|A| and |A|/t,
    and t/(1+t)(|A|+|B|) words in common; the words two sets share before their first shared word w
    (in the token order) are none, so at w at most w and the fewer of the words after w in either
    remain. A leader is kept when some word of the prefix passes that test as if it were the first
    shared one (the first shared word is in both prefixes, and the test at any later word is only
    stricter), so only pairs that cannot be similar are left out: `_pick` tests the rest. The
    leaders are kept by (their words, the word's place in their prefix), so a test passes or fails
    a whole bucket. `EPS` leans every bound toward keeping a pair (floating point)."""
    low, high, share = least * size - EPS, size / least + EPS, least / (1 + least)
    found: set[int] = set()
    for i, token in enumerate(prefix):
        buckets = leads.get(token)
        if buckets is None:
            continue
        after = size - i - 1
        for (other, j), gids in buckets.items():
            if other < low or other > high:
                continue
            left = other - j - 1
            if 1 + (left if left < after else after) >= share * (size + other) - EPS:
                found.update(gids)
    return found
