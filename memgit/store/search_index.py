"""The search index: SQLite FTS5 at `.git/memgit/search.sqlite`, derived from the branches' files.

A cache like the others under `.git/memgit/`: deleting it changes nothing but speed, a corrupt or
older-schema file is rebuilt. `update` brings it up to date branch by branch from the heads it
last indexed (only the directories whose trees changed are compared); memgit.store.search_reader
opens it to read (the prompt hook and search call it without this module), and nothing here
imports memgit.store.repo.

Two tables of words: `fts`, one row per search unit (a learning, a note's summary, a MEMORY.md
line...), which `memgit search` ranks; and `subject_fts`, one row per subject (a session note with
its learnings, a pinned note, a section of an imported file: memgit.core.search_units.subjects), which
the prompt hook weighs as a whole (memgit.core.recall). A learning MEMORY.md lists under
`## Superseded` is in neither: the `superseded` table keeps the key of its words and its note, so
that the note is indexed again when consolidation changes its mind. A shared project's branch also
holds the teammates' notes its reader may be told (memgit.store.search_team).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from memgit.core import search, search_units
from memgit.core.vocab import MAIN, PREFIX
from memgit.store.blobs import read_blobs
from memgit.store.search_reader import FILE, SCHEMA, indexed_heads, path_of, projects  # noqa: F401 (read there)
from memgit.store.search_rows import drop as _drop, insert as _insert
from memgit.store.sqlite import sqlite3

DIRS = ("sessions", "notes", "skills", "imported")  # compared as trees: unchanged ones cost one lookup
ROOT_FILES = (search.MEMORY_FILE, search.SUMMARY_FILE)  # compared by content
PROJECT_FILE = "PROJECT.md"  # its identities are kept too: search finds the cwd's project without the repository

_TABLES = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE heads (branch TEXT PRIMARY KEY, sha TEXT NOT NULL, state TEXT NOT NULL);
CREATE TABLE docs (id INTEGER PRIMARY KEY, branch TEXT NOT NULL, path TEXT NOT NULL, unit INTEGER NOT NULL,
                   kind TEXT NOT NULL, type TEXT NOT NULL, session TEXT NOT NULL, date TEXT NOT NULL,
                   support INTEGER NOT NULL, title TEXT NOT NULL);
CREATE INDEX docs_file ON docs (branch, path);
CREATE VIRTUAL TABLE fts USING fts5(title, text, tokenize='porter unicode61');
CREATE TABLE subjects (id INTEGER PRIMARY KEY, branch TEXT NOT NULL, path TEXT NOT NULL);
CREATE INDEX subjects_file ON subjects (branch, path);
CREATE TABLE subject_units (doc INTEGER PRIMARY KEY, subject INTEGER NOT NULL);
CREATE INDEX subject_units_of ON subject_units (subject);
-- Contentless: which subjects hold a word is all the prompt hook asks; a row is removed by giving
-- its words again, made again from its units (_subject_words) as search_units.file_text made them.
CREATE VIRTUAL TABLE subject_fts USING fts5(text, tokenize='porter unicode61', detail='none', content='');
CREATE TABLE scopes (branch TEXT PRIMARY KEY, subjects INTEGER NOT NULL);  -- counted once per update
-- Each subject's branch in one row, for the prompt hook (memgit.store.search_reader.Reader.branches: a lookup in
-- `subjects` per subject reads hundreds of its pages): `names`, the branches one per line; `of_id`, two bytes
-- (little-endian) per subject id: the line of its branch, counted from 1 (0: no such subject). Kept by update
-- from what its temporary triggers saw (_MOVED), once per update.
CREATE TABLE subject_branches (names TEXT NOT NULL, of_id BLOB NOT NULL);
CREATE TABLE superseded (branch TEXT NOT NULL, path TEXT NOT NULL, key TEXT NOT NULL);
CREATE INDEX superseded_key ON superseded (branch, key);
CREATE INDEX superseded_file ON superseded (branch, path);
-- A shared project's teammates' notes the reader may be told (team/<person>/…): the version each was indexed at.
CREATE TABLE team_notes (branch TEXT NOT NULL, path TEXT NOT NULL, version TEXT NOT NULL, PRIMARY KEY (branch, path));
INSERT INTO meta VALUES ('schema', '{SCHEMA}');
"""


