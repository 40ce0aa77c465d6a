"""A teammate's note as search units (memgit.core.teammates), MEMORY.md's unreviewed
learnings left out of search, and superseded links to a teammate's note kept apart from the reader's."""

from memgit.core import search_units, superseded, teammates
from memgit.core.model import Learning, Note
from memgit.core.notes import render_note

NOTE = render_note(Note(session="claude-code/abcd1234-0000", agent="claude-code", project="app", title="Fix the tests",
                        summary="The user asked to fix the tests. In the end: the celery broker was full.",
                        learnings=[Learning("gotcha", "Port 5432 was held by a stale postgres container."),
                                   Learning("gotcha", "The celery broker was full.")],
                        started="2026-11-10T10:00:00Z"))
PATH = "team/ana/sessions/2026/11/2026-11-10-fix-the-tests-abcd1234.md"


def test_a_teammates_note_gives_its_title_and_the_learnings_kept_never_its_summary():
    docs = teammates.documents("projects/app", PATH, NOTE,
                                     [("gotcha", "Port 5432 was held by a stale postgres  container.")])
    assert [(d.kind, d.text) for d in docs] == [("note", "Fix the tests"),
                                                ("learning", "Port 5432 was held by a stale postgres container.")]
    assert {d.path for d in docs} == {PATH} and docs[1].date == "2026-11-10"
    assert "celery" not in search_units.file_text(docs)


def test_memory_md_lines_not_yet_reviewed_are_not_searched():
    body = ("## Gotchas\n\n- [gotcha] Port 5432 was held. — 1 session, ana: [ana 2026-11-10 abcd1234](team/ana/x.md)\n"
            "- [gotcha] The celery broker was full. — 1 session, ana, not yet reviewed: [ana 2026-11-10 abcd1234](team/ana/x.md)\n")
    assert [d.text for d in search_units.documents("projects/app", "MEMORY.md", body)] == ["Port 5432 was held."]


def test_a_superseded_link_to_a_teammates_note_names_their_note():
    memory = ("## Superseded\n\n- [decision] ~~Use npm~~ — said by ana in [ana 2026-11-10 abcd1234](team/ana/sessions/2026/11/a.md), "
              "[2026-11-09 ef](sessions/2026/11/b.md); superseded by me: \"Use pnpm\" ([2026-11-12 cd](sessions/2026/11/c.md))\n")
    [item] = superseded.items(memory)
    assert item.paths == {"team/ana/sessions/2026/11/a.md", "sessions/2026/11/b.md"}
    assert superseded.items(memory.replace("team/ana/", "projects/app/"))[0].paths == {"sessions/2026/11/a.md",
                                                                                      "sessions/2026/11/b.md"}
