"""Team memory (issue 22): `memgit team add|list|remove`, `share`/`unshare`, and push/pull to a team.

A team remote is a `memgit remote` with a role and a person (memgit.store.team). A push sends one
share commit per shared project to `people/<person>/projects/<slug>`; a pull fetches every
person's, and the shared projects are consolidated again over the teammates' notes
(memgit.verbs.team_memory). A teammate's project is the same as one here when their PROJECT.md
identities meet (the normalised remote URL), whatever the paths and slugs; what does not meet is
reported with the command that joins it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from memgit.config import Config
from memgit.core import join as rules
from memgit.core import scopes, vocab
from memgit.core.ledger import format_message
from memgit.core.notes import split_front_matter
from memgit.errors import MemgitError, RemoteAhead, RemoteError, UsageError
from memgit.store import remote as transport
from memgit.store import remote_log
from memgit.store import team as store
from memgit.verbs import joining, team_purge
from memgit.verbs.inspect import open_repo
from memgit.verbs.remote_reports import PullReport, PushReport

Progress = Callable[[str], None] | None
MAX_LISTED = 10  # notes named in a share commit's message


@dataclass(slots=True)
class TeamAdded:
    name: str
    url: str
    person: str
    how: str  # where the person's name came from


@dataclass(slots=True)
class Shared:
    team: str
    project: str  # the slug
    branch: str
    shared: list[str] = field(default_factory=list)  # every project shared with the team now


# -- joining a team ---------------------------------------------------------------------------------


def person_slug(text: str) -> str:
    """A person's name on a team, from an e-mail address (its local part) or a name: ref-safe."""
    return vocab.slugify(text.split("@", 1)[0], 40, default="")


def add(cfg: Config, name: str, url: str, person: str | None = None) -> TeamAdded:
    """Add team remote `name` at `url`, pushing as `person` (default: git's user.email, as a slug;
    the login name when git has none, said in `how`).

    Raises:
        AlreadyExists: the name is taken.
        RemoteError: the name or URL is not valid.
        UsageError: `person` leaves no name.
    """
    import getpass

    with open_repo(cfg) as repo:
        if person is not None:
            who, how = person_slug(person), "given with --as"
        elif email := store.git_user_email(repo):
            who, how = person_slug(email), f"from git's user.email ({email})"
        else:
            who = person_slug(getpass.getuser())
            how = (f"git has no user.email here, so the login name {who!r}; to be the same person on every "
                   f"machine: memgit team remove {name} && memgit team add {name} URL --as NAME")
        if not who:
            raise UsageError(f"{person!r} leaves no name to push as; use letters and digits, e.g. --as ana")
        transport.add_remote(repo, name, url)
        store.set_team(repo, name, who)
        return TeamAdded(name, transport.describe_url(transport.remote_url(repo, name)), who, how)


def rows(cfg: Config) -> list[dict]:
    """Each team remote: name, URL, person, shared projects, what was fetched of whom, last push and pull."""
    outcomes = remote_log.read(cfg.state_dir)
    with open_repo(cfg) as repo:
        found = []
        for t in store.teams(repo):
            people = sorted({p for p, _ in store.fetched(repo, t.name) if p != t.person})
            found.append({"name": t.name, "url": transport.describe_url(t.url), "person": t.person,
                          "shared": list(t.shared), "teammates": people,
                          **{op: outcomes.get(t.name, {}).get(op) for op in ("push", "pull")}})
        return found


def remove(cfg: Config, name: str) -> None:
    """Remove team remote `name` and what was fetched from it (the remote is not touched).

    Raises:
        NoMatch: no such remote.
        RemoteError: it is not a team remote.
    """
    from memgit.verbs.remember import writable

    with writable(cfg) as repo:
        t = store.team(repo, name)
        had = store.fetched(repo, name)
        store.forget_fetched(repo, name)
        transport.remove_remote(repo, name)
        heads = repo.branches()
        if any(p != t.person for p, _ in had):  # the teammates' notes leave the shared projects' memory
            _reconsolidate(repo, cfg, [vocab.PREFIX + s for s in t.shared if vocab.PREFIX + s in heads])
    remote_log.forget(cfg.state_dir, name)


# -- sharing ----------------------------------------------------------------------------------------


def share(cfg: Config, project: str, team_name: str, *, on: bool = True) -> Shared:
    """Share (or with not `on`, stop sharing) a project with a team; nothing is sent until a push.

    Raises:
        NoMatch, AmbiguousSelector: no such project, or several; no such remote.
        RemoteError: it is not a team remote; `project` is main (personal, never shared).
    """
    from memgit.verbs.remember import writable
    from memgit.verbs.selection import find_project

    with writable(cfg) as repo:
        t = store.team(repo, team_name)
        if project.strip() in (vocab.MAIN, "--global"):
            raise RemoteError(f"{vocab.MAIN} holds your own preferences across projects and never goes to a team; "
                              "share a project: memgit share PROJECT --team " + team_name)
        branch = find_project(repo, project)
        slug = scopes.branch_slug(branch)
        shared = set(t.shared) | {slug} if on else set(t.shared) - {slug}
        store.set_shared(repo, team_name, sorted(shared))
        _reconsolidate(repo, cfg, [branch])  # the teammates' notes already fetched join its memory, or leave it
        return Shared(team_name, slug, branch, sorted(shared))


