"""Peak memory reading a 50 MB transcript (DESIGN §8: <= 200 MB).

A fresh subprocess imports memgit.sources.claude_code.reader, notes its peak RSS (VmHWM in
/proc/self/status: the baseline), reads the generated transcript with claude_code.read_transcript
and notes VmHWM again. The figure is the peak after reading (the whole process: interpreter,
imports, the Transcript it returns); the growth over the baseline is printed beside it, with the
VmHWM of a bare `python -c pass` for scale.

    python bench/bench_memory.py [--quick] [--mb 50]
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, SRC, Rows, arg_parser, median, python_pass_ms
from generate import write_big_transcript

TARGET_MB = 200
HWM = "int(next(l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:'))) / 1024"
CHILD = f"""
import json, sys, time
sys.path.insert(0, {str(SRC)!r})
from memgit.sources import claude_code
base = {HWM}
t0 = time.perf_counter()
t = claude_code.read_transcript(sys.argv[1])
seconds = time.perf_counter() - t0
peak = {HWM}
if sys.argv[2:] == ["pipeline"]:  # what sync does next with it: redact, then extract
    from memgit.core.redact import redact_transcript
    from memgit.extract import heuristic
    heuristic.extract(redact_transcript(t, ()), project="bench")
print(json.dumps({{"base": base, "peak": peak, "pipeline": {HWM}, "seconds": seconds, "turns": len(t.turns),
                  "records": t.records, "calls": sum(len(x.tool_calls) for x in t.turns)}}))
"""


def read_in_child(path: Path, *extra: str) -> dict:
    out = subprocess.run([PYTHON, "-c", CHILD, str(path), *extra], capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=50)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rows = Rows("memory")
    base = median(python_pass_ms(11))
    rows.baseline_ms = base
    bare = subprocess.run([PYTHON, "-c", f"print({HWM})"], capture_output=True, text=True, check=True).stdout
    print(f"python -c pass: {base:.1f} ms (median of 11), VmHWM {float(bare):.1f} MB")
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-memory-"))
    try:
        path = tmp / "big.jsonl"
        t0 = time.perf_counter()
        size = write_big_transcript(path, args.mb)
        print(f"generated one session of {size / 1e6:.1f} MB in {time.perf_counter() - t0:.1f} s")
        results = [read_in_child(path) for _ in range(1 if args.quick else args.runs)]
        for r in results:
            print(f"  VmHWM after import {r['base']:.1f} MB, after read_transcript {r['peak']:.1f} MB "
                  f"(+{r['peak'] - r['base']:.1f} MB); read in {r['seconds']:.2f} s = "
                  f"{size / 1e6 / r['seconds']:.0f} MB/s; {r['records']} records, {r['turns']} turns, "
                  f"{r['calls']} tool calls")
        peak = median([r["peak"] for r in results])
        rows.add(f"peak RSS reading a {size / 1e6:.0f} MB transcript", peak, "MB", TARGET_MB,
                 note=f"baseline after import {median([r['base'] for r in results]):.0f} MB; "
                      f"bare python {float(bare):.0f} MB")
        pipeline = read_in_child(path, "pipeline")
        print(f"  the same, then redacted and extracted as sync does: VmHWM {pipeline['pipeline']:.1f} MB")
        rows.add("peak RSS, 50 MB transcript read + redacted + extracted", pipeline["pipeline"], "MB",
                 note="informative: the whole per-session pipeline before the commit")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
