"""Which sessions a sync reads, and from which byte: pure functions over files, the ledger and config."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fnmatch import fnmatch

from memgit.config import Config
from memgit.core.ledger import Ledger
from memgit.sources.files import SessionFile


@dataclass(frozen=True, slots=True)
class SyncOptions:
    project: str | None = None
    session: str | None = None
    all: bool = False
    dry_run: bool = False
    max_sessions: int | None = None
    redo: str | None = None
    retry_failed: bool = False
    wait: bool = True


@dataclass(frozen=True, slots=True)
class Work:
    """A session chosen for this run and the byte where reading starts."""

    file: SessionFile
    start: int
    why: str  # new | grown | rewritten | replaced | redo | retry | asked



def eligible(file: SessionFile, *, now: float, min_idle_minutes: float, max_age_days: float) -> bool:
    """Idle long enough (nobody is still writing it) and inside the age window."""
    age = now - file.mtime
    if age < min_idle_minutes * 60:
        return False
    return max_age_days <= 0 or age <= max_age_days * 86400


def _project_wanted(project_dir: str, cfg: Config) -> bool:
    if cfg.include_projects and not any(fnmatch(project_dir, p) for p in cfg.include_projects):
        return False
    return not any(fnmatch(project_dir, p) for p in cfg.exclude_projects)


def _matches(file: SessionFile, session: str) -> bool:
    return file.session_id.startswith(session) or file.key.startswith(session) or \
        file.key.split("/", 1)[1].startswith(session)


def select(files: list[SessionFile], ledger: Ledger, cfg: Config, opts: SyncOptions, *, now: float,
           length: Callable[[SessionFile], int] = lambda f: f.size) -> list[Work]:
    """Choose the sessions this run reads, oldest first, and where each one starts.

    `length` gives a file's length in its reader's offsets (a compressed file's decompressed size);
    it is asked only for a compressed file read before. A file its agent rewrites whole is read
    from the start again whenever its size changed.
    """
    chosen: dict[str, Work] = {}
    failed = ledger.failed() if opts.retry_failed else {}
    for file in sorted(files, key=lambda f: f.mtime):
        key = file.key
        done = ledger.processed_end(key)
        if opts.redo:
            if _matches(file, opts.redo):
                chosen[key] = Work(file, 0, "redo")
            continue
        if opts.session and not _matches(file, opts.session):
            continue
        if not _project_wanted(file.project_dir, cfg):
            continue
        if key in failed:
            chosen[key] = Work(file, failed[key].start, "retry")
            continue
        size = length(file) if file.compressed and done >= 0 else file.size
        if size == done:
            continue
        if not (opts.all or opts.session) and not eligible(
            file, now=now, min_idle_minutes=cfg.min_idle_minutes, max_age_days=cfg.max_age_days
        ):
            continue
        if done < 0:
            chosen[key] = Work(file, 0, "new" if not opts.session else "asked")
        elif file.whole:
            chosen[key] = Work(file, 0, "rewritten")
        elif size > done:
            chosen[key] = Work(file, done, "grown")
        else:  # shorter than what was read: the file was replaced, read it again
            chosen[key] = Work(file, 0, "replaced")
    work = list(chosen.values())
    return work[: opts.max_sessions] if opts.max_sessions else work