def _reconsolidate(repo, cfg: Config, branches: list[str]) -> None:
    from memgit.verbs import briefing, consolidate

    done = consolidate.run(repo, cfg, branches=branches, include_global=False, force=True)
    if done:
        briefing.refresh(repo, cfg, {c.branch for c in done})


# -- push -------------------------------------------------------------------------------------------


def keep_note(path: str, data: bytes) -> bool:
    """A pinned note goes to the team unless it is marked `private: true`."""
    try:
        meta = split_front_matter(data.decode("utf-8", "replace"))[0]
    except ValueError:
        return False  # front matter a person broke: it may have said private
    return str(meta.get("private", "")).strip().lower() not in ("true", "yes", "on", "1")  # scalars stay text


def push(cfg: Config, name: str, *, progress: Progress = None) -> PushReport:
    """Send each shared project to the team as `people/<person>/projects/<slug>`; a project no longer
    shared is deleted there. Nothing else is ever sent.

    Raises:
        NoMatch: no such remote; a shared project has no branch here any more.
        RemoteError, RemoteAhead, SecretFound: as memgit.store.team.push.
    """
    try:
        with open_repo(cfg) as repo:
            t = store.team(repo, name)
            repo.record_edits()
            heads = repo.branches()
            seen = {s: sha for (p, s), sha in store.fetched(repo, name).items() if p == t.person}
            refs, leases = {}, {}
            for slug in t.shared:
                branch = vocab.PREFIX + slug
                if branch not in heads:
                    raise RemoteError(f"{branch} is shared with {name} but is not here any more (renamed or merged?); "
                                      f"memgit unshare {slug} --team {name}, then share its new name")
                ref = store.remote_ref(t.person, slug)
                refs[ref] = _share_commit(repo, t, slug, heads[branch], seen.get(slug))
                if slug not in seen and (replaced := team_purge.lease(repo, heads[branch], t.name, ref)):
                    leases[ref] = replaced  # a purge here dropped what the team holds there: replace it
            delete = [store.remote_ref(t.person, s) for s in seen if s not in t.shared]
            sent = store.push(repo, t, refs, delete=delete, leases=leases, progress=progress)
    except MemgitError as e:
        remote_log.record(cfg.state_dir, name, "push", False, e.message)
        raise
    changed = len(sent.updated) + len(sent.deleted)
    remote_log.record(cfg.state_dir, name, "push", True, f"{changed} project(s) updated" if changed else "already up to date")
    return PushReport(name, transport.describe_url(t.url), {b: list(v) for b, v in sent.updated.items()},
                      list(sent.deleted), sent.objects, sent.bytes)


def _share_commit(repo, t: store.TeamRemote, slug: str, head: str, parent: str | None) -> str:
    """The share commit of `head` on the last one sent (`parent`).

    Raises:
        RemoteAhead: `parent` was sent from a memory this one lacks (the person's other machine): a share
            of this head would take that machine's notes off the team.
    """
    if parent:
        sent_from = team_purge.shared_from(repo, parent)
        if sent_from and not repo.resolve(sent_from):  # a purge here rewrote it
            sent_from = team_purge.rewrite_of(repo, head, sent_from) or sent_from
        if sent_from and not (repo.resolve(sent_from) and repo.is_ancestor(sent_from, head)):
            raise RemoteAhead(f"people/{t.person}/projects/{slug} on {t.name} was last pushed from a memory this one "
                              f"lacks (commit {sent_from[:12]}, your other machine?); nothing was pushed: join that "
                              "memory first (`memgit pull` from your own remote), then push again")
    tree = store.share_tree(repo, head, keep_note)
    before = set(repo.list(parent, "sessions")) if parent else set()
    now = set(store.tree_files(repo, tree, "sessions"))
    added, gone = sorted(now - before), sorted(before - now)
    lines = [f"+ {p.rsplit('/', 1)[-1]}" for p in added[:MAX_LISTED]] + [f"- {p.rsplit('/', 1)[-1]}" for p in gone[:MAX_LISTED]]
    if len(added) + len(gone) > len(lines):
        lines.append(f"… and {len(added) + len(gone) - len(lines)} more")
    what = f"{len(added)} new session note(s)" + (f", {len(gone)} gone" if gone else "")
    message = format_message("share", slug, f"{t.person}: {what}", body="\n".join(lines),
                             trailers=[("Memgit-Person", t.person), (team_purge.SHARED_FROM, head)])
    return store.share_commit(repo, head, parent, tree, person=t.person, message=message) or parent or ""


# -- pull -------------------------------------------------------------------------------------------


