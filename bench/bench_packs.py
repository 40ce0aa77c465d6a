"""Packs against loose objects (issue 19 item 10, issue 20 item 1): one `memgit sync --all` of generated
sessions by this checkout and by a baseline tree (default: `main`'s memgit/, exported by `git archive`),
in alternating rounds of the same run, each on a fresh HOME and repository.

For each: the sync's wall time, its `os.fsync` calls and their time (counted in the process: the
object files, packs and refs; SQLite's own syncs are not Python's), then `git count-objects -v`
(loose objects, packs) and `git fsck --strict`. Figures are ratios of this checkout to the baseline.
Last, `memgit gc` on the baseline's repository: the loose objects an older memgit left, packed.

    python bench/bench_packs.py [--quick] [--sessions 300] [--rounds 3] [--baseline REV | --baseline-dir DIR]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, SRC, Rows, arg_parser, median, user_env
from generate import write_transcripts

# Run in the child: count os.fsync (dulwich's refs, memgit's objects and packs), then the real CLI.
RUNNER = """
import json, os, sys, time
calls, spent, real = [0], [0.0], os.fsync
def counted(fd):
    t0 = time.perf_counter()
    try:
        real(fd)
    finally:
        calls[0] += 1
        spent[0] += time.perf_counter() - t0
os.fsync = counted
from memgit.cli.commands import cli
t0 = time.perf_counter()
try:
    cli(sys.argv[1:], standalone_mode=False)
finally:
    sys.stderr.write("\\nBENCH " + json.dumps({"seconds": time.perf_counter() - t0, "fsyncs": calls[0],
                                               "fsync_seconds": spent[0]}) + "\\n")
"""


def export(rev: str, into: Path) -> Path:
    """memgit/ (and its templates, prompts, hooks) as of `rev`, unpacked under `into`."""
    archive = into / "src.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", rev, "memgit", "templates", "prompts", "hooks", "skills",
                        "pyproject.toml"], stdout=out, check=True)
    tree = into / f"src-{rev.replace('/', '-')}"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    return tree


def run_sync(tree: Path, home: Path) -> dict:
    env = {**user_env(home), "PYTHONPATH": str(tree)}
    done = subprocess.run([PYTHON, "-c", RUNNER, "sync", "--all", "--json"], env=env, cwd=tree,
                          capture_output=True, text=True)
    marker = [line for line in done.stderr.splitlines() if line.startswith("BENCH ")]
    if done.returncode != 0 or not marker:
        raise SystemExit(f"sync with {tree} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    figures = json.loads(marker[-1][len("BENCH "):])
    repo = home / ".local" / "share" / "memgit"
    counts = dict(line.split(": ") for line in subprocess.run(
        ["git", "-C", str(repo), "count-objects", "-v"], capture_output=True, text=True, check=True).stdout.splitlines())
    fsck = subprocess.run(["git", "-C", str(repo), "fsck", "--strict"], capture_output=True, text=True)
    figures.update(loose=int(counts["count"]), packs=int(counts["packs"]), fsck_ok=fsck.returncode == 0,
                   commits=int(json.loads(done.stdout)["commits"]))
    return figures


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--baseline", default="main", help="a git revision of this checkout (default: main)")
    parser.add_argument("--baseline-dir", help="a tree with memgit/ to use as the baseline instead")
    args = parser.parse_args()
    sessions, rounds = (120, 1) if args.quick else (args.sessions, args.rounds)
    rows = Rows("packs")
    with tempfile.TemporaryDirectory(prefix="memgit-bench-packs-") as tmp:
        tmp = Path(tmp)
        base = Path(args.baseline_dir) if args.baseline_dir else export(args.baseline, tmp)
        corpus = tmp / "corpus"
        write_transcripts(corpus / ".claude" / "projects", sessions, projects=10, size_kb=12)
        size = sum(p.stat().st_size for p in corpus.rglob("*.jsonl"))
        print(f"{sessions} sessions, {size / 1e6:.1f} MB, 10 projects; baseline {base}, this {SRC}", flush=True)
        results: dict[str, list[dict]] = {"baseline": [], "this": []}
        for i in range(rounds):
            for name, tree in (("baseline", base), ("this", SRC)):
                home = tmp / f"home-{name}-{i}"
                shutil.copytree(corpus, home, symlinks=True)
                figures = run_sync(tree, home)
                results[name].append(figures)
                print(f"  round {i + 1} {name}: {figures['seconds']:.2f} s, {figures['fsyncs']} fsyncs "
                      f"({figures['fsync_seconds']:.2f} s), {figures['commits']} commits, {figures['loose']} loose, "
                      f"{figures['packs']} packs, fsck {'ok' if figures['fsck_ok'] else 'FAILED'}", flush=True)
                if name == "this" or i < rounds - 1:
                    shutil.rmtree(home)
        old_repo = tmp / f"home-baseline-{rounds - 1}" / ".local" / "share" / "memgit"
        t0 = time.perf_counter()
        gc = subprocess.run([PYTHON, "-m", "memgit.cli.commands", "gc", "--repo", str(old_repo), "--json"],
                            env=user_env(tmp / "gc-home"), cwd=SRC, capture_output=True, text=True)
        gc_seconds = time.perf_counter() - t0
        gc_result = json.loads(gc.stdout) if gc.returncode == 0 else None

    def med(name: str, key: str) -> float:
        return median([r[key] for r in results[name]])

    b, t = "baseline", "this"
    rows.baseline_ms = med(b, "seconds") * 1e3
    rows.add("sync --all, this / baseline", med(t, "seconds") / med(b, "seconds"), "x",
             note=f"{med(t, 'seconds'):.2f} s vs {med(b, 'seconds'):.2f} s, {sessions} sessions")
    rows.add("fsync calls, this / baseline", med(t, "fsyncs") / max(med(b, "fsyncs"), 1), "x",
             note=f"{med(t, 'fsyncs'):.0f} vs {med(b, 'fsyncs'):.0f}")
    rows.add("time in fsync, this / baseline", med(t, "fsync_seconds") / max(med(b, "fsync_seconds"), 1e-9), "x",
             note=f"{med(t, 'fsync_seconds'):.2f} s vs {med(b, 'fsync_seconds'):.2f} s")
    rows.add("fsync calls per commit, this", med(t, "fsyncs") / max(med(t, "commits"), 1), "calls",
             note=f"baseline {med(b, 'fsyncs') / max(med(b, 'commits'), 1):.1f}")
    rows.add("loose objects after one sync", med(t, "loose"), "objects", 50,
             note=f"baseline {med(b, 'loose'):.0f}; packs {med(t, 'packs'):.0f}")
    rows.add("git fsck --strict failures", sum(not r["fsck_ok"] for r in results[t]), "runs", 0)
    if gc_result:
        rows.add("memgit gc of the baseline's repository", gc_seconds, "s",
                 note=f"{gc_result['packed']} loose objects packed into {gc_result['after']['packs']} pack")
    rows.write(args.rows)


if __name__ == "__main__":
    main()
