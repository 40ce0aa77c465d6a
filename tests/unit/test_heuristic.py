"""The heuristic extractor on hand-built transcripts: what becomes a learning, and what must not."""

from __future__ import annotations

import re

import pytest

from memgit.extract import heuristic
from memgit.extract._shell import parse
from memgit.model import LEARNING_TYPES, Extraction, Note, ToolCall, Transcript, Turn

CWD = "/home/u/dev/pinion"
_ids = iter(range(10**9))


def user(text: str, kind: str = "prompt", *, sidechain: bool = False) -> Turn:
    return Turn("user", text, kind, sidechain=sidechain)


def agent(*calls: ToolCall, text: str = "", sidechain: bool = False) -> Turn:
    return Turn("assistant", text, "message", tool_calls=list(calls), sidechain=sidechain)


def bash(command: str, output: str = "", *, error: bool = False, answered: bool = True) -> ToolCall:
    return ToolCall(f"t{next(_ids)}", "Bash", {"command": command}, output, error, answered)


def edit(path: str) -> ToolCall:
    return ToolCall(f"t{next(_ids)}", "Edit", {"file_path": path}, "ok", False, True)


def call(name: str, output: str = "ok", *, error: bool = False, **inputs) -> ToolCall:
    return ToolCall(f"t{next(_ids)}", name, inputs, output, error, True)


def transcript(*turns: Turn, title: str | None = None) -> Transcript:
    return Transcript(
        session_id="6f1c2e4a-0b1d-4c39-9a65-0c9d0f5a7e11", agent="claude-code", source="/x.jsonl", cwd=CWD,
        git_branch="feat/sync", started="2026-11-20T10:00:03Z", ended="2026-11-20T11:12:40Z", title=title,
        turns=list(turns),
    )


def note_of(*turns: Turn, title: str | None = None) -> Note:
    result = heuristic.extract(transcript(*turns, title=title), project="pinion")
    assert result.note is not None, result.reason
    return result.note


def texts(note: Note, kind: str) -> list[str]:
    return [learning.text for learning in note.learnings if learning.type == kind]


def with_work(prompt: str) -> Note:
    """A note for a session whose only request is `prompt` and that edited a file."""
    return note_of(user(prompt), agent(edit(f"{CWD}/src/app.py"), text="Done."))


# -- preferences and conventions ---------------------------------------------------------------

RULES = [
    ("don't use emoji in commit messages", "preference", "Don't use emoji in commit messages."),
    ("please, don't use emoji in commit messages, thanks", "preference", "Don't use emoji in commit messages."),
    ("Please always run the linter before committing.", "preference", "Always run the linter before committing."),
    ("Never push directly to main.", "preference", "Never push directly to main."),
    ("No need to ask before running the tests.", "preference", "No need to ask before running the tests."),
    ("I prefer small focused commits.", "preference", "The user prefers small focused commits."),
    ("Use pnpm instead of npm.", "convention", "Use pnpm instead of npm."),
    ("We use uv for everything in this repo.", "convention", "The project uses uv for everything in this repo."),
    ("Stop adding comments to every function.", "convention", "Stop adding comments to every function."),
    ("Make sure type hints are on every public function.", "convention",
     "Make sure type hints are on every public function."),
    ("I don\u2019t want you to touch the migrations.", "convention", "Don't touch the migrations."),
    ("Thanks. From now on, write tests with pytest, not unittest.", "convention",
     "From now on, write tests with pytest, not unittest."),
    ("<ide_opened_file>The user opened app.py</ide_opened_file>\nNever use print for logging", "convention",
     "Never use print for logging."),
    ("Now add a --delimiter option. Use click options, not argparse.", "convention", "Use click options, not argparse."),
    ("Add metrics. Prefer prometheus_client over statsd.", "convention", "Prefer prometheus_client over statsd."),
    ("Add logging. Always use structlog, never print.", "convention", "Always use structlog, never print."),
    ("To be clear: don't use Slack for status updates, post them in the ticket.", "preference",
     "Don't use Slack for status updates, post them in the ticket."),
]


@pytest.mark.parametrize(("prompt", "kind", "text"), RULES, ids=[r[0][:40] for r in RULES])
def test_a_stated_rule_becomes_a_clean_standalone_learning(prompt, kind, text):
    note = with_work(prompt)
    assert [(learning.type, learning.text) for learning in note.learnings if learning.type == kind] == [(kind, text)]


