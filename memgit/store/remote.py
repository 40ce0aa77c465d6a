"""Remotes of the memory repository (DESIGN §5b): their configuration, fetch, ls-remote and push.

Only memgit's branches travel (main, projects/*). A fetch moves refs/remotes/<remote>/* and never a
local branch (joining them is `memgit pull`'s job); a push sends what the remote lacks, fast-forward
only. What crosses is scanned for secrets both ways — the objects a push is about to send, and those a
fetch brought before they join the repository — and refused on a finding: a remote keeps what it is
given, and a mirror keeps it forever. transport.py reaches the remote.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from dulwich.objects import ZERO_SHA, Commit
from dulwich.refs import check_ref_format

from memgit.core import redact
from memgit.core.names import safe_text
from memgit.core.vocab import MAIN, PREFIX
from memgit.errors import AlreadyExists, NoMatch, RemoteAhead, RemoteError
from memgit.store import scan as scan_mod
from memgit.store import crossing, incoming, transport
from memgit.store.crossing import Outgoing
from memgit.store.transport import describe_url

HEADS = b"refs/heads/"
ROLE, TEAM = b"memgit-role", "team"  # remote.<name>.memgit-role
Progress = Callable[[str], None]

__all__ = ["Fetched", "Pushed", "add_remote", "describe_url", "fetch", "is_memgit_branch",
           "list_remotes", "local_heads", "ls_remote", "push", "remote_heads", "remove_remote", "unpushed"]


def is_memgit_branch(branch: str) -> bool:
    """The branches memgit pushes, pulls and clones: main and projects/*."""
    return branch == MAIN or branch.startswith(PREFIX)


def remote_heads(repo, remote: str) -> dict[str, str]:
    """The memgit branches as last fetched from `remote`: {branch: sha} from refs/remotes/<remote>/*.

    No network: what the last fetch (or `git fetch`) left in the repository.
    """
    prefix = f"refs/remotes/{remote}/"
    return {ref[len(prefix):]: sha for ref, sha in repo.refs().items()
            if ref.startswith(prefix) and is_memgit_branch(ref[len(prefix):])}


def local_heads(repo) -> dict[str, str]:
    """This repository's memgit branches: {branch: sha}."""
    return {b: sha for b, sha in repo.branches().items() if is_memgit_branch(b)}


def unpushed(repo, remote: str) -> list[str]:
    """Memgit branches whose head is not what the last push or fetch saw on `remote` (no network)."""
    tracked = remote_heads(repo, remote)
    return sorted(b for b, sha in local_heads(repo).items() if tracked.get(b) != sha)


# -- configuration ----------------------------------------------------------------------------------


def list_remotes(repo) -> dict[str, str]:
    """The configured remotes: {name: url} from remote.<name>.url in .git/config."""
    config = repo._repo.get_config()
    found = {}
    for section in config.sections():
        if len(section) == 2 and section[0] == b"remote":
            try:
                found[section[1].decode()] = config.get(section, b"url").decode()
            except KeyError:
                continue
    return found


def add_remote(repo, name: str, url: str) -> None:
    """Configure remote `name` at `url`, with git's usual fetch refspec (so `git fetch` works too).

    A local path is stored absolute: memgit runs from any directory.

    Raises:
        AlreadyExists: the name is taken.
        RemoteError: the name is not a valid ref component; the URL is empty, of an unknown kind,
            or holds a password.
    """
    if not name or "/" in name or not check_ref_format(f"refs/remotes/{name}".encode()):
        raise RemoteError(f"{name!r} is not a valid remote name: use letters, digits, '-', '_' or '.' "
                          "(one ref component, e.g. `origin`)")
    if name in list_remotes(repo):
        raise AlreadyExists(f"remote {name} already exists ({describe_url(list_remotes(repo)[name])}); "
                            "remove it first or pick another name")
    url = url.strip()
    if not url:
        raise RemoteError(f"remote {name} needs a URL or a path")
    if transport.holds_password(url):
        raise RemoteError(f"refusing to store a password in the remote URL {describe_url(url)}: any program "
                          "reading .git/config could see it. Give the URL without it and let a git credential "
                          "helper keep it (git config --global credential.helper store), or use ssh")
    if transport.is_local_path(url):
        url = os.path.abspath(os.path.expanduser(url))
    raw = repo._repo
    client, _ = transport.connect(url, raw.get_config_stack(), push=False)  # refuses an unknown scheme
    client.close()
    config = raw.get_config()
    section = (b"remote", name.encode())
    config.set(section, b"url", url.encode())
    config.set(section, b"fetch", f"+refs/heads/*:refs/remotes/{name}/*".encode())
    config.write_to_path()


def remove_remote(repo, name: str) -> None:
    """Drop remote `name`: its configuration, its refs/remotes/<name>/* (a team's refs/memgit/team/<name>/*).

    Raises:
        NoMatch: no such remote.
    """
    remote_url(repo, name)
    raw = repo._repo
    config = raw.get_config()
    del config[(b"remote", name.encode())]
    config.write_to_path()
    for base in (f"refs/remotes/{name}", f"refs/memgit/team/{name}"):  # a team's: memgit.store.team
        for ref in raw.refs.as_dict(base.encode()):
            raw.refs.remove_if_equals(f"{base}/".encode() + ref, None)


def role(repo, name: str) -> str | None:
    """The role of remote `name` (`team`, memgit.store.team), None for a person's own remote."""
    try:
        return repo._repo.get_config().get((b"remote", name.encode()), ROLE).decode()
    except KeyError:
        return None


def remote_url(repo, name: str) -> str:
    """The URL of remote `name`.

    Raises:
        NoMatch: no such remote.
    """
    remotes = list_remotes(repo)
    if name not in remotes:
        known = ", ".join(sorted(remotes)) or "none"
        raise NoMatch(f"no remote named {name!r} (configured: {known}); add it with `memgit remote add`")
    return remotes[name]


# -- fetch ----------------------------------------------------------------------------------------


@dataclass
class Fetched:
    """What a fetch brought: the remote's memgit branches, now under refs/remotes/<remote>/."""

    remote: str
    heads: dict[str, str]
    removed: list[str] = field(default_factory=list)  # tracking refs pruned: the branch is gone there
    objects: int = 0  # objects received


def ls_remote(repo, remote: str) -> dict[str, str]:
    """The memgit branches on `remote` right now ({branch: sha}); asks the remote, fetches no object.

    Raises:
        NoMatch: no such remote.
        RemoteError: it could not be reached or read.
    """
    url = remote_url(repo, remote)
    client, path = transport.connect(url, repo._repo.get_config_stack(), push=False)
    with transport.reaching(url, client):
        refs = client.get_refs(path).refs
        transport.settle_credentials(client)
    return _memgit_heads(refs)


def fetch(repo, remote: str, *, progress: Progress | None = None) -> Fetched:
    """Bring the remote's memgit branches in under refs/remotes/<remote>/ (local branches untouched).

    The objects arrive in a quarantine beside the repository and join it only once the remote is
    known to be a memgit repository (its main's root commit is an `init(` commit), so a wrong URL
    leaves nothing behind. Tracking refs of branches gone from the remote are removed.

    Raises:
        NoMatch: no such remote.
        RemoteError: it could not be reached or read; it is not a memgit repository.
    """
    url = remote_url(repo, remote)
    stop = {repo.head(MAIN), remote_heads(repo, remote).get(MAIN)}

    def check(store, heads):
        if MAIN in heads:
            _check_memgit(store, url, heads[MAIN], stop=stop)

    heads, objects = incoming.receive(repo, url, _memgit_heads, check=check, progress=progress)
    removed = _track(repo._repo, remote, heads)
    return Fetched(remote=remote, heads=heads, removed=removed, objects=objects)


def _memgit_heads(refs: Mapping[bytes, bytes | None]) -> dict[str, str]:
    return {ref[len(HEADS):].decode(): sha.decode() for ref, sha in refs.items()
            if sha and ref.startswith(HEADS) and is_memgit_branch(ref[len(HEADS):].decode("utf-8", "replace"))}


def _check_memgit(store, url: str, main: str, stop: set[str | None]) -> None:
    """Follow main's first parents to its root (or to a commit already known to be memgit's)."""
    sha = main.encode()
    known = {s.encode() for s in stop if s}
    while sha not in known:
        commit = store[sha]
        if not isinstance(commit, Commit):
            break
        if not commit.parents:
            if commit.message.startswith(b"init("):
                return
            break
        sha = commit.parents[0]
    else:
        return
    raise RemoteError(f"{describe_url(url)} is not a memgit repository (its main did not start with memgit's "
                      "init commit); nothing was fetched. Check the URL, or push to an empty repository instead")


def _track(raw, remote: str, heads: Mapping[str, str]) -> list[str]:
    """Point refs/remotes/<remote>/<branch> at what the remote has; drop those of vanished branches."""
    prefix = f"refs/remotes/{remote}/".encode()
    message = f"memgit fetch {remote}".encode()
    removed = []
    for name, sha in raw.refs.as_dict(prefix.rstrip(b"/")).items():
        branch = name.decode("utf-8", "replace")
        if is_memgit_branch(branch) and branch not in heads:
            raw.refs.remove_if_equals(prefix + name, sha, message=message)
            removed.append(branch)
    for branch, sha in heads.items():
        raw.refs.set_if_equals(prefix + branch.encode(), None, sha.encode(), message=message)
    return sorted(removed)


_bytes_progress = incoming.bytes_progress


# -- push -----------------------------------------------------------------------------------------


def ref_updates(old_refs, branches: Mapping[str, str], delete, updated: dict, deleted: list) -> dict[bytes, bytes]:
    """The refs a push sets on the remote: each branch that moved (noted in `updated` as (old or None,
    new)) and each deleted one the remote holds (noted in `deleted`)."""
    new = {}
    for branch, sha in branches.items():
        old = old_refs.get(HEADS + branch.encode())
        if old is None or old.decode() != sha:
            new[HEADS + branch.encode()] = sha.encode()
            updated[branch] = (old.decode() if old else None, sha)
    for branch in delete:
        if HEADS + branch.encode() in old_refs:
            new[HEADS + branch.encode()] = ZERO_SHA
            deleted.append(branch)
    return new


@dataclass
class Pushed:
    """What a push did on the remote."""

    remote: str
    updated: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # branch -> (old or None, new)
    deleted: list[str] = field(default_factory=list)
    objects: int = 0  # objects in the pack sent
    bytes: int = 0  # size of that pack


def push(repo, remote: str, branches: Mapping[str, str], *, delete: Sequence[str] = (),
         progress: Progress | None = None, leases: Mapping[str, str] = {}) -> Pushed:
    """Set the remote's `branches` ({branch: sha}) by fast-forward, sending only the objects it
    lacks, and delete its `delete` branches; then point refs/remotes/<remote>/* at the result.
    A branch in `leases` ({branch: sha}) replaces the remote's whatever its history, but only while
    the remote's is that sha (a history `memgit purge` rewrote: the remote's old one goes).

    Raises:
        SecretFound: the history holds a possible secret; nothing was sent.
        NoMatch: no such remote.
        RemoteAhead: an update is not a fast-forward (nothing is changed: `memgit pull` first).
        RemoteError: a branch is not memgit's or its commit is not here; the remote could not
            be reached or refused an update.
    """
    if role(repo, remote) == TEAM:  # personal branches never reach a team: only memgit.store.team sends there
        named = ", ".join(sorted({*branches, *delete})) or "nothing else"
        raise RemoteError(f"{remote} is a team remote: it takes only people/<you>/projects/<shared project>, "
                          f"never {named}; `memgit push {remote}` sends what you shared")
    raw = repo._repo
    for branch, sha in branches.items():
        if not is_memgit_branch(branch):
            raise RemoteError(f"{safe_text(branch, repo.extra_patterns)!r} is not a memgit branch (main or "
                              "projects/…); not pushed")
        if sha.encode() not in raw.object_store:
            raise RemoteError(f"cannot push {branch}: commit {sha[:12]} is not in this repository")
    crossing.refuse_secrets([scan_mod.Found(f.kind, "branch name", path=f"refs/heads/{b}")
                    for b in {*branches, *delete} for f in redact.find_secrets(b, repo.extra_patterns)],
                   "push: a branch name holds", "Nothing was sent. Rename the branch (git branch -m)")
    url = remote_url(repo, remote)
    client, path = transport.connect(url, raw.get_config_stack(), push=True)
    if (busy := transport.checked_out_there(client, path)) in {*branches, *delete}:
        client.close()
        raise RemoteError(f"{busy} is checked out in {url}, so pushing would leave its worktree behind; "
                          "push to a bare repository (`git init --bare`) instead")
    result = Pushed(remote=remote)

    def update_refs(old_refs):
        moved = [b for b, lease in leases.items()
                 if (old := old_refs.get(HEADS + b.encode())) and old.decode() not in (lease, branches[b])]
        if moved:
            raise RemoteAhead(f"{remote} moved since the purge on {', '.join(sorted(moved))}: another machine pushed "
                              "to it. Nothing was pushed. On that machine run `memgit purge` and `memgit push --force`, "
                              "then `memgit pull` here: it takes that history and keeps this machine's new notes")
        behind = [b for b, sha in branches.items()
                  if b not in leases and (old := old_refs.get(HEADS + b.encode())) and old.decode() != sha
                  and not repo.is_ancestor(old.decode(), sha)]
        if behind:
            raise RemoteAhead(f"{remote} has commits that are not here on {', '.join(sorted(behind))}; "
                              "nothing was pushed: run `memgit pull` first")
        new = ref_updates(old_refs, branches, delete, result.updated, result.deleted)
        outgoing.plan(old_refs, new)  # before a byte is sent: refused on a secret
        return new

    outgoing = Outgoing(raw.object_store, repo.extra_patterns)
    meter = transport.PackMeter(raw.object_format)
    with transport.reaching(url, client):
        sent = client.send_pack(path, update_refs, meter.wrap(outgoing.generate_pack_data),
                                progress=_bytes_progress(progress))
        transport.settle_credentials(client)
    failed = {ref.decode()[len("refs/heads/"):]: why for ref, why in (sent.ref_status or {}).items() if why}
    if result.updated:  # a pack went out (a push that only deletes sends none)
        result.objects, result.bytes = meter.objects, meter.bytes
    _track_pushed(raw, remote, result, failed)
    if failed:
        listed = "; ".join(f"{b}: {why}" for b, why in sorted(failed.items()))
        raise RemoteError(f"{describe_url(url)} refused {listed}; run `memgit pull` and push again")
    return result


def _track_pushed(raw, remote: str, result: Pushed, failed: Mapping[str, str]) -> None:
    """Record in refs/remotes/<remote>/ what the remote accepted; forget what it refused."""
    prefix = f"refs/remotes/{remote}/".encode()
    message = f"memgit push {remote}".encode()
    for branch in list(result.updated):
        if branch in failed:
            del result.updated[branch]
        else:
            raw.refs.set_if_equals(prefix + branch.encode(), None, result.updated[branch][1].encode(),
                                   message=message)
    result.deleted = [b for b in result.deleted if b not in failed]
    for branch in result.deleted:
        raw.refs.remove_if_equals(prefix + branch.encode(), None, message=message)
