"""`memgit status`, `scan`, `log`, `show`, `context`: read-only views of the memory."""

from __future__ import annotations

import click
import os
import sys
from dataclasses import asdict

from memgit.cli import table
from memgit.cli.app import cli, emit, json_option, load_config, repo_option


@cli.command()
@repo_option
@json_option
def status(repo_path, as_json) -> None:
    """Per agent and folder: transcripts on disk, processed, pending, failed, last sync; then why sessions failed.

    Example: memgit status --json
    """
    from memgit.verbs import inspect as views

    data = views.status(load_config(repo_path))
    rows = [table.render([("agent", "project folder", "disk", "done", "pend", "wait", "fail", "last sync")]
                         + [(p["agent"], p["project_dir"], p["on_disk"], p["processed"], p["pending"], p["waiting"],
                             p["failed"], p["last_sync"] or "-") for p in data["projects"]],
                         right=range(2, 7), columns=table.width())]
    rows.append(f"repo: {data['repo']}")
    rows.append(f"model spend: {data['spend_today']['text']}")
    rows.append("transcripts: " + ", ".join(f"{agent} {root}" for agent, root in data["sources"].items()))
    if data["failed_sessions"]:
        rows.append("failed sessions (once fixed: memgit sync --retry-failed):")
        rows += [f"  {f['session']}  {f['project_dir']}: {f['reason']}" for f in data["failed_sessions"]]
    if data["cut_sessions"]:
        rows.append("sessions whose transcript was cut off (read up to the last complete record):")
        rows += [f"  {c['session']}  {c['project_dir']}: {c['cut']} byte(s) passed over" for c in data["cut_sessions"]]
    if data["unreadable_folders"]:
        rows.append("unreadable project folders (not read until fixed):")
        rows += [f"  {u['agent']} {u['project_dir']}: {u['reason']}" for u in data["unreadable_folders"]]
    rows += [f"memory told twice in {d['cwd'] or d['project_dir']}: Claude Code loads its MEMORY.md ({d['auto_memory']}) "
             f"and memgit's hook its summary; {d['advice']}" for d in data["double_injection"] if d["agent"] == "claude-code"]
    rows += [f"memory told twice: {d['agent']} loads its own memory from {d['auto_memory']} and memgit's hook its "
             f"summary; {d['advice']}" for d in data["double_injection"] if d["agent"] != "claude-code"]
    for r in data["remotes"]:
        rows.append(f"remote {r['name']} ({r['url']}): " + (f"{len(r['unpushed'])} branch(es) not pushed (memgit push)"
                                                         if r["unpushed"] else "up to date as of the last push or pull"))
        rows += [f"  last {op} FAILED at {r[op]['at']}: {r[op]['message']} (memgit {op} to try again)"
                 for op in ("push", "pull") if r[op] and not r[op]["ok"]]
    emit(as_json, {"ok": True, **data}, "\n".join(rows))


@cli.command()
@click.option("--no-caches", is_flag=True, help="Leave out the derived files under .git/memgit.")
@repo_option
@json_option
def scan(no_caches, repo_path, as_json) -> None:
    """Look for secrets in the whole memory repository: every object of its history (reachable or
    not), branch and ref names, reflogs, its config and the caches under .git/memgit. Prints each
    finding's kind and place, never the value; exits 6 when there is one.

    \b
    To remove them: `memgit purge` (every finding) or `memgit purge --finding ID` (the ids printed
    here) rewrites the history without them, drops the old objects and rebuilds the caches; then
    revoke the secret where it was issued and `memgit push --force` every remote that had it.

    Example: memgit scan --json
    """
    from memgit import config
    from memgit.errors import SecretFound
    from memgit.store.repo import MemoryRepo
    from memgit.store import scan as scan_mod

    cfg = config.load(repo_path=repo_path)
    with MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        found = scan_mod.scan(repo, cfg.extra_redact_patterns, caches=not no_caches)
    text = "\n".join(f"secret {f.id}: {f.describe()}" for f in found)
    text += ("\n" if text else "") + (f"{len(found)} possible secret(s) found; remove them with `memgit purge` (all) "
                                        "or `memgit purge --finding ID`" if found else f"no secret found ({cfg.repo_path})")
    emit(as_json, {"ok": not found, "repo": str(cfg.repo_path), "findings": [{"id": f.id, **asdict(f)} for f in found]},
         text)
    if found:
        sys.exit(SecretFound.exit_code)


@cli.command()
@click.option("--project", help="Only this project: its branch, slug or PROJECT.md name, a prefix only "
              "it has, or main.")
@click.option("-n", "limit", type=click.IntRange(min=1), default=20, show_default=True, help="How many commits.")
@repo_option
@json_option
def log(project, limit, repo_path, as_json) -> None:
    """memgit's commits, newest first, across all branches.

    Example: memgit log --project pinion -n 5
    """
    from memgit.verbs import inspect as views

    rows = views.log(load_config(repo_path), project=project, limit=limit)
    text = table.render([(r["sha"][:8], r["time"], r["branch"], r["subject"]) for r in rows], columns=table.width())
    emit(as_json, {"ok": True, "commits": rows}, text or "no commits")


@cli.command()
@click.argument("what")
@repo_option
@json_option
def show(what, repo_path, as_json) -> None:
    """Print a session's note (by session id or a prefix only it has), a commit (SHA, whole or as
    `memgit log` prints it) or a file (PATH or BRANCH:PATH).

    Example: memgit show 6f1c2e4a
    """
    from memgit.verbs import inspect as views

    data = views.show(load_config(repo_path), what)
    if "commit" in data:
        text = "\n".join([f"commit {data['commit']}", data["message"], "", "changed: " + ", ".join(data["changed"])]
                         + ([data["content"].rstrip("\n")] if data["content"] is not None else []))
    elif data.get("content") is not None:
        text = data["content"].rstrip("\n")
    else:
        text = "\n".join(f"{data['session']}: {e['kind']} {e['range']} {e['outcome']} {e['reason']}".rstrip()
                         for e in data["entries"])
    emit(as_json, {"ok": True, **data}, text)


@cli.command("context")
@click.option("--cwd", type=click.Path(file_okay=False), default=None, help="Where the session starts (default: here).")
@repo_option
@json_option
def context_cmd(cwd, repo_path, as_json) -> None:
    """Print what an agent's session started here would be told; its size goes to stderr.

    Example: memgit context --cwd ~/dev/pinion --json
    """
    from memgit.hook import context as context_mod

    data = context_mod.preview(load_config(repo_path), os.path.abspath(cwd or os.getcwd()))
    if as_json:
        emit(True, {"ok": True, **data}, "")
        return
    if data["context"]:
        click.echo(data["context"])
    click.echo(_context_footer(data), err=True)


def _context_footer(data: dict) -> str:
    if data["reason"]:
        return data["reason"]
    where = (f"project {data['project']} (branch {data['branch']})" if data["branch"]
             else "no project: global memory only")
    waiting = f"; {data['pending']} session(s) waiting to be synced" if data["pending"] else ""
    return f"{data['chars']:,} characters, ~{data['tokens']:,} tokens; {where}{waiting}; repo {data['repo']}"
