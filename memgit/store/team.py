"""Team remotes (issue 22): a remote with a role, where each person writes only their own refs.

On the team remote a person's shared project is `refs/heads/people/<person>/projects/<slug>`; two
people never write one ref, so pushes never conflict. What is sent there is not the local branch
but a *share* commit built from it: its tree holds PROJECT.md, sessions/ and the pinned notes that
are not private, nothing else (no MEMORY.md, no summary, no other project, never `main`). Share
commits chain on the last one sent and take their date from the local head, so the same local
head gives the same commit and each push is a fast-forward.

Locally, what a team pull brought (and what this machine pushed) is kept under
`refs/memgit/team/<team>/<person>/projects/<slug>`: refs, so git keeps their objects, and not
branches, so nothing else in memgit takes them for the person's own memory.

The team's settings live beside the remote's in .git/config: `remote.<team>.memgit-role = team`,
`remote.<team>.memgit-person`, `remote.<team>.memgit-shared` (the shared slugs, space-separated).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from dulwich.objects import Commit, Tree

from memgit.core.vocab import PREFIX
from memgit.errors import RemoteAhead, RemoteError
from memgit.store import transport
from memgit.store.crossing import Outgoing
from memgit.store.incoming import bytes_progress as _bytes_progress, receive
from memgit.store.remote import HEADS, ROLE, TEAM, Progress, describe_url, ref_updates, remote_url, role

PERSON, SHARED = b"memgit-person", b"memgit-shared"
LOCAL = "refs/memgit/team/"
PEOPLE = "people/"
KEPT_DIRS = (b"sessions",)  # taken whole; notes/ is filtered, PROJECT.md taken as it is
SHARE_AUTHOR_EMAIL = "memgit@localhost"


@dataclass(frozen=True, slots=True)
class TeamRemote:
    name: str
    url: str
    person: str
    shared: tuple[str, ...]


def remote_ref(person: str, slug: str) -> str:
    """The branch a person's shared project has on the team remote (without refs/heads/)."""
    return f"{PEOPLE}{person}/projects/{slug}"


def local_ref(team: str, person: str, slug: str) -> str:
    return f"{LOCAL}{team}/{person}/projects/{slug}"


# -- configuration ----------------------------------------------------------------------------------


def _section(name: str) -> tuple[bytes, bytes]:
    return (b"remote", name.encode())


def _get(config, name: str, key: bytes) -> str | None:
    try:
        return config.get(_section(name), key).decode()
    except KeyError:
        return None


def is_team(repo, name: str) -> bool:
    return role(repo, name) == TEAM


def team(repo, name: str) -> TeamRemote:
    """The team remote `name`.

    Raises:
        NoMatch: no remote of that name.
        RemoteError: it is a remote, but not a team's.
    """
    url = remote_url(repo, name)
    config = repo._repo.get_config()
    if _get(config, name, ROLE) != TEAM:
        raise RemoteError(f"remote {name} is not a team remote (it holds your whole memory); "
                          f"add a team with: memgit team add NAME URL")
    return TeamRemote(name, url, _get(config, name, PERSON) or "", tuple((_get(config, name, SHARED) or "").split()))


def teams(repo) -> list[TeamRemote]:
    from memgit.store.remote import list_remotes

    return [team(repo, n) for n in sorted(list_remotes(repo)) if is_team(repo, n)]


def set_team(repo, name: str, person: str) -> None:
    """Give remote `name` the team role, as `person`."""
    config = repo._repo.get_config()
    config.set(_section(name), ROLE, TEAM.encode())
    config.set(_section(name), PERSON, person.encode())
    # Plain `git fetch <team>` keeps the people's refs where memgit does, not as remote branches.
    config.set(_section(name), b"fetch", f"+refs/heads/{PEOPLE}*:{LOCAL}{name}/*".encode())
    config.write_to_path()


def set_shared(repo, name: str, slugs: Sequence[str]) -> None:
    config = repo._repo.get_config()
    config.set(_section(name), SHARED, " ".join(sorted(set(slugs))).encode())
    config.write_to_path()


def forget_fetched(repo, name: str) -> None:
    """Remove every refs/memgit/team/<name>/ ref (the team was removed)."""
    raw = repo._repo
    prefix = f"{LOCAL}{name}".encode()
    for ref in raw.refs.as_dict(prefix):
        raw.refs.remove_if_equals(prefix + b"/" + ref, None)


