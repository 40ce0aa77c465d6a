"""One extraction commit into a 10k-note repository (DESIGN §8: <= 10 ms), and ledger.load on it.

The repository comes from bench/generate.py `make_note_repo`: `projects/bench` holds 10,000 notes
under sessions/YYYY/MM/ (~430 per month) and ~10,000 ledger commits. Each timed commit is what
`sync` does for an extracted session once the note is rendered: MemoryRepo.commit_with_retry of a
new ~1 KB note in the current month's folder, with an extract message and its trailers, through
the secret gate (redact.gate), objects fsynced as memgit always does. Timed twice:

- into `projects/bench` while `main` is checked out (the usual case: a project branch);
- into `projects/bench` checked out (10k files in the worktree; the index is patched in place).

Then `ledger.load` on that repository: cold (.git/memgit/ledger.pickle deleted, 10k commits read)
and warm (the cache is current).

    python bench/bench_commit.py [--quick] [--commits 50] [--notes 10000]
"""

from __future__ import annotations

import random
import shutil
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

from _common import FsyncMeter, Rows, Spy, arg_parser, median, p90, python_pass_ms, user_env
from generate import _note, check_out, make_note_repo, write_transcripts

TARGET_MS = 10
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=timezone.utc)


def prepared(n: int, slug: str, first: int = 100_000) -> list[tuple[str, bytes, str]]:
    """n new (path, note bytes, extract message) for this month, rendered before any timing."""
    from memgit.core import notes
    from memgit.core.ledger import format_message

    rng = random.Random(first)
    out = []
    for i in range(first, first + n):
        note = _note(rng, i, slug, NOW)
        path = notes.note_path(note, NOW.strftime("%Y-%m-%d"))
        sid = note.session.split("/", 1)[1]
        message = format_message("extract", slug, note.title, body=note.summary, trailers=[
            ("Memgit-Session", note.session), ("Memgit-Source", f"-home-u-dev-{slug}/{sid}.jsonl"),
            ("Memgit-Range", f"0-{rng.randint(10_000, 900_000)}"),
            ("Memgit-Source-Sha256", f"{rng.getrandbits(256):064x}"), ("Memgit-Extractor", note.extractor),
            ("Memgit-Tokens", 0), ("Memgit-Outcome", note.outcome), ("Memgit-Note", path)])
        out.append((path, notes.render_note(note).encode(), message))
    return out


def render_cost(n: int, slug: str) -> float:
    """Milliseconds to render one note and its message (sync does this before committing)."""
    t0 = time.perf_counter()
    prepared(n, slug)
    return (time.perf_counter() - t0) * 1e3 / n


def commit_times(path: Path, branch: str, items, *, gate: bool = True,
                 fsync: bool = True) -> tuple[list[float], list[float]]:
    """Open the repo once, commit each prepared note on branch; return each commit's ms and its fsyncs' ms."""
    from memgit.core import redact
    from memgit.store.repo import MemoryRepo

    times, flushes = [], []
    with MemoryRepo.open(path, gate=(lambda blobs: redact.gate(blobs, ())) if gate else None) as repo:
        repo._repo.object_store.fsync_object_files = fsync  # bench only: to show what the disk costs
        for note_path, content, message in items:
            with FsyncMeter() as meter:
                t0 = time.perf_counter()
                repo.commit_with_retry(branch, lambda head: ({note_path: content}, message), allow_empty=True)
                times.append((time.perf_counter() - t0) * 1e3)
            flushes.append(meter.seconds * 1e3)
    return times, flushes


def ledger_times(path: Path, runs: int, *, cold: bool) -> tuple[list[float], int]:
    from memgit.store import ledger_cache
    from memgit.store.repo import MemoryRepo

    times, entries = [], 0
    state = path / ".git" / "memgit"
    for _ in range(runs):
        if cold:
            (state / "ledger.pickle").unlink(missing_ok=True)
        t0 = time.perf_counter()
        with MemoryRepo.open(path) as repo:
            entries = len(ledger_cache.load(repo, state).entries)
        times.append((time.perf_counter() - t0) * 1e3)
    return times, entries


def one_session_sync(repo: Path, home: Path) -> tuple[float, dict, Spy]:
    """sync.run with one new ~200 KB session of the bench project, into the 10k-note repo, in-process."""
    from memgit import config
    from memgit.store import ledger_cache
    from memgit.verbs import sync
    from memgit.store.repo import MemoryRepo

    write_transcripts(home / ".claude" / "projects", 1, size_kb=200, seed=77, cwd="/home/u/dev/bench")
    cfg = config.load(env={**user_env(home), "MEMGIT_HOME": str(repo)})
    with MemoryRepo.open(repo) as memory:  # the ledger cache as the previous sync left it
        ledger_cache.load(memory, cfg.state_dir)
    with Spy(SYNC_PARTS) as parts:
        t0 = time.perf_counter()
        result = sync.run(cfg, sync.SyncOptions(all=True))
        seconds = time.perf_counter() - t0
    return seconds, result.summary(), parts


