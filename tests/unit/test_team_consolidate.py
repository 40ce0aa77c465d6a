"""Team memory in a shared project's consolidation (memgit.consolidate.team): who holds each learning,
what the reader's briefing may tell, and how MEMORY.md names people."""

import pytest

from memgit.consolidate import heuristic
from memgit.consolidate import team as rules
from memgit.consolidate.heuristic.memory import Memory
from memgit.core.model import Learning, Note


def note(session: str, day: int, *learnings: tuple[str, str]) -> Note:
    return Note(session=f"claude-code/{session}", agent="claude-code", project="app", title=f"Session {session}",
                learnings=[Learning(t, x) for t, x in learnings], ended=f"2026-11-{day:02d}T10:00:00Z")


NOTES = [
    ("sessions/2026/11/mine.md", note("mine0001", 20, ("convention", "Always run `make lint` before pushing."))),
    (rules.note_path("ana", "sessions/2026/11/a.md"), note("ana00001", 18, ("convention", "Always run `make lint` before pushing."),
                                                           ("preference", "I prefer commit messages without emoji."))),
    (rules.note_path("ben", "sessions/2026/11/b.md"), note("ben00001", 19, ("gotcha", "The CI cache must be cleared when the lockfile changes."),
                                                           ("convention", "Always use tabs for indentation."))),
    (rules.note_path("ana", "sessions/2026/11/c.md"), note("ana00002", 22, ("convention", "Never use tabs for indentation."))),
]


def clusters():
    with Memory.of(NOTES) as memory:
        return memory.clusters()


def by_text(found, words):
    [c] = [c for c in found if words in c.text and c.superseded_by is None]
    return c


@pytest.mark.parametrize("gated, accepted, briefed", [
    (True, frozenset(), {"make lint"}),  # mine; ben's gotcha waits for review, ana's preference is hers
    (True, frozenset({rules.learning_key("gotcha", "The CI cache must be cleared when the lockfile changes.")}),
     {"make lint", "CI cache"}),
    (False, frozenset(), {"make lint", "CI cache", "Never use tabs"}),  # the team trusted
])
def test_the_briefing_tells_a_teammates_learning_once_accepted_and_never_one_persons_preference(gated, accepted, briefed):
    team = rules.Team("me", (), accepted, gated=gated)
    found = clusters()
    told = {w for c in team.briefable(found) if c.superseded_by is None
            for w in ("make lint", "CI cache", "emoji", "Never use tabs") if w in c.text}
    assert told == briefed


def test_memory_md_names_people_and_counts_them():
    team = rules.Team("me", (rules.Mate("ana", "refs/memgit/team/acme/ana/projects/app", "a" * 40, 2),))
    found = clusters()
    assert ", 2 people: " in team.bullet(by_text(found, "make lint"))
    assert team.bullet(by_text(found, "emoji")).startswith("- [preference] ana prefers: I prefer commit messages")
    [old] = [c for c in found if c.superseded_by is not None]
    assert 'superseded by ana: "Never use tabs' in team.superseded_bullet(old) and "said by ben" in team.superseded_bullet(old)
    assert {c.text for c in team.pending(found)} == {by_text(found, "CI cache").text, by_text(found, "Never use tabs").text}


def test_without_a_team_the_consolidation_is_what_it_was():
    with Memory.of(NOTES[:1]) as memory:
        alone = heuristic.consolidate(memory, scope="app", project=None, pinned=[], budget_tokens=2500)
        again = heuristic.consolidate(memory, scope="app", project=None, pinned=[], budget_tokens=2500, team=None)
    assert alone == again and "people" not in alone.memory_md


@pytest.mark.parametrize("gated, accepted, told", [
    (True, frozenset(), set()),  # the reader holds make lint too (their note tells it); the rest waits for review
    (True, frozenset({rules.learning_key("gotcha", "The CI cache must be cleared when the lockfile changes.")}),
     {("ben", "CI cache")}),
    (False, frozenset(), {("ana", "make lint"), ("ben", "CI cache"), ("ben", "Always use tabs"), ("ana", "Never use tabs")}),
])
def test_what_the_prompt_hook_and_search_may_tell_of_teammates_is_what_the_briefing_may(gated, accepted, told):
    team = rules.Team("me", (), accepted, gated=gated)
    with Memory.of(NOTES) as memory:
        kept = team.admitted(memory)
    words = ("make lint", "CI cache", "emoji", "Always use tabs", "Never use tabs")
    assert {(rules.person_of(path), w) for path, learned in kept.items() for _, text in learned
            for w in words if w in text} == told  # never ana's preference alone, in no mode


def test_memory_md_marks_what_the_reader_has_not_reviewed():
    team = rules.Team("me", (), frozenset())
    found = clusters()
    assert ", ben, not yet reviewed: " in team.bullet(by_text(found, "CI cache"))
    assert "reviewed" not in team.bullet(by_text(found, "make lint")) + team.bullet(by_text(found, "emoji"))
    assert "reviewed" not in rules.Team("me", (), frozenset(), gated=False).bullet(by_text(found, "CI cache"))
