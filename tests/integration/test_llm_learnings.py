"""What a capable model writes reaches the note whole: each learning below was once dropped or changed by
memgit's filters (issue 21, part 5). `memgit sync --model` over real HTTP to the fake server, one session each;
what is still dropped is logged with its reason in sync.log."""

from __future__ import annotations

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age
from tests.fake_llm import Reply
from tests.integration.test_llm_sync import MODEL, NOTE

CWD = "/home/demo/dev/pinion"
SYNTAX = "bash: -c: line 0: syntax error near unexpected token `('"

LONG = ("The importer reads every CSV under `data/incoming` in name order, and a file whose header row differs "
        "from the first file's header is not an error: it starts a new table, so two exports from different "
        "versions of the billing system can sit in one folder and both load. That is why a renamed column shows "
        "up as a second, mostly empty table instead of a failure, and why the fix for a renamed column is a "
        "mapping in `importer/columns.toml` rather than a change to the reader; the mapping is read once at start "
        "and applies to every file after it.")
GOTCHA = (f"Running the seed script through `bash -c` fails with \"{SYNTAX}\" because the nested quotes end the "
          "string early; writing it to `scripts/seed.sh` and running `bash scripts/seed.sh` fixes it.")
DATED = "The billing API's v1 endpoints stop answering on 2026-12-31, so every new call must use the v2 client."
COMMAND = "The database migrations are checked with `./bin/pinion db migrate --check`, the project's own CLI."
PLANNED = "Move the importer to a queue worker so that large files do not block the web process."


def session(projects) -> SessionWriter:
    w = SessionWriter(session_id("learnings"), CWD)
    w.user("Seed the database and check the migrations; the billing v1 API goes away at the end of the year.")
    w.bash("bash -c \"$(cat scripts/seed.txt)\"", SYNTAX, error=True)
    w.bash("bash scripts/seed.sh", "seeded 40 rows")
    w.bash("./bin/pinion db migrate --check", "migrations up to date")
    w.user("Thanks. Later we should move the importer to a queue worker.")
    age(w.write(projects), 7200)
    return w


def note_after_sync(claude_projects, memgit_cli, fake_llm, *learnings: dict) -> str:
    w = session(claude_projects)
    fake_llm.default = Reply.json({**NOTE, "learnings": list(learnings)})
    result = memgit_cli("sync", "--model", MODEL, "--api-base", fake_llm.api_base)
    assert result.exit_code == 0, result.stderr
    return memgit_cli("show", w.session_id[:8]).stdout


@pytest.mark.parametrize("kind, text", [
    ("fact", LONG),  # was cut at 400 characters, and the cut then failed the fragment filter
    ("gotcha", GOTCHA),  # the line-number scrub rewrote the error; its lone backtick failed the balance check
    ("decision", DATED),  # any date was ephemeral, while the prompt asks for absolute dates
    ("command", COMMAND),  # a command had to parse with memgit's shell parser: no project CLI could be one
])
def test_a_whole_correct_learning_reaches_the_note_unchanged(claude_projects, memgit_cli, fake_llm, kind, text):
    note = note_after_sync(claude_projects, memgit_cli, fake_llm, {"type": kind, "text": text, "status": "done"})
    assert f"- [{kind}] {text}\n" in note


def test_a_plan_is_said_to_be_one_and_what_was_reverted_or_never_done_is_not_current(
        claude_projects, memory_path, memgit_cli, fake_llm):
    note = note_after_sync(
        claude_projects, memgit_cli, fake_llm,
        {"type": "decision", "text": PLANNED, "status": "planned"},
        {"type": "fact", "text": "The importer runs in a queue worker, apart from the web process.", "status": "planned"},
        {"type": "convention", "text": "Seed data lives in scripts/seed.txt and is piped through bash -c.",
         "status": "reverted"},
        {"type": "command", "text": "Deploys run with `./bin/pinion deploy --prod`.", "status": "done"})
    assert f"- [decision] Planned, not done when the session ended: {PLANNED}\n" in note
    assert "queue worker, apart" not in note and "piped through" not in note and "deploy --prod" not in note
    log = (memory_path / ".git" / "memgit" / "sync.log").read_text()
    assert "learning dropped (planned, not done: not a fact yet): [fact] The importer runs in a queue worker" in log
    assert "learning dropped (reverted later in the session: not current): [convention]" in log
    assert "learning dropped (quotes no command that ran in the session as written): [command]" in log
    assert "`status`" in fake_llm.extractions[0]["body"]["messages"][0]["content"]  # the prompt says what it means
    assert "at most 1000 characters" in fake_llm.extractions[0]["body"]["messages"][0]["content"]
