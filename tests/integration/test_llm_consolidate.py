"""The LLM consolidator over real HTTP to the fake server: INIT, INCREMENTAL, the checks, and `memgit consolidate`."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from memgit import config, llm
from memgit.consolidate import llm as cons
from memgit.core.model import Consolidation
from tests.conftest import git
from tests.fake_llm import Reply
from tests.integration.test_llm_sync import NOTE, write_sessions
from tests.unit.test_llm_consolidate import MEMORY, NOTES, OTHER, PATH, PINNED, SUMMARY

MODEL = "openai/fake-model"
SKILL = '---\nname: run-tests\ndescription: "Run the tests: use when you need to run or fix them"\n---\n# Run the tests\n'


@pytest.fixture
def cfg(fake_llm, tmp_path):
    base = config.load({"HOME": str(tmp_path)})
    return replace(base, consolidate_model=MODEL, api_base=fake_llm.api_base)


def reply(memory: str = MEMORY, summary: str = SUMMARY, skills=()) -> Reply:
    return Reply.json({"memory_md": memory, "summary_md": summary,
                       "skills": [{"name": n, "skill_md": t} for n, t in skills]})


def test_init_consolidation_carries_the_servers_content(cfg, fake_llm):
    fake_llm.script(reply(skills=[("run-tests", SKILL)]))
    c = cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED], cfg=cfg)
    assert c.memory_md == MEMORY and c.summary_md == SUMMARY and c.skills == {"run-tests": SKILL}
    assert (c.consolidator, c.tokens, c.cost) == (MODEL, 1200, None)
    assert c.prompt.startswith("consolidate sha256:")
    user = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert user.startswith("Mode: INIT") and PATH in user and OTHER in user


def test_incremental_sends_the_current_files_and_the_removed_notes(cfg, fake_llm):
    kept = MEMORY.replace(f", [2026-11-19 0b1d4c39]({OTHER})", "").replace("2 sessions", "1 session")
    fake_llm.script(reply(memory=kept))
    current = Consolidation(MEMORY, SUMMARY)
    c = cons.consolidate(scope="pinion", notes=NOTES[:1], added=[], removed=NOTES[1:], current=current,
                         pinned=[PINNED], cfg=cfg)
    assert c.memory_md == kept
    user = fake_llm.requests[0]["body"]["messages"][1]["content"]
    assert user.startswith("Mode: INCREMENTAL") and "<current_summary_md>\n# pinion: what memory holds" in user


def test_invalid_output_is_sent_back_once_with_its_problems(cfg, fake_llm):
    fake_llm.script(reply(summary=SUMMARY.replace("## Where to look deeper", "## More")), reply())
    c = cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED], cfg=cfg)
    assert c.summary_md == SUMMARY and c.tokens == 2400
    assert "lacks its `## Where to look deeper` section" in fake_llm.requests[1]["body"]["messages"][-1]["content"]


def test_invalid_output_twice_is_an_llm_error(cfg, fake_llm):
    fake_llm.default = reply(memory="no sections at all\n")
    with pytest.raises(llm.ModelError, match="invalid output twice: .*no `## ` topic section"):
        cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED], cfg=cfg)


def test_a_second_reply_whose_only_fault_is_a_dead_link_is_unlinked(cfg, fake_llm):
    dead = MEMORY.replace(f"]({OTHER})", "](sessions/2026/11/invented.md)")
    fake_llm.script(reply(memory=dead), reply(memory=dead))
    c = cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED], cfg=cfg)
    assert "invented.md" not in c.memory_md and "[2026-11-19 0b1d4c39]" not in c.memory_md.split(PATH)[1][:3]
    assert "2026-11-19 0b1d4c39" in c.memory_md  # the words stay


def test_a_secret_in_the_output_is_refused(cfg, fake_llm):
    token = "ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36]
    fake_llm.default = reply(summary=SUMMARY + f"- deploy token {token}\n")
    with pytest.raises(llm.ModelError, match="looks like a secret"):
        cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED], cfg=cfg)
    assert token not in str(fake_llm.requests[-1]["body"]["messages"][-1])  # the retry names the kind, not the value


def test_global_consolidation_carries_the_servers_content(cfg, fake_llm):
    memory = "# Memory across projects\n\n## Preferences\n\n- [preference] Plain commit subjects — pinion, lantern\n"
    summary = ("# Across projects\n\n## Across projects\n\n- [preference] Plain subjects (pinion, lantern)\n\n"
               "## Where to look deeper\n\n- x\n")
    fake_llm.script(reply(memory=memory, summary=summary, skills=[("ignored", SKILL)]))
    c = cons.consolidate_global(projects={"projects/pinion": (SUMMARY, NOTES), "projects/lantern": (SUMMARY, NOTES)},
                                current=None, pinned=[], cfg=cfg)
    assert (c.memory_md, c.summary_md, c.skills) == (memory, summary, {})
    assert fake_llm.requests[0]["body"]["messages"][0]["content"].startswith("You maintain the cross-project memory")


def test_a_preference_one_project_shows_stays_in_that_project(cfg, fake_llm):
    """The model promoted one person's rule in one project to main; main is injected into every project."""
    memory = ("# Memory across projects\n\n## Preferences\n\n"
              "- [preference] Always run the linter before committing — projects: pinion, lantern\n"
              "- [preference] Never add a dependency without asking first — projects: pinion\n"
              "## Projects\n- pinion (`projects/pinion`): 2 session notes\n")
    summary = ("# Across projects\n\n## Across projects\n\n- [preference] Lint before committing (pinion, lantern)\n"
               "- [preference] Never add a dependency without asking (pinion)\n\n## Where to look deeper\n\n- x\n")
    fake_llm.script(reply(memory=memory, summary=summary))
    c = cons.consolidate_global(projects={"projects/pinion": (SUMMARY, NOTES), "projects/lantern": (SUMMARY, NOTES)},
                                current=None, pinned=[], cfg=cfg)
    assert "dependency" not in c.memory_md + c.summary_md
    assert "Always run the linter before committing" in c.memory_md and "Lint before committing" in c.summary_md
    assert "- pinion (`projects/pinion`)" in c.memory_md  # the project list is not a learning
    assert "seen in **two or more projects**" in fake_llm.requests[0]["body"]["messages"][0]["content"]


