"""Install or uninstall memgit's hooks in one agent's hooks file, and put the file back byte for byte.

Install inserts memgit's entries as text (memgit.verbs.install.hooks), backs the file up first,
replaces it atomically, and records in the manifest what it inserted. Uninstall, in order:
  1. the file is exactly as memgit left it: the original bytes come back (a file memgit created
     is deleted);
  2. a person changed it since: memgit's snippets are removed verbatim and the rest is kept as is;
  3. those snippets are no longer there verbatim (an agent rewrote the file): memgit's handlers are
     removed from the parsed document, which is written back with two-space indentation.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from memgit.errors import MemgitError
from memgit.verbs.install import hooks as hooks_mod
from memgit.verbs.install import jsontext
from memgit.verbs.install.agents import Agent
from memgit.verbs.install.manifest import key, sha256


@dataclass(slots=True)
class SettingsChange:
    """What install or uninstall did (or, in a dry run, would do) to one agent's hooks file."""

    settings: str
    action: str  # install | uninstall
    agent: str = "claude-code"
    changes: list[str] = field(default_factory=list)  # one line per event touched
    backup: str | None = None
    dry_run: bool = False
    command: str = ""  # how the hooks call memgit
    warnings: list[str] = field(default_factory=list)
    restored: str | None = None  # uninstall: original | removed | entries-only | reparsed

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    def as_dict(self) -> dict:
        return {"agent": self.agent, "settings": self.settings, "action": self.action, "changed": self.changed,
                "changes": self.changes, "backup": self.backup, "dry_run": self.dry_run, "command": self.command,
                "restored": self.restored, "warnings": self.warnings}


def read_text(path: Path) -> str | None:
    """The file's text, None when it does not exist.

    Raises:
        MemgitError: it exists but cannot be read as UTF-8 text.
    """
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as e:
        raise MemgitError(f"cannot read {path}: {e}") from e


def install_file(path: Path, agent: Agent, memgit: str, record: dict | None, *, dry_run: bool,
                 now: float) -> tuple[SettingsChange, dict | None]:
    """Add the agent's memgit hooks to `path`; return what changed and the file's new manifest record.

    Raises:
        ConfigError: the file is not a JSON object, or its hooks are not of the expected shape.
        MemgitError: the file cannot be read or written.
    """
    result = SettingsChange(str(path), "install", agent.name, dry_run=dry_run, command=memgit)
    before = read_text(path)
    text = before or ""
    doc = hooks_mod.parse(text, str(path))
    todo = hooks_mod.missing(doc, agent, memgit)
    inserts = list(record["inserts"]) if record else []
    had: set[str] = set()
    if todo is None:  # an older memgit entry: take memgit out first, then add the current one
        had = {h.event for h in agent.hooks if hooks_mod.ours(doc, h.event)}
        text, inserts, removed = _without_memgit(text, doc, inserts)
        result.changes += [line for line in removed if line.split(":")[0] not in had]
        todo = list(agent.hooks)
    if not todo:
        return result, record
    text, added = hooks_mod.add(text, agent, memgit, todo)
    inserts += added
    result.changes += [f"{h.event}{f' ({h.matcher})' if h.matcher else ''}: "
                       f"{'updated' if h.event in had else 'added'} `{agent.command(memgit, h)}`" for h in todo]
    new = {"agent": agent.name, "existed": before is not None,
           "original_sha256": sha256(before.encode()) if before is not None else None,
           **({k: record[k] for k in ("existed", "original_sha256")} if record else {}),
           "inserts": inserts, "installed_sha256": sha256(text.encode())}
    if not dry_run:
        result.backup = write(path, text, now=now, backup=before is not None)
        new["backups"] = (record or {}).get("backups", []) + ([result.backup] if result.backup else [])
    return result, new


