"""Create the memory repository once, whatever crashes or runs at the same time (DESIGN §3).

The sync lock lives in `.git/memgit/`, which does not exist before the repository does, so
creating the repository has a lock of its own: an flock on the directory that will hold it (the
parent of the repo path). The kernel drops it when its holder dies, kill -9 included, and it
leaves no file behind. Under that lock the repository is built whole in a sibling directory,
`.<name>.creating-<pid>`, and renamed into place in one step: any other process sees no
repository, or a complete one with `main` checked out, never a half-made one. Several syncs
started at once on a fresh machine queue on the lock; the first creates, the others find the
repository made and go on to the sync lock.

What a crash can leave behind, the next run clears under the same lock: a sibling `.creating-`
directory (only a lock holder makes one, and we hold the lock), and, from a creation made in
place (memgit before this module, a mount point, `git init` by hand), a `.git` without a single
ref next to nothing but dulwich's probe file. Nothing a person wrote is ever removed: any other
file, or any ref, and the path is refused with a message instead.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from memgit.errors import STORAGE_ERRNOS, AlreadyExists, LockHeld, MemgitError, StorageError
from memgit.core.ledger import format_message
from memgit.core.scopes import BRANCH_PREFIX
from memgit.core.vocab import MAIN

SKELETON = 2  # version of the repository skeleton (memgit.skeleton in .git/config); 2 added .gitignore
ADDED = {2: (".gitignore",)}  # the template files each skeleton version added, for older repositories
CREATING = ".creating-"  # .<name>.creating-<pid>: a repository being built beside its path
PROBE = ".probe-permissions"  # dulwich's file-mode probe, left in the worktree by a kill mid-init
LOCK_TIMEOUT = 60.0  # seconds: creating takes milliseconds, a holder this slow is stuck
_POLL = 0.02
_PACKED_MAIN = b" refs/heads/" + MAIN.encode()  # its line in packed-refs ends so


def has_main(path: Path) -> bool:
    """Tell, without opening it, whether path holds a repository with a branch `main` (loose or packed)."""
    git = Path(path) / ".git"
    if (git / "refs" / "heads" / MAIN).is_file():
        return True
    try:
        with open(git / "packed-refs", "rb") as f:
            return any(line.rstrip().endswith(_PACKED_MAIN) for line in f)
    except OSError:
        return False


def ensure(path: Path, files: Mapping[str, bytes], *, author: str) -> bool:
    """Make sure a memory repository exists at path; return True when this call created it.

    Args:
        path: the repository's worktree (a symlink is followed: the repository goes where it points).
        files: the files of the first commit, by path.
        author: author and committer of the first commit.

    Raises:
        MemgitError: path holds something else (a file, a non-empty directory, another repository).
        StorageError: the disk refused a write (full, read-only, no permission); nothing half-made
            is left where the repository goes.
        LockHeld: another process has held the creation lock for LOCK_TIMEOUT seconds.
    """
    return _create(Path(os.path.realpath(path)), lambda where: _init(where, files, author))


def clone(path: Path, fill: Callable[[Path], None]) -> None:
    """Create the memory repository at path from another one: `fill(where)` makes the repository at
    `where` (an empty one fetched from a remote, its branches created); built beside path and renamed
    into place like a new one, so a clone cut short leaves nothing where the repository goes.

    Raises:
        AlreadyExists: path already holds a memory repository (or another memgit made one meanwhile).
        StorageError, LockHeld: as ensure.
        Whatever fill raises (nothing is left behind).
    """
    path = Path(os.path.realpath(path))
    if has_main(path):
        raise AlreadyExists(f"{path} already holds a memory repository; to join another machine's memory to it: "
                            "memgit remote add origin URL && memgit pull")
    if not _create(path, fill):
        raise AlreadyExists(f"{path} was created by another memgit meanwhile; to join: memgit pull")


def _create(path: Path, make: Callable[[Path], None]) -> bool:
    if has_main(path):
        return False
    with _creating(path):
        try:
            os.makedirs(path.parent, exist_ok=True)
        except FileExistsError as e:  # a file where a directory of the path belongs
            raise MemgitError(f"cannot create the memory repository at {path}: {e.filename} is a file, not a "
                              "directory; set MEMGIT_HOME (or repo.path in the config) to another path") from e
        with creation_lock(path.parent):
            if has_main(path):  # another process made it while we waited
                return False
            _clear_leftovers(path)
            _build(path, make)
            return True


@contextmanager
def _creating(path: Path) -> Iterator[None]:
    """Turn a disk's refusal into a StorageError naming where the repository goes (not our temporary
    directory, which the OSError names)."""
    try:
        yield
    except OSError as e:
        if e.errno not in STORAGE_ERRNOS:
            raise
        named = os.fsdecode(e.filename) if e.filename else ""
        temporary = named.startswith(str(path.with_name(f".{path.name}{CREATING}")))
        where = path.parent if temporary or not named else named
        raise StorageError.from_os_error(e, doing="create the memory repository in", path=where) from e


@contextmanager
def creation_lock(directory: Path, *, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold an exclusive flock on `directory` itself (no lock file is created or left).

    Raises:
        LockHeld: another process held it for `timeout` seconds.
    """
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise LockHeld(f"another memgit has been creating a repository in {directory} for "
                                   f"{timeout:g} s; try again later") from None
                time.sleep(_POLL)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _clear_leftovers(path: Path) -> None:
    """Remove what an interrupted creation left (we hold the creation lock); refuse anything else.

    Raises:
        MemgitError: path is a file, a directory with files of its own, or another repository.
    """
    for stale in path.parent.glob(f".{path.name}{CREATING}*"):
        shutil.rmtree(stale)
    try:
        names = set(os.listdir(path))
    except FileNotFoundError:
        return
    except NotADirectoryError:
        raise MemgitError(f"{path} exists and is not a directory; move it away or set MEMGIT_HOME "
                          "to another path") from None
    if not names:
        return
    if not names <= {".git", PROBE}:
        raise MemgitError(f"{path} exists and is not an empty directory; pick another path "
                          "(set MEMGIT_HOME, or repo.path in the config)")
    if ".git" in names and not _cut_short(path / ".git"):
        raise MemgitError(f"{path} holds a git repository without a branch main; it is not a memgit "
                          "repository: pick another path (set MEMGIT_HOME), or move it away")
    if ".git" in names:
        shutil.rmtree(path / ".git")
    if PROBE in names:
        os.unlink(path / PROBE)


