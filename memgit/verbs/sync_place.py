"""A session's project during a sync, and PROJECT.md kept true as the sessions show more of it.

- Identity: a live checkout's remote (memgit.sources.workspace.identify); for a directory that is no
  live checkout, the repository the transcript names when it is clearly the project's own
  (memgit.core.evidence), else the one its path is laid out as (memgit.core.placing.laid_out), unless
  the path is already known as another repository's.
- Placement (memgit.core.placing): a path found through its remote is listed on the project, a path-only
  project learns its remote; each change is a `project(<scope>)` commit saying why.
- Description (memgit.core.about): what the project is, from the checkout's README / CLAUDE.md /
  AGENTS.md, else from what the session read of them, in PROJECT.md's body while it is empty or
  memgit's own unedited text.
- Joining (`join_same_repository`, after the run's sessions): projects that came to list one remote
  are one repository; they are joined into one branch by `memgit projects merge`'s machinery.

Why join afterwards rather than decide before filing: a folder's sessions without evidence may be
synced before the one with evidence (in this run or an earlier one), and a session's note is written
where its project is at that moment. Recording each fact as it appears and joining what then shares a
remote gives the same partition whatever the order: every path with evidence ends on the remote's
branch, with its earlier notes.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace

from memgit.core import about, evidence, placing, scopes, vocab
from memgit.core.ledger import format_message
from memgit.core.model import Transcript
from memgit.errors import ConflictError, MemgitError
from memgit.sources import workspace

log = logging.getLogger("memgit.verbs.sync")
MAIN = vocab.MAIN
PROJECT_FILE = "PROJECT.md"
KIND = "project"  # project(<scope>): PROJECT.md learned a path, a remote or the project's description
_LAID_OUT = "Its path {path} is laid out as the repository {remote} (…/owner/repo, as ghq and GOPATH clone)."


def load_projects(repo) -> list[scopes.Project]:
    """Every project branch's PROJECT.md.

    Raises:
        MemgitError: a PROJECT.md a person broke (filing by guess could put sessions under the wrong project).
    """
    projects = []
    for branch in repo.branches():
        text = repo.read(branch, PROJECT_FILE) if branch.startswith(vocab.PREFIX) else None
        if text is None:
            continue
        try:
            projects.append(scopes.parse_project_md(text.decode("utf-8", "replace"), branch))
        except ValueError as e:
            raise MemgitError(f"PROJECT.md on {branch} is not valid ({e}); fix it on that branch "
                              f"(git switch {branch}) and run sync again") from e
    return projects


@dataclass(frozen=True, slots=True)
class Seen:
    """What a session's transcript shows about its project: read from the transcript and the disk alone,
    so a worker process can read it (sync_fork) and `Places.place` decide with it in the syncing one."""

    session: str  # the transcript's session id
    raw: scopes.Identity  # the cwd's identity as the disk tells it (sources.workspace.identify)
    found: evidence.Finding | None  # the repository the transcript names, when the cwd is no live checkout
    files: dict[str, str]  # what the session read of the project's README, CLAUDE.md, AGENTS.md


def observe(cwd: str, transcript: Transcript) -> Seen:
    """What `transcript`, a session at `cwd`, shows of its project (no repository is read)."""
    raw = workspace.identify(cwd)
    found = None if raw.in_repo else evidence.repository(transcript, raw.name, roots=(cwd, raw.path))
    files = evidence.project_files(transcript, roots=(transcript.cwd or "", raw.path))
    return Seen(transcript.session_id, raw, found, files)


class Places:
    """The projects one sync run files sessions into, and the commits that keep their PROJECT.md true."""

    def __init__(self, repo, clean, redact):
        self.repo, self.clean, self.redact = repo, clean, redact
        self.projects: list[scopes.Project] = load_projects(repo) if repo is not None else []  # None: no repo yet
        self.commits = 0
        self._checkouts: dict[str, about.Description | None] = {}  # path -> what its files say (read once a run)

    def identify(self, cwd: str) -> tuple[scopes.Identity, str]:
        """The identity of a cwd, and the cwd, as they are written (see scopes.written)."""
        return scopes.written(workspace.identify(cwd), self.clean), self.clean(scopes.portable_path(cwd))

    def project_for(self, cwd: str | None, transcript: Transcript | None = None) -> tuple[str, str, str]:
        """Return (branch, project name, scope label) for a session's cwd; main when unknown.

        With the session's transcript, what it proves is recorded on the way: the repository it
        names (when its cwd is no live checkout), the path, what the project is.
        """
        return self.place(cwd, observe(cwd, transcript) if cwd and transcript is not None else None)

    def place(self, cwd: str | None, seen: Seen | None) -> tuple[str, str, str]:
        """`project_for` with what the transcript shows read already (`observe`, in any process)."""
        if not cwd:
            return MAIN, "", MAIN
        raw = seen.raw if seen is not None else workspace.identify(cwd)
        identity, where = scopes.written(raw, self.clean), self.clean(scopes.portable_path(cwd))
        why = ""
        if seen is not None and not raw.in_repo:
            found = seen.found
            remote = found.remote if found else placing.laid_out(raw.path, self.projects)
            named = placing.with_evidence(identity, self.clean(remote), self.projects) if remote else identity
            if named is not identity:
                identity = named
                why = (f"Session {seen.session[:8]} names its repository {found.remote}: {found.why}." if found
                       else _LAID_OUT.format(path=where, remote=remote))
        placement = placing.place(identity, self.projects, cwd=where)
        for grown in placement.updates:
            self._write_identity(grown, why or f"Found as {identity.key} at {identity.path}.")
        project = placement.project and self._current(placement.project.branch)
        if project is None:
            project = self._create(identity, why)
        if seen is not None:
            self._describe(project.branch, raw, seen)
        return project.branch, project.name, project.branch.removeprefix(vocab.PREFIX)

    def _current(self, branch: str) -> scopes.Project:
        return next(p for p in self.projects if p.branch == branch)

    def _create(self, identity: scopes.Identity, why: str) -> scopes.Project:
        project = scopes.new_project(identity, self.projects)
        message = format_message("init", scopes.branch_slug(project.branch), f"project {project.name}",
                                 body="\n".join(filter(None, [f"Identity: {identity.key}", why])))
        text = scopes.render_project_md(project).encode()
        # With retry: a ref lock a killed run left on this new branch clears once stale (store.commits).
        self.repo.commit_with_retry(project.branch, lambda head: ({PROJECT_FILE: text}, message),
                                    create_from=self.repo.root())
        self.commits += 1
        self.projects.append(project)
        return project

    def _write_identity(self, grown: scopes.Project, why: str) -> None:
        before = self._current(grown.branch)
        added = [*(r for r in grown.remotes if r not in before.remotes),
                 *(p for p in grown.paths if p not in before.paths)]
        self._write(grown, f"list {', '.join(added)}", why)

    def _write(self, project: scopes.Project, what: str, why: str) -> None:
        write_project(self.repo, project, what, why)
        self.commits += 1
        self.projects = [project if p.branch == project.branch else p for p in self.projects]

    def _describe(self, branch: str, raw: scopes.Identity, seen: Seen) -> None:
        """Fill PROJECT.md's body with what the project is, when it is empty or memgit's own (core.about)."""
        found = self._checkout(raw.path)
        if found is None and seen.files:
            found = about.describe(seen.files, origin=about.SESSION)
        if found is None:
            return
        project = self._current(branch)
        body = about.refreshed(project.body, found)
        if body is None:
            return
        source = "the checkout's" if found.origin == about.CHECKOUT else f"session {seen.session[:8]}'s read of"
        try:
            self._write(replace(project, body=body), f"describe from {found.file}",
                        f"What the project is, from {source} {found.file}. memgit refreshes this text while it is its "
                        "own; edit it and memgit keeps your words.")
        except (ConflictError, MemgitError) as e:  # a description is never worth a session: next sync tries again
            log.warning("PROJECT.md on %s: description not written: %s", branch, e)

    def _checkout(self, path: str) -> about.Description | None:
        """What the checkout's own files at `path` say the project is (None: no checkout, or nothing)."""
        if path not in self._checkouts:
            files = workspace.project_files(path) if os.path.isabs(path) else {}
            self._checkouts[path] = about.describe({k: self.redact(v) for k, v in files.items()},
                                                   origin=about.CHECKOUT) if files else None
        return self._checkouts[path]