NOT_RULES = [
    "I don't know why this fails",
    "don't worry about the flaky test, fix the parser",
    "I don't think that's right, look again at the parser",
    "It always fails on CI",
    "Why don't you try again?",
    "Can you make sure the tests pass?",
    "They don't look that bad. Fix the type issues.",
    "Don't do that",
    "never mind, fix the parser",
    "Don't change this file yet",
    "Keep it short",
    "the redirect uses rewrites instead of basePath",
    "12:01:33.208 error: please make sure you have the correct access rights\n"
    "12:01:33.209 fatal: could not read\n12:01:33.301 Always check the remote",
]


@pytest.mark.parametrize("prompt", NOT_RULES)
def test_chatter_questions_and_one_off_requests_are_not_rules(prompt):
    note = with_work(prompt)
    assert texts(note, "preference") == [] and texts(note, "convention") == []


def test_only_the_person_own_prompts_count_as_rules():
    rule = "Never use emoji in commit messages."
    note = note_of(
        user("Fix the parser"),
        user(rule, sidechain=True),  # a subagent prompt, written by the agent
        user(f"This session is being continued from a previous conversation.\n{rule}", "compact_summary"),
        user(f"<command-name>/review</command-name> {rule}", "command"),
        agent(edit(f"{CWD}/parser.py"), text="Done."),
    )
    assert texts(note, "preference") == []
    queued = note_of(user("Fix the parser"), user(rule, "queued"), agent(edit(f"{CWD}/p.py")))
    assert texts(queued, "preference") == ["Never use emoji in commit messages."]


def test_words_typed_when_rejecting_a_tool_call_count_as_the_person_own():
    rejected = bash("git push --force", "The user doesn't want to proceed with this tool use. The tool use was "
                    "rejected. The user provided the following reason for the rejection: never force-push", error=True)
    note = note_of(user("Publish the branch"), agent(rejected), agent(bash("git push", "ok")), agent(edit("a.py")))
    assert texts(note, "preference") == ["Never force-push."]


def test_preferences_are_capped_and_deduplicated():
    prompts = [user(f"Never use library{i} for parsing.") for i in range(8)]
    prompts += [user("Never use library0 for parsing!"), user("never use library0 for parsing")]
    note = note_of(*prompts, agent(edit("a.py")))
    found = texts(note, "preference") + texts(note, "convention")
    assert len(found) == heuristic.PER_TYPE["convention"]
    assert len(set(found)) == len(found)
    assert len(note.learnings) <= heuristic.MAX_LEARNINGS


