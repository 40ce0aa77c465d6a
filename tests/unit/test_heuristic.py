"""The heuristic extractor on hand-built transcripts: what becomes a learning, and what must not.

The sentences are taken from the real sessions in ../shared/fixtures/transcripts (named in each
table), so each rule is shown on what people and agents actually write.
"""

from __future__ import annotations

import re

import pytest

from memgit.extract import heuristic
from memgit.extract.heuristic.text import own_words
from memgit.extract.heuristic import filters, preferences, rank
from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.shell import parse, verbatim
from memgit.core.model import LEARNING_TYPES, Extraction, Note, ToolCall, Transcript, Turn

CWD = "/home/u/dev/pinion"
_ids = iter(range(10**9))


def user(text: str, kind: str = "prompt", *, sidechain: bool = False) -> Turn:
    return Turn("user", text, kind, sidechain=sidechain)


def agent(*calls: ToolCall, text: str = "", sidechain: bool = False) -> Turn:
    return Turn("assistant", text, "message", tool_calls=list(calls), sidechain=sidechain)


def bash(command: str, output: str = "", *, error: bool = False, answered: bool = True) -> ToolCall:
    return ToolCall(f"t{next(_ids)}", "Bash", {"command": command}, output, error, answered, kind="shell")


def edit(path: str) -> ToolCall:
    return ToolCall(f"t{next(_ids)}", "Edit", {"file_path": path}, "ok", False, True, kind="edit")


def call(name: str, output: str = "ok", *, error: bool = False, **inputs) -> ToolCall:
    from memgit.sources.claude_code.tools import kind  # these tests speak Claude Code's tool names

    return ToolCall(f"t{next(_ids)}", name, inputs, output, error, True, kind=kind(name))


def rejected(words: str) -> ToolCall:
    refused = call("Edit", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it "
                           f"was a file edit, the new_string was NOT written to the file). To tell you how to proceed, "
                           f"the user said:\n{words}", error=True, file_path=f"{CWD}/a.py")
    refused.declined = words  # as the Claude Code reader marks it (tests/unit/test_claude_parse.py)
    return refused


INTERRUPT = Turn("user", "[Request interrupted by user for tool use]", "interrupt")


def transcript(*turns: Turn, title: str | None = None) -> Transcript:
    return Transcript(
        session_id="6f1c2e4a-0b1d-4c39-9a65-0c9d0f5a7e11", agent="claude-code", source="/x.jsonl", cwd=CWD,
        git_branch="feat/sync", started="2026-11-20T10:00:03Z", ended="2026-11-20T11:12:40Z", title=title,
        turns=list(turns),
    )


def extract(*turns: Turn, title: str | None = None) -> Extraction:
    return heuristic.extract(transcript(*turns, title=title), project="pinion")


def note_of(*turns: Turn, title: str | None = None) -> Note:
    result = extract(*turns, title=title)
    assert result.note is not None, result.reason
    return result.note


def texts(note: Note | None, *kinds: str) -> list[str]:
    """The learnings of those kinds; none when the session was a skip (no note)."""
    return [learning.text for learning in note.learnings if learning.type in kinds] if note else []


def learned(*turns: Turn, kinds: tuple[str, ...] = ("preference", "convention")) -> list[str]:
    """What a session, note or skip, learned of those kinds."""
    return texts(extract(*turns).note, *kinds)


def everything(note: Note) -> str:
    return "\n".join([note.title, note.summary, *(learning.text for learning in note.learnings)])


WORK = (user("Fix the sync"), agent(edit(f"{CWD}/sync.py"), text="I've updated `sync.py`."))


def after_work(*turns: Turn) -> Note:
    """A session in which the agent did some work first, then the given turns."""
    return note_of(*WORK, *turns)


# -- preferences: standing rules and corrections, not one-off instructions ------------------------

RULES = [  # (what the person typed, type, the learning)
    # 8e_0a64736bc7 (entire-cli): a rule stated with the first request
    ("I'm working on linear ENT-98. keep our working documentation in linear.", "preference",
     "Keep our working documentation in linear."),
    ("don't use emoji in commit messages", "preference", "Don't use emoji in commit messages."),
    ("Never push directly to main.", "preference", "Never push directly to main."),
    ("I prefer small focused commits.", "preference", "The user prefers small focused commits."),
    ("Use pnpm instead of npm.", "convention", "Use pnpm instead of npm."),
    ("We use uv for everything in this repo.", "convention", "The project uses uv for everything in this repo."),
    ("I don\u2019t want you to touch the migrations.", "convention", "Don't touch the migrations."),
    ("Thanks. From now on, write tests with pytest, not unittest.", "preference",
     "From now on, write tests with pytest, not unittest."),
    ("Add logging. Always use structlog, never print.", "convention", "Always use structlog, never print."),
    ("Fix it but keep the complexity low", "preference", None),  # not a directive of its own: a one-off
]


@pytest.mark.parametrize(("prompt", "kind", "text"), RULES, ids=[r[0][:40] for r in RULES])
def test_a_stated_rule_becomes_a_clean_standalone_learning(prompt, kind, text):
    turns = (user(prompt), agent(edit(f"{CWD}/a.py"), text="Done."), user("thanks"))
    if text is None:
        assert learned(*turns) == []
    else:
        assert [(l.type, l.text) for l in note_of(*turns).learnings if l.text == text] == [(kind, text)]


ONE_OFF = [  # one-off instructions for the task at hand, from the fixtures: never a preference
    "yes, fix it",  # ad_a8171575ce (entire-cli)
    "can we add a simple tests assuming we have tests for logging?",  # 37_995ebed6e4
    "There's only a README.md and LICENSE there, please also fill in the readme",  # 9e953218 (claude-code-log)
    "ok, let's implement this",  # cd_95adddad32
    "Implement 1,2 and 3.",  # 37_995ebed6e4
    "Can you make sure the tests pass?",
    "Don't change this file yet",
    "I don't know why this fails",
    "don't worry about the flaky test, fix the parser",
]


@pytest.mark.parametrize("prompt", ONE_OFF)
def test_one_off_instructions_are_not_preferences(prompt):
    assert learned(*WORK, user(prompt), agent(edit(f"{CWD}/b.py"), text="Done: updated `b.py`.")) == []


CORRECTIONS = [  # the person pushing back on what the agent did, kept whole in their words
    # 37f83ec9 (claude-code-log)
    "oh, I didn't find those cross-session navigation links helpful, can you please replace them with a single "
    "link to the combined transcript instead?",
    # cd_95adddad32 (entire-cli)
    "no remove this again, the risk someone assumes it's a stable link is to big",
    # 37f83ec9: asked as a question, still pushback
    "could we reuse claude_code_log/templates/components/session_nav.html for that? looks like it's very similar?",
]


