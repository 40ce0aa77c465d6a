"""The user's workspace: which project a cwd belongs to, from the git repository's own files (`.git`,
gitfiles, `commondir`, `config`), read without running git.

The session-start hook and sync resolve a cwd to its repository many times; a subprocess per
lookup would cost more than everything else they do.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from memgit.sources import gitstat
from memgit.core.scopes import Identity, identity_from_path, last_part, normalise_remote


@dataclass(frozen=True, slots=True)
class GitLocation:
    """Where the git repository holding a directory keeps its files."""

    worktree: Path  # top of the worktree holding the directory
    git_dir: Path  # that worktree's git dir (`.git`, or `.git/worktrees/<name>` when linked)
    common_dir: Path  # the git dir shared by all worktrees (holds `config`)


# --- config files ----------------------------------------------------------------------------

_SECTION = re.compile(r'\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]')
_KEY = re.compile(r"([A-Za-z][A-Za-z0-9-]*)\s*(=|$|[#;])")
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b"}


def git_config_value(text: str, section: str, subsection: str | None, key: str) -> str | None:
    """Return the first value of `section.subsection.key` in git config text, or None."""
    wanted = (section.lower(), subsection, key.lower())
    for found_section, found_subsection, found_key, value in _config_entries(text):
        if (found_section, found_subsection, found_key) == wanted:
            return value
    return None


def _config_entries(text: str) -> Iterator[tuple[str, str | None, str, str]]:
    """Yield (section, subsection, key, value) from git config text; unparsable lines are skipped."""
    lines = iter(text.splitlines())
    section: str | None = None
    subsection: str | None = None
    for line in lines:
        rest = line.strip()
        if rest.startswith("["):
            m = _SECTION.match(rest)
            if not m:
                section = None
                continue
            section, subsection = m[1].lower(), m[2]
            if subsection is not None:
                subsection = re.sub(r"\\(.)", r"\1", subsection)
            elif "." in section:  # deprecated [remote.origin]
                section, _, subsection = section.partition(".")
            rest = rest[m.end() :].strip()
        if not rest or rest[0] in "#;" or section is None:
            continue
        m = _KEY.match(rest)
        if not m:
            continue
        if m[2] != "=":  # a bare key means true
            yield section, subsection, m[1].lower(), "true"
            continue
        yield section, subsection, m[1].lower(), _config_value(rest[m.end() :], lines)


def _config_value(raw: str, lines: Iterator[str]) -> str:
    """Unquote one value: escapes, quotes, comments, trailing-backslash continuation lines."""
    out: list[str] = []
    keep = 0  # length of `out` without the trailing unquoted whitespace
    quoted = False
    line = raw.lstrip()
    while True:
        i, continued = 0, False
        while i < len(line):
            c = line[i]
            if c == "\\":
                if i + 1 == len(line):
                    continued = True
                    break
                out.append(_ESCAPES.get(line[i + 1], line[i + 1]))
                keep, i = len(out), i + 2
                continue
            if c == '"':
                quoted, keep = not quoted, len(out)
            elif not quoted and c in "#;":
                break
            else:
                out.append(c)
                if quoted or not c.isspace():
                    keep = len(out)
            i += 1
        if not continued:
            break
        line = next(lines, "")
    return "".join(out[:keep])


# --- finding the repository ---------------------------------------------------------------


def find_git(start: Path) -> GitLocation | None:
    """Find the git repository holding `start` by walking up to a `.git` dir or gitfile.

    Returns:
        Where the repository keeps its files, or None when `start` is in no repository or its
        `.git` file points nowhere.
    """
    for directory in (start, *start.parents):
        dotgit = directory / ".git"
        try:
            mode = os.stat(dotgit).st_mode
        except OSError:
            continue
        if stat.S_ISDIR(mode):
            if os.path.isfile(dotgit / "HEAD"):
                return GitLocation(directory, dotgit, dotgit)
            continue  # not a git dir (git walks on too)
        git_dir = _read_gitfile(dotgit)
        if git_dir is None:
            return None
        common = read_text(git_dir / "commondir")
        common_dir = Path(os.path.normpath(git_dir / common.strip())) if common else git_dir
        return GitLocation(directory, git_dir, common_dir)
    return None


def _read_gitfile(dotgit: Path) -> Path | None:
    text = read_text(dotgit)
    if not text or not text.startswith("gitdir:"):
        return None
    git_dir = Path(os.path.normpath(dotgit.parent / text[len("gitdir:") :].strip()))
    return git_dir if git_dir.is_dir() else None


def read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def main_worktree(location: GitLocation, config: str) -> Path:
    common = location.common_dir
    if common.name == ".git":
        return common.parent
    worktree = git_config_value(config, "core", None, "worktree")
    if worktree:  # a submodule's git dir under .git/modules/ names its worktree
        return Path(os.path.normpath(common / worktree))
    if location.git_dir == common:  # a gitfile pointing straight at a repo
        return location.worktree
    if common.name.startswith("."):  # <repo>/.bare with linked worktrees beside it
        return common.parent
    return common  # a worktree of a bare repo: the bare repo is the project


def identify(cwd: str) -> Identity:
    """Return the identity of the project a session started in `cwd` belongs to.

    The origin remote when `cwd` is in a git repository, else its main worktree path; for a
    directory in no repository (or gone), the path after the worktree layout heuristics, which is
    upgraded to the repository's identity when that path is a live repository's root.
    """
    if not os.path.isabs(cwd):  # a sanitised or odd transcript: never resolve against memgit's own cwd
        return identity_from_path(cwd)
    path = os.path.normpath(cwd)
    if os.path.isdir(path) and (location := find_git(Path(path))):
        return _git_identity(location)
    guess = identity_from_path(path)
    if guess.path != path and os.path.isdir(guess.path):  # a gone worktree of a live repo
        location = find_git(Path(guess.path))
        if location and str(location.worktree) == guess.path:
            return _git_identity(location)
    return guess


def _git_identity(location: GitLocation) -> Identity:
    config = read_text(location.common_dir / "config") or ""
    url = git_config_value(config, "remote", "origin", "url")
    remote = normalise_remote(url) if url and url.strip() else None
    path = str(main_worktree(location, config))
    key = remote or path
    return Identity(key=key, remote=remote, path=path, name=last_part(key), in_repo=True)


PROJECT_FILES = ("README.md", "CLAUDE.md", "AGENTS.md", "GEMINI.md")
PROJECT_FILE_HEAD = 32_768  # characters read of each: the description is near the top


def project_files(root: str) -> dict[str, str]:
    """The beginning of the project's own README.md, CLAUDE.md, AGENTS.md and GEMINI.md at `root`
    (those that exist and can be read), for memgit.core.about."""
    found = {}
    for name in PROJECT_FILES:
        try:
            with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
                found[name] = f.read(PROJECT_FILE_HEAD)
        except (OSError, ValueError):  # missing, a directory, unreadable, a NUL in the path: nothing to say
            continue
    return found


def resolve_cwd(cwd: str, projects: list[dict]) -> tuple[str | None, str, str, object]:
    """Resolve `cwd` to a project branch the way sync files its sessions.

    Returns:
        (branch or None, memo table, memo key, memo entry): a directory in a git repository is
        remembered by its worktree root and the git files that decide its identity; any other
        by its path.
    """
    from pathlib import Path

    from memgit.core import scopes

    known = [scopes.Project(branch=p["branch"], name=p["name"], remotes=p["remotes"], paths=p["paths"])
             for p in projects]
    identity = identify(cwd)
    project = scopes.resolve(identity, known, cwd=cwd)
    branch = project.branch if project else None
    location = find_git(Path(os.path.abspath(cwd))) if os.path.isdir(cwd) else None
    if identity.in_repo and location is not None:
        top, config = str(location.worktree), str(location.common_dir / "config")
        return branch, "dirs", top, {"sig": gitstat.git_signature(top, config), "config": config, "branch": branch}
    return branch, "cwds", os.path.abspath(cwd), branch
