"""`memgit team add|list|remove`, `share` and `unshare`: team memory through a team remote (issue 22)."""

from __future__ import annotations

from dataclasses import asdict

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option


@cli.group(invoke_without_command=True)
@repo_option
@json_option
@click.pass_context
def team(ctx, repo_path, as_json) -> None:
    """Join, list or leave teams: remotes where each person shares chosen projects under their own name.

    Example: memgit team add acme git@github.com:acme/memory.git
    """
    if ctx.invoked_subcommand is None:
        _list(repo_path, as_json)


def _list(repo_path, as_json) -> None:
    from memgit.verbs import team as verbs

    rows = verbs.rows(load_config(repo_path))
    lines = []
    for r in rows:
        lines.append(f"{r['name']}  {r['url']}  as {r['person']}")
        lines.append(f"  shared: {', '.join(r['shared']) or 'nothing yet (memgit share PROJECT --team ' + r['name'] + ')'}")
        if r["teammates"]:
            lines.append(f"  teammates fetched: {', '.join(r['teammates'])}")
        for op in ("push", "pull"):
            if r[op]:
                lines.append(f"  last {op}: {'ok' if r[op]['ok'] else 'FAILED'}: {r[op]['message']}")
    emit(as_json, {"ok": True, "teams": rows}, "\n".join(lines) if rows else "no team; join one: memgit team add NAME URL")


@team.command("list")
@repo_option
@json_option
def team_list(repo_path, as_json) -> None:
    """List the teams: URL, the name you push as, the projects you share, the teammates fetched.

    Example: memgit team list --json
    """
    _list(repo_path, as_json)


@team.command("add")
@click.argument("name")
@click.argument("url")
@click.option("--as", "person", help="Your name on the team (default: git's user.email, before the @).")
@repo_option
@json_option
def team_add(name, url, person, repo_path, as_json) -> None:
    """Join a team: add its remote (a bare repository, git://, ssh or https), pushing as PERSON.

    Nothing is sent: share a project (`memgit share PROJECT --team NAME`), then `memgit push NAME`.

    Example: memgit team add acme git@github.com:acme/memory.git --as ana
    """
    from memgit.verbs import team as verbs

    done = verbs.add(load_config(repo_path), name, url, person)
    emit(as_json, {"ok": True, **asdict(done)},
         f"joined team {done.name} ({done.url}) as {done.person}: {done.how}\n"
         f"next: memgit share PROJECT --team {done.name} && memgit push {done.name}")


@team.command("remove")
@click.argument("name")
@repo_option
@json_option
def team_remove(name, repo_path, as_json) -> None:
    """Leave a team here: its remote and what was fetched from it go (the team's remote is not touched).

    Example: memgit team remove acme
    """
    from memgit.verbs import team as verbs

    verbs.remove(load_config(repo_path), name)
    emit(as_json, {"ok": True, "team": name}, f"removed team {name}")


@cli.command()
@click.argument("project")
@click.option("--team", "team_name", required=True, help="The team remote (see `memgit team list`).")
@repo_option
@json_option
def share(project, team_name, repo_path, as_json) -> None:
    """Share PROJECT with a team: its session notes and non-private pinned notes go at each push.

    Never main, never a note pinned with `memgit remember --private`, never another project.

    Example: memgit share app --team acme && memgit push acme
    """
    _share(project, team_name, repo_path, as_json, on=True)


@cli.command()
@click.argument("project")
@click.option("--team", "team_name", required=True, help="The team remote (see `memgit team list`).")
@repo_option
@json_option
def unshare(project, team_name, repo_path, as_json) -> None:
    """Stop sharing PROJECT with a team: the next push deletes your ref of it there.

    Example: memgit unshare app --team acme && memgit push acme
    """
    _share(project, team_name, repo_path, as_json, on=False)


def _share(project, team_name, repo_path, as_json, *, on: bool) -> None:
    from memgit.verbs import team as verbs

    done = verbs.share(load_config(repo_path), project, team_name, on=on)
    emit(as_json, {"ok": True, **asdict(done)},
         f"{'shared' if on else 'stopped sharing'} {done.branch} with {done.team}; "
         f"now shared: {', '.join(done.shared) or 'nothing'}; send it with: memgit push {done.team}")
