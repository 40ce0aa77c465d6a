"""The session-start context cache in `.git/memgit/context/`: derived, deleting it changes nothing but speed.

- `index.json`: the branch heads it was built from, every project's identities (PROJECT.md),
  and which transcripts were unread when it was built (for the "waiting to be synced" line).
- `parts/<branch>.json`: one scope's summary and pinned notes, keyed by the branch head they were read from.
- `dirs.json`: which project a working directory resolved to, checked by two `stat` calls.

Plain files read and written without dulwich: the hook reads them at every session start (through
memgit.core.quickjson: the json package's import is a tenth of the hook's budget).
"""

from __future__ import annotations

import os

from memgit.core import quickjson

CACHE_VERSION = 3  # 2: projects_key renamed projects_digest (a "key" holding a digest reads as a secret); 3: unread_other
MEMO_SIZE = 500  # remembered working directories


def read_heads(git_dir: str) -> dict[str, str]:
    """Return {branch: sha} from the ref files (loose refs over packed-refs), without dulwich."""
    return _read_refs(git_dir, "refs/heads/")


def read_refs(git_dir: str) -> dict[str, str]:
    """Every ref under refs/ by its full name, and what HEAD holds, without dulwich: the state of the
    whole repository a derived answer is keyed by (memgit.verbs.sync_noop)."""
    refs = {f"refs/{name}": sha for name, sha in _read_refs(git_dir, "refs/").items()}
    try:
        with open(os.path.join(git_dir, "HEAD"), encoding="utf-8", errors="replace") as f:
            refs["HEAD"] = f.read(4096).strip()
    except FileNotFoundError:
        pass
    return refs


def _read_refs(git_dir: str, prefix: str) -> dict[str, str]:
    """{name after prefix: sha} of the refs under `prefix` (loose refs over packed-refs)."""
    refs: dict[str, str] = {}
    try:
        with open(os.path.join(git_dir, "packed-refs"), encoding="utf-8", errors="replace") as f:
            for line in f:
                sha, _, ref = line.rstrip("\n").partition(" ")
                if ref.startswith(prefix) and len(sha) == 40:
                    refs[ref[len(prefix):]] = sha
    except FileNotFoundError:
        pass
    _loose_heads(os.path.join(git_dir, *prefix.rstrip("/").split("/")), "", refs)
    return refs


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
                with open(entry.path, "rb") as f:  # bytes.decode knows ASCII; a text file would import its codec
                    sha = f.read(64).decode("ascii", "replace").strip()
            except OSError:
                continue
            if len(sha) == 40:
                heads[prefix + entry.name] = sha


def part_path(cdir: str, branch: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-._" else f"%{ord(c):02X}" for c in branch)
    return os.path.join(cdir, "parts", safe + ".json")


def read_json(path: str) -> dict | None:
    try:
        data = quickjson.load_file(path)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("version") == CACHE_VERSION else None


def write_json(path: str, data: dict, problems: list[str]) -> None:
    """Write a cache file atomically; a failure (a full disk) only costs speed next time."""
    import json  # written at sync time, or when the hook found the cache stale: not on the hot path

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


def save_index(cdir: str, index: dict, memo: dict, problems: list[str]) -> None:
    """Write a new index, and the dirs memo with what is still valid of the old one."""
    write_json(os.path.join(cdir, "index.json"), index, problems)
    old = read_json(os.path.join(cdir, "dirs.json"))
    if old is not None and old.get("projects_digest") == memo["projects_digest"]:
        for table in ("dirs", "cwds"):  # entries are checked again when used: keep the ones learned
            memo[table] = {**old.get(table, {}), **memo[table]}
    write_json(os.path.join(cdir, "dirs.json"), memo, problems)


def empty_memo(key: str) -> dict:
    return {"version": CACHE_VERSION, "projects_digest": key, "dirs": {}, "cwds": {}}


def listdir(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
