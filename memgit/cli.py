"""The command line: parse options, call one verb, print its result as text or JSON."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import asdict

import click

from .errors import MemgitError


class Failure(click.ClickException):
    """A MemgitError on its way out: `Error: ...` on stderr, or a JSON object with --json."""

    def __init__(self, error: MemgitError, as_json: bool):
        super().__init__(error.message)
        self.exit_code, self.code, self.as_json = error.exit_code, error.code, as_json

    def show(self, file=None) -> None:
        if self.as_json:
            click.echo(json.dumps({"ok": False, "error": {"code": self.code, "message": self.message}}))
        else:
            click.echo(f"Error: {self.message}", err=True)


class MemgitGroup(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MemgitError as e:
            if os.environ.get("MEMGIT_DEBUG"):
                raise
            raise Failure(e, bool(ctx.meta.get("memgit.json"))) from e


def _set_json(ctx: click.Context, _param, value: bool) -> bool:
    ctx.meta["memgit.json"] = value
    return value


json_option = click.option("--json", "as_json", is_flag=True, callback=_set_json, expose_value=True,
                           is_eager=True, help="Print the result as JSON.")
repo_option = click.option("--repo", "repo_path", type=click.Path(file_okay=False), default=None,
                           help="The memory repository (default: $MEMGIT_HOME or ~/.local/share/memgit).")


def _config(repo_path: str | None):
    from . import config

    return config.load(repo_path=repo_path)


def _emit(as_json: bool, data, text: str) -> None:
    click.echo(json.dumps(data, indent=2) if as_json else text)


@click.group(cls=MemgitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memgit")
def cli() -> None:
    """memgit: memory for coding agents, kept in a git repository of markdown notes.

    \b
    Example:
      memgit sync          # read new Claude Code sessions into ~/.local/share/memgit
      git -C ~/.local/share/memgit log --all
    """


@cli.command()
@click.option("--path", type=click.Path(file_okay=False), default=None, help="Where to create the repository.")
@json_option
def init(path: str | None, as_json: bool) -> None:
    """Create the memory repository.

    Example: memgit init --path ~/memory
    """
    from .repo import MemoryRepo
    from .resources import repo_template_files

    cfg = _config(path)
    MemoryRepo.init(cfg.repo_path, repo_template_files(), author=cfg.author).close()
    _emit(as_json, {"ok": True, "repo": str(cfg.repo_path)}, f"Created memory repository at {cfg.repo_path}")


@cli.command()
@click.option("--project", help="Only sessions of this project (branch slug, name or ~/.claude/projects folder).")
@click.option("--session", help="Only this session (id or prefix), whatever its age.")
@click.option("--all", "all_", is_flag=True, help="Ignore the idle time and the age window.")
@click.option("--dry-run", is_flag=True, help="Say what would be read; commit nothing.")
@click.option("--max-sessions", type=click.IntRange(min=1), help="Read at most N sessions.")
@click.option("--redo", metavar="SESSION", help="Read this session again from its start.")
@click.option("--retry-failed", is_flag=True, help="Read again the sessions whose last attempt failed.")
@click.option("--wait/--no-wait", default=True, help="Wait for a sync already running (default) or stop.")
@repo_option
@json_option
def sync(project, session, all_, dry_run, max_sessions, redo, retry_failed, wait, repo_path, as_json) -> None:
    """Read new transcripts into the memory repository, one commit per session.

    Example: memgit sync --project pinion --dry-run
    """
    from . import sync as sync_mod
    from .progress import Progress

    opts = sync_mod.SyncOptions(project, session, all_, dry_run, max_sessions, redo, retry_failed, wait)
    with Progress(enabled=not as_json) as progress:
        result = sync_mod.run(_config(repo_path), opts, on_wait=progress.waiting, on_progress=progress.update)
    _emit(as_json, {"ok": True, **result.summary(), "waited": progress.waited,
                    "sessions": [asdict(r) for r in result.results]},
          _sync_text(result))


def _sync_text(result) -> str:
    lines = []
    for r in result.results:
        if r.kind == "planned":
            lines.append(f"would read {r.session}  {r.project}  bytes {r.start}-{r.end}  ({r.reason})")
        elif r.kind == "fail":
            lines.append(f"failed {r.session}: {r.reason}")
    s = result.summary()
    if result.dry_run:
        lines.append(f"{len(result.results)} session(s) would be read (dry run; nothing committed)")
    else:
        lines.append(f"read {s['read']}, extracted {s['extracted']}, skipped {s['skipped']}, "
                     f"failed {s['failed']}, commits {s['commits']}  ({s['repo']})")
    return "\n".join(lines)


@cli.command()
@repo_option
@json_option
def status(repo_path, as_json) -> None:
    """Per project: transcripts on disk, processed, pending, failed, last sync.

    Example: memgit status --json
    """
    from . import views

    data = views.status(_config(repo_path))
    rows = [f"{'project folder':44} {'disk':>5} {'done':>5} {'pend':>5} {'wait':>5} {'fail':>5}  last sync"]
    for p in data["projects"]:
        rows.append(f"{p['project_dir'][:44]:44} {p['on_disk']:5} {p['processed']:5} {p['pending']:5} "
                    f"{p['waiting']:5} {p['failed']:5}  {p['last_sync'] or '-'}")
    rows.append(f"repo: {data['repo']}  transcripts: {data['transcripts']}")
    _emit(as_json, {"ok": True, **data}, "\n".join(rows))


@cli.command()
@click.option("--project", help="Only this project's branch (slug or projects/<slug>).")
@click.option("-n", "limit", type=click.IntRange(min=1), default=20, show_default=True, help="How many commits.")
@repo_option
@json_option
def log(project, limit, repo_path, as_json) -> None:
    """memgit's commits, newest first, across all branches.

    Example: memgit log --project pinion -n 5
    """
    from . import views

    rows = views.log(_config(repo_path), project=project, limit=limit)
    text = "\n".join(f"{r['sha'][:8]} {r['time']} {r['branch']:24} {r['subject']}" for r in rows)
    _emit(as_json, {"ok": True, "commits": rows}, text or "no commits")


@cli.command()
@click.argument("what")
@repo_option
@json_option
def show(what, repo_path, as_json) -> None:
    """Print a session's note (by session id prefix) or a file (PATH or BRANCH:PATH).

    Example: memgit show 6f1c2e4a
    """
    from . import views

    data = views.show(_config(repo_path), what)
    if data.get("content") is not None:
        text = data["content"].rstrip("\n")
    else:
        text = "\n".join(f"{data['session']}: {e['kind']} {e['range']} {e['outcome']} {e['reason']}".rstrip()
                         for e in data["entries"])
    _emit(as_json, {"ok": True, **data}, text)


@cli.command()
@click.option("--keep", type=click.Path(file_okay=False), default=None, help="Keep the demo files in this folder.")
@json_option
def demo(keep, as_json) -> None:
    """Run the whole pipeline on synthetic transcripts in a temporary repo and show the result.

    Example: memgit demo
    """
    from .demo import run_demo

    data = run_demo(keep)
    _emit(as_json, {"ok": True, **data}, data["text"])


def main() -> None:
    cli(prog_name="memgit")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
