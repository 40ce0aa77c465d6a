"""Project identity from a session's cwd, the `projects/<slug>` branch it maps to, and PROJECT.md.

Everything here is pure: `memgit.sources.workspace.identify` reads a cwd's `.git` files and calls
these rules. python-frontmatter is imported lazily (the session-start hook reads PROJECT.md).

Remote normalisation (`normalise_remote`), decided once for every caller:

- the scheme, credentials, port, query, a trailing `.git` and trailing slashes are dropped, so
  scp-like, ssh://, https:// and git:// spellings of one repository agree: `github.com/org/repo`;
- the host is lowercased, and `ssh.github.com` (ssh over 443) and its gitlab/bitbucket kin are
  folded into their forge;
- the path is lowercased on forges that ignore its case (github.com, gitlab.com, bitbucket.org,
  codeberg.org) and kept verbatim elsewhere, where a plain ssh host may be case-sensitive;
- a local path (`/srv/git/repo.git`, `file:///srv/git/repo.git`) stays a path, without `.git`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from memgit.core.vocab import DEFAULT_SLUG, MAX_SLUG, PREFIX, slugify

BRANCH_PREFIX = PREFIX
WORKTREES_SUFFIX = "-worktrees"

# Forges whose owner/repository path is case-insensitive: one project whatever the clone's case.
CASE_INSENSITIVE_HOSTS = frozenset({"github.com", "gitlab.com", "bitbucket.org", "codeberg.org"})
# Alternate ssh endpoints (port 443) of the same forges.
HOST_ALIASES = {
    "ssh.github.com": "github.com",
    "altssh.gitlab.com": "gitlab.com",
    "altssh.bitbucket.org": "bitbucket.org",
}


@dataclass(frozen=True, slots=True)
class Identity:
    """What identifies the project a cwd belongs to."""

    key: str  # normalised remote ("github.com/org/repo") or absolute path
    remote: str | None  # normalised origin URL when known
    path: str  # main worktree path (or the cwd-derived path)
    name: str  # human name: last part of key
    # True when found in a git repository: such a repo is its own project, so it is never
    # matched into an enclosing project's path by prefix (see `resolve`).
    in_repo: bool = False


@dataclass(frozen=True, slots=True)
class Project:
    """What a project branch's PROJECT.md says."""

    branch: str  # "projects/<slug>"
    name: str
    remotes: tuple[str, ...]
    paths: tuple[str, ...]
    body: str = ""
    # Front matter keys a person added: kept in order across rewrites, never hashed.
    extra: dict[str, object] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        # Accept lists from callers; surrounding whitespace of the body is not significant
        # (front matter parsing strips it), which keeps parse(render(p)) == p.
        object.__setattr__(self, "remotes", tuple(self.remotes))
        object.__setattr__(self, "paths", tuple(self.paths))
        object.__setattr__(self, "body", self.body.strip())


# --- remotes -------------------------------------------------------------------------------

_URL = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<rest>.*)$", re.DOTALL)
_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>.*)$", re.DOTALL)


FORGES = ("github.com", "gitlab.com", "bitbucket.org", "codeberg.org")  # hosts whose paths are owner/repo


def normalise_remote(url: str) -> str:
    """Return the canonical form of a git remote URL, e.g. `github.com/org/repo`.

    Raises:
        ValueError: the URL is empty.
    """
    text = url.strip()
    if not text:
        raise ValueError("empty remote URL")
    if m := _URL.match(text):
        scheme, rest = m["scheme"].lower(), m["rest"]
        if scheme == "file":
            return _local_remote(rest if rest.startswith("/") else "/" + rest.partition("/")[2])
        authority, _, path = rest.partition("/")
        host = _strip_port(authority.rpartition("@")[2])
        path = re.split(r"[?#]", path, maxsplit=1)[0]
    elif (m := _SCP.match(text)) and len(m["host"]) > 1:  # one letter is a drive: C:/x
        host, path = m["host"], m["path"]
    elif "." in (first := text.partition("/")[0]).strip(".") and "/" in text:
        host, path = first, text.partition("/")[2]  # already normalised: `github.com/org/repo`
    else:
        return _local_remote(text)
    host = host.lower().rstrip(".")
    host = HOST_ALIASES.get(host, host)
    path = "/".join(_path_parts(path))
    if host in CASE_INSENSITIVE_HOSTS:
        path = path.lower()
    return f"{host}/{path}" if path else host