# -- commands and gotchas ----------------------------------------------------------------------

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
=============================== 1 error in 0.31s ===============================
"""
PYTEST_PASS = "============================== 12 passed in 0.84s =============================="


def test_a_fail_fixed_by_an_edit_then_a_pass_is_one_gotcha_and_one_command():
    note = note_of(
        user("Make the sync tests pass"),
        agent(bash(f"cd {CWD} && uv run pytest -x tests/ -v", PYTEST_FAIL, error=True)),
        agent(call("Read", file_path=f"{CWD}/tests/conftest.py")),
        agent(edit(f"{CWD}/tests/conftest.py")),
        agent(bash(f"cd {CWD} && uv run pytest -x tests/ 2>&1 | tail -20", PYTEST_PASS), text="All tests pass."),
    )
    assert texts(note, "command") == ["Tests run with `uv run pytest -x tests/`."]
    assert texts(note, "gotcha") == [
        "`uv run pytest -x tests/` fails with \"ModuleNotFoundError: No module named 'pinion'\"; "
        "fixed by editing conftest.py."
    ]
    assert note.outcome == "success"
    assert "pytest" in note.keywords


def test_a_setup_command_between_the_fail_and_the_pass_is_the_fix():
    note = note_of(
        user("run the tests"),
        agent(bash("npm test", "Error: Cannot find module 'vitest'\nRequire stack:\n- /home/u/x.js", error=True)),
        agent(bash("npm install", "added 212 packages in 3s")),
        agent(bash("npm test", "Test Files  4 passed (4)\n     Tests  31 passed (31)")),
    )
    assert texts(note, "gotcha") == ["`npm test` fails with \"Error: Cannot find module 'vitest'\" until `npm install` is run."]
    assert "Tests run with `npm test`." in texts(note, "command")


def test_failing_assertions_fixed_by_editing_code_are_ordinary_work_not_gotchas():
    failure = "    assert parse('a') == 1\nE   AssertionError: assert 2 == 1\n=== 1 failed, 3 passed in 0.2s ==="
    note = note_of(
        user("fix the parser"),
        agent(bash("pytest", failure, error=True)), agent(edit("parser.py")), agent(bash("pytest", "4 passed")),
    )
    assert texts(note, "gotcha") == []
    assert texts(note, "command") == ["Tests run with `pytest`."]


def test_a_command_whose_output_shows_failures_did_not_pass():
    piped = "FAIL\tgithub.com/x/y/strategy\t0.4s\nFAIL\n[test] ERROR task failed"
    note = note_of(user("run the tests"), agent(bash("mise run test 2>&1 | tail -5", piped)), agent(edit("x.go")))
    assert texts(note, "command") == []
    assert note.outcome == "fail"


def test_a_different_invocation_that_works_is_a_workaround():
    note = note_of(
        user("check the script"),
        agent(bash("python scripts/check.py", "bash: python: command not found", error=True)),
        agent(bash("python3 scripts/check.py", "all good")),
        agent(edit("scripts/check.py")),
    )
    assert texts(note, "gotcha") == [
        '`python scripts/check.py` fails with "bash: python: command not found"; `python3 scripts/check.py` works instead.'
    ]


PARSED = [
    (f"cd {CWD} && uv run pytest -x tests/ -v", "uv run pytest -x tests/", ("test",)),
    ("python -m pytest tests/unit/test_a.py::test_b -q", "python -m pytest", ("test",)),
    ("uv run pytest -k 'sync and not slow' /tmp/pytest-of-u/x", "uv run pytest", ("test",)),
    ("npm run build 2>&1 | tail -20", "npm run build", ("build",)),
    ("CI=1 pnpm run lint", "CI=1 pnpm run lint", ("lint",)),
    ("go test ./... -count=1", "go test ./... -count=1", ("test",)),
    ("go test ./cmd/x/strategy/ -run TestFoo -v", "go test", ("test",)),
    ("mise run fmt && mise run lint && mise run test", "mise run fmt && mise run lint && mise run test",
     ("format", "lint", "test")),
    ("docker compose up -d", "docker compose up -d", ("run",)),
    ("bash -lc 'uv run mypy memgit'", "uv run mypy memgit", ("typecheck",)),
    ("cargo test --workspace", "cargo test --workspace", ("test",)),
    ("source .venv/bin/activate && ruff check --fix .", "ruff check --fix .", ("lint",)),
    ("make", "make", ("build",)),
    ("./gradlew test", "./gradlew test", ("test",)),
]


@pytest.mark.parametrize(("command", "text", "categories"), PARSED)
def test_build_and_test_commands_are_normalised_for_reuse(command, text, categories):
    shell = parse(command)
    assert shell is not None and (shell.text, shell.categories) == (text, categories)


@pytest.mark.parametrize("command", ["git status", "ls -la", "uv run python -c 'print(1)'", "cat pytest.ini",
                                     "grep -rn pytest .", "git commit -m 'x' <<EOF\nmsg\nEOF", None, ""])
def test_other_commands_are_not_build_commands(command):
    assert parse(command) is None


def test_commands_are_deduplicated_by_family_and_capped():
    runs = [agent(bash(f"uv run pytest tests/test_{i}.py -v", PYTEST_PASS)) for i in range(4)]
    runs += [agent(bash(cmd, "ok")) for cmd in ("ruff check .", "ruff format .", "uv run mypy src", "npm run build",
                                                 "docker compose up -d", "cargo build")]
    note = note_of(user("check everything"), *runs)
    commands = texts(note, "command")
    assert commands[0] == "Tests run with `uv run pytest`."
    assert len(commands) == heuristic.PER_TYPE["command"]
    assert len(set(commands)) == len(commands)


# -- decisions and facts -----------------------------------------------------------------------

COMPACTION = """\
This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:
Analysis:
Let me chronologically analyze the conversation: the user said don't use emoji.

Summary:
1. Primary Request and Intent:
   - Make the Typesense sync resumable after a crash
   - Add a test for the resume path

2. Key Technical Concepts:
   - **Sync cursor**: stored in `.pinion/cursor.json`, advanced only after a batch commits
   - Typesense collections
   - Batches of `250` documents per import call

3. Files and Code Sections:
   - **`pinion/sync.py`** (line 120)
     - Added `resume()`

4. Errors and fixes:
   - **"port 8108 already in use" when starting typesense**:
     - Fixed by running `docker rm -f typesense` before `docker compose up`
   - **`cursr` undefined**: typo
     - Fixed by renaming

5. Problem Solving:
   - **Solution**: Resume from the last committed cursor instead of re-importing everything
   - Decided to keep the batch size at 250 to stay under the request limit
   - **Limitation**: deletes made during the outage are not replayed

