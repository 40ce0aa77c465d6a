"""`memgit purge`: what `memgit scan` finds taken out of the whole memory repository (issue 18).

Every branch whose history holds a chosen finding is rewritten with the value replaced by
`[REDACTED:<kind>]` (or the note at a path dropped), every other byte, trailer, author and date kept,
so the ledger still knows every session read; one `purge(<scope>)` commit on each says what went.
Then the reflogs are expired, what nothing reaches is deleted (packs included), and the derived
caches under .git/memgit are cleared and rebuilt. A remote that had the old history gets the new
one with `memgit push --force` (memgit.verbs.remote); other machines take it at their next pull.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from memgit.config import Config
from memgit.core.ledger import PURGE, PURGED_TRAILER, REPLACES_TRAILER, format_message
from memgit.errors import NoMatch

# The derived files under .git/memgit (DESIGN §2: deleting them changes nothing but speed); a purge
# deletes them all, since any may hold what was purged, and rebuilds what a session start reads.
DERIVED = ("ledger.pickle", "context", "memory", "search.sqlite", "search.sqlite-wal", "search.sqlite-shm",
           "semantic.sqlite", "semantic.sqlite-wal", "semantic.sqlite-shm", "settled.json", "imports.json", "root", "noop.json",
           "noticed.json")

# What a purge does about a finding, by where it is.
ACTIONS = {"file": "replaced", "file name": "replaced", "commit message": "replaced",
           "unreachable file": "deleted", "cache": "deleted", "cache file name": "deleted",
           "reflog": "expired", "reflog file name": "expired"}
LEFT = {  # what the person does instead
    "config": "remove it from .git/config (a remote URL with a password: memgit remote remove NAME, then add it "
              "again without the password)",
    "branch name": "rename the branch (git branch -m OLD NEW) and run memgit purge again",
    "ref name": "delete the ref (git update-ref -d REF) and run memgit purge again",
}


@dataclass(slots=True)
class Plan:
    """What a purge will do: never a value, only kinds and places."""

    findings: list[dict] = field(default_factory=list)  # scan's findings chosen, each with its id and action
    branches: dict[str, dict] = field(default_factory=dict)  # branch -> {commits rewritten, places: {kind: n}}
    paths: list[str] = field(default_factory=list)  # notes dropped from every commit
    left: list[dict] = field(default_factory=list)  # findings a purge cannot remove, with what to do

    @property
    def empty(self) -> bool:
        return not self.branches and not any(f["action"] != "left" for f in self.findings)


@dataclass(slots=True)
class PurgeReport:
    repo: str
    plan: Plan
    done: bool = False
    commits: dict[str, str] = field(default_factory=dict)  # branch -> its purge commit
    pruned: int = 0  # objects deleted
    caches: list[str] = field(default_factory=list)  # files under .git/memgit deleted (then rebuilt)

    def as_dict(self) -> dict:
        return {"repo": self.repo, "done": self.done, **asdict(self.plan), "purge_commits": self.commits,
                "pruned": self.pruned, "caches": self.caches}


def purge(cfg: Config, findings: Sequence[str] = (), paths: Sequence[str] = (), *,
          confirm: Callable[[Plan], bool]) -> PurgeReport:
    """Remove the chosen findings (by id; none and no path: every finding) and notes (by path)
    from every branch's history, after confirm(plan) said yes.

    Raises:
        NoMatch: an id `memgit scan` does not list, or a path no branch's history holds.
        NotARepo, LockHeld: as every write.
        ConflictError: a branch moved during the purge (run it again).
    """
    from memgit.store import ledger_cache, rewrite
    from memgit.store import scan as scan_mod
    from memgit.verbs import team_purge
    from memgit.verbs.remember import writable

    with writable(cfg) as repo:
        repo.record_edits()  # a person's edits join the history first (one holding a secret stays out)
        found = scan_mod.scan(repo, cfg.extra_redact_patterns)
        chosen = _choose(found, findings, bool(paths))
        planned = rewrite.Planned(repo, scan_mod.secret_values(repo, chosen, cfg.extra_redact_patterns),
                                  [p.strip("/").encode() for p in paths])
        missing = [p for p in paths if b"drop:" + p.strip("/").encode() not in planned.history.counts]
        if missing:
            raise NoMatch(f"no branch's history holds {', '.join(missing)}; `memgit scan` lists where findings are")
        plan = Plan([{"id": f.id, **asdict(f), "action": ACTIONS.get(f.where, "left")} for f in chosen],
                    planned.branches(), list(paths))
        plan.left = [{"id": f["id"], "where": f["where"], "path": f["path"], "do": LEFT.get(f["where"], "")}
                     for f in plan.findings if f["action"] == "left"]
        report = PurgeReport(str(cfg.repo_path), plan)
        if plan.empty or not confirm(plan):
            return report
        shared, own = team_purge.marks(repo, planned.history)  # what the teams' next pushes need
        messages = {branch: _message(branch, row["places"], paths, planned.remote_refs(), shared.get(branch, []))
                    for branch, row in plan.branches.items()}
        report.commits = {branch: new for branch, (_, new) in planned.apply(repo, messages).items()}
        team_purge.settle(repo, own)
        report.caches = _clear(cfg, [f for f in found if f.where in ("cache", "cache file name")])
        report.pruned = rewrite.drop_unreachable(repo)
        ledger_cache.load(repo, cfg.state_dir)  # rebuilt now; the context and search follow as `writable` closes
        remember_noticed(repo, cfg, [])
        report.done = True
        return report


def _message(branch: str, places: dict[str, int], paths: Sequence[str], tracked: dict[str, str],
             shared: list[tuple[str, str]]) -> str:
    """The purge commit's message: what went, by kind, and the remote heads it replaces (the lease
    `memgit push --force` holds the remote to); `shared`: the teams' (memgit.verbs.team_purge)."""
    from memgit.store.rewrite import DROPPED
    from memgit.verbs.remember import scope_label

    secrets = sum(n for kind, n in places.items() if kind != DROPPED)
    what = "; ".join(filter(None, [f"drop {', '.join(paths)}" if paths else "",
                                   f"remove {secrets} possible secret(s) from the history" if secrets else ""]))
    trailers = [(PURGED_TRAILER, f"{kind} {n}") for kind, n in sorted(places.items())]
    trailers += [(REPLACES_TRAILER, f"{ref} {old}") for ref, old in tracked.items() if ref.partition("/")[2] == branch]
    trailers += shared
    return format_message(PURGE, scope_label(branch), what, trailers=trailers)


