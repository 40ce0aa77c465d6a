"""What a new session is told (DESIGN §5): the context cache, how it is rendered and how it is served.

The cache lives in `.git/memgit/context/` and is derived: deleting it changes nothing but speed.

- `index.json`: the branch heads it was built from, every project's identities (PROJECT.md),
  and which transcripts were unread when it was built (for the "waiting to be synced" line).
- `parts/<branch>.json`: one scope's summary (`memory_summary.md`, or a digest of the project's
  newest notes until consolidation writes one) and its pinned notes, keyed by the branch head
  they were read from.
- `dirs.json`: which project a working directory resolved to, checked by two `stat` calls.

`refresh` renders them after a sync; `serve` answers the session-start hook from them, reading
a few ref files to see that they are current, and renders from the object store what is missing
or stale. `serve` runs at every session start, so this module imports only os, json, stat and
time at the top; dulwich, yaml and scopes are imported inside the functions that render.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterable

MAIN = "main"
PREFIX = "projects/"
SUMMARY_FILE = "memory_summary.md"
MARKER = "<memgit-context"  # the Claude Code reader drops any user text holding it (claude_records.py)
MAX_CHARS = 10_000  # Claude Code's cap on additionalContext; longer text is replaced by a file path
BUDGET = 9_800  # what the whole injected text stays under, pending line included
PINNED_MAX = 3_000  # one pinned note, before the budget is shared out
RECENT_NOTES = 24  # newest notes read for the digest of a project without a summary
LEARNINGS_PER_NOTE = 3
CACHE_VERSION = 2  # 2: projects_key renamed projects_digest (a "key" holding a digest reads as a secret)
MEMO_SIZE = 500  # remembered working directories
TYPE_RANK = {"preference": 0, "convention": 1, "gotcha": 2, "command": 3, "decision": 4, "fact": 5}
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
_templates: dict[str, str] = {}


class Served:
    """The context a session started in `cwd` gets, and what it took to find it."""

    __slots__ = ("text", "repo", "cwd", "branch", "project", "pending", "eligible", "cached", "problems")

    def __init__(self, **values):
        for name in self.__slots__:
            setattr(self, name, values.get(name))


# ---- serving: the session-start hot path ------------------------------------------------------


def serve(repo_path: str, cwd: str, *, session_id: str | None = None, transcript_path: str | None = None,
          now: float) -> Served | None:
    """Return what a session started in `cwd` is told; None when there is no memory repository.

    Raises:
        Exception: whatever reading a corrupt repository raises; the hook logs it and says nothing.
    """
    git_dir = os.path.join(repo_path, ".git")
    if not os.path.isdir(git_dir):
        return None
    cdir = os.path.join(git_dir, "memgit", "context")
    heads = read_heads(git_dir)
    store = _Store(repo_path)
    problems: list[str] = []
    cached = True
    try:
        index = _read_json(os.path.join(cdir, "index.json"))
        if index is None or index.get("heads") != heads:
            cached = False
            index, memo = build_index(store.repo, store.cfg, git_dir=git_dir, now=now)
            heads = index["heads"]
            _save_index(cdir, index, memo, problems)
        branch = _branch_of(cwd, index, cdir, problems)
        parts = {}
        for name in ([branch] if branch else []) + [MAIN]:
            if name not in heads:
                continue
            part = _read_json(_part_path(cdir, name))
            if part is None or part.get("head") != heads[name]:
                cached = False
                part = render_part(store.repo, name, heads[name])
                _write_json(_part_path(cdir, name), part, problems)
            parts[name] = part
    finally:
        store.close()
    pending, eligible = count_pending(index, branch, session_id=session_id,
                                      transcript_path=transcript_path, now=now)
    project = next((p["name"] for p in index["projects"] if p["branch"] == branch), None)
    text = assemble(repo=repo_path, branch=branch, project=project, project_part=parts.get(branch),
                    main_part=parts.get(MAIN), pending=pending, search=index.get("search", False))
    return Served(text=text, repo=repo_path, cwd=cwd, branch=branch, project=project, pending=pending,
                  eligible=eligible, cached=cached, problems=problems)


def read_heads(git_dir: str) -> dict[str, str]:
    """Return {branch: sha} from the ref files (loose refs over packed-refs), without dulwich."""
    heads: dict[str, str] = {}
    try:
        with open(os.path.join(git_dir, "packed-refs"), encoding="utf-8", errors="replace") as f:
            for line in f:
                sha, _, ref = line.rstrip("\n").partition(" ")
                if ref.startswith("refs/heads/") and len(sha) == 40:
                    heads[ref[len("refs/heads/"):]] = sha
    except FileNotFoundError:
        pass
    _loose_heads(os.path.join(git_dir, "refs", "heads"), "", heads)
    return heads


def _loose_heads(directory: str, prefix: str, heads: dict[str, str]) -> None:
    try:
        entries = list(os.scandir(directory))
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        if entry.is_dir():
            _loose_heads(entry.path, prefix + entry.name + "/", heads)
        elif not entry.name.endswith(".lock"):
            try:
                with open(entry.path, encoding="ascii", errors="replace") as f:
                    sha = f.read(64).strip()
            except OSError:
                continue
            if len(sha) == 40:
                heads[prefix + entry.name] = sha


def _branch_of(cwd: str, index: dict, cdir: str, problems: list[str]) -> str | None:
    """Return the project branch of `cwd` (None: no known project), remembering it in dirs.json."""
    path = os.path.join(cdir, "dirs.json")
    memo = _read_json(path)
    if memo is None or memo.get("projects_digest") != index["projects_digest"]:
        memo = _empty_memo(index["projects_digest"])
    found, branch = _remembered(cwd, memo)
    if found:
        return branch
    branch, table, key, entry = identify(cwd, index["projects"])
    memo[table][key] = entry
    if len(memo[table]) > MEMO_SIZE:
        memo[table] = dict(list(memo[table].items())[-MEMO_SIZE:])
    _write_json(path, memo, problems)
    return branch


def _remembered(cwd: str, memo: dict) -> tuple[bool, str | None]:
    top = _git_top(cwd)
    if top is not None:
        entry = memo["dirs"].get(top)
        if entry is not None and entry["sig"] == _signature(top, entry["config"]):
            return True, entry["branch"]
        return False, None
    here = os.path.abspath(cwd)
    if here in memo["cwds"]:
        return True, memo["cwds"][here]
    return False, None


def _git_top(cwd: str) -> str | None:
    """The directory holding the `.git` that `scopes.find_git` would find for cwd, walking up."""
    directory = os.path.abspath(cwd)
    if not os.path.isdir(directory):
        return None
    while True:
        dotgit = os.path.join(directory, ".git")
        try:
            mode = os.stat(dotgit).st_mode
        except OSError:
            mode = None
        if mode is not None and (not stat.S_ISDIR(mode) or os.path.isfile(os.path.join(dotgit, "HEAD"))):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _signature(top: str, config: str) -> list | None:
    """What would change if the directory's identity changed: its `.git` file and the git config."""
    try:
        st = os.stat(os.path.join(top, ".git"))
    except OSError:
        return None
    # A .git directory's own mtime moves with every index.lock: only a gitfile's is meaningful.
    dotgit = [1, 0, 0] if stat.S_ISDIR(st.st_mode) else [0, st.st_mtime_ns, st.st_size]
    try:
        cs = os.stat(config)
        return dotgit + [cs.st_mtime_ns, cs.st_size]
    except OSError:
        return dotgit + [None, None]


