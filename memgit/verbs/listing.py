"""`memgit sessions` and `memgit projects`: what memgit knows of, and where each stands."""

from __future__ import annotations

import time

from memgit.config import Config
from memgit.core import scopes, vocab
from memgit.core.names import safe_name
from memgit.sources import registry
from memgit.store import ledger_cache
from memgit.store.lengths import Lengths
from memgit.verbs.inspect import _iso, open_repo
from memgit.verbs.selection import SyncOptions, select
from memgit.verbs.sync_session import SyncRun


def sessions(cfg: Config, *, project: str | None = None, failed: bool = False,
             now: float | None = None) -> list[dict]:
    """Each session: agent, folder, branch, state (done, pending, waiting, failed, gone), bytes read, note.

    Args:
        project: only this project's (name, slug, branch or agent folder: exact or a prefix only it has).
        failed: only those whose last read failed.
    Raises:
        NotARepo: there is no memory repository.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
    """
    now = time.time() if now is None else now
    listing = registry.scan(cfg)
    files = {f.key: f for f in listing.files}
    with open_repo(cfg) as repo:
        led = ledger_cache.load(repo, cfg.state_dir)
        wanted = SyncRun(repo, cfg, led, None, "").project_filter(listing.files, project) if project else None
    lengths = Lengths(cfg.state_dir, registry.length)
    pending = {w.file.key for w in select(listing.files, led, cfg, SyncOptions(), now=now, length=lengths,
                                          own=lambda f: registry.ran_in(f, cfg.model_workdir))}
    lengths.save()
    failures = led.failed()
    rows = []
    for key in sorted(set(files) | set(led.by_session)):
        file, last = files.get(key), led.last(key)
        if wanted is not None and (file is None or not wanted(file)):
            continue  # a session whose transcript is gone has no folder to match: shown unfiltered only
        if failed and key not in failures:
            continue
        state = ("failed" if key in failures else "gone" if file is None else "pending" if key in pending
                 else "done" if last and led.processed_end(key) >= lengths(file) else "waiting")
        note = led.note_of(key)
        rows.append({"session": key, "agent": key.split("/", 1)[0],
                     "project_dir": safe_name(file.project_dir) if file else (last.source.rsplit("/", 1)[0] if last else ""),
                     "branch": last.branch if last else None, "state": state,
                     "read": max(led.processed_end(key), 0), "size": file.size if file else None,
                     "last_sync": _iso(last.time) if last else None, "note": note.note if note else None,
                     "reason": failures[key].reason if key in failures else ""})
    return rows


def projects(cfg: Config) -> list[dict]:
    """Each project branch: its name, identity (remotes, paths from PROJECT.md), the sessions filed
    there and by which agents, and the last sync that wrote to it.

    Raises:
        NotARepo: there is no memory repository.
    """
    with open_repo(cfg) as repo:
        led = ledger_cache.load(repo, cfg.state_dir)
        heads = repo.branches()
        described = {}
        for branch in sorted(b for b in heads if b.startswith(vocab.PREFIX)):
            raw = repo.read(heads[branch], "PROJECT.md")
            try:
                described[branch] = scopes.parse_project_md(raw.decode("utf-8", "replace"), branch) if raw else None
            except ValueError:  # a PROJECT.md a person broke: listed, without an identity
                described[branch] = None
    filed: dict[str, dict[str, int]] = {}
    for entry in led.entries:
        if entry.branch in described:
            times = filed.setdefault(entry.branch, {})
            times[entry.session] = max(times.get(entry.session, 0), entry.time)
    rows = []
    for branch, project in described.items():
        sessions_here = filed.get(branch, {})
        rows.append({"branch": branch, "name": project.name if project else branch.removeprefix(vocab.PREFIX),
                     "remotes": list(project.remotes) if project else [],
                     "paths": list(project.paths) if project else [],
                     "sessions": len(sessions_here),
                     "agents": sorted({key.split("/", 1)[0] for key in sessions_here}),
                     "last_sync": _iso(max(sessions_here.values())) if sessions_here else None,
                     "identity_readable": project is not None})
    return rows
