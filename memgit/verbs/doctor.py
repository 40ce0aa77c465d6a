"""`memgit doctor`: check memgit's setup and repository, each finding with its fix.

Each check is a small function returning a `Finding`; the judgements in them (a lock's age, the
free space, how two sets of branch heads relate) are pure functions, tested alone. Doctor runs on
a broken setup: a config file memgit refuses is the config check's failure and the other checks run
with the defaults; no repository is one failure; a check that breaks is reported, the rest still run.
"""

from __future__ import annotations

import os
import shlex
import shutil
import time
import tempfile
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from memgit import config
from memgit.config import Config
from memgit.errors import ConfigError, MemgitError, StorageError

OK, WARN, FAIL = "ok", "warn", "fail"
MB = 1 << 20
DISK_WARN_BELOW = 200 * MB  # free bytes: a memory repository needs megabytes, whatever the disk's size
DISK_FAIL_BELOW = 20 * MB  # too little for a sync's commits and the caches beside them
STALE_AFTER = 60.0  # seconds: git and memgit hold a lock file for milliseconds
MAX_DETAILS = 20


@dataclass(slots=True)
class Finding:
    """One check's verdict: what was found (one line), and the fix when it is not ok."""

    name: str
    status: str  # ok | warn | fail
    found: str
    fix: str = ""  # a command, or a sentence
    details: list[str] = field(default_factory=list)  # more lines: each project, message or file
    checked: bool = True  # False: skipped (nothing to check on this machine, or it could not be)


@dataclass(slots=True)
class Report:
    repo: str
    checks: list[Finding]
    fixed: list[str] = field(default_factory=list)  # what --fix removed

    @property
    def ok(self) -> bool:
        """No check failed (warnings allowed)."""
        return all(c.status != FAIL for c in self.checks)

    def as_dict(self) -> dict:
        return {"ok": self.ok, "repo": self.repo, "checks": [asdict(c) for c in self.checks], "fixed": self.fixed}


def run(env: Mapping[str, str], *, repo_path: str | None = None, fix: bool = False, now: float | None = None,
        disk_warn_below: int = DISK_WARN_BELOW, disk_fail_below: int = DISK_FAIL_BELOW) -> Report:
    """Run every check; never raises for what it finds (MEMGIT_DEBUG=1 re-raises a check that broke).

    Args:
        env: the environment (config file, agents' homes, MEMGIT_*).
        repo_path: the repository, as `--repo` names it.
        fix: remove stale lock files (the one repair doctor makes).
        disk_warn_below, disk_fail_below: free bytes under which the disk check warns or fails.
    """
    now = time.time() if now is None else now
    debug = bool(env.get("MEMGIT_DEBUG"))
    config_finding, cfg = check_config(env, repo_path)
    checks = [config_finding]
    fixed: list[str] = []

    def guarded(name: str, check: Callable[[], Finding | list[Finding]]) -> None:
        try:
            found = check()
        except Exception as e:  # noqa: BLE001 - a check that breaks is one finding; the others still run
            if debug:
                raise
            what = e.message if isinstance(e, MemgitError) else f"{type(e).__name__}: {e}"
            found = Finding(name, FAIL, f"the check could not run: {what}",
                            "fix what it names; `MEMGIT_DEBUG=1 memgit doctor` shows where it broke")
        checks.extend(found if isinstance(found, list) else [found])

    repo_finding = check_repository(cfg)
    checks.append(repo_finding)
    if repo_finding.status == OK:
        from memgit.store.repo import MemoryRepo

        guarded("fsck", lambda: check_fsck(cfg.repo_path))
        guarded("writable", lambda: check_writable(cfg.repo_path))
        guarded("locks", lambda: check_locks(cfg, now=now, fix=fix, fixed=fixed))
        guarded("secrets", lambda: _with_repo(MemoryRepo, cfg, check_secrets))
        guarded("remotes", lambda: _with_repo(MemoryRepo, cfg, check_remotes))
        guarded("sync failures", lambda: _with_repo(MemoryRepo, cfg, check_sync_failures))
    else:
        checks += [Finding(name, OK, "not checked: no repository", checked=False)
                   for name in ("fsck", "writable", "locks", "secrets", "remotes", "sync failures")]
    guarded("hooks", lambda: check_hooks(cfg, env))
    guarded("double injection", lambda: check_double_injection(cfg, env))
    guarded("disk space", lambda: check_disk(cfg.repo_path, warn_below=disk_warn_below, fail_below=disk_fail_below))
    return Report(str(cfg.repo_path), checks, fixed)


def _with_repo(repo_class, cfg: Config, check: Callable) -> Finding:
    with repo_class.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        return check(repo, cfg)


