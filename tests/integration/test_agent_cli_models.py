"""The agent CLIs as models (issue 21): `memgit sync --model claude-code/haiku` (and codex/…, gemini-cli/…)
through stand-in `claude`, `codex` and `gemini` programs on PATH that answer in each CLI's JSON shape."""

from __future__ import annotations

import json
import time

import pytest

from memgit import config, llm
from memgit.sources import registry
from memgit.verbs import sync as sync_verb
from tests.agent_clis import StandIns
from tests.conftest import fsck, ledger_commits
from tests.integration.test_llm_sync import NOTE, trailers, write_sessions
from tests.integration.test_planted import leaks, wide_secrets, write_wide


@pytest.fixture
def clis(tmp_path, monkeypatch, hermetic_env):
    """The stand-ins first on PATH; the parent looks like a running Claude Code session; retries are quick."""
    standins = StandIns(tmp_path / "bin", NOTE)
    monkeypatch.setenv("PATH", standins.path_env())
    monkeypatch.setenv("CLAUDECODE", "1")  # memgit itself runs inside an agent's session (its hook)
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", "parent-session")
    monkeypatch.setenv("CLAUDE_CODE_ENTRYPOINT", "cli")
    monkeypatch.setattr(llm, "RETRY", llm.Retry(base_delay=0.01, max_delay=0.02))
    return standins


def configure(home, text: str) -> None:
    path = home / ".config" / "memgit" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def extractions(calls: list[dict]) -> list[dict]:
    """The calls that extracted a session (not consolidations)."""
    return [c for c in calls if "<transcript>" in c["stdin"]]


def own_sessions(home) -> list:
    """Every session file the stand-ins wrote as the real CLIs would (found by memgit's discovery)."""
    cfg = config.load()
    return [f for f in registry.scan(cfg).files if registry.ran_in(f, cfg.model_workdir)]


def test_claude_code_extracts_runs_outside_the_parent_session_and_its_own_session_is_never_read(
        claude_projects, memory_path, memgit_cli, clis, hermetic_env):
    [w] = write_sessions(claude_projects)
    result = memgit_cli("sync", "--model", "claude-code/haiku", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["extracted"], data["extractor"]) == (1, "claude-code/haiku")
    [extract] = trailers(memory_path, "extract")
    assert extract["Memgit-Extractor"] == "claude-code/haiku"
    assert (extract["Memgit-Tokens"], extract["Memgit-Cost"]) == ("1200", "0.012300")  # the CLI's usage and cost
    assert "# Make the importer skip empty rows" in memgit_cli("show", w.session_id[:8]).stdout
    [call] = extractions(clis.calls)
    argv = call["argv"]
    assert argv[:3] == ["-p", "--output-format", "json"] and argv[argv.index("--model") + 1] == "haiku"
    assert argv[argv.index("--tools") + 1] == "" and "--no-session-persistence" in argv
    assert json.loads(argv[argv.index("--settings") + 1]) == {"disableAllHooks": True}
    assert json.loads(argv[argv.index("--json-schema") + 1])["name"] == "session_note"
    assert "Task 0: make the importer handle empty rows" in call["stdin"]  # the request is on stdin
    assert not any("importer" in a for a in argv)  # and nowhere on the command line
    env = call["env"]
    assert not {"CLAUDECODE", "CLAUDE_CODE_SESSION_ID", "CLAUDE_CODE_ENTRYPOINT"} & set(env)
    assert env["CLAUDE_CODE_DISABLE_AUTO_MEMORY"] == "1"
    assert call["cwd"] == str(config.load().model_workdir)
    # The child's own session, written where Claude Code keeps it, is never read: the next sync reads nothing.
    own = own_sessions(hermetic_env)  # one per call: the extraction's and the consolidations'
    assert len(own) == len(clis.calls) >= 2 and {f.agent for f in own} == {"claude-code"}
    again = json.loads(memgit_cli("sync", "--model", "claude-code/haiku", "--json").stdout)
    assert again["read"] == 0
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["totals"]["pending"] == 0
    assert [r["kind"] for r in ledger_commits(memory_path)] == ["extract"]
    fsck(memory_path)