def count_pending(index: dict, branch: str | None, *, session_id: str | None, transcript_path: str | None,
                  now: float) -> tuple[int, int]:
    """Return (sessions of this project with unread bytes, those of them a sync would read now).

    A transcript is unread when the index listed it so, or when it changed after the index was
    built; the folders looked at are those the project's sessions came from and the current one.
    """
    from fnmatch import fnmatch

    from .core.names import STAND_IN, stand_in

    root = index["claude_projects"]
    folders = {os.path.join(root, name) for name in index["project_folders"].get(branch or "", ())}
    if transcript_path:
        folders.add(os.path.dirname(os.path.abspath(transcript_path)))
    max_age, min_idle = index["max_age_days"] * 86400, index["min_idle_minutes"] * 60
    pending = eligible = 0
    for folder in folders:
        name = os.path.basename(folder)
        if index["include"] and not any(fnmatch(name, p) for p in index["include"]):
            continue
        if any(fnmatch(name, p) for p in index["exclude"]):
            continue
        unread = index["unread"].get(name)
        if unread is None:
            unread = index["unread"].get(stand_in(name))
        odd = unread is not None and any(sid.startswith(STAND_IN) for sid in unread)  # names written as stand-ins
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            sid = entry.name[:-6]
            if not entry.name.endswith(".jsonl") or entry.name.startswith("agent-") or sid == session_id:
                continue
            try:
                st = entry.stat()
            except OSError:
                continue
            age = now - st.st_mtime
            if max_age > 0 and age > max_age:
                continue
            if unread is None or sid in unread or (odd and stand_in(sid) in unread) or st.st_mtime > index["built_at"]:
                pending += 1
                eligible += age >= min_idle
    return pending, eligible


