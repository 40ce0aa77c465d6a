"""Consolidation's imperative shell: read a scope from the object store, consolidate it, commit.

Each project branch with something new gets one `consolidate(<slug>)` commit rewriting MEMORY.md,
memory_summary.md and skills/; then `main` gets `consolidate(main)` from every project's summary
and notes. What is pending is memgit.verbs.consolidate_pending's to say, reading a scope
memgit.verbs.consolidate_read's, and the commit memgit.verbs.consolidate_commit's.
"""

from __future__ import annotations

import importlib
import logging
import sqlite3
import time
from collections.abc import Callable, Iterable

from memgit.config import Config
from memgit.consolidate import _validate, heuristic
from memgit.consolidate.heuristic import cache as memory_cache
from memgit.core import bulk, scopes
from memgit.core.model import Consolidation
from memgit.core.vocab import MAIN
from memgit.errors import ConflictError, LLMError, SecretFound
from memgit.verbs.consolidate_commit import ConsolidateResult, commit
from memgit.verbs.consolidate_pending import global_pending, has_inputs, last_consolidation, pending, project_heads
from memgit.verbs.consolidate_read import delta, project_of, read_current, read_notes, read_pinned, scope_memory
from memgit.verbs import team_memory
from memgit.verbs.selection import find_project  # the one project selector rule

log = logging.getLogger("memgit.verbs.consolidate")
ATTEMPTS = 3
ACROSS = "main (across projects)"  # the cache of main's Memory over the projects' portable learnings


def run(repo, cfg: Config, *, branches: Iterable[str] | None = None, include_global: bool = True,
        now: float | None = None, force: bool = False) -> list[ConsolidateResult]:
    """Consolidate the project branches with pending changes, then main's global scope.

    Args:
        repo: an open MemoryRepo (with the secret gate the caller wants).
        branches: the project branches to look at (default: every `projects/*` branch).
        include_global: consolidate main afterwards (when anything it reads changed).
        now: unused by the heuristic, whose output must not depend on the clock (so that a
            second run is byte-identical); accepted so callers can pass their run's clock.
        force: consolidate even scopes with nothing pending (a changed budget, say).

    Returns:
        One result per consolidate commit made, projects first; [] when everything was current.

    Raises:
        SecretFound: a person's unrecorded edit in the worktree holds a secret.
        ConflictError: a branch kept moving while it was being consolidated (3 tries).
        StorageError: the disk of the consolidation cache (.git/memgit/memory) is full or read-only.
        MemgitError: the worktree is mid-merge.
    """
    del now
    repo.record_edits()
    heads = repo.branches()
    wanted = sorted(b for b in (heads if branches is None else branches)
                    if b.startswith(scopes.BRANCH_PREFIX) and b in heads)
    results = []
    for branch in wanted:
        result = _attempt(lambda: _project(repo, cfg, branch, force))
        if result:
            results.append(result)
    if include_global and MAIN in repo.branches():
        result = _attempt(lambda: _global(repo, cfg, force))
        if result:
            results.append(result)
    return results


def _attempt(step: Callable[[], ConsolidateResult | None]) -> ConsolidateResult | None:
    """Run one scope's consolidation, again from the fresh head if the branch moved meanwhile."""
    for attempt in range(ATTEMPTS):
        try:
            with bulk.paused():  # a scope's notes, groups and clusters: many objects, no cycles among them
                return step()
        except ConflictError:
            if attempt == ATTEMPTS - 1:
                raise
        except SecretFound as e:  # the notes passed the gate; a consolidation of them should too
            log.warning("consolidation refused by the secret gate: %s", e.message)
            return None
        except sqlite3.Error as e:  # the consolidation cache's disk is full or read-only: a StorageError
            storage = memory_cache.storage_error(e)
            if storage is None:
                raise
            raise storage from e
    return None


# ---- choosing the consolidator ------------------------------------------------------------


def _choose(cfg: Config, heuristic_run: Callable[[], Consolidation],
            llm_run: Callable[[object], Consolidation], budget: int) -> tuple[Consolidation, str]:
    """The configured consolidator's output, or the heuristic's with the reason it stood in."""
    if cfg.consolidate_model == "heuristic":
        return heuristic_run(), ""
    try:
        llm = importlib.import_module("memgit.consolidate.llm")  # lazy: litellm is heavy
    except ImportError as e:
        return heuristic_run(), f"the LLM consolidator is not available ({e})"
    try:
        result = llm_run(llm)
    except LLMError as e:
        return heuristic_run(), f"the LLM consolidator failed: {e.message}"
    found = _validate.problems(result, budget_tokens=budget, extra_patterns=cfg.extra_redact_patterns)
    if found:
        return heuristic_run(), f"the LLM consolidator's output was refused: {'; '.join(found[:3])}"
    return result, ""


# ---- consolidating a scope ----------------------------------------------------------------


def _about(found: list, path: str) -> tuple[str, str, str]:
    """(session, when, title) of a note, from its occurrences (a note without any keeps its path)."""
    return (found[0].session, found[0].when, found[0].title) if found else (path, "", "")


