"""The errors memgit reports to a person: a message saying what happened and what to do next."""

import errno
import os


class MemgitError(Exception):
    """An expected failure: shown as one `Error: ...` line and a non-zero exit."""

    exit_code = 1
    code = "error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class Unconfirmed(MemgitError):
    """A destructive command with no one to ask (no terminal, or --json) and no --yes: nothing done."""

    exit_code = 2  # a usage error, as click's own
    code = "needs_yes"


class NotARepo(MemgitError):
    exit_code = 3
    code = "not_a_repo"


class ConfigError(MemgitError):
    exit_code = 4
    code = "config"


class TranscriptError(MemgitError):
    exit_code = 5
    code = "transcript"


class TranscriptGone(TranscriptError):
    """A transcript listed a moment ago is not there any more (deleted, or its symlink broken)."""


class SecretFound(MemgitError):
    exit_code = 6
    code = "secret_found"


class ConflictError(MemgitError):
    exit_code = 7
    code = "conflict"


class LLMError(MemgitError):
    exit_code = 8
    code = "llm"


class LockHeld(MemgitError):
    exit_code = 9
    code = "lock_held"


class AmbiguousSelector(MemgitError):
    """A session or project named by a prefix that several of them share."""

    exit_code = 11
    code = "ambiguous"


class NoMatch(MemgitError):
    """A session, project or commit named that memgit does not have."""

    exit_code = 12
    code = "no_match"


class RemoteError(MemgitError):
    """A remote could not be reached, refused a push or a fetch, or is not a memgit repository."""

    exit_code = 13
    code = "remote"


# The OSErrors that mean "this disk cannot be written", not "memgit has a bug".
FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
STORAGE_ERRNOS = FULL_ERRNOS | {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOTDIR, errno.EISDIR, errno.EIO}


class StorageError(MemgitError):
    """The disk would not take a write (full, read-only, no permission): nothing memgit can fix."""

    exit_code = 10
    code = "storage"

    @classmethod
    def from_os_error(cls, e: OSError, *, doing: str = "", path: object = None) -> "StorageError":
        """Say what an OSError from the file system means for a person, and what to do about it.

        Args:
            doing: what was being done, e.g. "create the memory repository in" (default: writing
                the file the error names, in a repository whose earlier commits are intact).
            path: the path to name instead of the error's own.
        """
        where = os.fsdecode(path if path is not None else e.filename or "") or "the memory repository"
        reason = e.strerror or str(e)
        if e.errno == errno.EFBIG:
            advice = "a file size limit was reached (`ulimit -f`, or the file system's own): raise it"
        elif e.errno in FULL_ERRNOS:
            advice = "free some space on that disk (or raise the quota)"
        elif e.errno == errno.EROFS:
            advice = "remount it read-write, or set MEMGIT_HOME to a directory on a writable disk"
        elif e.errno in (errno.EACCES, errno.EPERM):
            advice = ("give your user access to it (check its owner and mode), or set MEMGIT_HOME to a "
                      "directory you can write")
        elif e.errno in (errno.ENOTDIR, errno.EISDIR):
            advice = "a file stands where a directory belongs (or the reverse): fix the path, or set MEMGIT_HOME"
        else:
            advice = "check the disk (dmesg)"
        if doing:
            return cls(f"cannot {doing} {where}: {reason}; {advice}, then run the command again")
        return cls(f"cannot write {where}: {reason}; {advice}, then run the command again "
                   "(what memgit committed before is intact)")