@pytest.mark.parametrize("words", CORRECTIONS, ids=[c[:40] for c in CORRECTIONS])
def test_a_correction_is_kept_whole_in_the_person_own_words(words):
    note = after_work(user(words), agent(edit(f"{CWD}/b.py"), text="Done."))
    [found] = texts(note, "preference", "convention")
    assert found == f'The user corrected the agent: "{preferences.strip_filler(words)}"'
    assert "instead" in found or "remove this again" in found or "reuse" in found


def test_words_typed_when_rejecting_a_tool_call_are_a_correction():
    # ad_a8171575ce (entire-cli): the rejected edit, and what the person typed
    note = after_work(agent(rejected("any chance we can consolidate this code?")),
                      agent(edit(f"{CWD}/common.go"), text="Good call, one helper now."))
    assert 'The user corrected the agent: "any chance we can consolidate this code?"' in texts(
        note, "preference", "convention")


def test_after_an_interruption_a_redirect_is_a_correction_and_a_resume_is_not():
    # 8a2518dd (agentcmd): the person stopped the agent and redirected it
    redirect = after_work(INTERRUPT, user("Completely outside the search bar entirely"), agent(edit(f"{CWD}/b.tsx")))
    assert texts(redirect, "preference", "convention") == [
        'The user corrected the agent: "Completely outside the search bar entirely"']
    # 1e_868c83dbb7 (entire-cli): "continue" resumes the agent, it corrects nothing
    assert learned(*WORK, INTERRUPT, user("continue, network should be better now"), agent(edit(f"{CWD}/b.go"))) == []


def test_the_first_request_is_never_a_correction():
    # 37_995ebed6e4 (entire-cli): "we should" opens the session; nothing of the agent's to correct yet
    found = learned(user("We should add the agent name to any logging"), agent(edit(f"{CWD}/logger.go")))
    assert not any(t.startswith("The user corrected") for t in found)


def test_a_pasted_document_is_not_the_person_pushing_back():
    # cb2e607c (claude-code-log): uv's documentation, pasted; "instead" is the docs' word, not the person's
    pasted = ("For brevity, the documentation will mostly refer to uvx instead of uv tool run. Tools can also be "
              "installed with uv tool install, in which case their executables are available on the PATH.")
    assert learned(*WORK, user(pasted), agent(edit(f"{CWD}/README.md"))) == []


def test_a_document_pasted_after_the_person_points_at_it_is_neither_their_rule_nor_their_report():
    # cb2e607c (claude-code-log): "Does this doc page help?" and uv's page on tools under it; the page
    # says "useful if you need …" and "… are not installed", neither the person's rule nor a symptom
    page = ("Tools are Python packages that provide command-line interfaces.\n\nNote\n\n"
            "Installing the tool is useful if you need the tool to be available to other programs on your system, "
            "e.g., if some script you do not control requires the tool.\n\n"
            "Executables provided by dependencies of tool packages are not installed.\n\n"
            "Because it is very common to run tools without installing them, a uvx alias is provided for uv tool run "
            "and the two commands are exactly equivalent.")
    asked = "We need to find a cleaner way to reinstall without hunting for cached files. Does this doc page help?"
    turns = (*WORK, user(f"{asked}\n\n{page}"), agent(edit(f"{CWD}/README.md"), text="Use `uv tool install --reinstall .`"))
    found = learned(*turns, kinds=("preference", "convention", "gotcha", "fact"))
    assert not any("useful if you need" in t or "not installed" in t for t in found), found
    assert own_words(f"{asked}\n\n{page}") == asked
    # a short follow-up is the person's own, and a list after a colon is too
    assert own_words(f"{asked}\nIt says to reinstall.") == f"{asked}\nIt says to reinstall."
    listed = "Fix these points of the guide below:\n" + "\n".join(f"{i}. the step {i} is wrong, it needs a flag" for i in range(20))
    assert own_words(listed) == listed


def test_only_the_person_own_words_count():
    rule = "Never use emoji in commit messages."
    assert learned(
        user("Fix the parser"),
        user(rule, sidechain=True),  # a subagent prompt, written by the agent
        user(f"<command-name>/review</command-name> {rule}", "command"),
        agent(edit(f"{CWD}/parser.py"), text="Done."),
    ) == []


# -- the filter stage ------------------------------------------------------------------------------

FILTERED = [  # (text, why it is no learning)
    ("Here's what's happening:", "fragment"),  # ad_a8171575ce: introduces what follows
    ("So for `hooks_git_cmd.go`, we can do:", "fragment"),  # 37_995ebed6e4
    ("and then the shadow branch is reset", "fragment"),
    ("Works now.", "fragment"),  # under four words
    ("The tokenizer lives in `public/tokenizer`, see `next", "fragment"),  # cut mid-code-span
    ("Perfect! Now let's test the fix:", "fragment"),  # 37f83ec9
    ("File: `internal/repository/dbConnection.go:82`", "fragment"),  # 520afa6a (cc-backend): a plan's label, no statement
    ("Let me check how `GetCurrentHookAgent` works and what happens when it fails.", "narration"),  # ad_a8171575ce
    ("Would you like me to help set this up?", "narration"),  # 9e953218
    ("GitHub Action is working.", "narration"),  # fe869ecb: a status of the moment
    ("You're absolutely right! Looking back at the document, even with suffixes, scenario 5 stays.", "narration"),
    ("fatal: clone of 'git@github.com:daaain/online-llm-tokenizer.git' into submodule path failed",
     "not prose"),  # 9e953218: a pasted Vercel build log
    ('"mimeType": "text/html; charset=utf-8"', "not prose"),  # 9e953218: a pasted HAR
    ("Traceback (most recent call last): File x.py in <module>", "not prose"),
    ("Fixed in commit 5ea305f67ff76bfb498a20a174b387c516f23f60 on the branch.", "ephemeral"),  # ef958aa1
    ("The API error was request req_011CXoLzhgZytppExZLb9Nrw from the gateway.", "ephemeral"),  # ad_ac80fffbb8
    ("The screenshot was taken at 2025-10-24 14:54 on the laptop.", "ephemeral"),
    ("Review comments are on platform-frontend-next/pull/278 for this.", "ephemeral"),  # cb2e607c
    # the codex and gemini fixtures: a question to the person, the session's own tools, a state of the moment
    ("Please provide the text you would like to add to `test-gemini.txt`.", "narration"),  # faff42ab
    ("Available tool groups in this session: `web`: internet/search, open pages.", "ephemeral"),  # 019e1625
    ("Switching to a new branch from `main` isn't possible right now because there are uncommitted changes.",
     "ephemeral"),  # 01997e76
    ("All three checks are green: `pnpm lint`; `pnpm test`; `pnpm check-types`.", "narration"),  # 01997e76
    ("Branch `fix/team-optimization-v2` is now pushed (GitHub will suggest a PR here).", "narration"),  # 01997e76
    ("Here are 5 weak points of the `dev-docs/` vs `work/` convention.", "narration"),  # 03eb5929: introduces a list
    ("Done; the tests pass with `uv run pytest -x tests/`.", "narration"),  # a report of the moment, any punctuation
    ("The tool is now installed and I've verified it works from any directory.", "narration"),  # cb2e607c
    ("This session is being continued from a previous conversation that ran out of context.", "injected"),
    ("<memgit-context> the project is built with uv </memgit-context>", "injected"),
]