# ---- config and repository ---------------------------------------------------------------------


def check_config(env: Mapping[str, str], repo_path: str | None) -> tuple[Finding, Config]:
    """The config file and MEMGIT_* variables as memgit reads them; the defaults when it refuses them."""
    cfile = config.config_file(env)
    try:
        cfg = config.load(env, repo_path=repo_path)
    except ConfigError as e:
        return (Finding("config", FAIL, e.message, f"edit {cfile} (or the MEMGIT_* variable it names); "
                        "the other checks ran with the defaults"), _defaults(env, repo_path, cfile))
    found = f"{cfile}" if cfg.config_file else f"no config file at {cfile}: the defaults"
    return Finding("config", OK, found), cfg


def _defaults(env: Mapping[str, str], repo_path: str | None, cfile: Path) -> Config:
    """The configuration without the file memgit refused (and without MEMGIT_* values but the repo's path)."""
    plain = {k: v for k, v in env.items() if not k.startswith("MEMGIT_")}
    plain["MEMGIT_CONFIG"] = os.devnull  # not a regular file: read as no file at all
    return config.load(plain, repo_path=repo_path or env.get("MEMGIT_HOME") or _repo_path_in(cfile))


def _repo_path_in(cfile: Path) -> str | None:
    """`[repo] path` of a config file refused for another reason (a typo elsewhere), if it has one."""
    try:
        path = tomllib.loads(cfile.read_text(encoding="utf-8")).get("repo", {}).get("path")
    except (OSError, ValueError, AttributeError):
        return None
    return path if isinstance(path, str) else None


def check_repository(cfg: Config) -> Finding:
    from memgit.store.bootstrap import has_main

    if has_main(cfg.repo_path):
        return Finding("repository", OK, str(cfg.repo_path))
    return Finding("repository", FAIL, f"no memory repository at {cfg.repo_path}",
                   "memgit init (or, to restore a backup: memgit clone URL)")


# ---- the repository's health ------------------------------------------------------------------


def check_fsck(repo_path: Path) -> Finding:
    from memgit.store.fsck import fsck

    report = fsck(repo_path)
    if not report.problems:
        return Finding("fsck", OK, f"{report.tool}: no problem")
    return Finding("fsck", FAIL, f"{report.tool}: {report.problems[0]}",
                   f"restore from your remote: memgit clone URL (into a new path; then compare); "
                   f"details: git -C {repo_path} fsck --strict", details=list(report.problems[1:MAX_DETAILS]))


def is_stale(age: float, *, after: float = STALE_AFTER) -> bool:
    """A lock file this many seconds old was left by a process that died holding it."""
    return age > after


def lock_files(git_dir: Path) -> list[Path]:
    """git's lock files (`*.lock`) under .git: index, HEAD, refs, config, packed-refs, ...

    Not .git/memgit: memgit's own locks there are flocks, which the kernel drops when the holder dies.
    Not the loose object folders, which hold no lock and most of the files.
    """
    found = []
    for folder, subfolders, files in os.walk(git_dir):
        here = Path(folder)
        if here == git_dir:
            subfolders[:] = [s for s in subfolders if s != "memgit"]
        elif here == git_dir / "objects":
            subfolders[:] = [s for s in subfolders if len(s) != 2]
        found += [here / f for f in files if f.endswith(".lock")]
    return sorted(found)


def check_locks(cfg: Config, *, now: float, fix: bool, fixed: list[str]) -> Finding:
    from memgit.store import lock

    git_dir = cfg.repo_path / ".git"
    holder = lock.lock_holder(cfg.state_dir)
    running = f"a memgit sync is running (pid {holder or 'unknown'})" if holder is not None else ""
    stale = []
    for path in lock_files(git_dir):
        try:
            age = now - path.stat().st_mtime
        except FileNotFoundError:
            continue  # released while we looked
        if is_stale(age):
            stale.append((path, age))
    if stale and fix and not running:
        for path, _ in stale:
            path.unlink(missing_ok=True)
            fixed.append(str(path))
        return Finding("locks", OK, f"removed {len(stale)} stale lock file(s) (memgit doctor --fix)")
    if not stale:
        return Finding("locks", OK, running or "no stale lock")
    names = [f"{path.relative_to(cfg.repo_path)} ({age / 60:.0f} min old)" for path, age in stale]
    fix_text = ("wait for the sync to end, then memgit doctor --fix" if running else
                "memgit doctor --fix removes them (the one problem doctor repairs), or: rm "
                + " ".join(shlex.quote(str(p)) for p, _ in stale))
    return Finding("locks", WARN, f"{len(stale)} stale lock file(s) left by a killed process: {names[0]}"
                   + (f"; {running}" if running else ""), fix_text, details=names[1:MAX_DETAILS])


