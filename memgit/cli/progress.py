"""Progress on a terminal: a bar while sessions are read, a line while waiting for the lock."""

from __future__ import annotations

import sys

import click


class Progress:
    """Shows progress on stderr when it is a terminal; silent otherwise (hooks, pipes, --json)."""

    def __init__(self, enabled: bool = True):
        self.enabled = enabled and sys.stderr.isatty()
        self.waited = False
        self._bar = None
        self._done = 0
        self._label = ""

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.render_finish()

    def waiting(self, pid: int | None) -> None:
        self.waited = True
        holder = f" (pid {pid})" if pid else ""
        click.echo(f"Another memgit sync is running{holder}; waiting for it to finish...", err=True)

    def update(self, done: int, total: int, label: str) -> None:
        if not self.enabled or total == 0:
            return
        self._label = label  # read by the bar at each render: a closure over `label` kept the first one
        if self._bar is None:
            self._bar = click.progressbar(length=total, label="Reading sessions", file=sys.stderr,
                                          show_pos=True, item_show_func=lambda _: self._label)
            self._bar.__enter__()
        if done > self._done:
            self._bar.update(done - self._done)
        else:  # a new session started, none finished: show its label now
            self._bar.render_progress()
        self._done = done
