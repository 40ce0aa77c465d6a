"""`memgit install` / `uninstall`: wire memgit into Claude Code, Codex and Gemini CLI, and take it out again.

For each agent (memgit.verbs.install.agents), by its documented mechanism: memgit's hook entries in
its hooks file (session start -> `memgit hook session-start`, the context; each prompt ->
`memgit hook user-prompt-submit`, what memory holds on it; session end and compaction -> a
background sync), added as text so every other byte stays (files.py), the repository's skills
published into its skills folder, namespaced `memgit-<scope>-<name>` (skills.py), and memgit's MCP
server (`memgit mcp`) registered in its MCP config when the `mcp` extra is installed (mcp_config.py).
What was added is recorded (manifest.py) so that uninstall gives every file back byte for byte.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from memgit.errors import ConfigError, MemgitError
from memgit.verbs.install import agents as agents_mod
from memgit.verbs.install import manifest, mcp_config, skills
from memgit.verbs.install.agents import AGENTS, CLAUDE_CODE, CODEX
from memgit.verbs.install.files import SettingsChange, install_file, uninstall_file
from memgit.verbs.install.hooks import is_memgit_handler
from memgit.verbs.install.repo import describe_repo, purge

log = logging.getLogger("memgit.verbs.install")
HOOKS = tuple((h.event, h.matcher, h.arg, h.timeout) for h in AGENTS[CLAUDE_CODE].hooks)

__all__ = ["HOOKS", "InstallReport", "SettingsChange", "default_settings", "describe_repo", "install",
           "install_agents", "is_memgit_handler", "memgit_command", "memgit_group", "publish_skills", "purge",
           "uninstall", "uninstall_agents"]


@dataclass(slots=True)
class InstallReport:
    """What install or uninstall did for each agent: its hooks file, its skills folder, what to know."""

    action: str
    dry_run: bool = False
    files: list[SettingsChange] = field(default_factory=list)
    skills: dict[str, list[str]] = field(default_factory=dict)  # agent -> changes in its skills folder
    warnings: list[str] = field(default_factory=list)
    mcp: list[SettingsChange] = field(default_factory=list)  # each agent's MCP config

    @property
    def changed(self) -> bool:
        return any(f.changed for f in self.files + self.mcp) or any(self.skills.values())

    def as_dict(self) -> dict:
        return {"action": self.action, "dry_run": self.dry_run, "changed": self.changed,
                "agents": [f.as_dict() for f in self.files], "skills": self.skills,
                "mcp": [f.as_dict() for f in self.mcp], "warnings": self.warnings}


# The hooks' launcher (memgit/hook/memgit): the console script's work without the `import re` of pip's wrapper,
# run with -S (site set up only when an import needs it).
LAUNCHER = Path(__file__).resolve().parent.parent.parent / "hook" / "memgit"


def memgit_command() -> str:
    """How a hook calls memgit: this interpreter running memgit's hook launcher, without site (-S); without
    the launcher (a build that lacks the file), this environment's console script, else `python -m memgit.entry`."""
    if LAUNCHER.is_file():
        return f"{shlex.quote(sys.executable)} -S {shlex.quote(str(LAUNCHER))}"
    return " ".join(map(shlex.quote, memgit_argv()))


def memgit_argv() -> list[str]:
    """memgit's own command as a list (the MCP configs take it unquoted): the console script, or python -m."""
    beside = Path(sys.executable).with_name("memgit")  # the console script of this very install
    found = str(beside) if beside.is_file() and os.access(beside, os.X_OK) else shutil.which("memgit")
    if found:
        return [os.path.abspath(found)]
    return [sys.executable, "-m", "memgit.entry"]


def default_settings(claude_root: Path) -> Path:
    return claude_root / AGENTS[CLAUDE_CODE].hooks_file


def memgit_group(event: str, command: str, agent: str = CLAUDE_CODE) -> dict:
    """The matcher group memgit adds to one event's list."""
    spec = AGENTS[agent]
    for hook in spec.hooks:
        if hook.event == event:
            return spec.group(command, hook)
    raise ValueError(f"memgit installs no {event} hook for {spec.label}")


