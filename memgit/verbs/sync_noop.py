"""A sync with nothing new, answered without the pipeline (issue 20: <= 10x `python -c pass`).

A plain `memgit sync` depends on: the configuration, memgit's own code, the refs of the memory
repository (its ledger and every cache are derived from them), the agents' session files as
discovery lists them (names, sizes, mtimes), the agents' own memory folders (their
memgit.sources.memory_files stamps), and the clock (a session not read to its end becomes idle,
or leaves the age window). When a run of the whole pipeline finds nothing to do and has nothing
else to say, it records those inputs in `.git/memgit/noop.json` (`record`); the next plain run
lists the same folders with the same discovery code, and when every input is as recorded it gives
the same answer (`answer`) without importing git, YAML, redaction or the CLI. Any difference, a
held lock, or a moment recorded as the next change passed: None, and the full run decides.

Derived like every file under .git/memgit: deleting it costs the next sync its full run.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from memgit import __version__
from memgit.sources import registry
from memgit.sources.files import Listing
from memgit.store import context_cache
from memgit.verbs.sync_result import SyncResult

FILE = "noop.json"
FORMAT = 1  # what a no-op sync depends on, as recorded here: a change of it makes old records useless


def cheap_inputs(cfg, refs: dict[str, str]) -> dict:
    """What a plain sync reads that is known without listing a folder: compared first."""
    return {"format": FORMAT, "code": code(), "config": _digest([repr(cfg)]), "refs": refs}


def inputs(cfg, listing: Listing, refs: dict[str, str], *, home: Path | None = None,
           cheap: dict | None = None) -> dict | None:
    """Digests of what a plain sync reads, as they are now (`cheap`: cheap_inputs, when the caller has
    them); None when they cannot tell a change (a folder that cannot be listed, a memory folder
    without a stamp): then every run is a full one."""
    try:
        units = _units(cfg, Path.home() if home is None else home)
    except Exception:  # noqa: BLE001 - no record while they cannot be listed; the sync's import says why (a warning)
        return None
    if listing.unreadable or units is None:
        return None
    return {**(cheap or cheap_inputs(cfg, refs)),
            "files": _digest((f.agent, f.session_id, str(f.path), f.project_dir, f.size, f.mtime, f.whole)
                             for f in listing.files),
            "units": units}


def record(cfg, witness: dict | None, result: SyncResult, *, now: float, until: float) -> bool:
    """Remember `result` as the answer while the inputs stay `witness` and the clock before `until`;
    only a run that did nothing and has nothing to say but what `answer` says again. Returns whether
    it was recorded (a failure to write only costs the next run its full run)."""
    quiet = not (result.results or result.commits or result.warnings or result.kept or result.unreadable
                 or result.consolidated or result.consolidation_error or result.joined or result.secrets
                 or any(r.sha or r.warnings for r in result.imported))
    path = os.path.join(str(cfg.state_dir), FILE)
    if witness is None or not quiet:
        _forget(path)
        return False
    problems: list[str] = []
    context_cache.write_json(path, {
        "inputs": witness, "since": now, "until": None if until == float("inf") else until,
        "extractor": result.extractor, "too_old": result.too_old, "looked_in": result.looked_in}, problems)
    return not problems


def answer(cfg, *, now: float) -> SyncResult | None:
    """What a full plain sync would say now, when it would do nothing; None when it may do something.

    Raises:
        OSError, ValueError, MemgitError: whatever listing the folders raises (the caller runs the
            full sync, which reports it its own way).
    """
    if cfg.auto_pull or cfg.auto_push:
        return None  # a pull or a push is never answered from a record
    from memgit.core import quickjson
    from memgit.errors import LockHeld
    from memgit.store.lock import sync_lock

    state = str(cfg.state_dir)
    try:
        known = quickjson.load_file(os.path.join(state, FILE))
    except (OSError, ValueError):
        return None
    if not (isinstance(known, dict) and isinstance(known.get("inputs"), dict)
            and isinstance(known.get("since"), (int, float)) and known["since"] <= now
            and (known.get("until") is None or now < known["until"])):
        return None
    try:
        with sync_lock(state, wait=False):  # nothing moves while it is compared; a running sync: the full run waits
            expected = known["inputs"]
            refs = context_cache.read_refs(os.path.join(str(cfg.repo_path), ".git"))
            cheap = cheap_inputs(cfg, refs)
            if any(expected.get(key) != value for key, value in cheap.items()):
                return None  # the cheap ones first
            if inputs(cfg, registry.scan(cfg), refs, cheap=cheap) != expected:
                return None
    except LockHeld:
        return None
    return SyncResult(str(cfg.repo_path), extractor=str(known.get("extractor", "")),
                      too_old=int(known.get("too_old", 0)), max_age_days=cfg.max_age_days,
                      looked_in=list(known.get("looked_in") or []))


def code() -> str:
    """memgit's version and its modules' sizes and mtimes: an upgrade or an edit of an editable install
    (a new index schema, a new cache format: work a sync with nothing new still does) ends the record.
    Stat of ~230 files: under 2 ms."""
    h = hashlib.sha256(__version__.encode())
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the memgit package
    stack = [root]
    while stack:
        with os.scandir(stack.pop()) as found:
            for entry in sorted(found, key=lambda e: e.name):
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append(entry.path)
                elif entry.name.endswith(".py"):
                    st = entry.stat()
                    h.update(f"{entry.path[len(root):]}\0{st.st_size}\0{st.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _units(cfg, home: Path) -> str | None:
    """A digest of every agent's own memory units (what sync imports) and their stamps; None when one has none."""
    h = hashlib.sha256(str(home).encode("utf-8", "surrogateescape"))
    for agent in registry.agents(cfg):
        for unit in registry.own_memory(agent, cfg, home):
            stamp = unit.stamp()
            if stamp is None:
                return None
            h.update(repr((agent, type(unit).__name__, unit.source, str(getattr(unit, "path", "")),
                           getattr(unit, "project", None), stamp)).encode("utf-8", "surrogateescape"))
    return h.hexdigest()


def _digest(values) -> str:
    h = hashlib.sha256()
    for value in values:
        h.update(repr(value).encode("utf-8", "surrogateescape") + b"\n")
    return h.hexdigest()


def _forget(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass  # none, or a read-only disk: its inputs no longer match anyway
