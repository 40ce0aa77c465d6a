"""Recall of the offline extractor on the labelled Codex and Gemini CLI sessions (../shared/eval).

Sync does not read these agents yet, so this reads every Codex rollout and Gemini CLI session of
../shared/fixtures/transcripts with its own reader (the files layout_agents.py would lay out), and
does what sync does with a session: read with redaction, redact the transcript, run the heuristic
extractor, redact the note, render it and write it where sync would (`notes.note_path`). Then it
scores the folder with score.py (session scope) and prints recall by agent and by type, the
must_not strings stored and the note sizes. `--keep DIR` leaves the notes there; `-v` passes
score.py's per-fact detail through.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import PYTHON, ROOT, Rows, arg_parser

EVAL = ROOT.parent / "shared" / "eval"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"
NOTE_P95_BYTES = 6 * 1024
TARGET = 0.6  # issue 10: Codex and Gemini CLI sessions together


def sessions() -> list[tuple[str, Path]]:
    """(agent, path) of the fixtures layout_agents.py lays out: rollouts with a session_meta head,
    Gemini documents with sessionId and projectHash."""
    found = []
    for path in sorted((FIXTURES / "codex").rglob("*.jsonl")):
        with open(path, encoding="utf-8", errors="replace") as f:
            try:
                first = json.loads(f.readline())
            except ValueError:
                continue
        if isinstance(first, dict) and first.get("type") == "session_meta":
            found.append(("codex", path))
    for path in sorted((FIXTURES / "gemini").rglob("*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(doc, dict) and "sessionId" in doc and "projectHash" in doc:
            found.append(("gemini", path))
    return found


def write_notes(out: Path) -> dict[str, list[int]]:
    """Extract a note per session into `out`; returns the note sizes (bytes) per agent."""
    from memgit import notes
    from memgit.extract.heuristic import extract
    from memgit.core.redact import redact, redact_note, redact_transcript
    from memgit.sources import codex, gemini

    readers = {"codex": codex.read_transcript, "gemini": gemini.read_transcript}
    sizes: dict[str, list[int]] = {"codex": [], "gemini": []}
    for agent, path in sessions():
        t = readers[agent](path, clean=lambda text: redact(text, ()))
        t = redact_transcript(t, ())
        project = Path(t.cwd).name if t.cwd else "main"  # sync: the scope's slug; a label only
        done = extract(t, project=project)
        if done.note is None:
            print(f"  {agent:6} {t.session_id[:8]} skip: {done.reason}")
            continue
        note = redact_note(done.note, ())
        text = notes.render_note(note)
        target = out / agent / notes.note_path(note, "1970-01-01")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        size = len(text.encode())
        sizes[agent].append(size)
        print(f"  {agent:6} {t.session_id[:8]} {len(note.learnings):2} learnings, {size:5} bytes  {note.title[:60]}")
    return sizes


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="score.py's per-fact detail")
    parser.add_argument("--keep", metavar="DIR", help="write the notes into DIR and keep them")
    args = parser.parse_args()
    rows = Rows("agents_recall")
    if not (EVAL.is_dir() and FIXTURES.is_dir()):
        print(f"skipped: {EVAL} or {FIXTURES} is not there")
        rows.write(args.rows)
        return
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-agents-"))
    out = Path(args.keep) if args.keep else tmp / "notes"
    try:
        if out.exists():
            shutil.rmtree(out)
        out.mkdir(parents=True)
        sizes = write_notes(out)
        report = tmp / "score.json"
        scored = subprocess.run([PYTHON, str(EVAL / "score.py"), str(out), "--scope", "session", "--json",
                                 str(report), *(["-v"] if args.verbose else [])],
                                capture_output=True, text=True, check=True)
        if args.verbose:
            print(scored.stdout)
        score = json.loads(report.read_text())
        agents = [r for r in score["sessions"] if r["source"] in ("codex", "gemini-cli")]
        print("\nrecall, session scope (the note written for the session holds the fact)")
        combined = [0, 0]
        for source in ("codex", "gemini-cli"):
            f = score["by_source"][source]
            combined[0] += f["facts"]
            combined[1] += f["found_session"]
            rows.add(f"recall, {source} sessions", f["found_session"] / f["facts"], "",
                     note=f"{f['found_session']}/{f['facts']} facts")
        rows.add("recall, Codex and Gemini CLI together", combined[1] / combined[0], "", TARGET,
                 higher_is_better=True, note=f"{combined[1]}/{combined[0]} facts")
        by_type: dict[str, list[int]] = {}
        for r in agents:
            for x in r["facts"]:
                row = by_type.setdefault(x["type"], [0, 0])
                row[0] += 1
                row[1] += x["session"]
        for kind, (n, found) in sorted(by_type.items()):
            print(f"  {kind:12} {found:>3}/{n:<3} {found / n:.2f}")
        hits = sum(len(r["must_not_hits_all"]) for r in agents)
        for r in agents:
            for h in r["must_not_hits_all"]:
                print(f"  must_not {h['string']!r} stored in {', '.join(h['files'])}")
        rows.add("must_not strings stored (must be 0)", hits, "", note="OK" if hits == 0 else "MISSED")
        every = sizes["codex"] + sizes["gemini"]
        for agent, values in sizes.items():
            if values:
                print(f"  {agent} notes: {len(values)}, bytes p50 {percentile(values, 0.5)}, max {max(values)}")
        if every:
            rows.add("session note size, p95", percentile(every, 0.95), "bytes", NOTE_P95_BYTES,
                     note=f"{len(every)} notes, max {max(every)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
