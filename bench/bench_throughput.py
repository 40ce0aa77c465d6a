"""Heuristic `memgit sync` throughput in MB of JSONL per second, commits included, and as a ratio
of the JSON-parse rate of the same files measured beside each run (DESIGN §8: >= 0.4 of it).

Two corpora, each laid out like ~/.claude/projects in a temporary home:

- the real fixtures (../shared/fixtures/transcripts/claude), copied the way
  tests/integration/test_sync_fixtures.py lays them out (skipped when absent);
- generated sessions (bench/generate.py): 200 of them, ~80 MB (`--quick`: 50, ~20 MB).

`sync.run(cfg, SyncOptions(all=True))` runs in-process on a fresh repository; memgit's modules are
imported beforehand, so the time is everything but interpreter start and imports: repo creation,
ledger, discovery, reading, redaction, extraction, rendering, the gate and every commit. Bytes are
all the `.jsonl` bytes under projects/ (subagent files are read when folded into their session).

Then the same sessions go through the stages alone, to split the time: reading
(claude_code.read_transcript), redaction (redact_transcript), extraction (heuristic.extract),
and the rest (note rendering, sha256 of the range, the gate, objects and refs: "commits").

`--compare DIR` times this tree and the memgit tree in DIR instead, in the same run: each sync in a
child process of its own (after a warm-up sync of six small sessions, so that both pay the process's
fixed costs, rules compiled and lazy imports, before timing), the trees alternating round by round,
on the fixtures, the scale corpus (../shared/fixtures/scale, when present) and the generated
sessions. Figures are CPU time of the process (wall time on the shared machine varies 2-3x), the
JSON-parse floor measured by CPU in the same child, and the sync's parts timed in place.

A first sync of many sessions reads and extracts them in worker processes (memgit.verbs.sync_fork; up to
`extract.concurrency`, one per core): `--compare` prints wall time beside CPU time, and the workers' CPU
apart. `MEMGIT_BENCH_CONCURRENCY=1` times the syncs in one process.

    python bench/bench_throughput.py [--quick] [--runs 3] [--profile]
    python bench/bench_throughput.py --compare DIR [--rounds 3] [--sessions 200]
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _common import CLAUDE_FIXTURES, SRC, FsyncMeter, Rows, Spy, arg_parser, median, python_pass_ms, user_env
from generate import write_transcripts

TARGET_MBPS = 20
HOUR = 3600


def lay_out_fixtures(projects: Path) -> None:
    """Copy each fixture folder holding main transcripts to projects/<folder>, as Claude Code keeps them.

    The same layout as tests/integration/test_sync_fixtures.py: subagent folders and a session's
    own folder (<session>/subagents/) travel with their parent; every file is made idle.
    """
    for folder in sorted({p.parent for p in CLAUDE_FIXTURES.rglob("*.jsonl")}):
        if "subagents" in folder.parts or any(parent.name == "subagents" for parent in folder.parents):
            continue
        if (folder.parent / f"{folder.name}.jsonl").exists():  # a session's own folder: copied with it
            continue
        shutil.copytree(folder, projects / folder.name, dirs_exist_ok=True)
    then = time.time() - 2 * HOUR
    for path in projects.rglob("*"):
        if path.is_file():
            path.chmod(0o644)
            os.utime(path, (then, then))


def jsonl_bytes(projects: Path) -> tuple[int, int]:
    """(all .jsonl bytes under projects, bytes of the main transcripts alone)."""
    from memgit.sources.claude_code import reader as claude_code

    everything = sum(p.stat().st_size for p in projects.rglob("*.jsonl"))
    main = sum(f.size for f in claude_code.discover(projects))
    return everything, main


def json_floor(projects: Path, clock=time.perf_counter) -> float:
    """Seconds to read every `.jsonl` line under projects and `json.loads` it: the floor a sync is
    measured against (DESIGN §8: a sync at >= 0.4 of this rate)."""
    loads = json.loads
    t0 = clock()
    for path in projects.rglob("*.jsonl"):
        with open(path, "rb") as f:
            for line in f:
                try:
                    loads(line)
                except ValueError:  # glued objects, a cut line: counted as read all the same
                    pass
    return clock() - t0


def warm_imports() -> None:
    """Import what a sync imports lazily, so the timed runs do not pay for it."""
    import frontmatter  # noqa: F401
    import yaml  # noqa: F401

    from memgit.core import redact, scopes
    from memgit.verbs import sync
    from memgit.extract import heuristic  # noqa: F401
    from memgit.store.lock import sync_lock  # noqa: F401
    from memgit.store.repo import MemoryRepo  # noqa: F401


# Parts of the run timed in place (see Spy): consolidation includes its own commits.
IN_RUN = {
    "consolidation (its commits included)": "memgit.verbs.consolidate:run",
    "hook context rendering": "memgit.verbs.briefing:refresh",
    "every commit (MemoryRepo._commit)": "memgit.store.repo:MemoryRepo._commit",
}


def timed_sync(home: Path, profiler: cProfile.Profile | None = None) -> tuple[float, dict, FsyncMeter, Spy]:
    """One full sync into a new repository under `home`; return (seconds, summary, its fsyncs, its parts)."""
    from memgit import config
    from memgit.verbs import sync

    # A new path each run: deleting the last repo here would leave the disk busy freeing it.
    repo = Path(tempfile.mkdtemp(prefix="memory-", dir=home))
    repo.rmdir()
    wanted = os.environ.get("MEMGIT_BENCH_CONCURRENCY")  # 1: one process, as before worker processes
    workers = {"MEMGIT_CONCURRENCY": wanted} if wanted else {}
    cfg = config.load(env={**user_env(home), "MEMGIT_HOME": str(repo), **workers})
    if profiler:
        profiler.enable()
    with FsyncMeter() as fsyncs, Spy(IN_RUN) as parts:
        t0 = time.perf_counter()
        result = sync.run(cfg, sync.SyncOptions(all=True))
        seconds = time.perf_counter() - t0
    if profiler:
        profiler.disable()
    return seconds, result.summary(), fsyncs, parts


def stages(projects: Path) -> dict[str, float]:
    """Seconds spent reading, redacting and extracting every main transcript, each stage alone."""
    from memgit.core import notes
    from memgit.core.redact import redact_note, redact_transcript
    from memgit.extract import heuristic
    from memgit.sources.claude_code import reader as claude_code

    files = claude_code.discover(projects)
    spent = {"read": 0.0, "redact": 0.0, "extract": 0.0, "render": 0.0}
    for f in files:
        t0 = time.perf_counter()
        t = claude_code.read_transcript(f.path, session_id=f.session_id)
        t1 = time.perf_counter()
        t = redact_transcript(t, ())
        t2 = time.perf_counter()
        extraction = heuristic.extract(t, project="bench")
        t3 = time.perf_counter()
        if extraction.note is not None:
            notes.render_note(redact_note(extraction.note, ()))
        t4 = time.perf_counter()
        spent["read"] += t1 - t0
        spent["redact"] += t2 - t1
        spent["extract"] += t3 - t2
        spent["render"] += t4 - t3
    return spent


def measure(label: str, home: Path, runs: int, rows: Rows, *, profile: bool) -> None:
    projects = home / ".claude" / "projects"
    everything, main = jsonl_bytes(projects)
    print(f"\n{label}: {len(list(projects.rglob('*.jsonl')))} .jsonl files, {everything / 1e6:.1f} MB "
          f"({main / 1e6:.1f} MB in main transcripts)")
    times, flushes, runs_parts, floors = [], [], [], []
    for i in range(runs):
        floors.append(json_floor(projects))  # the floor in the same run, next to each sync
        seconds, summary, fsyncs, parts = timed_sync(home)
        times.append(seconds)
        flushes.append(fsyncs.seconds)
        runs_parts.append(parts)
        print(f"  run {i + 1}: {seconds:.2f} s = {everything / 1e6 / seconds:.1f} MB/s  (read {summary['read']}, "
              f"extracted {summary['extracted']}, skipped {summary['skipped']}, failed {summary['failed']}, "
              f"commits {summary['commits']}; {fsyncs.calls} fsyncs took {fsyncs.seconds:.2f} s); "
              f"json.loads of every line {floors[-1]:.2f} s = {everything / 1e6 / floors[-1]:.1f} MB/s: "
              f"sync at {floors[-1] / seconds:.3f} of it", flush=True)
    ratios = sorted(floor / sync for floor, sync in zip(floors, times))
    print(f"  sync / JSON-parse rate, median of {runs}: {median(ratios):.3f} (target >= 0.4; "
          f"runs {', '.join(f'{r:.3f}' for r in ratios)})")
    seconds = median(times)
    flush = median(flushes)
    commits = summary["commits"]
    parts = runs_parts[times.index(seconds)] if seconds in times else runs_parts[-1]
    spent = stages(projects)
    rest = max(seconds - sum(spent.values()), 0.0)
    print(f"  split of the median run ({seconds:.2f} s):")
    print("    stages timed alone over the same sessions:")
    for name, value in [*spent.items(), ("everything else: commits, consolidation, ...", rest)]:
        print(f"      {name:46} {value:6.2f} s  {100 * value / seconds:5.1f}%  "
              f"({everything / 1e6 / value if value else float('inf'):.0f} MB/s alone, "
              f"{median(floors) / value if value else float('inf'):.2f} of the JSON-parse rate)")
    print("    timed inside the run:")
    for part in parts.targets:
        if part in parts.absent:
            print(f"      {part:46} (not in this version of memgit)")
        else:
            value = parts.seconds[part]
            print(f"      {part:46} {value:6.2f} s  {100 * value / seconds:5.1f}%  ({parts.calls[part]} calls)")
    print(f"      {'fsync':46} {flush:6.2f} s  {100 * flush / seconds:5.1f}%")
    print(f"  without the time spent in fsync: {everything / 1e6 / (seconds - flush):.1f} MB/s")
    consolidating = parts.seconds.get("consolidation (its commits included)", 0.0)
    rows.add(f"heuristic sync / JSON-parse rate, {label} (median of {runs})", median(ratios), "x", 0.4,
             higher_is_better=True, note=f"json.loads of every line {everything / 1e6 / median(floors):.0f} MB/s "
                                         "in the same run")
    rows.add(f"heuristic sync, {label} (median of {runs})", everything / 1e6 / seconds, "MB/s", TARGET_MBPS,
             higher_is_better=True, note=f"{everything / 1e6:.1f} MB, {commits} commits, {seconds:.2f} s; "
                                         f"read {100 * spent['read'] / seconds:.0f}% redact "
                                         f"{100 * spent['redact'] / seconds:.0f}% extract "
                                         f"{100 * spent['extract'] / seconds:.0f}% rest {100 * rest / seconds:.0f}% "
                                         f"(consolidation {100 * consolidating / seconds:.0f}%, "
                                         f"fsync {100 * flush / seconds:.0f}%); "
                                         f"{everything / 1e6 / (seconds - flush):.0f} MB/s without fsync time")
    if profile:
        profiler = cProfile.Profile()
        timed_sync(home, profiler)
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(25)
        print("  cProfile of one sync, by own time:")
        print("\n".join("    " + line for line in out.getvalue().splitlines()[6:40]))


# The parts of a sync timed in each child of --compare (CPU time; a name a tree lacks is left out).
SPLIT = {
    "reading (long texts redacted before they are cut)": "memgit.sources.registry:read",
    "redact_transcript": "memgit.verbs.sync_session:redact_transcript",
    "placing in a project": "memgit.verbs.sync_session:SyncRun.project_for",
    "extraction": "memgit.verbs.sync_session:SyncRun.run_extractor",
    "the sessions' commits (note, gate, objects)": "memgit.verbs.sync_session:SyncRun.finish",
    "after the commits (all of the four below)": "memgit.verbs.sync:_after_commits",
    "  consolidation": "memgit.verbs.consolidate:run",
    "  hook context": "memgit.verbs.briefing:refresh",
    "  search index": "memgit.verbs.search:refresh_index",
    "  packs merged": "memgit.store.repo:MemoryRepo.compact_packs",
}


def child(home: Path, warm: Path) -> dict:
    """One timed sync of `home` in this process, after a warm-up sync of `warm` (run by --compare).

    CPU time is this process's and, apart, its worker processes' (memgit.verbs.sync_fork: reading and
    extraction, whose parts the in-place timers of SPLIT do not see); wall time is the run's.
    """
    warm_imports()
    timed_sync(warm)
    floor = json_floor(home / ".claude" / "projects", clock=time.process_time)
    floor_wall = json_floor(home / ".claude" / "projects")
    with Spy(SPLIT, clock=time.process_time) as parts:
        c0, before = time.process_time(), os.times()
        seconds, summary, _, _ = timed_sync(home)
        cpu, after = time.process_time() - c0, os.times()
    workers = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return {"cpu": cpu, "workers_cpu": workers, "wall": seconds, "floor": floor, "floor_wall": floor_wall,
            "commits": summary["commits"],
            "parts": {label: parts.seconds[label] for label in SPLIT if label not in parts.absent}}


def compare(args, tmp: Path) -> None:
    """This tree and args.compare's, alternating round by round, each sync in a child process."""
    import subprocess

    from _common import PYTHON, ROOT

    trees = {"this tree": SRC, "compared": Path(args.compare).resolve()}
    corpora: dict[str, Path] = {}
    if CLAUDE_FIXTURES.is_dir():
        corpora["real fixtures"] = tmp / "fixtures"
        (corpora["real fixtures"] / ".claude" / "projects").mkdir(parents=True)
        lay_out_fixtures(corpora["real fixtures"] / ".claude" / "projects")
    scale = ROOT.parent / "shared" / "fixtures" / "scale" / "cc-backend" / "claude"
    if scale.is_dir():
        corpora["scale corpus"] = tmp / "scale"
        shutil.copytree(scale, corpora["scale corpus"] / ".claude" / "projects")
        then = time.time() - 2 * HOUR
        for path in (corpora["scale corpus"] / ".claude" / "projects").rglob("*"):
            os.utime(path, (then, then))
    n = 50 if args.quick else args.sessions
    corpora[f"{n} generated sessions"] = tmp / "generated"
    write_transcripts(tmp / "generated" / ".claude" / "projects", n, projects=10, size_kb=200, seed=5)
    warm = tmp / "warm"
    write_transcripts(warm / ".claude" / "projects", 6, projects=2, size_kb=40, seed=9)
    results: dict[tuple[str, str], list[dict]] = {(c, t): [] for c in corpora for t in trees}
    for r in range(args.rounds):
        for corpus, home in corpora.items():
            for tree in (list(trees) if r % 2 == 0 else list(trees)[::-1]):
                env = {**os.environ, "MEMGIT_BENCH_SRC": str(trees[tree])}
                done = subprocess.run([PYTHON, __file__, "--child", str(home), str(warm)], env=env,
                                      stdout=subprocess.PIPE, check=True, text=True)
                results[(corpus, tree)].append(json.loads(done.stdout.splitlines()[-1]))
        print(f"  round {r + 1} of {args.rounds} done", flush=True)
    for corpus, home in corpora.items():
        size = sum(p.stat().st_size for p in (home / ".claude" / "projects").rglob("*.jsonl"))
        # The floor moves with the machine's load as much as the sync does: each child's ratio is
        # its own floor over its own sync, and "pooled" is the median floor of every child of the
        # corpus (both trees) over the tree's median sync.
        floor = median([x["floor"] for tree in trees for x in results[(corpus, tree)]])
        print(f"\n{corpus}: {size / 1e6:.1f} MB of .jsonl, {args.rounds} rounds (CPU time; median [range]); "
              f"json.loads of every line {floor:.2f} s")
        for tree, where in trees.items():
            runs = results[(corpus, tree)]
            cpu = [x["cpu"] for x in runs]
            ratio = [x["floor"] / x["cpu"] for x in runs]
            walls = [x["wall"] for x in runs]
            by_wall = [x.get("floor_wall", x["floor"]) / x["wall"] for x in runs]
            print(f"  {tree} ({where}): sync {median(cpu):.2f} s [{min(cpu):.2f}-{max(cpu):.2f}] "
                  f"(+ {median(x.get('workers_cpu', 0.0) for x in runs):.2f} s in worker processes), "
                  f"sync / JSON-parse rate {median(ratio):.3f} [{min(ratio):.3f}-{max(ratio):.3f}], "
                  f"pooled {floor / median(cpu):.3f}; wall {median(walls):.2f} s [{min(walls):.2f}-{max(walls):.2f}], "
                  f"by wall time {median(by_wall):.3f} of the JSON-parse rate")
        this, other = results[(corpus, "this tree")], results[(corpus, "compared")]
        print(f"  this / compared, CPU: {median(x['cpu'] for x in this) / median(x['cpu'] for x in other):.2f}, "
              f"wall: {median(x['wall'] for x in this) / median(x['wall'] for x in other):.2f}")
        for label in SPLIT:
            mine = [x["parts"][label] for x in this if label in x["parts"]]
            theirs = [x["parts"][label] for x in other if label in x["parts"]]
            print(f"    {label:52} {median(mine) if mine else float('nan'):6.2f} s   compared "
                  f"{median(theirs) if theirs else float('nan'):6.2f} s")


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        print(json.dumps(child(Path(sys.argv[2]), Path(sys.argv[3]))))
        return
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=200, help="generated sessions (default 200)")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one sync per corpus")
    parser.add_argument("--compare", metavar="DIR", help="time this tree against the memgit tree in DIR")
    parser.add_argument("--rounds", type=int, default=3, help="rounds of --compare (default 3)")
    args = parser.parse_args()
    if args.compare:
        tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-throughput-"))
        try:
            compare(args, tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        return
    rows = Rows("throughput")
    base = median(python_pass_ms(11))
    rows.baseline_ms = base
    print(f"python -c pass: {base:.1f} ms (median of 11)")
    warm_imports()
    runs = 1 if args.quick else args.runs
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-throughput-"))
    try:
        if CLAUDE_FIXTURES.is_dir():
            home = tmp / "fixtures"
            (home / ".claude" / "projects").mkdir(parents=True)
            lay_out_fixtures(home / ".claude" / "projects")
            measure("real fixtures", home, max(runs, 3), rows, profile=args.profile)
        else:
            print(f"\nreal fixtures: {CLAUDE_FIXTURES} is absent, skipped")
        home = tmp / "generated"
        n = 50 if args.quick else args.sessions
        t0 = time.perf_counter()
        write_transcripts(home / ".claude" / "projects", n, projects=10, size_kb=200, seed=5)
        print(f"\n(generated {n} sessions in {time.perf_counter() - t0:.1f} s)")
        measure(f"{n} generated sessions", home, runs, rows, profile=args.profile)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
