"""The `memgit` console script: hook events go straight to memgit.hook.entry, everything else to the CLI.

A hook runs at every session start and end; importing click (and through the CLI, more) would
cost more than the hook's whole work, so `memgit hook <event>` never imports memgit.cli.commands.
`memgit search` and a `memgit sync` with nothing new are answered without click too (memgit.cli.search_fast,
memgit.cli.sync_fast). `memgit hook --help` and anything else still goes through click.

A fast path that answered ends the process at once (`leave`): the interpreter's teardown of every module
it loaded costs ~0.1-0.2x a `python -c pass` (bench/README.md, issue 20, third pass), and nothing is left
to do: the answer is flushed, no thread runs, no atexit handler is registered on these paths. So `main`
is the process's entry only (the console script, `python -m memgit.entry`, the hooks' launcher), never
a function to call from Python.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "hook" and not {"-h", "--help"} & set(args):
        from memgit.hook import entry as hook

        if args[1] in hook.EVENTS:  # `memgit hook <event> [--agent NAME]`: the hook checks the rest
            leave(hook.main(args[1:]))
    if args[:1] == ["search"] and not {"-h", "--help"} & set(args):
        from memgit.cli import search_fast  # without click: a search is answered in a few milliseconds

        code = search_fast.main(args[1:])
        if code is not None:
            leave(code)
    if args[:1] == ["sync"] and not {"-h", "--help"} & set(args):
        from memgit.cli import sync_fast  # without click: nothing new is told in a few milliseconds

        code = sync_fast.main(args[1:])
        if code is not None:
            leave(code)
    from memgit.cli.commands import main as cli_main

    cli_main()


def site_on_demand() -> None:
    """Set site up at the first import nothing finds without it, for a process started with `python -S`
    (the hooks' launcher): the hooks' fast paths import memgit and the standard library alone, and
    whatever else (dulwich when the context cache is stale, a sitecustomize's modules) finds its
    site-packages, .pth files and user site as a process started without -S would have them."""
    sys.meta_path.append(_SiteOnDemand)


class _SiteOnDemand:
    """The last finder on sys.meta_path: runs site.main() once, when a top-level import is not found, and
    looks for it again."""

    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if path is not None:  # a submodule: its package's folder decides, not site
            return None
        sys.meta_path.remove(cls)
        import site

        site.main()
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(name, None, target) if find is not None else None
            if spec is not None:
                return spec
        return None


def leave(code: int) -> None:
    """End the process with `code` once stdout and stderr are flushed, without the interpreter's teardown;
    120 when stdout cannot be flushed, as the interpreter exits then."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        code = 120
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


if __name__ == "__main__":
    main()
