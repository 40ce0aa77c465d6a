"""The LLM adapter: the one module that imports litellm (lazily), with memgit's own retry policy.

litellm costs 2-3 s to import, so it is imported inside the functions that call a model, never on
the hook path or for `--help`. Before the import, the settings that keep it offline are set: the
bundled model cost map and Anthropic beta headers (both fetched over the network otherwise), and
no HuggingFace tokenizer downloads.

Retries are memgit's, not litellm's: litellm's need `tenacity` (not installed: the typed exception
is lost), retry a wrong key, and do not back off for Anthropic. So every call is made with
`num_retries=0, max_retries=0`, and `complete` retries rate limits, timeouts and server errors
only, with jittered exponential backoff. A missing key is checked before any call (for `openai/`
it would otherwise come back as a retryable InternalServerError); a wrong one (HTTP 401/403) is not
retried. Every failure is one `ModelError` line, saying which variable or setting to look at.

A model string naming an agent CLI (`claude-code/haiku`, `codex/…`, `gemini-cli/…`; see
memgit.models) is run by that CLI instead, through the same door: the request redacted by
`sendable`, the same retry rules, the reply parsed by the same `structured`. litellm is the `llm`
extra; the CLIs need none. Every call first asks the day's budget (memgit.models.spending).
"""

from __future__ import annotations

import json
import logging
import os
import random
import re
import shutil
import time
import warnings
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

from memgit import models
from memgit.models import spending
from memgit.errors import LLMError
from memgit.core.redact import redact

log = logging.getLogger("memgit.llm")
T = TypeVar("T")

NO_KEY = "memgit-no-key"  # sent to a local server (--api-base) when no key is set: SDKs insist on one
MAX_EXCERPT = 160


@dataclass(frozen=True, slots=True)
class Retry:
    """How often a request is tried and how long to wait between tries."""

    attempts: int = 4  # tries per request, the first included
    base_delay: float = 2.0  # seconds before the second try; doubled each time, jittered
    max_delay: float = 30.0
    timeouts: int = 2  # tries that may time out: a request too slow twice will be too slow again

    def delay(self, attempt: int, jitter: float) -> float:
        """Seconds to wait after failed try `attempt` (1-based), `jitter` in [0, 1)."""
        return min(self.max_delay, self.base_delay * 2 ** (attempt - 1)) * (0.5 + jitter / 2)


RETRY = Retry()


