"""The agent CLIs a person already has, as models: `claude-code/<model>`, `codex/<model>`, `gemini-cli/<model>`.

One module per CLI (the flags it is run with and the JSON it answers in), one shared runner
(`agent_cli`: environment, working folder, timeout, failures). `memgit.llm` is still the one door
every model call passes through (the request redacted by `llm.sendable`, the reply parsed and
validated by `llm.structured`); it hands a model string this registry knows to its CLI, and any
other `provider/model` string to litellm.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from memgit.errors import LLMError

# model-string prefix -> (the module running it, the executable it runs)
CLIS = {
    "claude-code": ("memgit.models.claude_code", "claude"),
    "codex": ("memgit.models.codex", "codex"),
    "gemini-cli": ("memgit.models.gemini_cli", "gemini"),
}


def cli_of(model: str) -> str | None:
    """The agent CLI a model string names (`claude-code/haiku` -> claude-code), None for any other."""
    prefix, sep, name = model.partition("/")
    return prefix if sep and name and prefix in CLIS else None


def module(model: str) -> ModuleType:
    """The backend module of a model string the registry knows."""
    return importlib.import_module(CLIS[cli_of(model)][0])  # type: ignore[index]


def backend(model: str) -> str:
    """Which backend a model string uses, in words (for `memgit config show`)."""
    if model == "heuristic":
        return "offline heuristic (no model)"
    cli = cli_of(model)
    if cli:
        return f"the `{CLIS[cli][1]}` command ({cli} CLI, no extra needed)"
    return "litellm (needs the llm extra: pip install 'memgit[llm]')"


EXTRA = "pip install 'memgit[llm]'"
NO_LITELLM = (f"a provider/model string needs litellm, which the default install leaves out: {EXTRA} "
              "(or use an agent CLI you have: claude-code/haiku, codex/<model>, gemini-cli/<model>)")


def require(model: str) -> None:
    """Fail at once when what `model` needs is not installed (litellm for a provider/model string).

    Raises:
        LLMError: litellm is missing; the line names the extra that brings it.
    """
    if model == "heuristic" or cli_of(model):
        return
    import importlib.util

    try:
        found = importlib.util.find_spec("litellm") is not None
    except (ImportError, ValueError):  # a broken or blocked install
        found = False
    if not found:
        raise LLMError(f"{model}: {NO_LITELLM}")
