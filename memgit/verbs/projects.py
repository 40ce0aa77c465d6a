"""`memgit projects merge A B`: two identities of one project joined into A (issue 11 item 5).

B's notes and history join A by a merge commit whose PROJECT.md lists both identities, B's branch
is deleted, A and main are consolidated again; from then on `scopes.resolve` files a session of
either identity on A, since it reads identities from PROJECT.md.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from memgit.config import Config
from memgit.core import join as rules
from memgit.core import scopes
from memgit.core.ledger import format_message
from memgit.core.selector import pick
from memgit.core.vocab import MAIN, PREFIX
from memgit.errors import ConflictError, MemgitError
from memgit.verbs import joining


@dataclass(slots=True)
class ProjectsMerged:
    """The result of `merge`."""

    into: str  # the branch that holds both projects now
    merged: str  # the branch joined into it, and deleted
    head: str
    remotes: list[str] = field(default_factory=list)  # the identity A's PROJECT.md lists now
    paths: list[str] = field(default_factory=list)
    consolidated: list[str] = field(default_factory=list)  # scopes


def merge(cfg: Config, into: str, other: str) -> ProjectsMerged:
    """Join project `other` into project `into` (each an exact name, slug or branch, or a prefix only it has).

    Raises:
        NotARepo: there is no memory repository.
        NoMatch, AmbiguousSelector: a name matches no project, or several.
        MemgitError: both names are the same project.
        ConflictError: a file (a pinned note of the same name, say) differs on the two branches; nothing was changed.
        SecretFound: the gate refused a file of `other`; nothing was changed.
    """
    from memgit.store.lock import sync_lock
    from memgit.store.repo import MemoryRepo
    from memgit.verbs import briefing, consolidate, install, search

    with sync_lock(cfg.state_dir, wait=True), \
            MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        repo.record_edits()
        a, b = find(repo, into), find(repo, other)
        if a == b:
            raise MemgitError(f"{into!r} and {other!r} are the same project ({a})")
        head, joined = join(repo, a, b)
        done = consolidate.run(repo, cfg, branches=[a], include_global=MAIN in repo.branches())
        briefing.refresh(repo, cfg, {a, b, *(c.branch for c in done)})
        install.publish_skills(repo, cfg)
        search.refresh_index(repo, cfg)
        return ProjectsMerged(a, b, repo.head(a) or head, list(joined.remotes), list(joined.paths),
                              [c.scope for c in done])


def names(cfg: Config, into: str, other: str) -> tuple[str, str]:
    """The two project branches `merge` would join, read without writing (to ask before it does).

    Raises:
        NotARepo, NoMatch, AmbiguousSelector, MemgitError: as `merge` raises them.
    """
    from memgit.verbs.inspect import open_repo

    with open_repo(cfg) as repo:
        a, b = find(repo, into), find(repo, other)
    if a == b:
        raise MemgitError(f"{into!r} and {other!r} are the same project ({a})")
    return a, b


def join(repo, a: str, b: str) -> tuple[str, scopes.Project]:
    """Join project branch `b` into `a` in an open repository (the caller holds the sync lock) and
    delete `b`; return a's head and its PROJECT.md now. Derived files are left to the next consolidation.

    Raises:
        ConflictError: a file differs on the two branches (nothing was changed), or a branch moved.
        MemgitError: a PROJECT.md cannot be read.
        SecretFound: the gate refused a file of `b`; nothing was changed.
    """
    heads = repo.branches()
    p = joining.plan(repo, a, heads[a], heads[b])
    if p.outcome == joining.CONFLICT:
        raise ConflictError(joining.conflict_advice(a, b, p.conflicts).replace(
            "push, and pull again", "then run `memgit projects merge` again"))
    mine, theirs = joining.project(repo, a, heads[a]), joining.project(repo, b, heads[b])
    if mine is None or theirs is None:
        raise MemgitError(f"PROJECT.md on {a if mine is None else b} cannot be read; mend it, then retry")
    joined = replace(rules.united(mine, theirs), body=mine.body or theirs.body, extra=mine.extra)
    text = scopes.render_project_md(joined).encode("utf-8")
    if p.outcome == joining.MERGED:
        p.changes[rules.PROJECT_FILE] = text
        p.project_joined = True
        head = joining.apply(repo, a, p, b)
    else:  # one already holds the other: no merge commit needed, only both identities
        head = joining.apply(repo, a, p, b)
        message = format_message("merge", scopes.branch_slug(a), f"join {b}",
                                 body=f"{b} is already in {a}: PROJECT.md now lists both identities")
        head = repo.commit(a, {rules.PROJECT_FILE: text}, message, expected=head)
    repo.delete_branch(b, expected=heads[b], into=a)
    return head, joined


def find(repo, selector: str) -> str:
    """The project branch `selector` names: its branch, slug or PROJECT.md name, exact or a prefix only it has.

    Raises:
        NoMatch, AmbiguousSelector: none or several.
    """
    names: dict[str, set[str]] = {}
    for branch, head in repo.branches().items():
        if branch.startswith(PREFIX):
            project = joining.project(repo, branch, head)
            names[branch] = {branch, scopes.branch_slug(branch), *([project.name] if project else [])}
    return pick(selector, names, what="project", hint="`memgit projects` lists them")