# The subjects an update adds and removes, as its connection writes them (temporary: never in the file).
_MOVED = (
    "CREATE TEMP TABLE IF NOT EXISTS moved_subjects (id INTEGER NOT NULL, branch TEXT)",
    "CREATE TEMP TRIGGER IF NOT EXISTS subject_added AFTER INSERT ON main.subjects "
    "BEGIN INSERT INTO moved_subjects VALUES (new.id, new.branch); END",
    "CREATE TEMP TRIGGER IF NOT EXISTS subject_removed AFTER DELETE ON main.subjects "
    "BEGIN INSERT INTO moved_subjects VALUES (old.id, NULL); END",
)


def _log():
    """This module's logger; logging (and hashlib, in _index_branch) is imported when needed: the
    prompt hook reads the index at every prompt and never logs from here on its way."""
    import logging

    return logging.getLogger("memgit.store.search_index")


def _connect(state_dir) -> sqlite3.Connection | None:
    """The index opened to write, its schema checked; a missing, corrupt or older one is made anew."""
    path = path_of(state_dir)
    for attempt in (1, 2):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            db = sqlite3.connect(path, timeout=10, isolation_level=None)
            db.execute("PRAGMA synchronous=OFF")  # a cache: a crash costs a rebuild, never data
            row = db.execute("SELECT name FROM sqlite_master WHERE name='meta'").fetchone()
            if row and db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (str(SCHEMA),):
                return db
            if row is None and not db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                db.executescript(_TABLES)
                return db
            db.close()  # another schema, or tables of something else: start again
        except sqlite3.DatabaseError as e:
            _log().warning("search index %s is unreadable (%s); rebuilding it", path, e)
        _remove(path)
    return None


def _remove(path: str) -> None:
    for suffix in ("", "-journal", "-wal", "-shm"):
        try:
            os.unlink(path + suffix)
        except OSError:
            pass


def update(repo, state_dir, team: Callable[[str, str], dict | None] | None = None) -> dict:
    """Bring the index up to date with every memgit branch of `repo` (a MemoryRepo); return counts.

    Per branch, the directories whose trees changed since the head last indexed are compared and
    their changed files indexed again; a branch whose history was rewritten (the old head is not
    an ancestor of the new one) or whose old trees are gone is indexed whole; a deleted branch
    leaves the index. An unreadable index file is removed and built again. `team(branch, head)`
    says which teammates' notes a project branch that moved may tell ({`team/<person>/<path>`:
    (blob, its learnings (type, text) to tell)}, or None): the changed ones are indexed again.

    Returns:
        {"branches": moved branches, "added": documents written, "removed": documents dropped,
         "rebuilt": branches indexed whole}
    """
    counts = {"branches": 0, "added": 0, "removed": 0, "rebuilt": 0}
    heads = {b: sha for b, sha in repo.branches().items() if b == MAIN or b.startswith(PREFIX)}
    for attempt in (1, 2):
        db = _connect(state_dir)
        if db is None:
            return counts
        try:
            _update(db, repo, heads, counts, team)
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


def _update(db: sqlite3.Connection, repo, heads: dict[str, str], counts: dict, team) -> None:
    for statement in _MOVED:  # before the transaction: temporary, and nothing of the file's
        db.execute(statement)
    db.execute("BEGIN IMMEDIATE")  # one writer at a time; a second one waits, then finds little to do
    try:
        import json  # writing: sync's end, or a search that found the index stale

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
            if team is not None and branch.startswith(PREFIX):
                from memgit.store.search_team import index_team

                index_team(db, repo, branch, state["superseded"], team(branch, head), counts)
            if whole:
                counts["rebuilt"] += 1
            db.execute("INSERT OR REPLACE INTO heads VALUES (?, ?, ?)", (branch, head, json.dumps(state)))
            db.execute("INSERT OR REPLACE INTO scopes SELECT ?, count(*) FROM subjects WHERE branch=?",
                       (branch, branch))
        db.execute("DELETE FROM scopes WHERE branch NOT IN (SELECT branch FROM heads)")
        _note_subject_branches(db)
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _note_subject_branches(db: sqlite3.Connection) -> None:
    """Write into the subject_branches row the subjects this update added and removed (moved_subjects).

    The row grows with the highest subject id, which a note indexed again raises (a new id each time),
    until the next full build: two bytes per subject id ever given.
    """
    moved = db.execute("SELECT id, branch FROM temp.moved_subjects ORDER BY rowid").fetchall()
    if not moved:
        return
    row = db.execute("SELECT names, of_id FROM subject_branches").fetchone()
    names = row[0].split("\n") if row and row[0] else []
    of_id = bytearray(row[1]) if row else bytearray()
    number = {name: i for i, name in enumerate(names, 1)}
    for subject, branch in moved:  # in the order they happened: an id removed may be given again
        if branch is not None and branch not in number:
            names.append(branch)
            number[branch] = len(names)
        end = 2 * subject + 2
        if end > len(of_id):
            of_id.extend(bytes(end - len(of_id)))
        of_id[end - 2:end] = (number[branch] if branch is not None else 0).to_bytes(2, "little")
    db.execute("DELETE FROM subject_branches")
    db.execute("INSERT INTO subject_branches VALUES (?, ?)", ("\n".join(names), bytes(of_id)))
    db.execute("DELETE FROM temp.moved_subjects")