def check_secrets(repo, cfg: Config) -> Finding:
    from memgit.store import scan

    found = scan.scan(repo, cfg.extra_redact_patterns)
    if not found:
        return Finding("secrets", OK, "no secret in the history")
    return Finding("secrets", FAIL, f"{len(found)} possible secret(s): {found[0].describe()}",
                   "take them out of the history: `memgit purge` (`memgit scan` lists them all)",
                   details=[f.describe() for f in found[1:MAX_DETAILS]])


def check_sync_failures(repo, cfg: Config) -> Finding:
    from memgit.store import ledger_cache

    failed = ledger_cache.load(repo, cfg.state_dir).failed()
    if not failed:
        return Finding("sync failures", OK, "no session failed")
    reasons = [f"{session}: {entry.reason}" for session, entry in sorted(failed.items())]
    return Finding("sync failures", WARN, f"{len(failed)} session(s) failed to sync; {reasons[0]}",
                   "fix the cause (`memgit status` lists each reason), then memgit sync --retry-failed",
                   details=reasons[1:MAX_DETAILS])


# ---- remotes ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Drift:
    """How local branches stand against one remote's."""

    unpushed: list[str] = field(default_factory=list)  # local commits the remote lacks
    behind: list[str] = field(default_factory=list)  # remote commits this repository lacks (or both sides moved)


def compare_heads(local: Mapping[str, str], remote: Mapping[str, str], *, is_ancestor: Callable[[str, str], bool],
                  known: Callable[[str], bool]) -> Drift:
    """Compare {branch: sha} here and on a remote.

    Args:
        is_ancestor: (a, b) -> whether commit a is in b's history.
        known: whether this repository holds a commit.
    """
    drift = Drift()
    for branch in sorted(set(local) | set(remote)):
        mine, theirs = local.get(branch), remote.get(branch)
        if mine == theirs:
            continue
        if theirs is None:
            drift.unpushed.append(branch)
        elif mine is None or not known(theirs) or is_ancestor(mine, theirs):
            drift.behind.append(branch)
        elif is_ancestor(theirs, mine):
            drift.unpushed.append(branch)
        else:  # both moved: pull joins them, then push sends the join
            drift.behind.append(branch)
            drift.unpushed.append(branch)
    return drift


def judge_drift(name: str, drift: Drift, *, default: bool = True) -> Finding:
    """The remotes check's verdict for one remote (a remote other than the default is named in the fix)."""
    which = "" if default else f" {name}"
    if drift.behind and drift.unpushed:
        return Finding("remotes", WARN, f"{name}: {len(drift.behind)} branch(es) behind and {len(drift.unpushed)} "
                       f"not pushed: {', '.join(sorted(set(drift.behind + drift.unpushed)))}",
                       f"memgit pull{which} && memgit push{which}")
    if drift.behind:
        return Finding("remotes", WARN, f"{name}: {len(drift.behind)} branch(es) behind: {', '.join(drift.behind)}",
                       f"memgit pull{which}")
    if drift.unpushed:
        return Finding("remotes", WARN, f"{name}: {len(drift.unpushed)} branch(es) not pushed: "
                       f"{', '.join(drift.unpushed)}", f"memgit push{which}")
    return Finding("remotes", OK, f"{name}: up to date")


def check_remotes(repo, cfg: Config) -> list[Finding]:
    from memgit.errors import RemoteError
    from memgit.store.remote import describe_url, list_remotes, local_heads, ls_remote  # ls_remote: memgit branches only
    from memgit.verbs.team import doctor_check as team_check

    remotes = list_remotes(repo)
    if not remotes:
        return [Finding("remotes", OK, "no remote (backup: memgit remote add origin URL && memgit push)")]
    local = local_heads(repo)

    def known(sha: str) -> bool:
        return repo.resolve(sha) is not None

    teams = {n: found for n in sorted(remotes) if (found := team_check(repo, n))}  # only shared projects go there
    findings = [Finding("remotes", *found) for found in teams.values()]
    for name, url in sorted(r for r in remotes.items() if r[0] not in teams):
        try:
            heads = ls_remote(repo, name)
        except RemoteError as e:
            findings.append(Finding("remotes", FAIL, f"{name} ({describe_url(url)}) cannot be reached: {e.message}",
                                    "check the URL and the network (memgit remote lists them; memgit remote remove "
                                    f"{name} && memgit remote add {name} URL changes one)"))
            continue
        drift = compare_heads(local, heads, is_ancestor=repo.is_ancestor, known=known)
        findings.append(judge_drift(name, drift, default=name == cfg.remote))
    return findings


