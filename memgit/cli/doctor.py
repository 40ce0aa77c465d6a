"""`memgit doctor`: every check on one line, the fix under each problem; `memgit gc`: the repository packed.

gc is its own command, not `doctor --fix`: doctor reports and repairs only what a crash leaves (lock
files); packing rewrites the object store, takes the sync lock and may take a while, as `git gc` does."""

from __future__ import annotations

import os
import sys

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option

MARKS = {"ok": "✓", "warn": "!", "fail": "✗"}
FAILED_EXIT = 1  # a check failed; warnings alone exit 0


@cli.command()
@click.option("--fix", is_flag=True, help="Remove stale lock files (the one problem doctor repairs itself).")
@repo_option
@json_option
def doctor(fix, repo_path, as_json) -> None:
    """Check memgit's setup and repository, and say how to fix each problem.

    \b
    Checks: the config file (unknown keys, bad values); the repository is there; `git fsck`
    (dulwich reads every object when git is not installed); lock files a killed process left;
    secrets in the history; each remote reachable and up to date; sessions that failed to sync;
    memgit's hooks in each agent found; memory told twice (Claude Code's auto memory and memgit's
    hook); free disk space (warns under 200 MB, fails under 20 MB).
    Runs on a broken setup too. Exits 1 when a check fails, 0 when all pass or only warn.

    Example: memgit doctor --json
    """
    from memgit.verbs import doctor as verb

    report = verb.run(os.environ, repo_path=repo_path, fix=fix)
    emit(as_json, report.as_dict(), render(report))
    if not report.ok:
        sys.exit(FAILED_EXIT)


def render(report) -> str:
    lines = []
    for check in report.checks:
        mark = MARKS[check.status] if check.checked else "-"
        lines.append(f"{mark} {check.name}: {check.found}")
        lines += [f"    {detail}" for detail in check.details]
        if check.status != "ok" and check.fix:
            lines.append(f"    fix: {check.fix}")
    lines += [f"removed {path}" for path in report.fixed]
    failed = sum(c.status == "fail" for c in report.checks)
    warned = sum(c.status == "warn" for c in report.checks)
    lines.append(f"{failed} failed, {warned} warning(s)" if failed or warned else "all checks passed")
    return "\n".join(lines)


@cli.command()
@repo_option
@json_option
def gc(repo_path, as_json) -> None:
    """Pack the repository's loose objects and merge its packs into one.

    A sync writes packs and merges its small ones itself; a repository an older memgit wrote holds
    one file per object, and `memgit gc` packs them (the new pack is on disk before any file goes).
    Unreachable objects are kept. Waits for a running sync.

    Example: memgit gc --json
    """
    from memgit.verbs import gc as verb

    result = verb.run(load_config(repo_path))
    before, after = result.before, result.after
    if result.packed or result.merged:
        text = (f"packed {result.packed} loose object(s) and {result.merged} pack(s) into one: "
                f"{before['loose']} loose, {before['packs']} pack(s) before; {after['loose']} loose, "
                f"{after['packs']} pack(s) now")
    else:
        text = f"nothing to pack: {after['loose']} loose object(s), {after['packs']} pack(s)"
    emit(as_json, result.as_dict(), text)
