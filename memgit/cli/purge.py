"""`memgit purge`: take what `memgit scan` finds out of the memory repository's whole history."""

from __future__ import annotations

import json
import sys

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option


@cli.command()
@click.option("--finding", "findings", multiple=True, metavar="ID", help="A finding's id as `memgit scan` prints it "
              "(repeatable; default: every finding).")
@click.option("--path", "paths", multiple=True, metavar="PATH", help="Drop the note at PATH from every commit "
              "(repeatable).")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before rewriting.")
@repo_option
@json_option
def purge(findings, paths, yes, repo_path, as_json) -> None:
    """Remove secrets `memgit scan` found from the whole history: every branch holding one is rewritten
    with the value replaced by [REDACTED:kind] (authors, dates and the ledger kept), old objects and
    reflogs dropped, caches rebuilt. Shows what it will rewrite and asks. Then revoke the secret where
    it was issued, and send the new history with `memgit push --force`.

    Example: memgit scan && memgit purge --finding 3f9c2a1b7e
    """
    from memgit.verbs import purge as verb

    if not yes and (as_json or not sys.stdin.isatty()):
        _refuse(as_json)

    def confirm(plan) -> bool:
        if yes:
            return True
        click.echo(plan_text(plan))
        return click.confirm("Rewrite this history?", default=False)

    report = verb.purge(load_config(repo_path), findings, paths, confirm=confirm)
    emit(as_json, {"ok": report.done or report.plan.empty, **report.as_dict()}, done_text(report))
    if not report.done and not report.plan.empty:
        sys.exit(1)


def _refuse(as_json: bool) -> None:
    message = ("memgit purge rewrites history: run it in a terminal to see what it will rewrite and confirm, "
               "or pass --yes")
    if as_json:
        click.echo(json.dumps({"ok": False, "error": {"code": "confirm", "message": message}}))
    else:
        click.echo(f"Error: {message}", err=True)
    sys.exit(2)


def _places(places: dict) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in sorted(places.items()))


def plan_text(plan) -> str:
    lines = [f"{f['action']:8} {f['id']}  {f['kind']} in {f['where']} {f['path']}".rstrip()
             + (f" (commit {f['commit'][:12]})" if f["commit"] else "") for f in plan.findings]
    lines += [f"dropped  {p} from every commit" for p in plan.paths]
    lines += [f"rewrite  {b}: {row['commits']} commit(s); {_places(row['places'])}" for b, row in plan.branches.items()]
    lines += [f"not removed by purge: {row['where']} {row['path']}: {row['do']}".rstrip(": ") for row in plan.left]
    return "\n".join(lines)


def done_text(report) -> str:
    plan = report.plan
    if plan.empty:
        return "nothing to purge" + (": " + "; ".join(f"{r['where']} {r['path']}: {r['do']}" for r in plan.left)
                                     if plan.left else f" ({report.repo})")
    if not report.done:
        return "nothing was changed"
    lines = [f"{b}: rewritten, {plan.branches[b]['commits']} commit(s); purge commit {sha[:12]}"
             for b, sha in report.commits.items()]
    lines.append(f"deleted {report.pruned} old object(s), expired the reflogs, rebuilt the caches")
    lines.append("next: revoke the secret where it was issued; then `memgit push --force` sends the new history "
                 "(other machines take it at their next `memgit pull`)")
    return "\n".join(lines)