@dataclass(slots=True)
class Usage:
    """Tokens and cost of the calls made for one unit of work (a session, a consolidation)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # USD; None when a call's cost is unknown (a model missing from the map)
    calls: int = 0
    priced: bool = True

    @property
    def tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, prompt_tokens: int, completion_tokens: int, cost: float | None) -> None:
        self.calls += 1
        self.prompt_tokens += prompt_tokens
        self.completion_tokens += completion_tokens
        if cost is None:
            self.priced = False
        self.cost = (self.cost or 0.0) + cost if self.priced and cost is not None else None


class ModelError(LLMError):
    """A model call that cannot succeed now.

    `auth`: the key is missing or refused; no other call in this run can succeed.
    `unavailable`: timeouts, rate limits or server errors outlasted the retries.
    `usage`: what the calls made before the failure cost.
    """

    def __init__(self, message: str, *, usage: Usage | None = None, auth: bool = False,
                 unavailable: bool = False):
        super().__init__(message)
        self.usage = usage or Usage()
        self.auth, self.unavailable = auth, unavailable


@dataclass(frozen=True, slots=True)
class Reply:
    content: str
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int
    cost: float | None


# ---- litellm, imported on first use -------------------------------------------------------


def _litellm():
    """Import litellm with the offline-safe settings (2-3 s the first time).

    Raises:
        ModelError: (auth) litellm is not installed: the line names the extra that brings it.
    """
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
    try:
        import litellm
    except ImportError as e:
        raise ModelError(models.NO_LITELLM, auth=True) from e

    # litellm's pydantic types warn on first use ("… is using the `ReadOnly` qualifier"): not the user's business
    warnings.filterwarnings("ignore", category=UserWarning, module=r"pydantic\.")
    litellm.suppress_debug_info = True  # no "Provider List" banners on stdout
    litellm.disable_hf_tokenizer_download = True
    return litellm


def provider(model: str) -> str:
    """The litellm provider of a model string: anthropic/claude-haiku-4-5 -> anthropic."""
    if "/" in model:
        return model.split("/", 1)[0]
    try:
        return _litellm().get_llm_provider(model)[1]
    except Exception:  # noqa: BLE001 - an unknown name: litellm says so at call time
        return "openai"


def key_names(model: str) -> list[str]:
    """The environment variables holding the key for `model` (for error messages)."""
    missing = _missing_keys(model)
    if missing:
        return missing
    name = provider(model)
    special = {"bedrock": "AWS_ACCESS_KEY_ID", "vertex_ai": "GOOGLE_APPLICATION_CREDENTIALS",
               "ollama": "", "ollama_chat": ""}
    value = special.get(name, f"{name.upper()}_API_KEY")
    return [value] if value else []


def _missing_keys(model: str) -> list[str]:
    try:
        found = _litellm().validate_environment(model=model)
    except Exception:  # noqa: BLE001 - an unknown provider: the call itself will say what is wrong
        return []
    # Bases have defaults (ollama: localhost:11434) or come from --api-base; only keys are required.
    return [k for k in found.get("missing_keys") or [] if "BASE" not in k and "ENDPOINT" not in k]


def check_credentials(model: str, api_base: str | None = None) -> None:
    """Fail before any call when the key `model` needs is not set.

    With `api_base` (a local or proxy server) a missing key is allowed: the server decides.

    Raises:
        ModelError: (auth) naming the missing environment variable(s), the missing extra, or the
            agent CLI not on PATH.
    """
    if models.cli_of(model):
        executable = models.CLIS[models.cli_of(model)][1]
        if shutil.which(executable) is None:
            raise ModelError(f"{model}: `{executable}` is not installed (not found on PATH); install it and sign in, "
                             "or choose another model", auth=True)
        return
    _litellm()  # the extra is missing: say so, not "no key"
    if api_base:
        return
    missing = _missing_keys(model)
    if missing:
        raise ModelError(f"missing {', '.join(missing)} for {model}; export it or pass --api-base for a local "
                         "server", auth=True)


def estimate_cost(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD for a call of that size by litellm's bundled price map; None when the model is not in it
    (or is an agent CLI's, or litellm is not installed)."""
    if models.cli_of(model):
        return None
    try:
        inp, out = _litellm().cost_per_token(model=model, prompt_tokens=prompt_tokens,
                                             completion_tokens=completion_tokens)
    except Exception:  # noqa: BLE001 - ModelNotMappedError and friends: the price is unknown
        return None
    return float(inp) + float(out)


# ---- one request, retried ------------------------------------------------------------------


def _one_line(e: BaseException) -> str:
    """litellm's message without its class-name prefixes, on one line, secrets redacted."""
    text = " ".join(str(e).split())
    text = re.sub(r"^(?:litellm\.\w+:\s*)?(?:\w+(?:Error|Exception)\s*[:-]\s*)*", "", text)
    text = re.sub(r"\s*(?:Received Model Group|LiteLLM Retried|Error_str).*$", "", text)
    return redact(text[:300]) or type(e).__name__


def _schema_refused(e: BaseException) -> bool:
    text = str(e).lower()
    return any(word in text for word in ("response_format", "json_schema", "structured output", "output_format"))


def sendable(messages: Sequence[dict], extra_patterns: Sequence[str] = ()) -> list[dict]:
    """The messages as they may leave the machine: every text redacted, whoever built it.

    The one redaction of what a model receives (the transcript was redacted when read; this is the
    whole request once more, so no caller can send a text that skipped it)."""
    def clean(content):
        if isinstance(content, str):
            return redact(content, extra_patterns)
        if isinstance(content, list):  # content parts: {"type": "text", "text": ...}
            return [{**part, "text": redact(part["text"], extra_patterns)}
                    if isinstance(part, dict) and isinstance(part.get("text"), str) else part for part in content]
        return content

    return [{**m, "content": clean(m.get("content"))} for m in messages]


