"""The `memgit sync` pipeline: discover, select, read, redact, extract, redact, gate, commit."""

from __future__ import annotations

import json
import logging
import time
from contextlib import nullcontext
from dataclasses import replace
from typing import Callable

from memgit.store import ledger_cache
from memgit.core import redact
from memgit.config import Config
from memgit.core.budget import Spend, day_start
from memgit.core.names import safe_name, safe_text
from memgit.core.vocab import PREFIX
from memgit.errors import LLMError, MemgitError, StorageError
from memgit.core.redact import redact_transcript
from memgit.models import spending
from memgit.verbs import budget, sync_fork, sync_pipeline
from memgit.verbs.sync_log import log_to_state_dir
from memgit.verbs.sync_result import SessionResult, SyncResult
from memgit.verbs.sync_session import SyncRun, ledger_id
from memgit.verbs import sync_noop
from memgit.verbs.selection import SyncOptions, Work, select, too_old, unchanged_until
from memgit.sources import registry
from memgit.store.context_cache import read_refs
from memgit.store.lengths import Lengths

log = logging.getLogger("memgit.verbs.sync")
SETTLED = "settled.json"  # branch heads after the last complete consolidation (derived)


# ---- the run: the imperative shell --------------------------------------------------------


# ---- choosing the extractor ---------------------------------------------------------------


def with_model(cfg: Config, model: str | None = None, api_base: str | None = None) -> Config:
    """The config with `--model` (extraction and consolidation) and `--api-base` applied."""
    if model:
        cfg = replace(cfg, extract_model=model, consolidate_model=model)
    if api_base:
        cfg = replace(cfg, api_base=api_base)
    return cfg


def _extractor(cfg: Config):
    """(extract callable, its name): the offline heuristic, or the LLM extractor for a model string."""
    if cfg.extract_model == "heuristic":
        from memgit.extract import heuristic

        return heuristic.extract, heuristic.EXTRACTOR  # looked up now: tests replace heuristic.extract
    from memgit.extract.llm import LLMExtractor

    extractor = LLMExtractor(cfg)
    return extractor, extractor.name


def _estimate(extractor, work: Work, cfg: Config) -> tuple[int, float | None]:
    """Tokens an LLM extraction of `work` would send, and its estimated cost; (0, None) when unreadable."""
    try:
        t = registry.read(work.file, start=work.start, session_id=ledger_id(work.file),
                          clean=lambda text: redact.redact(text, cfg.extra_redact_patterns))
    except MemgitError:
        return 0, None
    return extractor.estimate(redact_transcript(t, cfg.extra_redact_patterns), cfg, project=work.file.project_dir)


def run(cfg: Config, opts: SyncOptions, *, now: float | None = None,
        on_wait: Callable[[int | None], None] | None = None,
        on_progress: Callable[[int, int, str], None] | None = None) -> SyncResult:
    """Sync transcripts into the memory repo, one commit per session read; with `[repo] auto_pull`
    pull first, with `auto_push` push afterwards (a failure of either is a warning, recorded for
    `memgit status`: a sync never fails, nor waits long, on a network).

    Raises: as _sync.
    """
    pulled = None
    if not opts.dry_run and cfg.auto_pull:
        from memgit.verbs import remote

        ensure_repo(cfg)
        pulled = remote.auto_pull(cfg, wait=opts.wait)
    result = _sync(cfg, opts, now=now, on_wait=on_wait, on_progress=on_progress)
    result.warnings += [pulled] if pulled else []
    if not opts.dry_run and cfg.auto_push:
        from memgit.verbs import remote

        pushed = remote.auto_push(cfg)
        result.warnings += [pushed] if pushed else []
    return result