def assemble(*, repo: str, branch: str | None, project: str | None, project_part: dict | None,
             main_part: dict | None, pending: int, search: bool, budget: int = BUDGET) -> str:
    """Fit the scopes' summaries and pinned notes into the fenced text; "" when there is nothing to tell."""
    sections = []  # (heading, body, where the rest is, weight when the budget is shared)
    if project_part and project_part["summary"]:
        hint = (f"`memgit show {branch}:{SUMMARY_FILE}`" if project_part["source"] == SUMMARY_FILE
                else f"`memgit log --project {branch[len(PREFIX):]}`")
        sections.append((sanitize(f"## Project {' '.join(str(project).split())} (branch `{branch}`)"),
                         project_part["summary"], sanitize(hint), 3))
    if main_part and main_part["summary"]:
        sections.append(("## Across all projects", main_part["summary"], f"`memgit show {MAIN}:{SUMMARY_FILE}`", 2))
    pinned = [(note, "this project") for note in (project_part or {}).get("pinned", ())]
    pinned += [(note, "all projects") for note in (main_part or {}).get("pinned", ())]
    if pinned:
        body = "\n\n".join(f"### {note['path']} ({scope})\n{note['text']}" for note, scope in pinned)
        sections.append(("## Pinned notes (the user added these)", body, "`memgit show <branch>:notes/<file>`", 2))
    if not sections:
        return ""
    if branch:
        where = f"branch `{branch}` holds this project's notes, `{MAIN}` what holds across projects"
    else:
        where = f"branch `{MAIN}` holds what holds across projects; this directory is in no project memgit has seen yet"
    commands = "`memgit show <session-id>` prints a session's note, `memgit show <branch>:<path>` any file."
    if search:
        commands = f"`memgit search \"<words>\"` finds earlier sessions and learnings; {commands}"
    line = ""
    if pending:
        whose = "of this project" if branch else "started here"
        sessions, are = ("session", "is") if pending == 1 else ("sessions", "are")
        line = f"- {pending} earlier {sessions} {whose} {are} waiting to be synced into memory.\n"
    from string import Template

    wrapper = Template(_template("context.md"))
    fill = {"repo": sanitize(repo), "branches": sanitize(where), "commands": commands, "pending": line}
    fixed = len(wrapper.substitute(sections="", **fill).rstrip()) + sum(len(s[0]) + 3 for s in sections)
    room = budget - fixed
    for _ in range(8):
        allotted = _share([(len(body), weight) for _, body, _, weight in sections], room)
        cuts = [f"{h}\n{_cut(body, n, hint)}\n\n" for (h, body, hint, _), n in zip(sections, allotted, strict=True)]
        text = wrapper.substitute(sections="".join(cuts), **fill).rstrip()
        if len(text) <= budget:
            return text
        room -= len(text) - budget  # a cut landed past its share: take the overflow off and refit
    return ""  # not even the frame fits (a repository path thousands of characters long)


