"""`python -m memgit`: the same as the `memgit` console script."""

from memgit.entry import main

main()
