"""memgit: memory for coding agents, kept in a git repository of markdown notes."""

__version__ = "0.1.0"
