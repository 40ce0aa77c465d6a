"""What memory holds after a sync of the labelled fixtures (../shared/eval): recall by type and by
agent, the must_not strings stored, learnings per session, note sizes, and what a session is told.

Lays the fixtures out as ../shared/eval/run.sh does (its layout scripts), runs this checkout's
`memgit sync --all` offline in a throw-away HOME, scores the repository with score.py (session scope
and all notes), then reads the repository: learnings per note, note sizes (p50, p95, max), and for
every project the injected context (`memgit context --cwd <its path>`) and its memory_summary.md.
"""

from __future__ import annotations

import json
import re
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, Rows, arg_parser, lay_out_eval, user_env

EVAL = ROOT.parent / "shared" / "eval"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"
CONTEXT_CHARS = 10_000  # DESIGN §5: the injected context
SUMMARY_CHARS = 9_000
NOTE_P95_BYTES = 6 * 1024
LEARNING = re.compile(r"^- \[(preference|convention|command|gotcha|decision|fact)\] ", re.M)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True).stdout


def memgit(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-m", "memgit.cli.commands", *args], env=env, capture_output=True, text=True)


def percentile(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    args = parser.parse_args()
    rows = Rows("eval")
    if not EVAL.is_dir():
        print(f"skipped: {EVAL} is not there")
        rows.write(args.rows)
        return
    tmp = Path(tempfile.mkdtemp(prefix="memgit-bench-eval-"))
    try:
        home, repo = tmp / "home", tmp / "mem"
        lay_out_eval(home, EVAL, FIXTURES)
        env = {**user_env(home), "MEMGIT_HOME": str(repo)}
        t0 = time.perf_counter()
        done = memgit(env, "sync", "--all", "--json")
        if done.returncode != 0:
            raise SystemExit(f"sync failed:\n{done.stderr[-2000:]}")
        synced = json.loads(done.stdout)
        print(f"sync --all: {time.perf_counter() - t0:.1f} s; read {synced['read']}, extracted {synced['extracted']}, "
              f"skipped {synced['skipped']}")

        out = tmp / "score.json"
        subprocess.run([PYTHON, str(EVAL / "score.py"), str(repo), "--scope", "session", "--json", str(out)],
                       check=True, capture_output=True)
        score = json.loads(out.read_text())
        print("\nrecall (session: the note written for the session holds the fact; all: anywhere in memory)")
        print(f"  {'':14} {'facts':>5} {'session':>8} {'all':>6}")
        for group in ("by_source", "by_type"):
            for name, f in score[group].items():
                print(f"  {name:14} {f['facts']:>5} {f['found_session'] / f['facts']:>8.2f} "
                      f"{f['found_all'] / f['facts']:>6.2f}")
        claude = score["by_source"]["claude-code"]
        rows.add("eval recall, Claude Code sessions, session scope", claude["found_session"] / claude["facts"], "",
                 0.6, higher_is_better=True, note=f"{claude['found_session']}/{claude['facts']} facts; aim 0.75")
        for kind, f in score["by_type"].items():
            rows.add(f"eval recall, {kind} (all agents, session scope)", f["found_session"] / f["facts"], "",
                     note=f"{f['found_session']}/{f['facts']}")
        totals = score["totals"]
        rows.add("eval recall, all agents, session scope", totals["found_session"] / totals["facts"], "",
                 note="Codex and Gemini CLI are not read yet (issue 10)")
        hits = totals["must_not_hits_all"]
        rows.add("must_not strings stored (all notes; must be 0)", hits, "", note="OK" if hits == 0 else "MISSED")

        learnings, sizes = [], []
        summaries, contexts = {}, {}
        for branch in git(repo, "branch", "--format=%(refname:short)").split():
            for path in git(repo, "ls-tree", "-r", "--name-only", branch, "sessions").split():
                text = git(repo, "show", f"{branch}:{path}")
                learnings.append(len(LEARNING.findall(text)))
                sizes.append(len(text.encode()))
            if "memory_summary.md" not in git(repo, "ls-tree", "--name-only", branch):
                continue  # a project whose sessions all were skips: nothing to consolidate
            summaries[branch] = len(git(repo, "show", f"{branch}:memory_summary.md"))
            if branch.startswith("projects/"):
                project = git(repo, "show", f"{branch}:PROJECT.md")
                where = re.search(r"^paths:\s*\n\s*-\s*(.+)$|^paths: \[(.+?)[,\]]", project, re.M)
                cwd = (where.group(1) or where.group(2)).strip().strip("'\"") if where else None
                if cwd:
                    shown = memgit(env, "context", "--cwd", cwd, "--json")
                    if shown.returncode == 0:
                        contexts[branch] = json.loads(shown.stdout)["chars"]
        print(f"\nnotes: {len(sizes)}; learnings per note: median {statistics.median(learnings):.0f}, "
              f"min {min(learnings)}, max {max(learnings)}, total {sum(learnings)}")
        print(f"note size (bytes): p50 {percentile(sizes, 0.5)}, p95 {percentile(sizes, 0.95)}, max {max(sizes)}")
        rows.add("learnings per session note (median)", statistics.median(learnings), "",
                 note=f"min {min(learnings)}, max {max(learnings)}, {len(sizes)} notes")
        rows.add("session note size, p95", percentile(sizes, 0.95), "bytes", NOTE_P95_BYTES,
                 note=f"p50 {percentile(sizes, 0.5)}, max {max(sizes)}")
        print("memory_summary.md (characters): " + ", ".join(f"{b} {n}" for b, n in sorted(summaries.items())))
        print("injected context (characters): " + ", ".join(f"{b} {n}" for b, n in sorted(contexts.items())))
        rows.add("memory_summary.md, largest", max(summaries.values()), "characters", SUMMARY_CHARS)
        if contexts:
            rows.add("injected context at session start, largest project", max(contexts.values()), "characters",
                     CONTEXT_CHARS, note=f"median {statistics.median(contexts.values()):.0f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
