"""`memgit sync` with nothing new and 1,000 transcripts on disk (DESIGN §8: <= 250 ms).

What a user runs, as a fresh subprocess, with HOME and XDG_* pointing at a temporary home and
MEMGIT_*/CLAUDE_*/GIT_* scrubbed: `python -m memgit.entry sync`, the console script's code and the
command the hooks start (the record of the last no-op run answers it: memgit.verbs.sync_noop), and
`python -m memgit.cli sync`, the whole pipeline finding nothing to do (what the first run after any
change pays). A first `sync --all` (not timed) reads every transcript; a first plain sync records
the answer. The rounds interleave `python -c pass`, `python -c "import memgit.cli.commands"` and
both syncs, so the medians see the same machine noise.

    python bench/bench_noop_sync.py [--quick] [--transcripts 1000] [--runs 15] [--profile]
    python bench/bench_noop_sync.py --compare /tmp/patched   # A/B: also time sync from another tree

With --compare DIR (a copy of the project holding a changed memgit/), every round also runs the
sync with PYTHONPATH=DIR, on the same transcripts and repository, so a fix is judged against the
same noise. (MEMGIT_BENCH_SRC=DIR makes every benchmark measure DIR instead of this checkout.)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, Rows, arg_parser, median, p90, user_env, wall_ms
from generate import write_transcripts

TARGET_MS = 250


def profile(env: dict[str, str], home: Path, module: str = "memgit.entry") -> None:
    """Where a no-op sync spends its time: imports (-X importtime) and the call tree (cProfile)."""
    print(f"\n  python -m {module} sync:")
    cmd = [PYTHON, "-X", "importtime", "-m", module, "sync"]
    stderr = subprocess.run(cmd, env=env, cwd=home, capture_output=True, text=True).stderr
    rows = []
    for line in stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m and len(m[3]) <= 3:  # top-level imports and their direct children
            rows.append((int(m[2]), int(m[1]), m[3] + m[4]))
    print("\n  -X importtime, top-level imports by cumulative time (us):")
    for cumulative, own, name in sorted(rows, reverse=True)[:15]:
        print(f"    {cumulative:8d} {own:8d}  {name}")
    out = subprocess.run([PYTHON, "-m", "cProfile", "-s", "cumulative", "-m", module, "sync"],
                         env=env, cwd=home, capture_output=True, text=True).stdout
    lines = out.splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    print("\n  cProfile of `memgit sync` (no-op), by cumulative time:")
    print("\n".join("    " + line for line in lines[max(0, start - 3): start + 40]))


def copy_agent_sessions(home: Path, codex: int, gemini: int) -> list[Path]:
    """Copies of the smallest Codex and Gemini CLI fixture sessions, each under a new id, laid out as the
    agents lay out their files; none when ../shared/fixtures is absent."""
    import uuid

    fixtures = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures" / "transcripts"
    rollouts = sorted((fixtures / "codex").rglob("rollout-*.jsonl"), key=lambda p: p.stat().st_size)
    chats = sorted((fixtures / "gemini").rglob("*.json"), key=lambda p: p.stat().st_size)
    if not rollouts or not chats:
        print("../shared/fixtures absent: Claude Code transcripts only")
        return []
    out = []
    for n in range(codex):
        folder = home / ".codex" / "sessions" / "2026" / "01" / f"{n % 28 + 1:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        out.append(folder / f"rollout-2026-01-{n % 28 + 1:02d}T10-00-00-{uuid.UUID(int=n + 1)}.jsonl")
        shutil.copyfile(rollouts[0], out[-1])
    for n in range(gemini):
        folder = home / ".gemini" / "tmp" / f"{n % 10:064x}" / "chats"
        folder.mkdir(parents=True, exist_ok=True)
        doc = json.loads(chats[0].read_text(encoding="utf-8"))
        doc["sessionId"] = str(uuid.UUID(int=(10_000 + n) << 96))
        out.append(folder / f"session-2026-01-16T11-01-{doc['sessionId'][:8]}.json")
        out[-1].write_text(json.dumps(doc), encoding="utf-8")
    for path in out:
        os.utime(path, (time.time() - 7200, time.time() - 7200))
    return out


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--transcripts", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--codex", type=int, default=100, help="of the transcripts, Codex rollouts (fixture copies)")
    parser.add_argument("--gemini", type=int, default=100, help="of the transcripts, Gemini CLI sessions (fixture copies)")
    parser.add_argument("--profile", action="store_true", help="profile even when on target")
    parser.add_argument("--compare", metavar="DIR", type=Path, help="also time the sync of the memgit in DIR")
    args = parser.parse_args()
    runs = 10 if args.quick else args.runs
    rows = Rows("noop_sync")
    home = Path(tempfile.mkdtemp(prefix="memgit-bench-noop-"))
    try:
        env = user_env(home)
        projects = home / ".claude" / "projects"
        t0 = time.perf_counter()
        others = copy_agent_sessions(home, args.codex, args.gemini)
        paths = write_transcripts(projects, args.transcripts - len(others), projects=10, size_kb=6, seed=11)
        total = sum(p.stat().st_size for p in paths + others)
        print(f"generated {len(paths)} Claude Code transcripts (10 projects) and copied {len(others)} Codex and "
              f"Gemini CLI sessions ({total / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f} s")
        t0 = time.perf_counter()
        first = subprocess.run([PYTHON, "-m", "memgit.cli", "sync", "--all", "--json"], env=env, cwd=home,
                               capture_output=True, text=True)
        if first.returncode:
            raise SystemExit(f"first sync failed:\n{first.stderr[-2000:]}")
        summary = json.loads(first.stdout)
        print(f"first sync (not timed): read {summary['read']}, extracted {summary['extracted']}, "
              f"skipped {summary['skipped']}, failed {summary['failed']}, commits {summary['commits']} "
              f"in {time.perf_counter() - t0:.1f} s")

        sync_cmd = [PYTHON, "-m", "memgit.entry", "sync"]
        full_cmd = [PYTHON, "-m", "memgit.cli", "sync"]
        full = subprocess.run(full_cmd, env=env, cwd=home, capture_output=True, text=True)  # records the answer
        check = subprocess.run(sync_cmd, env=env, cwd=home, capture_output=True, text=True)
        print(f"a no-op run says: {check.stdout.strip()}")
        if check.stdout != full.stdout:
            print(f"  ... and the full pipeline says otherwise: {full.stdout.strip()}")
        no_pyc = {**env, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": str(home / "no-pyc")}
        cold = [wall_ms(sync_cmd, env=no_pyc, cwd=home) for _ in range(3)]
        for cmd in ([PYTHON, "-c", "pass"], [PYTHON, "-c", "import memgit.cli.commands"], sync_cmd, full_cmd):
            wall_ms(cmd, env=env, cwd=home)  # warm-up: page cache, bytecode cache
        other_env = args.compare and {**env, "PYTHONPATH": str(args.compare.resolve())}
        if other_env:
            wall_ms(sync_cmd, env=other_env, cwd=home)
        passes, imports, syncs, fulls, others = [], [], [], [], []
        for _ in range(runs):
            passes.append(wall_ms([PYTHON, "-c", "pass"], env=env, cwd=home))
            imports.append(wall_ms([PYTHON, "-c", "import memgit.cli.commands"], env=env, cwd=home))
            syncs.append(wall_ms(sync_cmd, env=env, cwd=home))
            fulls.append(wall_ms(full_cmd, env=env, cwd=home))
            if other_env:
                others.append(wall_ms(sync_cmd, env=other_env, cwd=home))
        base = median(passes)
        rows.baseline_ms = base
        print(f"{runs} rounds:")
        print(f"  python -c pass              median {base:7.1f} ms  p90 {p90(passes):7.1f} ms")
        print(f"  python -c 'import memgit.cli' median {median(imports):5.1f} ms  p90 {p90(imports):7.1f} ms  "
              f"({median(imports) / base:.1f}x pass)")
        print(f"  memgit sync (nothing new)   median {median(syncs):7.1f} ms  p90 {p90(syncs):7.1f} ms  "
              f"({median(syncs) / base:.1f}x pass; python -m memgit.entry sync)")
        print(f"  the full pipeline, the same  median {median(fulls):6.1f} ms  p90 {p90(fulls):7.1f} ms  "
              f"({median(fulls) / base:.1f}x pass; python -m memgit.cli sync)")
        if others:
            print(f"  memgit sync from {args.compare}  median {median(others):7.1f} ms  p90 {p90(others):7.1f} ms  "
                  f"({median(others) / base:.1f}x pass; {median(syncs) - median(others):+.1f} ms saved)")
        print(f"  (the same sync with no .pyc files to load, as when PYTHONDONTWRITEBYTECODE=1: "
              f"median of 3 {median(cold):.0f} ms)")
        rows.add(f"no-op sync, {args.transcripts} transcripts (p50)", median(syncs), "ms", TARGET_MS,
                 note=f"p90 {p90(syncs):.0f} ms; {median(syncs) / base:.1f}x python -c pass; "
                      f"import memgit.cli.commands {median(imports):.0f} ms")
        if args.profile or median(syncs) > TARGET_MS:
            profile(env, home)
            profile(env, home, "memgit.cli")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