def _cut_short(git: Path) -> bool:
    """True for a `.git` directory without one ref (lock files aside): a creation killed before `main`."""
    if git.is_symlink() or not git.is_dir():
        return False  # a gitdir link (worktree, submodule): someone else's
    for _, _, names in os.walk(git / "refs"):
        if any(not name.endswith(".lock") for name in names):
            return False
    try:
        with open(git / "packed-refs", "rb") as f:
            return not any(line.strip() and not line.startswith((b"#", b"^")) for line in f)
    except FileNotFoundError:
        return True


def _init(where: Path, files: Mapping[str, bytes], author: str) -> None:
    from memgit.store.repo import MemoryRepo

    with MemoryRepo.init(where, files, author=author) as repo:
        repo.set_setting("skeleton", str(SKELETON))


def _build(path: Path, make: Callable[[Path], None]) -> None:
    """Build the repository beside path and rename it into place in one step."""
    tmp = path.with_name(f".{path.name}{CREATING}{os.getpid()}")
    try:
        make(tmp)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)  # a full disk: what was written is in the way; a kill: the next run
        raise
    try:
        os.rename(tmp, path)  # path is absent or an empty directory: both are replaced atomically
    except OSError as e:
        if e.errno not in (errno.EXDEV, errno.EBUSY):
            raise  # the next run clears tmp
        # path is a mount point: build in place; a crash now leaves a .git the next run redoes
        shutil.rmtree(tmp)
        make(path)
    _fsync_dir(path.parent)


def upgrade(repo, files: Mapping[str, bytes] | None = None) -> list[str]:
    """Give a repository made by an older memgit the template files added since (once).

    A person's edits in the worktree are recorded first (their own .gitignore stays theirs); then
    each branch lacking such a file gets it in one `init(<scope>)` commit that says why. The
    version is recorded in .git/config, so a file a person later removes is not brought back.
    Returns the shas of the commits made.

    Raises:
        SecretFound, MemgitError: as MemoryRepo.record_edits and commit do.
    """
    try:
        version = int(repo.setting("skeleton") or 1)
    except ValueError:
        version = 1
    if version >= SKELETON:
        return []
    if files is None:
        from memgit.resources import repo_template_files

        files = repo_template_files()
    shas = [sha for sha in [repo.record_edits()] if sha]
    wanted = [p for v in range(version + 1, SKELETON + 1) for p in ADDED.get(v, ()) if p in files]
    for branch in sorted(repo.branches()):
        if branch != MAIN and not branch.startswith(BRANCH_PREFIX):
            continue
        missing = {p: files[p] for p in wanted if not repo.exists(branch, p)}
        if missing:
            message = format_message(
                "init", branch.removeprefix(BRANCH_PREFIX), f"add {', '.join(missing)} from memgit's template",
                body="Editor and operating-system files (.DS_Store, swap files, IDE folders) are not memory: "
                     "git leaves them out, and memgit never commits them as a person's edit. Edit it freely.")
            shas.append(repo.commit_with_retry(branch, lambda head, m=missing, msg=message: (m, msg)))
    repo.set_setting("skeleton", str(SKELETON))
    return shas


def _fsync_dir(directory: Path) -> None:
    """Make the rename durable: a power cut must not bring back the empty path."""
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename is as durable as they make it
    finally:
        os.close(fd)