def choose(names: Sequence[str], env: Mapping[str, str], claude_root: Path | None) -> list[str]:
    """The agents named (aliases resolved), else every agent found on this machine.

    Raises:
        ConfigError: an unknown name, or none named and none found.
    """
    if not names:
        found = agents_mod.found(env, claude_root)
        if not found:
            raise ConfigError("no coding agent found (~/.claude, ~/.codex, ~/.gemini); name one with --agent "
                              f"({', '.join(AGENTS)})")
        return found
    chosen = []
    for name in names:
        try:
            chosen.append(agents_mod.resolve(name).name)
        except KeyError:
            raise ConfigError(f"unknown agent {name!r}; memgit knows {', '.join(AGENTS)}") from None
    return list(dict.fromkeys(chosen))


def install_agents(cfg, names: Sequence[str] = (), *, settings: Path | None = None, dry_run: bool = False,
                   env: Mapping[str, str] | None = None, command: str | None = None,
                   now: float | None = None, mcp: bool | None = None) -> InstallReport:
    """Wire memgit into each agent named (default: each found): its hooks, its skills folder, its MCP config.

    Args:
        cfg: memgit.config.Config (the repository whose skills are published, Claude Code's folder).
        names: agents, as `--agent` takes them.
        settings: another Claude Code settings file than the default one (alone, it means Claude Code only).
        mcp: register memgit's MCP server; None: when the `mcp` extra is installed.

    Raises:
        ConfigError: an unknown agent, none found, a hooks file memgit cannot read as the agent does, or
            `mcp` asked for without the extra.
        MemgitError: a file cannot be written.
    """
    env = os.environ if env is None else env
    now = time.time() if now is None else now
    command = command or memgit_command()
    report = InstallReport("install", dry_run)
    if "-m" in memgit_argv():  # the hooks need no console script; a person and the skills do
        report.warnings.append(f"no `memgit` executable found: the hooks run `{command} hook ...`; "
                               "`pip install` memgit to put it on PATH")
    state = manifest.load(env)
    if settings is not None and not names:
        names = [CLAUDE_CODE]  # a Claude Code settings file was named: that agent alone
    has_extra = mcp_config.extra_installed()
    if mcp and not has_extra:
        raise ConfigError(f"memgit's MCP server needs its extra: {mcp_config.EXTRA}, then install again")
    if mcp is None and not has_extra and not state["mcp"]:
        report.warnings.append(f"memgit's MCP server is not registered (optional): {mcp_config.EXTRA}, then "
                               "`memgit install` again; the memgit-recall skill works without it")
    for name in choose(names, env, cfg.claude_root):
        agent = AGENTS[name]
        path = _hooks_path(name, env, cfg, settings)
        change, record = install_file(path, agent, command, state["files"].get(manifest.key(path)),
                                      dry_run=dry_run, now=now)
        report.files.append(change)
        if record is not None:
            state["files"][manifest.key(path)] = record
        folder = agents_mod.skills_dir(name, env, cfg.claude_root)
        entry = state["skills"].setdefault(name, {"dir": str(folder), "published": {}})
        if "created" not in entry and not dry_run:  # uninstall takes out the folders memgit made, and only those
            entry["created"] = str(skills.first_missing(folder) or "")
        report.warnings += change.warnings + _notes(name, env)
        if mcp if mcp is not None else has_extra:
            _register(report, state, name, env, cfg, dry_run=dry_run, now=now)
    if not dry_run:
        manifest.save(env, state)
        publish_skills(None, cfg, env=env, report=report, force=True)
    return report