def _index_branch(db, repo, branch: str, head: str, old: dict, counts: dict) -> dict:
    """Index what changed in one branch since the state `old` ({} for all); return the new state."""
    from hashlib import sha1

    from memgit.core import superseded as marks

    memory = repo.read(head, search.MEMORY_FILE)
    items = marks.items(memory.decode("utf-8", "replace")) if memory is not None else []
    lookup = marks.Lookup(items)
    state, files = {"superseded": [[i.type, i.text, sorted(i.paths)] for i in items]}, {}
    # Notes whose learnings consolidation now judges otherwise (superseded, or no longer) are read again.
    again = _marked_again(db, branch, old.get("superseded", []) if old else [], state["superseded"])
    for directory in DIRS:
        tree = repo.tree_id(head, directory)
        state[directory] = tree
        if tree == old.get(directory):
            changes = {}
        else:
            changes = repo.tree_changes(old.get(directory), tree, directory) if old.get(directory) else None
        if changes is None:  # first time, or the old tree is gone: every file, after dropping the old ones
            counts["removed"] += _drop(db, branch, directory + "/")
            changes = repo.tree_changes(None, tree, directory) if tree else {}
        elif changes:
            counts["removed"] += sum(_drop(db, branch, path.lstrip("/")) for path in changes)
        changed = {path.lstrip("/") for path in changes}
        wanted = {path.lstrip("/"): blob for path, blob in changes.items()
                  if blob is not None and search_units.indexed(path.lstrip("/"))}
        contents = read_blobs(repo, set(wanted.values()))
        texts = {path: contents[blob] for path, blob in wanted.items()}
        for path in sorted(p for p in again if p.startswith(directory + "/") and p not in changed):
            counts["removed"] += _drop(db, branch, path)
            data = repo.read(head, path)
            if data is not None:
                texts[path] = data
        for path, data in texts.items():
            files[path] = search_units.documents(branch, path, data.decode("utf-8", "replace"), lookup)
    data = repo.read(head, PROJECT_FILE) if branch.startswith(PREFIX) else None
    state["project"] = _identities(branch, data)
    for name in ROOT_FILES:
        data = memory if name == search.MEMORY_FILE else repo.read(head, name)
        digest = sha1(data).hexdigest() if data is not None else None
        state[name] = digest
        if digest == old.get(name):
            continue
        counts["removed"] += _drop(db, branch, name)
        if data is not None:
            files[name] = search_units.documents(branch, name, data.decode("utf-8", "replace"))
    counts["added"] += _insert(db, [docs for docs in files.values() if docs])
    return state


def _marked_again(db, branch: str, before: list, after: list) -> set[str]:
    """The notes to read again because the superseded learnings changed from `before` to `after`:
    those the changed bullets link to, those holding a learning of the same words (a phrase of the
    unit index), and those keeping one as superseded (its key)."""
    changed = {tuple(x[:2]) + (tuple(x[2]),) for x in before} ^ {tuple(x[:2]) + (tuple(x[2]),) for x in after}
    if not changed:
        return set()
    from memgit.core import superseded as marks

    paths = {p for _, _, linked in changed for p in linked}
    for _, text, _ in changed:
        key = marks.key(text)
        paths.update(p for (p,) in db.execute("SELECT path FROM superseded WHERE branch=? AND key=?", (branch, key)))
        phrase = search.match_expression(f'"{key}"')
        if phrase:
            paths.update(p for (p,) in db.execute("SELECT d.path FROM fts JOIN docs d ON d.id = fts.rowid "
                                                  "WHERE fts MATCH ? AND d.branch=?", (phrase, branch)))
    return {p for p in paths if p.startswith("sessions/")}


def _identities(branch: str, data: bytes | None) -> dict | None:
    if data is None:
        return None
    try:
        from memgit.core import scopes  # the update side only: the prompt hook's query needs none

        p = scopes.parse_project_md(data.decode("utf-8", "replace"), branch)
    except ValueError:  # sync reports a broken PROJECT.md; until it is mended no cwd resolves there
        return None
    return {"branch": p.branch, "name": p.name, "remotes": list(p.remotes), "paths": list(p.paths)}
