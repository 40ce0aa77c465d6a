"""`memgit sessions`, `memgit projects` and `memgit config show`: what memgit knows of, and how it is set up."""

from __future__ import annotations

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option


@cli.command()
@click.option("--project", help="Only this project's sessions (name, slug, branch or agent folder; a unique prefix).")
@click.option("--failed", is_flag=True, help="Only the sessions whose last read failed.")
@repo_option
@json_option
def sessions(project, failed, repo_path, as_json) -> None:
    """List the sessions memgit knows of: state (done, pending, waiting, failed, gone), branch, note.

    Example: memgit sessions --project pinion --failed
    """
    from memgit.verbs import listing

    rows = listing.sessions(load_config(repo_path), project=project, failed=failed)
    text = "\n".join(f"{r['session'][:24]:24} {r['state']:7} {(r['branch'] or '-')[:24]:24} {r['last_sync'] or '-':20} "
                     f"{r['reason'] or r['note'] or ''}".rstrip() for r in rows)
    emit(as_json, {"ok": True, "sessions": rows}, text or "no sessions")


@cli.group(invoke_without_command=True)
@repo_option
@json_option
@click.pass_context
def projects(ctx, repo_path, as_json) -> None:
    """List the projects: branch, name, remote or path identity, sessions filed there and by which agents.

    Example: memgit projects --json
    """
    if ctx.invoked_subcommand is not None:
        return
    from memgit.verbs import listing

    rows = listing.projects(load_config(repo_path))
    lines = []
    for r in rows:
        identity = ", ".join(r["remotes"] or r["paths"]) or ("(PROJECT.md unreadable)" if not r["identity_readable"] else "-")
        lines.append(f"{r['branch'][:32]:32} {r['sessions']:5} {','.join(r['agents']) or '-':24} "
                     f"{r['last_sync'] or '-':20} {identity}")
    header = f"{'branch':32} {'sess':>5} {'agents':24} {'last sync':20} identity"
    emit(as_json, {"ok": True, "projects": rows}, "\n".join([header, *lines]) if rows else "no projects yet")


@projects.command("merge")
@click.argument("into")
@click.argument("other")
@repo_option
@json_option
def projects_merge(into, other, repo_path, as_json) -> None:
    """Join project OTHER into project INTO: its notes and history, its identity (remotes, paths) in
    INTO's PROJECT.md; OTHER's branch is deleted and its future sessions go to INTO.

    Example: memgit projects merge pinion pinion-2
    """
    from dataclasses import asdict

    from memgit.verbs import projects as verb

    done = verb.merge(load_config(repo_path), into, other)
    text = (f"joined {done.merged} into {done.into} ({done.head[:12]}); identity: "
            f"{', '.join(done.remotes + done.paths)}")
    emit(as_json, {"ok": True, **asdict(done)}, text)


@cli.group("config")
def config_group() -> None:
    """memgit's configuration.

    Example: memgit config show --json
    """


@config_group.command("show")
@repo_option
@json_option
def config_show(repo_path, as_json) -> None:
    """Print each setting's effective value and where it came from (default, file, env, option).

    Example: memgit config show --json
    """
    from memgit.verbs import settings

    data = settings.effective(repo_path=repo_path)
    lines = [f"{r['key']:28} {str(r['value']):40} {r['origin']}" + (f"  ({r['backend']})" if "backend" in r else "")
             for r in data["settings"]]
    lines.append(f"config file: {data['config_file']}" + ("" if data["exists"] else " (none)"))
    emit(as_json, {"ok": True, **data}, "\n".join(lines))
