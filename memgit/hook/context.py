"""What a new session is told, served at session start (DESIGN §5) from the context cache
(memgit.store.context_cache), reading a few ref files to see that it is current and rendering
from the object store (memgit.verbs.briefing) only what is missing or stale. This runs at every
session start, so the modules it imports at the top read files and nothing else; dulwich, yaml
and the config are imported only when the cache cannot answer.
"""

from __future__ import annotations

import os
import time

from memgit.core.briefing import assemble, estimate_tokens
from memgit.core.vocab import MAIN
from memgit.store.context_cache import part_path, read_heads, read_json, save_index, write_json
from memgit.verbs.cwd_branch import branch_of


class Served:
    """The context a session started in `cwd` gets, and what it took to find it."""

    __slots__ = ("text", "repo", "cwd", "branch", "project", "pending", "eligible", "cached", "problems")

    def __init__(self, **values):
        for name in self.__slots__:
            setattr(self, name, values.get(name))


# ---- serving: the session-start hot path ------------------------------------------------------


def serve(repo_path: str, cwd: str, *, session_id: str | None = None, transcript_path: str | None = None,
          now: float) -> Served | None:
    """Return what a session started in `cwd` is told; None when there is no memory repository.

    Raises:
        Exception: whatever reading a corrupt repository raises; the hook logs it and says nothing.
    """
    git_dir = os.path.join(repo_path, ".git")
    if not os.path.isdir(git_dir):
        return None
    cdir = os.path.join(git_dir, "memgit", "context")
    heads = read_heads(git_dir)
    store = _Store(repo_path)
    problems: list[str] = []
    cached = True
    try:
        index = read_json(os.path.join(cdir, "index.json"))
        if index is None or index.get("heads") != heads:
            cached = False
            index, memo = _briefing().build_index(store.repo, store.cfg, git_dir=git_dir, now=now)
            heads = index["heads"]
            save_index(cdir, index, memo, problems)
        branch = branch_of(cwd, index, cdir, problems)
        parts = {}
        for name in ([branch] if branch else []) + [MAIN]:
            if name not in heads:
                continue
            part = read_json(part_path(cdir, name))
            if part is None or part.get("head") != heads[name]:
                cached = False
                part = _briefing().render_part(store.repo, name, heads[name])
                write_json(part_path(cdir, name), part, problems)
            parts[name] = part
    finally:
        store.close()
    pending, eligible = count_pending(index, branch, session_id=session_id,
                                      transcript_path=transcript_path, now=now)
    project = next((p["name"] for p in index["projects"] if p["branch"] == branch), None)
    text = assemble(repo=repo_path, branch=branch, project=project, project_part=parts.get(branch),
                    main_part=parts.get(MAIN), pending=pending, search=index.get("search", False))
    return Served(text=text, repo=repo_path, cwd=cwd, branch=branch, project=project, pending=pending,
                  eligible=eligible, cached=cached, problems=problems)


def count_pending(index: dict, branch: str | None, *, session_id: str | None, transcript_path: str | None,
                  now: float) -> tuple[int, int]:
    """Return (sessions of this project with unread bytes, those of them a sync would read now).

    A transcript is unread when the index listed it so, or when it changed after the index was
    built; the folders looked at are those the project's sessions came from and the current one.
    """
    root = index["claude_projects"]
    folders = {os.path.join(root, name) for name in index["project_folders"].get(branch or "", ())}
    if transcript_path:  # a Claude Code session's folder holds its project's other sessions (not so for Codex, Gemini)
        folder = os.path.dirname(os.path.abspath(transcript_path))
        if os.path.dirname(folder) == os.path.abspath(root):
            folders.add(folder)
    max_age, min_idle = index["max_age_days"] * 86400, index["min_idle_minutes"] * 60
    pending = eligible = 0
    for folder in folders:
        name = os.path.basename(folder)
        if not _included(name, index["include"], index["exclude"]):
            continue
        try:
            entries = [e for e in os.scandir(folder) if e.name.endswith(".jsonl") and not e.name.startswith("agent-")
                       and e.name[:-6] != session_id]
        except OSError:
            continue
        if not entries:
            continue
        unread = index["unread"].get(name)
        odd = False
        if unread is None or unread:  # names the ledger wrote as stand-ins (hashlib): only when they can matter
            from memgit.core.names import STAND_IN, stand_in

            if unread is None:
                unread = index["unread"].get(stand_in(name))
            odd = unread is not None and any(sid.startswith(STAND_IN) for sid in unread)
        for entry in entries:
            sid = entry.name[:-6]
            try:
                st = entry.stat()
            except OSError:
                continue
            age = now - st.st_mtime
            if max_age > 0 and age > max_age:
                continue
            if unread is None or sid in unread or (odd and stand_in(sid) in unread) or st.st_mtime > index["built_at"]:
                pending += 1
                eligible += age >= min_idle
    for mtime in index.get("unread_other", {}).get(branch or "", ()):  # Codex, Gemini CLI: placed at sync time
        age = now - mtime
        if not (max_age > 0 and age > max_age):
            pending += 1
            eligible += age >= min_idle
    return pending, eligible


def _included(name: str, include: list[str], exclude: list[str]) -> bool:
    """Whether sync reads the folder `name` ([sources] include/exclude; fnmatch only when patterns are set)."""
    if not include and not exclude:
        return True
    from fnmatch import fnmatch

    return (not include or any(fnmatch(name, p) for p in include)) and not any(fnmatch(name, p) for p in exclude)


# ---- the cache files --------------------------------------------------------------------------


class _Store:
    """The configuration and the object store, opened only when the cache cannot answer."""

    def __init__(self, repo_path: str):
        self.repo_path = repo_path
        self._cfg = self._repo = None

    @property
    def cfg(self):
        if self._cfg is None:
            from memgit.config import load

            self._cfg = load(repo_path=self.repo_path)
        return self._cfg

    @property
    def repo(self):
        if self._repo is None:
            from memgit.store.repo import MemoryRepo

            self._repo = MemoryRepo.open(self.cfg.repo_path, author=self.cfg.author)
        return self._repo

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()


# ---- rendering: at sync time, or when the cache is missing ------------------------------------


def preview(cfg, cwd: str, *, now: float | None = None) -> dict:
    """What `memgit context` shows: the text a session started in `cwd` gets, its size, and why."""
    from memgit.sources.claude_code.synthetic import encode_project_dir

    repo = os.path.abspath(cfg.repo_path)  # as the hook spells it (hook.repo_path)
    # A session started here writes its transcript into this folder: its unread siblings count.
    transcript = os.path.join(str(cfg.claude_projects), encode_project_dir(cwd), "new-session.jsonl")
    served = serve(repo, cwd, transcript_path=transcript, now=time.time() if now is None else now)
    text = served.text if served else ""
    reason = ""
    if served is None:
        reason = f"nothing: no memory repository at {repo} yet (`memgit sync` creates it)"
    elif not text:
        reason = "nothing: no summary, session notes or pinned notes for this directory yet"
    hook_output = ({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
                   if text else None)
    return {"repo": repo, "cwd": cwd, "project": served.project if served else None,
            "branch": served.branch if served else None, "pending": served.pending if served else 0,
            "chars": len(text), "tokens": estimate_tokens(text) if text else 0, "context": text,
            "hook_output": hook_output, "reason": reason}


def _briefing():
    """memgit.verbs.briefing, imported only when the cache cannot answer (it imports the workspace reader)."""
    from memgit.verbs import briefing

    return briefing
