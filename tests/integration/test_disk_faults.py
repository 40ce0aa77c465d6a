"""A disk that will not take a write: full, read-only, forbidden; and a MEMGIT_HOME that cannot be
created. Each gives one `Error: ...` line and a non-zero exit, no traceback, a repository that
`git fsck --strict` finds clean, and once the disk is fixed the next sync records every session.

How each fault is made for real (tests run as root here; see tests/faults.py):
- disk full: a 4 MB tmpfs in a private mount namespace (`unshare -m`), filled to the last byte;
  where namespaces are not allowed, a file size limit (RLIMIT_FSIZE: writes fail with EFBIG),
  which needs no privilege and runs everywhere;
- read-only: the same tmpfs remounted read-only (EROFS); and the repository made read-only with
  chmod for a child that permission bits bind (EACCES);
- unwritable MEMGIT_HOME: a path through a regular file (ENOTDIR), and a parent without write
  permission (EACCES).
"""

from __future__ import annotations

import json
import os
import shutil
import stat

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests import faults
from tests.conftest import age, fsck, git, ledger_commits


def write_sessions(projects, seeds) -> set[str]:
    ids = set()
    for i, seed in enumerate(seeds):
        w = SessionWriter(session_id(seed), "/home/demo/dev/pinion")
        w.user(f"{seed}: make the importer skip empty rows. Always use pathlib, never os.path. " + "x" * 2000)
        w.bash("uv run pytest -x tests/", "E   AssertionError: empty row\n" + "y" * 3000, error=True)
        w.bash("uv run pytest -x tests/", f"{i + 3} passed in 0.5s")
        age(w.write(projects), 7200 - i)
        ids.add(f"claude-code/{w.session_id}")
    return ids


def recorded(repo) -> set[str]:
    return {r["session"] for r in ledger_commits(repo)}


def no_lock_files(repo) -> list[str]:
    """git's lock files left in the repository (memgit's own flock files under .git/memgit aside)."""
    return [os.path.relpath(os.path.join(d, n), repo) for d, _, names in os.walk(repo / ".git")
            for n in names if n.endswith(".lock") and not d.startswith(str(repo / ".git" / "memgit"))]


@pytest.fixture
def drop():
    try:
        return faults.unprivileged()
    except RuntimeError as e:
        pytest.skip(f"permissions cannot be made to bind here: {e}")


# ---- disk full -----------------------------------------------------------------------------

# Runs inside `unshare -m`: the tmpfs and its contents vanish with the namespace, so every check of
# the repository on it is made here and reported as JSON.
FULL_DISK = r"""
import json, os, subprocess, sys
home, data, mode = sys.argv[1], sys.argv[2], sys.argv[3]
repo = os.path.join(data, "memgit")
os.makedirs(data, exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", data], check=True)

def run(*args, cwd=home):
    r = subprocess.run(list(args), capture_output=True, text=True, cwd=cwd)
    return {"rc": r.returncode, "out": r.stdout, "err": r.stderr}

def memgit(*args):
    return run(sys.executable, "-m", "memgit.cli.commands", *args)

def ledger():
    out = run("git", "-C", repo, "log", "--all", "--format=%(trailers:key=Memgit-Session,valueonly)")["out"]
    return sorted(set(line for line in out.split() if line))

def locks():  # git's lock files (memgit's own flock files under .git/memgit are not git's)
    return [os.path.join(d, n) for d, _, names in os.walk(os.path.join(repo, ".git"))
            for n in names if n.endswith(".lock") and os.sep + "memgit" not in d[len(repo):]]

report = {"first": memgit("sync", "--max-sessions", "2")}
filler = os.path.join(data, "filler")
if mode == "full":
    with open(filler, "wb", buffering=0) as f:  # fill the disk to the last block (unbuffered: nothing left to flush at close)
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    try:
        with open(filler, "ab") as f:
            while True:
                f.write(b"\0")
                f.flush()
    except OSError as e:
        report["filled"] = e.errno
else:
    subprocess.run(["mount", "-o", "remount,ro", data], check=True)
report["faulty"] = memgit("sync")
report["faulty_json"] = memgit("sync", "--json")
report["fsck_faulty"] = run("git", "-C", repo, "fsck", "--strict", "--full")
report["locks_faulty"] = locks()
report["ledger_faulty"] = ledger()
if mode == "full":
    os.unlink(filler)
else:
    subprocess.run(["mount", "-o", "remount,rw", data], check=True)
report["fixed"] = memgit("sync")
report["fsck_fixed"] = run("git", "-C", repo, "fsck", "--strict", "--full")
report["status_fixed"] = run("git", "-C", repo, "status", "--porcelain")
report["ledger_fixed"] = ledger()
print(json.dumps(report))
"""