@pytest.mark.parametrize("model,cli", [("codex/gpt-5-codex", "codex"), ("gemini-cli/gemini-2.5-flash", "gemini")])
def test_codex_and_gemini_extract_count_tokens_and_their_sessions_are_never_read(
        claude_projects, memory_path, memgit_cli, clis, hermetic_env, model, cli):
    configure(hermetic_env, f'[extract]\nmodel = "{model}"\n[consolidate]\nmodel = "heuristic"\n')
    shown = {r["key"]: r for r in json.loads(memgit_cli("config", "show", "--json").stdout)["settings"]}
    assert shown["extract.model"]["backend"] == f"the `{cli}` command ({model.split('/')[0]} CLI, no extra needed)"
    assert shown["consolidate.model"]["backend"] == "offline heuristic (no model)"
    write_sessions(claude_projects)
    data = json.loads(memgit_cli("sync", "--json").stdout)
    assert (data["extracted"], data["extractor"]) == (1, model)
    [extract] = trailers(memory_path, "extract")
    assert extract["Memgit-Tokens"] == "1200" and "Memgit-Cost" not in extract  # the CLI reports no price
    [call] = extractions(clis.calls)
    assert call["cli"] == cli and "Task 0: make the importer handle empty rows" in call["stdin"]
    assert "CLAUDECODE" not in call["env"]
    argv = call["argv"]
    if cli == "codex":
        assert argv[:2] == ["exec", "--json"] and argv[-1] == "-" and "--ephemeral" in argv
        assert "features.hooks=false" in argv and "features.shell_tool=false" in argv
        schema = json.loads(open(argv[argv.index("--output-schema") + 1]).read())
        assert schema["required"][0] == "keep"
    else:
        assert argv[:2] == ["-p", "Answer the request above exactly as it asks, with no tool."]
        assert argv[argv.index("--output-format") + 1] == "json" and "--approval-mode" in argv
        settings = json.loads((config.load().model_workdir / ".gemini" / "settings.json").read_text())
        assert settings["hooksConfig"] == {"enabled": False}
    [own] = own_sessions(hermetic_env)
    assert own.agent == {"codex": "codex", "gemini": "gemini-cli"}[cli]
    assert json.loads(memgit_cli("sync", "--json").stdout)["read"] == 0


def test_the_prompt_on_the_childs_stdin_holds_no_planted_secret(claude_projects, memory_path, memgit_cli, clis):
    secrets = wide_secrets()
    write_wide(claude_projects, secrets)
    result = memgit_cli("sync", "--model", "claude-code/haiku", "--json")
    assert result.exit_code == 0, result.output
    calls = extractions(clis.calls)
    assert len(calls) >= 3
    sent = "\n".join(c["stdin"] + "\n" + "\n".join(c["argv"]) for c in clis.calls)
    assert "Find where the deploy reads" in sent and "[REDACTED:" in sent
    assert leaks(secrets, sent) == []


def test_signed_out_is_one_line_one_fail_and_the_rest_pending(claude_projects, memory_path, memgit_cli, clis,
                                                               hermetic_env):
    write_sessions(claude_projects, n=3)
    configure(hermetic_env, "[extract]\nconcurrency = 1\n")
    clis.mode("claude", "signedout")
    result = memgit_cli("sync", "--model", "claude-code/haiku")
    assert result.exit_code == 8
    assert result.stderr.startswith("Error: claude-code/haiku: claude: Not logged in · Please run /login; sign in to "
                                    "`claude`")
    assert len(result.stderr.strip().splitlines()) == 1 and "2 more left pending" in result.stderr
    assert len(clis.calls) == 1  # never retried, no other session tried
    assert [r["kind"] for r in ledger_commits(memory_path)] == ["fail"]
    clis.mode("claude", "success")  # signed in again
    assert json.loads(memgit_cli("sync", "--model", "claude-code/haiku", "--json").stdout)["extracted"] == 2


