"""`memgit install` / `uninstall`: memgit's hooks in Claude Code's settings.json, and nothing else touched.

The settings document is edited as parsed JSON: memgit adds one matcher group per event
(SessionStart, SessionEnd, PreCompact) holding its own handler, and recognises its handlers
afterwards by their command (`memgit hook <event>`), so running install again changes nothing,
and uninstall removes exactly those handlers, then the groups, event lists and `hooks` object
that held nothing else. Every other key and hook stays as it was. A backup of the file is
written before it is changed, and the change is written atomically.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from memgit.errors import ConfigError, MemgitError

# (Claude Code event, matcher or None for none, memgit hook argument, timeout in seconds)
HOOKS = (
    ("SessionStart", "startup|resume|clear|compact", "session-start", 10),
    # SessionEnd hooks share a 1.5 s budget that a larger timeout in a settings file would raise
    # for every hook: memgit returns in milliseconds and asks for no more than a second.
    ("SessionEnd", None, "session-end", 1),
    ("PreCompact", "manual|auto", "pre-compact", 10),
)
_MEMGIT_COMMAND = re.compile(
    r"memgit(?:\.exe|\.entry|\.cli)?['\"]?\s+hook\s+(?:session-start|session-end|pre-compact)\b"
)


@dataclass(slots=True)
class SettingsChange:
    """What install or uninstall did (or, in a dry run, would do) to one settings file."""

    settings: str
    action: str  # install | uninstall
    changes: list[str] = field(default_factory=list)  # one line per event touched
    backup: str | None = None
    dry_run: bool = False
    command: str = ""  # how the hooks call memgit
    warnings: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def as_dict(self) -> dict:
        return {"settings": self.settings, "action": self.action, "changed": self.changed,
                "changes": self.changes, "backup": self.backup, "dry_run": self.dry_run,
                "command": self.command, "warnings": self.warnings}


def default_settings(claude_root: Path) -> Path:
    return claude_root / "settings.json"


def memgit_command() -> str:
    """How a hook calls memgit: this environment's console script, else `python -m memgit.entry`."""
    beside = Path(sys.executable).with_name("memgit")  # the console script of this very install
    found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("memgit")
    if found:
        return shlex.quote(os.path.abspath(found))
    return f"{shlex.quote(sys.executable)} -m memgit.entry"


def is_memgit_handler(handler: object) -> bool:
    """True for a handler memgit installed: a command running `memgit hook <event>`."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    args = handler.get("args")
    if isinstance(args, list) and args[:1] == ["hook"]:  # exec form: command memgit, args [hook, event]
        return bool(re.search(r"memgit(\.exe)?['\"]?$", handler["command"]))
    return bool(_MEMGIT_COMMAND.search(handler["command"]))


def memgit_group(event: str, command: str) -> dict:
    """The matcher group memgit adds to one event's list."""
    for name, matcher, arg, timeout in HOOKS:
        if name == event:
            group: dict = {"matcher": matcher} if matcher else {}
            group["hooks"] = [{"type": "command", "command": f"{command} hook {arg}", "timeout": timeout}]
            return group
    raise ValueError(f"memgit installs no {event} hook")


def add_hooks(settings: dict, command: str) -> tuple[dict, list[str]]:
    """Return the settings with memgit's hooks in them, and what changed (nothing when they already are).

    Raises:
        ConfigError: `hooks`, or an event's list, is not of the shape Claude Code reads.
    """
    out = copy.deepcopy(settings)
    hooks = _hooks_object(out)
    changes = []
    for event, matcher, _, _ in HOOKS:
        wanted = memgit_group(event, command)
        groups = _event_list(hooks, event)
        ours = [g for g in groups if isinstance(g, dict) and any(map(is_memgit_handler, _handlers(g)))]
        if ours == [wanted]:
            continue
        verb = "updated" if ours else "added"
        if ours:
            _strip_memgit(hooks, event)
            groups = hooks.setdefault(event, [])
        groups.append(wanted)
        changes.append(f"{event}{f' ({matcher})' if matcher else ''}: {verb} `{wanted['hooks'][0]['command']}`")
    return out, changes


def remove_hooks(settings: dict) -> tuple[dict, list[str]]:
    """Return the settings without memgit's hooks, and what was removed.

    Raises:
        ConfigError: `hooks`, or an event's list, is not of the shape Claude Code reads.
    """
    out = copy.deepcopy(settings)
    if "hooks" not in out:
        return out, []
    hooks = _hooks_object(out)
    changes = []
    for event in [e for e, groups in hooks.items() if isinstance(groups, list)]:
        removed = _strip_memgit(hooks, event)
        if removed:
            changes.append(f"{event}: removed {', '.join(f'`{c}`' for c in removed)}")
    if changes and not hooks:
        del out["hooks"]  # memgit's hooks were all it held
    return out, changes


def _hooks_object(settings: dict) -> dict:
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError("`hooks` in the Claude Code settings is not an object; fix it by hand first")
    return hooks