def pull(cfg: Config, name: str, *, progress: Progress = None, wait: bool = True) -> PullReport:
    """Fetch every person's shared projects from the team, then consolidate the shared projects here
    over the teammates' notes. What the fetch brought is scanned (a secret refuses it whole).

    Raises:
        NoMatch: no such remote.
        RemoteError: it cannot be reached; it is not a team remote.
        SecretFound: a teammate's ref holds a possible secret (nothing was taken in).
        LockHeld: a sync is running and `wait` is false.
    """
    from memgit.store.lock import sync_lock
    from memgit.verbs import briefing, consolidate, search

    try:
        with open_repo(cfg) as repo:
            t = store.team(repo, name)
            before = store.fetched(repo, name)
            heads, objects = store.fetch(repo, t, progress=progress)
            rows, notices, moved = _matched(repo, t, before, heads)
            with sync_lock(cfg.state_dir, wait=wait):
                done = consolidate.run(repo, cfg, branches=sorted(moved), include_global=False, force=True)
                if done:
                    briefing.refresh(repo, cfg, {c.branch for c in done})
                    search.refresh_index(repo, cfg)
    except MemgitError as e:
        remote_log.record(cfg.state_dir, name, "pull", False, e.message)
        raise
    remote_log.record(cfg.state_dir, name, "pull", True, f"{len(rows)} teammate project(s)")
    report = PullReport(name, transport.describe_url(t.url), objects, rows, [], [c.scope for c in done])
    report.notices = notices
    return report


def _matched(repo, t: store.TeamRemote, before: dict, heads: dict) -> tuple[list[dict], list[str], set[str]]:
    """Per teammate's project: which project here it is (by identity), whether it moved; the mismatches
    to report; the shared branches to consolidate again."""
    local = {b: joining.project(repo, b, h) for b, h in repo.branches().items() if b.startswith(vocab.PREFIX)}
    rows, notices, moved = [], [], set()
    for (person, slug), sha in sorted(heads.items()):
        if person == t.person:
            continue
        ref = store.remote_ref(person, slug)
        theirs = joining.project(repo, vocab.PREFIX + slug, sha)
        mine = sorted(b for b, p in local.items() if p and theirs and rules.overlaps(p, theirs))
        shared = [b for b in mine if scopes.branch_slug(b) in t.shared]
        action = "fetched" if before.get((person, slug)) != sha else "up-to-date"
        rows.append({"branch": ref, "action": action, "head": sha, "into": shared[0] if shared else None})
        if len(mine) > 1:
            a, b = (scopes.branch_slug(x) for x in mine[:2])
            notices.append(f"{person}'s {slug} is one project with your {mine[0]} and {mine[1]} (their PROJECT.md "
                           f"identities meet): join them with: memgit projects merge {a} {b}")
        elif mine and not shared:
            notices.append(f"{person} shares {slug}, which is your {mine[0]} (not shared with {t.name}): to read "
                           f"the team's notes on it: memgit share {scopes.branch_slug(mine[0])} --team {t.name}")
        elif not mine and vocab.PREFIX + slug in local:
            notices.append(f"{person}'s {slug} is another project than your {vocab.PREFIX + slug} (no remote URL or "
                           f"path in common in PROJECT.md); if they are one, add the same remote to both checkouts, "
                           f"then join yours with: memgit projects merge {slug} OTHER")
        if shared and action == "fetched":
            moved.update(shared)
    for (person, slug) in before.keys() - heads.keys():  # gone from the team: read without it
        theirs = joining.project(repo, vocab.PREFIX + slug, before[(person, slug)])
        moved.update(b for b, p in local.items() if p and theirs and rules.overlaps(p, theirs)
                     and scopes.branch_slug(b) in t.shared)
    return rows, notices, moved


def doctor_check(repo, name: str) -> tuple[str, str, str] | None:
    """`memgit doctor`'s verdict on team remote `name` (status, found, fix); None for another remote."""
    if not store.is_team(repo, name):
        return None
    waiting = store.unpushed(repo, name)
    if waiting:
        return "warn", f"{name} (team): {len(waiting)} shared project(s) not pushed: {', '.join(waiting)}", \
            f"memgit push {name}"
    return "ok", f"{name} (team): up to date", ""


def auto(cfg: Config, op: str, *, wait: bool = True) -> tuple[bool, list[str]]:
    """`[repo] auto_push` / `auto_pull` for the teams: (whether there is a team, a warning for each
    team whose push or pull failed); never raises: a sync must not wait on a network."""
    try:
        with open_repo(cfg) as repo:
            teams = store.teams(repo)
            names = [t.name for t in teams if op == "pull" or store.unpushed(repo, t.name)]
    except MemgitError as e:
        return False, [f"auto {op}: the teams could not be read: {e.message}"]
    warnings = []
    for name in names:
        try:
            push(cfg, name) if op == "push" else pull(cfg, name, wait=wait)
        except MemgitError as e:
            warnings.append(f"auto {op} {'to' if op == 'push' else 'from'} team {name} failed: {e.message}")
    return bool(teams), warnings
