"""Reading and extraction of real transcripts, each as a ratio of the JSON-parse rate of the same files.

The main Claude Code transcripts of ../shared/fixtures (and of the scale corpus,
../shared/fixtures/scale/cc-backend, when present) go through the stages of a sync one after the
other: `claude_code.read_transcript`, `redact_transcript`, `heuristic.extract`. Each round also
reads every line of the same files with `json.loads` (the floor). Times are the process's CPU time,
not wall time: on the shared 2-core machine wall times vary 2-10x within minutes, CPU time far less.
A figure is floor / stage time: 1.0 is "as fast as parsing the JSON", higher is faster.

`--compare DIR` runs the same rounds with the memgit tree in DIR, alternating with this one, each in
its own process (`pip install 'memgit[fast]'` decides whether msgspec reads the lines).

    python bench/bench_stages.py [--rounds 5] [--compare DIR]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from _common import CLAUDE_FIXTURES, PYTHON, ROOT, SRC, Rows, arg_parser, median

SCALE = ROOT.parent / "shared" / "fixtures" / "scale" / "cc-backend" / "claude"
STAGES = ("read", "redact", "extract")


def main_transcripts() -> list[Path]:
    roots = [r for r in (SCALE, CLAUDE_FIXTURES) if r.is_dir()]
    return [p for r in roots for p in sorted(r.rglob("*.jsonl"))
            if "subagents" not in p.parts and not p.name.startswith("agent-")]


def one_round() -> dict[str, float]:
    """CPU seconds of the floor and of each stage over every main transcript (run in a child)."""
    from memgit.core.redact import redact, redact_transcript
    from memgit.extract import heuristic
    from memgit.sources.claude_code import reader

    files = main_transcripts()
    redact("warm up: the rules compiled before timing")
    clock = time.process_time
    t0 = clock()
    for path in files:
        with open(path, "rb") as f:
            for line in f:
                try:
                    json.loads(line)
                except ValueError:  # glued objects: read all the same
                    pass
    spent = {"floor": clock() - t0, **dict.fromkeys(STAGES, 0.0)}
    for path in files:
        t0 = clock()
        t = reader.read_transcript(path)
        t1 = clock()
        t = redact_transcript(t, ())
        t2 = clock()
        heuristic.extract(t, project="bench")
        t3 = clock()
        spent["read"] += t1 - t0
        spent["redact"] += t2 - t1
        spent["extract"] += t3 - t2
    return spent


def run_round(src: Path) -> dict[str, float]:
    env = {**os.environ, "MEMGIT_BENCH_SRC": str(src)}  # _common puts that tree first on sys.path
    done = subprocess.run([PYTHON, __file__, "--child"], env=env, stdout=subprocess.PIPE, check=True, text=True)
    return json.loads(done.stdout)


def main() -> None:
    if sys.argv[1:] == ["--child"]:
        print(json.dumps(one_round()))
        return
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compare", metavar="DIR", type=Path, help="another memgit tree, in alternating rounds")
    args = parser.parse_args()
    files = main_transcripts()
    size = sum(p.stat().st_size for p in files)
    print(f"{len(files)} main transcripts, {size / 1e6:.1f} MB (subagent files are read when folded in)")
    trees = {"this tree": SRC, **({f"{args.compare}": args.compare.resolve()} if args.compare else {})}
    rounds = 2 if args.quick else args.rounds
    got: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for i in range(rounds):
        for name, src in trees.items():
            got[name].append(run_round(src))
            r = got[name][-1]
            print(f"  round {i + 1} {name}: floor {r['floor']:.2f} s, "
                  + ", ".join(f"{s} {r[s]:.2f} s ({r['floor'] / r[s]:.2f})" for s in STAGES), flush=True)
    rows = Rows("stages")
    for name, runs in got.items():
        print(f"{name}, median of {rounds} rounds (CPU time; floor / stage, higher is faster):")
        for stage in STAGES:
            ratio = median([r["floor"] / r[stage] for r in runs])
            floor = median([r["floor"] for r in runs])
            print(f"  {stage:8} {median([r[stage] for r in runs]):6.2f} s = {ratio:.2f} of the JSON-parse rate "
                  f"({size / 1e6 / floor:.0f} MB/s CPU)")
            if name == "this tree":
                rows.add(f"{stage} / JSON-parse rate, fixtures + scale corpus", ratio, "x",
                         note=f"CPU time, median of {rounds}")
    rows.write(args.rows)


if __name__ == "__main__":
    main()
