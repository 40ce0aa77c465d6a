"""The heuristic extractor over real Claude Code transcripts, read in place from ../shared/fixtures."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from memgit.extract import heuristic
from memgit.model import LEARNING_TYPES, OUTCOMES, Extraction, Note
from memgit.sources.claude_code import read_transcript
from tests.conftest import CLAUDE_FIXTURES, needs_shared

pytestmark = needs_shared

LOG = CLAUDE_FIXTURES / "claude-code-log"
ENTIRE = CLAUDE_FIXTURES / "entire-cli"
SAMPLE = LOG / "-Users-dain-workspace-claude-code-log-sample"
CODERABBIT = LOG / "-Users-dain-workspace-coderabbit-review-helper"

EMPTY = LOG / "-Users-dain-workspace-JSSoundRecorder" / "2c5941bd-b9de-41d6-9414-221d175776f7.jsonl"
SUMMARY_ONLY = SAMPLE / "4e27c414-a885-46a0-b5c8-d58e1417377d.jsonl"
SNAPSHOT_ONLY = LOG / "-experiments-ideas" / "a95fea4a-b88a-4e49-ac07-4cc323d8700c.jsonl"
WARMUP = CODERABBIT / "agent-2b93909d.jsonl"
CHAT = LOG / "-experiments-ideas" / "03eb5929-52b3-4b13-ada3-b93ae35806b8.jsonl"
COMPACTED = [ENTIRE / "a6_e4c2a0fbd1_0.full.jsonl", ENTIRE / "76_62d755ef9f_2.full.jsonl",
             ENTIRE / "cd_95adddad32_0.full.jsonl"]
GITHUB_ACTION = SAMPLE / "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
NAVIGATION = SAMPLE / "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl"
UV_TOOL = CODERABBIT / "cb2e607c-c758-415a-8b45-c49e4631906a.jsonl"
PLAN_PROMPT = ENTIRE / "91_b42542f24f_1.full.jsonl"
LINEAR = ENTIRE / "8e_0a64736bc7_0.full.jsonl"
TEAMS = LOG / "-experiments-worktrees" / "ef958aa1-0e93-49f0-bb71-150f63befcd1.jsonl"
UNANSWERED = CLAUDE_FIXTURES / "agentcmd" / "full-session-three.jsonl"

ALL = sorted(CLAUDE_FIXTURES.rglob("*.jsonl")) if CLAUDE_FIXTURES.is_dir() else []

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\b\d{1,2}:\d{2}:\d{2}\b")
PORT = re.compile(r"(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\w):\d{2,5}\b")
LINE_NUMBER = re.compile(r"\blines? \d+|\.\w{1,6}:\d+\b")
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+){0,5}")


@cache
def extracted(path: Path) -> Extraction:
    return heuristic.extract(read_transcript(path), project="fixture")


def note(path: Path) -> Note:
    result = extracted(path)
    assert result.note is not None, f"{path.name} skipped: {result.reason}"
    return result.note


def texts(n: Note, kind: str) -> list[str]:
    return [learning.text for learning in n.learnings if learning.type == kind]


@pytest.mark.parametrize("path", ALL, ids=[str(p.relative_to(CLAUDE_FIXTURES)) for p in ALL])
def test_every_fixture_extracts_to_a_clean_note_or_a_reasoned_skip(path):
    result = extracted(path)
    if result.note is None:
        assert result.reason
        return
    n = result.note
    assert n.extractor == heuristic.EXTRACTOR
    assert n.session == f"claude-code/{path.name.removesuffix('.jsonl')}"
    assert 0 < len(n.title) < 80 and "\n" not in n.title
    assert SLUG.fullmatch(n.slug) and len(n.slug) <= 50
    assert n.summary and "\n" not in n.summary
    assert n.outcome in OUTCOMES
    assert len(n.keywords) <= 8 and all(k == k.lower() and " " not in k for k in n.keywords)
    assert len(n.learnings) <= heuristic.MAX_LEARNINGS
    for learning in n.learnings:
        assert learning.type in LEARNING_TYPES
        assert 10 < len(learning.text) <= 220, learning
        for pattern in (TIMESTAMP, PORT, LINE_NUMBER):
            assert not pattern.search(learning.text), learning
        assert "/tmp/" not in learning.text and "/Users/" not in learning.text, learning


@pytest.mark.parametrize("path", [EMPTY, SUMMARY_ONLY, SNAPSHOT_ONLY, WARMUP], ids=lambda p: p.name)
def test_degenerate_transcripts_are_skips(path):
    result = extracted(path)
    assert result.note is None and result.reason == "no user request"


def test_a_chat_that_did_no_work_and_learned_nothing_is_a_skip():
    assert extracted(CHAT).reason.startswith("nothing learned: 7 prompts")


@pytest.mark.parametrize("path", COMPACTED, ids=lambda p: p.name)
def test_compacted_sessions_yield_decisions_and_facts(path):
    n = note(path)
    assert texts(n, "decision") or texts(n, "fact")
    assert texts(n, "fact"), n.learnings
    assert "Earlier context (compacted):" in n.summary


def test_a_compacted_session_is_titled_by_its_recap_not_a_mid_way_prompt():
    assert note(COMPACTED[0]).title.startswith('Fix error "RangeError: Invalid Date"')
    assert note(COMPACTED[1]).title == "Fix Gemini hooks to respect `--local-dev` flag like Claude Code does"


def test_commands_and_gotchas_come_from_the_runs():
    n = note(GITHUB_ACTION)
    assert "Type-check with `uv run pyright`." in texts(n, "command")
    assert "Format with `uv run ruff format`." in texts(n, "command")
    assert texts(n, "gotcha") == [
        "`uv run pyright` fails with \"Type of 'text_value' is unknown (reportUnknownVariableType)\"; "
        "fixed by editing converter.py."
    ]
    assert {"uv", "pyright", "ruff"} <= set(n.keywords)
    nav = note(NAVIGATION)
    assert texts(nav, "command")[0] == "Tests run with `uv run pytest`."
    assert nav.outcome == "success"


def test_the_person_own_rules_become_preferences():
    assert texts(note(TEAMS), "preference") == ["Don't use ClMail for communication, use the builtin subagent teams."]
    assert texts(note(LINEAR), "preference") == ["Keep our working documentation in linear."]


def test_approved_plans_become_decisions_and_titles():
    n = note(PLAN_PROMPT)
    assert n.title == "Consolidate logging to single file per worktree"
    assert texts(n, "decision")[0].startswith("Consolidate logging to single file per worktree: ")
    assert texts(note(UV_TOOL), "decision") == ["Make Project Installable as UV Tool: switch to Hatchling build backend."]


def test_a_session_cut_off_with_unanswered_calls_is_partial():
    assert note(UNANSWERED).outcome == "partial"


def test_extraction_is_deterministic_on_the_largest_fixture():
    transcript = read_transcript(COMPACTED[2])
    assert heuristic.extract(transcript, project="p") == heuristic.extract(read_transcript(COMPACTED[2]), project="p")