def _project(repo, cfg: Config, branch: str, force: bool) -> ConsolidateResult | None:
    if not (force or pending(repo, branch)):
        return None
    head = repo.head(branch)
    if head is None or not has_inputs(repo, head):
        return None
    scope = scopes.branch_slug(branch)
    shared = team_memory.shared_memory(repo, cfg, branch, head)  # a shared project: its teammates' notes too
    memory, team = shared if shared else (scope_memory(repo, cfg, branch, head), None)
    pinned = read_pinned(repo, head)
    project = project_of(repo, branch, head)
    budget = cfg.summary_tokens

    def heuristic_run() -> Consolidation:
        return heuristic.consolidate(memory, scope=scope, project=project, pinned=pinned, budget_tokens=budget,
                                     team=team)

    def llm_run(llm) -> Consolidation:
        notes = read_notes(repo, head)
        added, removed = delta(repo, head, last_consolidation(repo, head).through, notes)
        return llm.consolidate(scope=scope, notes=notes, added=added, removed=removed,
                               current=read_current(repo, head), pinned=pinned, cfg=cfg,
                               team=team_memory.told(memory, team) if team else ())

    try:
        c, fallback = _choose(cfg, heuristic_run, llm_run, budget)
        n_notes = len(memory)
    finally:
        memory.close()
    return commit(repo, cfg, branch, scope, head, c, n_notes=n_notes, fallback=fallback, force=force)


def _global(repo, cfg: Config, force: bool) -> ConsolidateResult | None:
    if not (force or global_pending(repo)):
        return None
    head = repo.head(MAIN)
    heads = project_heads(repo)
    counts: dict[str, tuple[str, int]] = {}
    across = memory_cache.open_memory(cfg.state_dir, ACROSS)
    try:
        known = across.versions()
        wanted: dict[str, str] = {}
        fresh: list[tuple[str, list, tuple]] = []
        for branch, sha in [*heads.items(), (MAIN, head)]:
            with scope_memory(repo, cfg, branch, sha) as memory:
                if branch == MAIN and not len(memory):
                    continue  # sessions that belonged to no project count as one more scope, when there are some
                summary = (repo.read(sha, "memory_summary.md") or b"").decode("utf-8", "replace") if branch != MAIN else ""
                counts[branch] = (summary, len(memory))
                versions = memory.portable_versions()
                wanted.update({f"{branch}:{path}": version for path, version in versions.items()})
                changed = [p for p, v in versions.items() if known.get(f"{branch}:{p}") != v]
                by_note: dict[str, list] = {}
                for o in memory.portable(branch, changed) if changed else ():
                    by_note.setdefault(o.path, []).append(o)
                for path in changed:  # main's memory follows the projects' portable learnings note by note
                    found = by_note.get(path, [])
                    fresh.append((f"{branch}:{path}", found, (versions[path], *_about(found, path), branch, "", "")))
        if not known:  # all at once: the token order is taken from them
            across.build(fresh, flag_portable=False)
        else:
            for key in sorted(set(known) - set(wanted)):
                across.remove(key)
            for key, found, meta in fresh:
                across.add_occurrences(key, found, meta)
        pinned = read_pinned(repo, head)
        budget = cfg.summary_tokens

        def heuristic_run() -> Consolidation:
            return heuristic.consolidate_global(counts, across, pinned=pinned, budget_tokens=budget)

        def llm_run(llm) -> Consolidation:
            projects = {b: ((repo.read(sha, "memory_summary.md") or b"").decode("utf-8", "replace"),
                            read_notes(repo, sha)) for b, sha in heads.items()}
            if MAIN in counts:
                projects[MAIN] = ("", read_notes(repo, head))
            return llm.consolidate_global(projects=projects, current=read_current(repo, head), pinned=pinned, cfg=cfg)

        c, fallback = _choose(cfg, heuristic_run, llm_run, budget)
    finally:
        across.close()
    n_notes = sum(n for _, n in counts.values())
    return commit(repo, cfg, MAIN, MAIN, head, c, n_notes=n_notes, fallback=fallback, read=heads, force=force)


# ---- the verb behind `memgit consolidate` ------------------------------------------------


def consolidate(cfg: Config, *, project: str | None = None, global_: bool = False, force: bool = False,
                wait: bool = True) -> list[ConsolidateResult]:
    """Consolidate pending scopes: every project then main; or `project` (and main if `global_`); or only main.

    The session-start hook's context of every branch that moved is rendered again, as a sync does,
    so the next session is told the new summary without waiting for a sync.

    Raises:
        NotARepo: there is no memory repository yet.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
        LockHeld: a sync is running and `wait` is false.
    """
    from memgit.store.lock import sync_lock
    from memgit.store.repo import MemoryRepo
    from memgit.verbs import briefing, search

    with sync_lock(cfg.state_dir, wait=wait), \
            MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        branches: list[str] | None = None
        if project:
            branches = [find_project(repo, project)]
        elif global_:
            branches = []
        include_global = global_ or project is None
        before = repo.branches()
        from memgit.models import spending
        from memgit.verbs import budget

        with spending.watching(budget.today(repo, cfg, time.time())):  # a model past the day's budget: heuristic
            results = run(repo, cfg, branches=branches, include_global=include_global, force=force)
        # Every branch it moved: the consolidations', and one a person's recorded edit moved.
        moved = {b for b, head in repo.branches().items() if before.get(b) != head}
        if moved:
            briefing.refresh(repo, cfg, moved)
            search.refresh_index(repo, cfg)
        return results
