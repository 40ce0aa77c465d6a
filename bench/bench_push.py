"""`push` of a 10,000-note repository to a bare repository on disk, then of one more session.

The repository comes from bench/generate.py `make_note_repo`: `projects/bench` holds 10,000 session
notes under sessions/YYYY/MM/ and ~10,000 ledger commits. The remote is a fresh `git init --bare`
reached by path (dulwich's local transport: the pack is built exactly as for ssh or https, only
not sent over a wire). Timed:

- the first push of main and projects/bench (everything);
- one session's commit (its note, MEMORY.md and memory_summary.md changed), then a second push:
  the objects and bytes it sends, its wall time, and within it the secret scan of what it sends
  (memgit.store.remote's _Outgoing.plan: the objects the remote lacks, found and scanned once).

The ratio printed is the second push's objects over all the objects of the repository.

    python bench/bench_push.py [--quick] [--notes 10000] [--commits 10000]
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import Rows, Spy, arg_parser, fmt_bytes
from generate import _note, make_note_repo

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)


def one_session(repo, branch: str) -> str:
    """Commit what one synced session leaves: its note, then MEMORY.md and memory_summary.md updated."""
    import random

    from memgit.core import notes

    note = _note(random.Random(99), 200_000, "bench", NOW)
    path = notes.note_path(note, NOW.strftime("%Y-%m-%d"))
    memory = (repo.read(branch, "MEMORY.md") or b"") + f"\n- {note.title}\n".encode()
    summary = (repo.read(branch, "memory_summary.md") or b"") + f"\n- {note.summary[:200]}\n".encode()
    return repo.commit(branch, {path: notes.render_note(note).encode(), "MEMORY.md": memory,
                                "memory_summary.md": summary}, f"extract(bench): {note.title}\n")


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=10_000)
    args = parser.parse_args()
    if args.quick:
        args.notes, args.commits = 2_000, 2_000

    from memgit.store import remote
    from memgit.store.repo import MemoryRepo

    rows = Rows("push")
    work = Path(tempfile.mkdtemp(prefix="memgit-bench-push-"))
    try:
        t0 = time.perf_counter()
        branch = make_note_repo(work / "mem", args.notes, args.commits)
        print(f"built {args.notes} notes / {args.commits} commits in {time.perf_counter() - t0:.1f} s", flush=True)
        subprocess.run(["git", "init", "-q", "--bare", str(work / "remote.git")], check=True)
        with MemoryRepo.open(work / "mem") as repo:
            sizes = [len(repo.read_blob(sha)) for sha in repo.blobs(branch, "sessions/").values()]
            print(f"notes: {len(sizes)}, mean {sum(sizes) / len(sizes):.0f} bytes", flush=True)
            remote.add_remote(repo, "origin", str(work / "remote.git"))

            t0 = time.perf_counter()
            first = remote.push(repo, "origin", repo.branches())
            first_s = time.perf_counter() - t0
            rows.add("first push: objects", first.objects, "objects")
            rows.add("first push: pack", first.bytes / 1e6, "MB")
            rows.add("first push: wall", first_s * 1e3, "ms")

            one_session(repo, branch)
            with Spy({"scan": "memgit.store.scan:scan_objects"}) as spy:
                t0 = time.perf_counter()
                second = remote.push(repo, "origin", repo.branches())
                second_s = time.perf_counter() - t0
            total = first.objects + second.objects
            rows.add("second push: objects", second.objects, "objects")
            rows.add("second push: pack", second.bytes, "bytes")
            rows.add("second push: wall", second_s * 1e3, "ms", note=f"secret scan {spy.seconds['scan'] * 1e3:.0f} ms")
            rows.add("second push: transport alone", (second_s - spy.seconds["scan"]) * 1e3, "ms")
            rows.add("sent / total objects", second.objects / total, "", note=f"{second.objects} of {total}")
        fsck = subprocess.run(["git", "-C", str(work / "remote.git"), "fsck", "--strict"], capture_output=True, text=True)
        print(f"remote: git fsck --strict exit {fsck.returncode}; first pack {fmt_bytes(first.bytes)}", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