@pytest.mark.parametrize("mode", ["full", "read-only"])
def test_a_full_or_read_only_disk_is_one_clear_error_and_the_repo_stays_valid(hermetic_env, claude_projects,
                                                                              mode):
    why = faults.private_mounts()
    if why:
        pytest.skip(f"no real tmpfs here ({why}); test_a_file_size_limit_... covers a full disk without one")
    sessions = write_sessions(claude_projects, [f"disk-{i}" for i in range(6)])
    data = hermetic_env / ".local" / "share"
    done = faults.in_private_mounts(FULL_DISK, str(hermetic_env), str(data), mode, env=faults.memgit_env(hermetic_env))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["first"]["rc"] == 0, report["first"]["err"]
    if mode == "full":
        assert report["filled"] == 28  # ENOSPC: the disk really was full
        needle, advice = "No space left on device", "free some space"
    else:
        needle, advice = "Read-only file system", "remount it read-write"
    faulty = report["faulty"]
    error = faults.assert_one_error_line(_Result(faulty), needle, advice)
    assert faulty["rc"] == 10 and faulty["out"] == "", error
    assert json.loads(report["faulty_json"]["out"])["error"]["code"] == "storage"
    fsck_faulty = report["fsck_faulty"]
    assert fsck_faulty["rc"] == 0 and "error" not in fsck_faulty["err"].lower(), fsck_faulty
    assert report["locks_faulty"] == []  # no ref or object lock left to block git or the next run
    assert len(report["ledger_faulty"]) == 2  # what the first sync recorded is intact

    fixed = report["fixed"]
    assert fixed["rc"] == 0 and "Traceback" not in fixed["err"], fixed["err"]
    assert report["fsck_fixed"]["rc"] == 0, report["fsck_fixed"]
    assert report["status_fixed"]["out"] == ""
    assert set(report["ledger_fixed"]) == sessions


# Runs inside `unshare -m`: a disk that fills up at a different point of each run (k blocks left free
# before it), so that every write of a sync (objects, refs, index, worktree files, caches) meets it.
FILLING_DISK = r"""
import json, os, subprocess, sys
home, data, steps = sys.argv[1], sys.argv[2], [int(k) for k in sys.argv[3].split(",")]
repo = os.path.join(data, "memgit")
os.makedirs(data, exist_ok=True)
subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", data], check=True)

def run(*args):
    r = subprocess.run(list(args), capture_output=True, text=True, cwd=home)
    return {"rc": r.returncode, "out": r.stdout, "err": r.stderr}

def memgit(*args):
    return run(sys.executable, "-m", "memgit.cli.commands", *args)

def locks():
    return [os.path.join(d, n) for d, _, names in os.walk(os.path.join(repo, ".git"))
            for n in names if n.endswith(".lock") and os.sep + "memgit" not in d[len(repo):]]

runs = [dict(memgit("sync", "--max-sessions", "2"), k=None)]
filler = os.path.join(data, "filler")
for k in steps:
    st = os.statvfs(data)
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, (st.f_bavail - k) * st.f_frsize))
    r = memgit("sync", "--max-sessions", "3")
    r.update(k=k, fsck=run("git", "-C", repo, "fsck", "--strict", "--full"), locks=locks())
    runs.append(r)
    os.unlink(filler)
final = memgit("sync")
trees = {b: run("git", "-C", repo, "ls-tree", "-r", b)["out"]
         for b in run("git", "-C", repo, "for-each-ref", "--format=%(refname:short)", "refs/heads")["out"].split()}
ranges = run("git", "-C", repo, "log", "--all", "--format=%(trailers:key=Memgit-Session,valueonly,separator=)"
             " %(trailers:key=Memgit-Range,valueonly,separator=)")["out"].split("\n")
print(json.dumps({"runs": runs, "final": final, "fsck": run("git", "-C", repo, "fsck", "--strict", "--full"),
                  "status": run("git", "-C", repo, "status", "--porcelain"), "trees": trees,
                  "ranges": sorted(r for r in ranges if r.strip())}))
"""


