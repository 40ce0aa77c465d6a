"""What the project's CI runs and what its linter checks and skips are conventions of the project, told as
the session left the file: followed through its writes, reads and edits, never from a state the session
did not see whole."""

from __future__ import annotations

from pathlib import Path

from memgit.extract import heuristic
from memgit.extract.heuristic import checks
from memgit.extract.heuristic.standing import standing
from memgit.sources.claude_code.reader import read_transcript
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import FIXTURES, needs_shared

CWD = "/home/u/dev/pinion"
WORKFLOW = f"{CWD}/.github/workflows/ci.yml"
FILE = """name: CI
on:
  push:
    branches: [ main ]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        node-version: [20, 22]
    steps:
    - uses: actions/checkout@v4
    - run: npm ci
    - name: Test
      run: |
        echo "testing on ${{ matrix.node-version }}"
        npm test
    - run: npm run lint
"""


def _learned(tmp_path: Path, build) -> list[str]:
    w = SessionWriter(session_id("ci"), CWD)
    w.user("Add a CI workflow that runs the tests and the linter")
    build(w)
    w.assistant("The workflow is in place.")
    t = read_transcript(w.write(tmp_path))
    note = heuristic.extract(t, project="pinion").note  # None: nothing learned, no note
    return [item.text for item in note.learnings] if note else []


def _ci(learned: list[str]) -> list[str]:
    return [text for text in learned if text.startswith("CI (")]


def test_a_written_workflow_is_told_with_its_triggers_versions_and_own_commands(tmp_path):
    learned = _learned(tmp_path, lambda w: w.tool("Write", {"file_path": WORKFLOW, "content": FILE}, "File created"))
    assert _ci(learned) == ["CI (`.github/workflows/ci.yml`) runs on pushes to main, with Node 20 and 22: "
                            "`npm ci`, `npm test`, `npm run lint`."]  # no action, no echo, no template
    assert standing(_ci(learned)[0])  # the project's setup: it reaches the briefing on its own


def test_the_file_as_the_session_left_it_is_told_after_its_edits(tmp_path):
    def build(w: SessionWriter) -> None:
        w.tool("Write", {"file_path": WORKFLOW, "content": FILE}, "File created")
        w.edit(WORKFLOW, "    - run: npm run lint\n", "    - run: npm run lint\n    - run: npm run typecheck\n")
        w.edit(WORKFLOW, "  push:\n    branches: [ main ]\n", "  push:\n  pull_request:\n")
    assert _ci(_learned(tmp_path, build)) == [
        "CI (`.github/workflows/ci.yml`) runs on every push to any branch and on every pull request, "
        "with Node 20 and 22: `npm ci`, `npm test`, `npm run lint`, `npm run typecheck`."]


def test_a_file_read_whole_then_edited_is_followed_and_a_file_never_seen_is_not_told(tmp_path):
    numbered = "\n".join(f"{i:6}→{line}" for i, line in enumerate(FILE.splitlines(), 1))

    def read_then_edit(w: SessionWriter) -> None:
        w.tool("Read", {"file_path": WORKFLOW}, numbered)
        w.edit(WORKFLOW, "    - run: npm run lint\n", "")
    assert _ci(_learned(tmp_path, read_then_edit)) == [
        "CI (`.github/workflows/ci.yml`) runs on pushes to main, with Node 20 and 22: `npm ci`, `npm test`."]

    def edited_then_read(w: SessionWriter) -> None:  # an edit of a file not yet seen, then the file read whole
        w.edit(WORKFLOW, "    - run: npm test\n", "    - run: npm run test:all\n")
        w.tool("Read", {"file_path": WORKFLOW}, numbered)
        w.tool("Read", {"file_path": WORKFLOW}, "File unchanged since last read. Refer to the earlier result.")
    assert _ci(_learned(tmp_path, edited_then_read)) == [
        "CI (`.github/workflows/ci.yml`) runs on pushes to main, with Node 20 and 22: `npm ci`, `npm test`, "
        "`npm run lint`."]  # the read shows the file as it is

    def edit_unseen(w: SessionWriter) -> None:  # the rest of the file is unknown: nothing is told of it
        w.edit(WORKFLOW, "    - run: npm run lint\n", "    - run: npm run lint\n    - run: npm run typecheck\n")
    assert _ci(_learned(tmp_path, edit_unseen)) == []


