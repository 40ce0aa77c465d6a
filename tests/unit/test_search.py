"""The pure part of search: files cut into units, queries made safe for FTS5, ranking."""

from __future__ import annotations

import sqlite3

import pytest

from memgit.core.search import Doc, match_expression, rank
from memgit.core.search_units import documents

NOTE = """---
session: claude-code/6f1c2e4a-0b1d-4c39-9a65-0c9d0f5a7e11
agent: claude-code
project: pinion
started: '2026-11-20T10:00:03Z'
keywords: [typesense, pytest]
---
# Fix Typesense sync tests

The user asked to fix the sync tests; they pass now.

## Learnings
- [command] Tests run with `uv run pytest -x tests/` (plain `pytest` misses the venv).
- [gotcha] `docker compose up` fails with "port 8108 in use" when a stale typesense runs.
"""

MEMORY = """# Memory: pinion

## Gotchas

- [gotcha] Port 8108 stays in use after a crash. — 3 sessions: [2026-11-20 6f1c2e4a](sessions/a.md), [2026-12-01 1234abcd](sessions/b.md)
- [fact] Plain line without support.
"""


def test_a_session_note_is_its_summary_and_one_unit_per_learning():
    docs = documents("projects/pinion", "sessions/2026/11/2026-11-20-fix-6f1c2e4a.md", NOTE)
    assert [(d.kind, d.type, d.unit) for d in docs] == [("note", "", 0), ("learning", "command", 1),
                                                        ("learning", "gotcha", 2)]
    assert {d.session for d in docs} == {"claude-code/6f1c2e4a-0b1d-4c39-9a65-0c9d0f5a7e11"}
    assert {d.date for d in docs} == {"2026-11-20"}
    assert docs[0].title == "Fix Typesense sync tests" and "they pass now" in docs[0].text
    assert docs[2].text.startswith("`docker compose up` fails")


def test_memory_lines_carry_their_support_and_newest_date():
    docs = documents("main", "MEMORY.md", MEMORY)
    assert [(d.kind, d.type, d.support, d.date, d.title) for d in docs] == [
        ("memory", "gotcha", 3, "2026-12-01", "Gotchas"), ("memory", "fact", 1, "", "Gotchas")]
    assert docs[0].text == "Port 8108 stays in use after a crash."  # the provenance links are not searched


@pytest.mark.parametrize("path, text, kind", [
    ("notes/2026-11-20-fridays.md", "---\nadded: '2026-11-20'\ntype: decision\n---\nDeploys happen on Fridays.\n",
     "pinned"),
    ("skills/release/SKILL.md", "---\nname: release\n---\n# Release\n\nRun `make release`.\n", "skill"),
    ("imported/claude-code/x/MEMORY.md", "# Notes\n\nUse tabs.\n\n## Build\n\nmake all\n", "imported"),
    ("memory_summary.md", "# pinion\n\n## Gotchas\n- Port 8108.\n", "summary"),
])
def test_each_kind_of_file_has_its_kind(path, text, kind):
    docs = documents("main", path, text)
    assert docs and {d.kind for d in docs} == {kind}


@pytest.mark.parametrize("path", ["README.md", "PROJECT.md", ".gitignore", "sessions/x.json"])
def test_other_files_are_not_searched(path):
    assert documents("main", path, "# Title\n\nwords\n") == []


@pytest.mark.parametrize("query, expected", [
    ("typesense port", '"typesense" OR "port"'),
    ('"port in use" docker', '"port in use" OR "docker"'),
    ("type*", '"type"*'),
    ("uv.lock", '"uv lock"'),
    ("the port", '"port"'),  # a stop word goes when something else is left
    ("the", '"the"'),
    ("a AND b", '"b"'),
    ("", ""), ("   ", ""), ('"" * - :', ""),
])
def test_queries_become_safe_match_expressions(query, expected):
    assert match_expression(query) == expected


ODD = ['"', '""', '"unclosed phrase', "-x", "a -b", "*", "**", "x*y", "AND", "OR NOT", "NEAR(a b)", "col:value",
       "^start", "(", ")", "{a b}", "a + b", "ünïcödé 日本語", "emoji 🚀", "\x00", "'; DROP TABLE docs; --", "a\nb"]


@pytest.mark.parametrize("query", ODD)
def test_odd_queries_are_accepted_by_fts5(query):
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE fts USING fts5(text, tokenize='porter unicode61')")
    db.execute("INSERT INTO fts VALUES ('ünïcödé 日本語 the a b x y value start')")
    match = match_expression(query)
    if match:
        db.execute("SELECT * FROM fts WHERE fts MATCH ?", (match,)).fetchall()  # raises on a bad expression


def doc(branch="main", kind="learning", type_="gotcha", date="2026-11-20", support=1, text="port 8108"):
    return Doc(branch, f"sessions/{branch}-{date}-{kind}.md", 0, kind, type_, "t", text, "s", date, support)


def test_the_current_project_comes_first_then_main_then_the_others():
    same = -5.0
    hits = rank([(doc("projects/other", text="a"), same), (doc("main", text="b"), same),
                 (doc("projects/here", text="c"), same)], current="projects/here", now_date="2026-12-01")
    assert [h.branch for h in hits] == ["projects/here", "main", "projects/other"]
    assert [h.project for h in hits] == ["here", "main", "other"]


