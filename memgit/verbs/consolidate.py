"""Consolidation's imperative shell: read a scope from the object store, consolidate it, commit.

Each project branch with something new gets one `consolidate(<slug>)` commit rewriting MEMORY.md,
memory_summary.md and skills/; then `main` gets `consolidate(main)` from every project's summary
and notes. A commit's `Memgit-Through` is the head it read (its parent), so a scope is pending
when commits after that head changed what consolidation reads (notes, pinned notes, PROJECT.md,
or its own outputs by hand); an output byte-identical to what is there makes no commit. The
global commit also records, as `Memgit-Read: <branch> <sha>`, the project heads it read.
"""

from __future__ import annotations

import importlib
import logging
import sqlite3
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from memgit.core import notes as notes_mod
from memgit.core import redact, scopes, tokens
from memgit.config import Config
from memgit.consolidate import _markdown, _validate, heuristic
from memgit.consolidate.heuristic.skills import MARKER
from memgit.errors import ConflictError, LLMError, MemgitError, SecretFound
from memgit.core.ledger import format_message, one_line, parse_subject, parse_trailers
from memgit.consolidate.heuristic.graph import note_occurrences, recency
from memgit.consolidate.heuristic.memory import Memory
from memgit.core.model import Consolidation, Note
from memgit.consolidate.heuristic import cache as memory_cache

log = logging.getLogger("memgit.verbs.consolidate")
MAIN = "main"
KIND = "consolidate"
OUTPUTS = ("MEMORY.md", "memory_summary.md")
# What a scope's consolidation reads (and writes: a hand edit of an output is consolidated again).
INPUTS = ("sessions/", "notes/", "PROJECT.md", "MEMORY.md", "memory_summary.md", "skills/")
# What the global consolidation reads of a project branch.
PROJECT_INPUTS = ("sessions/", "memory_summary.md", "PROJECT.md")
ATTEMPTS = 3

Notes = list[tuple[str, Note]]


@dataclass(slots=True)
class ConsolidateResult:
    """One consolidate commit."""

    branch: str
    scope: str  # slug, or "main"
    sha: str
    through: str  # the head it read
    notes: int
    learnings: int
    consolidator: str
    summary_tokens: int
    tokens: int = 0  # spent by an LLM
    skills: list[str] = field(default_factory=list)  # written
    removed_skills: list[str] = field(default_factory=list)
    fallback: str = ""  # why the configured LLM consolidator was not used


@dataclass(slots=True)
class _Last:
    """The newest consolidate commit on a branch's first-parent line, and what came after it."""

    sha: str | None = None
    through: str | None = None
    parent: str | None = None
    read: dict[str, str] = field(default_factory=dict)  # global: project branch -> head read
    after: list[str] = field(default_factory=list)  # shas of later commits, newest first


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


# ---- what is pending ----------------------------------------------------------------------


def last_consolidation(repo, head: str) -> _Last:
    """Find the newest consolidate commit from head along first parents."""
    last = _Last()
    for info in repo.walk(head):
        subject = parse_subject(info.message)
        trailers = parse_trailers(info.message)
        if subject and subject[0] == KIND and trailers.get("Memgit-Through"):
            last.sha, last.through = info.sha, trailers["Memgit-Through"][0]
            last.parent = info.parents[0] if info.parents else None
            for value in trailers.get("Memgit-Read", []):
                branch, _, sha = value.rpartition(" ")
                if branch:
                    last.read[branch] = sha
            return last
        last.after.append(info.sha)
    return last


def _touches(repo, shas: Iterable[str], prefixes: tuple[str, ...]) -> bool:
    return any(p.startswith(prefixes) for sha in shas for p in repo.changed_paths(sha))


def _has_inputs(repo, head: str) -> bool:
    """Notes to consolidate, or an earlier consolidation to bring up to date (its notes all reverted)."""
    return bool(repo.tree_id(head, "sessions") or repo.tree_id(head, "notes") or repo.read(head, "MEMORY.md") is not None)


def pending(repo, branch: str) -> bool:
    """True when a project branch has something its last consolidation did not read."""
    head = repo.head(branch)
    if head is None:
        return False
    last = last_consolidation(repo, head)
    if last.sha is None:
        return _has_inputs(repo, head)
    if not last.after:
        return last.parent != last.through
    return _touches(repo, last.after, INPUTS)