def _choose(found: list, ids: Sequence[str], by_path: bool) -> list:
    by_id = {f.id: f for f in found}
    unknown = [i for i in ids if i not in by_id]
    if unknown:
        raise NoMatch(f"no finding {', '.join(unknown)}: `memgit scan` lists them with their ids (a purge changes "
                      "the ids of what it rewrote)")
    if ids:
        return [by_id[i] for i in dict.fromkeys(ids)]
    return [] if by_path else found


def _clear(cfg: Config, cache_findings: list) -> list[str]:
    """Delete the derived files under .git/memgit, and any other file there a finding is in."""
    state = cfg.state_dir
    paths = [state / name for name in DERIVED] + sorted(state.glob("incoming-*"))
    paths += [cfg.repo_path / f.path for f in cache_findings]
    cleared = []
    for path in dict.fromkeys(paths):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        else:
            continue
        cleared.append(str(path.relative_to(cfg.repo_path)))
    return cleared


def take_remote_purge(repo, cfg: Config, remote: str, before: dict[str, str]) -> list[dict]:
    """Rebuild each local branch whose copy on `remote` (as just fetched) holds a purge this machine
    has not seen: the remote's history, then this machine's own commits replayed on top (those not in
    what the purge replaced, nor in what was last fetched: `before`). No session is read again: the
    ledger is in the remote's history. Then the old objects go, and the caches are rebuilt.

    Returns:
        [{branch, replayed}] per branch rebuilt.

    Raises:
        SecretFound: a commit of this machine to replay holds a possible secret; nothing moved.
    """
    from memgit.core.ledger import parse_subject, parse_trailers
    from memgit.errors import SecretFound
    from memgit.store import ledger_cache, replay, rewrite
    from memgit.store.remote import remote_heads

    rebuilt = []
    for branch, theirs in sorted(remote_heads(repo, remote).items()):
        ours = repo.head(branch)
        if ours is None or ours == theirs:
            continue
        # Only what the remote has and this machine lacks is read: a few commits, but for a rewritten history.
        purges = [info for info in repo.history(theirs, exclude=ours) if (parse_subject(info.message) or ("",))[0] == PURGE]
        if not purges:
            continue  # new commits, or two machines' commits: joining fast-forwards or merges them
        replaced = [value.partition(" ")[2] for info in purges
                    for value in parse_trailers(info.message).get(REPLACES_TRAILER, [])
                    if value.partition(" ")[0] == f"{remote}/{branch}"]
        own = replay.own_commits(repo, ours, [*replaced, before.get(branch, ""), theirs])
        try:
            head, replayed = replay.replay(repo, branch, theirs, own)
        except SecretFound as e:
            raise SecretFound(f"{remote} purged {branch}, but this machine's own commits on it hold a possible "
                              f"secret, so it was not rebuilt: run `memgit purge` here, then `memgit pull` again "
                              f"({e.message})") from e
        rebuilt.append((branch, ours, head, replayed))
    for branch, ours, head, _ in rebuilt:
        replay.move_branch(repo, branch, ours, head)
    if rebuilt:
        _clear(cfg, [])
        rewrite.drop_unreachable(repo)
        ledger_cache.load(repo, cfg.state_dir)
        remember_noticed(repo, cfg, [])
    return [{"branch": branch, "replayed": replayed} for branch, _, _, replayed in rebuilt]


