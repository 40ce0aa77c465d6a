"""`import` commits: Claude Code's own memory folders, versioned on their projects' branches.

Each memory folder is copied under `imported/claude-code/<folder>/` on the branch its project's
sessions are filed on, as one `import(<scope>)` commit per folder whenever what is on disk differs
from the copy: new and changed files written, deleted ones removed. Claude Code owns the folder;
memgit only keeps its history (an older build's cleanup could empty it), so a `git revert` of an
import commit stands until the folder changes again: the newest import commit of a folder records
the digest it read (`Memgit-Source-Sha256`), and a folder still at that digest is not copied again.

Also here: whether a session gets the same memory twice, from Claude Code's MEMORY.md and from
memgit's session-start hook.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import traceback
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from memgit.config import Config
from memgit.core import redact
from memgit.core.ledger import format_message, parse_trailers
from memgit.core.model import AGENT_CLAUDE_CODE
from memgit.core.names import safe_name, safe_text
from memgit.errors import SecretFound
from memgit.sources.claude_code import native_memory
from memgit.verbs import install

log = logging.getLogger("memgit.verbs.import_memory")
KIND = "import"
PREFIX = f"imported/{AGENT_CLAUDE_CODE}"
WALK_LIMIT = 20_000  # commits searched for a folder's last import (only when its copy differs from disk)
CACHE = "imports.json"  # under .git/memgit: each folder's file stamps and branch head when last found in step

# cwd (None when unknown) -> (branch, project name, scope label), as sync files a session there
Resolve = Callable[[str | None], tuple[str, str, str]]


@dataclass(slots=True)
class ImportResult:
    """What became of one memory folder."""

    source: str  # the folder's name, as memgit may write it
    kind: str  # import (committed) | unchanged | kept (a person's revert or edit of the copy stands) | failed
    branch: str = ""
    scope: str = ""
    files: int = 0  # in the folder (read)
    changes: list[str] = field(default_factory=list)  # "added: MEMORY.md", "removed: old.md"...
    sha: str = ""
    warnings: list[str] = field(default_factory=list)


def import_native_memory(repo, cfg: Config, resolve: Resolve, *, home: Path | None = None) -> list[ImportResult]:
    """Commit each Claude Code memory folder that changed onto its project's branch.

    Args:
        repo: an open MemoryRepo (its gate refuses any secret left after redaction).
        resolve: a cwd's branch, project and scope; it may create the project's branch (sync's own).

    Returns:
        One result per memory folder found, in the folders' order.

    Raises:
        MemgitError: writing failed (the caller decides whether that fails its run).
    """
    home = Path.home() if home is None else home
    cache_path = cfg.state_dir / CACHE
    try:  # derived: without it every folder is read and compared, nothing else changes
        cache = json.loads(cache_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cache = {}
    cache = cache if isinstance(cache, dict) else {}
    results, fresh = [], {}
    for folder in native_memory.discover(cfg.claude_root, home):
        stamp = native_memory.fingerprint(folder)
        key = safe_name(folder.source, cfg.extra_redact_patterns)  # the cache is scanned for secrets too
        result = _cached(repo, cache.get(key), key, stamp) or _import(repo, cfg, resolve, folder)
        results.append(result)
        if stamp and result.kind != "failed" and not result.warnings:  # a warning is said again next time
            fresh[key] = {"stamp": stamp, "branch": result.branch, "scope": result.scope, "files": result.files,
                          "head": repo.head(result.branch)}
    if fresh != cache:
        try:
            cache_path.write_text(json.dumps(fresh), encoding="utf-8")
        except OSError:
            pass  # a full disk costs the next sync a read of every folder, nothing more
    return results


def _cached(repo, known, source: str, stamp: str | None) -> ImportResult | None:
    """The folder's result when neither its files nor its branch moved since the cache was written."""
    if not stamp or not isinstance(known, dict) or known.get("stamp") != stamp:
        return None
    branch, scope, files = known.get("branch"), known.get("scope"), known.get("files")
    if not (isinstance(branch, str) and isinstance(scope, str) and isinstance(files, int)):
        return None  # a cache written by someone else: read the folder
    if repo.head(branch) != known.get("head"):  # a branch gone has no head
        return None
    return ImportResult(source, "unchanged", branch, scope, files)


def for_sync(repo, cfg: Config, resolve: Resolve) -> tuple[list[ImportResult], list[str]]:
    """import_native_memory as sync runs it: any failure is logged and becomes a warning, never the sync's."""
    try:
        results = import_native_memory(repo, cfg, resolve)
    except Exception as e:  # the sessions matter more than a copy of Claude Code's notes
        if os.environ.get("MEMGIT_DEBUG"):
            raise
        log.error("importing Claude Code's memory failed:\n%s",
                  "".join(traceback.format_exception(type(e), e, e.__traceback__)))
        return [], [safe_text(f"Claude Code's memory was not imported: {getattr(e, 'message', None) or e!r} "
                              "(details in .git/memgit/sync.log; the next sync tries again)")]
    return results, [w for r in results for w in r.warnings]


def _import(repo, cfg: Config, resolve: Resolve, folder: native_memory.MemoryFolder) -> ImportResult:
    patterns = cfg.extra_redact_patterns
    source = safe_name(folder.source, patterns)
    snap = native_memory.read_folder(folder)
    label = f"Claude Code memory {source}"
    if snap.error:
        return ImportResult(source, "failed", warnings=[f"{label}: cannot list the folder ({snap.error}); "
                                                         "nothing imported from it"])
    result = ImportResult(source, "unchanged", files=len(snap.files),
                          warnings=[f"{label}: {safe_name(n, patterns)} not imported ({why})"
                                    for n, why in sorted(snap.unreadable.items())])
    result.branch, _, result.scope = resolve(folder.cwd)
    base = f"{PREFIX}/{_folder_dir(source)}"
    wanted = {f"{base}/{_file_path(f.name, patterns)}": redact.redact(f.text, patterns).encode("utf-8")
              for f in snap.files}
    kept = tuple(f"{base}/{_file_path(n, patterns)}" for n in snap.skipped)  # left as they were
    if not _changes(repo, repo.head(result.branch), base, wanted, kept):
        return result
    if _last_digest(repo, result.branch, source) == snap.digest:
        result.kind = "kept"
        return result
    before = repo.head(result.branch)
    for attempt in range(2):
        try:
            sha = repo.commit_with_retry(result.branch, lambda head: _build(
                repo, head, base, wanted, kept, result, snap.digest))
            result.sha = sha if sha != before else ""  # all that changed was refused: no commit
            break
        except SecretFound:  # redaction missed what the gate sees: those files stay as they were
            refused = _refused(wanted, patterns)
            if attempt or not refused:
                raise
            for path in refused:
                del wanted[path]
            kept += tuple(refused)
            result.warnings += [f"{label}: {path.removeprefix(base + '/')} not imported: it holds what looks like "
                                "a secret; remove the value and the next sync imports it" for path in refused]
    result.kind = "import" if result.sha else "unchanged"
    return result


def _build(repo, head, base, wanted, kept, result: ImportResult, digest: str):
    changes = _changes(repo, head, base, wanted, kept)
    current = set(repo.list(head, base)) if head else set()
    result.changes = [f"{'removed' if data is None else 'changed' if path in current else 'added'}: "
                      f"{path.removeprefix(base + '/')}" for path, data in sorted(changes.items())]
    message = format_message(KIND, result.scope, f"{AGENT_CLAUDE_CODE} memory ({result.files} files)",
                             body="\n".join(result.changes),
                             trailers=[("Memgit-Import", AGENT_CLAUDE_CODE), ("Memgit-Source", result.source),
                                       ("Memgit-Source-Sha256", digest)])
    return changes, message


def _changes(repo, rev: str | None, base: str, wanted: Mapping[str, bytes], kept: tuple[str, ...]) -> dict:
    """{path: content, or None to remove} that make the copy at rev what `wanted` says."""
    current = repo.blobs(rev, base) if rev else {}  # compared by id: no blob is read
    changes: dict[str, bytes | None] = {p: d for p, d in wanted.items() if current.get(p) != _blob_id(d)}
    for path in current:
        if path not in wanted and not any(path == k or k.endswith("/") and path.startswith(k) for k in kept):
            changes[path] = None
    return changes


def _last_digest(repo, branch: str, source: str) -> str | None:
    """The folder digest the newest import commit of `source` on `branch` recorded; None when none did."""
    for info in repo.walk(branch, limit=WALK_LIMIT):
        if not info.message.startswith(f"{KIND}("):
            continue
        trailers = parse_trailers(info.message)
        if trailers.get("Memgit-Import") == [AGENT_CLAUDE_CODE] and source in trailers.get("Memgit-Source", ()):
            return (trailers.get("Memgit-Source-Sha256") or [None])[0]
    return None


def _blob_id(data: bytes) -> str:
    """The id git gives a file's content (`git hash-object`)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _refused(wanted: Mapping[str, bytes], patterns) -> list[str]:
    return [p for p, data in wanted.items() if redact.find_secrets(data.decode("utf-8", "replace"), patterns)
            or redact.find_secrets(p, patterns)]


def _folder_dir(source: str) -> str:
    """A folder name fit for one path part, not read as an option: `-home-u-app` -> `home-u-app`."""
    return source.replace("/", "-").strip("-") or "root"


def _file_path(name: str, patterns) -> str:
    """A file's (or, ending in '/', a subfolder's) name under the copy, each part made safe."""
    path = "/".join(safe_name(part, patterns) for part in name.split("/") if part)
    return path + "/" if name.endswith("/") else path


# ---- double injection ------------------------------------------------------------------------


def session_start_installed(settings_path: Path) -> bool:
    """True when memgit's session-start hook is in this Claude Code settings file."""
    event = next(name for name, _, arg, _ in install.HOOKS if arg == "session-start")
    hooks = native_memory.read_settings(settings_path).get("hooks")  # a broken file: Claude Code runs no hook either
    groups = hooks.get(event) if isinstance(hooks, dict) else None
    for group in groups if isinstance(groups, list) else []:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        for handler in handlers if isinstance(handlers, list) else []:
            if install.is_memgit_handler(handler) and "session-start" in (
                    handler["command"] + " " + " ".join(map(str, handler.get("args") or []))):
                return True
    return False


def double_injection(cfg: Config, *, env: Mapping[str, str] | None = None,
                     home: Path | None = None) -> list[dict]:
    """The projects whose sessions are told their memory twice: Claude Code's MEMORY.md (auto memory on)
    and memgit's summary (its session-start hook installed); each with what to turn off."""
    env = os.environ if env is None else env
    settings = install.default_settings(cfg.claude_root)
    if not session_start_installed(settings):
        return []
    found = []
    for folder in native_memory.discover(cfg.claude_root, Path.home() if home is None else home):
        if not native_memory.has_index(folder):
            continue
        state = native_memory.auto_memory(env, settings, folder.cwd)
        if not state.on:
            continue
        found.append({
            "project_dir": safe_name(folder.source, cfg.extra_redact_patterns),
            "cwd": safe_text(folder.cwd) if folder.cwd else None,
            "auto_memory": safe_text(state.why),
            "advice": safe_text(f"keep one: {state.advice} (Claude Code stops reading and writing its memory; "
                                "memgit keeps what it imported), or run `memgit uninstall` (memgit stops injecting "
                                "its summary)"),
        })
    return found
