"""The search index: SQLite FTS5 at `.git/memgit/search.sqlite`, derived from the branches' files.

A cache like the others under `.git/memgit/`: deleting it changes nothing but speed, a corrupt or
older-schema file is rebuilt. `update` brings it up to date branch by branch from the heads it
last indexed (only the directories whose trees changed are compared); `query` and `indexed_heads`
read it without dulwich (the prompt hook calls them), so nothing here imports memgit.store.repo.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Sequence

from memgit.core import search
from memgit.core.vocab import MAIN, PREFIX

FILE = "search.sqlite"
SCHEMA = 3  # bump when the tables or documents() change: every branch is indexed again
DIRS = ("sessions", "notes", "skills", "imported")  # compared as trees: unchanged ones cost one lookup
ROOT_FILES = (search.MEMORY_FILE, search.SUMMARY_FILE)  # compared by content
PROJECT_FILE = "PROJECT.md"  # its identities are kept too: search finds the cwd's project without the repository
SNIPPET_TOKENS = 14
BATCH = 200  # blobs from which `git cat-file --batch` reads them
TITLE_WEIGHT, TEXT_WEIGHT = 0.5, 1.0
BORROWED_TITLE = ("learning", "memory")

_TABLES = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE heads (branch TEXT PRIMARY KEY, sha TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE docs (id INTEGER PRIMARY KEY, branch TEXT NOT NULL, path TEXT NOT NULL, unit INTEGER NOT NULL,
                   kind TEXT NOT NULL, type TEXT NOT NULL, session TEXT NOT NULL, date TEXT NOT NULL,
                   support INTEGER NOT NULL, title TEXT NOT NULL);
CREATE INDEX docs_file ON docs (branch, path);
CREATE VIRTUAL TABLE fts USING fts5(title, text, tokenize='porter unicode61');
INSERT INTO meta VALUES ('schema', '{SCHEMA}');
"""


def filters(*, branches: Sequence[str] | None, types: Sequence[str] = (), kinds: Sequence[str] = (),
            since: str | None = None) -> tuple[list[str], list]:
    """The WHERE terms (over the `docs` table as `d`) and their arguments of a search's filters.

    branches=None is every branch, [] none; empty types or kinds are every one.
    """
    where: list[str] = []
    args: list = []
    for column, values in (("d.branch", branches), ("d.type", types), ("d.kind", kinds)):
        if values is not None and (values or column == "d.branch"):
            where.append(f"{column} IN ({','.join('?' * len(values))})")
            args += list(values)
    if since:
        where.append("d.date >= ?")
        args.append(since)
    return where, args


def _log():
    """This module's logger; logging (and hashlib, in _index_branch) is imported when needed: the
    prompt hook reads the index at every prompt and never logs from here on its way."""
    import logging

    return logging.getLogger("memgit.store.search_index")


def path_of(state_dir) -> str:
    return os.path.join(os.fspath(state_dir), FILE)


def _connect(state_dir, *, create: bool) -> sqlite3.Connection | None:
    """The index opened, its schema checked; a missing, corrupt or older one is made anew when `create`."""
    path = path_of(state_dir)
    if not create and not os.path.exists(path):
        return None
    for attempt in (1, 2):
        try:
            if create:
                os.makedirs(os.path.dirname(path), exist_ok=True)
            db = sqlite3.connect(path, timeout=10, isolation_level=None)
            db.execute("PRAGMA synchronous=OFF")  # a cache: a crash costs a rebuild, never data
            row = db.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone()
            if row and db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA),):
                return db
            if not create:
                db.close()
                return None
            if row is None and not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                db.executescript(_TABLES)
                return db
            db.close()  # another schema, or tables of something else: start again
        except sqlite3.DatabaseError as e:
            if not create:
                return None
            _log().warning("search index %s is unreadable (%s); rebuilding it", path, e)
        _remove(path)
    return None


def _remove(path: str) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except OSError:
            pass


def indexed_heads(state_dir) -> dict[str, str]:
    """Each branch and the head it was indexed at; {} when there is no usable index."""
    try:
        db = _connect(state_dir, create=False)
        if db is None:
            return {}
        try:
            return dict(db.execute("SELECT branch, sha FROM heads").fetchall())
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return {}


def update(repo, state_dir) -> dict:
    """Bring the index up to date with every memgit branch of `repo` (a MemoryRepo); return counts.

    Per branch, the directories whose trees changed since the head last indexed are compared and
    their changed files indexed again; a branch whose history was rewritten (the old head is not
    an ancestor of the new one) or whose old trees are gone is indexed whole; a deleted branch
    leaves the index. An unreadable index file is removed and built again.

    Returns:
        {"branches": moved branches, "added": documents written, "removed": documents dropped,
         "rebuilt": branches indexed whole}
    """
    counts = {"branches": 0, "added": 0, "removed": 0, "rebuilt": 0}
    heads = {b: sha for b, sha in repo.branches().items() if b == MAIN or b.startswith(PREFIX)}
    for attempt in (1, 2):
        db = _connect(state_dir, create=True)
        if db is None:
            return counts
        try:
            _update(db, repo, heads, counts)
            return counts
        except sqlite3.DatabaseError as e:
            db.close()
            if attempt == 2:
                raise
            _log().warning("search index %s failed (%s); rebuilding it", path_of(state_dir), e)
            _remove(path_of(state_dir))
            counts = dict.fromkeys(counts, 0)
        finally:
            db.close()
    return counts