def _sync(cfg: Config, opts: SyncOptions, *, now: float | None = None,
          on_wait: Callable[[int | None], None] | None = None,
          on_progress: Callable[[int, int, str], None] | None = None) -> SyncResult:
    """Sync transcripts into the memory repo, one commit per session read.

    With an LLM (`cfg.extract_model` is a litellm model string) up to `cfg.concurrency` sessions
    are extracted at once; their commits are still made one at a time, in the sessions' order.

    Raises:
        NotARepo: the memory repository is missing and could not be created.
        LockHeld: another sync holds the lock and `opts.wait` is false.
        LLMError: the model cannot be used (a missing or refused key, or it stayed out of reach):
            the first session that met it is recorded as `fail`, the rest are left pending.
    """
    from memgit.store.lock import sync_lock
    from memgit.store.repo import MemoryRepo
    from memgit.store import bootstrap

    now = time.time() if now is None else now
    from memgit import models

    for model in {cfg.extract_model, cfg.consolidate_model} - {"heuristic"}:
        models.require(model)  # a missing extra fails here, before anything is read or recorded
    if opts.dry_run:
        return _plan(cfg, opts, now=now)
    ensure_repo(cfg)
    with sync_lock(cfg.state_dir, wait=opts.wait, on_wait=on_wait):
        log_to_state_dir(cfg.state_dir)
        with MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
            upgraded = len(bootstrap.upgrade(repo))  # a repo older than its skeleton
            plain = replace(opts, wait=True) == SyncOptions()  # what sync_noop answers without this pipeline
            refs = read_refs(str(cfg.repo_path / ".git")) if plain else {}  # before the ledger is read from them
            led = ledger_cache.load(repo, cfg.state_dir)
            by_hand = [] if opts.dry_run else _noticed(repo, cfg)
            listing = registry.scan(cfg)
            lengths = Lengths(cfg.state_dir, registry.length)
            work = select(listing.files, led, cfg, opts, now=now, length=lengths,
                          own=lambda f: registry.ran_in(f, cfg.model_workdir))
            lengths.save()
            if opts.project:  # resolved even when nothing is new: a name that means nothing is an error
                wanted = SyncRun(repo, cfg, led, None, "").project_filter(listing.files, opts.project)
                work = [w for w in work if wanted(w.file)]
            if not work:  # the common case after every session: keep it light
                result = SyncResult(str(cfg.repo_path), extractor=_extractor_name(cfg), unreadable=_named(listing.unreadable),
                                    commits=upgraded)
                _left_out(result, listing.files, led, cfg, opts, now=now)
                witness = sync_noop.inputs(cfg, listing, refs) if plain else None  # the memory folders before they are read
                _import_memory(repo, cfg, led, result)
                if not _settled(repo, cfg):  # something moved since the last consolidation (a crash, a revert)
                    _after_commits(repo, cfg, result)
                    result.kept += repo.kept_edits  # consolidation records a person's edits first
                _tell_noticed(repo, cfg, result, by_hand)
                if plain:
                    sync_noop.record(cfg, witness, result, now=now,
                                     until=unchanged_until(listing.files, led, cfg, now=now, length=lengths))
                return result
            heuristic_run = cfg.extract_model == "heuristic"
            extract, name = _extractor(cfg)
            state = SyncRun(repo, cfg, led, extract, name)
            result = SyncResult(str(cfg.repo_path), extractor=name, unreadable=_named(listing.unreadable),
                                commits=upgraded)
            _left_out(result, listing.files, led, cfg, opts, now=now)
            if work:
                if repo.record_edits():
                    result.commits += 1
                    result.kept += repo.kept_edits
                result.warnings += _refused_warnings(repo.refused_edits)
                if not heuristic_run:
                    from memgit import llm

                    try:
                        llm.check_credentials(cfg.extract_model, cfg.api_base)  # once, before any session is read
                    except LLMError as e:
                        state.stop = e.message
            concurrency = 1 if heuristic_run else max(1, cfg.concurrency)  # the heuristic is CPU-bound: no threads
            uses_model = not heuristic_run or cfg.consolidate_model != "heuristic"
            # The heuristic's commits are published in batches (one pack, one fsync, each branch moved
            # once: store/commits.py); a model's come seconds apart, each worth more than its fsync.
            with (repo.batch() if heuristic_run else nullcontext()), \
                    (spending.watching(budget.today(repo, cfg, now), clock=lambda: now) if uses_model
                     else nullcontext()):  # every model call asks the day's budget first
                processes = sync_fork.workers(cfg.concurrency, len(work)) if heuristic_run else 0
                result.results = sync_pipeline.process_all(state, work, on_progress, concurrency, processes)
                if on_progress:
                    on_progress(len(work), len(work), "")
                result.commits += state.commits
                result.model_failures = state.model_failures
                result.warnings += state.warnings
                _import_memory(repo, cfg, led, result)
                _after_commits(repo, cfg, result, consolidate=not state.stop)  # a model known unusable: next sync
            _tell_noticed(repo, cfg, result, by_hand)
            if state.over_budget:
                left = result.count("pending")
                raise LLMError(f"{state.stop}; {left} session(s) left pending, read by the first sync after the reset")
            if state.stop:
                left = result.count("pending")
                raise LLMError(f"{state.stop} (the session that met it is recorded as failed: once fixed, run "
                               f"memgit sync --retry-failed{f'; {left} more left pending' if left else ''})")
            return result


