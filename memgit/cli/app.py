"""The command line's frame: the click group, its error handling, the shared options and output.

Each group of commands lives in its own module (sync, inspect, lifecycle) and registers itself on
`cli`; memgit.cli.commands puts them together."""

from __future__ import annotations

import json
import os
import sys
import traceback

import click

from memgit.errors import STORAGE_ERRNOS, MemgitError, StorageError, Unconfirmed


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
            _let_go(e)
            raise Failure(e, bool(ctx.meta.get("memgit.json"))) from e
        except OSError as e:  # a full, read-only or forbidden disk is the machine's state, not a bug
            if os.environ.get("MEMGIT_DEBUG") or e.errno not in STORAGE_ERRNOS:
                raise
            _let_go(e)
            raise Failure(StorageError.from_os_error(e), bool(ctx.meta.get("memgit.json"))) from e


def _let_go(error: BaseException) -> None:
    """Free what the frames of a failed write still hold, without a word.

    A write that failed on a full disk can leave a half-closed file in those frames (dulwich's
    GitFile); its finalizer tries to flush again, fails again, and Python prints that failure as
    "Exception ignored ... Traceback" at exit, under the one line that already said what happened.
    """
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None  # only while these frames are cleared
    try:
        seen: set[int] = set()
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            traceback.clear_frames(error.__traceback__)
            error = error.__cause__ or error.__context__
    finally:
        sys.unraisablehook = hook


def _set_json(ctx: click.Context, _param, value: bool) -> bool:
    ctx.meta["memgit.json"] = value
    return value


json_option = click.option("--json", "as_json", is_flag=True, callback=_set_json, expose_value=True,
                           is_eager=True, help="Print the result as JSON.")
repo_option = click.option("--repo", "repo_path", type=click.Path(file_okay=False), default=None,
                           help="The memory repository (default: $MEMGIT_HOME or ~/.local/share/memgit).")


def load_config(repo_path: str | None):
    from memgit import config

    return config.load(repo_path=repo_path)


def confirm(question: str, *, yes: bool, as_json: bool, doing: str, shown: str = "") -> None:
    """Let a destructive command go on: with --yes, or when the person says yes at a terminal.

    With nobody to ask (stdin is no terminal, or --json: a program reads the output) it refuses
    rather than guess, before anything changed. `doing` names the act: "forgetting", "deleting ...";
    `shown` is what will change, printed above the question (stderr) when there is one.

    Raises:
        Unconfirmed: no --yes and nobody to ask (exit 2).
        click.Abort: the person said no.
    """
    if yes:
        return
    if as_json or not sys.stdin.isatty():
        why = "--json never asks" if as_json else "there is no terminal to ask"
        raise Unconfirmed(f"not {doing} without --yes ({why}); run it again with --yes")
    if shown:
        click.echo(shown, err=True)
    if not click.confirm(question, default=False, err=True):
        raise click.Abort()


def emit(as_json: bool, data, text: str) -> None:
    click.echo(json.dumps(data, indent=2) if as_json else text)


@click.group(cls=MemgitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memgit")
def cli() -> None:
    """memgit: memory for coding agents, kept in a git repository of markdown notes.

    \b
    Example:
      memgit sync          # read new Claude Code, Codex and Gemini CLI sessions into ~/.local/share/memgit
      git -C ~/.local/share/memgit log --all
    """


# ---- the agents: hooks, context, install (memgit.hook.entry, memgit.hook.context, memgit.verbs.install)