@pytest.mark.parametrize(("text", "why"), FILTERED, ids=[f[0][:40] for f in FILTERED])
def test_the_filter_refuses_what_is_no_learning(text, why):
    assert filters.problem(text) == why


KEPT = [
    # ad_a8171575ce: a root cause, stated by the agent
    "The root cause is in `manual_commit_git.go`: both `SaveChanges` and `SaveTaskCheckpoint` use "
    "`DefaultAgentType` when the session state doesn't exist.",
    # 8e_0a64736bc7: a fact about a tool
    "Linear does support issue-level documents, but the MCP server's `create_document` tool only has a "
    "`project` parameter, not an `issue` parameter.",
    "Tests run with `uv run pytest -x tests/`.",
    "Please provide a migration for every schema change.",  # a rule, not a question to the person
    "Releases are published to npm by the CI on every tag.",
]


@pytest.mark.parametrize("text", KEPT, ids=[k[:40] for k in KEPT])
def test_the_filter_keeps_whole_statements(text):
    assert filters.problem(text) is None


def test_scrub_makes_paths_relative_and_drops_line_numbers_and_temporary_files():
    assert filters.scrub(f"`{CWD}/memgit/sync.py:120` returns early (line 688)", CWD) == "`memgit/sync.py` returns early"
    assert filters.scrub("see /Users/dain/.claude/guidelines/work.md", CWD) == "see ~/.claude/guidelines/work.md"
    # 8a2518dd (agentcmd): a screenshot dragged into the prompt
    assert filters.scrub("not the new session button. this one'/var/folders/sr/6t3/T/TemporaryItems/NSIRD_x/"
                         "Screenshot 2025-10-24 at 2.54.54 PM.png' the plus button") == \
        "not the new session button. this one the plus button"


# -- commands: verbatim, the most general form that passed -----------------------------------------

PYTEST_FAIL = """\
==================================== ERRORS ====================================
____________________ ERROR collecting tests/test_sync.py _____________________
ImportError while importing test module '/home/u/dev/pinion/tests/test_sync.py'.
Traceback (most recent call last):
  File "/home/u/dev/pinion/tests/conftest.py", line 3, in <module>
    import pinion
ModuleNotFoundError: No module named 'pinion'
=========================== short test summary info ============================
ERROR tests/test_sync.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
"""
PYTEST_PASS = "============================== 12 passed in 0.84s =============================="


def test_a_command_is_quoted_as_it_ran_without_its_leading_cd():
    note = note_of(
        user("Make the sync tests pass"),
        agent(bash(f"cd {CWD} && uv run pytest -x tests/ 2>&1 | tail -20", PYTEST_PASS), text="All tests pass."),
    )
    assert texts(note, "command") == ["Tests run with `uv run pytest -x tests/ 2>&1 | tail -20`."]
    assert verbatim(f'cd "{CWD}" ; make lint') == "make lint"


def test_the_suite_wins_over_one_test_and_only_passing_runs_count():
    # ad_a8171575ce (entire-cli): the agent ran selected tests, then the suite
    note = note_of(
        user("fix the agent type"),
        agent(bash('go test ./cmd/entire/cli/strategy/ -run "TestA|TestB" -v -count=1', "ok  \tstrategy\t0.4s")),
        agent(bash("go test ./...", "FAIL\tgithub.com/x/y\t0.1s\nFAIL", error=True)),
        agent(bash("mise run test", "ok")),
        agent(bash("go test ./cmd/entire/cli/strategy/", "ok  \tstrategy\t0.5s")),
    )
    # the selected tests are how to run one test, a line of their own (below), never the suite's
    assert texts(note, "command") == ["Tests run with `mise run test`.",
                                      'Run one test with `go test ./cmd/entire/cli/strategy/ -run "NAME" -v -count=1`.']


def test_part_of_the_suite_gives_way_to_a_chain_that_ran_all_of_it():
    # 130d7b7e (entire-cli): one package's tests, then the project's fmt, lint and test chain
    note = note_of(
        user("we should add the agent name to any logging"),
        agent(bash("go test ./cmd/entire/cli/logging/... -v", "ok  \tlogging\t0.3s")),
        agent(bash("mise run fmt && mise run lint && mise run test", "ok")),
    )
    assert texts(note, "command") == ["Format, lint and test with `mise run fmt && mise run lint && mise run test`."]


def test_one_command_per_purpose():
    runs = [agent(bash(f"uv run pytest tests/test_{i}.py -v", PYTEST_PASS)) for i in range(4)]
    runs += [agent(bash(cmd, "ok")) for cmd in ("uv run pytest", "ruff check .", "ruff format .", "uv run mypy src")]
    commands = texts(note_of(user("check everything"), *runs), "command")
    assert commands == ["Tests run with `uv run pytest`.", "Lint with `ruff check .`.", "Type-check with `uv run mypy src`.",
                        "Format with `ruff format .`."] or sorted(commands) == sorted(
        ["Tests run with `uv run pytest`.", "Lint with `ruff check .`.", "Type-check with `uv run mypy src`.",
         "Format with `ruff format .`."])


def test_a_command_whose_output_shows_failures_did_not_pass():
    piped = "FAIL\tgithub.com/x/y/strategy\t0.4s\nFAIL\n[test] ERROR task failed"
    result = extract(user("run the tests"), agent(bash("mise run test 2>&1 | tail -5", piped)), agent(edit("x.go")))
    assert result.note is None or texts(result.note, "command") == []


