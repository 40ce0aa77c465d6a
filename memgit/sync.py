"""The `memgit sync` pipeline: discover, select, read, redact, extract, redact, gate, commit."""

from __future__ import annotations

import hashlib
import logging
import os
import time
import traceback
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from fnmatch import fnmatch
from pathlib import Path
from typing import Callable

from . import ledger as ledger_mod
from . import notes, redact, scopes
from .config import Config
from .errors import MemgitError, SecretFound
from .ledger import Ledger, format_message
from .model import Extraction, Learning, Note, Transcript
from .sources import claude_code
from .sources.claude_code import SessionFile

log = logging.getLogger("memgit.sync")
MAIN = "main"


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
    why: str  # new | grown | replaced | redo | retry | asked


@dataclass(slots=True)
class SessionResult:
    session: str
    kind: str  # extract | skip | fail | none (nothing new) | planned (dry run)
    project: str = ""
    branch: str = ""
    start: int = 0
    end: int = 0
    reason: str = ""
    note: str = ""
    sha: str = ""
    title: str = ""


@dataclass(slots=True)
class SyncResult:
    repo: str
    results: list[SessionResult] = field(default_factory=list)
    commits: int = 0
    dry_run: bool = False

    def count(self, kind: str) -> int:
        return sum(1 for r in self.results if r.kind == kind)

    @property
    def read(self) -> int:
        return sum(1 for r in self.results if r.kind in ("extract", "skip", "fail", "none"))

    def summary(self) -> dict:
        return {
            "repo": self.repo, "dry_run": self.dry_run, "read": self.read,
            "extracted": self.count("extract"), "skipped": self.count("skip"),
            "failed": self.count("fail"), "commits": self.commits,
        }


# ---- selection: pure ----------------------------------------------------------------------


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
    return file.session_id.startswith(session) or f"claude-code/{file.session_id}".startswith(session)


def select(files: list[SessionFile], ledger: Ledger, cfg: Config, opts: SyncOptions, *, now: float) -> list[Work]:
    """Choose the sessions this run reads, oldest first, and where each one starts."""
    chosen: dict[str, Work] = {}
    failed = ledger.failed() if opts.retry_failed else {}
    for file in sorted(files, key=lambda f: f.mtime):
        key = f"{claude_code.AGENT}/{file.session_id}"
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
        if file.size == done:
            continue
        if not (opts.all or opts.session) and not eligible(
            file, now=now, min_idle_minutes=cfg.min_idle_minutes, max_age_days=cfg.max_age_days
        ):
            continue
        if done < 0:
            chosen[key] = Work(file, 0, "new" if not opts.session else "asked")
        elif file.size > done:
            chosen[key] = Work(file, done, "grown")
        else:  # shorter than what was read: the file was replaced, read it again
            chosen[key] = Work(file, 0, "replaced")
    work = list(chosen.values())
    return work[: opts.max_sessions] if opts.max_sessions else work


# ---- redaction of values: pure ------------------------------------------------------------