def test_an_edit_that_does_not_apply_or_was_turned_down_leaves_the_file_unknown_or_unchanged(tmp_path):
    def missed(w: SessionWriter) -> None:
        w.tool("Write", {"file_path": WORKFLOW, "content": FILE}, "File created")
        w.edit(WORKFLOW, "    - run: make check\n", "    - run: make all\n")  # not in the file as the session saw it
    assert _ci(_learned(tmp_path, missed)) == []

    def patched(w: SessionWriter) -> None:  # a patch (as Codex edits) is not applied here: the state is unknown
        w.tool("Write", {"file_path": WORKFLOW, "content": FILE}, "File created")
        w.tool("Edit", {"file_path": WORKFLOW, "patch": "@@\n-    - run: npm test\n+    - run: npm run test:all\n"}, "ok")
    assert _ci(_learned(tmp_path, patched)) == []

    def declined(w: SessionWriter) -> None:
        w.tool("Write", {"file_path": WORKFLOW, "content": FILE}, "File created")
        w.declined("Edit", {"file_path": WORKFLOW, "old_string": "npm test", "new_string": "npm run test:all"})
    assert "`npm test`" in _ci(_learned(tmp_path, declined))[0]


def test_a_gitlab_pipeline_and_files_that_are_not_workflows():
    gitlab = "stages: [test]\ntest:\n  stage: test\n  script:\n    - go vet ./...\n    - go test ./...\n"
    assert checks.describe(".gitlab-ci.yml", gitlab) == "CI (`.gitlab-ci.yml`) runs: `go vet ./...`, `go test ./...`."
    assert checks.describe(".gitlab-ci.yml", "jobs:\n  a:\n    steps:\n    - uses: actions/checkout@v4\n") is None  # runs nothing
    assert checks.describe(".github/workflows/x.yml", "on: [push\n") is None  # does not parse
    assert checks.describe(".github/workflows/x.yml", "[" * 3000) is None  # nested past the parser's recursion
    assert checks.describe(".github/workflows/x.yml", "on: 5\njobs: 7") is None  # parses, but is no workflow
    assert checks.describe(".github/workflows/r.yml", "on: release\njobs:\n  a:\n    steps:\n    - run: make dist\n") \
        == "CI (`.github/workflows/r.yml`) runs on releases: `make dist`."


GOLANGCI = """version: "2"
linters:
  enable:
    - staticcheck
    - govet
  exclusions:
    paths:
      - .git
      - node_modules
      - internal/graph/generated  # gqlgen
      - _test\\.go
formatters:
  enable: [gofumpt]
"""


def test_a_linter_s_configuration_says_what_it_checks_and_what_it_skips():
    assert checks.describe(".golangci.yml", GOLANGCI) == (
        "Linting (`.golangci.yml`) enables `staticcheck` and `govet`, formats with `gofumpt` and skips "
        "`internal/graph/generated` and `_test.go`.")  # what every project skips is left out
    v1 = "linters:\n  enable: [errcheck]\nissues:\n  exclude-dirs: [api/gen]\n"
    assert checks.describe("sub/.golangci.yaml", v1) == "Linting (`sub/.golangci.yaml`) enables `errcheck` and skips `api/gen`."
    ruff = '[project]\nname = "x"\n[tool.ruff]\nextend-exclude = ["migrations"]\n[tool.ruff.lint]\nselect = ["E", "F", "I"]\nignore = ["E501"]\n'
    assert checks.describe("pyproject.toml", ruff) == (
        "Linting (`pyproject.toml`) selects rules `E`, `F` and `I`, ignores `E501` and skips `migrations`.")
    assert checks.describe("pyproject.toml", '[project]\nname = "x"\n') is None  # no linter configured there
    assert checks.describe(".golangci.yml", "run:\n  timeout: 5m\n") is None  # says nothing a newcomer acts on


