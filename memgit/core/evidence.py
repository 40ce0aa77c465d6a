"""Which repository a transcript shows its project to be, when its cwd is no live checkout.

A checkout on disk says its own remote (memgit.sources.workspace). When the directory is gone (another
machine, a deleted clone), the session's tool output often still names it: `git remote -v`, the
`To <url>` of a push, the `Merge branch 'x' of <url>` subjects of pulls in `git log`, the URLs `gh`
prints, the `module` line of go.mod, `go test`'s package lines, links and import paths in the files it
read. A careful reader trusts such a name only when it is clearly the project's own:

- its repository name equals the project directory's name (after memgit's worktree rules), so a
  dependency (`github.com/ClusterCockpit/cc-lib` in `cc-backend`) is never a candidate;
- evidence comes in tiers; the strongest tier that holds a candidate decides, and there its top
  candidate must dominate (three times the runner-up's weight), else nothing is accepted;
- `git remote` output run in the project is the checkout's own word: when it names an origin, that
  origin is the answer or (another name, or two origins) nothing is;
- commands run in another directory (`cd elsewhere && git push`, `git -C x ...`) say nothing about it.

Pure: reads a Transcript's tool calls, returns a normalised remote (memgit.core.scopes.normalise_remote).
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from memgit.core.model import TRIMMED_PATTERN, ToolCall, Transcript
from memgit.core.scopes import FORGES, last_part, normalise_remote

ORIGIN = "origin"  # `git remote -v` / `get-url` / `config remote.origin.url` in the project: decides alone
GIT = "git"  # push `To`, fetch `From`, `Merge branch 'x' of <url>`, URLs printed by `gh`
MANIFEST = "manifest"  # go.mod `module`, a manifest's repository/homepage/source URL
PACKAGE = "package"  # `go test`/`go vet` package lines: the packages of the module built here
LINK = "link"  # a link to the repository's pages (blob/, tree/, issues/, releases...) in tool output
MENTION = "mention"  # any other mention in tool output (import paths, URLs)

WEIGHTS = {GIT: 8, MANIFEST: 8, PACKAGE: 4, LINK: 2, MENTION: 1}
STRONG = (GIT, MANIFEST, PACKAGE)
WEAK = (LINK, MENTION)
DOMINANCE = 3  # the accepted candidate outweighs every competitor of its tier this many times
MIN_WEAK = 2  # weak evidence alone: at least one link or two mentions

_FORGE_URL = re.compile(  # scheme and user (https://, git@) are not needed to name the repository
    r"(?<![\w.-])(?P<host>github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)"
    r"[:/](?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)(?P<rest>/[^\s\"'<>)\]]*)?")
_PAGES = re.compile(r"/(?:blob|tree|issues|pulls?|releases|actions|wiki|compare|commits?|discussions|tags)(?:/|$)")
_REMOTE_LINE = re.compile(r"^\s*(?P<name>[\w.-]+)\s+(?P<url>\S+)\s+\((?:fetch|push)\)\s*$")
_FETCH_URL = re.compile(r"^\s*(?:Fetch|Push)\s+URL:\s*(?P<url>\S+)\s*$")
_TO_FROM = re.compile(r"^\s*(?:To|From)\s+(?P<url>\S+)\s*$")
_MERGED_FROM = re.compile(r"Merge branch '[^']*' of (?P<url>\S+?)(?: into |\s*$)", re.MULTILINE)
_MODULE = re.compile(r"^\s*(?:\d+(?:→|\t))?\s*module\s+(?P<path>\S+)\s*$", re.MULTILINE)
_MANIFEST_KEY = re.compile(r"(?i)[\"']?\b(?:repository|homepage|source|url)\b[\"']?\s*[:=]")
_PACKAGE_LINE = re.compile(r"^(?:ok|FAIL|\?)\s+(?P<path>\S+)", re.MULTILINE)
_CD = re.compile(r"(?:^|[;&|(]\s*)(?:cd|pushd)\s+(?P<dir>\"[^\"]*\"|'[^']*'|[^\s;&|)]+)")
_GIT_ELSEWHERE = re.compile(r"\bgit\s+(?:-C|--git-dir|--work-tree)\b")
_GIT_REMOTE = re.compile(r"\bgit\s+(?:remote\b|config\b[^\n;&|]*\bremote\.origin\.url)")
_GIT_NET = re.compile(r"\bgit\s+(?:push|fetch|pull)\b")
_GIT_LOG = re.compile(r"\bgit\s+(?:log|show|reflog)\b")
_GH = re.compile(r"(?:^|[;&|(]\s*)gh\s+\w")
_GO_PACKAGES = re.compile(r"\bgo\s+(?:test|vet|build|list)\b")
MANIFESTS = frozenset({"go.mod", "package.json", "Cargo.toml", "pyproject.toml", "setup.cfg", "setup.py",
                       "composer.json", "pom.xml", "build.gradle", "build.gradle.kts", "mix.exs", "gemspec"})


@dataclass(frozen=True, slots=True)
class Finding:
    """The repository a transcript names as its project's own, and why (for the commit that records it)."""

    remote: str  # normalised: github.com/org/repo
    why: str  # "go.mod or manifest (1), `go test` package lines (12)"