# ---- the agents -----------------------------------------------------------------------------------


def check_hooks(cfg: Config, env: Mapping[str, str]) -> list[Finding]:
    """For each agent on this machine: are memgit's hooks in its hooks file (as `memgit install` finds them)?"""
    from memgit.verbs.install import agents, files, hooks, memgit_command

    findings, command = [], memgit_command()
    for name, agent in agents.AGENTS.items():
        label = f"hooks {name}"
        home = agents.home(name, env, cfg.claude_root)
        if not home.is_dir():
            findings.append(Finding(label, OK, f"{agent.label} is not installed on this machine", checked=False))
            continue
        path = home / agent.hooks_file
        try:
            doc = hooks.parse(files.read_text(path) or "", str(path))
        except MemgitError as e:
            findings.append(Finding(label, FAIL, e.message, f"fix {path}, then memgit install --agent {name}"))
            continue
        missing = [h.event for h in agent.hooks if not hooks.ours(doc, h.event)]
        if missing or hooks.missing(doc, agent, command) is None:  # or all in, but not as this memgit writes them
            run = "`, `".join(hooks.commands(doc))
            found = (f"memgit's {', '.join(missing)} hook(s) missing from {path}" if 0 < len(missing) < len(agent.hooks)
                     else f"memgit's hooks are not in {path}: {agent.label} sessions get no memory and are not synced "
                     "when they end" if missing else f"memgit's hooks in {path} run `{run}`, not what this memgit "
                     f"installs (`{command} hook ...`: another install, or an older, slower form)")
            findings.append(Finding(label, WARN, found, f"memgit install --agent {name}"))
        else:
            findings.append(Finding(label, OK, f"memgit's hooks are in {path}"))
    return findings


def check_double_injection(cfg: Config, env: Mapping[str, str]) -> Finding:
    """Projects told their memory twice: Claude Code's auto memory and memgit's hook (as `memgit status` says)."""
    from memgit.verbs.import_memory import double_injection

    twice = double_injection(cfg, env=env, home=Path(env.get("HOME") or Path.home()))
    if not twice:
        return Finding("double injection", OK, "no project is told its memory twice")
    where = [f"{d['cwd'] or d['project_dir']}: Claude Code's auto memory is on ({d['auto_memory']})"
             if d["agent"] == "claude-code" else f"{d['agent']} loads {d['auto_memory']}" for d in twice]
    return Finding("double injection", WARN, f"{len(twice)} project(s) told their memory twice (an agent's own "
                   f"memory and memgit's summary); {where[0]}", twice[0]["advice"], details=where[1:MAX_DETAILS])


# ---- the disk ----------------------------------------------------------------------------------


def judge_space(free: int, *, warn_below: int = DISK_WARN_BELOW, fail_below: int = DISK_FAIL_BELOW) -> str:
    """ok, warn or fail for this many free bytes."""
    return FAIL if free < fail_below else WARN if free < warn_below else OK


def check_writable(repo_path: Path) -> Finding:
    """Can a sync write here: a file created and deleted in each folder a commit writes to."""
    git_dir = repo_path / ".git"
    for folder in (repo_path, git_dir, git_dir / "objects", git_dir / "refs" / "heads", git_dir / "memgit"):
        if not folder.is_dir() and folder.name == "memgit":
            continue  # made by the first sync that needs it
        try:
            with tempfile.NamedTemporaryFile(dir=folder, prefix=".memgit-doctor-"):
                pass
        except OSError as e:
            error = StorageError.from_os_error(e, doing="write in", path=folder)
            return Finding("writable", FAIL, f"a sync cannot write in {folder}: {e.strerror or e}",
                           error.message.split("; ", 1)[-1])
    return Finding("writable", OK, f"memgit can write in {repo_path}")


def check_disk(repo_path: Path, *, warn_below: int = DISK_WARN_BELOW, fail_below: int = DISK_FAIL_BELOW) -> Finding:
    where = repo_path
    while not where.exists() and where != where.parent:  # no repository yet: the disk it will be made on
        where = where.parent
    free = shutil.disk_usage(where).free
    status = judge_space(free, warn_below=warn_below, fail_below=fail_below)
    found = f"{free / MB:,.0f} MB free on the disk of {where}"
    if status == OK:
        return Finding("disk space", OK, found)
    return Finding("disk space", status, found + f" (under {(fail_below if status == FAIL else warn_below) / MB:,.0f} MB)",
                   "free some space on that disk (or move the repository: [repo] path, or MEMGIT_HOME)")
