"""The LLM consolidator's pure parts: what the model is shown, and the checks its output must pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from memgit import config, prompts
from memgit.consolidate import llm as cons
from memgit.core.model import Consolidation, Learning, Note

PATH = "sessions/2026/11/2026-11-18-fix-the-sync-tests-6f1c2e4a.md"
OTHER = "sessions/2026/11/2026-11-19-add-dry-run-0b1d4c39.md"
PINNED = ("notes/2026-11-02-deploy.md", "# Deploy\nDeploys go through `make release`, never by hand.")
MEMORY = (f"# Memory: pinion\n\n2 learnings from 2 session notes.\n\n## Build and test\n\n"
          f"- [command] Tests run with `uv run pytest` — 2 sessions: [2026-11-18 6f1c2e4a]({PATH}), "
          f"[2026-11-19 0b1d4c39]({OTHER})\n\n## Pinned notes\n\n- [{PINNED[0]}]({PINNED[0]})\n")
SUMMARY = ("# pinion: what memory holds\n\n2 sessions.\n\n## Profile\n\n- Test: `uv run pytest`\n\n"
           "## Where to look deeper\n\n- `memgit show projects/pinion:MEMORY.md`\n")


def note(session: str, title: str, *learnings: tuple[str, str], day: int = 18) -> Note:
    return Note(session=f"claude-code/{session}", agent="claude-code", project="pinion", title=title,
                summary="What was asked and done.", learnings=[Learning(t, x) for t, x in learnings],
                started=f"2026-11-{day:02d}T10:00:00Z", outcome="success")


NOTES = [(PATH, note("6f1c2e4a-0000", "Fix the sync tests", ("command", "Tests run with `uv run pytest`."))),
         (OTHER, note("0b1d4c39-0000", "Add dry run", ("command", "Tests run with `uv run pytest`."), day=19))]


@pytest.fixture
def cfg(tmp_path: Path):
    return config.load({"HOME": str(tmp_path)})


def test_a_well_formed_consolidation_passes(cfg):
    c = Consolidation(MEMORY, SUMMARY)
    assert cons.problems(c, allowed={PATH, OTHER, PINNED[0]}, pinned=[PINNED], cfg=cfg) == []


@pytest.mark.parametrize("memory, summary, problem", [
    (MEMORY, SUMMARY.replace("## Where to look deeper", "## Elsewhere"), "lacks its `## Where to look deeper`"),
    ("Just text, no sections.\n", SUMMARY, "no `## ` topic section"),
    (MEMORY.replace(f"- [{PINNED[0]}]({PINNED[0]})", "- none"), SUMMARY, "link every pinned note"),
    (MEMORY.replace(OTHER, "sessions/2026/11/made-up.md"), SUMMARY, "links to files that do not exist"),
    (MEMORY, SUMMARY + "- Key: ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36] + "\n", "looks like a secret"),
    (MEMORY, SUMMARY + "- " + "a long line of memory " * 600 + "\n", "memory_summary.md has"),
])
def test_what_the_checks_refuse(cfg, memory, summary, problem):
    found = cons.problems(Consolidation(memory, summary), allowed={PATH, OTHER, PINNED[0]}, pinned=[PINNED], cfg=cfg)
    assert any(problem in p for p in found), found


def test_init_shows_every_note_newest_first(cfg, tmp_path):
    prompt = prompts.load("consolidate", tmp_path)
    [system, user] = cons.project_messages(prompt, scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None,
                                           pinned=[PINNED], cfg=cfg)
    assert system["content"] == prompt.text
    text = user["content"]
    assert text.startswith("Mode: INIT")
    assert text.index(OTHER) < text.index(PATH)  # the 19th before the 18th
    assert "- [command] Tests run with `uv run pytest`." in text and "make release" in text


def test_incremental_shows_the_current_files_and_the_notes_added_and_removed(cfg, tmp_path):
    prompt = prompts.load("consolidate", tmp_path)
    current = Consolidation(MEMORY, SUMMARY, skills={"run-tests": "---\nname: run-tests\n---\n# Run\n"})
    [_, user] = cons.project_messages(prompt, scope="pinion", notes=NOTES[:1], added=[], removed=NOTES[1:],
                                      current=current, pinned=[], cfg=cfg)
    text = user["content"]
    assert text.startswith("Mode: INCREMENTAL")
    assert "<current_memory_md>\n# Memory: pinion" in text and "skills/run-tests/SKILL.md" in text
    added = text[text.index("<notes_added>"):text.index("</notes_added>")]
    removed = text[text.index("<notes_removed>"):text.index("</notes_removed>")]
    assert "(none)" in added and OTHER in removed


def test_older_notes_past_the_budget_are_left_out_and_said_so():
    many = [(f"sessions/2026/11/2026-11-{1 + i % 28:02d}-n{i}-{i:08d}.md",
             note(f"{i:08d}-0000", f"Session {i}", ("fact", "word " * 60), day=1 + i % 28)) for i in range(200)]
    text, left_out = cons.render_notes(many, 2_000)
    assert 0 < left_out < 200 and "2026-11-28" in text


def test_the_global_prompt_gets_each_project_summary(cfg, tmp_path):
    prompt = prompts.load("consolidate_global", tmp_path)
    projects = {"projects/pinion": (SUMMARY, NOTES), "projects/lantern": ("", [])}
    [_, user] = cons.global_messages(prompt, projects=projects, current=None, pinned=[], cfg=cfg)
    text = user["content"]
    assert "### projects/pinion (2 session notes)\n# pinion: what memory holds" in text
    assert "### projects/lantern (0 session notes)\n(no summary yet)" in text
