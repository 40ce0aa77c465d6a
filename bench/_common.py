"""What every benchmark needs: the `python -c pass` baseline, a hermetic environment, statistics, rows."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# The memgit sources to measure: this checkout, or another tree (a patched copy) to compare.
SRC = Path(os.environ.get("MEMGIT_BENCH_SRC") or ROOT).resolve()
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

PYTHON = sys.executable
CLAUDE_FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts" / "claude"


def median(values: list[float]) -> float:
    return statistics.median(values)


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def user_env(home: Path) -> dict[str, str]:
    """The environment of a user whose HOME is `home`: memgit, Claude and git variables scrubbed."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "MEMGIT_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_")) and k != "PYTHONDONTWRITEBYTECODE"}
    # An installed memgit has its .pyc files; a checkout run with PYTHONDONTWRITEBYTECODE=1 would
    # compile every module on every start. Cache bytecode under the temp home, not in the tree.
    env.update(
        PYTHONPYCACHEPREFIX=str(home / ".cache" / "pycache"),
        HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"),
        GIT_CONFIG_NOSYSTEM="1", PYTHONPATH=str(SRC), LITELLM_LOCAL_MODEL_COST_MAP="True",
    )
    return env


def wall_ms(cmd: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> float:
    """Run a command to completion; return its wall time in milliseconds (fails loudly on error)."""
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - t0) * 1e3
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr.decode()[-2000:]}")
    return elapsed


def python_pass_ms(runs: int = 15, env: dict[str, str] | None = None) -> list[float]:
    """Wall times of `python -c pass`: the machine's scale for everything else."""
    return [wall_ms([PYTHON, "-c", "pass"], env=env) for _ in range(runs)]


def fmt_bytes(n: float) -> str:
    return f"{n / 1e6:.1f} MB"


class FsyncMeter:
    """Count the os.fsync calls made in this process and the time they take: the disk's share.

    On a disk shared with other work an fsync costs from 0.1 ms to tens of ms; the figures that
    include commits are read with this share beside them.
    """

    def __init__(self):
        self.calls, self.seconds = 0, 0.0
        self._real = os.fsync

    def _fsync(self, fd) -> None:
        t0 = time.perf_counter()
        try:
            self._real(fd)
        finally:
            self.calls += 1
            self.seconds += time.perf_counter() - t0

    def __enter__(self) -> FsyncMeter:
        os.fsync = self._fsync
        return self

    def __exit__(self, *exc) -> None:
        os.fsync = self._real


class Spy:
    """Time the calls of named functions while a block runs: {label: "module:attr.path"}.

    A name that does not exist (the code moved on) is skipped and reported as absent, so a
    benchmark keeps running while the project changes under it. Nested calls count once.
    `clock=time.process_time` counts the process's CPU time instead of wall time.
    """

    def __init__(self, targets: dict[str, str], *, clock=time.perf_counter):
        self.targets = targets
        self.clock = clock
        self.seconds = {label: 0.0 for label in targets}
        self.calls = {label: 0 for label in targets}
        self.absent: list[str] = []
        self._undo: list[tuple[object, str, object]] = []

    def __enter__(self) -> Spy:
        import importlib

        for label, target in self.targets.items():
            module_name, _, path = target.partition(":")
            try:
                owner = importlib.import_module(module_name)
                *parents, name = path.split(".")
                for part in parents:
                    owner = getattr(owner, part)
                real = getattr(owner, name)
            except (ImportError, AttributeError):
                self.absent.append(label)
                continue
            setattr(owner, name, self._wrap(label, real))
            self._undo.append((owner, name, real))
        return self

    def _wrap(self, label: str, real):
        depth = [0]

        clock = self.clock

        def timed(*args, **kwargs):
            depth[0] += 1
            t0 = clock()
            try:
                return real(*args, **kwargs)
            finally:
                depth[0] -= 1
                if depth[0] == 0:
                    self.seconds[label] += clock() - t0
                    self.calls[label] += 1

        return timed

    def __exit__(self, *exc) -> None:
        for owner, name, real in reversed(self._undo):
            setattr(owner, name, real)


class Rows:
    """The figures a benchmark reports: printed as it goes, written as JSON for run_all."""

    def __init__(self, name: str):
        self.name = name
        self.rows: list[dict] = []
        self.baseline_ms: float | None = None

    def add(self, what: str, value: float, unit: str, target: float | None = None, *,
            higher_is_better: bool = False, note: str = "") -> None:
        """Record one figure; `target` is the DESIGN §8 bound (None: informative only)."""
        ok = None
        if target is not None:
            ok = value >= target if higher_is_better else value <= target
        bound = "" if target is None else f"{'>=' if higher_is_better else '<='} {target:g} {unit}"
        self.rows.append({"what": what, "value": value, "unit": unit, "target": bound, "ok": ok,
                          "ratio": None if not target else value / target, "note": note})
        verdict = "" if ok is None else ("  OK" if ok else "  MISSED")
        print(f"  => {what}: {value:.4g} {unit}" + (f"  (target {bound}, {value / target:.2f}x)" if target else f"  (target {bound})" if bound else "")
              + (f"  [{note}]" if note else "") + verdict, flush=True)

    def write(self, path: str | None) -> None:
        if path:
            Path(path).write_text(json.dumps({"name": self.name, "baseline_ms": self.baseline_ms,
                                              "rows": self.rows}))


def bench_project(home: Path, env: dict[str, str]) -> Path:
    """~/dev/bench: a git repository whose origin is github.com/acme/bench, the bench repo's project."""
    import subprocess

    project = home / "dev" / "bench"
    project.mkdir(parents=True, exist_ok=True)
    git_env = {**env, "GIT_CONFIG_GLOBAL": str(home / ".gitconfig")}
    subprocess.run(["git", "init", "-q", str(project)], check=True, env=git_env)
    subprocess.run(["git", "-C", str(project), "remote", "add", "origin", "https://github.com/acme/bench.git"],
                   check=True, env=git_env)
    return project


def lay_out_eval(home: Path, eval_dir: Path, fixtures: Path) -> None:
    """Lay the shared fixtures out in `home` as each agent would (../shared/eval's own scripts), idle
    for three hours so a sync reads them all."""
    import os
    import subprocess
    import time

    (home / ".claude").mkdir(parents=True)
    subprocess.run([PYTHON, str(eval_dir / "layout_claude.py"), str(fixtures / "claude"),
                    str(home / ".claude" / "projects")], check=True, capture_output=True)
    subprocess.run([PYTHON, str(eval_dir / "layout_agents.py"), str(fixtures), str(home)], check=True,
                   capture_output=True)
    old = time.time() - 3 * 3600
    for path in home.rglob("*"):
        if path.is_file():
            os.utime(path, (old, old))


def arg_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="fewer runs and smaller data (a rough figure)")
    parser.add_argument("--rows", metavar="FILE", help=argparse.SUPPRESS)  # run_all collects figures here
    return parser