def complete(model: str, messages: Sequence[dict], *, schema: dict | None = None, api_base: str | None = None,
             timeout: float = 120.0, max_tokens: int = 4096, usage: Usage | None = None,
             retry: Retry | None = None, extra_patterns: Sequence[str] = ()) -> Reply:
    """Send one chat request, redacted (`sendable`), retrying rate limits, timeouts and server errors.

    Args:
        schema: a JSON schema for the reply (sent as response_format); dropped if the server refuses it.
        usage: tokens and cost of every call made are added to it (failed tries included).
        extra_patterns: the person's `[redact] extra_patterns`, applied with the built-in rules.

    Raises:
        ModelError: the key is missing or refused (auth), the retries ran out (unavailable), or the
            request was rejected (bad request, unknown model, context window exceeded).
    """
    messages = sendable(messages, extra_patterns)
    retry = retry or RETRY
    usage = usage if usage is not None else Usage()
    if models.cli_of(model):  # an agent CLI (memgit.models): same rules, its own process
        from memgit.models import through_cli

        return through_cli.complete(model, messages, schema=schema, timeout=timeout, usage=usage, retry=retry,
                                    max_tokens=max_tokens)
    spending.ask(model, messages, max_tokens)
    litellm = _litellm()
    check_credentials(model, api_base)
    kwargs: dict = {"timeout": timeout, "num_retries": 0, "max_retries": 0, "drop_params": True,
                    "max_tokens": max_tokens}
    if api_base:
        kwargs["api_base"] = api_base
        if _missing_keys(model):
            kwargs["api_key"] = NO_KEY
    transient = tuple(getattr(litellm, name) for name in (
        "RateLimitError", "Timeout", "APIConnectionError", "InternalServerError", "ServiceUnavailableError",
        "BadGatewayError") if hasattr(litellm, name))
    attempt, timeouts, problem = 0, 0, ""
    while attempt < retry.attempts and timeouts < retry.timeouts:
        attempt += 1
        if schema is not None:
            kwargs["response_format"] = {"type": "json_schema", "json_schema": schema}
        else:
            kwargs.pop("response_format", None)
        started = time.monotonic()
        try:
            resp = litellm.completion(model=model, messages=list(messages), **kwargs)
        except (litellm.AuthenticationError, litellm.PermissionDeniedError) as e:
            keys = " or ".join(key_names(model)) or "the server's credentials"
            raise ModelError(f"{model} refused the key (HTTP {getattr(e, 'status_code', 401)}: {_one_line(e)}); "
                             f"check {keys}", usage=usage, auth=True) from e
        except litellm.ContextWindowExceededError as e:
            raise ModelError(f"{model}: the transcript is over the model's context window ({_one_line(e)}); "
                             "lower [extract] max_input_tokens", usage=usage) from e
        except litellm.BadRequestError as e:
            if schema is not None and _schema_refused(e):  # a server without structured output: ask in words
                log.info("%s refused the JSON schema; asking for JSON in the prompt only", model)
                schema, attempt = None, attempt - 1
                continue
            raise ModelError(f"{model} rejected the request: {_one_line(e)}", usage=usage) from e
        except litellm.NotFoundError as e:
            raise ModelError(f"{model} not found: {_one_line(e)}; check the model name and --api-base",
                             usage=usage) from e
        except transient as e:
            if isinstance(e, litellm.Timeout):
                timeouts += 1
                problem = "timed out after {:g} s".format(timeout)
            else:
                problem = f"{type(e).__name__}: {_one_line(e)}"
            log.warning("%s try %d/%d failed: %s", model, attempt, retry.attempts, problem)
            if attempt < retry.attempts and timeouts < retry.timeouts:
                time.sleep(retry.delay(attempt, random.random()))
            continue
        except litellm.APIError as e:
            if (getattr(e, "status_code", 0) or 0) >= 500:  # a 5xx litellm did not type: retry it too
                problem = f"HTTP {e.status_code}: {_one_line(e)}"
                if attempt < retry.attempts:
                    time.sleep(retry.delay(attempt, random.random()))
                continue
            raise ModelError(f"{model} failed: {_one_line(e)}", usage=usage) from e
        reply = _reply(resp)
        usage.add(reply.prompt_tokens, reply.completion_tokens, reply.cost)
        spending.record(reply.prompt_tokens + reply.completion_tokens, reply.cost)
        log.info("%s: %d prompt + %d completion tokens, cost %s, %.1f s, try %d", model, reply.prompt_tokens,
                 reply.completion_tokens, "unknown" if reply.cost is None else f"${reply.cost:.6f}",
                 time.monotonic() - started, attempt)
        return reply
    raise ModelError(f"{model} {problem} ({attempt} tries); try again later (sync --retry-failed)"
                     + ("; or raise [extract] timeout" if "timed out" in problem else ""),
                     usage=usage, unavailable=True)


