"""Upkeep: the files the person has the agent update after the work, in the person's real words
(../shared/fixtures/scale, cc-backend; fixtures/transcripts, entire-cli), and what reaches the briefing."""

from __future__ import annotations

import pytest

from memgit.core.model import ToolCall
from memgit.extract.heuristic import rank
from memgit.extract.heuristic.candidate import Candidate
from tests.unit.test_consolidate import note, run
from tests.unit.test_heuristic import CWD, agent, edit, extract, texts, user

FIX = (user("Fix the WAL rotation on shutdown"), agent(edit(f"{CWD}/pkg/metricstore/checkpoint.go"), text="Fixed."))


def upkeep_of(*turns) -> list[str]:
    return [t for t in texts(extract(*turns).note, "convention") if "along with a change" in t]


@pytest.mark.parametrize("said, edited, told", [
    # cc-backend 039c7932: two follow-ups after the fix, each answered by an edit of what it names
    ("Update documentation and config schema accordingly", ["pkg/metricstore/configSchema.go"],
     ["The user asks for `configSchema.go` to be updated along with a change."]),
    ("Also update the ReleaseNotes with the recent changes", ["ReleaseNotes.md"],
     ["The user asks for `ReleaseNotes.md` to be updated along with a change."]),
    # cc-backend 3a41c7a4: what the agent edited besides the README was not asked for
    ("Update the Database config section in the README to reflect the new setting",
     ["README.md", "internal/config/config.go", "cmd/cc-backend/main.go", "internal/config/schema.go"],
     ["The user asks for `README.md` to be updated along with a change."]),
    # entire-cli 6113e919: tests, whatever file they went into
    ("ok, do nothing, can we add some tests?", ["cmd/entire/cli/checkpoint/checkpoint_test.go"],
     ["The user asks for tests along with a change."]),
    # not upkeep: a question, a refusal, a request answered by no edit of what it names
    ("Does this doc page help?", ["README.md"], []),
    ("Don't update the README, it is generated", ["README.md"], []),
    ("Update the release notes", ["internal/api/rest.go"], []),
])
def test_a_follow_up_after_the_work_names_the_file_it_had_updated(said, edited, told):
    answer = agent(*(edit(f"{CWD}/{path}") for path in edited), text="Done.")
    assert upkeep_of(*FIX, user(said), answer) == told


def test_the_first_request_is_the_task_and_a_file_the_session_made_is_its_own_work():
    # cc-backend ff9dfa67: updating the release notes was the task itself
    assert upkeep_of(user("Update the ReleaseNotes for the bugfix release 1.5.1"),
                     agent(edit(f"{CWD}/ReleaseNotes.md"), text="Updated.")) == []
    # entire-cli a318ad73: the architecture document the session wrote, updated again later
    design = f"{CWD}/docs/architecture/shadow-branch-overlap.md"
    assert upkeep_of(user("read docs/architecture/shadow-branch-suffixes.md"), agent(text="Read."),
                     user("write a new architecture document replacing the multi one"), agent(edit(design), text="Written."),
                     user("yes, update the architecture document first"), agent(edit(design), text="Updated.")) == []


def test_two_files_updated_in_one_session_are_two_learnings():
    answer = agent(edit(f"{CWD}/pkg/metricstore/configSchema.go"), edit(f"{CWD}/ReleaseNotes.md"), text="Done.")
    assert upkeep_of(*FIX, user("Update the config schema and the release notes"), answer) == [
        "The user asks for `ReleaseNotes.md` to be updated along with a change.",
        "The user asks for `configSchema.go` to be updated along with a change."]


def test_the_ranker_keeps_statements_that_name_different_code_apart():
    same_words = [Candidate("convention", f"The user asks for `{name}` to be updated along with a change.", 3.0)
                  for name in ("README.md", "schema.go")]
    reworded = [Candidate("gotcha", "Run `make test` before you push the branch.", 3.0),
                Candidate("gotcha", "Run `make test` before pushing the branch.", 2.5)]
    kept = rank.rank(same_words + reworded, cwd=CWD, budget=rank.budget_for(5, 0))
    assert [learning.text for learning in kept if learning.type == "convention"] == [c.text for c in same_words]
    assert [learning.text for learning in kept if learning.type == "gotcha"] == [reworded[0].text]


def test_asked_in_two_sessions_it_reaches_the_briefing_and_once_it_does_not():
    readme = ("convention", "The user asks for `README.md` to be updated along with a change.")
    notes_ = "The user asks for `ReleaseNotes.md` to be updated along with a change."
    result = run([note(0, readme, day=1), note(1, readme, day=5), note(2, ("convention", notes_), day=6)])
    assert "`README.md` to be updated along with a change. (2 sessions" in result.summary_md
    assert notes_ not in result.summary_md and notes_ in result.memory_md


def test_a_codex_patch_counts_every_file_it_wrote():
    # as memgit.sources.codex.tools reads an apply_patch: every file it names, the first as file_path
    patch = ToolCall("p1", "apply_patch", {"files": [f"{CWD}/src/api.ts", f"{CWD}/README.md"],
                                           "file_path": f"{CWD}/src/api.ts"}, "ok", False, True, kind="edit")
    assert upkeep_of(*FIX, user("Also update the README with the new flag"), agent(patch, text="Done.")) == [
        "The user asks for `README.md` to be updated along with a change."]
