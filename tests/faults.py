"""Real faults for the real CLI: a subprocess without root's bypass of file permissions, a file size
limit, a private tmpfs that fills up or turns read-only. Nothing of memgit is replaced.

Tests run as root here, and root reads a chmod 000 file. `unprivileged()` gives a child process
root's uid without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (dropped from its capability
bounding set before exec, so the new program never has them): permission bits then bind it as
they bind any user. As an ordinary user the bits bind already and nothing is dropped.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PR_CAPBSET_DROP = 24
CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 1, 2


def memgit_env(home: Path, **extra: str) -> dict:
    """The environment of a memgit run in `home`: HOME and XDG_* there, git and memgit variables scrubbed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "MEMGIT_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_"))}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / ".local" / "share"),
               XDG_CONFIG_HOME=str(home / ".config"), GIT_CONFIG_NOSYSTEM="1", PYTHONPATH=str(ROOT))
    env.update(extra)
    return env


def memgit(home: Path, *args: str, preexec=None, env: dict | None = None, timeout: float = 120):
    """Run `python -m memgit.cli.commands ARGS` in a child process; return the CompletedProcess (text)."""
    return subprocess.run([sys.executable, "-m", "memgit.cli.commands", *args], env=env or memgit_env(home),
                          capture_output=True, text=True, timeout=timeout, preexec_fn=preexec, cwd=home)


def _drop_dac() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for cap in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


@functools.cache
def unprivileged():
    """A preexec_fn under which permission bits bind the child; None when they already do.

    Raises:
        RuntimeError: running as root and the capabilities cannot be dropped (the caller skips).
    """
    if os.geteuid() != 0:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        locked = Path(tmp, "locked")
        locked.write_text("x")
        locked.chmod(0)
        try:
            probe = subprocess.run([sys.executable, "-c", "import sys; open(sys.argv[1]).read()", str(locked)],
                                   capture_output=True, text=True, preexec_fn=_drop_dac)
        except (OSError, subprocess.SubprocessError) as e:
            raise RuntimeError(f"cannot drop CAP_DAC_OVERRIDE as root: {e}") from e
    if "PermissionError" not in probe.stderr:
        raise RuntimeError(f"root still reads a chmod 000 file without CAP_DAC_OVERRIDE: {probe.stderr[-200:]}")
    return _drop_dac


def file_size_limit(limit: int):
    """A preexec_fn that caps the size of any file the child writes (writes past it fail with EFBIG)."""
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel kills the writer instead of failing the write
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


@functools.cache
def private_mounts() -> str | None:
    """Why a private mount namespace (tmpfs, read-only remounts) is unavailable; None when it works."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "no unshare(1) on PATH"
    probe = subprocess.run([unshare, "-m", "sh", "-c", "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d "
                            "&& umount $d && rmdir $d"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"cannot mount a tmpfs in a private mount namespace: {probe.stderr.strip()[:200]}"
    return None


def in_private_mounts(script: str, *args: str, env: dict, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run a Python script in a private mount namespace (its mounts vanish with it)."""
    return subprocess.run(["unshare", "-m", sys.executable, "-c", script, *args], env=env, capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def assert_one_error_line(result, *needles: str) -> str:
    """The run failed cleanly: non-zero exit, no traceback, one `Error: ...` line naming the cause."""
    assert result.returncode != 0, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and result.stderr.strip() == errors[0], result.stderr
    for needle in needles:
        assert needle in errors[0], errors[0]
    return errors[0]
