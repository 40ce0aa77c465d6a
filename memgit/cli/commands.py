"""The command line: parse options, call one verb, print its result as text or JSON.

The commands are registered by their group's module on memgit.cli.app's click group.
"""

from __future__ import annotations

import sys

from memgit.cli import doctor, hand, inspect, lifecycle, listing, mcp, purge, remote, search, sync, team  # noqa: F401  (importing a group registers its commands)
from memgit.cli.app import cli


def main() -> None:
    cli(prog_name="memgit")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
