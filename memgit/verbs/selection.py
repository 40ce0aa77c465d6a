"""Which sessions a sync reads, and from which byte: pure functions over files, the ledger and config."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fnmatch import fnmatch

from memgit.config import Config
from memgit.core.ledger import Ledger
from memgit.core.model import Transcript
from memgit.core.selector import pick, project_names
from memgit.core.vocab import MAIN, PREFIX
from memgit.errors import TranscriptError
from memgit.sources.files import SessionFile
from memgit.verbs import joining


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


def readable_end(work: Work, t: Transcript, *, now: float, min_idle_minutes: float) -> Transcript:
    """A transcript read as far as it can ever be read.

    A file idle past min_idle_minutes is written no more: bytes after its last complete record (a
    line cut by a crash or a full disk) will never complete, so the range takes them in and `cut`
    says how many were passed over; otherwise the session would stay pending forever. A file that
    holds no record at all from its start is not a transcript.

    Raises:
        TranscriptError: not a transcript (recorded as a `fail`, with this reason).
    """
    file = work.file
    if work.start == 0 and t.records == 0 and t.bad_lines:
        raise TranscriptError(f"not a transcript ({t.bad_lines} line(s), none a {file.agent} record)")
    idle = now - file.mtime >= min_idle_minutes * 60
    if idle and not (file.whole or file.compressed) and t.end < file.size:
        t = replace(t, end=file.size, cut=file.size - t.end)
    return t


def too_old(files: list[SessionFile], ledger: Ledger, cfg: Config, *, now: float) -> int:
    """Transcripts never read that a sync leaves out only because they are older than max_age_days."""
    if cfg.max_age_days <= 0:
        return 0
    return sum(1 for f in files if now - f.mtime > cfg.max_age_days * 86400 and ledger.processed_end(f.key) < 0
               and _project_wanted(f.project_dir, cfg))


def unchanged_until(files: list[SessionFile], ledger: Ledger, cfg: Config, *, now: float,
                    length: Callable[[SessionFile], int] = lambda f: f.size) -> float:
    """The first moment after `now` at which a plain run over these very files (same sizes and mtimes,
    same ledger) could choose one (it became idle) or count one more as too old (it left the age
    window); infinity when none can. Only a file not read to its end has such a moment."""
    until = float("inf")
    for file in files:
        if not _project_wanted(file.project_dir, cfg):
            continue
        done = ledger.processed_end(file.key)
        if (length(file) if file.compressed and done >= 0 else file.size) == done:
            continue
        idle = file.mtime + cfg.min_idle_minutes * 60
        old = file.mtime + cfg.max_age_days * 86400 if cfg.max_age_days > 0 else until
        until = min([until, *(moment for moment in (idle, old) if moment > now)])
    return until


def _project_wanted(project_dir: str, cfg: Config) -> bool:
    if cfg.include_projects and not any(fnmatch(project_dir, p) for p in cfg.include_projects):
        return False
    return not any(fnmatch(project_dir, p) for p in cfg.exclude_projects)


def _names(file: SessionFile, selector: str) -> set[str]:
    """What a session goes by: its id, and its key (agent/id) once the selector names an agent.

    Without the "/" rule every key starts with "c" (claude-code/, codex/), and `--session c` would
    name every session.
    """
    names = {file.session_id, file.key.split("/", 1)[1]}
    return names | {file.key} if "/" in selector else names


def resolve_session(files: list[SessionFile], selector: str) -> str:
    """The key of the one session `selector` names (exact, or a prefix of its id only it has).

    Raises:
        NoMatch: no transcript on disk is named by it.
        AmbiguousSelector: several are (listed).
    """
    return pick(selector, {f.key: _names(f, selector) for f in files}, what="session",
                hint="`memgit sessions` lists them")


def select(files: list[SessionFile], ledger: Ledger, cfg: Config, opts: SyncOptions, *, now: float,
           length: Callable[[SessionFile], int] = lambda f: f.size,
           own: Callable[[SessionFile], bool] = lambda f: False) -> list[Work]:
    """Choose the sessions this run reads, oldest first, and where each one starts.

    `length` gives a file's length in its reader's offsets (a compressed file's decompressed size);
    it is asked only for a compressed file read before. A file its agent rewrites whole is read
    from the start again whenever its size changed. `own` tells a session memgit itself ran (an
    agent CLI used as a model): asked only of a file never read, about to be chosen; never chosen.
    """
    chosen: dict[str, Work] = {}
    named = resolve_session(files, opts.redo or opts.session) if (opts.redo or opts.session) else None
    failed = ledger.failed() if opts.retry_failed else {}
    for file in sorted(files, key=lambda f: f.mtime):
        key = file.key
        done = ledger.processed_end(key)
        if opts.redo:
            if key == named:
                chosen[key] = Work(file, 0, "redo")
            continue
        if opts.session and key != named:
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
            if own(file):
                continue
            chosen[key] = Work(file, 0, "new" if not opts.session else "asked")
        elif file.whole:
            chosen[key] = Work(file, 0, "rewritten")
        elif size > done:
            chosen[key] = Work(file, done, "grown")
        else:  # shorter than what was read: the file was replaced, read it again
            chosen[key] = Work(file, 0, "replaced")
    work = list(chosen.values())
    return work[: opts.max_sessions] if opts.max_sessions else work


def find_project(repo, selector: str, *, main: bool = False) -> str:
    """The project branch `selector` names: its branch, slug or PROJECT.md name, exact or a prefix
    only it has (memgit.core.selector); with `main`, main's branch too.

    Raises:
        NoMatch, AmbiguousSelector: none or several.
    """
    names: dict[str, tuple[str, ...]] = {MAIN: (MAIN,)} if main and MAIN in repo.branches() else {}
    for branch, head in repo.branches().items():
        if branch.startswith(PREFIX):
            project = joining.project(repo, branch, head)
            names[branch] = project_names(branch, project.name if project else None)
    return pick(selector, names, what="project", hint="`memgit projects` lists them")
