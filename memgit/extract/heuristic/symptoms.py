"""What a failed build/test run says went wrong: its first meaningful error line, and what kind.

Kinds: `env` (the environment or tooling: a missing module, command or file, a port in use, a
version clash), `lint` (a linter or type checker rule), `code` (the code under development:
assertions, compile errors of new code). Only `env` and `lint` make gotchas.
"""

from __future__ import annotations

import re

from memgit.core.scan import clip
from memgit.extract.heuristic.filters import scrub

_EXCEPTION_LINE = re.compile(r"^\s*(?:E\s+)?(?:[\w.]+\.)?(\w*(?:Error|Exception)):\s*(\S.*)$")
_ERROR_LINE = re.compile(
    r"^\s*(?:error(?:\[\w+\])?:|error TS\d+:|npm ERR!|fatal:|panic:|ERROR:)\s*(\S.*)$", re.I
)
_LOCATED_LINE = re.compile(r"^\s*[\w./@~-]+\.\w+:\d+(?::\d+)?(?::|\s+-)\s*(?:(?:error|warning)\s*:\s*)?(\S.*)$", re.I)
_ENV_LINE = re.compile(
    r"command not found|No such file or directory|file or directory not found|no tests (?:ran|collected)|"
    r"Permission denied|address already in use|EADDRINUSE|ECONNREFUSED|Connection refused|not installed|"
    r"Cannot find module|No module named|unrecognized arguments?|unknown (?:flag|option|command)",
    re.I,
)
_ENV_SYMPTOM = re.compile(
    r"\b(?:ModuleNotFoundError|No module named|ImportError|cannot import name|Cannot find module|command not found|"
    r"not found in PATH|not installed|No such file or directory|file or directory not found|no tests (?:ran|collected)|"
    r"Permission denied|EADDRINUSE|address already in use|ECONNREFUSED|Connection refused|unrecognized argument|"
    r"unknown (?:flag|option|command)|not recognized|could ?n[o']t find|unable to find|ENOENT|lock ?file|"
    r"out of date|incompatible|version|requires? (?:python|node|go)|missing (?:dependency|package|module)|"
    r"PYRIGHT_PYTHON_FORCE_VERSION|environment)\b",
    re.I,
)
# Symptoms where a different invocation of the same program is a workaround worth keeping.
_WORKAROUND_SYMPTOM = re.compile(
    r"command not found|No module named|ModuleNotFoundError|unrecognized arguments?|unknown (?:flag|option|command)|"
    r"not installed|is not recognized|invalid option|no such option",
    re.I,
)


def workaround_symptom(text: str) -> bool:
    return _WORKAROUND_SYMPTOM.search(text) is not None
_LINT_RULE = re.compile(r"\((?:[a-z][\w-]+)\)\s*$|\b[A-Z]{1,4}\d{3,4}\b")
_HEX = re.compile(r"\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b")
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def symptom(output: str, categories: tuple[str, ...] = ()) -> tuple[str, str] | None:
    """(first meaningful error line, kind) of a failed run; kind is `env`, `lint` or `code`."""
    lines = [_ANSI.sub("", line).rstrip() for line in output.splitlines()]
    candidates = []
    exceptions = [m for line in lines if (m := _EXCEPTION_LINE.match(line))]
    if exceptions:  # a traceback's last exception line is the one that says what broke
        name, message = exceptions[-1].groups()
        candidates.append(f"{name}: {message}")
    for line in lines:
        if (m := _ERROR_LINE.match(line)) or (m := _LOCATED_LINE.match(line)):
            candidates.append(m.group(1))
        elif _ENV_LINE.search(line):
            candidates.append(line.strip())
    for text in candidates:
        text = _HEX.sub("…", scrub(text)).strip(" :")
        text = re.sub(r"\s*\(\d+ deselected\)|^=+\s*|\s*=+$", "", text)
        if len(text) < 6 or text.lower().startswith(("exit code", "error task failed", "task failed")):
            continue
        if _ENV_SYMPTOM.search(text):
            kind = "env"
        elif _LINT_RULE.search(text) and set(categories) & {"lint", "typecheck", "format"}:
            kind = "lint"
        else:
            kind = "code"
        return clip(text, 110), kind
    return None
