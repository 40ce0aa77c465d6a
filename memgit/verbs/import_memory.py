"""`import` commits: the agents' own memory, versioned on their projects' branches.

Each agent that keeps notes for itself (Claude Code's auto memory folders, Codex's memories folder,
Gemini CLI's memory folders and GEMINI.md section: memgit.sources.memory_files) has them copied
under `imported/<agent>/<source>/` on the branch its project's sessions are filed on (a unit naming
no project: the global branch), as one `import(<scope>)` commit per unit whenever what is on disk
differs from the copy: new and changed files written, deleted ones removed. The agent owns its
files; memgit only keeps their history (an older build's cleanup could empty them), so a `git revert`
of an import commit stands until the files change again: the newest import commit of a unit records
the digest it read (`Memgit-Source-Sha256`), and a unit still at that digest is not copied again.

Also here: whether a session gets the same memory twice, from the agent's own memory and from
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
from memgit.core.model import AGENT_CLAUDE_CODE, AGENT_CODEX, AGENT_GEMINI
from memgit.core.names import safe_name, safe_text, stand_in
from memgit.errors import SecretFound
from memgit.sources import registry
from memgit.sources.claude_code import native_memory
from memgit.sources.memory_files import FolderMemory

log = logging.getLogger("memgit.verbs.import_memory")
KIND = "import"
PREFIX = "imported"
LABELS = {AGENT_CLAUDE_CODE: "Claude Code", AGENT_CODEX: "Codex", AGENT_GEMINI: "Gemini CLI"}
WALK_LIMIT = 20_000  # commits searched for a unit's last import (only when its copy differs from disk)
CACHE = "imports.json"  # under .git/memgit: each unit's file stamps and branch head when last found in step

# cwd (None when unknown) -> (branch, project name, scope label), as sync files a session there
Resolve = Callable[[str | None], tuple[str, str, str]]


@dataclass(slots=True)
class ImportResult:
    """What became of one agent's memory unit (a folder, or the part of one a project owns)."""

    source: str  # the unit's name, as memgit may write it
    kind: str  # import (committed) | unchanged | kept (a person's revert or edit of the copy stands) | failed
    branch: str = ""
    scope: str = ""
    files: int = 0  # in the unit (read)
    changes: list[str] = field(default_factory=list)  # "added: MEMORY.md", "removed: old.md"...
    sha: str = ""
    warnings: list[str] = field(default_factory=list)
    agent: str = AGENT_CLAUDE_CODE


