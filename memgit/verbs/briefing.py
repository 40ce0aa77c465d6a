"""Render the session-start context cache after a command moved branches (memgit.store.context_cache),
from the object store, the sources' unread transcripts and the projects' identities."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable

from memgit.core.briefing import BUDGET, PINNED_MAX, RECENT_NOTES, clean_markdown, cut, digest, template
from memgit.core.vocab import MAIN, PREFIX, SUMMARY_FILE
from memgit.sources import gitstat, workspace

UNREAD_PEEKS = 200  # other agents' unread sessions whose cwd is read to place them (a fresh install has many)
from memgit.store.context_cache import (CACHE_VERSION, empty_memo, listdir, part_path, read_json, read_heads, remove,
                                        save_index, write_json)

def refresh(repo, cfg, branches: Iterable[str]) -> None:
    """Render the session-start context of `branches` (any names; unknown ones are ignored) and the index.

    Called at the end of every command that moved a branch (sync, consolidate, ...). The cache is
    derived: a part that cannot be rendered is dropped and logged, a file that cannot be written is
    skipped; neither fails the caller, and nothing is raised.

    Args:
        repo: the open memgit.store.repo.MemoryRepo the command wrote through.
        cfg: its memgit.config.Config (repository, transcript root, idle and age settings).
        branches: the branches it moved, e.g. {"projects/pinion", "main"}.
    """
    import logging

    log = logging.getLogger("memgit.verbs.briefing")
    cdir = str(cfg.state_dir / "context")
    git_dir = str(cfg.state_dir.parent)
    problems: list[str] = []
    try:
        index, memo = build_index(repo, cfg, git_dir=git_dir, now=time.time())
    except Exception:  # a corrupt object must not fail the sync that just committed
        log.exception("cannot build the session-start context index")
        remove(os.path.join(cdir, "index.json"))  # the hook reads the object store, or says nothing
        return
    save_index(cdir, index, memo, problems)
    heads = index["heads"]
    for branch in sorted({*branches, MAIN}):
        if branch not in heads or not (branch == MAIN or branch.startswith(PREFIX)):
            continue
        path = part_path(cdir, branch)
        old = read_json(path)
        if old is not None and old.get("head") == heads[branch]:
            continue
        try:
            write_json(path, render_part(repo, branch, heads[branch]), problems)
        except Exception:  # a corrupt object must not fail the sync that just committed
            log.exception("cannot render the session-start context of %s", branch)
            remove(path)
    for name in listdir(os.path.join(cdir, "parts")):
        part = read_json(os.path.join(cdir, "parts", name))
        if part is None or part.get("branch") not in heads:
            remove(os.path.join(cdir, "parts", name))
    for problem in problems:
        log.warning(problem)


def build_index(repo, cfg, *, git_dir: str, now: float) -> tuple[dict, dict]:
    """Return the index (heads, projects, unread transcripts, settings) and the dirs memo of project roots."""
    import hashlib

    from memgit.core import scopes

    heads = read_heads(git_dir)
    projects = []
    for branch in sorted(b for b in heads if b.startswith(PREFIX)):
        raw = repo.read(heads[branch], "PROJECT.md")
        if raw is None:
            continue
        try:
            p = scopes.parse_project_md(raw.decode("utf-8", "replace"), branch)
        except ValueError:  # sync reports a broken PROJECT.md; until it is fixed no cwd resolves there
            continue
        projects.append({"branch": p.branch, "name": p.name, "remotes": list(p.remotes), "paths": list(p.paths)})
    key = hashlib.sha1(json.dumps(projects, sort_keys=True).encode()).hexdigest()
    unread, folders, others = unread_sessions(repo, cfg, now, projects)
    index = {
        "version": CACHE_VERSION, "heads": heads, "projects": projects, "projects_digest": key,
        "built_at": now, "claude_projects": str(cfg.claude_projects), "unread": unread,
        "project_folders": folders, "unread_other": others, "min_idle_minutes": cfg.min_idle_minutes, "max_age_days": cfg.max_age_days,
        "include": list(cfg.include_projects), "exclude": list(cfg.exclude_projects),
        "search": os.path.isfile(os.path.join(os.path.dirname(os.path.abspath(__file__)), "search.py")),
    }
    memo = empty_memo(key)
    for path in dict.fromkeys(p for project in projects for p in project["paths"]):
        if os.path.isdir(path) and gitstat.git_top(path) == os.path.abspath(path):
            branch, table, where, entry = workspace.resolve_cwd(path, projects)
            memo[table][where] = entry
    return index, memo


def unread_sessions(repo, cfg, now: float, projects: list[dict]) -> tuple[dict, dict, dict]:
    """What the session-start line "N sessions waiting to be synced" counts from, as of this sync.

    Returns:
        ({folder: {session: processed end}} of Claude Code's transcripts inside the age window with
        unread bytes (the hook also counts files newer than the index in those folders),
        {branch: [Claude Code folders its sessions came from]},
        {branch: [mtimes]} of the other agents' unread sessions inside the age window, by the
        branch their cwd resolves to (sessions of no known project are left out)).
    """
    from memgit.core import scopes
    from memgit.core.names import safe_name
    from memgit.sources import registry
    from memgit.store import ledger_cache

    led = ledger_cache.load(repo, cfg.state_dir)
    listing = registry.scan(cfg)
    known = [scopes.Project(branch=p["branch"], name=p["name"], remotes=p["remotes"], paths=p["paths"])
             for p in projects]
    unread: dict[str, dict[str, int]] = {}
    others: dict[str, list[float]] = {}
    peeks = 0
    for file in listing.files:  # names as the ledger writes them: a secret in a folder name stays out of the cache
        claude = file.agent == "claude-code"
        if claude:
            folder = unread.setdefault(safe_name(file.project_dir), {})
        if cfg.max_age_days > 0 and now - file.mtime > cfg.max_age_days * 86400:
            continue
        end = led.processed_end(file.key)
        if file.size == end or (file.compressed and end >= 0):
            continue  # read to its end (a compressed file is one its agent finished with)
        if claude:
            folder[file.key.split("/", 1)[1]] = end
            continue
        last = led.last(file.key)
        branch = last.branch if last else None
        if branch is None and peeks < UNREAD_PEEKS:
            peeks += 1
            if cwd := registry.peek_cwd(file):
                project = scopes.resolve(workspace.identify(cwd), known, cwd=cwd)
                branch = project.branch if project else None
        if branch:
            others.setdefault(branch, []).append(file.mtime)
    folders: dict[str, set[str]] = {}
    for entry in led.entries:
        if entry.session.startswith("claude-code/"):
            folders.setdefault(entry.branch, set()).add(entry.source.split("/", 1)[0])
    return unread, {branch: sorted(names) for branch, names in folders.items()}, others


def render_part(repo, branch: str, head: str) -> dict:
    """Read one scope's summary (or the digest of its newest notes) and its pinned notes at `head`."""
    summary, source = "", ""
    raw = repo.read(head, SUMMARY_FILE)
    if raw is not None:
        summary, source = clean_markdown(raw.decode("utf-8", "replace")), SUMMARY_FILE
    if not summary and branch != MAIN:
        summary, source = _recent(repo, head), "sessions"
    pinned = []
    for path in sorted((p for p in repo.list(head, "notes") if p.endswith(".md")), reverse=True):
        if source == SUMMARY_FILE and path in summary:
            continue  # consolidation put it in the summary already (or chose to leave it out)
        text = clean_markdown((repo.read(head, path) or b"").decode("utf-8", "replace"))
        if text:
            pinned.append({"path": path, "text": cut(text, PINNED_MAX, f"`memgit show {branch}:{path}`")})
    return {"version": CACHE_VERSION, "branch": branch, "head": head, "summary": summary[:BUDGET],
            "source": source, "pinned": pinned}


def _recent(repo, head: str) -> str:
    from memgit.core.notes import parse_note

    paths = sorted(p for p in repo.list(head, "sessions") if p.endswith(".md"))[-RECENT_NOTES:]
    notes = []
    for path in reversed(paths):
        try:
            notes.append(parse_note((repo.read(head, path) or b"").decode("utf-8", "replace")))
        except ValueError:  # a note a person broke: the others still tell the story
            continue
    return digest(notes, template("context-recent.md").strip())
