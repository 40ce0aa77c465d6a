"""The heuristic extractor over real Claude Code transcripts, read in place from ../shared/fixtures."""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path

import pytest

from memgit.extract import heuristic
from memgit.extract.heuristic import filters, rank
from memgit.extract.heuristic.commands import generic
from memgit.core.model import LEARNING_TYPES, OUTCOMES, Extraction, Note
from memgit.core.notes import render_note
from memgit.sources.claude_code.reader import read_transcript
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
COMPACTED = [ENTIRE / "a6_e4c2a0fbd1_0.full.jsonl", ENTIRE / "76_62d755ef9f_2.full.jsonl",
             ENTIRE / "cd_95adddad32_0.full.jsonl"]
GITHUB_ACTION = SAMPLE / "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
NAVIGATION = SAMPLE / "37f83ec9-f2ea-42a9-925e-0d5c105cb6e8.jsonl"
TOKENIZER = LOG / "-Users-dain-workspace-danieldemmel-me-next" / "9e953218-585f-4692-89df-9e0747a31c68.jsonl"
PLAN_PROMPT = ENTIRE / "91_b42542f24f_1.full.jsonl"
AGENT_TYPE = ENTIRE / "ad_a8171575ce_0.full.jsonl"
SHADOW = ENTIRE / "1e_868c83dbb7_0.full.jsonl"
UNANSWERED = CLAUDE_FIXTURES / "agentcmd" / "full-session-three.jsonl"

ALL = sorted(CLAUDE_FIXTURES.rglob("*.jsonl")) if CLAUDE_FIXTURES.is_dir() else []
MAIN = [p for p in ALL if "subagents" not in p.parts and not p.name.startswith("agent-")]

TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\b\d{1,2}:\d{2}:\d{2}\b")
LINE_NUMBER = re.compile(r"\blines? \d+|\.\w{1,6}:\d+\b")
SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+){0,5}")
COMMAND = re.compile(r"`(.+)`\.$")


@cache
def extracted(path: Path) -> Extraction:
    return heuristic.extract(read_transcript(path), project="fixture")


def note(path: Path) -> Note:
    result = extracted(path)
    assert result.note is not None, f"{path.name} skipped: {result.reason}"
    return result.note


def texts(n: Note, *kinds: str) -> list[str]:
    return [learning.text for learning in n.learnings if learning.type in kinds]


@pytest.mark.parametrize("path", ALL, ids=[str(p.relative_to(CLAUDE_FIXTURES)) for p in ALL])
def test_every_fixture_extracts_to_a_clean_readable_note_or_a_reasoned_skip(path):
    result = extracted(path)
    if result.note is None:
        assert result.reason
        return
    n = result.note
    assert n.learnings, "a note holds at least one learning"
    assert n.extractor == heuristic.EXTRACTOR
    assert n.session == f"claude-code/{path.name.removesuffix('.jsonl')}"
    assert 0 < len(n.title) < 80 and "\n" not in n.title
    assert SLUG.fullmatch(n.slug) and len(n.slug) <= 50
    assert n.summary and "\n" not in n.summary
    assert n.outcome in OUTCOMES
    assert len(n.keywords) <= 8 and all(k == k.lower() and " " not in k for k in n.keywords)
    assert len(n.learnings) <= rank.MAX_LEARNINGS
    assert len(render_note(n).encode()) <= 6 * 1024, "a note stays a page a person reads"
    for learning in n.learnings:
        assert learning.type in LEARNING_TYPES
        assert filters.problem(learning.text) is None or learning.type == "command", learning
        for pattern in (TIMESTAMP, LINE_NUMBER):
            assert not pattern.search(learning.text), learning
        assert "/tmp/" not in learning.text and "/Users/" not in learning.text, learning


@pytest.mark.parametrize("path", MAIN, ids=[str(p.relative_to(CLAUDE_FIXTURES)) for p in MAIN])
def test_every_command_learning_quotes_a_command_that_ran_in_that_session(path):
    result = extracted(path)
    if result.note is None:
        return
    transcript = read_transcript(path)
    ran = [c.command for t in transcript.turns for c in t.tool_calls if c.command]
    raw = path.read_text(encoding="utf-8", errors="replace")
    root = (transcript.cwd or "").rstrip("/") + "/"
    for learning in texts(result.note, "command"):
        command = COMMAND.search(learning).group(1)
        if learning.startswith("Run one test with"):  # the test names it selected shown as NAME, paths relative
            assert any(command in generic(line).replace(root, "") for line in ran), learning
            continue
        assert any(command in line for line in ran), learning
        assert json.dumps(command, ensure_ascii=False)[1:-1] in raw, learning


@pytest.mark.parametrize("path", [EMPTY, SUMMARY_ONLY, SNAPSHOT_ONLY, WARMUP], ids=lambda p: p.name)
def test_degenerate_transcripts_are_skips(path):
    result = extracted(path)
    assert result.note is None and result.reason == "no user request"


@pytest.mark.parametrize("path", COMPACTED, ids=lambda p: p.name)
def test_compacted_sessions_keep_what_their_recaps_hold(path):
    n = note(path)
    assert texts(n, "decision", "fact", "gotcha")
    assert "Earlier context (compacted):" in n.summary


def test_a_compacted_session_is_titled_by_its_recap_not_a_mid_way_prompt():
    assert note(COMPACTED[0]).title.startswith('Fix error "RangeError: Invalid Date"')
    assert note(COMPACTED[1]).title == "Fix Gemini hooks to respect `--local-dev` flag like Claude Code does"


def test_commands_are_those_that_ran_and_passed():
    n = note(GITHUB_ACTION)
    assert "Type-check with `uv run pyright`." in texts(n, "command")
    assert "Run the CI workflow locally with `act --container-architecture linux/amd64 -j test`." in texts(n, "command")
    assert {"uv", "pyright", "ruff"} <= set(n.keywords)


def test_the_person_corrections_are_kept_in_their_words():
    found = texts(note(NAVIGATION), "preference", "convention")
    assert any("replace them with a single link to the combined transcript instead" in t for t in found)
    assert any("reuse" in t and "session_nav.html" in t for t in found)


def test_a_reported_failure_and_its_fix_make_a_gotcha():
    gotchas = texts(note(TOKENIZER), "gotcha")
    assert any("Switched the submodule from SSH" in g and "HTTPS" in g for g in gotchas)


def test_a_root_cause_the_agent_found_in_code_it_then_fixed_is_kept_as_a_fact():
    # the session changed SaveChanges and SaveTaskCheckpoint: the cause does not bite again, the note keeps it
    n = note(AGENT_TYPE)
    assert any(f.startswith("The root cause is in `manual_commit_git.go`") for f in texts(n, "fact"))
    assert not any(g.startswith("The root cause is in `manual_commit_git.go`") for g in texts(n, "gotcha"))


def test_approved_plans_become_decisions_and_titles():
    n = note(PLAN_PROMPT)
    assert n.title == "Consolidate logging to single file per worktree"
    assert any(d.startswith("Plan approved: Consolidate logging to single file per worktree.")
               for d in texts(n, "decision"))


def test_a_resume_after_an_interruption_is_no_preference():
    assert not any("network should be better" in t for t in texts(note(SHADOW), "preference", "convention"))


def test_a_session_cut_off_with_unanswered_calls_is_partial():
    result = extracted(UNANSWERED)
    assert result.note is None or result.note.outcome == "partial"


def test_extraction_is_deterministic_on_the_largest_fixture():
    transcript = read_transcript(COMPACTED[2])
    assert heuristic.extract(transcript, project="p") == heuristic.extract(read_transcript(COMPACTED[2]), project="p")
