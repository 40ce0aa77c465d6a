"""The agent CLIs' answers read as memgit reads them, and the day's budget counted from commit trailers."""

from __future__ import annotations

import json

import pytest

from memgit.core import budget
from memgit.core.ledger import CommitInfo, format_message
from memgit.models import agent_cli, backend, claude_code, cli_of, codex, gemini_cli
from memgit.models.agent_cli import Failure

NOTE = {"keep": False, "reason": "routine"}


@pytest.mark.parametrize("model,cli", [("claude-code/haiku", "claude-code"), ("codex/gpt-5-codex", "codex"),
                                       ("gemini-cli/gemini-2.5-flash", "gemini-cli"), ("anthropic/claude-haiku-4-5", None),
                                       ("claude-code/", None), ("heuristic", None), ("openai/gpt-4o", None)])
def test_a_model_string_names_its_backend(model, cli):
    assert cli_of(model) == cli
    assert backend(model).startswith({None: "offline" if model == "heuristic" else "litellm"}.get(cli, "the `"))


def test_the_childs_environment_has_no_session_marker_and_no_memgit_variable():
    env = agent_cli.child_env({"PATH": "/bin", "HOME": "/h", "CLAUDECODE": "1", "CLAUDE_CODE_SESSION_ID": "s",
                               "CODEX_THREAD_ID": "t", "GEMINI_CLI": "1", "MEMGIT_HOME": "/m",
                               "ANTHROPIC_API_KEY": "kept: the CLI may sign in with it"}, {"X": "1"})
    assert env == {"PATH": "/bin", "HOME": "/h", "ANTHROPIC_API_KEY": "kept: the CLI may sign in with it", "X": "1"}


def test_claude_code_result_structured_output_usage_and_cost():
    out = json.dumps({"type": "result", "subtype": "success", "is_error": False, "result": "",
                      "structured_output": NOTE, "total_cost_usd": 0.01, "stop_reason": "end_turn",
                      "usage": {"input_tokens": 10, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 5,
                                "output_tokens": 7}})
    answer = claude_code.answer(0, out, "")
    assert (json.loads(answer.content), answer.prompt_tokens, answer.completion_tokens, answer.cost) == (NOTE, 20, 7, 0.01)


@pytest.mark.parametrize("said,status,kind", [("Not logged in · Please run /login", None, "auth"),
                                              ("API Error: Request rejected (429)", 429, "transient"),
                                              ("You've hit your session limit · resets 5pm", None, "transient"),
                                              ("API Error: 400 model not found", 400, "rejected")])
def test_claude_code_errors_keep_their_kind_and_what_they_cost(said, status, kind):
    out = json.dumps({"type": "result", "subtype": "success", "is_error": True, "result": said,
                      "api_error_status": status, "total_cost_usd": 0.002,
                      "usage": {"input_tokens": 3, "output_tokens": 1}})
    with pytest.raises(Failure) as e:
        claude_code.answer(1, out, "")
    assert (e.value.kind, e.value.prompt_tokens, e.value.cost) == (kind, 3, 0.002)
    assert said.split(" ·")[0] in e.value.message


def test_codex_events_give_the_last_agent_message_and_the_turns_usage():
    events = [{"type": "thread.started", "thread_id": "t"}, {"type": "turn.started"},
              {"type": "item.completed", "item": {"id": "i0", "type": "reasoning", "text": "thinking"}},
              {"type": "item.completed", "item": {"id": "i1", "type": "agent_message", "text": json.dumps(NOTE)}},
              {"type": "turn.completed", "usage": {"input_tokens": 30, "cached_input_tokens": 10, "output_tokens": 4}}]
    answer = codex.answer(0, "\n".join(json.dumps(e) for e in events), "")
    assert (json.loads(answer.content), answer.prompt_tokens, answer.completion_tokens, answer.cost) == (NOTE, 30, 4, None)
    failed = [{"type": "turn.failed", "error": {"message": "exceeded retry limit, last status: 429 Too Many Requests"}}]
    with pytest.raises(Failure, match="429") as e:
        codex.answer(1, json.dumps(failed[0]), "")
    assert e.value.kind == "transient"


def test_gemini_response_stats_and_errors():
    out = json.dumps({"session_id": "s", "response": json.dumps(NOTE), "stats": {"models": {
        "gemini-2.5-flash": {"tokens": {"prompt": 40, "candidates": 5, "thoughts": 2, "total": 47}}}}})
    answer = gemini_cli.answer(0, out, "")
    assert (json.loads(answer.content), answer.prompt_tokens, answer.completion_tokens) == (NOTE, 40, 7)
    auth = json.dumps({"error": {"type": "FatalAuthenticationError", "message": "Please set an Auth method", "code": 41}})
    with pytest.raises(Failure) as e:
        gemini_cli.answer(41, "", auth)
    assert e.value.kind == "auth" and "Please set an Auth method" in e.value.message


def _commit(sha: str, time: int, **trailers) -> CommitInfo:
    message = format_message("extract", "pinion", "a note", trailers=[(k.replace("_", "-"), v) for k, v in trailers.items()])
    return CommitInfo(sha, (), message, time)


def test_the_days_spend_is_read_from_its_commits_trailers():
    day = budget.day_start(1_764_000_000)
    assert day % 86_400 == 0 and day <= 1_764_000_000 < day + 86_400
    commits = [_commit("a", day + 10, Memgit_Tokens=1200, Memgit_Cost="0.500000"),
               _commit("b", day + 20, Memgit_Tokens=300),
               _commit("b", day + 20, Memgit_Tokens=300),  # the same commit seen from two branches
               _commit("c", day - 1, Memgit_Tokens=99_999)]  # yesterday's
    assert budget.spent(commits, since=day) == (1500, 0.5)
    spend = budget.Spend(1500, 0.5, 2000, 1.0, day)
    assert not spend.over(500) and spend.over(501) and spend.over(0, 0.51)
    assert budget.Spend(1500, 0.5, 0, 0, day).over(10**9, 10**6) is False  # 0: no limit
    assert spend.text(day + 86_400 - 3_660) == ("1,500 of 2,000 tokens ($0.50 of $1.00) spent today; the budget "
                                                "resets at 00:00 UTC (in 1 h 1 min)")