PARSED = [
    (f"cd {CWD} && uv run pytest -x tests/ -v", "uv run pytest -x tests/", ("test",)),
    ("python -m pytest tests/unit/test_a.py::test_b -q", "python -m pytest", ("test",)),
    ("npm run build 2>&1 | tail -20", "npm run build", ("build",)),
    ("go test ./cmd/x/strategy/ -run TestFoo -v", "go test", ("test",)),
    ("mise run fmt && mise run lint && mise run test", "mise run fmt && mise run lint && mise run test",
     ("format", "lint", "test")),
    ("bash -lc 'uv run mypy memgit'", "uv run mypy memgit", ("typecheck",)),
    ("./gradlew test", "./gradlew test", ("test",)),
    # a monorepo's package, picked by the package manager's own options (codex fixture 01997e76)
    ("pnpm --filter @repo/spectora-labs lint", "pnpm --filter @repo/spectora-labs lint", ("lint",)),
    ("pnpm --filter @repo/spectora-labs check-types", "pnpm --filter @repo/spectora-labs check-types", ("typecheck",)),
    ("npm -w packages/api run build", "npm -w packages/api run build", ("build",)),
    ("yarn --cwd web test", "yarn --cwd web test", ("test",)),
    ("npm run typecheck", "npm run typecheck", ("typecheck",)),
    # a submodule is a dependency: bringing it up to date is setting up (fixture 9e953218, run three times)
    (f"cd {CWD} && git submodule update --remote public/tokenizer && git add public/tokenizer && git status",
     "git submodule update --remote public/tokenizer", ("install",)),
    ("git submodule update --init --recursive && yarn run build", "git submodule update --init --recursive && "
     "yarn run build", ("install", "build")),
]


def test_a_monorepo_package_s_checks_are_its_commands():
    checks = ["lint", "test", "check-types"]
    runs = [agent(bash(f"pnpm --filter @repo/app {c}", "Tests  245 passed (245)" if c == "test" else "done"))
            for c in checks]
    assert sorted(texts(note_of(user("make the team sheet load faster"), *runs), "command")) == [
        "Lint with `pnpm --filter @repo/app lint`.", "Tests run with `pnpm --filter @repo/app test`.",
        "Type-check with `pnpm --filter @repo/app check-types`."]


@pytest.mark.parametrize(("command", "key", "categories"), PARSED)
def test_commands_are_classified_and_grouped_by_what_they_do(command, key, categories):
    shell = parse(command)
    assert shell is not None and (shell.text, shell.categories) == (key, categories)


@pytest.mark.parametrize("command", ["git status", "ls -la", "uv run python -c 'print(1)'", "cat pytest.ini",
                                     "grep -rn pytest .", "git commit -m 'x' <<EOF\nmsg\nEOF", None, "",
                                     "git submodule add https://github.com/a/b.git public/b"])  # added once
def test_other_commands_are_not_build_commands(command):
    assert parse(command) is None


# -- gotchas: error, cause, fix; never routine churn ---------------------------------------------------


def test_a_setup_command_between_the_fail_and_the_pass_is_the_fix():
    note = note_of(
        user("run the tests"),
        agent(bash("npm test", "Error: Cannot find module 'vitest'\nRequire stack:\n- /home/u/x.js", error=True)),
        agent(bash("npm install", "added 212 packages in 3s")),
        agent(bash("npm test", "Test Files  4 passed (4)\n     Tests  31 passed (31)")),
    )
    assert texts(note, "gotcha") == [
        "`npm test` failed with \"Error: Cannot find module 'vitest'\"; running `npm install` fixed it."]


def test_a_different_invocation_that_works_is_a_workaround():
    note = note_of(
        user("run the suite"),
        agent(bash("pytest", "bash: pytest: command not found", error=True)),
        agent(bash("uv run pytest", PYTEST_PASS)),
    )
    assert texts(note, "gotcha") == ['`pytest` failed with "bash: pytest: command not found"; `uv run pytest` works.']


def test_the_same_command_with_an_absolute_path_is_no_workaround():
    # 37f83ec9 (claude-code-log): a relative path failed from another directory, the absolute one passed
    note = note_of(
        user("have a look at the git diff of claude_code_log/renderer.py"),
        agent(bash("ruff check claude_code_log/renderer.py", "E902 No such file or directory (os error 2)", error=True)),
        agent(bash(f"ruff check {CWD}/claude_code_log/renderer.py", "All checks passed!")),
    )
    assert texts(note, "gotcha") == []


def test_the_same_command_with_its_paths_corrected_is_a_typo_found_not_a_gotcha():
    # 135c59e3 (scale): a package path that does not exist, then the run with the right packages
    failed = 'go build ./... 2>&1 | head && echo "BUILD OK" && go test ./cmd/... ./internal/api/... 2>&1 | tail -5'
    works = ('go build ./... 2>&1 | head && echo "BUILD OK" && go test ./cmd/... ./internal/api/... '
             './internal/repository/... 2>&1 | tail -6')
    note = note_of(
        user("repeat the security audit"),
        agent(bash(failed, "pattern ./internal/api/...: lstat ./internal/api/: no such file or directory", error=True)),
        agent(bash(works, "BUILD OK\nok  \tgithub.com/x/cc-backend/internal/repository\t1.2s")),
    )
    assert texts(note, "gotcha") == []


LINT = "manual_commit_condensation.go:88:2: Error return value of `baseCommit.Tree` is not checked (errcheck)\n1 issues"


def test_routine_lint_churn_and_failing_assertions_are_not_gotchas():
    # 76_62d755ef9f (entire-cli): lint findings fixed by editing the file, over and over
    lint = extract(user("run the linter and fix it"), agent(bash("mise run lint", LINT, error=True)),
                   agent(edit(f"{CWD}/manual_commit_condensation.go")), agent(bash("mise run lint", "0 issues.")))
    assert lint.note is None or texts(lint.note, "gotcha") == []
    failure = "    assert parse('a') == 1\nE   AssertionError: assert 2 == 1\n=== 1 failed, 3 passed in 0.2s ==="
    assert learned(user("fix the parser"), agent(bash("pytest", failure, error=True)), agent(edit("parser.py")),
                   agent(bash("pytest", "4 passed")), kinds=("gotcha",)) == []


def test_a_reported_problem_and_the_fix_the_agent_made_are_one_gotcha():
    # 9e953218 (claude-code-log): the person pastes Vercel's build log; the agent switches the submodule URL
    log = ("This is annoying, maybe we should use the https repo address?\n\n01:12:38.300\n Host key verification "
           "failed.\n01:12:38.301\n fatal: Could not read from remote repository.\n01:12:38.302\n fatal: clone of "
           "'git@github.com:daaain/online-llm-tokenizer.git' into submodule path '/vercel/path0/public/tokenizer' failed")
    answer = ("Perfect! I've switched the submodule from SSH (`git@github.com:`) to HTTPS (`https://github.com/`). "
              "Now Vercel will be able to clone the submodule during the build process without needing SSH keys.")
    note = after_work(user(log), agent(edit(f"{CWD}/.gitmodules"), text=answer))
    [gotcha] = texts(note, "gotcha")
    assert gotcha.startswith('Problem: "Could not read from remote repository." Fix: Switched the submodule from SSH')
    assert "without needing SSH keys" in gotcha
    assert "01:12" not in everything(note)