def _share(wants: list[tuple[int, int]], room: int) -> list[int]:
    """Split `room` characters among sections wanting (size, weight): those under their weighted share
    whole, what they leave to the others in proportion to their weights (weighted water-filling)."""
    out = [0] * len(wants)
    left, weights = max(room, 0), sum(w for _, w in wants)
    for i in sorted(range(len(wants)), key=lambda i: wants[i][0] / wants[i][1]):
        size, weight = wants[i]
        out[i] = min(size, left * weight // weights)
        left, weights = left - out[i], weights - weight
    return out


def _cut(body: str, limit: int, hint: str) -> str:
    """Keep the head of `body` within `limit` characters, cut at a line end, saying where the rest is."""
    if len(body) <= limit:
        return body
    marker = f"\n… (cut to fit; the rest: {hint})"
    room = limit - len(marker)
    if room < 40:
        return marker.strip()[: max(limit, 0)]
    cut = body.rfind("\n", 0, room)
    if cut < room // 2:
        cut = body.rfind(" ", 0, room)
    return body[: cut if cut > 0 else room].rstrip() + marker


def _template(name: str) -> str:
    if name not in _templates:
        installed = os.path.join(_PACKAGE, "_data", "templates")  # as resources.data_dir lays them out
        root = installed if os.path.isdir(installed) else os.path.join(os.path.dirname(_PACKAGE), "templates")
        with open(os.path.join(root, name), encoding="utf-8") as f:
            _templates[name] = f.read()
    return _templates[name]


# ---- the cache files --------------------------------------------------------------------------


def _part_path(cdir: str, branch: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-._" else f"%{ord(c):02X}" for c in branch)
    return os.path.join(cdir, "parts", safe + ".json")


def _read_json(path: str) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None


def _write_json(path: str, data: dict, problems: list[str]) -> None:
    """Write a cache file atomically; a failure (a full disk) only costs speed next time."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, separators=(",", ":"))
        os.replace(tmp, path)
    except OSError as e:
        problems.append(f"cannot write the context cache {path}: {e.strerror or e}")
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _save_index(cdir: str, index: dict, memo: dict, problems: list[str]) -> None:
    """Write a new index, and the dirs memo with what is still valid of the old one."""
    _write_json(os.path.join(cdir, "index.json"), index, problems)
    old = _read_json(os.path.join(cdir, "dirs.json"))
    if old is not None and old.get("projects_digest") == memo["projects_digest"]:
        for table in ("dirs", "cwds"):  # entries are checked again when used: keep the ones learned
            memo[table] = {**old.get(table, {}), **memo[table]}
    _write_json(os.path.join(cdir, "dirs.json"), memo, problems)


def _empty_memo(key: str) -> dict:
    return {"version": CACHE_VERSION, "projects_digest": key, "dirs": {}, "cwds": {}}


class _Store:
    """The configuration and the object store, opened only when the cache cannot answer."""

    def __init__(self, repo_path: str):
        self.repo_path = repo_path
        self._cfg = self._repo = None

    @property
    def cfg(self):
        if self._cfg is None:
            from .config import load

            self._cfg = load(repo_path=self.repo_path)
        return self._cfg

    @property
    def repo(self):
        if self._repo is None:
            from .repo import MemoryRepo

            self._repo = MemoryRepo.open(self.cfg.repo_path, author=self.cfg.author)
        return self._repo

    def close(self) -> None:
        if self._repo is not None:
            self._repo.close()


# ---- rendering: at sync time, or when the cache is missing ------------------------------------


def refresh(repo, cfg, branches: Iterable[str]) -> None:
    """Render the session-start context of `branches` (any names; unknown ones are ignored) and the index.

    Called at the end of every command that moved a branch (sync, consolidate, ...). The cache is
    derived: a part that cannot be rendered is dropped and logged, a file that cannot be written is
    skipped; neither fails the caller, and nothing is raised.

    Args:
        repo: the open memgit.repo.MemoryRepo the command wrote through.
        cfg: its memgit.config.Config (repository, transcript root, idle and age settings).
        branches: the branches it moved, e.g. {"projects/pinion", "main"}.
    """
    import logging

    log = logging.getLogger("memgit.context")
    cdir = str(cfg.state_dir / "context")
    git_dir = str(cfg.state_dir.parent)
    problems: list[str] = []
    try:
        index, memo = build_index(repo, cfg, git_dir=git_dir, now=time.time())
    except Exception:  # a corrupt object must not fail the sync that just committed
        log.exception("cannot build the session-start context index")
        _remove(os.path.join(cdir, "index.json"))  # the hook reads the object store, or says nothing
        return
    _save_index(cdir, index, memo, problems)
    heads = index["heads"]
    for branch in sorted({*branches, MAIN}):
        if branch not in heads or not (branch == MAIN or branch.startswith(PREFIX)):
            continue
        path = _part_path(cdir, branch)
        old = _read_json(path)
        if old is not None and old.get("head") == heads[branch]:
            continue
        try:
            _write_json(path, render_part(repo, branch, heads[branch]), problems)
        except Exception:  # a corrupt object must not fail the sync that just committed
            log.exception("cannot render the session-start context of %s", branch)
            _remove(path)
    for name in _listdir(os.path.join(cdir, "parts")):
        part = _read_json(os.path.join(cdir, "parts", name))
        if part is None or part.get("branch") not in heads:
            _remove(os.path.join(cdir, "parts", name))
    for problem in problems:
        log.warning(problem)


def build_index(repo, cfg, *, git_dir: str, now: float) -> tuple[dict, dict]:
    """Return the index (heads, projects, unread transcripts, settings) and the dirs memo of project roots."""
    import hashlib

    from . import scopes

    heads = read_heads(git_dir)
    projects = []
    for branch in sorted(b for b in heads if b.startswith(PREFIX)):
        raw = repo.read(heads[branch], "PROJECT.md")
        if raw is None:
            continue
        try:
            p = scopes.parse_project_md(raw.decode("utf-8", "replace"), branch)
        except ValueError:  # sync reports a broken PROJECT.md; until it is fixed no cwd resolves there
            continue
        projects.append({"branch": p.branch, "name": p.name, "remotes": list(p.remotes), "paths": list(p.paths)})
    key = hashlib.sha1(json.dumps(projects, sort_keys=True).encode()).hexdigest()
    unread, folders = _unread(repo, cfg, now)
    index = {
        "version": CACHE_VERSION, "heads": heads, "projects": projects, "projects_digest": key,
        "built_at": now, "claude_projects": str(cfg.claude_projects), "unread": unread,
        "project_folders": folders, "min_idle_minutes": cfg.min_idle_minutes, "max_age_days": cfg.max_age_days,
        "include": list(cfg.include_projects), "exclude": list(cfg.exclude_projects),
        "search": os.path.isfile(os.path.join(_PACKAGE, "search.py")),
    }
    memo = _empty_memo(key)
    for path in dict.fromkeys(p for project in projects for p in project["paths"]):
        if os.path.isdir(path) and _git_top(path) == os.path.abspath(path):
            branch, table, where, entry = identify(path, projects)
            memo[table][where] = entry
    return index, memo


def _unread(repo, cfg, now: float) -> tuple[dict, dict]:
    """{folder: {session: processed end}} of the transcripts inside the age window with unread bytes,
    and {branch: [folders its sessions came from]}."""
    from . import ledger as ledger_mod
    from .core.names import safe_name
    from .errors import TranscriptError
    from .sources import claude_code

    led = ledger_mod.load(repo, cfg.state_dir)
    try:
        files = claude_code.discover(claude_code.projects_dir(cfg.claude_root))
    except TranscriptError:
        files = []
    unread: dict[str, dict[str, int]] = {}
    for file in files:  # names as the ledger writes them: a secret in a folder name stays out of the cache
        folder = unread.setdefault(safe_name(file.project_dir), {})
        if cfg.max_age_days > 0 and now - file.mtime > cfg.max_age_days * 86400:
            continue
        end = led.processed_end(file.key)
        if file.size != end:
            folder[file.key.split("/", 1)[1]] = end
    folders: dict[str, set[str]] = {}
    for entry in led.entries:
        folders.setdefault(entry.branch, set()).add(entry.source.split("/", 1)[0])
    return unread, {branch: sorted(names) for branch, names in folders.items()}


def identify(cwd: str, projects: list[dict]) -> tuple[str | None, str, str, object]:
    """Resolve `cwd` to a project branch the way sync files its sessions.

    Returns:
        (branch or None, memo table, memo key, memo entry): a directory in a git repository is
        remembered by its worktree root and the git files that decide its identity; any other
        by its path.
    """
    from pathlib import Path

    from . import scopes

    known = [scopes.Project(branch=p["branch"], name=p["name"], remotes=p["remotes"], paths=p["paths"])
             for p in projects]
    identity = scopes.identify(cwd)
    project = scopes.resolve(identity, known, cwd=cwd)
    branch = project.branch if project else None
    location = scopes.find_git(Path(os.path.abspath(cwd))) if os.path.isdir(cwd) else None
    if identity.in_repo and location is not None:
        top, config = str(location.worktree), str(location.common_dir / "config")
        return branch, "dirs", top, {"sig": _signature(top, config), "config": config, "branch": branch}
    return branch, "cwds", os.path.abspath(cwd), branch


def render_part(repo, branch: str, head: str) -> dict:
    """Read one scope's summary (or the digest of its newest notes) and its pinned notes at `head`."""
    summary, source = "", ""
    raw = repo.read(head, SUMMARY_FILE)
    if raw is not None:
        summary, source = clean_markdown(raw.decode("utf-8", "replace")), SUMMARY_FILE
    if not summary and branch != MAIN:
        summary, source = _recent(repo, head), "sessions"
    pinned = []
    for path in sorted((p for p in repo.list(head, "notes") if p.endswith(".md")), reverse=True):
        if source == SUMMARY_FILE and path in summary:
            continue  # consolidation put it in the summary already (or chose to leave it out)
        text = clean_markdown((repo.read(head, path) or b"").decode("utf-8", "replace"))
        if text:
            pinned.append({"path": path, "text": _cut(text, PINNED_MAX, f"`memgit show {branch}:{path}`")})
    return {"version": CACHE_VERSION, "branch": branch, "head": head, "summary": summary[:BUDGET],
            "source": source, "pinned": pinned}


def _recent(repo, head: str) -> str:
    from .notes import parse_note

    paths = sorted(p for p in repo.list(head, "sessions") if p.endswith(".md"))[-RECENT_NOTES:]
    notes = []
    for path in reversed(paths):
        try:
            notes.append(parse_note((repo.read(head, path) or b"").decode("utf-8", "replace")))
        except ValueError:  # a note a person broke: the others still tell the story
            continue
    return digest(notes, _template("context-recent.md").strip())


def digest(notes: list, header: str, budget: int = BUDGET) -> str:
    """The fallback summary: newest notes first, each with its strongest learnings, within budget.

    A learning is stronger when more of these sessions repeat it, then by type (preferences and
    conventions first); a learning already shown under a newer note is not repeated.
    """
    seen_in: dict[str, int] = {}
    for note in notes:
        for text in {_norm(item.text) for item in note.learnings}:
            seen_in[text] = seen_in.get(text, 0) + 1
    lines, size, shown = [header], len(header), set()
    for note in notes:
        ranked = sorted(enumerate(note.learnings),
                        key=lambda x: (-seen_in[_norm(x[1].text)], TYPE_RANK.get(x[1].type, 9), x[0]))
        picks = []
        for _, item in ranked:
            key = _norm(item.text)
            if key in shown or len(picks) == LEARNINGS_PER_NOTE:
                continue
            shown.add(key)
            times = seen_in[key]
            support = f" (in {times} sessions)" if times > 1 else ""
            picks.append(f"  - [{item.type}] {_one_line(item.text, 300)}{support}")
        date = (note.started or note.ended or "")[:10]
        block = [f"- {date + ' ' if date else ''}{_one_line(note.title, 120)} [{note.id8}]", *picks]
        cost = sum(len(line) + 1 for line in block)
        if size + cost > budget:
            break
        lines += block
        size += cost
    return sanitize("\n".join(lines)) if len(lines) > 1 else ""


def clean_markdown(text: str) -> str:
    """Ready a markdown file for the fence: no front matter, no H1, headings one level down, no fence markers."""
    from .notes import split_front_matter

    try:
        _, body = split_front_matter(text)
    except ValueError:
        body = text
    lines, fenced = [], False
    for line in body.strip().splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("# ") and not lines:
            continue  # the file's title: the section heading says what it is
        elif not fenced and line.startswith("#"):
            line = "#" + line
        lines.append(line)
    return sanitize("\n".join(lines).strip())


def sanitize(text: str) -> str:
    """Keep memory text from closing the fence or carrying control characters."""
    text = text.replace("</memgit-context", "</memgit-ctx").replace(MARKER, "<memgit-ctx")
    return "".join(c for c in text if c >= " " or c in "\n\t")


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def estimate_tokens(text: str) -> int:
    """Tokens the text costs: counted with memgit.tokens when it is there, else estimated."""
    try:
        from .tokens import count
    except ImportError:
        return -(-len(text) * 2 // 7)  # 3.5 characters per token, rounded up
    return count(text)


def preview(cfg, cwd: str, *, now: float | None = None) -> dict:
    """What `memgit context` shows: the text a session started in `cwd` gets, its size, and why."""
    from .synthetic import encode_project_dir

    repo = os.path.abspath(cfg.repo_path)  # as the hook spells it (hook.repo_path)
    # A session started here writes its transcript into this folder: its unread siblings count.
    transcript = os.path.join(str(cfg.claude_projects), encode_project_dir(cwd), "new-session.jsonl")
    served = serve(repo, cwd, transcript_path=transcript, now=time.time() if now is None else now)
    text = served.text if served else ""
    reason = ""
    if served is None:
        reason = f"nothing: no memory repository at {repo} yet (`memgit sync` creates it)"
    elif not text:
        reason = "nothing: no summary, session notes or pinned notes for this directory yet"
    hook_output = ({"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}}
                   if text else None)
    return {"repo": repo, "cwd": cwd, "project": served.project if served else None,
            "branch": served.branch if served else None, "pending": served.pending if served else 0,
            "chars": len(text), "tokens": estimate_tokens(text) if text else 0, "context": text,
            "hook_output": hook_output, "reason": reason}
