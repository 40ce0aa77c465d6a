"""One new session into a 10k-note project (extract + incremental consolidation, DESIGN §8: <= 1 s),
and the cold ledger load at 10k commits (<= 0.3 s).

A 10k-note / 10k-commit repository (generate.make_note_repo; its notes carry learnings worded like
the extractor's: most name files and functions of their own session, some recur). Then, timed:

- the first consolidation of that project with no cache (`.git/memgit/memory/` empty): what a user
  pays once after an upgrade, or after deleting the caches (informative);
- `sync.run` of one new ~200 KB session of that project, in-process, caches as the previous sync left
  them: reading, extraction, the commit, the project's and main's consolidation and the hook
  context, all of it; three rounds, each a new session;
- whether the incremental result is byte-identical to a recompute: the memory cache is deleted and
  `consolidate --force` must find nothing to change;
- `ledger.load` with `.git/memgit/ledger.pickle` deleted (cold), and current (warm).
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from _common import Rows, Spy, arg_parser, median, python_pass_ms, user_env
from generate import make_note_repo, write_transcripts

SYNC_TARGET_S = 1.0
LEDGER_TARGET_MS = 300.0
PARTS = {
    "reading + extraction": "memgit.verbs.sync_session:SyncRun.prepare",
    "commits (MemoryRepo._commit)": "memgit.store.repo:MemoryRepo._commit",
    "consolidation": "memgit.verbs.consolidate:run",
    "  of which the scopes' Memory": "memgit.verbs.consolidate:scope_memory",
    "hook context": "memgit.verbs.briefing:refresh",
    "ledger.load": "memgit.store.ledger_cache:load",
}


def config(repo: Path, home: Path):
    from memgit import config as config_mod

    return config_mod.load(env={**user_env(home), "MEMGIT_HOME": str(repo)})


def heads(repo: Path) -> dict[str, str]:
    from memgit.store.repo import MemoryRepo

    with MemoryRepo.open(repo) as memory:
        return memory.branches()


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    notes = 2_000 if args.quick else args.notes
    rows = Rows("consolidate")
    base = median(python_pass_ms(11))
    rows.baseline_ms = base
    print(f"python -c pass: {base:.1f} ms (median of 11)")
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-consolidate-"))
    try:
        from memgit.verbs import consolidate as consolidation, sync
        from memgit.store import ledger_cache
        from memgit.store.repo import MemoryRepo

        repo, home = tmp / "memory", tmp / "home"
        t0 = time.perf_counter()
        branch = make_note_repo(repo, notes=notes, commits=notes)
        print(f"built a repo with {notes} notes / ~{notes} commits on {branch} in {time.perf_counter() - t0:.1f} s")
        cfg = config(repo, home)

        t0 = time.perf_counter()
        with MemoryRepo.open(repo) as memory:
            made = consolidation.run(memory, cfg)
        cold = time.perf_counter() - t0
        print(f"first consolidation, no cache: {cold:.1f} s ({', '.join(r.branch for r in made)})")
        rows.add(f"first consolidation of the {notes // 1000}k-note project, cache cold (informative)", cold, "s")

        times = []
        for i in range(args.rounds):
            write_transcripts(home / ".claude" / "projects", 1, size_kb=200, seed=77 + i, cwd=f"/home/u/dev/bench")
            with MemoryRepo.open(repo) as memory:  # the ledger cache as the previous sync left it
                ledger_cache.load(memory, cfg.state_dir)
            with Spy(PARTS) as parts:
                t0 = time.perf_counter()
                result = sync.run(cfg, sync.SyncOptions(all=True))
                times.append(time.perf_counter() - t0)
            summary = result.summary()
            print(f"round {i + 1}: {times[-1]:.2f} s (extracted {summary['extracted']}, commits {summary['commits']})")
            for part in PARTS:
                if part not in parts.absent:
                    print(f"    {part:34} {parts.seconds[part]:6.3f} s  ({parts.calls[part]} calls)")
        rows.add(f"one new session into the {notes // 1000}k-note project (extract + incremental consolidation, "
                 f"median of {args.rounds})", median(times), "s", SYNC_TARGET_S,
                 note=f"{median(times) * 1e3 / base:.0f}x python -c pass")

        before = heads(repo)
        shutil.rmtree(cfg.state_dir / "memory")
        t0 = time.perf_counter()
        with MemoryRepo.open(repo) as memory:
            again = consolidation.run(memory, cfg, force=True)
        identical = not again and heads(repo) == before
        print(f"recompute with the cache deleted: {time.perf_counter() - t0:.1f} s; "
              f"{'byte-identical, nothing to commit' if identical else 'DIFFERENT: ' + str(again)}")
        rows.add("incremental consolidation equals a recompute (1 = byte-identical)", float(identical), "", 1.0,
                 higher_is_better=True)

        cold_ms, warm_ms = [], []
        def forget() -> None:  # what a new process knows: nothing (load reuses what this one read)
            ledger_cache._LAST.clear()
            ledger_cache._READ.clear()

        for _ in range(1 if args.quick else 3):
            (cfg.state_dir / "ledger.pickle").unlink(missing_ok=True)
            forget()
            t0 = time.perf_counter()
            with MemoryRepo.open(repo) as memory:
                entries = len(ledger_cache.load(memory, cfg.state_dir).entries)
            cold_ms.append((time.perf_counter() - t0) * 1e3)
        for _ in range(5):
            forget()
            t0 = time.perf_counter()
            with MemoryRepo.open(repo) as memory:
                ledger_cache.load(memory, cfg.state_dir)
            warm_ms.append((time.perf_counter() - t0) * 1e3)
        print(f"ledger.load, {entries} entries: cold {median(cold_ms):.0f} ms, warm {median(warm_ms):.0f} ms")
        rows.add(f"cold ledger load, {entries} ledger commits (p50)", median(cold_ms), "ms", LEDGER_TARGET_MS,
                 note=f"warm {median(warm_ms):.0f} ms; {median(cold_ms) / base:.0f}x python -c pass")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
