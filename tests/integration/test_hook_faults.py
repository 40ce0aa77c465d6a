"""A hook never breaks a session: whatever is wrong, it exits 0 within a second, prints nothing or one
valid JSON object, and logs the cause (DESIGN §5)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memgit.sources.claude_code.synthetic import encode_project_dir
from tests.conftest import ROOT, git, unpack
from tests.integration import test_hooks
from tests.integration.test_hooks import (GLOBAL_MARK, PROJECT_MARK, additional_context, payload, project_session,
                                          run_hook, sync_pids, wait_for_syncs)

world = test_hooks.world  # the synced project with summaries, shared with test_hooks.py

EVENTS = ("session-start", "session-end", "pre-compact")
STDIN = {"session-start": "session-start-startup.json", "session-end": "session-end.json",
         "pre-compact": "pre-compact.json"}


def assert_harmless(done: subprocess.CompletedProcess, elapsed: float) -> None:
    """Exit 0 within 1 s, and stdout empty or one valid hook answer."""
    assert done.returncode == 0, done.stderr
    assert elapsed < 1.0, f"the hook took {elapsed * 1000:.0f} ms"
    if done.stdout.strip():
        additional_context(done)


def hook_log(memory_path: Path) -> str:
    return (memory_path / ".git" / "memgit" / "hook.log").read_text()


def drop_cache(memory_path: Path) -> None:
    """Delete the derived context cache, so the next session start reads the object store."""
    for path in sorted((memory_path / ".git" / "memgit" / "context").rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()


def test_no_repository(hermetic_env, tmp_path):
    done, elapsed = run_hook("session-start", payload(STDIN["session-start"], cwd=str(tmp_path)))
    assert_harmless(done, elapsed)
    assert done.stdout == b""


@pytest.mark.parametrize("event", EVENTS)
@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", b'{"session_id": ', b"\xff\xfe\x00garbage",
                                   b'"a string"'], ids=["empty", "text", "array", "truncated", "binary", "string"])
def test_invalid_stdin(world, memory_path, event, stdin):
    done, elapsed = run_hook(event, stdin, cwd=world)
    assert_harmless(done, elapsed)
    assert done.stdout == b""
    assert f" {event} pid " in hook_log(memory_path) and "HookError" in hook_log(memory_path)
    assert sync_pids(memory_path / ".git" / "memgit") == []


@pytest.mark.parametrize("event", ("session-end", "pre-compact"))
def test_a_session_id_that_is_no_uuid_never_reaches_a_command_line(world, memory_path, event):
    done, elapsed = run_hook(event, payload(STDIN[event], session_id="x; rm -rf ~"), cwd=world)
    assert_harmless(done, elapsed)
    assert "no usable session_id" in hook_log(memory_path)
    assert sync_pids(memory_path / ".git" / "memgit") == []


def test_a_corrupt_loose_object(world, memory_path):
    stdin = payload(STDIN["session-start"], cwd=str(world))
    additional_context(run_hook("session-start", stdin, cwd=world)[0])  # the cache is now warm
    head = git(memory_path, "rev-parse", "projects/pinion").strip()
    summary = git(memory_path, "rev-parse", "projects/pinion:memory_summary.md").strip()
    unpack(memory_path)
    for sha in (head, summary):
        loose = memory_path / ".git" / "objects" / sha[:2] / sha[2:]
        loose.chmod(0o644)
        loose.write_bytes(b"\x78\x9c this is not zlib data")
    # A warm cache never touches the objects: the session still gets its memory.
    done, elapsed = run_hook("session-start", stdin, cwd=world)
    assert_harmless(done, elapsed)
    assert PROJECT_MARK in additional_context(done)
    # Cold, the hook has to read them: it says nothing and logs why.
    drop_cache(memory_path)
    done, elapsed = run_hook("session-start", stdin, cwd=world)
    assert_harmless(done, elapsed)
    assert done.stdout == b""
    assert "session-start pid" in hook_log(memory_path)


def test_a_corrupt_pack(world, memory_path):
    git(memory_path, "repack", "-a", "-d", "-q")
    git(memory_path, "prune-packed")
    [pack] = (memory_path / ".git" / "objects" / "pack").glob("*.pack")
    pack.chmod(0o644)
    data = pack.read_bytes()
    pack.write_bytes(data[:12] + bytes(b ^ 0x5A for b in data[12:len(data) // 2]))  # header kept, objects garbled
    drop_cache(memory_path)
    done, elapsed = run_hook("session-start", payload(STDIN["session-start"], cwd=str(world)), cwd=world)
    assert_harmless(done, elapsed)
    assert done.stdout == b""
    assert "session-start pid" in hook_log(memory_path)


def test_a_held_sync_lock(world, claude_projects, memory_path, monkeypatch):
    monkeypatch.setenv("MEMGIT_MIN_IDLE_MINUTES", "0")
    waiting = project_session(world, "faults-waiting").write(claude_projects)
    state = memory_path / ".git" / "memgit"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys; from pathlib import Path; from memgit.store.lock import sync_lock\n"
                               "with sync_lock(Path(sys.argv[1]), wait=False):\n"
                               "    print('locked', flush=True); sys.stdin.read()", str(state)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert holder.stdout.readline() == b"locked\n"
        current = claude_projects / encode_project_dir(str(world)) / "current.jsonl"
        done, elapsed = run_hook("session-start", payload(STDIN["session-start"], cwd=str(world), session_id="cur",
                                                          transcript_path=str(current)), cwd=world)
        assert_harmless(done, elapsed)
        assert "1 earlier session of this project is waiting" in additional_context(done)
        assert sync_pids(state) == []  # a sync is running: no second one is started
        done, elapsed = run_hook("session-end", payload(STDIN["session-end"], session_id=waiting.stem), cwd=world)
        assert_harmless(done, elapsed)
        [pid] = sync_pids(state)  # it waits for the lock in the background, not in the hook
    finally:
        holder.stdin.close()
        holder.wait(timeout=30)
    wait_for_syncs(state)
    sessions = git(memory_path, "log", "--all", "--format=%(trailers:key=Memgit-Session,valueonly)")
    assert f"claude-code/{waiting.stem}" in sessions


@pytest.mark.parametrize("how", ["invalid-toml", "unreadable"])
def test_a_broken_config(world, hermetic_env, memory_path, how):
    config = hermetic_env / ".config" / "memgit" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[repo\npath = \n" if how == "invalid-toml" else "[repo]\npath = '~/elsewhere'\n")
    if how == "unreadable":
        config.chmod(0)
        if os.access(config, os.R_OK):  # root reads anything: make it unreadable another way
            config.chmod(0o644)
            config.write_bytes(b"\xff\xfe\xfd not utf-8 [")
    for event in EVENTS:
        done, elapsed = run_hook(event, payload(STDIN[event], cwd=str(world)), cwd=world)
        assert_harmless(done, elapsed)
        assert done.stdout == b""
    log = (hermetic_env / ".cache" / "memgit" / "hook.log").read_text()  # no repository to log into
    assert log.count(" pid ") == 3
    assert any(kind in log for kind in ("TOMLDecodeError", "PermissionError", "UnicodeDecodeError"))


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_disk(world, memory_path):
    context_dir = memory_path / ".git" / "memgit" / "context"
    context_dir.parent.mkdir(parents=True, exist_ok=True)
    shutil.rmtree(context_dir, ignore_errors=True)  # the sync that built the world rendered it
    context_dir.write_text("in the way: no cache file can be written")  # every cache write fails
    full = {"MEMGIT_HOOK_LOG": "/dev/full"}  # and so does every log write (ENOSPC)
    stdin = payload(STDIN["session-start"], cwd=str(world))
    done, elapsed = run_hook("session-start", stdin, cwd=world, env=full)
    assert_harmless(done, elapsed)
    text = additional_context(done)
    assert PROJECT_MARK in text and GLOBAL_MARK in text  # rendered from the object store all the same
    assert b"cannot write the context cache" in done.stderr  # the log is full: stderr is the last resort
    done, elapsed = run_hook("session-start", b"not json", cwd=world, env=full)
    assert_harmless(done, elapsed)
    assert done.stdout == b"" and b"HookError" in done.stderr


def test_a_closed_stdout(world):
    """Claude Code gone before the hook answers: still exit 0 (not 120 from a failed flush)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "memgit.entry", "hook", "session-start"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=world)
    proc.stdout.close()
    _, err = proc.communicate(payload(STDIN["session-start"], cwd=str(world)), timeout=30)
    assert proc.returncode == 0, err
