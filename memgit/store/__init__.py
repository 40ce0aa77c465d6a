"""Storage adapters: the memory repository and the derived caches under .git/memgit/ (DESIGN §7)."""
