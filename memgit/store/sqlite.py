"""SQLite for the read paths that start a process (the prompt hook, `memgit search`): the C module
`_sqlite3` that the standard `sqlite3` package wraps, imported without the package.

The package's dbapi2 adds date and time adapters memgit never uses and imports `datetime` for
them: ~7 ms on the 2-core machine, a third of the prompt hook's budget (2x `python -c pass`).
Connections, cursors and exceptions are the very classes `sqlite3` exports (it re-exports
`_sqlite3`'s), so `except sqlite3.DatabaseError` catches the same errors either way. An interpreter
without `_sqlite3` (the module is CPython's) gets the package.
"""

from __future__ import annotations

try:
    import _sqlite3 as sqlite3
except ImportError:  # pragma: no cover - not CPython
    import sqlite3

__all__ = ["sqlite3"]