SYNC_PARTS = {
    "ledger.load": "memgit.store.ledger_cache:load",
    "consolidation": "memgit.verbs.consolidate:run",
    "notes parsed (notes.parse_note)": "memgit.core.notes:parse_note",
    "hook context rendering": "memgit.verbs.briefing:refresh",
    "commits (MemoryRepo._commit)": "memgit.store.repo:MemoryRepo._commit",
}


def describe(label: str, times: list[float], flushes: list[float] | None = None) -> str:
    line = (f"  {label:44} median {median(times):6.2f} ms  p90 {p90(times):6.2f} ms  "
            f"first {times[0]:6.2f} ms  (n={len(times)})")
    if flushes:
        line += f"\n  {'':44} of which in fsync: median {median(flushes):.2f} ms, max {max(flushes):.1f} ms"
    return line


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--commits", type=int, default=50)
    parser.add_argument("--notes", type=int, default=10_000)
    args = parser.parse_args()
    n = 20 if args.quick else args.commits
    rows = Rows("commit")
    base = median(python_pass_ms(11))
    rows.baseline_ms = base
    print(f"python -c pass: {base:.1f} ms (median of 11)")
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-commit-"))
    try:
        repo = tmp / "memory"
        t0 = time.perf_counter()
        branch = make_note_repo(repo, notes=args.notes, commits=args.notes)
        print(f"built a repo with {args.notes} notes / ~{args.notes} commits on {branch} "
              f"in {time.perf_counter() - t0:.1f} s")
        slug = branch.removeprefix("projects/")
        items = prepared(3 * n + 1, slug)
        print(f"rendering a note and its message (before the commit, not timed below): "
              f"{render_cost(50, slug):.2f} ms")
        commit_times(repo, branch, items[:1])  # warm the page cache and the imports

        print(f"\none extract commit into {branch} ({args.notes} notes), main checked out:")
        other, other_fsync = commit_times(repo, branch, items[1:n + 1])
        print(describe("gate + fsync (what sync does)", other, other_fsync))
        no_fsync, _ = commit_times(repo, branch, items[n + 1:2 * n + 1], fsync=False)
        print(describe("the same, object files not fsynced", no_fsync))
        rows.add(f"extract commit, {args.notes // 1000}k-note branch not checked out (p50)", median(other), "ms",
                 TARGET_MS, note=f"p90 {p90(other):.1f} ms; fsync {median(other_fsync):.1f} ms of it; "
                                 f"{median(no_fsync):.1f} ms with object files not fsynced")

        print("\nledger.load on that repository:")
        cold, entries = ledger_times(repo, 2 if args.quick else 3, cold=True)
        warm, _ = ledger_times(repo, 10 if args.quick else 20, cold=False)
        print(describe(f"cold (cache deleted), {entries} entries", cold))
        print(describe("warm (cache current)", warm))
        rows.add(f"ledger.load cold, {entries} ledger commits (p50)", median(cold), "ms",
                 note=f"{median(cold) / base:.0f}x python -c pass")
        rows.add("ledger.load warm (p50)", median(warm), "ms", note=f"{median(warm) / base:.1f}x python -c pass")

        print("\nsync of one new session of the bench project into that repository (in-process):")
        seconds, summary, parts = one_session_sync(repo, tmp / "home")
        print(f"  {seconds:.2f} s: extracted {summary['extracted']}, commits {summary['commits']}")
        for part in parts.targets:
            if part not in parts.absent:
                print(f"    {part:36} {parts.seconds[part]:6.2f} s  ({parts.calls[part]} calls)")
        note = "" if "consolidation" in parts.absent else f"consolidation {parts.seconds['consolidation']:.1f} s"
        rows.add(f"sync of 1 new session into the {args.notes // 1000}k-note project (informative)",
                 seconds, "s", note=note)

        t0 = time.perf_counter()
        check_out(repo, branch)
        print(f"\n(git switch {branch}: {time.perf_counter() - t0:.1f} s)")
        print(f"one extract commit into {branch} checked out ({args.notes} files in the worktree):")
        checked, checked_fsync = commit_times(repo, branch, items[2 * n + 1:3 * n + 1])
        print(describe("gate + fsync (what sync does)", checked, checked_fsync))
        rows.add(f"extract commit, {args.notes // 1000}k-note branch checked out (p50)", median(checked), "ms",
                 TARGET_MS, note=f"p90 {p90(checked):.1f} ms; fsync {median(checked_fsync):.1f} ms of it")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