def repository(transcript: Transcript, name: str, roots: Iterable[str] = ()) -> Finding | None:
    """Return the repository `transcript` shows the project named `name` to be, or None when unsure.

    Args:
        name: the project directory's name (memgit.core.scopes.Identity.name).
        roots: the project's directory as the transcript spells it (its cwd, the root after the worktree
            rules): a command that changes to another directory is not about the project.
    """
    return decide(candidates(transcript, roots or ([transcript.cwd] if transcript.cwd else []), name=name), name)


def decide(found: Counter[tuple[str, str]], name: str) -> Finding | None:
    """Pick the project's own repository from counted (tier, remote) evidence, or None (see the module doc)."""
    wanted = name.casefold()
    origins = {remote for tier, remote in found if tier == ORIGIN}
    if origins:
        (only,) = origins if len(origins) == 1 else (None,)
        if only is None or last_part(only).casefold() != wanted:
            return None  # the checkout's own word names another repository, or two: nothing weaker overrules it
        return Finding(only, _why(found, only))
    for tiers, floor in ((STRONG, 1), (WEAK, MIN_WEAK)):
        scores: Counter[str] = Counter()
        for (tier, remote), n in found.items():
            if tier in tiers and last_part(remote).casefold() == wanted:
                scores[remote] += WEIGHTS[tier] * n
        if not scores:
            continue
        (top, best), *rest = scores.most_common()
        if best < floor or (rest and best < DOMINANCE * rest[0][1]):
            return None  # competing repositories of one name: not clearly the project's own
        return Finding(top, _why(found, top))
    return None


_LABELS = {ORIGIN: "`git remote` output", GIT: "git push/fetch/log or gh output", MANIFEST: "go.mod or manifest",
           PACKAGE: "`go test` package lines", LINK: "links to its pages", MENTION: "mentions in tool output"}


def _why(found: Counter[tuple[str, str]], remote: str) -> str:
    parts = [f"{_LABELS[tier]} ({n})" for (tier, r), n in sorted(found.items(), key=lambda i: _ORDER[i[0][0]])
             if r == remote]
    return ", ".join(parts)


_ORDER = {tier: i for i, tier in enumerate((ORIGIN, GIT, MANIFEST, PACKAGE, LINK, MENTION))}


def candidates(transcript: Transcript, roots: Iterable[str], *, name: str | None = None) -> Counter[tuple[str, str]]:
    """Count every (tier, normalised remote) the transcript's tool calls name; with `name`, links and mentions
    only of repositories of that name (the others can never be chosen: counting them costs time only)."""
    here = {os.path.normpath(r) for r in roots if r}
    wanted = name.casefold() if name else None
    found: Counter[tuple[str, str]] = Counter()
    for turn in transcript.turns:
        for call in turn.tool_calls:
            if call.output and not call.is_error:
                _from_call(call, here, found, wanted)
    return found


def _from_call(call: ToolCall, here: set[str], found: Counter[tuple[str, str]], wanted: str | None) -> None:
    output = call.output
    strong: Counter[tuple[str, str]] = Counter()  # what this call says in a stronger form than a mention
    if call.kind == "shell" and (command := call.command) and not _elsewhere(command, here):
        if _GIT_REMOTE.search(command):
            _origin(output, strong)
        if _GIT_NET.search(command):
            for line in output.splitlines():
                if m := _TO_FROM.match(line):
                    _add(strong, GIT, m["url"])
        if _GIT_LOG.search(command):
            for m in _MERGED_FROM.finditer(output):
                _add(strong, GIT, m["url"])
        if _GH.search(command):
            for m in _FORGE_URL.finditer(output):
                _add(strong, GIT, _forge(m))
        if _GO_PACKAGES.search(command):
            for m in _PACKAGE_LINE.finditer(output):
                if u := _FORGE_URL.match(m["path"]):
                    _add(strong, PACKAGE, _forge(u))
        if "go.mod" in command:
            _module_lines(output, strong)
    elif call.kind == "read" and call.file_path and os.path.dirname(os.path.normpath(call.file_path)) in here:
        base = os.path.basename(call.file_path)
        if base == "go.mod":
            _module_lines(output, strong)
        elif base in MANIFESTS:
            for line in output.splitlines():
                if _MANIFEST_KEY.search(line):
                    for m in _FORGE_URL.finditer(line):
                        _add(strong, MANIFEST, _forge(m))
    found.update(strong)
    if not any(host in output for host in FORGES):
        return
    said = {remote for _, remote in strong}
    for m in _FORGE_URL.finditer(output):
        if wanted is not None and m["repo"].casefold().removesuffix(".git").rstrip(".,;:") != wanted:
            continue
        remote = _normalised(_forge(m))
        if remote and remote not in said:
            found[(LINK if m["rest"] and _PAGES.match(m["rest"]) else MENTION, remote)] += 1