def test_recent_and_supported_learnings_come_first_at_equal_relevance():
    hits = rank([(doc(date="2024-01-01", text="a"), -5.0), (doc(date="2026-11-30", text="b"), -5.0)],
                current=None, now_date="2026-12-01")
    assert [h.date for h in hits] == ["2026-11-30", "2024-01-01"]
    hits = rank([(doc(support=1, text="a"), -5.0), (doc(support=6, text="b"), -5.0)], current=None,
                now_date="2026-12-01")
    assert hits[0].text == "b"


def test_relevance_still_wins_over_the_boosts_when_it_is_much_higher():
    hits = rank([(doc("projects/here", text="a"), -1.0), (doc("projects/other", text="b"), -10.0)],
                current="projects/here", now_date="2026-12-01")
    assert hits[0].branch == "projects/other"


def test_the_same_text_twice_in_a_scope_is_one_hit():
    hits = rank([(doc(kind="learning", text="Port 8108!"), -5.0), (doc(kind="summary", text="port 8108"), -5.0)],
                current=None, now_date="2026-12-01", limit=10)
    assert [h.kind for h in hits] == ["learning"]


# ---- what consolidation marked superseded, and the subjects the prompt hook weighs ----------------

SUPERSEDED_MEMORY = """# Memory: pinion

## Decisions

- [decision] Use pnpm in this repo. — 1 session: [2026-12-01 1234abcd](sessions/b.md)

## Superseded

Learnings a later session contradicted; what holds now follows each.

- [decision] ~~Use npm in this repo.~~ — said in [2026-11-20 6f1c2e4a](sessions/2026/11/2026-11-20-fix-6f1c2e4a.md), \
+2 more; superseded by "Use pnpm in this repo." ([2026-12-01 1234abcd](sessions/b.md))
"""
NOTE_SAYING_NPM = NOTE.replace("## Learnings\n", "## Learnings\n- [decision] Use NPM in this repo!\n"
                               "- [decision] In this repo, use npm for the frontend.\n").replace(
    "they pass now.", "they pass now. In the end: Use NPM in this repo!")


def test_the_superseded_section_is_read_with_its_linked_notes_and_never_searched():
    from memgit.core import superseded

    [item] = superseded.items(SUPERSEDED_MEMORY)
    assert (item.type, item.text, item.paths) == ("decision", "Use npm in this repo.",
                                                 frozenset({"sessions/2026/11/2026-11-20-fix-6f1c2e4a.md"}))
    assert [d.text for d in documents("projects/pinion", "MEMORY.md", SUPERSEDED_MEMORY)] == ["Use pnpm in this repo."]


def test_a_note_keeps_no_superseded_learning_nor_its_words_in_the_summary():
    from memgit.core import superseded

    lookup = superseded.Lookup(superseded.items(SUPERSEDED_MEMORY))
    path = "sessions/2026/11/2026-11-20-fix-6f1c2e4a.md"
    docs = documents("projects/pinion", path, NOTE_SAYING_NPM, lookup)
    kept = {d.text for d in docs if d.kind == "learning"}
    assert not any("npm" in t.lower() for t in kept) and len(kept) == 2  # same words; near words, linked note
    assert [d.kind for d in docs].count("superseded") == 2  # kept aside: the index remembers where they were
    assert "NPM" not in docs[0].text and "they pass now" in docs[0].text
    elsewhere = documents("projects/pinion", "sessions/2026/11/2026-11-21-other-99999999.md", NOTE_SAYING_NPM, lookup)
    # A note the bullet does not link: the same words only.
    assert [d.text for d in elsewhere if d.kind == "superseded"] == ["Use NPM in this repo!"]


def test_a_subject_is_a_note_with_its_learnings_or_one_pinned_or_imported_unit():
    from memgit.core.search_units import file_text, subjects

    note = documents("projects/pinion", "sessions/2026/11/2026-11-20-fix-6f1c2e4a.md", NOTE)
    assert subjects(note) == [note]
    assert file_text(note).count("Fix Typesense sync tests") == 1 and "`docker compose up`" in file_text(note)
    imported = documents("main", "imported/claude-code/x/MEMORY.md", "# Notes\n\nUse tabs.\n\n## Build\n\nmake all\n")
    assert subjects(imported) == [[d] for d in imported] and file_text([imported[1]]) == "Build\nmake all"
    assert subjects(documents("projects/pinion", "MEMORY.md", MEMORY)) == []


@pytest.mark.parametrize("day", ["0001-01-01", "1600-02-29", "1900-03-01", "2000-02-29", "2024-12-31", "2026-11-27",
                                 "9999-12-31", "2026-02-29", "2026-04-31", "2026-13-01", "0000-01-01", "20261127",
                                 "2026-W48-5", "2026-1-27", "２０２６-11-27", "soon", ""])
def test_recency_counts_days_as_datetime_does(day):
    from datetime import date

    from memgit.core.search import _ordinal

    try:
        expected = date.fromisoformat(day).toordinal()
    except ValueError:
        with pytest.raises(ValueError):
            _ordinal(day)
    else:
        assert _ordinal(day) == expected