6. All user messages:
   - "never use emoji in commits"

7. Pending Tasks:
   - None
"""


def test_a_compaction_summary_yields_decisions_and_facts():
    note = note_of(user("continue"), user(COMPACTION, "compact_summary"), agent(edit("pinion/sync.py")))
    decisions, facts = texts(note, "decision"), texts(note, "fact")
    assert "Resume from the last committed cursor instead of re-importing everything." in decisions
    assert any("batch size at 250" in d for d in decisions)
    assert "Sync cursor: stored in `.pinion/cursor.json`, advanced only after a batch commits." in facts
    assert any(f.startswith("Limitation: deletes made during the outage") for f in facts)
    assert "Typesense collections." not in facts  # names nothing concrete
    assert texts(note, "preference") == []  # the recap's quotes are not the person's words here
    assert all("cursr" not in g for g in texts(note, "gotcha"))  # a typo is not a gotcha


def test_a_session_that_starts_from_a_compaction_is_a_note():
    note = note_of(user(COMPACTION, "compact_summary"), agent(text="Continuing."))
    assert note.title == "Make the Typesense sync resumable after a crash"
    assert texts(note, "decision")


PLAN = """# Plan: Resumable Typesense sync

## Context
Currently a crash restarts the import from scratch.

## Approach
Store a cursor after each committed batch and resume from it.