def fetched(repo, name: str) -> dict[tuple[str, str], str]:
    """What the last pull (or push) left of team `name`: {(person, slug): sha}."""
    prefix = f"{LOCAL}{name}".encode()
    found = {}
    for ref, sha in repo._repo.refs.as_dict(prefix).items():
        person, _, slug = ref.decode("utf-8", "replace").partition("/projects/")
        if person and slug and "/" not in person:
            found[(person, slug)] = sha.decode()
    return found


def git_user_email(repo) -> str | None:
    """git's user.email as this repository sees it (its config, ~/.gitconfig), or None."""
    try:
        value = repo._repo.get_config_stack().get((b"user",), b"email").decode().strip()
    except KeyError:
        return None
    return value or None


def unpushed(repo, name: str) -> list[str]:
    """The shared projects whose notes or PROJECT.md changed here since the last push to team `name`,
    or that were never pushed (no network)."""
    t = team(repo, name)
    seen = {s: sha for (p, s), sha in fetched(repo, name).items() if p == t.person}
    heads = repo.branches()
    return sorted(s for s in t.shared if PREFIX + s in heads and (
        s not in seen or any(repo._lookup(heads[PREFIX + s], part) != repo._lookup(seen[s], part)
                             for part in ("sessions", "PROJECT.md"))))


# -- what is shared -------------------------------------------------------------------------------


def share_tree(repo, head: str, keep_note: Callable[[str, bytes], bool]) -> bytes:
    """The tree a team sees of the local branch at `head`: PROJECT.md, sessions/, and the pinned
    notes `keep_note(path, data)` keeps (the private ones are not)."""
    objects = repo._objects
    source = objects[objects[head.encode()].tree]
    tree = Tree()
    new = []
    for entry in source.items():
        if entry.path == b"PROJECT.md" or entry.path in KEPT_DIRS:
            tree.add(entry.path, entry.mode, entry.sha)
        elif entry.path == b"notes" and entry.mode & 0o170000 == 0o040000:
            notes = Tree()
            for note in objects[entry.sha].items():
                if note.mode & 0o170000 != 0o040000 and keep_note(f"notes/{note.path.decode()}", objects[note.sha].data):
                    notes.add(note.path, note.mode, note.sha)
            if len(notes):
                new.append(notes)
                tree.add(b"notes", entry.mode, notes.id)
    new.append(tree)
    repo._objects.write([o for o in new if o.id not in repo._repo.object_store])
    return tree.id


def tree_files(repo, tree: bytes, prefix: str) -> list[str]:
    """The file paths under directory `prefix` of a tree (as `share_tree` gives it)."""
    from dulwich.object_store import iter_tree_contents

    entry = repo._objects.lookup(tree, prefix.encode())
    if entry is None or entry[0] & 0o170000 != 0o040000:
        return []
    return sorted(f"{prefix}/{e.path.decode()}" for e in iter_tree_contents(repo._objects, entry[1]))


def share_commit(repo, head: str, parent: str | None, tree: bytes, *, person: str, message: str) -> str | None:
    """The share commit of `head` on `parent` (None: nothing new since the parent). Its content passed
    the commit gate when it was committed here; the push scans it again, message included."""
    objects = repo._objects
    if parent and objects[parent.encode()].tree == tree:
        return None
    local = objects[head.encode()]
    c = Commit()
    c.tree, c.parents = tree, [parent.encode()] if parent else []
    c.author = c.committer = f"{person} <{SHARE_AUTHOR_EMAIL}>".encode()
    c.author_time = c.commit_time = local.commit_time  # the same head gives the same commit
    c.author_timezone = c.commit_timezone = 0
    c.message = message.encode()
    repo._objects.write([c])
    return c.id.decode()


# -- push -------------------------------------------------------------------------------------------


@dataclass
class Sent:
    updated: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # remote branch -> (old, new)
    deleted: list[str] = field(default_factory=list)
    objects: int = 0
    bytes: int = 0


