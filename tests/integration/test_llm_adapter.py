"""memgit.llm over real HTTP to the fake OpenAI-compatible server: retries, errors, usage, structured output."""

from __future__ import annotations

import json
import socket

import pytest

from memgit import llm
from tests.fake_llm import FakeLLM, Reply

MODEL = "openai/fake-model"
HELLO = [{"role": "user", "content": "hello"}]
SCHEMA = {"name": "answer", "strict": True,
          "schema": {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"],
                     "additionalProperties": False}}


def answer(text: str) -> str:
    data = llm.parse_json_object(text)
    if not isinstance(data.get("answer"), str):
        raise ValueError("`answer` must be a string")
    return data["answer"]


def test_a_reply_comes_back_with_its_usage_and_the_schema_was_sent(fake_llm):
    fake_llm.script(Reply.json({"answer": "42"}))
    usage = llm.Usage()
    reply = llm.complete(MODEL, HELLO, schema=SCHEMA, api_base=fake_llm.api_base, usage=usage, max_tokens=123)
    assert json.loads(reply.content) == {"answer": "42"}
    assert (usage.prompt_tokens, usage.completion_tokens, usage.calls, usage.cost) == (1000, 200, 1, None)
    [request] = fake_llm.requests
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == "Bearer sk-fake"
    body = request["body"]
    assert body["model"] == "fake-model" and body["max_tokens"] == 123
    assert body["response_format"] == {"type": "json_schema", "json_schema": SCHEMA}


def test_rate_limits_and_server_errors_are_retried(fake_llm):
    fake_llm.script(Reply.error(429), Reply.error(500), Reply.json({"answer": "ok"}))
    assert llm.structured(MODEL, HELLO, answer, schema=SCHEMA, api_base=fake_llm.api_base) == "ok"
    assert len(fake_llm.requests) == 3


def test_retries_run_out_with_one_line_saying_so(fake_llm):
    fake_llm.default = Reply.error(503)
    with pytest.raises(llm.ModelError) as caught:
        llm.complete(MODEL, HELLO, api_base=fake_llm.api_base)
    assert caught.value.unavailable and not caught.value.auth
    assert "(3 tries)" in caught.value.message and "\n" not in caught.value.message
    assert len(fake_llm.requests) == 3


def test_a_refused_key_is_not_retried_and_names_the_variable(fake_llm):
    fake_llm.default = Reply.error(401, "Incorrect API key provided")
    with pytest.raises(llm.ModelError) as caught:
        llm.complete(MODEL, HELLO, api_base=fake_llm.api_base)
    assert caught.value.auth
    assert caught.value.message == ("openai/fake-model refused the key (HTTP 401: Incorrect API key provided); "
                                    "check OPENAI_API_KEY")
    assert len(fake_llm.requests) == 1


def test_a_missing_key_fails_before_any_request(fake_llm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(llm.ModelError) as caught:
        llm.complete(MODEL, HELLO)
    assert caught.value.auth
    assert caught.value.message == ("missing OPENAI_API_KEY for openai/fake-model; export it or pass --api-base "
                                    "for a local server")
    assert fake_llm.requests == []


def test_a_local_server_needs_no_key(fake_llm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    fake_llm.script(Reply.json({"answer": "local"}))
    assert llm.structured(MODEL, HELLO, answer, schema=SCHEMA, api_base=fake_llm.api_base) == "local"
    assert fake_llm.requests[0]["headers"]["authorization"] == f"Bearer {llm.NO_KEY}"


def test_a_timeout_is_retried_then_reported(fake_llm, monkeypatch):
    monkeypatch.setattr(llm, "RETRY", llm.Retry(attempts=2, base_delay=0.01))
    fake_llm.default = Reply.slow(3, {"answer": "late"})
    with pytest.raises(llm.ModelError) as caught:
        llm.complete(MODEL, HELLO, api_base=fake_llm.api_base, timeout=0.5)
    assert caught.value.unavailable and "timed out after 0.5 s (2 tries)" in caught.value.message
    assert len(fake_llm.requests) == 2


def test_an_unreachable_server_is_unavailable_not_a_crash(fake_llm):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed when the block ends: connection refused
    with pytest.raises(llm.ModelError) as caught:
        llm.complete(MODEL, HELLO, api_base=f"http://127.0.0.1:{port}/v1")
    assert caught.value.unavailable


def test_a_server_without_structured_output_is_asked_in_words(fake_llm):
    fake_llm.script(Reply.error(400, "response_format json_schema is not supported by this server"),
                    Reply.json({"answer": "plain"}))
    assert llm.structured(MODEL, HELLO, answer, schema=SCHEMA, api_base=fake_llm.api_base) == "plain"
    assert "response_format" in fake_llm.requests[0]["body"] and "response_format" not in fake_llm.requests[1]["body"]


def test_an_unknown_model_is_a_clear_error(fake_llm):
    fake_llm.default = Reply.error(404, "The model `fake-model` does not exist")
    with pytest.raises(llm.ModelError, match="not found: .*check the model name"):
        llm.complete(MODEL, HELLO, api_base=fake_llm.api_base)


def test_invalid_output_gets_one_retry_carrying_the_error(fake_llm):
    fake_llm.script(Reply("Sure! The answer is 42."), Reply.json({"answer": "42"}))
    usage = llm.Usage()
    assert llm.structured(MODEL, HELLO, answer, schema=SCHEMA, api_base=fake_llm.api_base, usage=usage) == "42"
    assert usage.calls == 2 and usage.tokens == 2400
    retry = fake_llm.requests[1]["body"]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Sure! The answer is 42."}
    assert "not valid JSON" in retry[-1]["content"]


def test_invalid_output_twice_is_an_error_with_an_excerpt_and_the_usage(fake_llm):
    fake_llm.default = Reply.json({"answer": 42})
    with pytest.raises(llm.ModelError) as caught:
        llm.structured(MODEL, HELLO, answer, schema=SCHEMA, api_base=fake_llm.api_base)
    assert "gave invalid output twice: `answer` must be a string" in caught.value.message
    assert '{"answer": 42}' in caught.value.message
    assert caught.value.usage.calls == 2 and not caught.value.auth


def test_the_fake_server_can_be_used_as_a_context_manager_alone():
    with FakeLLM(Reply.json({"answer": "x"})) as srv:
        assert srv.url.startswith("http://127.0.0.1:") and srv.requests == []
