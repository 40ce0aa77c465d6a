"""What a new session is told on one project at scale (../shared/fixtures/scale: 82 real Claude Code
sessions of cc-backend), and what its notes hold.

Lays `../shared/fixtures/scale/cc-backend/claude` out as `~/.claude/projects` in a throw-away HOME (idle
for three hours), runs this checkout's `memgit sync --all` offline, then `../shared/eval/hooks_score.py`
with the scale labels (briefing_standing, briefing_not, related, unrelated_quiet, the largest briefing)
and `score.py`'s recall of the notes. `--keep DIR` keeps the home and the repository; `-v` passes
hooks_score's detail through; `--briefing` prints the briefing of the main checkout.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, SRC, Rows, arg_parser, user_env

EVAL = ROOT.parent / "shared" / "eval"
SCALE = ROOT.parent / "shared" / "fixtures" / "scale"
MAIN_CHECKOUT = "/Users/jan/prg/ClusterCockpit/cc-backend"
HOOKS_LINE = re.compile(r"briefing_standing=(?P<standing>[\d.]+) \((?P<sk>\d+)/(?P<sn>\d+)\) briefing_not=(?P<bnot>\d+) "
                        r"related=(?P<related>[\d.]+) \((?P<rk>\d+)/(?P<rn>\d+)\) "
                        r"unrelated_quiet=(?P<quiet>\d+)/(?P<qn>\d+) briefing_chars=(?P<chars>\d+)")


def lay_out_scale(home: Path) -> int:
    """Copy the scale corpus into `home/.claude/projects`, idle for three hours; return its bytes."""
    import os

    projects = home / ".claude" / "projects"
    shutil.copytree(SCALE / "cc-backend" / "claude", projects)
    old = time.time() - 3 * 3600
    size = 0
    for path in projects.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))
            size += path.stat().st_size
    return size


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--keep", metavar="DIR", help="keep the home and repository in DIR")
    parser.add_argument("-v", "--verbose", action="store_true", help="hooks_score's per-item detail")
    parser.add_argument("--briefing", action="store_true", help="print the main checkout's briefing")
    args = parser.parse_args()
    rows = Rows("scale")
    if not (SCALE / "cc-backend").is_dir() or not (EVAL / "scale_labels.json").is_file():
        print(f"skipped: {SCALE} or {EVAL}/scale_labels.json is not there")
        rows.write(args.rows)
        return
    tmp = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memgit-bench-scale-"))
    if args.keep and tmp.exists():
        shutil.rmtree(tmp)
    try:
        home, repo = tmp / "home", tmp / "mem"
        size = lay_out_scale(home)
        env = {**user_env(home), "MEMGIT_HOME": str(repo)}
        memgit = [PYTHON, "-m", "memgit.cli.commands"]  # run from tmp: `-m` puts the cwd first on sys.path
        t0 = time.perf_counter()
        done = subprocess.run([*memgit, "sync", "--all", "--json"], env=env, capture_output=True, text=True, cwd=tmp)
        if done.returncode != 0:
            raise SystemExit(f"sync failed:\n{done.stderr[-2000:]}")
        seconds = time.perf_counter() - t0
        synced = json.loads(done.stdout)
        print(f"sync --all: {seconds:.1f} s ({size / 1e6 / seconds:.1f} MB/s); read {synced['read']}, "
              f"extracted {synced['extracted']}, skipped {synced['skipped']}")
        branches = subprocess.run(["git", "-C", str(repo), "branch", "--format=%(refname:short)"],
                                  capture_output=True, text=True, check=True).stdout.split()
        print("branches: " + ", ".join(branches))
        rows.add("project branches for cc-backend's five paths", sum(b.startswith("projects/") for b in branches), "",
                 1)

        hooks = subprocess.run(
            [PYTHON, str(EVAL / "hooks_score.py"), str(repo), "--memgit", f"{PYTHON} -m memgit.cli.commands",
             "--labels", str(EVAL / "scale_labels.json"), "--prompts", str(EVAL / "scale_prompts.json"),
             "--briefing-labels", str(EVAL / "scale_briefing_labels.json"), "--corpus", str(SCALE)]
            + (["-v"] if args.verbose else []),
            env={**env, "PYTHONPATH": str(SRC)}, capture_output=True, text=True, check=True, cwd=tmp)
        print(hooks.stdout, end="")
        figures = HOOKS_LINE.search(hooks.stdout)
        if figures is None:
            raise SystemExit(f"hooks_score printed no figures:\n{hooks.stdout[-2000:]}{hooks.stderr[-2000:]}")
        f = {k: float(v) for k, v in figures.groupdict().items()}
        rows.add("scale briefing_standing", f["standing"], "", 0.7, higher_is_better=True,
                 note=f"{f['sk']:.0f}/{f['sn']:.0f}")
        rows.add("scale briefing_not (never-tell strings told)", f["bnot"], "", 0)
        rows.add("scale related prompts answered with their session", f["related"], "", 0.6, higher_is_better=True,
                 note=f"{f['rk']:.0f}/{f['rn']:.0f}")
        rows.add("scale unrelated prompts left quiet", f["quiet"], "", 24, higher_is_better=True,
                 note=f"of {f['qn']:.0f}")
        rows.add("scale largest briefing", f["chars"], "characters", 6000)

        score = subprocess.run([PYTHON, str(EVAL / "score.py"), str(repo), str(EVAL / "scale_labels.json")],
                               capture_output=True, text=True, check=True)
        last = score.stdout.strip().splitlines()[-1]
        print(last)
        recall = re.search(r"recall=([\d.]+)", last)
        if recall:
            rows.add("scale recall of the notes", float(recall.group(1)), "", note=last)
        if args.briefing:
            payload = json.dumps({"session_id": "bench", "cwd": MAIN_CHECKOUT, "source": "startup",
                                  "hook_event_name": "SessionStart"})
            out = subprocess.run([*memgit, "hook", "session-start"], input=payload, env=env,
                                 capture_output=True, text=True, cwd=tmp).stdout
            print("\n" + json.loads(out)["hookSpecificOutput"]["additionalContext"] if out.strip() else "(no briefing)")
    finally:
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