def import_native_memory(repo, cfg: Config, resolve: Resolve, *, home: Path | None = None,
                         agents: tuple[str, ...] | None = None) -> list[ImportResult]:
    """Commit each agent memory unit that changed onto its project's branch.

    Args:
        repo: an open MemoryRepo (its gate refuses any secret left after redaction).
        resolve: a cwd's branch, project and scope; it may create the project's branch (sync's own).
        agents: whose memory to import (default: every agent the configuration reads).

    Returns:
        One result per unit found, in the registry's order of agents.

    Raises:
        MemgitError: writing failed (the caller decides whether that fails its run).
    """
    home = Path.home() if home is None else home
    agents = registry.agents(cfg) if agents is None else agents
    cache_path = cfg.state_dir / CACHE
    try:  # derived: without it every unit is read and compared, nothing else changes
        cache = json.loads(cache_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        cache = {}
    cache = cache if isinstance(cache, dict) else {}
    results = []
    fresh = {k: v for k, v in cache.items() if k.partition("/")[0] not in agents}  # other agents' entries stay
    for agent in agents:
        for n, unit in enumerate(_merged(registry.own_memory(agent, cfg, home), resolve)):
            stamp = unit.stamp()
            # Keyed by a hash of the name (the cache is scanned for secrets too): a sync that finds every unit
            # as it was never checks a name for secrets (that compiles every rule: ~0.1 s of a no-op sync).
            key = f"{agent}/{stand_in(unit.source)}/{n}"
            result = _cached(repo, cache.get(key), stamp) or _import(repo, cfg, resolve, unit)
            result.agent = agent
            results.append(result)
            if stamp and result.kind != "failed" and not result.warnings:  # a warning is said again next time
                fresh[key] = {"stamp": stamp, "source": result.source, "branch": result.branch, "scope": result.scope,
                              "files": result.files, "head": repo.head(result.branch)}
    if fresh != cache:
        try:
            cache_path.write_text(json.dumps(fresh), encoding="utf-8")
        except OSError:
            log.warning("cannot write %s: the next sync reads every memory unit again", cache_path)
    return results


def _merged(units: list, resolve: Resolve) -> list:
    """The units, those of one agent's folder that land on one branch made one (two projects of one
    repository share a branch: two units there would each remove the other's files)."""
    groups: dict[tuple, list] = {}
    for unit in units:
        groups.setdefault((unit.source, getattr(unit, "path", None)), []).append(unit)
    merged = []
    for group in groups.values():
        if len(group) == 1 or not all(isinstance(u, FolderMemory) for u in group):
            merged += group
            continue
        by_branch: dict[str, list[FolderMemory]] = {}
        for unit in group:
            by_branch.setdefault(resolve(unit.cwd)[0], []).append(unit)
        for same in by_branch.values():
            first = same[0]
            merged.append(first if len(same) == 1 else FolderMemory(
                first.agent, first.source, first.path, first.cwd,
                keep=lambda name, same=same: any(u.keep is None or u.keep(name) for u in same)))
    return merged


def _cached(repo, known, stamp: str | None) -> ImportResult | None:
    """The folder's result when neither its files nor its branch moved since the cache was written."""
    if not stamp or not isinstance(known, dict) or known.get("stamp") != stamp:
        return None
    source, branch, scope, files = known.get("source"), known.get("branch"), known.get("scope"), known.get("files")
    if not (isinstance(source, str) and isinstance(branch, str) and isinstance(scope, str) and isinstance(files, int)):
        return None  # a cache written by someone else (or an older memgit): read the folder
    if repo.head(branch) != known.get("head"):  # a branch gone has no head
        return None
    return ImportResult(source, "unchanged", branch, scope, files)


def for_sync(repo, cfg: Config, resolve: Resolve) -> tuple[list[ImportResult], list[str]]:
    """import_native_memory as sync runs it, agent by agent: a failure is logged and becomes a warning,
    never the sync's, and never another agent's."""
    results, warnings = [], []
    for agent in registry.agents(cfg):
        try:
            results += import_native_memory(repo, cfg, resolve, agents=(agent,))
        except Exception as e:  # the sessions matter more than a copy of an agent's notes
            if os.environ.get("MEMGIT_DEBUG"):
                raise
            log.error("importing %s's memory failed:\n%s", LABELS[agent],
                      "".join(traceback.format_exception(type(e), e, e.__traceback__)))
            warnings.append(safe_text(f"{LABELS[agent]}'s memory was not imported: "
                                      f"{getattr(e, 'message', None) or e!r} "
                                      "(details in .git/memgit/sync.log; the next sync tries again)"))
    return results, warnings + [w for r in results for w in r.warnings]


def _import(repo, cfg: Config, resolve: Resolve, folder) -> ImportResult:
    patterns = cfg.extra_redact_patterns
    source = safe_name(folder.source, patterns)
    snap = folder.read()
    label = f"{LABELS[folder.agent]} memory {source}"
    if snap.error:
        return ImportResult(source, "failed", warnings=[f"{label}: cannot list the folder ({snap.error}); "
                                                         "nothing imported from it"])
    result = ImportResult(source, "unchanged", files=len(snap.files),
                          warnings=[f"{label}: {safe_name(n, patterns)} not imported ({why})"
                                    for n, why in sorted(snap.unreadable.items())])
    result.branch, _, result.scope = resolve(folder.cwd)
    base = f"{PREFIX}/{folder.agent}/{_folder_dir(source)}"
    wanted = {f"{base}/{_file_path(f.name, patterns)}": redact.redact(f.text, patterns).encode("utf-8")
              for f in snap.files}
    kept = tuple(f"{base}/{_file_path(n, patterns)}" for n in snap.skipped)  # left as they were
    if not _changes(repo, repo.head(result.branch), base, wanted, kept):
        return result
    if _last_digest(repo, result.branch, source, folder.agent) == snap.digest:
        result.kind = "kept"
        return result
    before = repo.head(result.branch)
    for attempt in range(2):
        try:
            sha = repo.commit_with_retry(result.branch, lambda head: _build(
                repo, head, base, wanted, kept, result, snap.digest, folder.agent))
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


def _build(repo, head, base, wanted, kept, result: ImportResult, digest: str, agent: str):
    changes = _changes(repo, head, base, wanted, kept)
    current = set(repo.list(head, base)) if head else set()
    result.changes = [f"{'removed' if data is None else 'changed' if path in current else 'added'}: "
                      f"{path.removeprefix(base + '/')}" for path, data in sorted(changes.items())]
    message = format_message(KIND, result.scope, f"{agent} memory ({result.files} files)",
                             body="\n".join(result.changes),
                             trailers=[("Memgit-Import", agent), ("Memgit-Source", result.source),
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


def _last_digest(repo, branch: str, source: str, agent: str) -> str | None:
    """The digest the newest import commit of `agent`'s `source` on `branch` recorded; None when none did."""
    for info in repo.walk(branch, limit=WALK_LIMIT):
        if not info.message.startswith(f"{KIND}("):
            continue
        trailers = parse_trailers(info.message)
        if trailers.get("Memgit-Import") == [agent] and source in trailers.get("Memgit-Source", ()):
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
    from memgit.verbs import install  # the install verb is heavy: not on every sync's path

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
    """Where sessions are told their memory twice: an agent's own memory (Claude Code's MEMORY.md with
    auto memory on, Codex's memory summary, Gemini CLI's memory files) and memgit's summary (its
    session-start hook installed for that agent); each with what to turn off."""
    env = os.environ if env is None else env
    return _claude_twice(cfg, env, home) + _others_twice(cfg)


def _others_twice(cfg: Config) -> list[dict]:
    """Codex and Gemini CLI: each place their own memory is loaded from, when memgit's hook injects too."""
    from memgit.sources.codex import native_memory as codex_memory
    from memgit.sources.gemini import native_memory as gemini_memory
    from memgit.verbs.install.agents import AGENTS, CODEX, GEMINI

    rows = ((AGENT_CODEX, CODEX, cfg.codex_root, codex_memory.injected,
             "turn Codex's memories off ([memories] use_memories = false in its config.toml)"),
            (AGENT_GEMINI, GEMINI, cfg.gemini_root, gemini_memory.injected,
             "remove the entries from Gemini CLI's memory files (it loads them into every session)"))
    found = []
    for agent, name, root, places, advice in rows:
        if agent not in cfg.agents or not _session_start_in(root / AGENTS[name].hooks_file):
            continue
        found += [{"agent": agent, "project_dir": "", "cwd": None, "auto_memory": safe_text(where),
                   "advice": safe_text(f"keep one: {advice} (memgit keeps what it imported), or run "
                                       f"`memgit uninstall --agent {name}` (memgit stops injecting its summary)")}
                  for where in places(root)]
    return found


def _session_start_in(path: Path) -> bool:
    """True when an agent's hooks file runs memgit's session-start hook."""
    from memgit.verbs import install  # the install verb is heavy: not on every sync's path

    hooks = native_memory.read_settings(path).get("hooks")  # a broken file: the agent runs no hook either
    groups = hooks.get("SessionStart") if isinstance(hooks, dict) else None
    return any(install.is_memgit_handler(h) and "session-start" in h["command"]
               for g in (groups if isinstance(groups, list) else []) if isinstance(g, dict)
               for h in (g.get("hooks") if isinstance(g.get("hooks"), list) else []))


def _claude_twice(cfg: Config, env: Mapping[str, str], home: Path | None) -> list[dict]:
    from memgit.verbs import install  # the install verb is heavy: not on every sync's path

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
            "agent": AGENT_CLAUDE_CODE,
            "project_dir": safe_name(folder.source, cfg.extra_redact_patterns),
            "cwd": safe_text(folder.cwd) if folder.cwd else None,
            "auto_memory": safe_text(state.why),
            "advice": safe_text(f"keep one: {state.advice} (Claude Code stops reading and writing its memory; "
                                "memgit keeps what it imported), or run `memgit uninstall` (memgit stops injecting "
                                "its summary)"),
        })
    return found