def _update(db: sqlite3.Connection, repo, heads: dict[str, str], counts: dict) -> None:
    db.execute("BEGIN IMMEDIATE")  # one writer at a time; a second one waits, then finds little to do
    try:
        known = {b: (sha, json.loads(state)) for b, sha, state in db.execute("SELECT branch, sha, state FROM heads")}
        for branch in known.keys() - heads.keys():
            counts["removed"] += _drop(db, branch, None)
            db.execute("DELETE FROM heads WHERE branch=?", (branch,))
        for branch, head in sorted(heads.items()):
            old_sha, old_state = known.get(branch, (None, {}))
            if old_sha == head:
                continue
            counts["branches"] += 1
            whole = old_sha is None or not repo.is_ancestor(old_sha, head)
            if whole and old_sha is not None:
                counts["removed"] += _drop(db, branch, None)
                old_state = {}
            state = _index_branch(db, repo, branch, head, old_state, counts)
            if whole:
                counts["rebuilt"] += 1
            db.execute("INSERT OR REPLACE INTO heads VALUES (?, ?, ?)", (branch, head, json.dumps(state)))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _index_branch(db, repo, branch: str, head: str, old: dict, counts: dict) -> dict:
    """Index what changed in one branch since the state `old` ({} for all); return the new state."""
    from hashlib import sha1

    state, docs = {}, []
    for directory in DIRS:
        tree = repo.tree_id(head, directory)
        state[directory] = tree
        if tree == old.get(directory):
            continue
        changes = repo.tree_changes(old.get(directory), tree, directory) if old.get(directory) else None
        if changes is None:  # first time, or the old tree is gone: every file, after dropping the old ones
            counts["removed"] += _drop(db, branch, directory + "/")
            changes = repo.tree_changes(None, tree, directory) if tree else {}
        elif changes:
            counts["removed"] += sum(_drop(db, branch, path.lstrip("/")) for path in changes)
        wanted = {path.lstrip("/"): blob for path, blob in changes.items()
                  if blob is not None and search.indexed(path.lstrip("/"))}
        contents = _read_blobs(repo, set(wanted.values()))
        for path, blob in wanted.items():
            docs += search.documents(branch, path, contents[blob].decode("utf-8", "replace"))
    data = repo.read(head, PROJECT_FILE) if branch.startswith(PREFIX) else None
    state["project"] = _identities(branch, data)
    for name in ROOT_FILES:
        data = repo.read(head, name)
        digest = sha1(data).hexdigest() if data is not None else None
        state[name] = digest
        if digest == old.get(name):
            continue
        counts["removed"] += _drop(db, branch, name)
        if data is not None:
            docs += search.documents(branch, name, data.decode("utf-8", "replace"))
    counts["added"] += _insert(db, docs)
    return state


def _read_blobs(repo, ids: set[str]) -> dict[str, bytes]:
    """The contents of blobs by id: many at once by `git cat-file --batch` (10,000 notes in ~0.2 s,
    where dulwich takes ~1.3 s), else (no git, a failure, a few) one by one through the repository."""
    import shutil
    import subprocess  # here, not at the top: the prompt hook imports this module at every prompt

    if len(ids) >= BATCH and (git := shutil.which("git")):
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # memgit may run in a git hook
        env["GIT_CONFIG_NOSYSTEM"] = "1"
        try:
            done = subprocess.run([git, "--no-replace-objects", "--git-dir", str(repo.git_dir), "cat-file", "--batch"],
                                  input="\n".join(ids).encode() + b"\n", capture_output=True, env=env, check=True)
            return _parse_batch(done.stdout, len(ids))
        except (OSError, subprocess.CalledProcessError, ValueError) as e:
            _log().debug("git cat-file --batch failed (%s); reading through dulwich", e)
    return {blob: repo.read_blob(blob) for blob in ids}


def _parse_batch(out: bytes, count: int) -> dict[str, bytes]:
    contents, at = {}, 0
    for _ in range(count):
        end = out.index(b"\n", at)
        sha, kind, size = out[at:end].decode().split(" ")
        if kind != "blob":
            raise ValueError(f"{sha} is a {kind}")
        at = end + 1 + int(size)
        contents[sha] = out[end + 1:at]
        at += 1  # the newline after the content
    return contents


def _identities(branch: str, data: bytes | None) -> dict | None:
    if data is None:
        return None
    try:
        from memgit.core import scopes  # the update side only: the prompt hook's query needs none

        p = scopes.parse_project_md(data.decode("utf-8", "replace"), branch)
    except ValueError:  # sync reports a broken PROJECT.md; until it is mended no cwd resolves there
        return None
    return {"branch": p.branch, "name": p.name, "remotes": list(p.remotes), "paths": list(p.paths)}


