"""Transcripts that end badly: a last record cut off (a crash, a full disk) in a file no longer
written is read up to it and the cut reported; a file that is no transcript at all is a `fail` that
says so; one huge line is passed over in bounded memory (the real CLI under an address-space limit)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests import faults
from tests.conftest import age, fsck, git, ledger_commits

CWD = "/home/demo/dev/pinion"


def session(projects, seed: str, output: str = "12 passed in 0.5s"):
    w = SessionWriter(session_id(seed), CWD)
    w.user(f"{seed}: make the importer skip empty rows. Always use pathlib, never os.path.")
    w.bash("uv run pytest -x tests/", "E   AssertionError: empty row", error=True)
    w.bash("uv run pytest -x tests/", output)
    return w, w.write(projects)


def test_a_cut_transcript_is_read_up_to_its_last_record_and_random_bytes_are_a_fail(
        claude_projects, memory_path, memgit_cli):
    _, whole = session(claude_projects, "whole")
    cut, cut_path = session(claude_projects, "cut")
    cut_path.write_bytes(cut_path.read_bytes()[:-40])  # the last record lost its end
    noise = cut_path.with_name(session_id("noise") + ".jsonl")
    noise.write_bytes(os.urandom(100_000))
    fresh, fresh_path = session(claude_projects, "fresh")
    fresh_path.write_bytes(fresh_path.read_bytes()[:-40])  # cut too, but still being written: it waits
    for path in (whole, cut_path, noise):
        age(path)

    first = json.loads(memgit_cli("sync", "--json").stdout)
    assert (first["extracted"], first["failed"]) == (2, 1)
    rows = {r["session"]: r for r in ledger_commits(memory_path)}
    read = rows[f"claude-code/{cut.session_id}"]
    assert read["kind"] == "extract" and read["range"] == f"0-{cut_path.stat().st_size}"
    trailer = git(memory_path, "log", "-1", "--format=%(trailers:key=Memgit-Cut,valueonly)", read["sha"]).strip()
    assert 40 < int(trailer) < cut_path.stat().st_size
    note = git(memory_path, "show", f"{read['sha']}:" + git(memory_path, "show", "--name-only", "--format=",
                                                             read["sha"]).strip())
    assert f"cut_tail: the transcript ends in {trailer} byte(s) that are no complete record" in note
    failed = rows[f"claude-code/{session_id('noise')}"]
    assert failed["kind"] == "fail" and failed["reason"].startswith("not a transcript (")
    assert f"claude-code/{fresh.session_id}" not in rows

    again = json.loads(memgit_cli("sync", "--json").stdout)
    assert again["read"] == 0 and again["commits"] == 0  # nothing stays pending
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["totals"]["pending"] == 0 and status["totals"]["waiting"] == 1  # only the fresh one
    [reported] = status["cut_sessions"]
    assert reported["session"] == f"claude-code/{cut.session_id}" and reported["cut"] == int(trailer)
    assert [f["session"] for f in status["failed_sessions"]] == [f"claude-code/{session_id('noise')}"]
    text = memgit_cli("status").stdout
    assert "cut off" in text and f"{trailer} byte(s) passed over" in text and "not a transcript (" in text
    fsck(memory_path)


LIMIT = 200 << 20  # bytes of address space: DESIGN's bound for reading a 50 MB transcript


def test_a_50_mb_line_is_read_within_200_mb(hermetic_env, claude_projects, memory_path):
    log_line = "2026-11-20 10:00:01 INFO ✓ served /api/v1/items?id=42 in 3ms — ok\n"  # non-ASCII: 4x when decoded
    w, path = session(claude_projects, "huge", output=log_line * ((25 << 20) // len(log_line.encode())))
    assert path.stat().st_size >= 50 << 20  # the output is written twice (content and toolUseResult): one line
    age(path)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))

    result = subprocess.run([sys.executable, "-m", "memgit.cli.commands", "sync", "--json"], capture_output=True,
                            text=True, env=faults.memgit_env(hermetic_env), cwd=hermetic_env, timeout=300,
                            preexec_fn=limited)
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout)["extracted"] == 1
    assert f"claude-code/{w.session_id}" in {r["session"] for r in ledger_commits(memory_path) if r["kind"] == "extract"}