def test_the_agent_naming_a_root_cause_is_a_gotcha():
    # ad_a8171575ce (entire-cli), the agent's bug analysis
    analysis = ("OK, I've traced the full flow.\n\n## Bug Analysis\n\n**The root cause is in `manual_commit_git.go`** - "
                "both `SaveChanges` and `SaveTaskCheckpoint` use `DefaultAgentType` (\"Agent\") when the session state "
                "doesn't exist or is partial, completely **ignoring** `ctx.AgentType`.\n\nWant me to go ahead?")
    note = note_of(user("let's debug - ENT-207 in linear"), agent(call("Read", file_path="x.go"), text=analysis))
    assert texts(note, "gotcha") == [
        "The root cause is in `manual_commit_git.go` - both `SaveChanges` and `SaveTaskCheckpoint` use "
        "`DefaultAgentType` (\"Agent\") when the session state doesn't exist or is partial, completely ignoring "
        "`ctx.AgentType`."]


def test_the_agent_thinking_aloud_about_its_own_mistake_is_no_gotcha():
    # 37f83ec9 (claude-code-log): debugging its own test
    musing = ("The issue is that I'm calling `cache_manager.get_cached_project_data()` which returns actual cached "
              "data, but in my test I'm setting `cache_manager.project_data` directly. It looks like the function "
              "is returning `None` because the cache doesn't have real cached data.")
    assert learned(user("add the link"), agent(bash("uv run pytest", "1 failed", error=True), text=musing),
                   agent(edit(f"{CWD}/test_x.py"), text="Fixed the test: `test_x.py` passes."), kinds=("gotcha",)) == []


# -- decisions: a choice with its reason -----------------------------------------------------------------


def test_the_person_choosing_with_a_reason_is_a_decision():
    # 1e_868c83dbb7 (entire-cli)
    said = ("the issue with the old solution is that there is also no way out of the edge case, we could build "
            "that later (and then use suffixed branches) but for now I think that just adds complexity")
    note = after_work(user(said), agent(text="Agreed: one branch, no suffixes."))
    assert any("for now I think that just adds complexity" in t for t in texts(note, "decision", "preference"))


def test_a_change_from_one_choice_to_another_is_a_decision():
    # 8a2518dd (agentcmd)
    answer = ("Done! I've changed the button variant from `\"ghost\"` to `\"default\"`, which will give it the "
              "standard button background color from your theme.")
    note = after_work(user("let's give the button a background"), agent(edit(f"{CWD}/CommandMenu.tsx"), text=answer))
    assert any('`"ghost"` to `"default"`' in t for t in texts(note, "decision"))


PLAN = """# Plan: Resumable Typesense sync

## Context
Currently a crash restarts the import from scratch.

## Approach
Store a cursor after each committed batch and resume from it.

## Decisions
- Keep the batch size at 250 instead of 1000, because larger imports hit the request limit.

## Verification
```bash
uv run pytest tests/test_sync.py
```
"""


def test_an_accepted_plan_is_a_decision_and_a_rejected_one_is_not():
    accepted = call("ExitPlanMode", "User has approved your plan.", plan=PLAN)
    note = note_of(user("plan the resume work"), agent(accepted), agent(edit("sync.py")))
    decisions = texts(note, "decision")
    assert "Plan approved: Resumable Typesense sync. Store a cursor after each committed batch and resume from it." \
        in decisions
    assert "Keep the batch size at 250 instead of 1000, because larger imports hit the request limit." in decisions
    refused = call("ExitPlanMode", "The user doesn't want to proceed with this tool use.", error=True, plan=PLAN)
    refused.declined = ""
    result = extract(user("plan it"), agent(refused), agent(edit("sync.py")))
    assert result.note is None or not any(t.startswith("Plan approved") for t in texts(result.note, "decision"))


LOGOUT_PLAN = """# Plan: Fix the missing logout button

## Context
OIDC users see no logout button after they log in.

**Root cause**: The session cookie in `SaveSession` (`auth.go`) is set to `SameSite=Strict`. The browser drops such a
cookie on the redirect back from the identity provider, so the user lands on the login page.

## Approach
Set the session cookie to `SameSite=Lax`.
"""


def test_the_root_cause_an_approved_plan_was_built_on_is_kept_and_a_declined_plans_is_not():
    # ac9af4ff (cc-backend): the diagnosis stood only in the plan; the answer listed the changes
    accepted = call("ExitPlanMode", "User has approved your plan.", plan=LOGOUT_PLAN)
    note = note_of(user("OIDC users see no logout button, why?"), agent(accepted),
                   agent(edit(f"{CWD}/internal/auth/auth.go"), text="Done: the cookie is `SameSite=Lax` now."))
    # with the sentence that says how the cause does its harm: one statement that reads alone
    assert any("`SameSite=Strict`" in t and "`SaveSession`" in t and "drops such a cookie on the redirect" in t
               for t in texts(note, "gotcha", "fact"))
    declined = call("ExitPlanMode", "The user doesn't want to proceed with this tool use.", error=True,
                    plan=LOGOUT_PLAN)
    declined.declined = ""
    result = extract(user("OIDC users see no logout button, why?"), agent(declined), agent(edit("auth.go")))
    assert not any("SameSite" in t for t in texts(result.note, "gotcha", "fact"))


def test_a_cause_guessed_before_it_was_checked_is_no_fact():
    # bef12fe0 (cc-backend): the first guess was the new snapshot format; the session found the shutdown deadline
    guess = ("The regression must be because the checkpoint format is now binary, and `readBinaryLevel` calls "
             "`binary.Read` for every value.")
    found = ("Writing 5800 binary snapshots takes well over 10s, so the process exits before "
             "`RotateWALFilesAfterShutdown()` runs.")
    note = note_of(user("The startup got much slower since yesterday's change, why?"), agent(text=guess),
                   agent(bash("go build ./cmd/cc-backend", "ok"), text=found))
    told = texts(note, "fact", "gotcha", "decision")
    assert any("`RotateWALFilesAfterShutdown()`" in t for t in told)
    assert not any("must be because" in t for t in told)