def write_project(repo, project: scopes.Project, what: str, why: str) -> None:
    """Commit `project` as its branch's PROJECT.md (on the branch's head: a lost race is retried)."""
    message = format_message(KIND, scopes.branch_slug(project.branch), what, body=why)
    text = scopes.render_project_md(project).encode()
    repo.commit_with_retry(project.branch, lambda head: ({PROJECT_FILE: text}, message))


def join_same_repository(repo) -> list[tuple[str, str, str]]:
    """Join the projects that list one remote into one branch each (core.placing.same_repository);
    return (branch kept, branch joined and deleted, the shared remote) for each join made.

    A join that cannot be made (a file changed on both branches, say) is left, logged: the branches
    stay as they were and the next sync tries again.
    """
    from memgit.verbs import projects as projects_verb

    done = []
    _adopt_laid_out(repo, load_projects(repo))
    projects = {p.branch: p for p in load_projects(repo)}
    for keep, others in placing.same_repository(list(projects.values())):
        for other in others:
            shared = sorted(scopes.known_remotes(projects[keep]) & scopes.known_remotes(projects[other]))
            try:
                projects_verb.join(repo, keep, other)
            except (ConflictError, MemgitError) as e:
                log.warning("%s and %s are one repository but could not be joined: %s", keep, other, e)
                continue
            done.append((keep, other, shared[0] if shared else ""))
            projects = {p.branch: p for p in load_projects(repo)}
    return done


def _adopt_laid_out(repo, projects: list[scopes.Project]) -> None:
    """A project known by its path alone whose path spells another project's repository (placing.laid_out)
    lists that remote, so the join below makes them one, whichever of their sessions was synced first."""
    for project in (p for p in projects if not p.remotes):
        others = [p for p in projects if p.branch != project.branch]
        found = {r for path in project.paths if (r := placing.laid_out(path, others))
                 and any(r in scopes.known_remotes(p) for p in others)}
        if len(found) != 1:
            continue
        remote = found.pop()
        try:
            write_project(repo, replace(project, remotes=(remote,)), f"list {remote}",
                          _LAID_OUT.format(path=", ".join(project.paths), remote=remote))
        except (ConflictError, MemgitError) as e:  # the next sync tries again; the sessions are filed already
            log.warning("PROJECT.md on %s: %s not listed: %s", project.branch, remote, e)
