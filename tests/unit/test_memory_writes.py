"""What the agent writes into its own memory is a standing learning, whichever agent wrote it, and no edit
of the project: Claude Code's auto memory files and Gemini CLI's `save_memory` and memory files, read by
their sources as "memory" calls (memgit.sources.memory_writes)."""

from __future__ import annotations

from pathlib import Path

from memgit.extract import heuristic
from memgit.extract.heuristic.standing import standing
from memgit.sources import gemini
from memgit.sources.claude_code.reader import read_transcript
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.unit.test_gemini_parse import meta_line, model, session_file, tool, user

CWD = "/home/u/dev/pinion"
MEMORY = "/home/u/.claude/projects/-home-u-dev-pinion/memory"
TOPIC = ("---\nname: Tests through uv\ndescription: run tests through uv\ntype: feedback\n---\n"
         "Run the tests with `uv run pytest`; plain pytest misses the venv.\n\n**Why:** the venv holds the deps.\n")
TOLD = "Saved to the agent's memory: Run the tests with `uv run pytest`; plain pytest misses the venv."


def _claude(tmp_path: Path, build) -> tuple[list[tuple[str, str]], str]:
    w = SessionWriter(session_id("memory"), CWD)
    w.user("Fix the flaky sync test")
    w.edit(f"{CWD}/tests/test_sync.py", "sleep(1)", "wait_for(done)")
    build(w)
    w.assistant("Fixed the test and noted how to run the suite.")
    note = heuristic.extract(read_transcript(w.write(tmp_path)), project="pinion").note
    return [(item.type, item.text) for item in note.learnings], note.summary


def test_a_claude_code_memory_file_is_a_standing_learning_of_its_type_and_no_project_edit(tmp_path):
    learned, summary = _claude(tmp_path, lambda w: (
        w.tool("Write", {"file_path": f"{MEMORY}/feedback_tests.md", "content": TOPIC}, "File created"),
        w.edit(f"{MEMORY}/MEMORY.md", "", "- [Tests through uv](feedback_tests.md) — run tests through uv\n")))
    assert ("preference", TOLD) in learned  # its front matter and its "Why:" left out; the index is no memory
    assert not any("MEMORY.md" in text or "feedback_tests" in text for _, text in learned)
    assert standing(TOLD)
    assert "edited 1 file (test_sync.py)" in summary  # the memory files are not the project's


def test_an_edit_of_a_memory_file_remembers_what_it_added(tmp_path):
    learned, _ = _claude(tmp_path, lambda w: w.edit(
        f"{MEMORY}/project_release.md", "Release notes live in ReleaseNotes.md.",
        "Release notes live in ReleaseNotes.md.\nThe version is bumped in the Makefile and package.json together."))
    assert ("convention", "Saved to the agent's memory: The version is bumped in the Makefile and package.json "
                          "together.") in learned


def test_gemini_cli_s_save_memory_and_its_memory_files_are_memories_too(tmp_path):
    path = session_file(
        tmp_path, meta_line(), user("u1", "Please remember how we deploy, as I just showed you"),
        model("m1", "", tool("c1", "save_memory", fact="The project deploys with `make deploy`, never by hand.")),
        model("m2", "", tool("c2", "write_file", file_path="/home/ada/.gemini/GEMINI.md",
                             content="## Gemini Added Memories\n- Prefer small pull requests.\n")),
        model("m3", "Saved."))
    t = gemini.read_transcript(path)
    calls = [c for turn in t.turns for c in turn.tool_calls]
    assert [c.kind for c in calls] == ["memory", "memory"]
    learned = [item.text for item in heuristic.extract(t, project="shop").note.learnings]
    assert "Saved to the agent's memory: The project deploys with `make deploy`, never by hand." in learned
    assert any(text.startswith("Saved to the agent's memory:") and "small pull requests" in text for text in learned)