def test_a_full_note_keeps_the_persons_rule_and_the_command_over_the_agents_findings():
    # fixtures/scale 3a41c7a4: a note of ten kept four changelog lines of the agent's and lost "The user asks for
    # `README.md` to be updated along with a change"
    findings = [Candidate("decision", f"`module{i}.go`: Changed `Timeout{i}` from 5000 to 60000.", 3.5)
                for i in range(12)]
    rule = Candidate("convention", "The user asks for `README.md` to be updated along with a change.", 3.0)
    command = Candidate("command", "Tests run with `go test ./internal/repository/...`.", 2.5)
    budget = rank.budget_for(1, 0)
    kept = [learning.text for learning in rank.rank([*findings, rule, command], cwd=CWD, budget=budget)]
    assert len(kept) == budget.learnings and rule.text in kept and command.text in kept


def test_a_prompt_carrying_a_plan_titles_the_note():
    note = note_of(user(PLAN, "plan"), agent(edit("sync.py")))  # as a source marks a plan the harness put back
    assert note.title == "Resumable Typesense sync"
    assert note.summary.startswith('The user asked: implement the plan "Resumable Typesense sync".')


# -- facts: how the codebase works, as the agent found it ---------------------------------------------


def test_the_answer_to_a_question_gives_facts_and_what_the_agent_did_does_not():
    # 37_995ebed6e4 (entire-cli)
    answer = ("There's a `GetAgent()` function in `config.go` that returns the configured or detected agent:\n\n"
              "```go\nfunc GetAgent() (agent.Agent, error)\n```\n\nThe returned agent has a `Name()` method that "
              "returns the identifier (e.g., `\"claude-code\"`).\n\nI've added `WithAgent` to `logger.go`.")
    note = after_work(user("how can we know which agent is active ?"), agent(call("Grep"), text=answer))
    facts = texts(note, "fact")
    assert "There's a `GetAgent()` function in `config.go` that returns the configured or detected agent." in facts
    assert any(f.startswith("The returned agent has a `Name()` method") for f in facts)
    assert not any("I've added" in f for f in facts)


COMPACTION = """\
This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
Let me chronologically analyze the conversation: the user said don't use emoji.

Summary:
1. Primary Request and Intent:
   - Make the Typesense sync resumable after a crash

2. Key Technical Concepts:
   - **Sync cursor**: stored in `.pinion/cursor.json`, advanced only after a batch commits
   - Typesense collections

4. Errors and fixes:
   - **"port 8108 already in use" when starting typesense**:
     - Fixed by running `docker rm -f typesense` before `docker compose up`
   - **`cursr` undefined**: typo
     - Fixed by renaming
   - **I thinkt you got an API error?**
     - Fix: Created `.claude/scripts/remote-setup.sh` - automated setup for web sessions

5. Problem Solving:
   - **Solution**: Resume from the last committed cursor instead of re-importing everything
   - **Limitation**: deletes made during the outage are not replayed

6. All user messages:
   - "never use emoji in commits"
"""


def test_a_compaction_summary_gives_facts_decisions_gotchas_and_the_person_rules():
    note = note_of(user("continue"), user(COMPACTION, "compact_summary"), agent(edit("pinion/sync.py")))
    assert "Sync cursor: stored in `.pinion/cursor.json`, advanced only after a batch commits." in texts(note, "fact")
    assert "Resume from the last committed cursor instead of re-importing everything." in texts(note, "decision")
    assert any(t.startswith("Limitation: deletes made during the outage") for t in texts(note, "fact"))
    assert any("`docker rm -f typesense`" in t for t in texts(note, "gotcha"))
    assert not any("cursr" in t for t in texts(note, "gotcha"))  # a typo is not a gotcha
    assert not any("API error" in t for t in texts(note, "gotcha"))  # the person's question is not the error
    assert "Never use emoji in commits." in texts(note, "preference")
    assert "Typesense collections." not in texts(note, "fact")  # names nothing concrete
    assert note.title == "Make the Typesense sync resumable after a crash"


# -- the note: size, outcome, skips, determinism -------------------------------------------------------


def test_a_note_stays_a_page_however_long_the_session():
    turns = [user("Fix the sync")]
    for i in range(60):
        turns += [user(f"No, don't use library{i} here, use the stdlib instead because it has no dependencies."),
                  agent(edit(f"{CWD}/m{i}.py"), text=f"The `m{i}.py` module now reads `config{i}.toml` because the "
                                                     f"loader requires it.")]
    note = note_of(*turns)
    assert len(note.learnings) <= rank.MAX_LEARNINGS
    assert sum(len(t.text) for t in note.learnings) <= rank.MAX_CHARS
    caps = rank.budget_for(61, 0).caps  # a long session's caps: a few more of each type than a short one's
    for kind in LEARNING_TYPES:
        assert len(texts(note, kind)) <= caps[kind] <= rank.CAPS[kind] + 4


READS = [call("Read", file_path="p.py") for _ in range(5)]
OUTCOMES_TABLE = [
    ("last run passes", [user("fix it"), agent(bash("pytest", "1 failed", error=True)), agent(bash("pytest", "3 passed"))],
     "success"),
    ("last run fails", [user("fix it"), agent(bash("pytest", "3 passed")), agent(bash("pytest", "1 failed", error=True))],
     "fail"),
    ("user thanks", [user("fix it"), agent(edit("a.py"), text="Fixed."), user("thanks, works now!")], "success"),
    ("user still broken", [user("fix it"), agent(edit("a.py"), text="Fixed."), user("still broken, same error")],
     "fail"),
    ("interrupted", [user("fix it"), agent(edit("a.py")), user("[Request interrupted by user]", "interrupt")],
     "partial"),
    ("unanswered call", [user("fix it"), agent(edit("a.py")), agent(bash("pytest", answered=False))], "partial"),
    ("agent reports done", [user("rename it"), agent(edit("a.py"), text="Done: renamed and updated imports.")],
     "success"),
    ("agent could not", [user("deploy it"), agent(edit("deploy.yml"), bash("ls")),
                         agent(text="I couldn't deploy: it requires approval.")], "partial"),
    ("no evidence", [user("explain the parser"), agent(*READS), agent(text="It parses input.")], "uncertain"),
]


@pytest.mark.parametrize(("name", "turns", "outcome"), OUTCOMES_TABLE, ids=[o[0] for o in OUTCOMES_TABLE])
def test_outcome_comes_from_the_end_of_the_session(name, turns, outcome):
    turns = [user("Never use emoji in commit messages."), *turns]  # a learning, so that there is a note
    note = note_of(*turns)
    assert note.outcome == outcome
    assert re.search(rf"It ended (?:with|without) [^.]+ \({outcome}\)\.$", note.summary), note.summary