def push(repo, t: TeamRemote, refs: Mapping[str, str], *, delete: Sequence[str] = (),
         leases: Mapping[str, str] | None = None, progress: Progress | None = None) -> Sent:
    """Set the team remote's `refs` ({people/<me>/projects/<slug>: share commit}) and delete `delete`,
    each only where it is the person's own and the remote holds what this machine last saw there (or,
    for a ref in `leases`, the commit named there: what a purge here replaced).

    Raises:
        RemoteError: a ref is not the person's own (nothing is sent); the remote refused one
            (a host's rule, say: one line with its reason); it could not be reached.
        RemoteAhead: the remote moved since this machine last saw it (another machine of the person).
        SecretFound: what would be sent holds a possible secret; nothing was sent.
    """
    own = f"{PEOPLE}{t.person}/projects/"
    for ref in [*refs, *delete]:
        if not ref.startswith(own) or "/" in ref[len(own):]:
            raise RemoteError(f"team {t.name} takes only {own}<shared project>: {ref} was not pushed")
    raw = repo._repo
    seen = {remote_ref(p, s): sha for (p, s), sha in fetched(repo, t.name).items() if p == t.person}
    client, path = transport.connect(t.url, raw.get_config_stack(), push=True)
    result = Sent()

    def update_refs(old_refs):
        moved = sorted(b for b in {*refs, *delete}
                       if (old := old_refs.get(HEADS + b.encode())) and old.decode() != (leases or {}).get(b, seen.get(b)))
        if moved:
            raise RemoteAhead(f"team {t.name} has {', '.join(moved)} as this machine never saw it (another machine of "
                              f"yours pushed there); nothing was pushed: run `memgit pull {t.name}` first")
        new = ref_updates(old_refs, refs, delete, result.updated, result.deleted)
        outgoing.plan(old_refs, new)  # scanned before a byte is sent
        return new

    outgoing = Outgoing(raw.object_store, repo.extra_patterns)
    meter = transport.PackMeter(raw.object_format)
    with transport.reaching(t.url, client):
        sent = client.send_pack(path, update_refs, meter.wrap(outgoing.generate_pack_data),
                                progress=_bytes_progress(progress))
        transport.settle_credentials(client)
    failed = {ref.decode()[len("refs/heads/"):]: why for ref, why in (sent.ref_status or {}).items() if why}
    if result.updated:
        result.objects, result.bytes = meter.objects, meter.bytes
    message = f"memgit push {t.name}".encode()
    for b, (_, sha) in list(result.updated.items()):
        if b in failed:
            del result.updated[b]
        else:
            raw.refs.set_if_equals(_local(t.name, b), None, sha.encode(), message=message)
    for b in result.deleted:
        if b not in failed:
            raw.refs.remove_if_equals(_local(t.name, b), None, message=message)
    result.deleted = [b for b in result.deleted if b not in failed]
    if failed:
        listed = "; ".join(f"{b}: {' '.join(str(why).split())}" for b, why in sorted(failed.items()))
        raise RemoteError(f"{describe_url(t.url)} refused {listed} (a rule on the team's host: each person may "
                          f"push only people/<themselves>/…; you push as {t.person!r}, see `memgit team list`)")
    return result


def _local(team_name: str, branch: str) -> bytes:
    return f"{LOCAL}{team_name}/{branch[len(PEOPLE):]}".encode()


# -- fetch ------------------------------------------------------------------------------------------


def _people_heads(refs: Mapping[bytes, bytes | None]) -> dict[str, str]:
    """{people/<person>/projects/<slug>: sha} of the remote's refs."""
    found = {}
    for ref, sha in refs.items():
        if not sha or not ref.startswith(HEADS + PEOPLE.encode()):
            continue
        name = ref[len(HEADS):].decode("utf-8", "replace")
        person, _, slug = name[len(PEOPLE):].partition("/projects/")
        if person and slug and "/" not in person and "/" not in slug:
            found[name] = sha.decode()
    return found


def fetch(repo, t: TeamRemote, *, progress: Progress | None = None) -> tuple[dict[tuple[str, str], str], int]:
    """Bring every people/<person>/projects/<slug> of the team in (scanned in quarantine as every
    fetch is) and point refs/memgit/team/<team>/… at them; refs gone from the remote are dropped.
    Returns ({(person, slug): sha}, objects received).

    Raises:
        RemoteError: it could not be reached or read.
        SecretFound: what a teammate's ref brought holds a possible secret; nothing was taken in.
    """
    raw = repo._repo
    haves = sorted({sha for sha in {**raw.refs.as_dict(b"refs/heads"), **raw.refs.as_dict(LOCAL.encode())}.values()
                    if sha in raw.object_store})
    heads, objects = receive(repo, t.url, _people_heads, haves=haves, progress=progress)
    message = f"memgit pull {t.name}".encode()
    wanted = {_local(t.name, b): sha.encode() for b, sha in heads.items()}
    prefix = f"{LOCAL}{t.name}".encode()
    for ref, sha in raw.refs.as_dict(prefix).items():
        if prefix + b"/" + ref not in wanted:
            raw.refs.remove_if_equals(prefix + b"/" + ref, sha, message=message)
    for ref, sha in wanted.items():
        raw.refs.set_if_equals(ref, None, sha, message=message)
    return fetched(repo, t.name), objects