def test_the_git_hooks_say_what_runs_before_each_commit_or_push():
    pre_commit = ("repos:\n- repo: https://github.com/astral-sh/ruff-pre-commit\n  rev: v0.6.0\n  hooks:\n"
                  "  - id: ruff\n  - id: ruff-format\n- repo: local\n  hooks:\n  - id: mypy\n")
    assert checks.describe(".pre-commit-config.yaml", pre_commit) == (
        "Git hooks (`.pre-commit-config.yaml`) run `ruff`, `ruff-format` and `mypy` before each commit.")
    husky = '#!/usr/bin/env sh\n. "$(dirname -- "$0")/_/husky.sh"\n\nnpx lint-staged\nnpm run validate:secrets\n'
    assert checks.describe(".husky/pre-commit", husky) == (
        "Git hooks (`.husky/pre-commit`) run `npx lint-staged` and `npm run validate:secrets` before each commit.")
    assert checks.describe("web/.husky/pre-push", "npm test\n") == "Git hooks (`web/.husky/pre-push`) run `npm test` before each push."
    assert checks.describe(".husky/pre-commit", "#!/bin/sh\n# nothing yet\n") is None
    assert standing("Git hooks (`.husky/pre-push`) run `npm test` before each push.")


def test_of_two_sessions_states_of_one_file_the_later_is_the_file_it_describes():
    from memgit.extract.heuristic.standing import configured_file

    assert configured_file("Linting (`.golangci.yml`) enables `govet`.") == ".golangci.yml"
    assert configured_file("CI (`.github/workflows/ci.yml`) runs: `make`.") == ".github/workflows/ci.yml"
    assert configured_file("The CI (`x`) is slow") is None


@needs_shared
def test_the_scale_project_s_lint_configuration_is_told_as_the_session_left_it():
    # cc-backend b6fee4c0: the agent read .golangci.yml whole, added a linter, then, asked, moved the test
    # files into the exclusions and skipped the generated GraphQL and Swagger code
    path = next((FIXTURES.parent / "scale" / "cc-backend" / "claude").rglob("b6fee4c0-*.jsonl"))
    note = heuristic.extract(read_transcript(path), project="cc-backend").note
    told = [item for item in note.learnings if item.text.startswith("Linting (")]
    assert [item.text for item in told] == [
        "Linting (`.golangci.yml`) enables `staticcheck`, `unparam`, `nilnil`, `govet` and `stylecheck`, formats with "
        "`gofumpt` and skips `internal/graph/generated`, `internal/api/docs.go` and `_test.go`."]
    assert standing(told[0].text)
    # "Also do not apply linting for the tests", said in the turn that edited it, is in the file as left
    assert not any("linting for the tests" in item.text for item in note.learnings)


@needs_shared
def test_the_fixture_s_workflow_is_told_as_it_ended():
    # claude-code-log fe869ecb: the agent wrote the workflow for pushes to main, made the pyright step
    # continue on error, then, corrected, ran it on every push and let pyright fail the build again
    path = next((FIXTURES / "claude").rglob("fe869ecb-*.jsonl"))
    learned = [item for item in heuristic.extract(read_transcript(path), project="claude-code-log").note.learnings]
    told = [item for item in learned if item.text.startswith("CI (")]
    assert [item.type for item in told] == ["convention"]
    assert told[0].text == (
        "CI (`.github/workflows/ci.yml`) runs on every push to any branch and on pull requests to main, with Python "
        "3.12 and 3.13: `uv sync --all-extras --dev`, `uv run pytest`, `uv run ruff check`, "
        "`uv run ruff format --check`, `uv run pyright`.")
    assert not any("continue-on-error" in item.text for item in learned)
    # "does it only run on main? I think we should run it on all push?": the workflow as left says it
    assert not any("we should run it on all push" in item.text for item in learned)