## Verification
```bash
uv run pytest tests/test_sync.py
```
"""


def test_an_accepted_plan_is_a_decision_and_a_rejected_one_is_not():
    accepted = call("ExitPlanMode", "User has approved your plan.", plan=PLAN)
    note = note_of(user("plan the resume work"), agent(accepted), agent(edit("sync.py")))
    assert texts(note, "decision") == [
        "Resumable Typesense sync: store a cursor after each committed batch and resume from it."
    ]
    rejected = call("ExitPlanMode", "The user doesn't want to proceed with this tool use.", error=True, plan=PLAN)
    assert texts(note_of(user("plan it"), agent(rejected), agent(edit("sync.py"))), "decision") == []


def test_a_prompt_carrying_an_approved_plan_titles_the_note():
    note = note_of(user("Implement the following plan:\n\n" + PLAN), agent(edit("sync.py")))
    assert note.title == "Resumable Typesense sync"
    assert texts(note, "decision") == [
        "Resumable Typesense sync: store a cursor after each committed batch and resume from it."
    ]


# -- outcome -----------------------------------------------------------------------------------

READS = [call("Read", file_path="p.py") for _ in range(5)]
OUTCOMES_TABLE = [
    ("last run passes", [user("fix it"), agent(bash("pytest", "1 failed", error=True)), agent(bash("pytest", "3 passed"))],
     "success"),
    ("last run fails", [user("fix it"), agent(bash("pytest", "3 passed")), agent(bash("pytest", "1 failed", error=True))],
     "fail"),
    ("user thanks", [user("fix it"), agent(edit("a.py"), text="Fixed."), user("thanks, works now!")], "success"),
    ("praise then a rule", [user("fix it"), agent(edit("a.py")),
                            user("Great, thanks. Don't put emoji in commit messages, I prefer plain imperative subjects.")],
     "success"),
    ("last run before a closing rule", [user("build it"), agent(bash("npm run build", "built in 1.9s")),
                                        user("Use pnpm instead of npm in this repo from now on.")], "success"),
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
    note = note_of(*turns)
    assert note.outcome == outcome
    assert re.search(rf"It ended (?:with|without) [^.]+ \({outcome}\)\.$", note.summary), note.summary


# -- ephemera ------------------------------------------------------------------------------------

EPHEMERA = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}|\d{1,2}:\d{2}:\d{2}|\w:\d{2,5}\b|/tmp/|\bline \d+|\.\w+:\d+")


def test_learnings_carry_no_ports_paths_timestamps_or_line_numbers():
    failure = ("Traceback (most recent call last):\n  File \"/tmp/x/app.py\", line 12, in <module>\n"
               "ModuleNotFoundError: No module named 'redis' (seen at 2026-11-20T10:00:03Z)")
    note = note_of(
        user("Never bind the dev server to localhost:8080."),
        user("Always use /tmp/pinion-cache for the cache."),
        agent(bash("uv run pytest /tmp/pytest-of-u/test_x.py::test_y -v", failure, error=True)),
        agent(bash("uv sync", "Resolved 12 packages")),
        agent(bash("uv run pytest /tmp/pytest-of-u/test_x.py::test_y -v", "1 passed")),
        user(COMPACTION.replace("(line 120)", "(line 120) at 10:00:03"), "compact_summary"),
    )
    assert note.learnings
    for learning in note.learnings:
        assert not EPHEMERA.search(learning.text), learning
        assert len(learning.text) <= 220
    assert "`uv run pytest` fails with \"ModuleNotFoundError: No module named 'redis'\" until `uv sync` is run." in texts(
        note, "gotcha"
    )


# -- skips, titles, determinism -------------------------------------------------------------------

SKIPS = [
    ("empty", [], "no user request"),
    ("slash commands only", [user("/clear", "command"), user("/exit", "command")], "only slash commands"),
    ("warmup", [user("Warmup"), agent(text="Ready.")], "no user request"),
    ("redacted", [user("[REDACTED_PROMPT]"), agent(text="ok")], "no user request"),
    ("one prompt, no tools", [user("hi"), agent(text="Hello! How can I help?")], "too short: 1 prompt, no tool use"),
    ("chat with a read", [user("what is this repo?"), agent(call("Read"), text="A parser.")], "nothing learned"),
    ("subagent only", [user("Explore the repo", sidechain=True), agent(call("Read"), sidechain=True)],
     "no user request"),
]


@pytest.mark.parametrize(("name", "turns", "reason"), SKIPS, ids=[s[0] for s in SKIPS])
def test_sessions_with_nothing_worth_keeping_are_skips_with_a_reason(name, turns, reason):
    result = heuristic.extract(transcript(*turns), project="p")
    assert result == Extraction(note=None, reason=result.reason)
    assert result.reason.startswith(reason)


def test_the_note_carries_the_transcript_identity_and_a_title_from_the_first_real_request():
    note = note_of(
        user("hey"),
        user("Hey Claude, can you please fix the Typesense sync tests? They time out."),
        agent(edit(f"{CWD}/tests/test_sync.py"), text="Done."),
    )
    assert (note.session, note.agent, note.project) == ("claude-code/6f1c2e4a-0b1d-4c39-9a65-0c9d0f5a7e11",
                                                        "claude-code", "pinion")
    assert (note.cwd, note.git_branch, note.started, note.ended) == (CWD, "feat/sync", "2026-11-20T10:00:03Z",
                                                                     "2026-11-20T11:12:40Z")
    assert note.extractor == heuristic.EXTRACTOR == "heuristic/1"
    assert note.title == "Fix the Typesense sync tests"
    assert note.slug == "fix-the-typesense-sync-tests"
    assert note.summary.startswith("The user asked: fix the Typesense sync tests? They time out.")
    assert "\n" not in note.summary
    assert "typesense" in note.keywords


def test_a_good_source_title_wins_and_slugs_stay_short():
    note = note_of(user("do the thing we discussed"), agent(edit("a.py")), title="Fix Typesense sync tests")
    assert note.title == "Fix Typesense sync tests"
    long = note_of(user("Refactor " + " ".join(f"module{i}" for i in range(30))), agent(edit("a.py")))
    assert len(long.title) < 80
    assert len(long.slug) <= 50 and long.slug.count("-") <= 5
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", long.slug)


def test_keywords_are_few_lowercase_names():
    note = note_of(
        user("Use pnpm instead of npm. The React app talks to Postgres through Prisma; run it with Docker."),
        agent(bash("pnpm test", "12 passed"), bash("docker compose up -d", "started")),
        agent(edit("src/App.tsx")),
    )
    assert note.keywords[:2] == ["pnpm", "docker"]
    assert {"react", "postgres", "prisma"} <= set(note.keywords)
    assert all(k == k.lower() and " " not in k for k in note.keywords)
    assert len(note.keywords) <= 8


def test_extraction_is_deterministic():
    turns = [
        user("Never use emoji in commit messages. Fix the sync."),
        agent(bash("uv run pytest", PYTEST_FAIL, error=True)), agent(edit("conftest.py")),
        agent(bash("uv run pytest", PYTEST_PASS)),
        user(COMPACTION, "compact_summary"),
        agent(call("ExitPlanMode", "approved", plan=PLAN)),
        user("thanks"),
    ]
    first = heuristic.extract(transcript(*turns), project="p")
    second = heuristic.extract(transcript(*turns), project="p")
    assert first == second
    assert first.note is not None
    assert {learning.type for learning in first.note.learnings} <= set(LEARNING_TYPES)
    assert {"preference", "command", "gotcha", "decision", "fact"} <= {l.type for l in first.note.learnings}
