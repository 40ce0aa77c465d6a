"""A person's own writes to memory: `remember` (a pinned note) and `edit` (a file of a scope), each one
gated commit on the scope's branch; and the scope a command means (its flags, else the cwd's project)."""

from __future__ import annotations

import os
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from collections.abc import Iterator

from memgit.config import Config
from memgit.core import hand, redact, scopes, vocab
from memgit.core.ledger import format_message, one_line
from memgit.core.names import safe_label
from memgit.errors import ConflictError, NotARepo, SecretFound, UsageError

NOTES_DIR = "notes"
MEMORY_FILE = "MEMORY.md"
SUMMARY_FILE = "memory_summary.md"  # what `memgit edit` opens: what every session of the scope is told


@dataclass(slots=True)
class Written:
    """One commit a person's command made."""

    sha: str
    branch: str
    scope: str
    path: str
    subject: str
    already: bool = False  # nothing committed: the scope already holds this (remember's `path`)
    kept: str = ""  # how a hand edit of a file memgit regenerates is kept (memgit.core.hand)


@contextmanager
def writable(cfg: Config, *, wait: bool = True) -> Iterator:
    """The memory repository opened for a write, under the sync lock; the context cache refreshed after.

    Raises:
        NotARepo: there is no memory repository yet.
        LockHeld: a sync is running and `wait` is false.
    """
    from memgit.store.bootstrap import has_main
    from memgit.store.lock import sync_lock
    from memgit.store.repo import MemoryRepo
    from memgit.verbs import briefing, search

    if not has_main(cfg.repo_path):
        raise NotARepo(f"no memory repository at {cfg.repo_path}; run `memgit init` or `memgit sync` to create it")
    with sync_lock(cfg.state_dir, wait=wait), \
            MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        before = repo.branches()
        try:
            yield repo
        finally:  # whatever moved before a failure is told to the next session too
            moved = {b for b, head in repo.branches().items() if before.get(b) != head}
            if moved:
                briefing.refresh(repo, cfg, moved)
                search.refresh_index(repo, cfg)


def projects(repo) -> list[scopes.Project]:
    """The projects whose PROJECT.md parses (a broken one is sync's to report)."""
    out = []
    for branch in repo.branches():
        raw = repo.read(branch, "PROJECT.md") if branch.startswith(vocab.PREFIX) else None
        if raw is None:
            continue
        try:
            out.append(scopes.parse_project_md(raw.decode("utf-8", "replace"), branch))
        except ValueError:
            continue
    return out


def scope_branch(repo, cfg: Config, *, project: str | None = None, global_: bool = False,
                 cwd: str | None = None) -> str:
    """The branch a command writes to: `--global` main, `--project P` its branch, else the cwd's project or main.

    The cwd is placed as sync places a session's (its repository's identity, then its path).

    Raises:
        UsageError: both flags were given.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
    """
    from memgit.sources import workspace
    from memgit.verbs.selection import find_project

    if project and global_:
        raise UsageError("give --project or --global, not both")
    if global_:
        return vocab.MAIN
    if project:
        return find_project(repo, project)
    cwd = cwd or os.getcwd()

    def clean(text: str) -> str:
        return safe_label(text, cfg.extra_redact_patterns)

    identity = scopes.written(workspace.identify(cwd), clean)
    found = scopes.resolve(identity, projects(repo), cwd=clean(scopes.portable_path(cwd)))
    return found.branch if found else vocab.MAIN


def scope_label(branch: str) -> str:
    return scopes.branch_slug(branch) if branch.startswith(vocab.PREFIX) else vocab.MAIN


def remember(cfg: Config, text: str, *, type_: str | None = None, project: str | None = None,
             global_: bool = False, cwd: str | None = None, now: float | None = None, private: bool = False) -> Written:
    """Pin `text` as a note of the scope: one `remember(<scope>)` commit, the context cache refreshed.
    A `private` note says so in its front matter (`private: true`): it never goes to a team.

    A note of the scope holding the same text already is the answer (`already`; nothing committed).

    The text is redacted before anything is built from it (the note, its file name, the message),
    and the commit passes the store's gate like every write.

    Raises:
        UsageError: the text is empty or the type unknown.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
        SecretFound: the gate still found a secret (a pattern redaction did not cover).
        NotARepo, LockHeld, ConflictError: as memgit.store.repo.MemoryRepo.commit.
    """
    if type_ is not None and type_ not in vocab.TYPES:
        raise UsageError(f"unknown type {type_!r}; one of {', '.join(vocab.LEARNING_TYPES)}")
    clean = redact.redact(text.strip(), cfg.extra_redact_patterns)
    if not clean:
        raise UsageError("nothing to remember: give the text, e.g. memgit remember \"Deploys happen on Fridays\"")
    day = datetime.fromtimestamp(time.time() if now is None else now, timezone.utc).strftime("%Y-%m-%d")
    with writable(cfg) as repo:
        branch = scope_branch(repo, cfg, project=project, global_=global_, cwd=cwd)
        if found := _remembered(repo, branch, clean):  # the same words twice are one memory, told once
            return Written("", branch, scope_label(branch), found, f"already remembered in {branch}:{found}", True)
        path = _free_path(repo, branch, f"{NOTES_DIR}/{day}-{vocab.slugify(clean, 50, max_words=6)}")
        meta = f"---\nadded: '{day}'\n" + (f"type: {type_}\n" if type_ else "") + ("private: true\n" if private else "") + "---\n"
        scope = scope_label(branch)
        message = format_message("remember", scope, one_line(clean, 100), trailers=[
            ("Memgit-Remember", path), ("Memgit-Type", type_)])
        sha = repo.commit(branch, {path: (meta + clean + "\n").encode()}, message)
        return Written(sha, branch, scope, path, message.split("\n", 1)[0])