def test_a_disk_that_fills_at_any_point_of_a_sync_never_breaks_the_repo(hermetic_env, claude_projects, tmp_path):
    why = faults.private_mounts()
    if why:
        pytest.skip(f"no real tmpfs here ({why}); test_a_file_size_limit_... covers a full disk without one")
    seeds = [f"fill-{i}" for i in range(36)]
    write_sessions(claude_projects, seeds)
    calm_home = tmp_path / "calm"
    write_sessions(calm_home / ".claude" / "projects", seeds)
    assert faults.memgit(calm_home, "sync").returncode == 0

    data = hermetic_env / ".local" / "share"
    steps = ",".join(str(k) for k in range(2, 130, 9))
    done = faults.in_private_mounts(FILLING_DISK, str(hermetic_env), str(data), steps,
                                    env=faults.memgit_env(hermetic_env))
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    failed = 0
    for run in report["runs"][1:]:
        if run["rc"]:
            failed += 1
            error = faults.assert_one_error_line(_Result(run), "free some space")
            assert run["rc"] == 10, error
        else:
            assert run["err"] == "", run["err"]  # a run that got through says nothing on stderr
        assert run["fsck"]["rc"] == 0 and "error" not in run["fsck"]["err"].lower(), (run["k"], run["fsck"])
        assert run["locks"] == [], (run["k"], run["locks"])
    assert 0 < failed < len(report["runs"]) - 1, "the disk should stop some runs and let others through"
    assert report["final"]["rc"] == 0 and report["final"]["err"] == "", report["final"]["err"]
    assert report["fsck"]["rc"] == 0 and report["status"]["out"] == ""

    calm = calm_home / ".local" / "share" / "memgit"
    calm_ranges = git(calm, "log", "--all", "--format=%(trailers:key=Memgit-Session,valueonly,separator=)"
                      " %(trailers:key=Memgit-Range,valueonly,separator=)").split("\n")
    assert report["ranges"] == sorted(r for r in calm_ranges if r.strip())  # nothing lost, nothing read twice
    calm_trees = {b: git(calm, "ls-tree", "-r", b)
                  for b in git(calm, "for-each-ref", "--format=%(refname:short)", "refs/heads").split()}
    assert report["trees"] == calm_trees  # the same memory, byte for byte


class _Result:
    """A report entry seen as a CompletedProcess, for assert_one_error_line."""

    def __init__(self, entry: dict):
        self.returncode, self.stdout, self.stderr = entry["rc"], entry["out"], entry["err"]


