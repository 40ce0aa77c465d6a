"""Reading a scope's Memory: the clusters worth rendering, and the learnings that may reach `main`.

Functions over the Memory's database (memgit.consolidate.heuristic.memory): the clusters are read
from its groups, each group's leader and the contradictions between them, as the cluster
assignment (memgit.consolidate.heuristic.leaders) left them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass

from memgit.consolidate.heuristic.graph import Cluster, Occurrence, desc, normalise, rank_key
from memgit.extract.heuristic.standing import configured_file


@dataclass(slots=True)
class View:
    """What a consolidation renders: the clusters worth listing, strongest first, and the counts of all."""

    clusters: list[Cluster]  # every cluster seen in 2+ sessions or in a contradiction, and the most
    #                          recent single-session ones of each type
    holding: int  # clusters that hold (not superseded), listed or not
    superseded: int
    left_out: dict[str, int]  # single-session clusters of each type not listed


def view(db: sqlite3.Connection, singles: int | None = 40) -> View:
    """The clusters worth rendering: all of two or more sessions, all in a contradiction, and the
    `singles` most recent single-session clusters of each type (all of them when None)."""
    # Clusters of one group are most of a large scope: SQLite picks them; Python sees a few hundred.
    db.execute("CREATE TEMP TABLE IF NOT EXISTS wide(leader INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM wide")
    db.execute("INSERT INTO wide SELECT leader FROM groups GROUP BY leader HAVING COUNT(*) > 1 "
               "UNION SELECT g.leader FROM conflicts c JOIN groups g ON g.id = c.a")
    total = db.execute("SELECT COUNT(*) FROM groups WHERE leader = id").fetchone()[0]
    chosen = [leader for leader, in db.execute(
        "SELECT leader FROM wide UNION SELECT id FROM groups WHERE leader = id AND sessions > 1")]
    left_out: dict[str, int] = {}
    wide = {leader for leader, in db.execute("SELECT leader FROM wide")}
    lonely = "FROM groups WHERE leader = id AND sessions <= 1 AND type = ?"  # the groups_lonely index
    for kind, in db.execute("SELECT DISTINCT type FROM groups"):
        if singles is None:
            found = [gid for gid, in db.execute(f"SELECT id {lonely}", (kind,)) if gid not in wide]  # noqa: S608
        else:
            found = [gid for gid, in db.execute(
                f"SELECT id {lonely} ORDER BY latest DESC, norm LIMIT ?", (kind, singles + len(wide)))  # noqa: S608
                if gid not in wide][:singles]
            n = db.execute(f"SELECT COUNT(*) {lonely}", (kind,)).fetchone()[0]  # noqa: S608
            n -= len(_lonely(db, kind))  # counted above, but listed with the wide clusters
            left_out[kind] = max(0, n - singles)
        chosen += found
    of_leader = _clusters(db, chosen)
    for a, b in db.execute("SELECT ga.leader, gb.leader FROM conflicts c JOIN groups ga ON ga.id = c.a "
                           "JOIN groups gb ON gb.id = c.b"):
        cluster, other = of_leader[a], of_leader[b]
        if other is cluster or desc(other.recency) > desc(cluster.recency):
            continue  # the other is older: it does not supersede this one
        if desc(other.recency) == desc(cluster.recency) and normalise(other.text) <= normalise(cluster.text):
            continue  # the same age: the later text in sort order holds, so the result is deterministic
        current = cluster.superseded_by
        if current is None or rank_key(other) < rank_key(current):
            cluster.superseded_by = other
    _latest_state_holds(of_leader.values())
    superseded = sum(1 for c in of_leader.values() if c.superseded_by is not None)
    return View(sorted(of_leader.values(), key=rank_key), total - superseded, superseded, left_out)


def _latest_state_holds(clusters: Iterable[Cluster]) -> None:
    """Of the statements of one configuration file's state (memgit.extract.heuristic.checks), the most recent
    holds and supersedes the others, whatever their words: the file changed between them."""
    latest: dict[str, Cluster] = {}
    described = [(path, c) for c in clusters if (path := configured_file(c.text))]
    for path, c in described:
        held = latest.get(path)
        if held is None or (desc(c.recency), normalise(c.text)) < (desc(held.recency), normalise(held.text)):
            latest[path] = c
    for path, c in described:
        if c is not latest[path] and c.superseded_by is None:
            c.superseded_by = latest[path]


def clusters_of(db: sqlite3.Connection, leaders: Iterable[int]) -> list[Cluster]:
    """The clusters these groups lead, with every member (not which supersedes which: `view` says that)."""
    return list(_clusters(db, leaders).values())


def _under(prefix: str) -> tuple[str, tuple[str, str]]:
    """The condition (over members as `m`) of a note under the folder `prefix`, and its arguments."""
    return "(m.path >= ? AND m.path < ?)", (prefix + "/", prefix + "0")  # "0" follows "/"


def leaders_with(db: sqlite3.Connection, prefix: str, kind: str) -> set[int]:
    """The clusters (by leader) of type `kind` holding a learning of a note under the folder `prefix`."""
    under, args = _under(prefix)
    return {leader for leader, in db.execute(
        f"SELECT DISTINCT g.leader FROM members m JOIN groups g ON g.id = m.gid WHERE {under} AND g.type = ?",  # noqa: S608
        (*args, kind))}


def members_under(db: sqlite3.Connection, prefix: str, *, but: str = "") -> list[tuple[str, str, str]]:
    """(path, type, text) of the learnings of the notes under the folder `prefix`, but those of type `but`."""
    under, args = _under(prefix)
    return db.execute(f"SELECT m.path, g.type, m.text FROM members m JOIN groups g ON g.id = m.gid "  # noqa: S608
                      f"WHERE {under} AND g.type != ?", (*args, but)).fetchall()


def group_texts(db: sqlite3.Connection, *, whole: str) -> list[tuple[int, str, str]]:
    """(leader, type, norm) of every group; for the groups of type `whole`, whose norm is no text of
    theirs (a command's key), (leader, type, text) of each member instead."""
    return [*db.execute("SELECT leader, type, norm FROM groups WHERE type != ?", (whole,)),
            *db.execute("SELECT g.leader, g.type, m.text FROM groups g JOIN members m ON m.gid = g.id "
                        "WHERE g.type = ?", (whole,))]


def _clusters(db: sqlite3.Connection, leaders: Iterable[int]) -> dict[int, Cluster]:
    db.execute("CREATE TEMP TABLE IF NOT EXISTS chosen(leader INTEGER PRIMARY KEY)")
    db.execute("DELETE FROM chosen")
    db.executemany("INSERT OR IGNORE INTO chosen(leader) VALUES (?)", ((leader,) for leader in leaders))
    of_leader: dict[int, Cluster] = {}
    # Note by note, then the members of the chosen groups in one range each: joining the two in
    # SQLite would look up a note per member, the slowest part of a 10k-note scope's view.
    notes = {path: (session or path, when, source, title) for path, session, when, source, title in
             db.execute('SELECT path, session, "when", source, title FROM notes')}
    for leader, kind, text, path in db.execute(
            # CROSS JOIN keeps this order (chosen -> their groups -> members): SQLite would rather
            # scan every member. The order of the rows does not matter to a Cluster.
            "SELECT g.leader, g.type, m.text, m.path "
            "FROM chosen c CROSS JOIN groups g ON g.leader = c.leader CROSS JOIN members m ON m.gid = g.id"):
        cluster = of_leader.get(leader)
        if cluster is None:
            cluster = of_leader[leader] = Cluster(kind)
        cluster.occurrences.append(Occurrence(kind, text, path, *notes[path]))
    return of_leader


def _lonely(db: sqlite3.Connection, kind: str) -> set[int]:
    return {gid for gid, in db.execute(
        "SELECT id FROM groups WHERE leader = id AND sessions <= 1 AND type = ? AND id IN (SELECT leader FROM wide)",
        (kind,))}


def portable(db: sqlite3.Connection, source: str, paths: Iterable[str] | None = None) -> list[Occurrence]:
    """The learnings that may reach `main` (see scope.py), named as of branch `source`; of the
    notes at `paths` only, when given."""
    where = ""
    if paths is not None:
        db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted(path TEXT PRIMARY KEY)")
        db.execute("DELETE FROM wanted")
        db.executemany("INSERT OR IGNORE INTO wanted(path) VALUES (?)", ((p,) for p in paths))
        where = "AND m.path IN (SELECT path FROM wanted)"
    return [Occurrence(kind, text, path, session or path, when, source, title)
            for kind, text, path, session, when, title in db.execute(
                'SELECT g.type, m.text, m.path, n.session, n."when", n.title FROM members m '
                f"JOIN groups g ON g.id = m.gid JOIN notes n ON n.path = m.path WHERE m.portable = 1 {where} "  # noqa: S608
                "ORDER BY m.path, m.seq")]


def portable_versions(db: sqlite3.Connection) -> dict[str, str]:
    """The notes holding a portable learning, and their versions."""
    return dict(db.execute("SELECT DISTINCT n.path, n.version FROM members m JOIN notes n ON n.path = m.path "
                           "WHERE m.portable = 1"))