def _strip_port(host: str) -> str:
    if host.startswith("["):  # [::1]:22
        return host[1:].partition("]")[0]
    return host.partition(":")[0]


def _path_parts(path: str) -> list[str]:
    parts = [p for p in path.split("/") if p and p != "."]
    if parts and parts[-1].endswith(".git"):
        parts[-1] = parts[-1][: -len(".git")]
        if not parts[-1]:
            parts.pop()
    return parts


def _local_remote(path: str) -> str:
    lead = "/" if path.startswith("/") else ""
    return lead + "/".join(_path_parts(os.path.normpath(path).replace(os.sep, "/")))


# --- pure identity, matching, naming -------------------------------------------------------


def identity_from_path(path: str) -> Identity:
    """Return the identity of a path outside any repository, after worktree layout heuristics.

    `<repo>/.worktrees/<name>/...`, `<repo>/.claude/worktrees/<name>/...` and
    `<repo>-worktrees/<name>/...` all map to `<repo>`; the outermost layout wins.
    """
    norm = os.path.normpath(path)
    parts = norm.split(os.sep)
    for i, part in enumerate(parts[:-1]):
        if part == ".worktrees" and i > 0:
            norm = os.sep.join(parts[:i]) or os.sep
            break
        if part == ".claude" and i > 0 and parts[i + 1] == "worktrees" and i + 2 < len(parts):
            norm = os.sep.join(parts[:i]) or os.sep
            break
        if part.endswith(WORKTREES_SUFFIX) and len(part) > len(WORKTREES_SUFFIX):
            norm = os.sep.join([*parts[:i], part[: -len(WORKTREES_SUFFIX)]])
            break
    return Identity(key=norm, remote=None, path=norm, name=last_part(norm))


def written(identity: Identity, clean: Callable[[str], str]) -> Identity:
    """The identity as memgit writes it (PROJECT.md, the branch name, commit messages): each part
    passed through `clean` (secrets redacted, control characters escaped), paths under a home folder
    written from `~` (see portable_path). Matching compares written forms, so a session from the
    same odd directory finds its project again."""
    remote = clean(portable_path(identity.remote)) if identity.remote else None
    return replace(identity, key=clean(portable_path(identity.key)), remote=remote,
                   path=clean(portable_path(identity.path)), name=clean(identity.name))


_HOME = re.compile(r"^(?:/Users|/home)/[^/]+(?=/|$)|^[A-Za-z]:[\\/]Users[\\/][^\\/]+(?=[\\/]|$)")


def portable_path(path: str) -> str:
    """A path under a person's home folder written from `~` (`/Users/ana/dev/x` -> `~/dev/x`).

    The account name is personal and says nothing about the project; without it the same project
    reads the same on two machines whose accounts are named differently.
    """
    return _HOME.sub("~", path, count=1)


def last_part(key: str) -> str:
    name = key.rstrip("/" + os.sep).replace(os.sep, "/").rpartition("/")[2]
    if name.endswith(".git") and len(name) > len(".git"):
        name = name[: -len(".git")]
    return name or key


def resolve(identity: Identity, projects: Sequence[Project], cwd: str | None = None) -> Project | None:
    """Return the project an identity belongs to, or None when it is new.

    A matching remote first, then a path equal to `identity.path`, then (for an identity not in a
    git repository) the longest known path that holds `cwd` or `identity.path`. Projects are tried
    in branch order, so a remote listed on two branches resolves the same way every time.
    """
    ordered = sorted(projects, key=lambda p: p.branch)
    if identity.remote:
        remote = portable_path(identity.remote)
        for project in ordered:
            if remote in known_remotes(project):
                return project
    path = portable_path(os.path.normpath(identity.path))
    for project in ordered:
        if path in known_paths(project):
            return project
    if identity.in_repo:
        return None
    targets = [path] if cwd is None else [path, portable_path(os.path.normpath(cwd))]
    best: Project | None = None
    best_len = -1
    for project in ordered:
        for known in known_paths(project):
            if len(known) > best_len and any(_is_within(t, known) for t in targets):
                best, best_len = project, len(known)
    return best


def known_remotes(project: Project) -> set[str]:
    """Normalise the remotes a person may have pasted verbatim; skip blank ones."""
    return {portable_path(normalise_remote(r)) for r in project.remotes if r.strip()}