def _plan(cfg: Config, opts: SyncOptions, *, now: float) -> SyncResult:
    """What a sync would read and say, writing nothing anywhere: no repository is created, no cache,
    lock or log written (the ledger is read from history when its cache is stale)."""
    from memgit.core.ledger import Ledger
    from memgit.store import bootstrap
    from memgit.store.repo import MemoryRepo

    exists = bootstrap.has_main(cfg.repo_path)
    repo = MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) if exists else None
    try:
        led = ledger_cache.load(repo, cfg.state_dir, save=False) if repo is not None else Ledger()
        listing = registry.scan(cfg)
        work = select(listing.files, led, cfg, opts, now=now, length=Lengths(cfg.state_dir, registry.length),
                      own=lambda f: registry.ran_in(f, cfg.model_workdir))
        if opts.project:  # a name that means nothing is an error here too
            wanted = SyncRun(repo, cfg, led, None, "").project_filter(listing.files, opts.project)
            work = [w for w in work if wanted(w.file)]
        spend = budget.today(repo, cfg, now) if repo is not None and cfg.extract_model != "heuristic" else None
    finally:
        if repo is not None:
            repo.close()
    extract, name = _extractor(cfg)
    result = SyncResult(str(cfg.repo_path), dry_run=True, extractor=name, unreadable=_named(listing.unreadable),
                        new_repo=not exists)
    for w in work:
        planned = SessionResult(w.file.key, "planned", safe_name(w.file.project_dir), start=w.start, end=w.file.size,
                                reason=w.why)
        if cfg.extract_model != "heuristic":
            planned.tokens, planned.cost = _estimate(extract, w, cfg)
        result.results.append(planned)
    if cfg.extract_model != "heuristic":  # the estimate against the day's budget
        spend = spend or Spend(0, 0.0, cfg.max_tokens_per_day, cfg.max_cost_per_day, day_start(now))  # no repository yet
        result.budget = budget.dry_run(spend, sum(r.tokens for r in result.results), result.cost, now)
    _left_out(result, listing.files, led, cfg, opts, now=now)
    return result


def _left_out(result: SyncResult, files: list, led, cfg: Config, opts: SyncOptions, *, now: float) -> None:
    """What a person should know of the sessions a run leaves out: those past the age window (a
    plain run), or, when no agent's folder holds a session at all, where memgit looked."""
    if not (opts.all or opts.session or opts.redo or opts.retry_failed or opts.project):
        result.too_old = too_old(files, led, cfg, now=now)
        result.max_age_days = cfg.max_age_days
    if not files:
        result.looked_in = registry.looked_in(cfg)


def _named(unreadable: dict[str, str]) -> dict[str, str]:
    """Folders that could not be listed, and why, as memgit may print and record them."""
    return {f"{key.partition(':')[0]}:{safe_name(key.partition(':')[2])}": safe_text(why)
            for key, why in unreadable.items()}


def _noticed(repo, cfg: Config) -> list[dict]:
    from memgit.verbs import purge

    return purge.noticed(repo, cfg)


def _tell_noticed(repo, cfg: Config, result: SyncResult, found: list[dict]) -> None:
    """Say which secrets got past the gate (a person's own commit), each with the `memgit purge` line that removes it."""
    from memgit.verbs import purge

    result.secrets = found
    result.warnings += [f"a possible secret got into the history: {f['what']}; remove it with: {f['purge']}"
                        for f in found]
    purge.remember_noticed(repo, cfg, found)


def _refused_warnings(refused: dict[str, str]) -> list[str]:
    """What a person wrote into the worktree that memgit will not commit, and why."""
    return [f"not committed: {safe_text(path)} holds what looks like a secret ({found}); remove the value (or, if "
            "it is not a secret, add a pattern to [redact] allow) and the next sync commits the file"
            for path, found in sorted(refused.items())]