def _reply(resp) -> Reply:
    choice = resp.choices[0] if resp.choices else None
    content = (choice.message.content if choice is not None else None) or ""
    u = getattr(resp, "usage", None)
    cost = (getattr(resp, "_hidden_params", None) or {}).get("response_cost")
    return Reply(
        content=content,
        finish_reason=str(getattr(choice, "finish_reason", "") or ""),
        prompt_tokens=int(getattr(u, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(u, "completion_tokens", 0) or 0),
        cost=float(cost) if cost is not None else None,
    )


# ---- structured output: parse, and one retry carrying what was wrong ----------------------


def parse_json_object(text: str) -> dict:
    """Parse a model's reply as one JSON object (a ```json fence around it is allowed).

    Raises:
        ValueError: not JSON, or not an object.
    """
    body = text.strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", body, re.S)
    if fenced:
        body = fenced.group(1)
    try:
        value = json.loads(body)
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from e
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, got {type(value).__name__}")
    return value


def structured(model: str, messages: Sequence[dict], parse: Callable[[str], T], *, schema: dict,
               api_base: str | None = None, timeout: float = 120.0, max_tokens: int = 4096,
               usage: Usage | None = None, extra_patterns: Sequence[str] = ()) -> T:
    """Ask for JSON matching `schema` and return `parse(reply)`; once more with the error if it fails.

    Args:
        parse: turns the reply text into a value; raises ValueError saying what is wrong with it.
        usage: receives the tokens and cost of every call.

    Raises:
        ModelError: a call failed (see `complete`), or both replies were invalid.
    """
    usage = usage if usage is not None else Usage()
    sent = list(messages)
    problem, content = "", ""
    for attempt in (1, 2):
        reply = complete(model, sent, schema=schema, api_base=api_base, timeout=timeout, max_tokens=max_tokens,
                         usage=usage, extra_patterns=extra_patterns)
        content = reply.content
        try:
            return parse(content)
        except ValueError as e:
            problem = str(e)
            if reply.finish_reason == "length":
                problem += f" (the reply was cut off at {max_tokens} tokens: be shorter)"
        log.warning("%s reply %d was invalid: %s", model, attempt, problem)
        # The echoed reply is cut here and redacted with the rest when sent (`complete`).
        sent = [*messages, {"role": "assistant", "content": content[:4000] or "(empty)"},
                {"role": "user", "content": f"That reply is not valid: {problem}. Answer again with only the "
                                            "JSON object the schema describes, nothing before or after it."}]
    excerpt = redact(" ".join(content.split()))[:MAX_EXCERPT]  # redacted before it is cut
    raise ModelError(f"{model} gave invalid output twice: {problem}; it began {excerpt!r}", usage=usage)
