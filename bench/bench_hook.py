"""`memgit hook session-start`, repository of 10,000 notes and 10,000 commits (DESIGN §8: p50 <= 2x `python -c pass`).

What Claude Code runs: the command `memgit install` writes (memgit.verbs.install.memgit_command of the tree
measured: this interpreter running memgit's hook launcher, memgit/hook/memgit, with -S), and the console script (a file like the one pip writes: `import re`,
then `from memgit.entry import main`) that older installs and the plugin run, with the hook's JSON
on stdin, as a fresh subprocess, in a subfolder of a git
project whose origin is the bench project's remote, with HOME and XDG_* pointing at a temporary
home. The project's transcript folder holds 200 sessions (outside the age window, so none is
waiting and no background sync starts, but each is looked at).

- warm: the context cache is in place, as every sync leaves it; rounds interleave
  `python -c pass`, the launcher, the console script and `python -m memgit.entry`, so the medians
  see the same machine noise;
- cold: the cache deleted before each run: the hook renders from the object store (dulwich), once
  with consolidated summaries and once without (the digest of the project's newest notes).

    python bench/bench_hook.py [--quick] [--notes 10000] [--commits 10000] [--runs 30]
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from _common import PYTHON, SRC, Rows, arg_parser, bench_project, median, p90, user_env
from generate import make_note_repo

RATIO_TARGET = 2.0  # DESIGN §8, issue 20
LAUNCHER = SRC / "memgit" / "hook" / "memgit"  # what the hook commands `memgit install` writes run
# What pip writes for `memgit = "memgit.entry:main"`.
CONSOLE_SCRIPT = """import re
import sys
from memgit.entry import main
if __name__ == "__main__":
    sys.argv[0] = re.sub(r"(-script\\.pyw|\\.exe)?$", "", sys.argv[0])
    sys.exit(main())
