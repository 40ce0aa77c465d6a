"""The embeddings of the search index's documents: `.git/memgit/semantic.sqlite`, a cache.

It follows the search index (memgit.store.search_index) rather than the repository: when the
heads that index was built at differ from the ones recorded here, every document's text is
hashed and only the texts not embedded yet go through the model; vectors are kept by text hash,
so a note re-indexed, moved or copied to another branch costs nothing. Deleting the file changes
nothing but speed; an unreadable file, another model or another search-index schema starts anew.

It reads the search index's own tables (docs, fts), so its SCHEMA is recorded here too.
Nothing here imports dulwich; numpy is imported only by the functions that need it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sqlite3
from collections.abc import Sequence

from memgit.core.search import Doc
from memgit.store import search_reader

log = logging.getLogger("memgit.store.semantic_index")
FILE = "semantic.sqlite"
SCHEMA = 2  # rows by (branch, path, unit): the search index's row ids change when it is rebuilt

_TABLES = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE vec (hash TEXT PRIMARY KEY, v BLOB NOT NULL);
CREATE TABLE rows (branch TEXT NOT NULL, path TEXT NOT NULL, unit INTEGER NOT NULL, hash TEXT NOT NULL,
                   PRIMARY KEY (branch, path, unit));
"""


def path_of(state_dir) -> str:
    return os.path.join(os.fspath(state_dir), FILE)


def _stamp(model: str) -> str:
    return json.dumps({"schema": SCHEMA, "model": model, "search_schema": search_reader.SCHEMA})


def _connect(state_dir, model: str) -> sqlite3.Connection:
    """The cache for `model`, made anew when missing, unreadable, or made for another model or schema."""
    path = path_of(state_dir)
    for attempt in (1, 2):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            db = sqlite3.connect(path, timeout=10, isolation_level=None)
            db.execute("PRAGMA synchronous=OFF")  # a cache: a crash costs a rebuild, never data
            if not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                db.executescript(_TABLES)
                db.execute("INSERT INTO meta VALUES ('stamp', ?)", (_stamp(model),))
            if db.execute("SELECT value FROM meta WHERE key='stamp'").fetchone() == (_stamp(model),):
                return db
            db.close()
        except sqlite3.DatabaseError as e:
            if attempt == 2:
                raise
            log.warning("semantic cache %s is unreadable (%s); rebuilding it", path, e)
        for suffix in ("", "-journal"):
            try:
                os.unlink(path + suffix)
            except OSError:
                pass
    raise sqlite3.DatabaseError(f"cannot make {path}")


def synced_heads(state_dir, model: str) -> dict[str, str] | None:
    """The search-index heads the cache matches, None when there is no usable cache for `model`."""
    if not os.path.exists(path_of(state_dir)):
        return None
    try:
        db = _connect(state_dir, model)
        try:
            row = db.execute("SELECT value FROM meta WHERE key='heads'").fetchone()
            return json.loads(row[0]) if row else None
        finally:
            db.close()
    except sqlite3.DatabaseError:
        return None


def update(state_dir, embedder) -> dict:
    """Embed what the search index holds that the cache does not; drop what it no longer holds.

    Returns:
        {"docs": documents mapped, "embedded": texts run through the model, "dropped": vectors removed}
    """
    counts = {"docs": 0, "embedded": 0, "dropped": 0}
    heads = search_reader.indexed_heads(state_dir)
    if synced_heads(state_dir, embedder.name) == heads:
        return counts
    source = sqlite3.connect(f"file:{search_reader.path_of(state_dir)}?mode=ro", uri=True)
    try:
        # One read transaction: the heads and the documents of the same moment.
        source.execute("BEGIN")
        heads = dict(source.execute("SELECT branch, sha FROM heads").fetchall())
        texts = source.execute("SELECT d.branch, d.path, d.unit, f.text FROM docs d JOIN fts f ON f.rowid = d.id"
                               ).fetchall()
        source.execute("COMMIT")
    finally:
        source.close()
    rows = {(b, p, u): hashlib.sha1(text.encode("utf-8", "replace")).hexdigest() for b, p, u, text in texts}
    by_hash = {rows[(b, p, u)]: text for b, p, u, text in texts}
    db = _connect(state_dir, embedder.name)
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            have = {h for (h,) in db.execute("SELECT hash FROM vec")}
            new = [h for h in by_hash if h not in have]
            for start in range(0, len(new), 512):
                batch = new[start:start + 512]
                vectors = embedder.embed([by_hash[h] for h in batch]).astype("float16")
                db.executemany("INSERT INTO vec VALUES (?, ?)", zip(batch, (v.tobytes() for v in vectors)))
            gone = have - by_hash.keys()
            db.executemany("DELETE FROM vec WHERE hash=?", ((h,) for h in gone))
            db.execute("DELETE FROM rows")
            db.executemany("INSERT INTO rows VALUES (?, ?, ?, ?)", (key + (h,) for key, h in rows.items()))
            db.execute("INSERT OR REPLACE INTO meta VALUES ('heads', ?)", (json.dumps(heads, sort_keys=True),))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.close()
    counts.update(docs=len(rows), embedded=len(new), dropped=len(gone))
    return counts


def query(state_dir, embedder, text: str, *, branches: Sequence[str] | None = None, types: Sequence[str] = (),
          since: str | None = None, limit: int = 50) -> list[tuple[Doc, float]]:
    """The documents nearest to `text` (cosine, best first), filtered as search_reader.query filters.

    Returns:
        (doc, cosine) pairs; [] when there is no cache or no search index.
    """
    import numpy as np

    if not os.path.exists(path_of(state_dir)) or not os.path.exists(search_reader.path_of(state_dir)):
        return []
    where, args = search_reader.filters(branches=branches, types=types, since=since)
    sql = ("SELECT d.id, v.v FROM rows r JOIN vec v ON v.hash = r.hash "
           "JOIN s.docs d ON d.branch = r.branch AND d.path = r.path AND d.unit = r.unit"
           + (f" WHERE {' AND '.join(where)}" if where else ""))
    try:
        db = _connect(state_dir, embedder.name)
        try:
            db.execute("ATTACH DATABASE ? AS s", (f"file:{search_reader.path_of(state_dir)}?mode=ro",))
            found = db.execute(sql, args).fetchall()
            if not found:
                return []
            matrix = np.frombuffer(b"".join(v for _, v in found), dtype=np.float16).reshape(len(found), -1)
            scores = matrix.astype(np.float32) @ embedder.embed([text])[0]
            best = np.argsort(-scores, kind="stable")[:limit]
            ids = [found[i][0] for i in best]
            docs = _docs(db, ids)
            return [(docs[found[i][0]], float(scores[i])) for i in best if found[i][0] in docs]
        finally:
            db.close()
    except sqlite3.DatabaseError as e:
        log.debug("semantic query: %s", e)
        return []


def _docs(db: sqlite3.Connection, ids: list[int]) -> dict[int, Doc]:
    marks = ",".join("?" * len(ids))
    rows = db.execute(f"SELECT d.id, d.branch, d.path, d.unit, d.kind, d.type, d.title, f.text, d.session, d.date, "
                      f"d.support FROM s.docs d JOIN s.fts f ON f.rowid = d.id WHERE d.id IN ({marks})", ids)
    return {row[0]: Doc(*row[1:]) for row in rows}
