"""Reading a compressed Codex rollout (.jsonl.zst) against the same rollout uncompressed (target <= 2x).

One rollout of ~--mb MB is built from the real Codex fixtures (../shared/fixtures/transcripts/codex,
the schema-coverage file left out) written one after the other until the size is reached, or, when
they are absent, from generated records. It is compressed with zstandard at level 3 (Codex's
level), then codex.read_transcript reads each form in alternating rounds, in this process (imports
done beforehand). Also timed: decompression alone (stream_size) and an incremental read of the
second half from a decompressed-stream offset, which must decompress the first half to skip it.

    python bench/bench_zst.py [--quick] [--mb 20] [--runs 7]
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

from _common import ROOT, Rows, arg_parser, fmt_bytes, median, python_pass_ms

TARGET_RATIO = 2.0
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts" / "codex"
NAME = "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"


def rollout_bytes(mb: float) -> tuple[bytes, str]:
    """~`mb` MB of rollout lines: the real fixtures over and over, else generated records."""
    sources = sorted(p for p in FIXTURES.rglob("*.jsonl") if "agent-sessions" not in p.parts) if FIXTURES.is_dir() else []
    parts = [p.read_bytes() for p in sources] or [_generated()]
    out, size, i = [], 0, 0
    while size < mb * 1e6:
        out.append(parts[i % len(parts)])
        size += len(out[-1])
        i += 1
    what = f"{len(sources)} real Codex fixtures, {i} copies" if sources else "generated records"
    return b"".join(out), what


def _generated() -> bytes:
    lines = [{"timestamp": "2026-05-11T08:27:17.490Z", "type": "session_meta",
              "payload": {"id": NAME[-42:-6], "cwd": "/w", "cli_version": "0.125.0"}}]
    for i in range(200):
        lines.append({"timestamp": "t", "type": "event_msg", "payload": {"type": "user_message", "message": f"task {i}"}})
        lines.append({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call", "name": "exec_command", "call_id": f"c{i}", "arguments": json.dumps({"cmd": "pytest -q"})}})
        lines.append({"timestamp": "t", "type": "response_item", "payload": {
            "type": "function_call_output", "call_id": f"c{i}", "output": "line of test output\n" * 200}})
    return b"".join(json.dumps(r).encode() + b"\n" for r in lines)


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=float, default=20)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    try:
        import zstandard
    except ImportError:
        raise SystemExit("zstandard is not installed: pip install 'memgit[zstd]'")
    from memgit.sources import codex
    from memgit.sources.files import stream_size

    rows = Rows("zst")
    base = median(python_pass_ms(11))
    rows.baseline_ms = base
    print(f"python -c pass: {base:.1f} ms (median of 11)")
    mb = min(args.mb, 5) if args.quick else args.mb
    runs = 3 if args.quick else args.runs
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-zst-"))
    try:
        data, what = rollout_bytes(mb)
        plain, packed = tmp / NAME, tmp / (NAME + ".zst")
        plain.write_bytes(data)
        t0 = time.perf_counter()
        packed.write_bytes(zstandard.ZstdCompressor(level=3).compress(data))
        print(f"rollout: {fmt_bytes(len(data))} ({what}); .zst {fmt_bytes(packed.stat().st_size)} "
              f"({len(data) / packed.stat().st_size:.1f}x smaller, compressed in {time.perf_counter() - t0:.2f} s)")
        codex.read_transcript(plain), codex.read_transcript(packed)  # warm the page cache and the imports
        times: dict[str, list[float]] = {"plain": [], "zst": [], "decompress": [], "half plain": [], "half zst": []}
        half = data.index(b"\n", len(data) // 2) + 1
        for _ in range(runs):  # alternating rounds: the shared machine's drift hits both forms alike
            for label, call in (("plain", lambda: codex.read_transcript(plain)),
                                ("zst", lambda: codex.read_transcript(packed)),
                                ("decompress", lambda: stream_size(packed)),
                                ("half plain", lambda: codex.read_transcript(plain, start=half)),
                                ("half zst", lambda: codex.read_transcript(packed, start=half))):
                t0 = time.perf_counter()
                result = call()
                times[label].append(time.perf_counter() - t0)
                if label == "zst":
                    assert result.end == len(data), (result.end, len(data))
        t = codex.read_transcript(plain)
        print(f"  {t.records} records, {len(t.turns)} turns, {sum(len(x.tool_calls) for x in t.turns)} tool calls")
        for label, values in times.items():
            print(f"  {label:>10}: median {median(values) * 1e3:7.1f} ms  "
                  f"({len(data) / 1e6 / median(values):.0f} MB/s of plain bytes)  runs {[round(v * 1e3) for v in values]}")
        ratio = median(times["zst"]) / median(times["plain"])
        rows.add(".zst read / plain read, whole rollout", ratio, "x", TARGET_RATIO,
                 note=f"{fmt_bytes(len(data))}; plain {median(times['plain']) * 1e3:.0f} ms, "
                      f"zst {median(times['zst']) * 1e3:.0f} ms")
        rows.add(".zst read / plain read, second half from an offset",
                 median(times["half zst"]) / median(times["half plain"]), "x",
                 note="informative: the .zst must decompress the first half to skip it")
        rows.add("decompression alone", len(data) / 1e6 / median(times["decompress"]), "MB/s",
                 note="informative: stream_size")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