def known_paths(project: Project) -> set[str]:
    """Known paths as matching compares them (from `~`: PROJECT.md files written before may hold full ones)."""
    return {portable_path(os.path.normpath(p)) for p in project.paths if p.strip()}


def _is_within(path: str, root: str) -> bool:
    """True when `root` is `path` or one of its ancestors (whole components only)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def with_identity(project: Project, identity: Identity) -> Project:
    """Return `project` also listing the identity's remote and path (itself when it already does)."""
    remotes, paths = project.remotes, project.paths
    if identity.remote and identity.remote not in known_remotes(project):
        remotes = (*remotes, identity.remote)
    if os.path.normpath(identity.path) not in known_paths(project):
        paths = (*paths, identity.path)
    if (remotes, paths) == (project.remotes, project.paths):
        return project
    return replace(project, remotes=remotes, paths=paths)


def project_slug(name: str) -> str:
    """Return a branch-safe slug of a project's name: ASCII lowercase alphanumerics and single dashes, never empty."""
    return slugify(name, max_chars=MAX_SLUG, default=DEFAULT_SLUG)


def branch_slug(branch: str) -> str:
    """Return the slug of a project branch name."""
    return branch.removeprefix(BRANCH_PREFIX)


def new_project(identity: Identity, projects: Sequence[Project]) -> Project:
    """Return a new project for an identity `resolve` did not place, on a free `projects/<slug>`.

    A slug is taken case-insensitively (refs collide on case-insensitive file systems); a taken
    slug gets `-2`, `-3`... and stays within `MAX_SLUG` characters.
    """
    return Project(
        branch=free_branch(project_slug(identity.name), [p.branch for p in projects]),
        name=identity.name,
        remotes=(identity.remote,) if identity.remote else (),
        paths=(identity.path,),
    )


def free_branch(base: str, taken: Sequence[str]) -> str:
    """Return `projects/<base>`, or `-2`, `-3`... when a branch in `taken` has that slug (case-insensitively:
    refs collide on case-insensitive file systems), within `MAX_SLUG` characters."""
    slugs = {branch_slug(b).lower() for b in taken}
    slug, n = base, 2
    while slug.lower() in slugs:
        suffix = f"-{n}"
        slug = (base[: MAX_SLUG - len(suffix)].rstrip("-") or DEFAULT_SLUG) + suffix
        n += 1
    return BRANCH_PREFIX + slug


# --- PROJECT.md ----------------------------------------------------------------------------

_KNOWN_KEYS = ("name", "remotes", "paths")


def render_project_md(project: Project) -> str:
    """Return PROJECT.md: front matter {name, remotes, paths, extra keys...} and the body."""
    import frontmatter

    post = frontmatter.Post(project.body)
    post.metadata = {
        "name": project.name,
        "remotes": list(project.remotes),
        "paths": list(project.paths),
        **{k: v for k, v in project.extra.items() if k not in _KNOWN_KEYS},
    }
    return frontmatter.dumps(post, sort_keys=False).rstrip("\n") + "\n"


def parse_project_md(text: str, branch: str) -> Project:
    """Return the project a PROJECT.md describes; missing keys are empty, the name defaults to the slug.

    Raises:
        ValueError: the front matter is not valid YAML, or `remotes`/`paths` is a mapping.
    """
    import frontmatter
    import yaml

    try:
        metadata, body = frontmatter.parse(text)
    except yaml.YAMLError as e:
        raise ValueError(f"PROJECT.md on {branch}: front matter is not valid YAML: {e}") from e
    name = metadata.get("name")
    return Project(
        branch=branch,
        name=str(name) if name not in (None, "") else branch_slug(branch),
        remotes=_strings(metadata.get("remotes"), "remotes", branch),
        paths=_strings(metadata.get("paths"), "paths", branch),
        body=body,
        extra={k: v for k, v in metadata.items() if k not in _KNOWN_KEYS},
    )


def _strings(value: object, key: str, branch: str) -> tuple[str, ...]:
    """Read a list of strings a person may have written as one string or left empty."""
    if value is None:
        return ()
    if isinstance(value, dict):
        raise ValueError(f"PROJECT.md on {branch}: `{key}` must be a list, not a mapping")
    items = value if isinstance(value, list | tuple) else [value]
    return tuple(str(v).strip() for v in items if v is not None and str(v).strip())