def test_a_file_only_read_or_of_another_repository_is_not_told(tmp_path):
    numbered = "\n".join(f"{i:6}→{line}" for i, line in enumerate(FILE.splitlines(), 1))
    assert _ci(_learned(tmp_path, lambda w: w.tool("Read", {"file_path": WORKFLOW}, numbered))) == []
    scratch = "/tmp/try-act/.github/workflows/ci.yml"  # a repository the agent made to try something
    assert _ci(_learned(tmp_path, lambda w: w.tool("Write", {"file_path": scratch, "content": FILE}, "ok"))) == []
    assert checks._in_project(WORKFLOW, f"{CWD}/web")  # the session ran in a folder of the repository
    assert checks._in_project(f"{CWD}/web/.golangci.yml", CWD)


def test_a_codex_patch_that_adds_then_updates_a_workflow_is_followed():
    # as memgit.sources.codex.tools reads an apply_patch: the patch text under `input`, its files listed
    from memgit.core.model import ToolCall
    from tests.unit.test_heuristic import CWD as HCWD, agent, extract, texts, user

    def patch(body: str) -> ToolCall:
        files = [f"{HCWD}/.github/workflows/ci.yml"]
        return ToolCall("p", "apply_patch", {"input": f"*** Begin Patch\n{body}*** End Patch\n", "files": files,
                                             "file_path": files[0]}, "Success.", False, True, kind="edit")

    added = "*** Add File: .github/workflows/ci.yml\n" + "".join(f"+{line}\n" for line in FILE.splitlines())
    update = ("*** Update File: .github/workflows/ci.yml\n@@\n   push:\n-    branches: [ main ]\n+    branches: [ main, next ]\n")
    note = extract(user("Add CI that runs the tests and the linter"), agent(patch(added)),
                   agent(patch(update), text="Done.")).note
    assert [t for t in texts(note, "convention") if t.startswith("CI (")] == [
        "CI (`.github/workflows/ci.yml`) runs on pushes to main and next, with Node 20 and 22: `npm ci`, `npm test`, "
        "`npm run lint`."]
    unseen = extract(user("Run CI on the next branch too"), agent(patch(update), text="Done.")).note
    assert not [t for t in texts(unseen, "convention") if t.startswith("CI (")]  # the file was never seen whole


def _remarks(tmp_path: Path, said: str, build) -> tuple[list[str], list[str]]:
    """The note's CI statements and the person's rules after a session that wrote the workflow, then
    heard `said` and did `build`."""
    w = SessionWriter(session_id("remark"), CWD)
    w.user("Add a CI workflow that runs the tests and the linter")
    w.tool("Write", {"file_path": WORKFLOW, "content": FILE}, "File created")
    w.assistant("The workflow is in place.")
    w.user(said)
    build(w)
    w.assistant("Done.")
    learned = heuristic.extract(read_transcript(w.write(tmp_path)), project="pinion").note.learnings
    texts = [item.text for item in learned]
    return _ci(texts), [item.text for item in learned
                        if item.type in ("preference", "convention") and not item.text.startswith("CI (")]


def test_a_remark_the_file_as_left_holds_leaves_the_note_and_one_it_does_not_stays(tmp_path):
    said = "Don't test on Node 20 any more, we only support Node 22 from now on."
    drop_20 = "        node-version: [20, 22]\n", "        node-version: [22]\n"
    told, rules = _remarks(tmp_path / "a", said, lambda w: w.edit(WORKFLOW, *drop_20))
    assert told == ["CI (`.github/workflows/ci.yml`) runs on pushes to main, with Node 22: `npm ci`, `npm test`, "
                    "`npm run lint`."]
    assert not any("Node 20" in text for text in rules)  # the file as the session left it says it

    elsewhere = f"{CWD}/package.json", '"node": "20"', '"node": "22"'
    told, rules = _remarks(tmp_path / "b", said, lambda w: w.edit(*elsewhere))
    assert any("Node 20" in text for text in rules)  # the turn left the workflow alone: the rule stands apart

    unknown = "        node-version: [18, 20]\n", "        node-version: [22]\n"  # does not apply: state unknown
    told, rules = _remarks(tmp_path / "c", said, lambda w: w.edit(WORKFLOW, *unknown))
    assert told == [] and any("Node 20" in text for text in rules)
