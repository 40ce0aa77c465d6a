"""`memgit remote`, `push`, `pull` and `clone`: one memory on several machines (DESIGN §5b)."""

from __future__ import annotations

import sys
from dataclasses import asdict

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option
from memgit.errors import ConflictError


def _progress(as_json: bool):
    """Print the transport's progress lines on a terminal; nothing for --json, pipes and hooks."""
    if as_json or not sys.stderr.isatty():
        return None
    return lambda line: click.echo(line.rstrip(), err=True)


@cli.group(invoke_without_command=True)
@repo_option
@json_option
@click.pass_context
def remote(ctx, repo_path, as_json) -> None:
    """List, add or remove the remotes the memory repository is pushed to and pulled from.

    Example: memgit remote add origin git@github.com:me/memory.git
    """
    if ctx.invoked_subcommand is None:
        _list(repo_path, as_json)


def _list(repo_path, as_json) -> None:
    from memgit.verbs import remote as verbs

    cfg = load_config(repo_path)
    rows = verbs.remotes(cfg)
    lines = []
    for r in rows:
        lines.append(f"{r['name']}{' (default)' if r['default'] else ''}{' (team)' if r['role'] else ''}  {r['url']}")
        for op in ("push", "pull"):
            if r[op]:
                lines.append(f"  last {op}: {'ok' if r[op]['ok'] else 'FAILED'}: {r[op]['message']}")
    text = "\n".join(lines) if rows else f"no remote; add one: memgit remote add {cfg.remote} URL"
    emit(as_json, {"ok": True, "remotes": rows}, text)


@remote.command("list")
@repo_option
@json_option
def remote_list(repo_path, as_json) -> None:
    """List the remotes with their URLs and the last push and pull.

    Example: memgit remote list --json
    """
    _list(repo_path, as_json)


@remote.command("add")
@click.argument("name")
@click.argument("url")
@repo_option
@json_option
def remote_add(name, url, repo_path, as_json) -> None:
    """Add a remote: a path, file://, ssh (git@host:path, ssh://), git:// or https:// URL.

    Nothing is sent: `memgit push` does. https passwords come from git's credential helpers.

    Example: memgit remote add origin git@github.com:me/memory.git
    """
    from memgit.verbs import remote as verbs

    cfg = load_config(repo_path)
    verbs.add(cfg, name, url)
    emit(as_json, {"ok": True, "remote": name},
         f"added remote {name}; send the memory with: memgit push" + ("" if name == cfg.remote else f" {name}"))


@remote.command("remove")
@click.argument("name")
@repo_option
@json_option
def remote_remove(name, repo_path, as_json) -> None:
    """Remove a remote (what it holds is not touched).

    Example: memgit remote remove origin
    """
    from memgit.verbs import remote as verbs

    verbs.remove(load_config(repo_path), name)
    emit(as_json, {"ok": True, "remote": name}, f"removed remote {name}")


@cli.command()
@click.argument("name", required=False)
@click.option("--force", is_flag=True, help="After `memgit purge`: replace the remote's copy of the branches it "
              "rewrote (only while the remote holds what the purge replaced).")
@repo_option
@json_option
def push(name, force, repo_path, as_json) -> None:
    """Send every memgit branch to the remote (default: [repo] remote, "origin"): only new objects.

    Refused when what it would send holds a possible secret (see `memgit scan`), and when the
    remote has commits this repository lacks (run `memgit pull` first). Only a purge is forced:
    `--force` replaces the branches `memgit purge` rewrote, refused when the remote moved since.

    Example: memgit push
    """
    from memgit.verbs import remote as verbs

    report = verbs.push(load_config(repo_path), name, progress=_progress(as_json), force=force)
    lines = [f"{branch}: {old[:12] if old else '(new)'} -> {new[:12]}{' (forced)' if branch in report.forced else ''}"
             for branch, (old, new) in
             sorted(report.updated.items())]
    lines += [f"{branch}: deleted (joined into another branch)" for branch in report.deleted]
    lines.append(f"pushed to {report.remote} ({report.url}): {report.objects} object(s), {report.bytes:,} bytes"
                 if lines else f"{report.remote} is up to date")
    emit(as_json, {"ok": True, **asdict(report)}, "\n".join(lines))


@cli.command()
@click.argument("name", required=False)
@click.option("--wait/--no-wait", default=True, help="Wait for a sync already running (default) or stop.")
@repo_option
@json_option
def pull(name, wait, repo_path, as_json) -> None:
    """Fetch the remote's memory and join it into this repository.

    Notes are joined file by file (two machines write different ones); MEMORY.md, the summaries
    and skills are regenerated, never merged as text. A note edited differently on both machines
    is reported and that branch left as it was (exit 7); everything else is joined.

    Example: memgit pull
    """
    from memgit.verbs import remote as verbs

    report = verbs.pull(load_config(repo_path), name, progress=_progress(as_json), wait=wait)
    lines = [f"{row['branch']}: rebuilt on {report.remote}'s history, which `memgit purge` rewrote (a possible secret "
             f"was removed there); {row['replayed']} commit(s) of this machine replayed on top, the old objects deleted"
             for row in report.purged]
    rebuilt = {row["branch"] for row in report.purged}
    lines += [f"{row['branch']}: {row['action']}" for row in report.branches
              if row["action"] != "up-to-date" and not (row["branch"] in rebuilt and row["action"] == "ahead")]
    if report.consolidated:
        lines.append("regenerated " + ", ".join(report.consolidated))
    for c in report.conflicts:
        why = (f"edited differently on both machines: {', '.join(c['paths'])}" if c["paths"]
               else "refused by the secret gate")
        lines.append(f"{c['branch']}: NOT joined, {why}")
        if c.get("advice"):
            lines.append(f"  {c['advice']}")
    lines += report.notices
    lines.append(f"pulled from {report.remote} ({report.url})" + ("" if len(lines) else ": already up to date"))
    emit(as_json, {"ok": not report.conflicts, **asdict(report)}, "\n".join(lines))
    if report.conflicts:
        sys.exit(ConflictError.exit_code)


@cli.command()
@click.argument("url")
@click.option("--path", type=click.Path(file_okay=False), default=None,
              help="Where to put the repository (default: $MEMGIT_HOME or ~/.local/share/memgit).")
@click.option("--name", default="origin", show_default=True, help="The name the remote gets.")
@json_option
def clone(url, path, name, as_json) -> None:
    """Restore the memory repository from a remote, or bring it to a new machine: every branch.

    Sessions already in the remote's history are not read again by the next `memgit sync`.

    Example: memgit clone git@github.com:me/memory.git && memgit install
    """
    import os

    from memgit.verbs import remote as verbs
    from memgit.verbs.settings import remember_repo_path

    cfg = load_config(path)
    report = verbs.clone(cfg, url, name=name, progress=_progress(as_json))
    note = remember_repo_path(os.environ, cfg.repo_path) if path else ""
    if name != cfg.remote:
        note = "\n".join(filter(None, [note, f"the remote is named {name}: set [repo] remote = \"{name}\" in "
                                       "the config, or name it on each push and pull"]))
    emit(as_json, {"ok": True, **asdict(report), "config": note},
         "\n".join(filter(None, [f"cloned {report.url} into {report.repo}: {len(report.branches)} branch(es)", note,
                                 "next: memgit install (hooks for your agents), then memgit sync"])))
