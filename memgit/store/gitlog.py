"""The full history of a commit read by `git log`, streamed: 10k commits in ~0.15 s, where dulwich
takes ~1.5 s (the ledger is read cold after its cache is deleted)."""

from __future__ import annotations

import codecs
import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator

from dulwich.objects import Commit

from memgit.core.ledger import CommitInfo
from memgit.errors import MemgitError

_READ = 1 << 20  # bytes read from `git log` at a time


def commit_info(c: Commit) -> CommitInfo:
    parents = tuple(p.decode() for p in c.parents)
    return CommitInfo(c.id.decode(), parents, c.message.decode("utf-8", "replace"), c.commit_time)


def git_log(git_dir: str, start: bytes, stop: bytes | None) -> Iterator[CommitInfo] | None:
    """The history by `git log`, streamed (the caller reads commits while git still writes
    them), or None when git cannot give it (then dulwich reads it)."""
    git = shutil.which("git")
    if git is None:
        return None
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # memgit may run in a git hook
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    args = [git, "--no-replace-objects", "--git-dir", git_dir, "log", "--topo-order", "-z",
            "--format=%H %ct %P%n%B", start.decode()]
    if stop:
        args.append("^" + stop.decode())
    read, write = os.pipe()
    try:
        # A pipe of 1 MB rather than 64 KB: git writes while memgit parses, instead of taking turns.
        fcntl.fcntl(write, getattr(fcntl, "F_SETPIPE_SZ", 1031), _READ)
    except (OSError, AttributeError):
        pass  # not Linux, or a lower limit: a smaller pipe only costs speed
    try:
        proc = subprocess.Popen(args, env=env, stdin=subprocess.DEVNULL, stdout=write, stderr=subprocess.DEVNULL)
    except OSError:
        os.close(read)
        return None
    finally:
        os.close(write)
    proc.stdout = os.fdopen(read, "rb", buffering=0)
    first = os.read(read, _READ)  # git failing at once (a corrupt repo) falls back
    if not first and proc.wait() != 0:
        return None
    return _stream(proc, first)


def _stream(proc: subprocess.Popen, first: bytes) -> Iterator[CommitInfo]:
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = decoder.decode(first)
    read_all = False
    try:
        fd = proc.stdout.fileno()
        while True:
            chunk = os.read(fd, _READ)  # large raw reads: a buffered read of a pipe costs 50% more here
            pending += decoder.decode(chunk, final=not chunk)
            records = pending.split("\0")
            pending = records.pop() if chunk else ""
            for record in records:
                if record:
                    head, _, message = record.partition("\n")
                    sha, when, *parents = head.split(" ")
                    yield CommitInfo(sha, tuple(p for p in parents if p), message, int(when))
            if not chunk:
                read_all = True
                break
    finally:
        proc.stdout.close()
        # A reader that stopped early closed the pipe: git then dies of SIGPIPE, which is no failure.
        if proc.wait() != 0 and read_all:
            raise MemgitError("`git log` failed while reading the memory repository's history; "
                              "run `git fsck` in it")