def _remembered(repo, branch: str, text: str) -> str | None:
    """The pinned note of the scope that holds `text` alone (whitespace aside), or None."""
    from memgit.core.notes import split_front_matter

    words = text.split()
    for path in repo.list(branch, NOTES_DIR):
        raw = repo.read(branch, path)
        try:
            body = split_front_matter((raw or b"").decode("utf-8", "replace"))[1]
        except ValueError:  # front matter a person broke: compare the whole file
            body = (raw or b"").decode("utf-8", "replace")
        if body.split() == words:
            return path
    return None


def _free_path(repo, branch: str, stem: str) -> str:
    """`stem.md`, or `stem-2.md`, ... when a note of that name exists (the same words twice in a day)."""
    path, n = f"{stem}.md", 1
    while repo.exists(branch, path):
        n += 1
        path = f"{stem}-{n}.md"
    return path


def checked_path(path: str | None) -> str:
    """A file path inside the scope's tree (memory_summary.md by default).

    Raises:
        UsageError: the path is absolute, climbs out, or names git's own directory.
    """
    path = (path or SUMMARY_FILE).replace(os.sep, "/").strip()
    parts = [p for p in path.split("/") if p not in ("", ".")]
    if not parts or path.startswith("/") or ".." in parts or ".git" in parts:
        raise UsageError(f"{path!r} is not a file of a scope; give a path like MEMORY.md or notes/<file>.md")
    return "/".join(parts)


def edit_target(cfg: Config, path: str | None, *, project: str | None = None, global_: bool = False,
                cwd: str | None = None) -> tuple[str, str, str | None, str]:
    """(branch, path, head, current text) of the file `memgit edit` opens ("" for a new file).

    Raises:
        UsageError: a bad path, or both flags.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
        NotARepo: there is no memory repository yet.
    """
    from memgit.store.bootstrap import has_main
    from memgit.store.repo import MemoryRepo

    path = checked_path(path)
    if not has_main(cfg.repo_path):
        raise NotARepo(f"no memory repository at {cfg.repo_path}; run `memgit init` or `memgit sync` to create it")
    with MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        branch = scope_branch(repo, cfg, project=project, global_=global_, cwd=cwd)
        head = repo.head(branch)
        raw = repo.read(branch, path)
    return branch, path, head, (raw or b"").decode("utf-8", "replace")


def commit_edit(cfg: Config, branch: str, path: str, head: str | None, text: str) -> Written | None:
    """Commit a person's new text of `path` as one `edit(<scope>)` commit; None when nothing changed.

    Raises:
        ConflictError: the branch moved while the file was open (edit again).
        SecretFound: the text holds a secret; nothing was written.
    """
    with writable(cfg) as repo:
        old = repo.read(head, path) if head else None
        if old == text.encode():
            return None
        scope = scope_label(branch)
        changes: dict[str, bytes | None] = {path: text.encode()}
        kept = _kept(repo, head, path, old, text, changes)
        message = format_message("edit", scope, f"{path} by hand", body=kept.describe(path) if kept else "",
                                 trailers=kept.trailers if kept else [("Memgit-Edit", path)])
        try:
            sha = repo.commit(branch, changes, message, expected=head)
        except (SecretFound, ConflictError) as e:  # the person's words are kept to fix and commit again
            draft = _keep_draft(cfg, text)
            raise type(e)(f"{e.message}\nyour text is kept in {draft} (copy it in with `memgit edit`)") from e
        return Written(sha, branch, scope, path, message.split("\n", 1)[0], kept=kept.describe(path) if kept else "")


def _kept(repo, head: str | None, path: str, old: bytes | None, text: str,
          changes: dict[str, bytes | None]) -> hand.Kept | None:
    """Read an edit of a file memgit regenerates as the person's (memgit.core.hand); add what keeps it to `changes`."""
    before = (old or b"").decode("utf-8", "replace")  # a summary not written yet: the next consolidation writes it
    if head is None or not hand.regenerated(path, before):
        return None
    now = time.gmtime()
    kept = hand.keep(path, before, text, stamp=time.strftime("%Y-%m-%d-%H%M%S", now), day=time.strftime("%Y-%m-%d", now),
                     read=lambda p: changes.get(p) if p in changes else repo.read(head, p),
                     pinned_notes=repo.list(head, NOTES_DIR))
    if kept is not None:
        changes.update(kept.changes)
        repo.keep_reverts_clean()
    return kept


def how_kept(path: str) -> str:
    """What becomes of an edit of `path`, told before the editor opens."""
    if hand.regenerated(path, hand.SKILL_MARK):
        return (f"memgit rewrites {path} at every consolidation; your edit is kept as yours: a line you add "
                + ("is pinned as your note and " if path in hand.PINNING else "")
                + "stays where you put it, a line you remove stays out. `git revert` of the edit commit undoes it.")
    return f"{path} is yours: memgit commits it as you leave it."


def _keep_draft(cfg: Config, text: str) -> str:
    """Save refused text beside the repository's state (readable by its owner only); return its path."""
    folder = cfg.state_dir / "drafts"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"edit-{time.strftime('%Y%m%d-%H%M%S')}.md"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)
