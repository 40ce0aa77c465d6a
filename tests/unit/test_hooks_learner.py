"""What the agent's setup runs after each edit (a formatter hook) is a fact of the project: read from the
harness's records by the source, told in neutral terms, never from the hook's own text as a learning."""

from __future__ import annotations

from pathlib import Path

from memgit.core.redact import redact_transcript
from memgit.extract import heuristic
from memgit.sources.claude_code.reader import read_transcript
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import FIXTURES, needs_shared

TOLD = "A hook runs `uv run ruff format` after every file edit the agent makes here."


def _session(tmp_path: Path, *hooks: tuple[str, str, bool]) -> Path:
    w = SessionWriter(session_id("hooks"), "/home/u/dev/pinion")
    w.user("Rename the sync flag to --dry-run in cli.py")
    for event, command, progress in hooks:
        w.edit("/home/u/dev/pinion/cli.py", "--test", "--dry-run")
        w.hook(event, command, progress=progress)
    w.bash("uv run pytest -x tests/", "18 passed in 2.31s")
    w.assistant("Renamed the flag; the tests pass with `uv run pytest -x tests/`.")
    return w.write(tmp_path)


def test_a_hook_after_edits_is_read_in_either_record_form_and_told_once(tmp_path):
    t = read_transcript(_session(tmp_path, ("PostToolUse:Edit", "uv run ruff format", False),
                                 ("PostToolUse:Write", "uv run ruff format", True),
                                 ("PostToolUse:Edit", "callback", True),  # the harness's own code
                                 ("Stop", "terminal-notifier -title done", True),  # not around a tool
                                 ("PostToolUse:Agent", "entire hooks claude-code post-task", True)))
    assert t.hooks == [("after", "edit", "uv run ruff format"),
                       ("after", "subagent", "entire hooks claude-code post-task")]
    learned = [item.text for item in heuristic.extract(t, project="pinion").note.learnings]
    assert learned.count(TOLD) == 1
    assert not any("entire hooks" in text or "terminal-notifier" in text or "completed successfully" in text
                   for text in learned)


def test_a_session_without_hooks_learns_none(tmp_path):
    t = read_transcript(_session(tmp_path))
    assert t.hooks == [] and not any("hook" in item.text for item in heuristic.extract(t, project="p").note.learnings)


def test_a_secret_in_a_hook_command_is_redacted_before_any_extractor(tmp_path):
    token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    t = read_transcript(_session(tmp_path, ("PostToolUse:Edit", f"curl -H 'Authorization: token {token}' x", True)))
    redacted = redact_transcript(t, ())
    assert token in t.hooks[0][2] and token not in redacted.hooks[0][2] and "[REDACTED:" in redacted.hooks[0][2]


@needs_shared
def test_the_fixture_s_formatter_hook_becomes_a_fact():
    # claude-code-log 37f83ec9: Claude Code 1.0.51 reported each run of `uv run ruff format` after Edit,
    # MultiEdit and Write as a system record
    path = next((FIXTURES / "claude").rglob("37f83ec9-*.jsonl"))
    t = read_transcript(path)
    assert t.hooks == [("after", "edit", "uv run ruff format")]
    assert TOLD in [item.text for item in heuristic.extract(t, project="claude-code-log").note.learnings]