def _project_moved(repo, branch: str, recorded: str | None, head: str) -> bool:
    if recorded == head:
        return False
    if recorded is None or not repo.is_ancestor(recorded, head):
        return True
    return _touches(repo, (i.sha for i in repo.walk(head, stop_at=recorded)), PROJECT_INPUTS)


def global_pending(repo) -> bool:
    """True when main's own inputs or any project's notes or summary changed since main's last consolidation."""
    head = repo.head(MAIN)
    if head is None:
        return False
    last = last_consolidation(repo, head)
    projects = _project_heads(repo)
    if last.sha is None:
        return _has_inputs(repo, head) or any(repo.tree_id(h, "sessions") for h in projects.values())
    if last.after and _touches(repo, last.after, INPUTS) or not last.after and last.parent != last.through:
        return True
    if set(last.read) != set(projects):
        return True
    return any(_project_moved(repo, b, last.read.get(b), h) for b, h in projects.items())


def _project_heads(repo) -> dict[str, str]:
    return {b: h for b, h in sorted(repo.branches().items()) if b.startswith(scopes.BRANCH_PREFIX)}


# ---- reading a scope ----------------------------------------------------------------------


def read_notes(repo, rev: str) -> Notes:
    """The session notes at rev; one a person broke is left out (the others still count)."""
    out = []
    for path in repo.list(rev, "sessions"):
        if not path.endswith(".md"):
            continue
        data = repo.read(rev, path)
        try:
            out.append((path, notes_mod.parse_note(data.decode("utf-8", "replace"))))
        except ValueError:
            log.warning("%s on %s is not a session note; left out of the consolidation", path, rev[:12])
    return out


def read_pinned(repo, rev: str) -> list[tuple[str, str]]:
    return [(p, repo.read(rev, p).decode("utf-8", "replace"))
            for p in repo.list(rev, "notes") if p.endswith(".md")]


def read_current(repo, rev: str) -> Consolidation | None:
    """The scope's MEMORY.md, summary and memgit's skills; None when there is no MEMORY.md yet."""
    memory = repo.read(rev, "MEMORY.md")
    if memory is None:
        return None
    summary = repo.read(rev, "memory_summary.md") or b""
    skills = {}
    for path in repo.list(rev, "skills"):
        parts = path.split("/")
        text = repo.read(rev, path).decode("utf-8", "replace") if len(parts) == 3 and parts[2] == "SKILL.md" else ""
        if MARKER in text:  # memgit's own; a person's skills are theirs alone
            skills[parts[1]] = text
    return Consolidation(memory.decode("utf-8", "replace"), summary.decode("utf-8", "replace"), skills,
                         consolidator="")


def _project_of(repo, branch: str, rev: str) -> scopes.Project | None:
    text = repo.read(rev, "PROJECT.md")
    if text is None:
        return None
    try:
        return scopes.parse_project_md(text.decode("utf-8", "replace"), branch)
    except ValueError:
        return None  # the summary then names the project by its slug


def _delta(repo, head: str, through: str | None, notes: Notes) -> tuple[Notes, Notes]:
    """(added, removed) session notes since `through`: new or changed at head; gone since."""
    if through is None:
        return list(notes), []
    changed: set[str] = set()
    for info in repo.walk(head, stop_at=through):
        changed.update(p for p in repo.changed_paths(info.sha) if p.startswith("sessions/"))
    current = dict(notes)
    added = [(p, current[p]) for p in sorted(changed) if p in current]
    removed = []
    for path in sorted(changed - set(current)):
        data = repo.read(through, path)
        if data is not None:
            try:
                removed.append((path, notes_mod.parse_note(data.decode("utf-8", "replace"))))
            except ValueError:
                pass  # it was no note then either
    return added, removed


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


# ---- committing ---------------------------------------------------------------------------


