"""The rows of one file in the search index (memgit.store.search_index): written (its units, their
words, its subjects' words) and removed again."""

from __future__ import annotations

from memgit.core import search, search_units
from memgit.store.search_reader import subject_units


def drop(db, branch: str, path: str | None) -> int:
    """Remove the documents of one file (a path), one directory (ending in /) or a whole branch (None)."""
    if path is None:
        where, args = "branch=?", (branch,)
    elif path.endswith("/"):
        where, args = "branch=? AND path >= ? AND path < ?", (branch, path, path[:-1] + "0")  # "0" follows "/"
    else:
        where, args = "branch=? AND path=?", (branch, path)
    subjects = [row[0] for row in db.execute(f"SELECT id FROM subjects WHERE {where}", args)]
    if subjects:
        words = _subject_words(db, subjects)
        db.executemany("INSERT INTO subject_fts (subject_fts, rowid, text) VALUES ('delete', ?, ?)", words.items())
        db.executemany("DELETE FROM subject_units WHERE subject=?", ((i,) for i in subjects))
        db.execute(f"DELETE FROM subjects WHERE {where}", args)
    db.execute(f"DELETE FROM superseded WHERE {where}", args)
    db.execute(f"DELETE FROM team_notes WHERE {where}", args)
    ids = [row[0] for row in db.execute(f"SELECT id FROM docs WHERE {where}", args)]
    if ids:
        db.executemany("DELETE FROM fts WHERE rowid=?", ((i,) for i in ids))
        db.execute(f"DELETE FROM docs WHERE {where}", args)
    return len(ids)


def _subject_words(db, subjects: list[int]) -> dict[int, str]:
    """The words each subject gave the contentless subject index, made again from its units."""
    units: dict[int, list[search.Doc]] = {}
    for start in range(0, len(subjects), 500):
        units.update(subject_units(db, subjects[start:start + 500]))
    return {s: search_units.file_text(units.get(s, [])) for s in subjects}


def insert(db, files: list[list[search.Doc]]) -> int:
    """Write the documents of some files: their rows, their text into FTS5 (under ids given here),
    and the words of each subject (search_units.subjects) as a whole; return how many are searchable. A
    superseded learning is kept by its text's key alone (memgit.store.search_index._marked_again)."""
    if not files:
        return 0
    from memgit.core.superseded import key

    next_subject = db.execute("SELECT coalesce(max(id), 0) + 1 FROM subjects").fetchone()[0]
    next_doc = db.execute("SELECT coalesce(max(id), 0) + 1 FROM docs").fetchone()[0]
    subjects, subject_words, members, rows, words, marked = [], [], [], [], [], []
    for docs in files:
        subject_of = {}
        for subject in search_units.subjects(docs):
            subjects.append((next_subject, docs[0].branch, docs[0].path))
            subject_words.append((next_subject, search_units.file_text(subject)))
            subject_of.update((id(d), next_subject) for d in subject)
            next_subject += 1
        for d in docs:
            if d.kind == "superseded":
                marked.append((d.branch, d.path, key(d.text)))
                continue
            rows.append((next_doc, d.branch, d.path, d.unit, d.kind, d.type, d.session, d.date, d.support, d.title))
            # A learning's title is its note's, a MEMORY.md line's its topic: shown, not searched (a
            # long title would lengthen the document and lower its BM25 against the same words elsewhere).
            words.append((next_doc, "" if d.kind in search_units.BORROWED_TITLE else d.title, d.text))
            if id(d) in subject_of:
                members.append((next_doc, subject_of[id(d)]))
            next_doc += 1
    db.executemany("INSERT INTO subjects (id, branch, path) VALUES (?, ?, ?)", subjects)
    db.executemany("INSERT INTO subject_fts (rowid, text) VALUES (?, ?)", subject_words)
    db.executemany("INSERT INTO docs (id, branch, path, unit, kind, type, session, date, support, title) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    db.executemany("INSERT INTO fts (rowid, title, text) VALUES (?, ?, ?)", words)
    db.executemany("INSERT INTO subject_units (doc, subject) VALUES (?, ?)", members)
    db.executemany("INSERT INTO superseded (branch, path, key) VALUES (?, ?, ?)", marked)
    return len(words)