def test_memgit_consolidate_commits_the_models_memory(claude_projects, memory_path, memgit_cli, fake_llm, monkeypatch):
    write_sessions(claude_projects, n=2)
    fake_llm.default = Reply.json(NOTE)
    assert memgit_cli("sync", "--model", MODEL, "--api-base", fake_llm.api_base).exit_code == 0
    memory = "# Memory: pinion\n\n## Gotchas\n\n- [gotcha] Empty rows break the importer (from the fake model)\n"
    fake_llm.default = reply(memory=memory, summary=SUMMARY)
    monkeypatch.setenv("MEMGIT_CONSOLIDATE_MODEL", MODEL)
    monkeypatch.setenv("MEMGIT_API_BASE", fake_llm.api_base)
    result = memgit_cli("consolidate", "--force", "--json")  # sync consolidated already (heuristic fallback)
    assert result.exit_code == 0, result.stderr
    commits = json.loads(result.stdout)["commits"]
    assert {c["consolidator"] for c in commits} == {MODEL} and not any(c["fallback"] for c in commits)
    assert git(memory_path, "show", "projects/pinion:MEMORY.md") == memory
    assert "Memgit-Consolidator: openai/fake-model" in git(memory_path, "log", "-1", "projects/pinion")


TEAM_NOTE = "team/ana/sessions/2026/11/2026-11-20-fix-redis-in-ci-9c8d7e6f.md"
TEAM = [("ana", TEAM_NOTE, "gotcha", "CI's Redis needs `--appendonly no`, else the container fills its disk."),
        ("ana", TEAM_NOTE, "preference", "ana prefers squash merges.")]


def test_a_shared_project_sends_the_teammates_learnings_and_may_link_their_notes(cfg, fake_llm):
    # issue 22: the LLM consolidator reads what the heuristic one reads of the team, attributed
    shared = MEMORY.replace("## Build and test", "## Gotchas\n\n- [gotcha] CI's Redis needs `--appendonly no`, "
                            f"else the container fills its disk — 1 session, ana: [ana 2026-11-20 9c8d7e6f]({TEAM_NOTE})"
                            "\n\n## Build and test")
    fake_llm.script(reply(memory=shared))
    c = cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED],
                         cfg=cfg, team=TEAM)
    assert f"]({TEAM_NOTE})" in c.memory_md  # a link to a teammate's note given is no dead link
    user = fake_llm.requests[0]["body"]["messages"][1]["content"]
    block = user.split("<team_learnings>\n")[1].split("</team_learnings>")[0]
    assert "`--appendonly no`" in block and f"— ana, {TEAM_NOTE}" in block
    assert "never the user's" in user  # the model is told whose a teammate's preference is


def test_a_project_without_a_team_sends_no_team_block(cfg, fake_llm):
    fake_llm.script(reply())
    cons.consolidate(scope="pinion", notes=NOTES, added=NOTES, removed=[], current=None, pinned=[PINNED], cfg=cfg)
    assert "team_learnings" not in fake_llm.requests[0]["body"]["messages"][1]["content"]