def projects(state_dir) -> list[dict]:
    """Each project branch's identities as its PROJECT.md held them when indexed (branch, name,
    remotes, paths: what memgit.sources.workspace.resolve_cwd takes); [] without an index."""
    try:
        db = _connect(state_dir, create=False)
        if db is None:
            return []
        try:
            states = [json.loads(state) for (state,) in db.execute("SELECT state FROM heads ORDER BY branch")]
        finally:
            db.close()
    except (sqlite3.DatabaseError, ValueError):
        return []
    return [s["project"] for s in states if s.get("project")]


def _drop(db, branch: str, path: str | None) -> int:
    """Remove the documents of one file (a path), one directory (ending in /) or a whole branch (None)."""
    if path is None:
        where, args = "branch=?", (branch,)
    elif path.endswith("/"):
        where, args = "branch=? AND path >= ? AND path < ?", (branch, path, path[:-1] + "0")  # "0" follows "/"
    else:
        where, args = "branch=? AND path=?", (branch, path)
    ids = [row[0] for row in db.execute(f"SELECT id FROM docs WHERE {where}", args)]
    if ids:
        db.executemany("DELETE FROM fts WHERE rowid=?", ((i,) for i in ids))
        db.execute(f"DELETE FROM docs WHERE {where}", args)
    return len(ids)


def _insert(db, docs: list[search.Doc]) -> int:
    """Write documents in two batches (their rows, then their text into FTS5) under ids given here."""
    first = db.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
    db.executemany("INSERT INTO docs (id, branch, path, unit, kind, type, session, date, support, title) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   ((first + i, d.branch, d.path, d.unit, d.kind, d.type, d.session, d.date, d.support, d.title)
                    for i, d in enumerate(docs)))
    # A learning's title is its note's, a MEMORY.md line's its topic: shown, not searched (a long
    # title would lengthen the document and lower its BM25 against the same words elsewhere).
    db.executemany("INSERT INTO fts (rowid, title, text) VALUES (?, ?, ?)",
                   ((first + i, "" if d.kind in BORROWED_TITLE else d.title, d.text) for i, d in enumerate(docs)))
    return len(docs)


def query(state_dir, match: str, *, branches: Sequence[str] | None = None, types: Sequence[str] = (),
          kinds: Sequence[str] = (), since: str | None = None, limit: int = 50
          ) -> list[tuple[search.Doc, float, str]]:
    """The documents matching an FTS5 expression (memgit.core.search.match_expression), best BM25 first.

    Returns:
        (doc, bm25, snippet) triples: bm25 is SQLite's (lower is better), the snippet marks the
        matched words with [[ ]]. [] when there is no index or nothing matches.
    """
    if not match:
        return []
    where, args = filters(branches=branches, types=types, kinds=kinds, since=since)
    where, args = ["fts MATCH ?", *where], [match, *args]
    sql = (f"SELECT d.branch, d.path, d.unit, d.kind, d.type, d.title, fts.text, d.session, d.date, d.support, "
           f"bm25(fts, {TITLE_WEIGHT}, {TEXT_WEIGHT}) AS score, "
           f"snippet(fts, 1, '[[', ']]', '…', {SNIPPET_TOKENS}) "
           f"FROM fts JOIN docs d ON d.id = fts.rowid WHERE {' AND '.join(where)} ORDER BY score LIMIT ?")
    args.append(limit)
    try:
        db = _connect(state_dir, create=False)
        if db is None:
            return []
        try:
            rows = db.execute(sql, args).fetchall()
        finally:
            db.close()
    except sqlite3.OperationalError as e:  # an expression FTS5 refuses: nothing matches it
        _log().debug("search %r: %s", match, e)
        return []
    except sqlite3.DatabaseError:
        return []
    return [(search.Doc(*row[:10]), row[10], row[11]) for row in rows]


def common_words(state_dir, words: Sequence[str], *, share: float) -> set[str]:
    """The words found in more than `share` of the indexed documents ({} without an index).

    Each word is looked up as FTS5 would match it (stemmed), without ranking: a lookup stops one
    document past the share, so a word every note holds costs no more than a rare one. The prompt
    hook leaves such words out of its query (they weigh next to nothing in BM25, and ranking
    every document that holds them would cost more than the rest of the hook).
    """
    try:
        db = _connect(state_dir, create=False)
        if db is None:
            return set()
        try:
            # max(id) and not count(*): 0.1 ms against 10-20 ms for 60,000 documents; ids freed by
            # deletions make it an overestimate, which only lets a few more words through.
            enough = max(1, int(share * (db.execute("SELECT max(id) FROM docs").fetchone()[0] or 0)))
            common = set()
            for word in words:
                found = db.execute("SELECT count(*) FROM (SELECT rowid FROM fts WHERE fts MATCH ? LIMIT ?)",
                                   (search.match_expression(word) or '""', enough + 1)).fetchone()[0]
                if found > enough:
                    common.add(word)
            return common
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return set()