def _changes(repo, head: str, c: Consolidation) -> tuple[dict[str, bytes | None], list[str]]:
    """Files to write (outputs, skills) and memgit's skills to delete; returns (changes, removed names)."""
    changes: dict[str, bytes | None] = {
        "MEMORY.md": c.memory_md.encode("utf-8"),
        "memory_summary.md": c.summary_md.encode("utf-8"),
    }
    ours, theirs = set(), set()
    for path in repo.list(head, "skills"):
        parts = path.split("/")
        if len(parts) == 3 and parts[2] == "SKILL.md":
            (ours if MARKER.encode() in (repo.read(head, path) or b"") else theirs).add(parts[1])
    for name, text in sorted(c.skills.items()):
        if name not in theirs:  # a person's own skill of the same name wins
            changes[f"skills/{name}/SKILL.md"] = text.encode("utf-8")
    removed = sorted(ours - set(c.skills))
    for name in removed:
        changes[f"skills/{name}/SKILL.md"] = None
    return changes, removed


class _Paths:
    """The files at a commit, looked up one by one: checking a summary's few dozen links must not
    list a branch of 10,000 notes."""

    def __init__(self, repo, rev: str, extra: set[str]):
        self.repo, self.rev, self.extra = repo, rev, extra

    def __contains__(self, path: object) -> bool:
        return path in self.extra or (isinstance(path, str) and self.repo.exists(self.rev, path))


def _commit(repo, cfg: Config, branch: str, scope: str, head: str, c: Consolidation, *, n_notes: int,
            fallback: str, read: dict[str, str] | None = None) -> ConsolidateResult | None:
    existing = _Paths(repo, head, {*OUTPUTS, *(f"skills/{n}/SKILL.md" for n in c.skills)})
    c = _validate.repair(c, existing)
    changes, removed = _changes(repo, head, c)
    n_learnings = _markdown.learnings(c.memory_md)
    summary_tokens = tokens.count_often(c.summary_md)
    body = [f"MEMORY.md: {n_learnings} learnings from {n_notes} notes",
            f"memory_summary.md: {summary_tokens} tokens (budget {cfg.summary_tokens}), "
            f"{len(c.summary_md)} characters"]
    if c.skills or removed:
        body.append("skills: " + ", ".join([*sorted(c.skills), *(f"-{n}" for n in removed)]))
    if fallback:  # an error's words may quote a reply: redacted like everything memgit commits
        body.append(redact.redact(one_line(f"Fell back to {heuristic.CONSOLIDATOR}: {fallback}", 400),
                                  cfg.extra_redact_patterns))
    trailers = [("Memgit-Through", head), ("Memgit-Consolidator", c.consolidator),
                ("Memgit-Tokens", c.tokens), ("Memgit-Summary-Tokens", summary_tokens),
                ("Memgit-Prompt", c.prompt or None)]
    trailers += [("Memgit-Read", f"{b} {sha}") for b, sha in sorted((read or {}).items())]
    message = format_message(KIND, scope, f"{n_notes} notes, {n_learnings} learnings",
                             body="\n".join(body), trailers=trailers)
    sha = repo.commit(branch, changes, message, expected=head)
    if sha == head:
        return None  # byte-identical: nothing to commit
    return ConsolidateResult(branch, scope, sha, head, n_notes, n_learnings, c.consolidator, summary_tokens,
                             c.tokens, sorted(c.skills), removed, fallback)


def scope_memory(repo, cfg: Config, branch: str, head: str) -> Memory:
    """The branch's notes at head as a `Memory`: the cached one brought up to date (only the notes
    added, changed or removed since are read), else one built from every note. The caller closes it."""
    tree = repo.tree_id(head, "sessions")
    memory = memory_cache.open_memory(cfg.state_dir, branch)
    cached = memory_cache.tree(memory)
    if cached == tree and (tree is not None or not len(memory)):
        return memory
    # What changed since the tree the cache reflects: a diff of the two trees when it can (it
    # visits only the month directories that changed), else every note against the cache.
    delta = repo.tree_changes(cached, tree, "sessions") if cached is not None and len(memory) else None
    if delta is None:
        current = repo.blobs(head, "sessions")
        known = memory.versions()
        delta = {p: blob for p, blob in current.items() if known.get(p) != blob}
        delta.update({p: None for p in known if p not in current})
    delta = {p: blob for p, blob in delta.items() if p.endswith(".md")}
    fresh = not len(memory)
    added = [(path, blob, note) for path, blob in sorted(delta.items()) if blob is not None
             and (note := _parsed(repo, branch, path, blob)) is not None]
    if fresh:  # all at once: the token order is taken from them
        memory.build([(path, note_occurrences(path, note), (blob, note.session or path, recency(note, path),
                                                          note.title, "")) for path, blob, note in added])
    else:
        for path in sorted(set(delta) - {p for p, _, _ in added}):
            memory.remove(path)  # gone, or no longer a note
        for path, blob, note in added:
            memory.add(path, note, version=blob)
    memory_cache.set_tree(memory, tree)
    return memory


