"""Read-only verbs behind `status`, `log` and `show`: they return values and never print."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

from memgit.store import ledger_cache
from memgit.config import Config
from memgit.core import vocab
from memgit.core.names import safe_name, safe_text
from memgit.core.selector import matching
from memgit.errors import AmbiguousSelector, NoMatch, NotARepo
from memgit.core.ledger import cut_text, parse_subject, parse_trailers
from memgit.sources import registry
from memgit.verbs import budget
from memgit.store.lengths import Lengths
from memgit.verbs.selection import SyncOptions, eligible, find_project, select
from memgit.verbs.import_memory import double_injection


_HEX = re.compile(r"[0-9a-fA-F]{4,40}")


def _iso(ts: float | int | None) -> str | None:
    return datetime.fromtimestamp(ts, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") if ts else None


def open_repo(cfg: Config):
    """Open the memory repo, or say how to create one.

    Raises:
        NotARepo: there is no memory repository at the configured path.
    """
    from memgit.store.repo import MemoryRepo
    from memgit.store.bootstrap import has_main

    if not has_main(cfg.repo_path):  # none, or a creation cut short (the next sync finishes it)
        raise NotARepo(f"no memory repository at {cfg.repo_path}; run `memgit init` or `memgit sync` to create it")
    return MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns)


@dataclass(slots=True)
class ProjectStatus:
    agent: str
    project_dir: str  # the agent's folder for it (under ~/.claude/projects, ~/.codex, ~/.gemini/tmp)
    branches: list[str] = field(default_factory=list)
    on_disk: int = 0
    processed: int = 0
    pending: int = 0  # eligible now and not yet (fully) read
    waiting: int = 0  # not yet read, but still active or outside the age window
    failed: int = 0
    last_sync: str | None = None


def status(cfg: Config, *, now: float | None = None) -> dict:
    """Per project: transcripts on disk, processed, pending, failed, last sync; and the repo path."""
    now = time.time() if now is None else now
    with open_repo(cfg) as repo:
        led = ledger_cache.load(repo, cfg.state_dir)
        branches = sorted(repo.branches())
        remotes = _remotes(repo, cfg)
        spend = budget.today(repo, cfg, now)
    listing = registry.scan(cfg)
    files = listing.files
    lengths = Lengths(cfg.state_dir, registry.length)
    pending = {w.file.key for w in select(files, led, cfg, SyncOptions(), now=now, length=lengths,
                                          own=lambda f: registry.ran_in(f, cfg.model_workdir))}
    failed = led.failed()
    projects: dict[str, ProjectStatus] = {}
    for file in files:
        key = file.key
        row = projects.setdefault(f"{file.agent}:{file.project_dir}", ProjectStatus(file.agent, file.project_dir))
        row.on_disk += 1
        last = led.last(key)
        if last:
            row.processed += 1
            if last.branch not in row.branches:
                row.branches.append(last.branch)
            row.last_sync = max(filter(None, [row.last_sync, _iso(last.time)]), default=None)
        if key in failed:
            row.failed += 1
        if key in pending:
            row.pending += 1
        elif lengths(file) > led.processed_end(key) and not eligible(
            file, now=now, min_idle_minutes=cfg.min_idle_minutes, max_age_days=cfg.max_age_days
        ):
            row.waiting += 1
    lengths.save()
    rows = sorted(projects.values(), key=lambda r: (r.agent, r.project_dir))
    return {
        "repo": str(cfg.repo_path),
        "transcripts": str(cfg.claude_projects),
        "sources": {agent: str(registry.root(agent, cfg)) for agent in registry.agents(cfg)},
        "branches": branches,
        "spend_today": {**spend.as_dict(), "text": spend.text(now)},
        "projects": [_row(r) for r in rows],
        "totals": {k: sum(getattr(r, k) for r in rows) for k in ("on_disk", "processed", "pending", "waiting", "failed")},
        "failed_sessions": [_failure(key, entry) for key, entry in sorted(failed.items())],
        "cut_sessions": [{**_failure(key, entry), "cut": entry.cut, "reason": cut_text(entry.cut)}
                         for key, entry in sorted((k, led.last(k)) for k in led.by_session) if entry and entry.cut],
        "unreadable_folders": [{"agent": n.partition(":")[0], "project_dir": safe_name(n.partition(":")[2]),
                                "reason": safe_text(why)} for n, why in sorted(listing.unreadable.items())],
        "double_injection": double_injection(cfg),  # memory told twice: Claude Code's MEMORY.md and memgit's hook
        "remotes": remotes,
    }


def _remotes(repo, cfg: Config) -> list[dict]:
    """Each remote: the branches changed here since the last push or fetch, and the last push and
    pull (an automatic one runs in the background: this is where its failure shows). No network."""
    from memgit.store import remote, remote_log, team

    outcomes = remote_log.read(cfg.state_dir)
    rows = []
    for name, url in sorted(remote.list_remotes(repo).items()):
        last = outcomes.get(name, {})
        unpushed = team.unpushed(repo, name) if team.is_team(repo, name) else remote.unpushed(repo, name)
        rows.append({"name": name, "url": remote.describe_url(url), "unpushed": unpushed,
                     **{op: last[op] | {"at": _iso(last[op]["at"])} if op in last else None for op in ("push", "pull")}})
    return rows


def _failure(session: str, entry) -> dict:
    """A session whose last read failed: where it is, what was tried, and why it failed."""
    return {"session": session, "project_dir": entry.source.rsplit("/", 1)[0] if "/" in entry.source else "",
            "branch": entry.branch, "range": f"{entry.start}-{entry.end}", "reason": entry.reason,
            "sha": entry.sha, "time": _iso(entry.time)}


def _row(r: ProjectStatus) -> dict:
    # shown as the ledger names it: a folder named after a token is not printed (see core.names)
    return {"agent": r.agent, "project_dir": safe_name(r.project_dir), "branches": r.branches, "on_disk": r.on_disk, "processed": r.processed,
            "pending": r.pending, "waiting": r.waiting, "failed": r.failed, "last_sync": r.last_sync}


def log(cfg: Config, *, project: str | None = None, limit: int = 20) -> list[dict]:
    """memgit's commits across branches (or one project's), newest first."""
    with open_repo(cfg) as repo:
        heads = repo.branches()
        if project:
            branch = find_project(repo, project, main=True)
            heads = {branch: heads[branch]}
        seen: dict[str, dict] = {}
        for branch, head in sorted(heads.items(), key=lambda kv: (kv[0] != vocab.MAIN, kv[0])):  # root -> main
            for info in repo.walk(head, limit=limit * 4 + 50):
                if info.sha in seen:
                    continue
                subject = parse_subject(info.message)
                trailers = parse_trailers(info.message)
                seen[info.sha] = {
                    "sha": info.sha, "branch": branch, "time": _iso(info.time),
                    "kind": subject[0] if subject else "other",
                    "subject": info.message.split("\n", 1)[0],
                    "session": (trailers.get("Memgit-Session") or [None])[0],
                    "range": (trailers.get("Memgit-Range") or [None])[0],
                    "outcome": (trailers.get("Memgit-Outcome") or [None])[0],
                    "reason": (trailers.get("Memgit-Reason") or [None])[0],
                    "_t": info.time,
                }
    rows = sorted(seen.values(), key=lambda r: r["_t"], reverse=True)[:limit]
    for r in rows:
        del r["_t"]
    return rows


def show(cfg: Config, what: str) -> dict:
    """A session's note (by its id or a prefix only it has), a commit (by SHA, whole or abbreviated) or a file.

    Raises:
        NoMatch: nothing matches.
        AmbiguousSelector: a prefix names several sessions, or a session and a commit.
    """
    with open_repo(cfg) as repo:
        branches = repo.branches()
        if ":" in what and what.split(":", 1)[0] in branches:
            branch, path = what.split(":", 1)
            return _file(repo, branch, path)
        if what.endswith(".md") or ("/" in what and what.split("/", 1)[0] not in registry.PACKAGES):  # agent/id: a session
            order = sorted(branches, key=lambda b: (b != repo.checked_out(), b))
            for branch in order:
                if repo.read(branch, what) is not None:
                    return _file(repo, branch, what)
            raise NoMatch(f"no file {what!r} on any branch")
        led = ledger_cache.load(repo, cfg.state_dir)
        matches = matching(what, {s: {s, s.split("/", 1)[-1]} for s in led.by_session})
        commit = repo.resolve(what) if _HEX.fullmatch(what) else None  # as `memgit log` prints it, or whole
        if commit and matches:
            raise AmbiguousSelector(f"{what!r} names commit {commit[:12]} and session(s) {', '.join(matches[:5])}; "
                                    "give more of it")
        if commit:
            return _commit(repo, led, commit)
        if not matches:
            raise NoMatch(f"no session or commit matches {what!r}; `memgit log` lists the commits and sessions read")
        if len(matches) > 1:
            raise AmbiguousSelector(f"{what!r} matches {len(matches)} sessions: {', '.join(matches[:5])}; "
                                    "give more of the id")
        session = matches[0]
        entries = [{
            "kind": e.kind, "branch": e.branch, "range": f"{e.start}-{e.end}", "outcome": e.outcome,
            "reason": e.reason, "sha": e.sha, "reverted": led.is_reverted(e.sha),
        } for e in led.by_session[session]]
        note = led.note_of(session)
        content = repo.read(note.branch, note.note) if note else None
        return {"session": session, "entries": entries,
                "branch": note.branch if note else None, "path": note.note if note else None,
                "content": content.decode("utf-8", "replace") if content is not None else None}


def _commit(repo, led, sha: str) -> dict:
    """A commit memgit printed: its message, the paths it changed, and the note an extract wrote."""
    info = next(repo.walk(sha, limit=1))
    trailers = parse_trailers(info.message)
    note = (trailers.get("Memgit-Note") or [None])[0]
    content = repo.read(sha, note) if note else None
    return {"commit": sha, "time": _iso(info.time), "message": info.message.rstrip("\n"),
            "changed": repo.changed_paths(sha), "reverted": led.is_reverted(sha), "path": note,
            "content": content.decode("utf-8", "replace") if content is not None else None}


def _file(repo, branch: str, path: str) -> dict:
    data = repo.read(branch, path)
    if data is None and (person := vocab.teammate(path)):  # a teammate's note, as MEMORY.md links it
        from memgit.verbs.team_memory import mates

        read = mates(repo, branch, repo.head(branch))
        theirs = {who: sha for who, _, sha in read[1]} if read else {}
        if person in theirs:
            data = repo.read(theirs[person], path.split("/", 2)[2])
    if data is None:
        raise NoMatch(f"no file {path!r} on branch {branch}")
    return {"branch": branch, "path": path, "content": data.decode("utf-8", "replace")}
