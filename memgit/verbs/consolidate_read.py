"""Reading a scope from the object store for its consolidation: its session notes (all of them, or
as a `Memory` brought up to date from the cache), pinned notes, PROJECT.md and current outputs."""

from __future__ import annotations

import logging

from memgit.config import Config
from memgit.consolidate.heuristic import cache as memory_cache
from memgit.consolidate.heuristic.memory import Memory
from memgit.consolidate.heuristic.skills import MARKER
from memgit.core import notes as notes_mod
from memgit.core import scopes
from memgit.core.model import Consolidation, Note

log = logging.getLogger("memgit.verbs.consolidate")

Notes = list[tuple[str, Note]]


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


def project_of(repo, branch: str, rev: str) -> scopes.Project | None:
    text = repo.read(rev, "PROJECT.md")
    if text is None:
        return None
    try:
        return scopes.parse_project_md(text.decode("utf-8", "replace"), branch)
    except ValueError:
        return None  # the summary then names the project by its slug


def delta(repo, head: str, through: str | None, notes: Notes) -> tuple[Notes, Notes]:
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
        memory.build_notes(added)
    else:
        for path in sorted(set(delta) - {p for p, _, _ in added}):
            memory.remove(path)  # gone, or no longer a note
        for path, blob, note in added:
            memory.add(path, note, version=blob)
    memory_cache.set_tree(memory, tree)
    return memory


def _parsed(repo, branch: str, path: str, blob: str) -> Note | None:
    try:
        return notes_mod.parse_note(repo.read_blob(blob).decode("utf-8", "replace"))
    except ValueError:
        log.warning("%s on %s is not a session note; left out of the consolidation", path, branch)
        return None
