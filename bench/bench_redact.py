"""Redaction alone, in MB/s, over the real fixtures: this tree, and another to compare, in the same run.

Each tree runs in its own process (so each imports its own memgit): it reads every main transcript
of ../shared/fixtures/transcripts/claude (in place) with claude_code.read_transcript, redacts them
once to load and compile the rules (timed apart: "first use"), then times `redact_transcript(t, ())`
over all of them, as a sync does. MB/s are given over the JSONL bytes (the basis of
bench_throughput's stages) and over the bytes of text actually scanned. A second figure joins all
those texts into one string: the long-text path (keyword scan, then rules only where keywords are).
Rounds alternate between the trees, so the machine's noise falls on both.

    python bench/bench_redact.py [--runs 7] [--compare /path/to/other/tree]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import CLAUDE_FIXTURES, PYTHON, ROOT, arg_parser, median


def fixture_folders() -> list[Path]:
    """The fixture folders that hold main transcripts (as bench_throughput lays them out)."""
    folders = []
    for folder in sorted({p.parent for p in CLAUDE_FIXTURES.rglob("*.jsonl")}):
        if "subagents" in folder.parts or (folder.parent / f"{folder.name}.jsonl").exists():
            continue
        folders.append(folder)
    return folders


def worker(src: Path, runs: int) -> dict:
    """Measure in this process the memgit found at `src`."""
    sys.path.insert(0, str(src))
    from memgit.core import redact
    from memgit.sources.claude_code import reader as claude_code

    with tempfile.TemporaryDirectory() as tmp:
        projects = Path(tmp)
        for folder in fixture_folders():  # linked, not copied: read in place, as ~/.claude/projects
            (projects / folder.name).symlink_to(folder, target_is_directory=True)
        files = claude_code.discover(projects)
        transcripts = [claude_code.read_transcript(f.path, session_id=f.session_id) for f in files]
    jsonl = sum(f.size for f in files)
    texts: list[str] = []
    real = redact.redact

    def spy(text, *args, **kwargs):
        texts.append(text)
        return real(text, *args, **kwargs)

    redact.redact = spy
    t0 = time.perf_counter()
    for t in transcripts:
        redact.redact_transcript(t, ())
    first = time.perf_counter() - t0
    redact.redact = real
    scanned = sum(len(t.encode("utf-8", "surrogatepass")) for t in texts)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for t in transcripts:
            redact.redact_transcript(t, ())
        times.append(time.perf_counter() - t0)
    joined = "\n".join(texts)
    long_times = []
    for _ in range(max(3, runs // 2)):
        t0 = time.perf_counter()
        redact.find_secrets(joined)
        long_times.append(time.perf_counter() - t0)
    return {"files": len(files), "jsonl": jsonl, "scanned": scanned, "calls": len(texts), "first": first,
            "seconds": median(times), "long_bytes": len(joined.encode("utf-8", "surrogatepass")),
            "long_seconds": median(long_times)}


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--compare", type=Path, help="another memgit tree, measured in the same rounds")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.runs)))
        return
    if not CLAUDE_FIXTURES.is_dir():
        raise SystemExit(f"no fixtures at {CLAUDE_FIXTURES}")
    trees = {"this tree": ROOT} | ({"compared": args.compare.resolve()} if args.compare else {})
    rounds = 1 if args.quick else 3
    results: dict[str, list[dict]] = {name: [] for name in trees}
    for _ in range(rounds):
        for name, src in trees.items():
            out = subprocess.run([PYTHON, __file__, "--worker", str(src), "--runs", str(args.runs)],
                                 capture_output=True, text=True, check=True).stdout
            results[name].append(json.loads(out))
    for name, src in trees.items():
        rs = results[name]
        r = rs[0]
        seconds = median([x["seconds"] for x in rs])
        long_seconds = median([x["long_seconds"] for x in rs])
        print(f"{name} ({src}): {r['files']} transcripts, {r['jsonl'] / 1e6:.1f} MB of JSONL, "
              f"{r['calls']} texts redacted ({r['scanned'] / 1e6:.2f} MB)")
        print(f"  redact_transcript over all: {seconds * 1e3:.0f} ms = {r['jsonl'] / 1e6 / seconds:.0f} MB/s of JSONL, "
              f"{r['scanned'] / 1e6 / seconds:.1f} MB/s of text  (median of {rounds} x {args.runs}; "
              f"first use, rules loaded and compiled: {median([x['first'] for x in rs]) * 1e3:.0f} ms)")
        print(f"  the same texts as one string ({r['long_bytes'] / 1e6:.2f} MB): {long_seconds * 1e3:.0f} ms = "
              f"{r['long_bytes'] / 1e6 / long_seconds:.0f} MB/s")


if __name__ == "__main__":
    main()
