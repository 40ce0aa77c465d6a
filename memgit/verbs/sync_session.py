"""One sync run's sessions, each in three steps: prepare (read, redact, place; main thread), extract (any thread),
finish (gate and commit, in order); memgit.verbs.sync_pipeline runs them one after another, in threads or in workers."""

from __future__ import annotations

import errno
import logging
import os
import threading
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fnmatch import fnmatch
from typing import Callable

from memgit.core import ledger as ledger_mod
from memgit.core import notes, redact, scopes, vocab
from memgit.config import Config
from memgit.core.names import safe_label
from memgit.core.selector import pick, project_names
from memgit.errors import FULL_ERRNOS, LLMError, MemgitError, SecretFound, TranscriptGone
from memgit.core.ledger import Ledger, format_message
from memgit.core.model import Extraction, Transcript
from memgit.core.redact import redact_note, redact_transcript
from memgit.verbs.sync_trailers import cut_trailer, epoch, usage_trailers, utc_date
from memgit.verbs.sync_result import SessionResult
from memgit.verbs.selection import Work, readable_end
from memgit.verbs.sync_place import Places, Seen, observe
from memgit.sources import registry
from memgit.sources.files import SessionFile, sha256_range

log = logging.getLogger("memgit.verbs.sync")
MAIN = vocab.MAIN


UNREACHABLE_LIMIT = 3  # sessions in a row the model could not be reached for before the run stops calling it


def ledger_id(file: SessionFile) -> str:
    """The session's id as the ledger and its note name it (a safe stand-in for an odd file name)."""
    return file.key.split("/", 1)[1]


def short_id(file: SessionFile) -> str:
    """The first 8 characters of the session's id: how progress and commit subjects name it."""
    return ledger_id(file)[:8]


@dataclass(slots=True)
class _Prepared:
    """A session read, redacted and placed in its scope (main thread), ready for its extractor."""

    work: Work
    key: str
    end: int
    branch: str = MAIN
    scope: str = MAIN
    project: str = ""
    transcript: Transcript | None = None
    done: SessionResult | None = None  # decided without extraction: nothing new, or left pending
    error: BaseException | None = None  # reading or placing failed: a `fail`
    cwd: str | None = None  # where the session ran, as read (redacted): what it is placed by
    seen: Seen | None = None  # what the transcript shows of its project (sync_place.observe)
    outcome: Extraction | BaseException | None = None  # extracted by a worker, before placing (sync_fork)

    @property
    def ready(self) -> bool:
        return self.transcript is not None and self.done is None and self.error is None