ACROSS = "main (across projects)"  # the cache of main's Memory over the projects' portable learnings


def _about(found: list, path: str) -> tuple[str, str, str]:
    """(session, when, title) of a note, from its occurrences (a note without any keeps its path)."""
    return (found[0].session, found[0].when, found[0].title) if found else (path, "", "")


def _parsed(repo, branch: str, path: str, blob: str) -> Note | None:
    try:
        return notes_mod.parse_note(repo.read_blob(blob).decode("utf-8", "replace"))
    except ValueError:
        log.warning("%s on %s is not a session note; left out of the consolidation", path, branch)
        return None


def _project(repo, cfg: Config, branch: str, force: bool) -> ConsolidateResult | None:
    if not (force or pending(repo, branch)):
        return None
    head = repo.head(branch)
    if head is None or not _has_inputs(repo, head):
        return None
    scope = scopes.branch_slug(branch)
    memory = scope_memory(repo, cfg, branch, head)
    pinned = read_pinned(repo, head)
    project = _project_of(repo, branch, head)
    budget = cfg.summary_tokens

    def heuristic_run() -> Consolidation:
        return heuristic.consolidate(memory, scope=scope, project=project, pinned=pinned, budget_tokens=budget)

    def llm_run(llm) -> Consolidation:
        notes = read_notes(repo, head)
        added, removed = _delta(repo, head, last_consolidation(repo, head).through, notes)
        return llm.consolidate(scope=scope, notes=notes, added=added, removed=removed,
                               current=read_current(repo, head), pinned=pinned, cfg=cfg)

    try:
        c, fallback = _choose(cfg, heuristic_run, llm_run, budget)
        n_notes = len(memory)
    finally:
        memory.close()
    return _commit(repo, cfg, branch, scope, head, c, n_notes=n_notes, fallback=fallback)


def _global(repo, cfg: Config, force: bool) -> ConsolidateResult | None:
    if not (force or global_pending(repo)):
        return None
    head = repo.head(MAIN)
    heads = _project_heads(repo)
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
                    fresh.append((f"{branch}:{path}", found, (versions[path], *_about(found, path), branch)))
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
    return _commit(repo, cfg, MAIN, MAIN, head, c, n_notes=n_notes, fallback=fallback, read=heads)


# ---- the verb behind `memgit consolidate` ------------------------------------------------


def consolidate(cfg: Config, *, project: str | None = None, global_: bool = False, force: bool = False,
                wait: bool = True) -> list[ConsolidateResult]:
    """Consolidate pending scopes: every project then main; or `project` (and main if `global_`); or only main.

    Raises:
        NotARepo: there is no memory repository yet.
        MemgitError: no project matches `project`.
        LockHeld: a sync is running and `wait` is false.
    """
    from memgit.store.lock import sync_lock
    from memgit.store.repo import MemoryRepo

    with sync_lock(cfg.state_dir, wait=wait), \
            MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        branches: list[str] | None = None
        if project:
            branches = [find_project(repo, project)]
        elif global_:
            branches = []
        include_global = global_ or project is None
        return run(repo, cfg, branches=branches, include_global=include_global, force=force)


def find_project(repo, name: str) -> str:
    """The branch of a project named by slug, branch name or PROJECT.md name.

    Raises:
        MemgitError: no project matches.
    """
    heads = repo.branches()
    for candidate in (name, scopes.BRANCH_PREFIX + name):
        if candidate.startswith(scopes.BRANCH_PREFIX) and candidate in heads:
            return candidate
    for branch in sorted(heads):
        project = _project_of(repo, branch, branch) if branch.startswith(scopes.BRANCH_PREFIX) else None
        if project and project.name == name:
            return branch
    raise MemgitError(f"no project {name!r}; `memgit log` or `git branch` lists the projects/<slug> branches")