def test_a_file_size_limit_stops_the_sync_with_one_clear_error(hermetic_env, claude_projects, memory_path):
    """The unprivileged way to a disk that refuses writes: RLIMIT_FSIZE makes every write past it fail (EFBIG)."""
    first = write_sessions(claude_projects, ["limit-0", "limit-1"])
    assert faults.memgit(hermetic_env, "sync").returncode == 0
    rest = write_sessions(claude_projects, [f"limit-more-{i}" for i in range(3)])
    result = faults.memgit(hermetic_env, "sync", preexec=faults.file_size_limit(0))
    faults.assert_one_error_line(result, "File too large", "file size limit")
    assert result.returncode == 10
    fsck(memory_path)
    assert no_lock_files(memory_path) == []
    assert recorded(memory_path) == first
    again = faults.memgit(hermetic_env, "sync")
    assert again.returncode == 0, again.stderr
    assert recorded(memory_path) == first | rest
    fsck(memory_path)


# ---- a read-only repository, an unwritable MEMGIT_HOME ---------------------------------------


def _chmod_tree(root, writable: bool) -> None:
    for d, dirs, names in os.walk(root):
        for name in [*dirs, *names, None]:
            path = os.path.join(d, name) if name else d
            if os.path.islink(path):
                continue
            mode = os.stat(path).st_mode
            os.chmod(path, mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def test_a_read_only_repo_is_one_clear_error(hermetic_env, claude_projects, memory_path, drop):
    first = write_sessions(claude_projects, ["ro-0"])
    assert faults.memgit(hermetic_env, "sync").returncode == 0
    rest = write_sessions(claude_projects, ["ro-1", "ro-2"])
    _chmod_tree(memory_path, writable=False)
    try:
        result = faults.memgit(hermetic_env, "sync", preexec=drop)
        faults.assert_one_error_line(result, "Permission denied", "give your user access")
        assert result.returncode == 10
        fsck(memory_path)
        status = faults.memgit(hermetic_env, "status", preexec=drop)  # reading still works
        assert status.returncode == 0 and "Traceback" not in status.stderr, status.stderr
    finally:
        _chmod_tree(memory_path, writable=True)
    assert recorded(memory_path) == first
    again = faults.memgit(hermetic_env, "sync", preexec=drop)
    assert again.returncode == 0, again.stderr
    assert recorded(memory_path) == first | rest
    fsck(memory_path)


def test_a_memgit_home_through_a_file_is_one_clear_error(hermetic_env, claude_projects, tmp_path):
    sessions = write_sessions(claude_projects, ["home-0"])
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where a directory should be\n")
    env = faults.memgit_env(hermetic_env, MEMGIT_HOME=str(blocker / "memgit"))
    faults.assert_one_error_line(faults.memgit(hermetic_env, "sync", env=env), f"{blocker} is a file", "MEMGIT_HOME")
    faults.assert_one_error_line(faults.memgit(hermetic_env, "init", env=env), f"{blocker} is a file")
    deeper = faults.memgit_env(hermetic_env, MEMGIT_HOME=str(blocker / "deeper" / "memgit"))
    faults.assert_one_error_line(faults.memgit(hermetic_env, "sync", env=deeper), "Not a directory",
                                 "a file stands where a directory belongs")
    blocker.unlink()
    blocker.mkdir()
    assert faults.memgit(hermetic_env, "sync", env=env).returncode == 0
    assert recorded(blocker / "memgit") == sessions
    fsck(blocker / "memgit")


def test_an_unwritable_memgit_home_is_one_clear_error(hermetic_env, claude_projects, tmp_path, drop):
    sessions = write_sessions(claude_projects, ["home-1"])
    parent = tmp_path / "locked"
    parent.mkdir()
    parent.chmod(0o555)
    env = faults.memgit_env(hermetic_env, MEMGIT_HOME=str(parent / "memgit"))
    try:
        result = faults.memgit(hermetic_env, "sync", env=env, preexec=drop)
        faults.assert_one_error_line(result, "Permission denied", "MEMGIT_HOME")
        assert result.returncode == 10 and os.listdir(parent) == []
    finally:
        parent.chmod(0o755)
    assert faults.memgit(hermetic_env, "sync", env=env, preexec=drop).returncode == 0
    assert recorded(parent / "memgit") == sessions
    fsck(parent / "memgit")
    shutil.rmtree(parent)