NOTICED = "noticed.json"  # under .git/memgit: the heads last checked for hand-written secrets, and what was found


def noticed(repo, cfg: Config) -> list[dict]:
    """Secrets a person wrote past the gate since the last sync (a commit made with git, a draft of a
    refused edit), each with the `memgit purge` line that removes it; those found before and still
    there are told again. The record starts when the repository is created (and again after a purge);
    without one, only what comes next is read: reading a whole history takes minutes (`memgit scan` does)."""
    from memgit.store import scan as scan_mod

    seen, before = _noticed_state(cfg)
    found = [{"id": f.id, **asdict(f), "what": f.describe(), "purge": f"memgit purge --finding {f.id}"}
             for f in scan_mod.scan_since(repo, repo.branches() if seen is None else seen, cfg.extra_redact_patterns)]
    ids = {f["id"] for f in found}
    return found + [f for f in before if isinstance(f, dict) and f.get("id") not in ids and _still_there(repo, cfg, f)]


def remember_noticed(repo, cfg: Config, found: list[dict]) -> None:
    """Record the heads checked (the next sync reads only what comes after) and what was found."""
    import json

    try:
        (cfg.state_dir / NOTICED).write_text(json.dumps({"heads": repo.branches(), "found": found}), encoding="utf-8")
    except OSError:
        pass  # derived: the next sync checks again from the older heads


def start_noticing(cfg: Config) -> None:
    """Start the record `noticed` reads from the branches as they are now (a new repository, a purge)."""
    from memgit.verbs.inspect import open_repo

    with open_repo(cfg) as repo:
        remember_noticed(repo, cfg, [])


def _noticed_state(cfg: Config) -> tuple[dict[str, str] | None, list]:
    import json

    try:
        state = json.loads((cfg.state_dir / NOTICED).read_text(encoding="utf-8"))
        return dict(state["heads"]), list(state["found"])
    except (OSError, ValueError, KeyError, TypeError):
        return None, []


def _still_there(repo, cfg: Config, f: dict) -> bool:
    if f.get("commit"):
        return repo.resolve(f["commit"]) is not None  # a purge rewrote it away
    return (cfg.repo_path / f.get("path", "")).is_file()
