"""`memgit sessions`, `memgit projects` and `memgit config show`: what memgit knows of, and how it is set up."""

from __future__ import annotations

import click

from memgit.cli import table
from memgit.cli.app import cli, confirm, emit, json_option, load_config, repo_option


@cli.command()
@click.option("--project", help="Only this project's sessions: its branch, slug or PROJECT.md name, or "
              "an agent folder; or a prefix only it has.")
@click.option("--failed", is_flag=True, help="Only the sessions whose last read failed.")
@repo_option
@json_option
def sessions(project, failed, repo_path, as_json) -> None:
    """List the sessions memgit knows of: state (done, pending, waiting, failed, gone), branch, note.

    Example: memgit sessions --project pinion --failed
    """
    from memgit.verbs import listing

    rows = listing.sessions(load_config(repo_path), project=project, failed=failed)
    text = table.render([(r["session"], r["state"], r["branch"] or "-", r["last_sync"] or "-", r["reason"] or r["note"] or "")
                         for r in rows], columns=table.width())
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
    lines = [("branch", "sess", "agents", "last sync", "identity")]
    for r in rows:
        identity = ", ".join(r["remotes"] or r["paths"]) or ("(PROJECT.md unreadable)" if not r["identity_readable"] else "-")
        lines.append((r["branch"], r["sessions"], ",".join(r["agents"]) or "-", r["last_sync"] or "-", identity))
    emit(as_json, {"ok": True, "projects": rows},
         table.render(lines, right={1}, columns=table.width()) if rows else "no projects yet")


@projects.command("merge")
@click.argument("into")
@click.argument("other")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before joining (needed without a terminal, or with --json).")
@repo_option
@json_option
def projects_merge(into, other, yes, repo_path, as_json) -> None:
    """Join project OTHER into project INTO: its notes and history, its identity (remotes, paths) in
    INTO's PROJECT.md; OTHER's branch is deleted and its future sessions go to INTO. Asks first.

    Example: memgit projects merge pinion pinion-2 --yes
    """
    from dataclasses import asdict

    from memgit.verbs import projects as verb

    cfg = load_config(repo_path)
    a, b = verb.names(cfg, into, other)
    confirm(f"Join {b} into {a} (branch {b} is deleted)?", yes=yes, as_json=as_json, doing=f"joining {b} into {a}")
    done = verb.merge(cfg, into, other)
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
    import sys

    from memgit.errors import ConfigError
    from memgit.verbs import settings

    data = settings.effective(repo_path=repo_path)
    first = data["problems"][0]["message"] if data["problems"] else ""
    if as_json:
        emit(True, {"ok": not first, **data, **({"error": {"code": ConfigError.code, "message": first}}
                                                 if first else {})}, "")
    else:
        click.echo(config_toml(data))
        for p in data["problems"]:
            click.echo(f"Error: {p['message']}", err=True)
    if first:  # shown, then refused like every command refuses it
        sys.exit(ConfigError.exit_code)


def config_toml(data: dict) -> str:
    """The settings as a TOML file memgit would read, each line's origin (and problem) in its comment."""
    lines = ["# memgit's effective settings; each comment says where the value came from",
             f"# config file: {data['config_file']}" + ("" if data["exists"] else " (none)")]
    lines += [f"# BAD: {_one_line(p['message'])}" for p in data["problems"] if not p["key"]]
    section = None
    for row in data["settings"]:
        table, key = row["key"].split(".", 1)
        if table != section:
            section = table
            lines += ["", f"[{table}]"]
        note = row["origin"] + (f"; runs on {row['backend']}" if row.get("backend") else "") \
            + (f"; BAD: {_one_line(row['problem'])}" if row.get("problem") else "")
        if row["value"] is None:
            lines.append(f"# {key} is not set ({note})")
        else:
            lines.append(f"{key} = {_toml(row['value'])}  # {_one_line(note)}")
    return "\n".join(lines)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _toml(value) -> str:
    """A TOML literal of a JSON-like value (a JSON string is a TOML basic string, once DEL is escaped)."""
    import json
    import math

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(str(k))} = {_toml(v)}" for k, v in value.items()) + "}"
    return json.dumps(str(value), ensure_ascii=False).replace("\x7f", "\\u007f")