def uninstall_agents(cfg, names: Sequence[str] = (), *, settings: Path | None = None, dry_run: bool = False,
                     env: Mapping[str, str] | None = None, now: float | None = None) -> InstallReport:
    """Take memgit out of each agent named (default: each it is in, or found): hooks back, skills removed.

    Raises:
        ConfigError: an unknown agent, or a hooks file memgit must parse and cannot.
        MemgitError: a file cannot be written or deleted.
    """
    env = os.environ if env is None else env
    now = time.time() if now is None else now
    state = manifest.load(env)
    report = InstallReport("uninstall", dry_run)
    if settings is not None and not names:
        names = [CLAUDE_CODE]  # a Claude Code settings file was named: that agent alone
    if names:
        chosen = choose(names, env, cfg.claude_root)
    else:
        recorded = {r.get("agent") for r in [*state["files"].values(), *state["mcp"].values()]} | set(state["skills"])
        chosen = [n for n in AGENTS if n in recorded or n in agents_mod.found(env, cfg.claude_root)]
    for name in chosen:
        _unregister(report, state, name, env, cfg, dry_run=dry_run, now=now)  # first: Gemini's file holds both
        path = _hooks_path(name, env, cfg, settings)
        change = uninstall_file(path, state["files"].get(manifest.key(path)), dry_run=dry_run, now=now, agent=name)
        report.files.append(change)
        report.warnings += change.warnings
        if not dry_run:
            state["files"].pop(manifest.key(path), None)
        entry = state["skills"].get(name)
        if entry:
            changes = []
            for skill, record in sorted(entry["published"].items()):
                c, w = (([f"would remove {Path(entry['dir']) / skill}"], []) if dry_run
                        else skills.remove_one(Path(entry["dir"]), skill, record))
                changes += c
                report.warnings += w
            if not dry_run:
                changes += skills.remove_created(Path(entry["dir"]), entry.get("created"))
            report.skills[name] = changes
            if not dry_run:
                del state["skills"][name]
    if not dry_run:
        manifest.save(env, state)
    return report


def publish_skills(repo, cfg, *, env: Mapping[str, str] | None = None, report: InstallReport | None = None,
                   force: bool = False) -> None:
    """Copy memgit's own skills and the repository's into the skills folder of every agent memgit is installed into.

    Called after each sync that moved a branch, and by install. Cheap when nothing changed (the
    skills trees' ids are compared with the last run's). Never raises: the memory is safe in the
    repository, and a folder that cannot be written is logged (and reported to install).

    Args:
        repo: an open memgit.store.repo.MemoryRepo, or None to open cfg's (memgit's own skills alone without one).
        cfg: memgit.config.Config.
    """
    env = os.environ if env is None else env
    try:
        state = manifest.load(env)
        if not state["skills"]:
            return
        if repo is None and (cfg.repo_path / ".git").is_dir():
            from memgit.store.repo import MemoryRepo

            with MemoryRepo.open(cfg.repo_path, author=cfg.author) as opened:
                return publish_skills(opened, cfg, env=env, report=report, force=force)
        trees = {b: repo.tree_id(h, "skills") for b, h in repo.branches().items()} if repo is not None else {}
        if not force and state.get("trees") == trees:
            return
        wanted, warnings = (skills.collect(repo, extra_patterns=cfg.extra_redact_patterns, allow=cfg.redact_allow)
                            if repo is not None else ({}, []))
        wanted.update(skills.shipped())  # memgit's own names win over a scope's skill that runs into them
        for name, entry in sorted(state["skills"].items()):
            changes, more = skills.sync_folder(Path(entry["dir"]), entry["published"], wanted)
            warnings += more
            if report is not None:
                report.skills[name] = changes
        state["trees"] = trees
        manifest.save(env, state)
    except Exception as e:  # noqa: BLE001 - publishing is a copy; it must not fail the sync that called it
        log.warning("cannot publish the skills to the agents: %s", e)
        warnings = [f"cannot publish the skills: {e}"]
    for warning in warnings:
        log.info(warning)
    if report is not None:
        report.warnings += warnings


