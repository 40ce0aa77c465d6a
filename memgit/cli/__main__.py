"""`python -m memgit.cli`: the CLI without the hook fast path (benchmarks time it this way)."""

from memgit.cli.commands import main

raise SystemExit(main())
