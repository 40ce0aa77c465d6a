"""Opt-in: `memgit sync` and `memgit consolidate` against a real model.

    MEMGIT_E2E_MODEL=anthropic/claude-haiku-4-5 ANTHROPIC_API_KEY=... python -m pytest tests/integration/test_llm_e2e.py
    MEMGIT_E2E_MODEL=ollama_chat/llama3.1 MEMGIT_E2E_API_BASE=http://localhost:11434 python -m pytest ...

Skipped unless MEMGIT_E2E_MODEL is set and the key it needs is in the environment (or an API base
is given). Read at import: the autouse fixture scrubs MEMGIT_* before each test.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, git, ledger_commits
from tests.integration.test_secrets import planted

E2E_MODEL = os.environ.get("MEMGIT_E2E_MODEL", "")
E2E_API_BASE = os.environ.get("MEMGIT_E2E_API_BASE", "")


def _missing() -> str:
    if not E2E_MODEL:
        return "MEMGIT_E2E_MODEL is not set"
    if E2E_API_BASE:
        return ""
    from memgit import llm

    try:
        llm.check_credentials(E2E_MODEL)
    except llm.ModelError as e:
        return e.message
    return ""


pytestmark = pytest.mark.skipif(bool(_missing()), reason=_missing() or "runs")


def test_a_real_model_extracts_a_note_and_consolidates_without_leaking_a_secret(
        claude_projects, memory_path, memgit_cli, monkeypatch):
    token_text, token = planted()["github_ghp"]
    w = SessionWriter(session_id("e2e-real-model"), "/home/demo/dev/pinion")
    w.user(f"The importer crashes on empty CSV rows, fix it. Always use pathlib, never os.path. ({token_text})")
    w.bash("uv run pytest -x tests/", "E   AssertionError: empty row\nFAILED tests/test_import.py::test_blank",
           error=True)
    w.edit("/home/demo/dev/pinion/src/importer.py", "rows = read()", "rows = [r for r in read() if r]")
    w.bash("uv run pytest -x tests/", "12 passed in 0.5s")
    w.user("Thanks, that works.")
    age(w.write(claude_projects))
    args = ["--model", E2E_MODEL] + (["--api-base", E2E_API_BASE] if E2E_API_BASE else [])
    result = memgit_cli("sync", "--json", *args)
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["failed"] == 0 and data["tokens"] > 0, data
    [row] = ledger_commits(memory_path)
    assert row["kind"] in ("extract", "skip")
    if row["kind"] == "extract":
        note = memgit_cli("show", w.session_id[:8]).stdout
        assert f"extractor: {E2E_MODEL}" in note and "## Learnings" in note
    monkeypatch.setenv("MEMGIT_CONSOLIDATE_MODEL", E2E_MODEL)
    if E2E_API_BASE:
        monkeypatch.setenv("MEMGIT_API_BASE", E2E_API_BASE)
    consolidated = memgit_cli("consolidate", "--json")
    assert consolidated.exit_code == 0, consolidated.stderr
    objects = subprocess.run(["git", "-C", str(memory_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    assert token not in objects
    assert "Memgit-Tokens" in git(memory_path, "log", "--all", "-1", "--format=%B")
