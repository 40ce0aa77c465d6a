"""Remotes (DESIGN §5b): `memgit remote`, `push`, `pull`, `clone`, and `[repo] auto_push` /
`auto_pull` around a sync.

The transport is memgit.store.remote's; joining what a pull fetched is memgit.verbs.pull's. Every
push and pull leaves its outcome in memgit.store.remote_log, which `memgit status` shows: an
automatic one runs after a sync, often in the background, where nobody sees it fail.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from memgit.config import Config
from memgit.core.vocab import MAIN
from memgit.errors import MemgitError, NoMatch, RemoteError, SecretFound
from memgit.store import remote as transport
from memgit.store import remote_log
from memgit.verbs.inspect import open_repo
from memgit.verbs.remote_reports import PullReport, PushReport

log = logging.getLogger("memgit.verbs.remote")
Progress = Callable[[str], None] | None


@dataclass(slots=True)
class CloneReport:
    repo: str
    remote: str
    url: str
    branches: dict[str, str]  # branch -> sha


def remotes(cfg: Config) -> list[dict]:
    """The configured remotes, each with its URL (a password, if any, hidden) and its last push and pull."""
    with open_repo(cfg) as repo:
        found = transport.list_remotes(repo)
        roles = {name: transport.role(repo, name) for name in found}
    outcomes = remote_log.read(cfg.state_dir)
    return [{"name": name, "url": transport.describe_url(url), "default": name == cfg.remote, "role": roles[name],
             **{op: outcomes.get(name, {}).get(op) for op in ("push", "pull")}}
            for name, url in sorted(found.items())]


def add(cfg: Config, name: str, url: str) -> None:
    """Add a remote (nothing is sent or fetched).

    Raises:
        AlreadyExists: the name is taken.
        RemoteError: the name is not valid, or the URL holds a password.
    """
    with open_repo(cfg) as repo:
        transport.add_remote(repo, name, url)


def remove(cfg: Config, name: str) -> None:
    """Remove a remote and what was fetched from it (the remote itself is not touched).

    Raises:
        NoMatch: no remote has that name.
    """
    with open_repo(cfg) as repo:
        transport.remove_remote(repo, name)
    remote_log.forget(cfg.state_dir, name)


def _url(repo, name: str) -> str:
    found = transport.list_remotes(repo)
    if name not in found:
        known = f" (this repository has: {', '.join(sorted(found))})" if found else ""
        raise NoMatch(f"no remote named {name!r}{known}; add one with: memgit remote add {name} URL")
    return found[name]


def push(cfg: Config, remote: str | None = None, *, progress: Progress = None, force: bool = False) -> PushReport:
    """Send every memgit branch to the remote: only the objects it lacks.

    A branch this repository joined into another (a project renamed to the remote's name, or
    `projects merge`) is deleted on the remote too, once its history is inside a branch pushed.
    With `force`, the branches `memgit purge` rewrote since the last push replace the remote's, each
    only while the remote still holds the head the purge replaced (a lease); the others fast-forward.

    Raises:
        NoMatch: no such remote.
        RemoteAhead: it holds commits this repository lacks (pull first).
        RemoteError: it cannot be reached or refused the push; a purge waits for `force`; `force`
            without a purge to send; the remote moved since the purge (nothing was pushed).
        SecretFound: the history holds a possible secret; nothing was sent.
    """
    name = remote or cfg.remote
    if _is_team(cfg, name):
        from memgit.verbs import team

        if force:
            raise RemoteError(f"{name} is a team remote: nothing is ever forced there (it takes only "
                              f"people/<you>/projects/<shared project>); `memgit push {name}` sends what you shared")
        return team.push(cfg, name, progress=progress)
    try:
        with open_repo(cfg) as repo:
            url = _url(repo, name)
            repo.record_edits()  # a person's edits in the worktree go along
            local = transport.local_heads(repo)
            leases = purged_since_push(repo, name)
            if force and not leases:
                raise RemoteError(f"no `memgit purge` rewrote a branch {name} holds since the last push: there is "
                                  "nothing to force; `memgit push` sends new commits")
            if leases and not force:
                raise RemoteError(f"`memgit purge` rewrote {', '.join(sorted(leases))}: the history on {name} still "
                                  f"holds what it removed. Replace it with: memgit push --force"
                                  + ("" if name == cfg.remote else f" {name}"))
            joined = [b for b, sha in transport.remote_heads(repo, name).items()
                      if b not in local and any(repo.is_ancestor(sha, head) for head in local.values())]
            sent = transport.push(repo, name, local, delete=joined, progress=progress, leases=leases)
    except MemgitError as e:
        remote_log.record(cfg.state_dir, name, "push", False, e.message)
        raise
    changed = len(sent.updated) + len(sent.deleted)
    remote_log.record(cfg.state_dir, name, "push", True,
                      f"{changed} branch(es) updated" if changed else "already up to date")
    return PushReport(name, transport.describe_url(url), {b: list(v) for b, v in sent.updated.items()},
                      list(sent.deleted), sent.objects, sent.bytes, sorted(b for b in leases if b in sent.updated))


def _is_team(cfg: Config, name: str) -> bool:
    from memgit.store.team import is_team

    with open_repo(cfg) as repo:
        return is_team(repo, name)


def purged_since_push(repo, remote: str) -> dict[str, str]:
    """{branch: the head on `remote` that a purge replaced} of each branch `memgit purge` rewrote since
    it was last pushed there (read from the purge commits not yet on the remote: their Memgit-Replaces).
    With several purges since, the oldest names what the remote holds."""
    from memgit.core.ledger import PURGE, REPLACES_TRAILER, parse_subject, parse_trailers

    tracked = transport.remote_heads(repo, remote)
    leases = {}
    for branch, head in transport.local_heads(repo).items():
        for info in repo.history(head, exclude=tracked.get(branch)):  # newest first: the oldest purge wins
            if (parse_subject(info.message) or ("",))[0] != PURGE:
                continue
            for value in parse_trailers(info.message).get(REPLACES_TRAILER, []):
                ref, _, sha = value.partition(" ")
                if ref == f"{remote}/{branch}":
                    leases[branch] = sha
    return leases


def pull(cfg: Config, remote: str | None = None, *, progress: Progress = None, wait: bool = True) -> PullReport:
    """Fetch the remote's memgit branches and join each into this repository (DESIGN §5b).

    A branch whose copy on the remote holds a purge this machine has not seen is rebuilt on it first
    (memgit.verbs.purge.take_remote_purge).

    Raises:
        NoMatch: no such remote.
        RemoteError: it cannot be reached, or it is not a memgit repository.
        LockHeld: a sync is running and `wait` is false.
        SecretFound: what the remote sent holds a possible secret (nothing was fetched), e.g. the
            history a purge made here replaced and `memgit push --force` has not replaced yet; or this
            machine's own commits to replay on a purged branch hold one.
    """
    from memgit.store.lock import sync_lock
    from memgit.verbs import pull as joining
    from memgit.verbs.purge import take_remote_purge

    name = remote or cfg.remote
    if _is_team(cfg, name):
        from memgit.verbs import team

        return team.pull(cfg, name, progress=progress, wait=wait)
    try:
        with open_repo(cfg) as repo:
            url = _url(repo, name)
            before = transport.remote_heads(repo, name)
            try:
                fetched = transport.fetch(repo, name, progress=progress)
            except SecretFound as e:
                if waiting := purged_since_push(repo, name):  # the old history this machine purged
                    raise SecretFound(f"{name} still holds the history this machine's `memgit purge` rewrote on "
                                      f"{', '.join(sorted(waiting))}; nothing was fetched. Send the purge first: "
                                      "memgit push --force" + ("" if name == cfg.remote else f" {name}")) from e
                raise
            with sync_lock(cfg.state_dir, wait=wait):
                repo.record_edits()  # a person's edit is committed before a branch may be rebuilt
                purged = take_remote_purge(repo, cfg, name, before)
                joined = joining.join(repo, cfg, name, wait=wait, hold_lock=False)
                if purged:
                    from memgit.verbs import briefing, search

                    briefing.refresh(repo, cfg, repo.branches())
                    search.refresh_index(repo, cfg)
    except MemgitError as e:
        remote_log.record(cfg.state_dir, name, "pull", False, e.message)
        raise
    report = PullReport(name, transport.describe_url(url), fetched.objects, joined.rows(),
                        joined.conflict_rows(), list(joined.consolidated), purged)
    if report.conflicts:
        paths = sorted(p for c in report.conflicts for p in c["paths"])
        remote_log.record(cfg.state_dir, name, "pull", False,
                          f"conflicting edits in {', '.join(paths[:5])}{' …' if len(paths) > 5 else ''}")
    else:
        remote_log.record(cfg.state_dir, name, "pull", True, "joined")
    return report


def clone(cfg: Config, url: str, *, name: str = "origin", progress: Progress = None) -> CloneReport:
    """Create the memory repository from a remote: every memgit branch, `main` checked out, the
    remote added under `name`. Nothing is extracted again afterwards: the ledger travels with
    the history.

    Raises:
        MemgitError: a memory repository (or something else) is already at the configured path.
        RemoteError: the URL cannot be reached or holds no memgit repository.
    """
    from memgit.store import bootstrap, ledger_cache
    from memgit.store.repo import MemoryRepo
    from memgit.verbs import briefing

    heads: dict[str, str] = {}

    def fill(where) -> None:
        with MemoryRepo.empty(where, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
            transport.add_remote(repo, name, url)
            fetched = transport.fetch(repo, name, progress=progress)
            if MAIN not in fetched.heads:
                raise RemoteError(f"{transport.describe_url(url)} holds no memory repository (no branch {MAIN}); "
                                  f"to start one there from this machine: memgit init && memgit remote add {name} "
                                  f"URL && memgit push")
            for branch, sha in sorted(fetched.heads.items(), key=lambda kv: kv[0] != MAIN):
                repo.create_branch(branch, sha)  # main first: checked out, its files written
            heads.update(fetched.heads)

    bootstrap.clone(cfg.repo_path, fill)
    with open_repo(cfg) as repo:
        ledger_cache.load(repo, cfg.state_dir)  # read once now, not at the first session start
        briefing.refresh(repo, cfg, list(repo.branches()))
    remote_log.record(cfg.state_dir, name, "pull", True, "cloned")
    return CloneReport(str(cfg.repo_path), name, transport.describe_url(url), heads)


def has_remote(cfg: Config, name: str) -> bool:
    with open_repo(cfg) as repo:
        return name in transport.list_remotes(repo)


def auto_pull(cfg: Config, *, wait: bool = True) -> str | None:
    """Pull before a sync when `[repo] auto_pull` is on and the remote exists; a failure is
    recorded and returned as a warning, never raised: a sync must not wait on a network."""
    if not cfg.auto_pull:
        return None
    from memgit.verbs import team

    has_team, teams = team.auto(cfg, "pull", wait=wait)  # the teams' too: their shared projects are read at each sync
    try:
        if not has_remote(cfg, cfg.remote):
            return "; ".join(teams) or None if has_team else \
                f"[repo] auto_pull is on, but there is no remote {cfg.remote!r}: memgit remote add {cfg.remote} URL"
        report = pull(cfg, wait=wait)
    except MemgitError as e:
        log.warning("auto pull from %s failed: %s", cfg.remote, e.message)
        return "; ".join([f"auto pull from {cfg.remote} failed: {e.message}", *teams])
    if report.conflicts:
        return "; ".join([f"auto pull from {cfg.remote}: conflicting edits left unjoined (memgit pull shows them)",
                          *teams])
    return "; ".join(teams) or None


def auto_push(cfg: Config) -> str | None:
    """Push after a sync when `[repo] auto_push` is on and a branch moved since the last push;
    a failure is recorded and returned as a warning, never raised."""
    if not cfg.auto_push:
        return None
    from memgit.verbs import team

    has_team, teams = team.auto(cfg, "push")  # the shared projects go to their teams too
    try:
        with open_repo(cfg) as repo:
            if cfg.remote not in transport.list_remotes(repo):
                return "; ".join(teams) or None if has_team else \
                    (f"[repo] auto_push is on, but there is no remote {cfg.remote!r}: memgit remote add {cfg.remote} URL")
            if not transport.unpushed(repo, cfg.remote):
                return "; ".join(teams) or None
        push(cfg)
    except MemgitError as e:
        log.warning("auto push to %s failed: %s", cfg.remote, e.message)
        return "; ".join([f"auto push to {cfg.remote} failed: {e.message}", *teams])
    return "; ".join(teams) or None
