"""What a new session is told on a project with a hundred sessions (issue 17), over the real cc-backend corpus.

../shared/fixtures/scale/cc-backend holds 82 Claude Code sessions of one developer on one project. One sync
for the module; every test reads what `memgit context` tells a session started in the main checkout, as the
session-start hook does, and the repository behind it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time

import pytest
from click.testing import CliRunner

from memgit.cli.commands import cli
from memgit.consolidate import _markdown
from memgit.consolidate.heuristic.briefing import MAX_REPORT
from memgit.consolidate.heuristic.selection import REPORTED
from memgit.extract.heuristic.shell import program
from tests.conftest import SHARED, fsck, git, point_home

SCALE = SHARED / "fixtures" / "scale" / "cc-backend" / "claude"
MAIN_CHECKOUT = "/Users/jan/prg/ClusterCockpit/cc-backend"
pytestmark = pytest.mark.skipif(not SCALE.is_dir(), reason="../shared/fixtures/scale is absent (the real corpus "
                                                            "lives beside the project, not in it)")


def memgit(*args: str):
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def told(tmp_path_factory):
    """Sync the corpus once; return the briefing of the main checkout, its summary and the repository."""
    home = tmp_path_factory.mktemp("scale-home")
    projects = home / ".claude" / "projects"
    shutil.copytree(SCALE, projects)
    idle = time.time() - 3 * 3600
    for path in projects.rglob("*.jsonl"):
        os.utime(path, (idle, idle))
    with pytest.MonkeyPatch.context() as mp:
        point_home(mp, home, data="data", config="config")
        memgit("sync", "--all")
        shown = json.loads(memgit("context", "--cwd", MAIN_CHECKOUT, "--json").stdout)
    repo = home / "data" / "memgit"
    summary = git(repo, "show", f"{shown['branch']}:memory_summary.md")
    return {"text": shown["context"], "branch": shown["branch"], "summary": summary, "repo": repo}


def section(summary: str, heading: str) -> list[str]:
    return [b.text for s in _markdown.sections(summary) if s.heading.startswith(heading) for b in s.bullets]


def test_the_briefing_fits_in_6000_characters_with_the_global_part_and_the_fence(told):
    text = told["text"]
    assert text.startswith("<memgit-context") and text.endswith("</memgit-context>")
    assert len(text) <= 6000
    fsck(told["repo"])


def test_it_opens_with_the_project_and_says_how_to_build_and_test_it(told):
    text = told["text"]
    assert re.search(r"^## Project cc-backend \(branch `projects/cc-backend`\)$", text, re.M)
    # what the project is, from the README its sessions read (there is no checkout): the line under the heading
    about = text.split("(branch `projects/cc-backend`)\n", 1)[1].split("\n", 1)[0]
    assert "ClusterCockpit" in about and not about.startswith(("<!--", "#")) and len(about) <= 320
    branches = git(told["repo"], "branch", "--format=%(refname:short)").split()
    assert [b for b in branches if b.startswith("projects/")] == ["projects/cc-backend"]  # five paths, one project
    commands = section(told["summary"], "How to build and test")
    # one line a purpose, its tools as alternatives ("Build: `go build ./...` or `make`")
    assert any(c.startswith("Build: `go build ./...`") for c in commands)
    assert any(c.startswith("Test: `go test ./...`") for c in commands)
    labels = [c.split(":", 1)[0] for c in commands if "—" not in c]
    assert len(labels) == len(set(labels)), commands
    assert any("cd web/frontend && npm run build" in c for c in commands)  # the frontend's build, where it runs
    assert not any("| tail" in c or "| head" in c or "2>&1" in c for c in commands)


def test_the_rules_the_person_had_written_into_claude_md_are_told(told):
    rules = " ".join(section(told["summary"], "Preferences and conventions"))
    assert "CLAUDE.md" in rules and "throughput" in rules and "call paths" in rules


def test_the_practice_the_work_shows_in_many_sessions_is_told_how_to_run_it_too(told):
    rules = " ".join(section(told["summary"], "Preferences and conventions"))
    # six sessions wrote a numbered migration pair and bumped migration.go; no one said so
    assert "migrations/sqlite3/" in rules and "NN_name.up.sql" in rules and "migration.go" in rules
    assert any("./cc-backend -server -dev" in c for c in section(told["summary"], "How to build and test"))


def test_no_gotcha_names_code_its_session_then_changed(told):
    for gotcha in section(told["summary"], "Gotchas"):
        assert "RotateWALFilesAfterShutdown" not in gotcha and "ReceiveNats" not in gotcha, gotcha


def test_no_one_off_instruction_is_told_as_a_preference(told):
    rules = section(told["summary"], "Preferences and conventions")
    for one_off in ("Fix all issues in the suggested order", "Commit the changes", "Plan a fix for scenario 1",
                    "Only implement fix 6", "Make the log message in line 363", "I think we should", "hmm,"):
        assert not any(one_off in rule for rule in rules), one_off


def test_no_gotcha_is_one_session_s_debugging_trail(told):
    for gotcha in section(told["summary"], "Gotchas"):
        assert not re.match(r"(?:Root cause|The (?:root cause|issue|problem|bug) (?:is|was)|Mistake:)", gotcha)
        reported = REPORTED.match(gotcha)
        assert len(gotcha) <= 480 and not (reported and len(reported.group("problem")) > 2 * MAX_REPORT)  # no pasted report
        trail = re.match(r'`([^`]+)` failed with "[^"]*"; `([^`]+)` works', gotcha)
        assert not (trail and program(trail.group(1)) == program(trail.group(2))
                    and "-" not in set(trail.group(2).split()) - set(trail.group(1).split())), gotcha


def test_the_latest_work_is_one_line_each_and_not_the_request_word_for_word(told):
    work = section(told["summary"], "Latest work")
    assert 1 <= len(work) <= 5 and all(len(line) <= 120 for line in work)
    assert not any(re.search(r"\b(?:can you|please)\b", line, re.I) for line in work)


def test_no_learning_quotes_a_text_where_a_source_cut_it(told):
    # Long plans and outputs are kept as their head and tail; a learning made across the cut would
    # start or end mid-word ("…[534 chars trimmed]… s: Manual checkpoint cleanup …").
    memory = git(told["repo"], "show", f"{told['branch']}:MEMORY.md")
    assert "chars trimmed" not in memory


def test_what_the_person_said_while_doing_a_recurring_task_is_told_with_its_file(told):
    # ReleaseNotes.md was updated in seven sessions of few files each: the corrections made there hold for
    # the next release. Each line told this way names a file three or more of those sessions edited.
    from memgit.core.edited import edited_files
    from memgit.core.notes import parse_note

    repo, branch = told["repo"], told["branch"]
    edits = {}
    for path in git(repo, "ls-tree", "-r", "--name-only", branch, "sessions/").split():
        for name in edited_files(parse_note(git(repo, "show", f"{branch}:{path}")).summary):
            edits[name] = edits.get(name, 0) + 1
    told_with_file = [r for r in section(told["summary"], "Preferences and conventions") if "(while editing" in r]
    assert any("`ReleaseNotes.md`" in rule and "version" in rule for rule in told_with_file), told_with_file
    for rule in told_with_file:
        named = re.findall(r"`([^`]+)`", rule.rsplit("(while editing", 1)[1])
        assert named and all(edits.get(name, 0) >= 3 for name in named), (rule, edits)


def test_the_files_the_person_has_updated_after_the_work_are_told_when_asked_in_two_sessions(told):
    # ReleaseNotes.md and README.md were each asked for after a fix in two sessions: what a change is not
    # done without. One request alone is a one-off and stays in MEMORY.md.
    upkeep = [r for r in section(told["summary"], "Preferences and conventions") if "along with a change" in r]
    assert any("`ReleaseNotes.md`" in rule for rule in upkeep), upkeep
    assert all(re.search(r"\((?:[2-9]|\d\d+) sessions", rule) for rule in upkeep), upkeep


def test_the_skills_are_named_in_one_line_not_a_line_each(told):
    # each restates a command the briefing tells already, and an installed agent has them as its own skills
    deeper = section(told["summary"], "Where to look deeper")
    skills = git(told["repo"], "ls-tree", "--name-only", f"{told['branch']}:skills").split()
    assert len(skills) >= 2, skills
    lines = [line for line in deeper if "skills/" in line]
    assert len(lines) == 1 and all(f"`{name}`" in lines[0] for name in skills), lines


def test_the_linter_s_configuration_is_told_as_the_last_session_left_it(told):
    # four sessions changed .golangci.yml; one added `stylecheck`, the last removed it again (golangci-lint
    # v2 has it inside staticcheck): the briefing tells the file's last state and MEMORY.md the earlier ones
    # as superseded
    told_lint = [r for r in section(told["summary"], "Preferences and conventions") if r.startswith("Linting (")]
    assert len(told_lint) == 1 and "`.golangci.yml`" in told_lint[0], told_lint
    assert "internal/graph/generated" in told_lint[0] and "stylecheck" not in told_lint[0]
    superseded = git(told["repo"], "show", f"{told['branch']}:MEMORY.md").partition("## Superseded")[2]
    assert "~~Linting (`.golangci.yml`) enables `staticcheck`, `unparam`, `nilnil`, `govet` and `stylecheck`" in superseded