def _register(report: InstallReport, state: dict, name: str, env: Mapping[str, str], cfg, *, dry_run: bool,
              now: float) -> None:
    """Register memgit's MCP server with one agent; a file memgit cannot change is a warning (the hooks stay)."""
    path = mcp_config.config_path(name, env, cfg.claude_root)
    try:
        change, record = mcp_config.register(name, path, memgit_argv() + ["mcp"], state["mcp"].get(manifest.key(path)),
                                             dry_run=dry_run, now=now)
    except MemgitError as e:
        report.warnings.append(f"memgit's MCP server was not registered for {AGENTS[name].label}: {e.message}")
        return
    report.mcp.append(change)
    report.warnings += change.warnings
    if record is not None and not dry_run:
        state["mcp"][manifest.key(path)] = record


def _unregister(report: InstallReport, state: dict, name: str, env: Mapping[str, str], cfg, *, dry_run: bool,
                now: float) -> None:
    path = mcp_config.config_path(name, env, cfg.claude_root)
    try:
        change = mcp_config.unregister(name, path, state["mcp"].get(manifest.key(path)), dry_run=dry_run, now=now)
    except MemgitError as e:
        report.warnings.append(f"memgit's MCP server was not taken out for {AGENTS[name].label}: {e.message}")
        return
    if change.changed:
        report.mcp.append(change)
    report.warnings += change.warnings
    if not dry_run:
        state["mcp"].pop(manifest.key(path), None)


def _hooks_path(name: str, env: Mapping[str, str], cfg, settings: Path | None) -> Path:
    if settings is not None and name == CLAUDE_CODE:
        return settings
    return agents_mod.home(name, env, cfg.claude_root) / AGENTS[name].hooks_file


def _notes(name: str, env: Mapping[str, str]) -> list[str]:
    """What a person must still do for the hooks to run."""
    if name != CODEX:
        return []
    events = [h.event for h in AGENTS[CODEX].hooks]  # every hook install adds, so none is left untrusted
    notes = ["Codex runs a new or changed hook only once you trust it: open /hooks in Codex and trust "
             f"memgit's {', '.join(events[:-1])} and {events[-1]} hooks"]
    config = agents_mod.home(CODEX, env) / "config.toml"
    try:
        import tomllib

        features = tomllib.loads(config.read_text(encoding="utf-8")).get("features", {})
    except (OSError, ValueError):
        features = {}
    if isinstance(features, dict) and False in (features.get("hooks"), features.get("codex_hooks")):
        notes.append(f"hooks are turned off in {config} ([features] hooks = false): memgit's hooks will not run")
    return notes


# ---- one Claude Code settings file (`memgit install --settings PATH`, and the Python callers) ----------


def install(path: Path, *, dry_run: bool = False, command: str | None = None, now: float | None = None,
            env: Mapping[str, str] | None = None) -> SettingsChange:
    """Add memgit's hooks to one Claude Code settings file.

    Raises:
        ConfigError: the file is not valid JSON, or its hooks are not of the expected shape.
        MemgitError: the file cannot be written.
    """
    env = os.environ if env is None else env
    state = manifest.load(env)
    change, record = install_file(path, AGENTS[CLAUDE_CODE], command or memgit_command(),
                                  state["files"].get(manifest.key(path)), dry_run=dry_run,
                                  now=time.time() if now is None else now)
    if record is not None and not dry_run:
        state["files"][manifest.key(path)] = record
        manifest.save(env, state)
    return change


def uninstall(path: Path, *, dry_run: bool = False, now: float | None = None,
              env: Mapping[str, str] | None = None) -> SettingsChange:
    """Remove memgit's hooks (and only them) from one Claude Code settings file.

    Raises:
        ConfigError: memgit's entries must be parsed out and the file is not valid JSON.
        MemgitError: the file cannot be written.
    """
    env = os.environ if env is None else env
    state = manifest.load(env)
    change = uninstall_file(path, state["files"].get(manifest.key(path)), dry_run=dry_run,
                            now=time.time() if now is None else now)
    if not dry_run and state["files"].pop(manifest.key(path), None) is not None:
        manifest.save(env, state)
    return change