def _origin(output: str, found: Counter[tuple[str, str]]) -> None:
    """The origin URL in `git remote -v` / `remote show` / `get-url origin` / `config` output."""
    lines = [line for line in output.splitlines() if line.strip()]
    for line in lines:
        if (m := _REMOTE_LINE.match(line)) and m["name"] == "origin":
            _add(found, ORIGIN, m["url"])
        elif m := _FETCH_URL.match(line):
            _add(found, ORIGIN, m["url"])
    if len(lines) == 1 and " " not in lines[0].strip() and ("/" in lines[0] or ":" in lines[0]):
        _add(found, ORIGIN, lines[0])  # `git remote get-url origin`, `git config --get remote.origin.url`


def _module_lines(output: str, found: Counter[tuple[str, str]]) -> None:
    for m in _MODULE.finditer(output):
        if u := _FORGE_URL.match(m["path"]):
            _add(found, MANIFEST, _forge(u))


def _forge(m: re.Match) -> str:
    repo = m["repo"]
    return f"{m['host']}/{m['owner']}/{repo}"


def _add(found: Counter[tuple[str, str]], tier: str, url: str) -> None:
    if remote := _normalised(url):
        found[(tier, remote)] += 1


def _normalised(url: str) -> str | None:
    """The normalised remote a URL names, None when it names no repository (a host alone, nothing)."""
    try:
        remote = normalise_remote(url.strip().strip("'\"").rstrip(".,;:"))
    except ValueError:
        return None
    return remote if "/" in remote.strip("/") else None


def _elsewhere(command: str, here: set[str]) -> bool:
    """True when a command works in another directory than the project's (`cd x &&`, `git -C x`)."""
    if _GIT_ELSEWHERE.search(command):
        return True
    for m in _CD.finditer(command):
        target = m["dir"].strip("'\"")
        if target in (".", "") or (os.path.isabs(target) and os.path.normpath(target) in here):
            continue
        return True
    return False


# --- the project's own files, as the session read them --------------------------------------

PROJECT_FILES = ("README.md", "CLAUDE.md", "AGENTS.md", "GEMINI.md")
INSTRUCTIONS = "instructions"
PROJECT_DOC = "--- project-doc ---"  # Codex: between the person's global AGENTS.md and the project's own
_SHOW_FILE = re.compile(r"^\s*(?:cat|head(?:\s+-n\s*\d+|\s+-\d+)?|sed\s+-n\s+['\"]?1,\d+p['\"]?)\s+(?P<file>\S+)\s*$")


def project_files(transcript: Transcript, roots: Iterable[str]) -> dict[str, str]:
    """What the session saw of the project's README.md, CLAUDE.md, AGENTS.md and GEMINI.md from their first
    line (the last such read of each: the file as the session left it), and the instruction file its
    harness recorded (a turn of kind "instructions", under "instructions")."""
    here = {os.path.normpath(r) for r in roots if r}
    found: dict[str, str] = {}
    for turn in transcript.turns:
        if turn.kind == INSTRUCTIONS and turn.text.strip():  # Codex puts the person's global file first
            found.setdefault(INSTRUCTIONS, turn.text.rpartition(PROJECT_DOC)[2].strip())
        for call in turn.tool_calls:
            if not call.output or call.is_error:
                continue
            path = _shown_file(call)
            if path is None:
                continue
            if not os.path.isabs(path) and transcript.cwd:
                path = os.path.join(transcript.cwd, path)
            name = os.path.basename(path)
            if name in PROJECT_FILES and os.path.dirname(os.path.normpath(path)) in here:
                found[name] = _beginning(call.output)
    return found


_TRIMMED = re.compile(rf"\n{TRIMMED_PATTERN}\n")  # memgit.sources.trim: a long output's head and tail
_BLANK = re.compile(r"^\s*(?:\d+(?:→|\t))?\s*$")  # an empty line, with or without a line number


def _beginning(output: str) -> str:
    """The file's beginning a (trimmed) output shows: the head, its last paragraph cut after its last whole
    sentence (the trim may have cut it mid-sentence), or left out when it has none; the tail is the file's
    end, not its beginning."""
    parts = _TRIMMED.split(output, maxsplit=1)
    if len(parts) == 1:
        return output
    lines = parts[0].split("\n")
    start = next((i for i in range(len(lines) - 1, 0, -1) if _BLANK.match(lines[i])), 0)
    kept, last = "\n".join(lines[:start]), "\n".join(lines[start:])
    ends = [m.end() for m in _SENTENCE_END.finditer(last)]
    return f"{kept}\n{last[:ends[-1]]}" if ends else kept


_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def _shown_file(call: ToolCall) -> str | None:
    """The file whose beginning a read (or a `cat`/`head` in the project) shows, None for anything else."""
    if call.kind == "read":
        start = call.input.get("offset") or call.input.get("line") or 0
        return call.file_path if isinstance(start, int) and start <= 1 else None
    if call.kind == "shell" and (command := call.command) and (m := _SHOW_FILE.match(command)):
        return m["file"].strip("'\"")
    return None