def _extractor_name(cfg: Config) -> str:
    from memgit.extract import HEURISTIC

    return HEURISTIC if cfg.extract_model == "heuristic" else cfg.extract_model


def _import_memory(repo, cfg: Config, led, result: SyncResult) -> None:
    """Claude Code's own memory folders onto the branches their projects' sessions go to; a failure
    is a warning, never the sync's (memgit.verbs.import_memory)."""
    from memgit.verbs import import_memory

    runs: list[SyncRun] = []

    def resolve(cwd: str | None) -> tuple[str, str, str]:  # read the projects only when a folder needs them
        if not runs:
            runs.append(SyncRun(repo, cfg, led, None, ""))
        return runs[0].project_for(cwd)

    result.imported, warnings = import_memory.for_sync(repo, cfg, resolve)
    result.commits += sum(1 for r in result.imported if r.sha) + (runs[0].commits if runs else 0)
    result.warnings += warnings


def _settled(repo, cfg: Config) -> bool:
    """True when no branch moved since a run last consolidated everything (.git/memgit/settled.json)."""
    try:
        return json.loads((cfg.state_dir / SETTLED).read_text(encoding="utf-8")) == repo.branches()
    except (OSError, ValueError):
        return False


def _after_commits(repo, cfg: Config, result: SyncResult, *, consolidate: bool = True) -> None:
    """Consolidate what changed (and what an interrupted run left pending), then re-render the hook's context.

    Consolidation runs even when no session was read, so a run killed between its last extraction
    and its consolidation converges on the next sync; with nothing pending it commits nothing.
    """
    from memgit.verbs import consolidate as consolidation
    from memgit.verbs import briefing, install, search

    moved = _join_same_repository(repo, result)
    moved |= {r.branch for r in [*result.results, *result.imported] if r.sha}  # the hook's cache is keyed by heads
    try:
        result.consolidated = consolidation.run(repo, cfg) if consolidate else []
    except StorageError:  # a full or read-only disk: the run says so and fails (the sessions are recorded)
        raise
    except MemgitError as e:  # the sessions are recorded; memory catches up at the next sync
        log.error("consolidation failed: %s", e.message)
        result.consolidation_error = e.message
    result.commits += len(result.consolidated)
    result.warnings += [w for w in _refused_warnings(repo.refused_edits) if w not in result.warnings]
    moved |= {c.branch for c in result.consolidated}
    if moved:
        briefing.refresh(repo, cfg, moved)
        install.publish_skills(repo, cfg)  # the agents' copies of the skills follow the repository
        search.refresh_index(repo, cfg)
    if consolidate and not result.consolidation_error:
        try:  # derived: deleting it only costs the next no-op sync a consolidation check
            (cfg.state_dir / SETTLED).write_text(json.dumps(repo.branches()), encoding="utf-8")
        except OSError:
            pass
    try:
        repo.compact_packs()  # a sync leaves a few packs (its batches, each consolidation): merge the small ones
    except OSError as e:  # the objects are all there, in more packs than needed: the next sync tries again
        log.warning("packs not merged: %s", e)


def _join_same_repository(repo, result: SyncResult) -> set[str]:
    """Join the projects that came to list one remote (memgit.verbs.sync_place); the sessions filed on a
    joined branch are reported on the branch that holds them now. Returns the branches that changed."""
    from memgit.verbs.sync_place import join_same_repository

    changed: set[str] = set()
    for keep, gone, remote in join_same_repository(repo):
        result.joined.append({"into": keep, "joined": gone, "remote": remote})
        result.commits += 1
        changed |= {keep, gone}
        for r in [*result.results, *result.imported]:
            if getattr(r, "branch", None) == gone:
                r.branch = keep
                for label in ("project", "scope"):  # SessionResult's and ImportResult's name for it
                    if hasattr(r, label):
                        setattr(r, label, keep.removeprefix(PREFIX))
    return changed


def ensure_repo(cfg: Config) -> bool:
    """Create the memory repository on first use (crash-safe, one creator at a time: store.bootstrap)."""
    from memgit.store import bootstrap

    if bootstrap.has_main(cfg.repo_path):
        return False
    from memgit.resources import repo_template_files
    from memgit.verbs.purge import start_noticing

    created = bootstrap.ensure(cfg.repo_path, repo_template_files(), author=cfg.author)
    if created:
        start_noticing(cfg)
    return created
