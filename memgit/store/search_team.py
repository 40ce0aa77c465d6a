"""A shared project's teammates' notes in the search index (memgit.store.search_index): those the
reader may be told, under `team/<person>/…` on the reader's branch, each indexed again only when its
blob, or which of its learnings may be told, changed (the `team_notes` table keeps what each was
indexed at). Which notes and learnings, the caller says (memgit.verbs.team_memory.searchable).
"""

from __future__ import annotations

from hashlib import sha1

from memgit.core import teammates
from memgit.core import superseded as marks
from memgit.store.blobs import read_blobs
from memgit.store.search_rows import drop, insert


def index_team(db, repo, branch: str, superseded: list, notes: dict | None, counts: dict) -> None:
    """Index the teammates' notes of a shared project the reader may be told: a note again only when
    its blob, or which of its learnings may be told, changed; one no longer told leaves."""
    lookup = marks.Lookup([marks.Item(t, x, marks.key(x), marks.content_words(x), frozenset(p)) for t, x, p in superseded])
    wanted = {}
    for path, (blob, told) in (notes or {}).items():
        told = sorted(f"{kind} {text}" for kind, text in told if not lookup.covers(path, kind, text))
        if told:
            wanted[path] = (blob, told, sha1("\n".join([blob, *told]).encode()).hexdigest())
    known = dict(db.execute("SELECT path, version FROM team_notes WHERE branch=?", (branch,)))
    for path in sorted(p for p, version in known.items() if p not in wanted or wanted[p][2] != version):
        counts["removed"] += drop(db, branch, path)
    fresh = {path: w for path, w in wanted.items() if known.get(path) != w[2]}
    contents = read_blobs(repo, {blob for blob, _, _ in fresh.values()})
    files = [teammates.documents(branch, path, contents[blob].decode("utf-8", "replace"),
                                       [tuple(line.split(" ", 1)) for line in told])
             for path, (blob, told, _) in sorted(fresh.items())]
    counts["added"] += insert(db, [docs for docs in files if docs])
    db.executemany("INSERT INTO team_notes (branch, path, version) VALUES (?, ?, ?)",
                   [(branch, path, version) for path, (_, _, version) in fresh.items()])