"""


def installed(event: str, env: dict) -> list[str] | None:
    """The hook command `memgit install` writes for `event` in the tree measured (its memgit_command); None for
    a tree from before the launcher (it installed the console script)."""
    if not LAUNCHER.is_file():
        return None
    done = subprocess.run([PYTHON, "-c", "from memgit.verbs.install import memgit_command; print(memgit_command())"],
                          env=env, cwd=SRC, capture_output=True, text=True, check=True)  # SRC's memgit, not the cwd's
    return shlex.split(done.stdout.strip()) + ["hook", event]


def timed(cmd: list[str], *, stdin: bytes, env: dict, cwd: Path) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, input=stdin, env=env, cwd=cwd, capture_output=True)
    elapsed = (time.perf_counter() - t0) * 1e3
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    return elapsed, done.stdout


def checked(stdout: bytes) -> str:
    """The additionalContext of a valid SessionStart answer that found the project."""
    answer = json.loads(stdout)
    text = answer["hookSpecificOutput"]["additionalContext"]
    if "## Project bench" not in text or len(text) >= 10_000:
        raise SystemExit(f"unexpected context ({len(text)} chars):\n{text[:2000]}")
    return text


def summarise(memory: Path) -> None:
    """Commit consolidated summaries, as `memgit consolidate` would leave them."""
    from memgit.store.repo import MemoryRepo

    bullets = "\n".join(f"- [convention] bench convention {i}: always run `make check-{i}` before a push "
                        f"(3 sessions, strong)" for i in range(90))
    with MemoryRepo.open(memory) as repo:
        repo.commit("projects/bench", {"memory_summary.md": f"# bench\n\n## Key learnings\n{bullets}\n".encode()},
                    "consolidate(bench): bench summary\n")
        repo.commit("main", {"memory_summary.md": f"# Across projects\n\n{bullets[:3000]}\n".encode()},
                    "consolidate(main): bench summary\n")


def write_sessions(folder: Path, n: int) -> None:
    from memgit.sources.claude_code.synthetic import SessionWriter, session_id

    folder.mkdir(parents=True, exist_ok=True)
    then = time.time() - 40 * 86400  # outside the 30-day window: looked at, never waiting
    for i in range(n):
        w = SessionWriter(session_id(f"bench-hook-{i}"), "/home/u/dev/bench").user("Fix the build.").assistant("Done.")
        path = w.write(folder.parent)
        os.utime(path, (then, then))


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    runs, cold_runs = (10, 3) if args.quick else (max(args.runs, 20), 7)
    notes, commits = (2_000, 2_000) if args.quick and args.notes == 10_000 else (args.notes, args.commits)
    rows = Rows("hook")
    home = Path(tempfile.mkdtemp(prefix="memgit-bench-hook-"))
    try:
        env = user_env(home)
        memory = home / ".local" / "share" / "memgit"
        t0 = time.perf_counter()
        make_note_repo(memory, notes=notes, commits=commits, slug="bench")
        print(f"generated a memory repo of {notes} notes and {commits} commits in {time.perf_counter() - t0:.1f} s")
        project = bench_project(home, env)
        cwd = project / "src" / "app"
        cwd.mkdir(parents=True)
        from memgit.sources.claude_code.synthetic import encode_project_dir

        folder = home / ".claude" / "projects" / encode_project_dir(str(project))
        write_sessions(folder, 200)
        script = home / "bin" / "memgit"
        script.parent.mkdir()
        script.write_text(CONSOLE_SCRIPT)
        stdin = json.dumps({"session_id": "0b1d2c3e-0000-4000-8000-000000000001",
                            "transcript_path": str(folder / "0b1d2c3e-0000-4000-8000-000000000001.jsonl"),
                            "cwd": str(cwd), "hook_event_name": "SessionStart", "source": "startup"}).encode()
        hook_script = [PYTHON, str(script), "hook", "session-start"]
        # As installed: the launcher; a tree from before it (MEMGIT_BENCH_SRC) installed the console script.
        hook = installed("session-start", env) or hook_script
        print("as installed: " + " ".join(hook))
        hook_m = [PYTHON, "-m", "memgit.entry", "hook", "session-start"]
        cache = memory / ".git" / "memgit" / "context"

        def cold(label: str) -> float:
            times = []
            for _ in range(cold_runs):
                shutil.rmtree(cache, ignore_errors=True)
                elapsed, out = timed(hook, stdin=stdin, env=env, cwd=cwd)
                checked(out)
                times.append(elapsed)
            print(f"  cold, {label}: median of {cold_runs} {median(times):.0f} ms")
            return median(times)

        timed(hook, stdin=stdin, env=env, cwd=cwd)  # compile the bytecode once
        print("session-start with no context cache (rendered from the object store):")
        cold_digest = cold("no summary yet (digest of the newest notes)")
        summarise(memory)
        cold_summary = cold("consolidated summaries")
        text = checked(timed(hook, stdin=stdin, env=env, cwd=cwd)[1])  # warms the cache
        for cmd in ([PYTHON, "-c", "pass"], hook, hook_script, hook_m):
            timed(cmd, stdin=stdin, env=env, cwd=cwd)
        passes, hooks, scripts, hooks_m = [], [], [], []
        for _ in range(runs):
            passes.append(timed([PYTHON, "-c", "pass"], stdin=b"", env=env, cwd=cwd)[0])
            elapsed, out = timed(hook, stdin=stdin, env=env, cwd=cwd)
            if out.decode() != json.dumps({"hookSpecificOutput": {"hookEventName": "SessionStart",
                                                                  "additionalContext": text}}) + "\n":
                raise SystemExit("the warm hook answered differently from the cold one")
            hooks.append(elapsed)
            scripts.append(timed(hook_script, stdin=stdin, env=env, cwd=cwd)[0])
            hooks_m.append(timed(hook_m, stdin=stdin, env=env, cwd=cwd)[0])
        if any(cache.parent.glob("hook-sync.log")):
            raise SystemExit("a background sync was started: the timings are not of the hook alone")
        base = median(passes)
        rows.baseline_ms = base
        ratio = median(hooks) / base
        print(f"{runs} rounds, context of {len(text):,} characters:")
        print(f"  python -c pass                   median {base:6.1f} ms  p90 {p90(passes):6.1f} ms")
        print(f"  session-start, as installed (warm) median {median(hooks):6.1f} ms  p90 {p90(hooks):6.1f} ms  "
              f"({ratio:.2f}x pass)")
        print(f"  the console script (warm)        median {median(scripts):6.1f} ms  p90 {p90(scripts):6.1f} ms  "
              f"({median(scripts) / base:.2f}x pass)")
        print(f"  python -m memgit.entry (warm)    median {median(hooks_m):6.1f} ms  p90 {p90(hooks_m):6.1f} ms  "
              f"({median(hooks_m) / base:.2f}x pass)")
        print(f"  cold: {cold_summary:.0f} ms with summaries ({cold_summary / base:.1f}x), "
              f"{cold_digest:.0f} ms with the notes digest ({cold_digest / base:.1f}x)")
        rows.add(f"hook session-start, {notes} notes / {commits} commits, warm (p50, x python -c pass)",
                 ratio, "x", RATIO_TARGET,
                 note=f"{median(hooks):.1f} ms vs {base:.1f} ms; p90 {p90(hooks):.1f} ms; "
                      f"console script {median(scripts) / base:.2f}x; cold {cold_summary:.0f} ms")
    finally:
        shutil.rmtree(home, ignore_errors=True)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