def test_a_missing_cli_is_one_line_before_any_call(claude_projects, memory_path, memgit_cli, clis, monkeypatch):
    write_sessions(claude_projects, n=2)
    (clis.bin / "gemini").unlink()
    result = memgit_cli("sync", "--model", "gemini-cli/gemini-2.5-flash")
    assert result.exit_code == 8
    assert result.stderr.startswith("Error: gemini-cli/gemini-2.5-flash: `gemini` is not installed (not found on PATH)")
    assert len(result.stderr.strip().splitlines()) == 1
    assert clis.calls == []
    [row] = ledger_commits(memory_path)  # recorded as failed, as a missing key is
    assert row["kind"] == "fail" and "not installed" in row["reason"]


def test_a_rate_limit_is_retried_and_a_slow_cli_times_out_as_a_fail(claude_projects, memory_path, memgit_cli, clis,
                                                                    hermetic_env):
    write_sessions(claude_projects, n=1)
    clis.mode("codex", "ratelimit")  # once
    data = json.loads(memgit_cli("sync", "--model", "codex/gpt-5-codex", "--json").stdout)
    assert data["extracted"] == 1 and len(extractions(clis.calls)) == 2
    write_sessions(claude_projects, n=1, seed="slow")
    configure(hermetic_env, "[extract]\ntimeout = 1\n[consolidate]\nmodel = \"heuristic\"\n")
    clis.mode("codex", "slow")
    started = time.monotonic()
    result = memgit_cli("sync", "--model", "codex/gpt-5-codex")
    assert time.monotonic() - started < 10  # the child is killed at the timeout, twice, not waited for
    assert result.exit_code == 8
    fails = [r for r in ledger_commits(memory_path) if r["kind"] == "fail"]
    assert len(fails) == 1 and fails[0]["reason"].startswith("codex/gpt-5-codex timed out after 1 s (2 tries)")


def test_the_daily_budget_stops_before_the_call_records_nothing_and_a_later_day_resumes(
        claude_projects, memory_path, memgit_cli, clis, hermetic_env):
    configure(hermetic_env, "[extract]\nconcurrency = 1\n[consolidate]\nmodel = \"heuristic\"\n"
                            "[llm]\nmax_tokens_per_day = 51000\n")
    write_sessions(claude_projects, n=3)
    clis.mode("claude", "expensive")  # 50,000 tokens a call, $0.50
    result = memgit_cli("sync", "--model", "claude-code/haiku")
    assert result.exit_code == 8
    message = result.stderr.strip()
    assert message.startswith("Error: the daily model budget would be passed by the next call")
    assert "50,000 of 51,000 tokens ($0.50) spent today; the budget resets at 00:00 UTC (in " in message
    assert message.endswith("2 session(s) left pending, read by the first sync after the reset")
    assert len(extractions(clis.calls)) == 1  # stopped before the second call
    assert [r["kind"] for r in ledger_commits(memory_path)] == ["extract"]  # nothing recorded as failed
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert (status["spend_today"]["tokens"], status["spend_today"]["max_tokens"]) == (50_000, 51_000)
    assert "model spend: 50,000 of 51,000 tokens" in memgit_cli("status").stdout
    dry = json.loads(memgit_cli("sync", "--model", "claude-code/haiku", "--dry-run", "--json").stdout)
    assert dry["budget"]["tokens"] == 50_000 and dry["budget"]["fits"] is False and dry["budget"]["estimate"] > 0
    # The next UTC day (an injected clock): the budget is whole again and the run goes on.
    tomorrow = time.time() + 86_400
    cfg = sync_verb.with_model(config.load(), "claude-code/haiku")
    with pytest.raises(Exception, match="daily model budget"):  # one more call fits, the second does not
        sync_verb.run(cfg, sync_verb.SyncOptions(), now=tomorrow)
    assert [r["kind"] for r in ledger_commits(memory_path)] == ["extract", "extract"]
    done = sync_verb.run(cfg, sync_verb.SyncOptions(), now=tomorrow + 86_400)
    assert done.count("extract") == 1 and done.count("pending") == 0
    fsck(memory_path)