SKIPS = [
    ("empty", [], "no user request"),
    ("slash commands only", [user("/clear", "command"), user("/exit", "command")], "only slash commands"),
    ("warmup", [user("Warmup"), agent(text="Ready.")], "no user request"),
    ("redacted", [user("[REDACTED_PROMPT]"), agent(text="ok")], "no user request"),
    ("a greeting", [user("hi"), agent(text="Hello! How can I help?")], "nothing learned: 1 prompt"),
    ("work with nothing to keep", [user("rename x to y"), agent(edit("a.py"), text="Done.")], "nothing learned"),
    ("subagent only", [user("Explore the repo", sidechain=True), agent(call("Read"), sidechain=True)],
     "no user request"),
]


@pytest.mark.parametrize(("name", "turns", "reason"), SKIPS, ids=[s[0] for s in SKIPS])
def test_a_session_with_nothing_to_keep_is_a_skip_with_a_reason(name, turns, reason):
    result = extract(*turns)
    assert result == Extraction(note=None, reason=result.reason)
    assert result.reason.startswith(reason)


def test_the_note_carries_the_transcript_identity_and_a_title_from_the_first_real_request():
    note = note_of(
        user("hey"),
        user("Hey Claude, can you please fix the Typesense sync tests? They time out. Never mock the network."),
        agent(edit(f"{CWD}/tests/test_sync.py"), text="Done."),
    )
    assert (note.session, note.agent, note.project) == ("claude-code/6f1c2e4a-0b1d-4c39-9a65-0c9d0f5a7e11",
                                                        "claude-code", "pinion")
    assert (note.cwd, note.git_branch, note.started, note.ended) == (CWD, "feat/sync", "2026-11-20T10:00:03Z",
                                                                     "2026-11-20T11:12:40Z")
    assert note.extractor == heuristic.EXTRACTOR == "heuristic/2"
    assert note.title == "Fix the Typesense sync tests"
    assert note.slug == "fix-the-typesense-sync-tests"
    assert note.summary.startswith("The user asked: fix the Typesense sync tests? They time out.")
    assert "\n" not in note.summary


def test_the_agent_closing_summary_tells_the_paragraph_what_was_done():
    # 9e953218 (claude-code-log), the agent's last words
    closing = ("Excellent! Now everything is committed.\n\n1. **Tokenizer repo** has dynamic base tag detection\n"
               "2. **Main repo** has rewrites configured in [next.config.js](next.config.js:190:4-201:6)\n\nReady to push!")
    note = note_of(user("Always deploy from main."), agent(edit(f"{CWD}/next.config.js"), text=closing))
    assert "In the end: " in note.summary and "rewrites configured in next.config.js" in note.summary
    assert "Ready to push" not in note.summary


def test_extraction_is_deterministic():
    turns = [
        user("Never use emoji in commit messages. Fix the sync."),
        agent(bash("uv run pytest", PYTEST_FAIL, error=True)), agent(bash("uv sync", "Resolved 3 packages")),
        agent(bash("uv run pytest", PYTEST_PASS)),
        user(COMPACTION, "compact_summary"),
        agent(call("ExitPlanMode", "approved", plan=PLAN)),
        user("thanks"),
    ]
    first, second = extract(*turns), extract(*turns)
    assert first == second and first.note is not None
    assert {"preference", "command", "gotcha", "decision", "fact"} <= {l.type for l in first.note.learnings}


# -- the project's instruction file; tools known by their kind, whatever the agent calls them ------


def test_the_project_instructions_give_their_rules_as_conventions_with_their_heading():
    # 019e1625 (codemie-code, Codex): the AGENTS.md the harness loaded before the first prompt
    agents_md = ("<!-- codebase-memory-mcp:start -->\n# Codebase Knowledge Graph (codebase-memory-mcp)\n\n"
                 "This project uses codebase-memory-mcp to maintain a knowledge graph of the codebase.\n"
                 "ALWAYS prefer MCP graph tools over grep/glob/file-search for code discovery.\n\n"
                 "## Priority Order\n1. `search_graph` — find functions, classes, routes, variables by pattern\n")
    note = note_of(user(agents_md, "instructions"), user("show tools"), agent(text="Available tool groups: `web`."))
    assert texts(note, "convention") == [
        "Project instructions: Codebase Knowledge Graph (codebase-memory-mcp): ALWAYS prefer MCP graph tools "
        "over grep/glob/file-search for code discovery."]
    assert "show tools" in note.summary  # the instructions are not the person's request


def test_instructions_alone_are_no_request():
    assert extract(user("Always use pnpm, never npm.", "instructions")).note is None


def test_a_subagent_report_counts_whatever_the_tool_is_called():
    # 37b7abef (codemie-code, Gemini CLI): delegate_to_agent's result
    report = ("Subagent 'codebase_investigator' finished.\nResult:\nThe `CredentialStore` in `src/utils/security.ts` "
              "falls back to an encrypted file whose key is derived from machine-specific information.")
    delegate = ToolCall("d1", "delegate_to_agent", {"objective": "find security issues"}, report, False, True,
                        kind="subagent")
    other = ToolCall("d2", "delegate_to_agent", {"objective": "x"}, report, False, True)  # no kind: not a report
    found = [learned(user("explore the repository for security issues"), agent(c), agent(text="Done."),
                     kinds=("fact",)) for c in (delegate, other)]
    assert any("machine-specific" in text for text in found[0]) and found[1] == []


def test_the_agent_owning_up_to_its_mistake_is_a_gotcha():
    # f7633853 (entire-cli, Gemini CLI): it created a file that already existed under another name
    owned = ("I misread the `ls` output and thought `docs/color.md` was missing. My apologies. I'll remove "
             "`docs/blue.md` and append its content to the existing `docs/color.md` file to correct my mistake.")
    assert learned(user("create a color file inside docs"), agent(call("write_file", file_path="docs/blue.md")),
                   agent(text=owned), agent(text="Done."), kinds=("gotcha",)) == [
        "Mistake: I misread the `ls` output and thought `docs/color.md` was missing. Instead: Remove "
        "`docs/blue.md` and append its content to the existing `docs/color.md` file to correct my mistake."]


def test_problems_a_review_lists_as_such_are_gotchas():
    # 37b7abef (codemie-code, Gemini CLI): the agent's review of the repository
    review = ("### 2. Security Issues\n\n*   **Weak Fallback Encryption:**\n    *   **Issue:** When the system keychain "
              "is unavailable, `CredentialStore` falls back to an encrypted file. The encryption key is derived from "
              "machine-specific information.\n    *   **Impact:** An attacker with local access can derive the key.\n")
    assert learned(user("explore repository and figure out issues"), agent(text=review), kinds=("gotcha",)) == [
        "Weak Fallback Encryption: When the system keychain is unavailable, `CredentialStore` falls back to an "
        "encrypted file. The encryption key is derived from machine-specific information."]