def redact_transcript(t: Transcript, extra: tuple[str, ...]) -> Transcript:
    """Replace secrets in every text a transcript carries, before any extractor sees it."""
    def keyed(key, value):
        # {"password": "hunter22"}: the key is the context that makes the value a secret.
        if isinstance(value, str) and isinstance(key, str):
            text = redact.redact(f"{key}={value}", extra)
            return text[len(key) + 1:] if text.startswith(f"{key}=") else redact.redact(value, extra)
        return clean(value)

    def clean(value):
        if isinstance(value, str):
            return redact.redact(value, extra)
        if isinstance(value, dict):
            return {k: keyed(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    turns = [
        replace(
            turn,
            text=clean(turn.text),
            tool_calls=[replace(c, input=clean(c.input), output=clean(c.output)) for c in turn.tool_calls],
        )
        for turn in t.turns
    ]
    return replace(t, turns=turns, cwd=clean(t.cwd), title=clean(t.title))


def redact_note(note: Note, extra: tuple[str, ...]) -> Note:
    """Redact an extractor's output again: it may have stitched a secret together."""
    r = lambda text: redact.redact(text, extra) if text else text  # noqa: E731
    return replace(
        note,
        title=r(note.title),
        summary=r(note.summary),
        learnings=[Learning(item.type, r(item.text)) for item in note.learnings],
        keywords=[r(k) for k in note.keywords],
    )


# ---- the run: the imperative shell --------------------------------------------------------


def _utc_date(ts: float) -> str:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%d")


def _sha256_range(path: Path, start: int, end: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        f.seek(start)
        left = end - start
        while left > 0:
            chunk = f.read(min(left, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            left -= len(chunk)
    return digest.hexdigest()


class _Run:
    """State of one sync run: the open repo, the ledger and the known projects."""

    def __init__(self, repo, cfg: Config, ledger: Ledger, extract, extractor_name: str):
        self.repo, self.cfg, self.ledger = repo, cfg, ledger
        self.extract, self.extractor_name = extract, extractor_name
        self.commits = 0
        self.projects = []
        for branch in repo.branches():
            text = repo.read(branch, "PROJECT.md") if branch.startswith("projects/") else None
            if text is None:
                continue
            try:
                self.projects.append(scopes.parse_project_md(text.decode("utf-8", "replace"), branch))
            except ValueError as e:  # a person's edit broke it: guessing could file sessions under the wrong project
                raise MemgitError(f"PROJECT.md on {branch} is not valid ({e}); fix it on that branch "
                                  f"(git switch {branch}) and run sync again") from e

    def project_for(self, cwd: str | None) -> tuple[str, str, str]:
        """Return (branch, project name, scope label) for a session's cwd; main when unknown."""
        if not cwd:
            return MAIN, "", MAIN
        identity = scopes.identify(cwd)
        project = scopes.resolve(identity, self.projects, cwd=cwd)
        if project is None:
            project = scopes.new_project(identity, self.projects)
            message = format_message("init", project.branch.removeprefix("projects/"), f"project {project.name}",
                                     body=f"Identity: {identity.key}")
            self.repo.commit(project.branch, {"PROJECT.md": scopes.render_project_md(project).encode()},
                             message, create_from=self.repo.root())
            self.commits += 1
            self.projects.append(project)
        return project.branch, project.name, project.branch.removeprefix("projects/")

    def in_project(self, file: SessionFile, name: str) -> bool:
        """True when a session belongs to project `name` (its slug, its name, or its folder under projects/)."""
        if fnmatch(file.project_dir, name) or name in file.project_dir:
            return True
        cwd = claude_code.peek_cwd(file.path)
        if not cwd:
            return False
        project = scopes.resolve(scopes.identify(cwd), self.projects, cwd=cwd)
        return project is not None and name in (project.name, project.branch, project.branch.removeprefix("projects/"))

    def trailers(self, work: Work, t_end: int, outcome: str, extra: list) -> list:
        file = work.file
        return [
            ("Memgit-Session", f"{claude_code.AGENT}/{file.session_id}"),
            ("Memgit-Source", f"{file.project_dir}/{file.path.name}"),
            ("Memgit-Range", f"{work.start}-{t_end}"),
            ("Memgit-Source-Sha256", _sha256_range(file.path, work.start, t_end)),
            *extra,
            ("Memgit-Outcome", outcome),
        ]

    def record(self, work: Work, kind: str, branch: str, scope: str, end: int, reason: str,
               extra: list = ()) -> SessionResult:
        """Commit an empty skip or fail commit that records the range as read."""
        outcome = {"skip": "skipped", "fail": "failed"}[kind]
        message = format_message(
            kind, scope, f"{work.file.session_id[:8]} {reason}",
            trailers=[*self.trailers(work, end, outcome, list(extra)), ("Memgit-Reason", reason)],
        )
        sha = self.repo.commit_with_retry(branch, lambda head: ({}, message), allow_empty=True)
        self.commits += 1
        return SessionResult(f"{claude_code.AGENT}/{work.file.session_id}", kind, scope, branch,
                             work.start, end, reason, sha=sha)

    def process(self, work: Work) -> SessionResult:
        """Read, extract and commit one session; any failure becomes a recorded `fail`."""
        key = f"{claude_code.AGENT}/{work.file.session_id}"
        branch, scope, end = MAIN, MAIN, max(work.file.size, work.start)
        try:
            t = claude_code.read_transcript(work.file.path, start=work.start, session_id=work.file.session_id)
            end = t.end
            if t.end <= work.start and self.ledger.processed_end(key) >= 0 and work.why != "redo":
                return SessionResult(key, "none", start=work.start, end=t.end, reason="nothing new")
            branch, project, scope = self.project_for(t.cwd)
            t = redact_transcript(t, self.cfg.extra_redact_patterns)
            extraction: Extraction = self.extract(t, project=project or scope)
            if extraction.note is None:
                return self.record(work, "skip", branch, scope, end, extraction.reason or "nothing worth keeping",
                                   [("Memgit-Extractor", self.extractor_name)])
            return self.commit_note(work, t, branch, scope, extraction)
        except MemgitError as e:
            reason = e.message
        except Exception as e:  # one odd transcript must not stop the others; the traceback goes to the log
            if os.environ.get("MEMGIT_DEBUG"):
                raise
            log.error("session %s failed:\n%s", key, traceback.format_exc())
            reason = f"internal error: {type(e).__name__}: {e}"
        reason = redact.redact(ledger_mod.one_line(reason, 200), self.cfg.extra_redact_patterns)
        return self.record(work, "fail", branch, scope, end, reason)

    def commit_note(self, work: Work, t: Transcript, branch: str, scope: str, extraction: Extraction) -> SessionResult:
        note = redact_note(extraction.note, self.cfg.extra_redact_patterns)
        previous = self.ledger.note_of(note.session) if work.why != "redo" else None
        path = notes.note_path(note, _utc_date(work.file.mtime))
        if previous and previous.branch == branch:
            old_text = self.repo.read(branch, previous.note)
            if old_text is not None:
                try:
                    note = notes.merge_notes(notes.parse_note(old_text.decode("utf-8", "replace")), note)
                    path = previous.note
                except ValueError:
                    pass  # a person broke the old note's front matter: write the new range as its own note
        message = format_message(
            "extract", scope, note.title, body=note.summary,
            trailers=self.trailers(work, t.end, note.outcome, [
                ("Memgit-Extractor", note.extractor),
                ("Memgit-Tokens", extraction.tokens),
            ]) + [("Memgit-Note", path)],
        )
        content = notes.render_note(note).encode("utf-8")
        try:
            sha = self.repo.commit_with_retry(branch, lambda head: ({path: content}, message), allow_empty=True)
        except SecretFound as e:
            return self.record(work, "fail", branch, scope, t.end, f"commit refused by the secret gate: {e.message}")
        self.commits += 1
        return SessionResult(note.session, "extract", scope, branch, work.start, t.end, note=path, sha=sha,
                             title=note.title)


def plan(cfg: Config, opts: SyncOptions, *, now: float | None = None) -> tuple[list[Work], Ledger]:
    """Return what a sync would read (used by --dry-run and status)."""
    from .repo import MemoryRepo

    with MemoryRepo.open(cfg.repo_path, author=cfg.author) as repo:
        led = ledger_mod.load(repo, cfg.state_dir)
    files = claude_code.discover(claude_code.projects_dir(cfg.claude_root))
    return select(files, led, cfg, opts, now=time.time() if now is None else now), led


def run(cfg: Config, opts: SyncOptions, *, now: float | None = None,
        on_wait: Callable[[int | None], None] | None = None,
        on_progress: Callable[[int, int, str], None] | None = None) -> SyncResult:
    """Sync transcripts into the memory repo, one commit per session read.

    Raises:
        NotARepo: the memory repository is missing and could not be created.
        LockHeld: another sync holds the lock and `opts.wait` is false.
    """
    from .lock import sync_lock
    from .repo import MemoryRepo
    from .extract import heuristic

    now = time.time() if now is None else now
    ensure_repo(cfg)
    with sync_lock(cfg.state_dir, wait=opts.wait, on_wait=on_wait):
        _log_to_state_dir(cfg.state_dir)
        gate = lambda blobs: redact.gate(blobs, cfg.extra_redact_patterns)  # noqa: E731
        with MemoryRepo.open(cfg.repo_path, author=cfg.author, gate=gate) as repo:
            led = ledger_mod.load(repo, cfg.state_dir)
            files = claude_code.discover(claude_code.projects_dir(cfg.claude_root))
            work = select(files, led, cfg, opts, now=now)
            state = _Run(repo, cfg, led, heuristic.extract, heuristic.EXTRACTOR)
            if opts.project:
                work = [w for w in work if state.in_project(w.file, opts.project)]
            result = SyncResult(str(cfg.repo_path), dry_run=opts.dry_run)
            if opts.dry_run:
                result.results = [
                    SessionResult(f"{claude_code.AGENT}/{w.file.session_id}", "planned", w.file.project_dir,
                                  start=w.start, end=w.file.size, reason=w.why)
                    for w in work
                ]
                return result
            if work:
                if repo.record_edits():
                    result.commits += 1
            for i, item in enumerate(work):
                if on_progress:
                    on_progress(i, len(work), item.file.session_id[:8])
                result.results.append(state.process(item))
            if on_progress:
                on_progress(len(work), len(work), "")
            result.commits += state.commits
            return result


def ensure_repo(cfg: Config):
    """Create the memory repository on first use."""
    from .repo import MemoryRepo

    if (cfg.repo_path / ".git").is_dir():
        return
    from .resources import repo_template_files

    MemoryRepo.init(cfg.repo_path, repo_template_files(), author=cfg.author).close()


def _log_to_state_dir(state_dir: Path) -> None:
    """Send tracebacks of failed sessions to .git/memgit/sync.log (once per process)."""
    if any(getattr(h, "_memgit", False) for h in log.handlers):
        return
    state_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.FileHandler(state_dir / "sync.log", encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    handler._memgit = True
    log.addHandler(handler)
    log.setLevel(logging.INFO)
