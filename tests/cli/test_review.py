"""`memgit review` a person can finish: the queue in the briefing's order, narrowed by --project, --type,
--since and --limit; each answer recorded as it is given, so quitting keeps what was decided."""

from __future__ import annotations

import json

from tests.conftest import fsck, git
from tests.integration import test_hooks

world = test_hooks.world  # project `pinion`: a session with three learnings (two preferences, a command)

EMOJI = "Don't put emoji in commit messages."
ALWAYS = "Always run the tests with `uv run pytest`."
COMMAND = "Tests run with `uv run pytest -x tests/`."


def queue(memgit_cli, *options: str) -> list[str]:
    result = memgit_cli("review", "--json", *options)
    assert result.exit_code == 0, result.output
    return [x["text"] for x in json.loads(result.stdout)["learnings"]]


def test_the_queue_is_the_briefings_order_and_the_options_narrow_it(world, memgit_cli, memory_path):
    test_hooks.consolidate_by_hand(memory_path, "projects/pinion", {"memory_summary.md": (
        f"# pinion\n\n## How to build and test\n- Test: `uv run pytest -x tests/`\n\n## Preferences\n- {EMOJI}\n")})
    assert queue(memgit_cli) == [COMMAND, EMOJI, ALWAYS]  # what the agent is told, in its order, then the rest
    assert queue(memgit_cli, "--type", "preference", "--limit", "1") == [EMOJI]
    assert queue(memgit_cli, "--project", "pinion", "--type", "preference", "--type", "command") == [COMMAND, EMOJI,
                                                                                                      ALWAYS]
    assert queue(memgit_cli, "--project", "main") == []
    later = json.loads(memgit_cli("review", "--json", "--since", "2026-11-21").stdout)
    assert later["learnings"] == [] and later["left"] == 3
    assert "none of the 3 learning(s)" in memgit_cli("review", "--since", "2026-11-21").stdout
    assert memgit_cli("review", "--since", "last week").exit_code == 2
    assert memgit_cli("review", "--project", "nope").exit_code == 12


def test_quit_after_two_answers_keeps_both_and_the_next_review_goes_on(world, memgit_cli, memory_path):
    first, second, third = queue(memgit_cli)
    stopped = memgit_cli("review", input="a\nr\nq\n")
    assert stopped.exit_code == 0, stopped.output
    assert "accepted 1, rejected 1; 1 left" in stopped.stdout
    log = git(memory_path, "log", "--format=%s", "projects/pinion")
    assert "review(pinion): accepted [" in log and "forget(pinion): rejected in review" in log
    notes = git(memory_path, "grep", "-h", "^- \\[", "projects/pinion", "--", "sessions/")
    assert first in notes and second not in notes  # accepted stays, rejected is forgotten
    assert queue(memgit_cli) == [third]  # the two answered are not asked again
    done = memgit_cli("review", input="a\n")
    assert done.exit_code == 0 and "nothing left to review" in done.stdout
    assert git(memory_path, "log", "-1", "--format=%(trailers:key=Memgit-Reviewed,valueonly)", "projects/pinion").strip()
    assert queue(memgit_cli) == [] and memgit_cli("review").stdout.strip() == "nothing new to review since the last review"
    fsck(memory_path)