def test_the_person_calling_a_design_over_engineered_is_a_preference_even_in_the_first_request():
    # 01997e76 (spectora-labs, Codex): the first request, after a pasted screenshot path
    said = ("Updating a team is VERY slow. Can you refactor this to be much faster?\n\nThis all feels complex and "
            "over-engineered for loading and editing a simple team object. Can we simplify this and speed it up?")
    assert learned(user(said), agent(text="Done.")) == [
        'The user prefers simple designs: "This all feels complex and over-engineered for loading and editing a '
        'simple team object."']


def test_what_the_agent_says_about_its_own_tools_is_no_fact():
    # 37b7abef (codemie-code, Gemini CLI): "show tools", then the tools at work
    tools = ("I have the following tools available to assist you:\n\n**File System & Code Navigation:**\n"
             "*   `read_file`: Read the contents of a file (supports various formats including text, images, and PDF).\n"
             "*   `write_file`: Create or overwrite a file with specific content.\n")
    found = ("`EnvManager` (`src/env/manager.ts`) stores the main CLI configuration in plain text JSON at "
             "`~/.codemie/codemie-cli.config.json`.")
    facts = learned(user("show tools"), agent(text=tools), user("where is the config kept?"),
                    agent(call("read_file", "x", file_path="src/env/manager.ts"), call("write_file", file_path="a.md")),
                    agent(text=found), kinds=("fact",))
    assert facts == [found]


def test_advice_on_starting_the_project_s_own_program_weighs_as_a_command_that_ran():
    # 9a08e650 (scale): the plan's verification step is the only place the session says how to run cc-backend
    from memgit.extract.heuristic.commands import _advice

    start = _advice("4. Start with `./cc-backend -server -dev` and verify `/config` page shows resampling options",
                    CWD, set()) or _advice("Start with `./cc-backend -server -dev` and verify `/config` page shows "
                                           "resampling options", CWD, set())
    flag = _advice("Run cc-backend with `-loglevel debug` and check the log", CWD, set())
    assert start is not None and start.text == "Start with `./cc-backend -server -dev`."
    assert flag is not None and start.score > flag.score


def test_advice_of_flags_alone_must_name_the_program_they_are_for():
    # 07d71faa (scale): "Verification: run with `-loglevel debug`" runs nothing a newcomer could type; the
    # same answer's list item goes on after a code span with the advice that names cc-backend.
    from memgit.extract.heuristic import session
    from memgit.extract.heuristic.commands import _advice, advised

    assert _advice("Verification: run with `-loglevel debug` and check for", CWD, set()) is None
    assert _advice("Start with `-loglevel debug` and log in", CWD, set()) is None
    answer = ("Changes Made:\n\n- Added debug logging at each step: `OIDC userinfo claims: username=...`\n\n"
              "   Run cc-backend with `-loglevel debug` to see these.\n\nVerification: run with `-loglevel debug`.")
    found = advised(session.read(transcript(user("roles are missing after OIDC login"), agent(text=answer))))
    assert [c.text for c in found] == ["Run cc-backend with `-loglevel debug`."]


def test_the_steps_of_a_plan_s_check_after_the_command_are_not_advice():
    # b9d4da02 and c85f0d9d (scale): the plan's verification goes on after the command with the steps of
    # that one check; how to start the project is the part before them
    from memgit.extract.heuristic.commands import _advice

    assert _advice("Start with `./startDemo.sh`, send SIGTERM, measure exit time", CWD, set()).text == \
        "Start with `./startDemo.sh`."
    assert _advice("Manual test: start server with `./cc-backend -server -dev`, open the analysis/stats page with "
                   "a large cluster and verify it loads without timeout", CWD, set()).text == \
        "Start server with `./cc-backend -server -dev`."


@pytest.mark.parametrize(("said", "rule"), [
    ("Remember: I prefer commit messages without emoji.", "The user prefers commit messages without emoji."),
    ("btw, remember that I prefer tabs", "The user prefers tabs."),
    ("Keep in mind: we always use pnpm in this repo.", "The project always uses pnpm in this repo."),
])
def test_a_rule_is_kept_without_the_words_that_ask_to_remember_it(said, rule):
    assert learned(user(said), agent(text="Noted.")) == [rule]


def test_how_to_run_one_test_is_kept_beside_the_whole_suite_with_the_names_as_a_placeholder():
    # e8106766 (fixtures): the suite ran as `mise run test:ci`, the new tests by name with `go test -run`
    named = ('go test ./cmd/entire/cli/strategy/ -run "TestSaveChanges_UsesCtxAgentType_WhenNoSessionState|'
             'TestSaveChanges_UsesCtxAgentType_WhenPartialState|TestInitializeSession_BackfillsUnknownAgentType" '
             '-v -count=1')
    go_pass = "=== RUN   TestSaveChanges\n--- PASS: TestSaveChanges (0.01s)\nPASS\nok  \tgithub.com/x/strategy\t0.4s"
    note = note_of(user("let's debug ENT-207"), agent(bash(named, go_pass)),
                   agent(bash("mise run test:ci 2>&1 | tail -20", "ok  \tgithub.com/x/cli\t1.2s")))
    assert "Run one test with `go test ./cmd/entire/cli/strategy/ -run \"NAME\" -v -count=1`." in texts(note, "command")
    assert any(t.startswith("Tests run with `mise run test:ci") for t in texts(note, "command"))
    # the suite alone: nothing to add; a named run alone is the session's test command, as it ran
    alone = note_of(user("run the tests"), agent(bash("mise run test:ci", "ok  \tgithub.com/x/cli\t1.2s")))
    assert not any("one test" in t for t in texts(alone, "command"))


@pytest.mark.parametrize(("command", "part"), [
    ("uv run pytest", ""),
    ("go test ./...", ""),
    ("uv run pytest test/test_template_rendering.py -v", "one file"),
    ("npm test -- --run src/agents/plugins/__tests__/codemie-code-reasoning.test.ts", "one file"),  # 019e1625
    ("pnpm --filter @repo/spectora-labs test", "part of the project"),  # 019982b8: one package of a monorepo
    ("go test ./internal/api/ -run 'TestX' -v", "part of the project"),
])
def test_the_briefing_says_what_part_of_the_project_a_narrowed_run_covered(command, part):
    from memgit.extract.heuristic.commands import narrowed_to

    assert narrowed_to(command) == part