def uninstall_file(path: Path, record: dict | None, *, dry_run: bool, now: float,
                   agent: str = "claude-code") -> SettingsChange:
    """Take memgit's hooks out of `path`, restoring its original bytes where it can (see the module).

    Raises:
        ConfigError: memgit's entries must be parsed out and the file is not valid JSON.
        MemgitError: the file cannot be read, written or deleted.
    """
    result = SettingsChange(str(path), "uninstall", agent, dry_run=dry_run)
    text = read_text(path)
    if text is None:
        return result
    untouched = record is not None and sha256(text.encode()) == record.get("installed_sha256")
    stripped = jsontext.remove(text, record["inserts"]) if record else None
    if untouched and stripped is not None and not record["existed"] and not stripped.strip():
        result.restored, result.changes = "removed", [f"deleted {path}: memgit had created it"]
        if not dry_run:
            _unlink(path)
        return result
    doc = hooks_mod.parse(text, str(path))
    _, changes = hooks_mod.remove(doc)
    if stripped is not None and not hooks_mod.has_memgit(hooks_mod.parse(stripped, str(path))):
        new = stripped
        result.restored = "original" if sha256(new.encode()) == record.get("original_sha256") else "entries-only"
        changes = changes or ["removed memgit's entries"]
    elif changes:
        new = hooks_mod.dump(hooks_mod.remove(doc)[0])
        result.restored = "reparsed"
    else:
        return result
    result.changes = changes
    if result.restored == "entries-only":
        result.warnings.append(f"{path} changed since memgit installed its hooks: removed only memgit's entries, "
                               "kept the rest as it is now")
    elif result.restored == "reparsed" and record:
        result.warnings.append(f"{path} was rewritten since memgit installed its hooks: removed memgit's handlers "
                               "from the parsed file; its indentation (and any comments) may differ")
    if not dry_run:
        result.backup = write(path, new, now=now, backup=result.restored != "original")
        if result.restored == "original":
            _drop_backups(record, record.get("original_sha256"))
    return result


def _drop_backups(record: dict, original: str | None) -> None:
    """Delete the backups install made of a file now back as it was (each only if it still holds those bytes)."""
    for backup in record.get("backups", []):
        try:
            if sha256(Path(backup).read_bytes()) == original:
                Path(backup).unlink()
        except OSError:
            pass  # gone already, or not ours to judge: it stays


def _without_memgit(text: str, doc: dict, inserts: list[str]) -> tuple[str, list[str], list[str]]:
    new, changes = hooks_mod.remove(doc)
    stripped = jsontext.remove(text, inserts) if inserts else None
    if stripped is not None and not hooks_mod.has_memgit(hooks_mod.parse(stripped, "the file")):
        return stripped, [], changes
    return hooks_mod.dump(new), [], changes


def write(path: Path, text: str, *, now: float, backup: bool) -> str | None:
    """Back the file up (when asked and it exists), then replace it atomically, through a symlink to its
    target, keeping its mode; return the backup's path.

    Raises:
        MemgitError: the file cannot be written.
    """
    target = Path(os.path.realpath(path))
    saved = None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if backup and target.exists():
            stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
            candidate, n = target.with_name(f"{target.name}.memgit-backup-{stamp}"), 2
            while candidate.exists():
                candidate, n = target.with_name(f"{target.name}.memgit-backup-{stamp}-{n}"), n + 1
            shutil.copy2(target, candidate)
            saved = str(candidate)
        tmp = target.with_name(f".{target.name}.memgit-{os.getpid()}.tmp")
        tmp.write_bytes(text.encode("utf-8"))
        if target.exists():
            shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except OSError as e:
        raise MemgitError(f"cannot write {target}: {e.strerror or e}") from e
    return saved


def _unlink(path: Path) -> None:
    try:
        Path(os.path.realpath(path)).unlink()
    except FileNotFoundError:
        pass
    except OSError as e:
        raise MemgitError(f"cannot delete {path}: {e.strerror or e}") from e


__all__ = ["SettingsChange", "install_file", "key", "uninstall_file", "write"]
