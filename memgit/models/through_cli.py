"""One model request through an agent CLI, with memgit's retry rules (the CLI's side of `llm.complete`).

The chat messages (already redacted by `llm.sendable`) become one text on the child's stdin: the
instructions, the data, any earlier reply and the nudge after it, and the JSON schema the answer
must match (also given to the CLI's own schema option where it has one). Rate limits, overloads and
timeouts are retried with the same backoff as litellm's calls (`Retry`); a missing or signed-out
CLI is an `auth` failure: no other call in the run can succeed.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Sequence

from memgit import config, models
from memgit.errors import LLMError
from memgit.models import spending
from memgit.models.agent_cli import Answer, Failure, child_env, run

log = logging.getLogger("memgit.llm")


class CLIModelError(LLMError):
    """An agent CLI call that cannot succeed now (the same fields as memgit.llm.ModelError)."""

    def __init__(self, message: str, *, usage, auth: bool = False, unavailable: bool = False):
        super().__init__(message)
        self.usage, self.auth, self.unavailable = usage, auth, unavailable


class _Reply:
    """What `llm.structured` reads of a reply."""

    def __init__(self, answer: Answer):
        self.content = answer.content
        self.finish_reason = "length" if answer.cut else "stop"
        self.prompt_tokens, self.completion_tokens, self.cost = answer.prompt_tokens, answer.completion_tokens, answer.cost


def _text(content) -> str:
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return str(content or "")


def prompt(messages: Sequence[dict], schema: dict | None) -> str:
    """The conversation as one text for the CLI's stdin."""
    parts, users = [], 0
    for m in messages:
        text = _text(m.get("content"))
        if m.get("role") == "assistant":
            parts.append(f"<your_previous_answer>\n{text}\n</your_previous_answer>")
        elif m.get("role") == "user":
            users += 1
            parts.append(text if users == 1 else f"<follow_up>\n{text}\n</follow_up>")
        else:
            parts.append(text)
    if schema is not None:
        parts.append("Answer with only one JSON object matching this JSON schema, nothing before or after it:\n"
                     + json.dumps(schema.get("schema", schema)))
    return "\n\n".join(parts)


def complete(model: str, messages: Sequence[dict], *, schema: dict | None, timeout: float, usage, retry,
             max_tokens: int) -> _Reply:
    """Ask the CLI `model` names; the budget first, then the call, retried on transient failures.

    Raises:
        BudgetExceeded: the call would pass the day's budget (nothing sent).
        CLIModelError: auth (not installed, signed out), unavailable (retries ran out) or rejected.
    """
    backend = models.module(model)
    name = model.partition("/")[2]
    spending.ask(model, messages, max_tokens)
    text = prompt(messages, schema)
    workdir = config.model_workdir(os.environ)
    env = child_env(os.environ, backend.ENV)
    attempt, timeouts, problem = 0, 0, ""
    while attempt < retry.attempts and timeouts < retry.timeouts:
        attempt += 1
        started = time.monotonic()
        try:
            code, out, err = run(backend.EXECUTABLE, backend.args(name, schema=schema, workdir=workdir), stdin=text,
                                 workdir=workdir, timeout=timeout, env=env)
            answer = backend.answer(code, out, err)
        except Failure as e:
            usage.add(e.prompt_tokens, e.completion_tokens, e.cost)
            spending.record(e.prompt_tokens + e.completion_tokens, e.cost)
            if e.kind == "auth":
                raise CLIModelError(f"{model}: {e.message}; sign in to `{backend.EXECUTABLE}` (run it once by hand) "
                                    "or choose another model", usage=usage, auth=True) from None
            if e.kind == "rejected":
                raise CLIModelError(f"{model} failed: {e.message}", usage=usage) from None
            timeouts += e.message.startswith("timed out")
            problem = e.message
            log.warning("%s try %d/%d failed: %s", model, attempt, retry.attempts, problem)
            if attempt < retry.attempts and timeouts < retry.timeouts:
                time.sleep(retry.delay(attempt, random.random()))
            continue
        usage.add(answer.prompt_tokens, answer.completion_tokens, answer.cost)
        spending.record(answer.prompt_tokens + answer.completion_tokens, answer.cost)
        log.info("%s: %d prompt + %d completion tokens, cost %s, %.1f s, try %d", model, answer.prompt_tokens,
                 answer.completion_tokens, "unknown" if answer.cost is None else f"${answer.cost:.6f}",
                 time.monotonic() - started, attempt)
        return _Reply(answer)
    raise CLIModelError(f"{model} {problem} ({attempt} tries); try again later (sync --retry-failed)"
                        + ("; or raise [extract] timeout" if problem.startswith("timed out") else ""),
                        usage=usage, unavailable=True)