class SyncRun:
    """State of one sync run: the open repo, the ledger, the known projects and the extractor."""

    def __init__(self, repo, cfg: Config, ledger: Ledger, extract, extractor_name: str):
        self.repo, self.cfg, self.ledger = repo, cfg, ledger
        self.extract, self.extractor_name = extract, extractor_name
        self.commits = 0
        self.stop = ""  # why the model is not called again in this run (a missing or refused key, an outage)
        self.stop_recorded = False  # the session that met it has its `fail` commit
        self.unreachable = 0  # sessions in a row the model could not be reached for
        self.model_failures = 0  # sessions recorded as `fail` because of the model (see SyncResult.model_failure)
        self.warnings: list[str] = []  # for the run's result (a redo that kept a person's edit)
        self.halt = threading.Event()  # set by a worker on an auth failure: the others stop calling
        self.over_budget = False  # the day's budget stopped the run (memgit.models.spending)
        self.places = Places(repo, self.clean, self.redact)

    @property
    def projects(self) -> list[scopes.Project]:
        return self.places.projects

    def project_for(self, cwd: str | None, transcript: Transcript | None = None) -> tuple[str, str, str]:
        """Return (branch, project name, scope label) for a session's cwd; main when unknown (see sync_place)."""
        with self._counting():
            return self.places.project_for(cwd, transcript)

    def identify(self, cwd: str) -> tuple[scopes.Identity, str]:
        """The identity of a cwd, and the cwd, as they are written (see scopes.written)."""
        return self.places.identify(cwd)

    def clean(self, text: str) -> str:
        """A cwd, a path or a branch name as it may be written."""
        return safe_label(text, self.cfg.extra_redact_patterns)

    def redact(self, text: str) -> str:
        return redact.redact(text, self.cfg.extra_redact_patterns)

    def project_filter(self, files: list[SessionFile], name: str) -> Callable[[SessionFile], bool]:
        """Which sessions `--project name` means: one project (its name, slug or branch, exact or a
        prefix only it has; a project not synced yet by the name it will get), one agent folder the
        same way, or the folders a glob matches.

        Raises:
            NoMatch: no project or folder is named by it.
            AmbiguousSelector: several are (listed).
        """
        if any(c in name for c in "*?["):
            return lambda f: fnmatch(f.project_dir, name)
        names = {p.branch: project_names(p.branch, p.name) for p in self.projects}
        owner: dict[str, str] = {}  # session key -> the project it goes to
        for f in files:
            cwd = registry.peek_cwd(f)
            if not cwd:
                continue
            identity, cwd = self.identify(cwd)
            project = scopes.resolve(identity, self.projects, cwd=cwd) or scopes.new_project(identity, self.projects)
            owner[f.key] = project.branch
            names.setdefault(project.branch, project_names(project.branch, project.name))
        names.update({f"folder {f.project_dir}": (f.project_dir,) for f in files})
        found = pick(name, names, what="project", hint="`memgit status` lists the projects and folders")
        if found.startswith("folder "):
            return lambda f: f.project_dir == found.removeprefix("folder ")
        return lambda f: owner.get(f.key) == found

    def trailers(self, work: Work, t_end: int, outcome: str, extra: list) -> list:
        file = work.file
        return [
            ("Memgit-Session", file.key),
            ("Memgit-Source", file.source),
            ("Memgit-Range", f"{work.start}-{t_end}"),
            ("Memgit-Source-Sha256", sha256_range(file.path, work.start, t_end)),
            *extra,
            ("Memgit-Outcome", outcome),
        ]

    def record(self, work: Work, kind: str, branch: str, scope: str, end: int, reason: str,
               extra: list = ()) -> SessionResult:
        """Commit an empty skip or fail commit that records the range as read."""
        outcome = {"skip": "skipped", "fail": "failed"}[kind]
        message = format_message(
            kind, scope, f"{short_id(work.file)} {reason}",
            trailers=[*self.trailers(work, end, outcome, list(extra)), ("Memgit-Reason", reason)],
        )
        sha = self.repo.commit_with_retry(branch, lambda head: ({}, message), allow_empty=True)
        self.commits += 1
        return SessionResult(work.file.key, kind, scope, branch,
                             work.start, end, reason, sha=sha)

    # -- one session in three steps: prepare (main thread), extract (any thread), finish (main thread)

    def prepare(self, work: Work) -> _Prepared:
        """Read, redact and place a session; repo writes (a new project's PROJECT.md) happen here."""
        prep = self.read(work)
        if prep.ready:
            self.place(prep)
        return prep

    def read(self, work: Work) -> _Prepared:
        """Read and redact a session, and what it shows of its project; nothing is written (any process)."""
        key = work.file.key
        prep = _Prepared(work, key, end=max(work.file.size, work.start))
        if work.why == "redo" and (edited := self.edited_note(key)):
            prep.done = SessionResult(key, "none", start=work.start, end=work.start, reason=edited)
            self.warnings.append(edited)
            return prep
        try:
            t = registry.read(work.file, start=work.start, session_id=ledger_id(work.file), clean=self.redact)
            t = readable_end(work, t, now=time.time(), min_idle_minutes=self.cfg.min_idle_minutes)
            prep.end = t.end
            if t.end <= work.start and self.ledger.processed_end(key) >= 0 and work.why != "redo":
                prep.done = SessionResult(key, "none", start=work.start, end=t.end, reason="nothing new")
                return prep
            t = redact_transcript(t, self.cfg.extra_redact_patterns)  # what placing reads may reach PROJECT.md
            prep.cwd, prep.seen = t.cwd, observe(t.cwd, t) if t.cwd else None
            prep.transcript = replace(t, cwd=t.cwd and self.clean(t.cwd), git_branch=t.git_branch and self.clean(t.git_branch))
        except TranscriptGone as e:  # deleted since it was listed: nothing to read, nothing to retry
            prep.done = SessionResult(key, "gone", start=work.start, end=work.start, reason=e.message)
        except Exception as e:  # recorded as a `fail` by finish() (an unreadable file: retried by --retry-failed)
            prep.error = e
        return prep

    def place(self, prep: _Prepared) -> None:
        """File a read session in its project (a new project's PROJECT.md is committed here)."""
        with self._counting():
            try:
                prep.branch, prep.project, prep.scope = self.places.place(prep.cwd, prep.seen)
            except Exception as e:  # recorded as a `fail` by finish(), as a reading failure is
                prep.error = e

    @contextmanager
    def _counting(self) -> Iterator[None]:
        """Count the PROJECT.md commits placing made as this run's."""
        before = self.places.commits
        try:
            yield
        finally:
            self.commits += self.places.commits - before

    def read_and_extract(self, work: Work) -> _Prepared:
        """A worker's part of a session (sync_fork): read, redact, extract; the transcript's text stays here.

        The extraction is made before the session is placed: only the note's `project` waits for it
        (set by `placed_outcome`).
        """
        prep = self.read(work)
        if prep.ready:
            prep.outcome = self.run_extractor(prep)
            prep.transcript = replace(prep.transcript, turns=[])
        for error in (prep.error, prep.outcome):
            if isinstance(error, BaseException):  # its traceback does not travel: its text does
                error.add_note("".join(traceback.format_tb(error.__traceback__)))
        return prep

    def placed_outcome(self, prep: _Prepared) -> Extraction | BaseException | None:
        """Place a session a worker read and extracted; its extraction, the note in the project placed."""
        if not prep.ready:
            return None
        self.place(prep)
        outcome = prep.outcome
        if isinstance(outcome, Extraction) and outcome.note is not None:
            outcome = replace(outcome, note=replace(outcome.note, project=prep.project or prep.scope))
        return outcome

    def edited_note(self, key: str) -> str:
        """Why a redo must not overwrite a session's note: a person changed it since memgit wrote it.

        The note on the branch is compared with the blob the extract commit wrote. The redo is
        skipped rather than written beside it: a second note of one session would be consolidated
        as a second session's learnings. "" when the note is memgit's own (or gone).
        """
        entry = self.ledger.note_of(key)
        if entry is None:
            return ""
        now, wrote = self.repo.read(entry.branch, entry.note), self.repo.read(entry.sha, entry.note)
        if now is None or now == wrote:
            return ""
        return (f"not redone: {self.clean(entry.note)} on {entry.branch} was edited by hand since memgit wrote it "
                f"({entry.sha[:8]}); your version is kept. To redo it anyway, delete the note (or git revert "
                "your edit) and run the redo again")

    def run_extractor(self, prep: _Prepared) -> Extraction | BaseException:
        """Call the extractor; its exception is returned, for finish() to record in order."""
        if self.halt.is_set():
            return _Held()
        try:
            return self.extract(prep.transcript, project=prep.project or prep.scope)
        except Exception as e:
            if getattr(e, "auth", False) or getattr(e, "budget", False):
                self.halt.set()
            return e

    def finish(self, prep: _Prepared, outcome: Extraction | BaseException | None) -> SessionResult:
        """Commit what came of a session: its note, a skip, a fail; or nothing when it is left pending."""
        if prep.done is not None:
            return prep.done
        error = prep.error if prep.error is not None else outcome
        if isinstance(error, BaseException):
            return self.failed(prep, error)
        extraction: Extraction = outcome  # type: ignore[assignment]
        self.unreachable = 0
        if extraction.prompt:
            log.info("session %s: %s by %s, %d tokens, cost %s", prep.key, "note" if extraction.note else "skip",
                     self.extractor_name, extraction.tokens,
                     "unknown" if extraction.cost is None else f"${extraction.cost:.6f}")
        if extraction.note is None:
            extra = ([("Memgit-Extractor", self.extractor_name)] if not extraction.prompt else
                     usage_trailers(self.extractor_name, extraction.prompt, extraction.tokens, extraction.cost))
            extra += cut_trailer(prep.transcript)
            result = self.record(prep.work, "skip", prep.branch, prep.scope, prep.end,
                                 extraction.reason or "nothing worth keeping", extra)
        else:
            result = self.commit_note(prep.work, prep.transcript, prep.branch, prep.scope, extraction)
        result.tokens, result.cost = extraction.tokens, extraction.cost
        return result

    def failed(self, prep: _Prepared, error: BaseException) -> SessionResult:
        """Record a `fail`; an unusable key or a model out of reach stops further calls (see `hold`)."""
        extra: list = []
        if getattr(error, "budget", False):  # nothing was sent: the session waits for the reset, unrecorded
            self.stop, self.stop_recorded, self.over_budget = getattr(error, "message", str(error)), True, True
            self.halt.set()
            return self.hold(prep.work)
        if isinstance(error, _Held) or (getattr(error, "auth", False) and self.stop_recorded):
            return self.hold(prep.work)  # the key was refused for an earlier session: one fail says it
        if isinstance(error, MemgitError):
            reason = error.message
            if isinstance(error, LLMError):  # which model, and what the failed calls cost (memgit.llm.ModelError)
                self.model_failures += 1
                usage = getattr(error, "usage", None)
                extra = usage_trailers(self.extractor_name, getattr(self.extract, "prompt_hash", ""),
                                        usage.tokens if usage else 0, usage.cost if usage else None)
            if getattr(error, "auth", False):
                self.stop, self.stop_recorded = error.message, True
            elif getattr(error, "unavailable", False):
                self.unreachable += 1
                if self.unreachable >= UNREACHABLE_LIMIT and not self.stop:
                    self.stop = (f"{error.message}; stopped after {self.unreachable} sessions in a row could not "
                                 "reach the model")
                    self.stop_recorded = True
        else:  # one odd transcript must not stop the others; the traceback goes to the log
            if os.environ.get("MEMGIT_DEBUG") or _unwritable(error):
                raise error  # a full or read-only repo: recording the failure would fail too
            log.error("session %s failed:\n%s", prep.key,
                      "".join(traceback.format_exception(type(error), error, error.__traceback__)))
            reason = f"internal error: {type(error).__name__}: {error}"
        reason = self.clean(ledger_mod.one_line(reason, 200))
        result = self.record(prep.work, "fail", prep.branch, prep.scope, prep.end, reason,
                             extra + cut_trailer(prep.transcript))
        usage = getattr(error, "usage", None)
        if usage is not None:
            result.tokens, result.cost = usage.tokens, usage.cost
        return result

    def hold(self, work: Work) -> SessionResult:
        """Leave a session pending (no commit): the next sync takes it as if this run never had."""
        return SessionResult(work.file.key, "pending", start=work.start,
                             end=work.file.size, reason="not attempted: the model cannot be used (see the error)")

    def begin(self, work: Work) -> _Prepared:
        """Prepare a session, unless the run already knows the model cannot be used."""
        if self.stop and self.stop_recorded:
            prep = _Prepared(work, work.file.key, end=work.file.size)
            prep.done = self.hold(work)
            return prep
        prep = self.prepare(work)
        if self.stop and prep.ready:  # the key was missing before any call: this session records it
            prep.error = _Stopped(self.stop, auth=True)
        return prep

    def process(self, work: Work) -> SessionResult:
        """Read, extract and commit one session; any failure becomes a recorded `fail`."""
        prep = self.begin(work)
        return self.finish(prep, self.run_extractor(prep) if prep.ready else None)

    def commit_note(self, work: Work, t: Transcript, branch: str, scope: str, extraction: Extraction) -> SessionResult:
        note = redact_note(extraction.note, self.cfg.extra_redact_patterns)
        if note.cwd:  # the extractor saw the full path (to tell the project's files); the note keeps it from ~
            note = replace(note, cwd=scopes.portable_path(note.cwd))
        if t.cut:  # the reader of the note learns the session's end was lost
            note = replace(note, extra={**note.extra, ledger_mod.CUT_KEY: ledger_mod.cut_text(t.cut)})
        previous = self.ledger.note_of(note.session) if work.why != "redo" else None
        path = notes.note_path(note, utc_date(work.file.mtime))
        if previous and previous.branch == branch:
            old_text = self.repo.read(branch, previous.note)
            if old_text is not None:
                try:
                    note = notes.merge_notes(notes.parse_note(old_text.decode("utf-8", "replace")), note)
                    path = previous.note
                except ValueError:
                    pass  # a person broke the old note's front matter: write the new range as its own note
        usage = (usage_trailers(note.extractor, extraction.prompt, extraction.tokens, extraction.cost)
                 if extraction.prompt else [("Memgit-Extractor", note.extractor), ("Memgit-Tokens", extraction.tokens)])
        message = format_message(
            "extract", scope, note.title, body=note.summary,
            trailers=self.trailers(work, t.end, note.outcome, usage + cut_trailer(t)) + [("Memgit-Note", path)],
        )
        content = notes.render_note(note).encode("utf-8")
        if (work.why == "redo" and self.ledger.processed_end(work.file.key) >= t.end
                and self.repo.read(branch, path) == content):  # an empty commit would record nothing new
            self.warnings.append(f"{note.session} redone: the note came out as it was ({path}); nothing committed")
            return SessionResult(note.session, "none", scope, branch, work.start, t.end, note=path,
                                 reason="redone, unchanged")
        try:
            # Authored when the session ended, committed now: `git log --format=%ad` tells when it happened.
            sha = self.repo.commit_with_retry(branch, lambda head: ({path: content}, message), allow_empty=True,
                                              author_time=epoch(t.ended))
        except SecretFound as e:
            return self.record(work, "fail", branch, scope, t.end, f"commit refused by the secret gate: {e.message}",
                               usage)
        self.commits += 1
        return SessionResult(note.session, "extract", scope, branch, work.start, t.end, note=path, sha=sha,
                             title=note.title)


def _unwritable(error: BaseException) -> bool:
    """True for the OSErrors that say the repo's disk cannot be written (the run stops, see cli)."""
    return isinstance(error, OSError) and error.errno in (FULL_ERRNOS | {errno.EROFS})


class _Held(Exception):
    """A session whose extraction was not attempted: another one met a refused key first."""


class _Stopped(LLMError):
    """The model cannot be used in this run (found before any call)."""

    def __init__(self, message: str, *, auth: bool = False):
        super().__init__(message)
        self.auth = auth