def _event_list(hooks: dict, event: str) -> list:
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise ConfigError(f"`hooks.{event}` in the Claude Code settings is not a list; fix it by hand first")
    return groups


def _handlers(group: dict) -> list:
    handlers = group.get("hooks")
    return handlers if isinstance(handlers, list) else []


def _strip_memgit(hooks: dict, event: str) -> list[str]:
    """Remove memgit's handlers from one event; drop the groups and the list that held only them."""
    groups = _event_list(hooks, event)
    removed, kept = [], []
    for group in groups:
        handlers = _handlers(group) if isinstance(group, dict) else []
        ours = [h for h in handlers if is_memgit_handler(h)]
        if not ours:
            kept.append(group)
            continue
        removed += [h["command"] for h in ours]
        rest = [h for h in handlers if not is_memgit_handler(h)]
        if rest:
            kept.append({**group, "hooks": rest})
    if not kept and removed:
        del hooks[event]
    else:
        hooks[event] = kept
    return removed


# ---- the file -----------------------------------------------------------------------------------


def read_settings(path: Path) -> dict:
    """Read a settings file; a missing one is an empty document.

    Raises:
        ConfigError: it is not a JSON object (memgit never overwrites a file it cannot read).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read {path}: {e}") from e
    if not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as e:
        raise ConfigError(f"{path} is not valid JSON ({e}); fix it, then run this again") from e
    if not isinstance(data, dict):
        raise ConfigError(f"{path} holds a JSON {type(data).__name__}, not an object; fix it first")
    return data


def write_settings(path: Path, data: dict, *, now: float) -> str | None:
    """Back the file up, then replace it atomically (through a symlink, to its target); return the backup.

    Raises:
        MemgitError: the file cannot be written.
    """
    target = Path(os.path.realpath(path))
    backup = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
            candidate, n = target.with_name(f"{target.name}.memgit-backup-{stamp}"), 2
            while candidate.exists():
                candidate, n = target.with_name(f"{target.name}.memgit-backup-{stamp}-{n}"), n + 1
            shutil.copy2(target, candidate)
            backup = str(candidate)
        tmp = target.with_name(f".{target.name}.memgit-{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        if backup:
            shutil.copymode(backup, tmp)
        os.replace(tmp, target)
    except OSError as e:
        raise MemgitError(f"cannot write {target}: {e.strerror or e}") from e
    return backup


def install(path: Path, *, dry_run: bool = False, command: str | None = None,
            now: float | None = None) -> SettingsChange:
    """Add memgit's hooks to a Claude Code settings file.

    Raises:
        ConfigError: the file is not valid JSON, or its hooks are not of the expected shape.
        MemgitError: the file cannot be written.
    """
    command = command or memgit_command()
    result = SettingsChange(str(path), "install", dry_run=dry_run, command=command)
    if "-m memgit.entry" in command:
        result.warnings.append(f"no `memgit` executable found: the hooks run `{command} hook ...`; "
                               "`pip install` memgit to put it on PATH")
    new, result.changes = add_hooks(read_settings(path), command)
    if result.changes and not dry_run:
        result.backup = write_settings(path, new, now=time.time() if now is None else now)
    return result


def uninstall(path: Path, *, dry_run: bool = False, now: float | None = None) -> SettingsChange:
    """Remove memgit's hooks (and only them) from a Claude Code settings file.

    Raises:
        ConfigError: the file is not valid JSON, or its hooks are not of the expected shape.
        MemgitError: the file cannot be written.
    """
    result = SettingsChange(str(path), "uninstall", dry_run=dry_run)
    new, result.changes = remove_hooks(read_settings(path))
    if result.changes and not dry_run:
        result.backup = write_settings(path, new, now=time.time() if now is None else now)
    return result


def describe_repo(repo_path: Path) -> str | None:
    """Say what --purge would delete; None when there is no repository there.

    Raises:
        MemgitError: the path holds a git repository memgit did not create (purge deletes only its own).
    """
    from memgit.store.repo import MemoryRepo

    if not (repo_path / ".git").is_dir():
        return None
    with MemoryRepo.open(repo_path) as repo:
        branches = repo.branches()
        try:
            root = next(repo.walk(repo.root(), limit=1))
        except (MemgitError, StopIteration):
            root = None
    if root is None or not root.message.startswith("init("):
        raise MemgitError(f"{repo_path} is a git repository memgit did not create; delete it by hand if you mean to")
    projects = sum(1 for b in branches if b.startswith("projects/"))
    return f"{repo_path} ({projects} project branch{'es' if projects != 1 else ''} and main)"


def purge(repo_path: Path) -> None:
    """Delete the memory repository (the caller confirmed it, after describe_repo).

    Raises:
        MemgitError: it could not be deleted completely.
    """
    try:
        shutil.rmtree(repo_path)
    except OSError as e:
        raise MemgitError(f"could not delete all of {repo_path}: {e}") from e
