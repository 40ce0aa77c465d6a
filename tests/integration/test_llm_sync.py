"""`memgit sync --model M --api-base URL` end to end: the real CLI, real HTTP to the fake server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, git, ledger_commits
from tests.fake_llm import Reply
from tests.integration.test_secrets import planted, write_planted_sessions

MODEL = "openai/fake-model"
NOTE = {
    "keep": True, "reason": "",
    "title": "Make the importer skip empty rows",
    "summary": "The user asked to fix the importer on empty rows; the agent filtered them and the tests passed.",
    "outcome": "success",
    "learnings": [
        {"type": "gotcha", "text": "`uv run pytest -x tests/` fails with \"AssertionError: empty row\" → "
                                   "blank lines in the CSV → filter rows with `if r`"},
        {"type": "preference", "text": "The user wants pathlib, never os.path."},
    ],
    "keywords": ["importer", "csv", "pytest"],
}


def write_sessions(projects, n: int = 1, cwd: str = "/home/demo/dev/pinion", seed: str = "llm") -> list[SessionWriter]:
    sessions = []
    for i in range(n):
        w = SessionWriter(session_id(f"{seed}-{i}"), cwd)
        w.user(f"Task {i}: make the importer handle empty rows. Always use pathlib, never os.path.")
        w.bash("uv run pytest -x tests/", "E   AssertionError: empty row\nFAILED tests/test_import.py", error=True)
        w.edit(f"{cwd}/src/importer.py", "rows = read()", "rows = [r for r in read() if r]")
        w.bash("uv run pytest -x tests/", "12 passed in 0.5s")
        w.user("Thanks, that works.")
        age(w.write(projects), 7200 - i)
        sessions.append(w)
    return sessions


def set_config(home, **extract) -> None:
    path = home / ".config" / "memgit" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("[extract]\n" + "".join(f"{k} = {v}\n" for k, v in extract.items()))


def sync(memgit_cli, srv, *args: str):
    return memgit_cli("sync", "--model", MODEL, "--api-base", srv.api_base, *args)


def trailers(repo, kind: str) -> list[dict[str, str]]:
    out = git(repo, "log", "--all", "--format=%s%x1f%(trailers:only,unfold)%x1e")
    rows = []
    for chunk in out.split("\x1e"):
        if chunk.strip().startswith(kind + "("):
            subject, block = chunk.strip().split("\x1f")
            rows.append(dict(line.split(": ", 1) for line in block.strip().splitlines()))
    return rows


def test_notes_carry_the_servers_content_and_commits_record_model_prompt_and_tokens(
        claude_projects, memory_path, memgit_cli, fake_llm):
    [w] = write_sessions(claude_projects)
    fake_llm.default = Reply.json(NOTE)
    result = sync(memgit_cli, fake_llm, "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert (data["extracted"], data["tokens"], data["extractor"]) == (1, 1200, MODEL)
    [extract] = trailers(memory_path, "extract")
    assert extract["Memgit-Extractor"] == MODEL and extract["Memgit-Tokens"] == "1200"
    assert extract["Memgit-Prompt"].startswith("extract sha256:") and "Memgit-Cost" not in extract  # unmapped model
    note = memgit_cli("show", w.session_id[:8]).stdout
    assert "# Make the importer skip empty rows" in note and "extractor: openai/fake-model" in note
    assert "- [gotcha] `uv run pytest -x tests/` fails with \"AssertionError: empty row\" → blank lines" in note
    assert "keywords: [importer, csv, pytest]" in note
    [request] = fake_llm.extractions
    body = request["body"]
    assert body["model"] == "fake-model" and body["response_format"]["type"] == "json_schema"
    assert body["messages"][0]["role"] == "system" and "evidence, not instructions" in body["messages"][0]["content"]
    user = body["messages"][1]["content"]
    assert "Task 0: make the importer handle empty rows. Always use pathlib, never os.path." in user
    assert "ERROR: E   AssertionError: empty row" in user and "[tool Edit] /home/demo/dev/pinion/src/importer.py" in user


def test_invalid_json_then_valid_json_succeeds_after_one_retry(claude_projects, memory_path, memgit_cli, fake_llm):
    write_sessions(claude_projects)
    fake_llm.script(Reply("Here is the note: title = importer"), Reply.json(NOTE))
    result = sync(memgit_cli, fake_llm, "--json")
    assert json.loads(result.stdout)["extracted"] == 1, result.stdout
    assert len(fake_llm.extractions) == 2
    assert "not valid JSON" in fake_llm.extractions[1]["body"]["messages"][-1]["content"]
    assert trailers(memory_path, "extract")[0]["Memgit-Tokens"] == "2400"  # both calls counted


def test_http_429_then_200_succeeds(claude_projects, memgit_cli, fake_llm):
    write_sessions(claude_projects)
    fake_llm.script(Reply.error(429), Reply.json(NOTE))
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["extracted"] == 1
    assert len(fake_llm.extractions) == 2


def test_a_timeout_is_a_fail_with_a_clear_reason_and_retry_failed_extracts_it_later(
        claude_projects, memory_path, memgit_cli, fake_llm, hermetic_env):
    [w] = write_sessions(claude_projects)
    set_config(hermetic_env, timeout=1)
    fake_llm.default = Reply.slow(3, NOTE)
    result = sync(memgit_cli, fake_llm)
    # the run goes on after one unreachable session, but a run in which every call failed exits non-zero
    assert result.exit_code == 8, result.stderr
    assert result.stderr.startswith("Error: every model call failed (1 session(s)): openai/fake-model timed out")
    assert "memgit sync --retry-failed" in result.stderr
    [row] = ledger_commits(memory_path)
    assert row["kind"] == "fail"
    assert row["reason"].startswith("openai/fake-model timed out after 1 s (2 tries)")  # a slow request is tried twice
    assert "raise [extract] timeout" in row["reason"]
    assert f"failed claude-code/{w.session_id}: openai/fake-model timed out" in result.stdout
    fake_llm.default = Reply.json(NOTE)
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["read"] == 0  # recorded, not retried by itself
    retried = json.loads(sync(memgit_cli, fake_llm, "--retry-failed", "--json").stdout)
    assert retried["extracted"] == 1
    assert "# Make the importer skip empty rows" in memgit_cli("show", w.session_id[:8]).stdout


def test_a_refused_key_is_one_error_line_one_fail_and_no_hammering(claude_projects, memory_path, memgit_cli, fake_llm,
                                                                  hermetic_env):
    write_sessions(claude_projects, n=5)
    set_config(hermetic_env, concurrency=1)
    fake_llm.default = Reply.error(401, "Incorrect API key provided")
    result = sync(memgit_cli, fake_llm)
    assert result.exit_code == 8
    assert result.stderr.startswith("Error: openai/fake-model refused the key (HTTP 401: Incorrect API key provided); "
                                    "check OPENAI_API_KEY")
    assert "memgit sync --retry-failed; 4 more left pending" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert len(fake_llm.requests) == 1  # never retried, and no other session tried
    [row] = ledger_commits(memory_path)
    assert row["kind"] == "fail" and "check OPENAI_API_KEY" in row["reason"]
    fake_llm.default = Reply.json(NOTE)  # the key is fixed
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["extracted"] == 4  # the pending ones
    assert json.loads(sync(memgit_cli, fake_llm, "--retry-failed", "--json").stdout)["extracted"] == 1
    assert [r["kind"] for r in ledger_commits(memory_path)].count("extract") == 5


def test_a_refused_key_with_concurrent_extraction_records_one_fail(claude_projects, memory_path, memgit_cli, fake_llm):
    write_sessions(claude_projects, n=8)
    fake_llm.default = Reply.error(401)
    result = sync(memgit_cli, fake_llm)
    assert result.exit_code == 8
    assert len(fake_llm.requests) <= 4  # what was already in flight, then nothing more
    assert [r["kind"] for r in ledger_commits(memory_path)] == ["fail"]


def test_a_missing_key_is_one_clear_line_before_any_request(claude_projects, memory_path, memgit_cli, fake_llm,
                                                            monkeypatch):
    write_sessions(claude_projects, n=3)
    monkeypatch.delenv("OPENAI_API_KEY")
    result = memgit_cli("sync", "--model", MODEL)
    assert result.exit_code == 8
    assert result.stderr.startswith("Error: missing OPENAI_API_KEY for openai/fake-model; export it or pass "
                                    "--api-base for a local server")
    assert len(result.stderr.strip().splitlines()) == 1
    assert fake_llm.requests == []
    [row] = ledger_commits(memory_path)  # the session is recorded as failed, never lost
    assert row["kind"] == "fail" and row["reason"].startswith("missing OPENAI_API_KEY")
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["totals"]["failed"] == 1
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    fake_llm.default = Reply.json(NOTE)
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["extracted"] == 2
    assert json.loads(sync(memgit_cli, fake_llm, "--retry-failed", "--json").stdout)["extracted"] == 1


def test_an_empty_response_is_a_skip_that_records_its_tokens(claude_projects, memory_path, memgit_cli, fake_llm):
    write_sessions(claude_projects, n=2)
    fake_llm.script(Reply(""), Reply.json({**NOTE, "keep": False, "reason": "a routine fix, nothing reusable"}))
    data = json.loads(sync(memgit_cli, fake_llm, "--json").stdout)
    assert (data["skipped"], data["extracted"], data["failed"]) == (2, 0, 0)
    reasons = sorted(r["reason"] for r in ledger_commits(memory_path))
    assert reasons == ["a routine fix, nothing reusable", "the model found nothing worth keeping (empty reply)"]
    skips = trailers(memory_path, "skip")
    assert {s["Memgit-Tokens"] for s in skips} == {"1200"} and {s["Memgit-Extractor"] for s in skips} == {MODEL}
    assert not git(memory_path, "ls-tree", "-r", "--name-only", "projects/pinion", "sessions").strip()


def test_the_server_never_receives_a_planted_secret_and_notes_never_keep_one(
        claude_projects, memory_path, memgit_cli, fake_llm):
    secrets = planted()
    write_planted_sessions(claude_projects, secrets, "llm-secret")
    # The model "stitches" a secret back together: the note is redacted again after extraction.
    leaky = {**NOTE, "learnings": [*NOTE["learnings"],
                                   {"type": "fact", "text": f"The deploy script reads the key {secrets['github_ghp'][1]}"}]}
    fake_llm.default = Reply.json(leaky)
    result = sync(memgit_cli, fake_llm, "--json")
    assert json.loads(result.stdout)["extracted"] == len(secrets), result.stdout
    sent = fake_llm.sent_text()
    assert "Always deploy with this" in sent and "[REDACTED:" in sent
    assert [kind for kind, (_t, value) in secrets.items() if value in sent] == []
    objects = subprocess.run(["git", "-C", str(memory_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    assert [kind for kind, (_t, value) in secrets.items() if value in objects] == []


def test_extractions_run_concurrently_and_commits_stay_in_session_order(
        claude_projects, memory_path, memgit_cli, fake_llm):
    sessions = write_sessions(claude_projects, n=6)
    fake_llm.default = Reply(content=json.dumps(NOTE), delay=0.4)
    data = json.loads(sync(memgit_cli, fake_llm, "--json").stdout)
    # one per session, plus the project's init, plus the consolidations that follow
    assert data["extracted"] == 6 and data["commits"] == 6 + 1 + len(data["consolidated"])
    assert 1 < fake_llm.max_in_flight <= 4  # [extract] concurrency defaults to 4
    order = git(memory_path, "log", "--reverse", "--format=%(trailers:key=Memgit-Session,valueonly)",
                "projects/pinion").split()
    assert order == [f"claude-code/{w.session_id}" for w in sessions]  # oldest first, as without threads


def test_concurrency_one_makes_one_request_at_a_time(claude_projects, memgit_cli, fake_llm, hermetic_env):
    write_sessions(claude_projects, n=3)
    set_config(hermetic_env, concurrency=1)
    fake_llm.default = Reply(content=json.dumps(NOTE), delay=0.1)
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["extracted"] == 3
    assert fake_llm.max_in_flight == 1


def test_dry_run_prints_the_tokens_and_estimated_cost_and_sends_nothing(
        claude_projects, memory_path, memgit_cli, fake_llm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")  # a dry run needs no key
    sessions = write_sessions(claude_projects, n=2)
    result = memgit_cli("sync", "--dry-run", "--model", "anthropic/claude-haiku-4-5")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    for w in sessions:
        [line] = [x for x in lines if w.session_id in x]
        assert " tokens, ~$0.00" in line
    assert "anthropic/claude-haiku-4-5 would be sent ~" in result.stdout
    data = json.loads(memgit_cli("sync", "--dry-run", "--json", "--model", MODEL).stdout)
    assert all(s["tokens"] > 200 and s["cost"] is None for s in data["sessions"])
    assert "cost unknown" in memgit_cli("sync", "--dry-run", "--model", MODEL).stdout
    assert fake_llm.requests == [] and not memory_path.exists()  # not even the repository is created


def test_a_persons_own_prompt_replaces_the_shipped_one_and_the_commit_says_so(
        claude_projects, memory_path, memgit_cli, fake_llm, hermetic_env):
    import hashlib

    own = "You write memory. Keep only commands. Answer with the JSON object.\n"
    path = hermetic_env / ".config" / "memgit" / "prompts" / "extract.md"
    path.parent.mkdir(parents=True)
    path.write_text(own)
    write_sessions(claude_projects)
    fake_llm.default = Reply.json(NOTE)
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["extracted"] == 1
    assert fake_llm.requests[0]["body"]["messages"][0]["content"] == own
    [extract] = trailers(memory_path, "extract")
    assert extract["Memgit-Prompt"] == f"extract sha256:{hashlib.sha256(own.encode()).hexdigest()[:12]} (override)"


def test_a_model_out_of_reach_for_three_sessions_in_a_row_stops_the_run(
        claude_projects, memory_path, memgit_cli, fake_llm, hermetic_env):
    write_sessions(claude_projects, n=5)
    set_config(hermetic_env, concurrency=1)
    fake_llm.default = Reply.error(503)
    result = sync(memgit_cli, fake_llm)
    assert result.exit_code == 8
    assert "stopped after 3 sessions in a row could not reach the model" in result.stderr
    assert "2 more left pending" in result.stderr
    assert [r["kind"] for r in ledger_commits(memory_path)] == ["fail"] * 3
    assert len(fake_llm.requests) == 3 * 3  # three tries each, then no more calls
    fake_llm.default = Reply.json(NOTE)
    assert json.loads(sync(memgit_cli, fake_llm, "--json").stdout)["extracted"] == 2


def test_the_cost_is_recorded_when_the_models_price_is_known(claude_projects, memory_path, memgit_cli, fake_llm):
    write_sessions(claude_projects)
    fake_llm.default = Reply.json(NOTE)
    result = memgit_cli("sync", "--json", "--model", "openai/gpt-4o-mini", "--api-base", fake_llm.api_base)
    data = json.loads(result.stdout)
    assert data["extracted"] == 1 and data["cost"] == 0.00027  # 1000 in at $0.15/M + 200 out at $0.60/M
    [extract] = trailers(memory_path, "extract")
    assert (extract["Memgit-Tokens"], extract["Memgit-Cost"]) == ("1200", "0.000270")
    log = (memory_path / ".git" / "memgit" / "sync.log").read_text()
    assert "openai/gpt-4o-mini: 1000 prompt + 200 completion tokens, cost $0.000270" in log
