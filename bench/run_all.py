"""Run every benchmark, each in its own process, and print one table of the figures against DESIGN §8.

    python bench/run_all.py            # ~3-4 minutes on the 2-core machine
    python bench/run_all.py --quick    # fewer runs, smaller generated data: ~1.5 minutes
    python bench/run_all.py --only noop_sync,memory

Each script also runs alone (python bench/bench_<name>.py --help). Benchmarks print figures;
they assert nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import PYTHON, median, python_pass_ms  # noqa: E402

SCRIPTS = {
    "noop_sync": "bench_noop_sync.py",
    "throughput": "bench_throughput.py",
    "commit": "bench_commit.py",
    "hook": "bench_hook.py",
    "memory": "bench_memory.py",
    "consolidate": "bench_consolidate.py",
    "eval": "bench_eval.py",
    "zst": "bench_zst.py",
    "push": "bench_push.py",
    "team_pull": "bench_team_pull.py",
    "search": "bench_search.py",
    "search_eval": "bench_search_eval.py",
    "prompt_hook": "bench_prompt_hook.py",
    "scale": "bench_scale.py",
    "packs": "bench_packs.py",
}
SCRIPTS = {name: script for name, script in SCRIPTS.items() if (HERE / script).exists()}


def run(name: str, quick: bool, out: Path) -> dict | None:
    cmd = [PYTHON, str(HERE / SCRIPTS[name]), "--rows", str(out)] + (["--quick"] if quick else [])
    print(f"\n=== {name}: {' '.join(cmd[1:2] + cmd[4:])}", flush=True)
    t0 = time.perf_counter()
    done = subprocess.run(cmd)
    print(f"=== {name}: {time.perf_counter() - t0:.0f} s", flush=True)
    if done.returncode != 0 or not out.exists():
        print(f"=== {name} failed (exit code {done.returncode})")
        return None
    return json.loads(out.read_text())


def table(results: list[dict]) -> str:
    lines = ["| what | figure | target (DESIGN §8) | figure / target | |", "|---|---|---|---|---|"]
    for result in results:
        for row in result["rows"]:
            verdict = "" if row["ok"] is None else ("OK" if row["ok"] else "**missed**")
            ratio = "" if row["ratio"] is None else f"{row['ratio']:.2f}"
            figure = f"{row['value']:.3g} {row['unit']}" if row["value"] < 1000 else f"{row['value']:.0f} {row['unit']}"
            what = row["what"] + (f" ({row['note']})" if row["note"] else "")
            lines.append(f"| {what} | {figure} | {row['target'] or '(informative)'} | {ratio} | {verdict} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller data")
    parser.add_argument("--only", help=f"comma-separated subset of {', '.join(SCRIPTS)}")
    args = parser.parse_args()
    names = args.only.split(",") if args.only else list(SCRIPTS)
    unknown = set(names) - set(SCRIPTS)
    if unknown:
        parser.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
    t0 = time.perf_counter()
    before = median(python_pass_ms(15))
    results = []
    with tempfile.TemporaryDirectory(prefix="memgit-bench-rows-") as tmp:
        for name in names:
            result = run(name, args.quick, Path(tmp) / f"{name}.json")
            if result:
                results.append(result)
    after = median(python_pass_ms(15))
    print(f"\n## memgit benchmarks, {date.today()}{' (--quick)' if args.quick else ''}\n")
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          f"`python -c pass` median {before:.1f} ms before the runs, {after:.1f} ms after; "
          f"load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())} at the end; "
          f"total {time.perf_counter() - t0:.0f} s\n")
    print(table(results))
    baselines = ", ".join(f"{r['name']} {r['baseline_ms']:.1f} ms" for r in results if r.get("baseline_ms"))
    print(f"\n`python -c pass` measured inside each benchmark: {baselines}")


if __name__ == "__main__":
    main()
