"""SQLite for the read paths that start a process (the prompt hook, `memgit search`): the C module
`_sqlite3` that the standard `sqlite3` package wraps, imported without the package.

The package's dbapi2 adds date and time adapters memgit never uses and imports `datetime` for
them: ~7 ms on the 2-core machine, a third of the prompt hook's budget (2x `python -c pass`).
Connections, cursors and exceptions are the very classes `sqlite3` exports (it re-exports
`_sqlite3`'s), so `except sqlite3.DatabaseError` catches the same errors either way. An interpreter
without `_sqlite3` (the module is CPython's) gets the package.

The C module itself imports `functools` when it is loaded, for one name: `lru_cache`, which makes each
connection's cache of prepared statements (`lru_cache(maxsize)(connection)`). `functools` imports
`collections`, `types`, `reprlib`, `keyword` and `operator`: ~6 ms of a ~10 ms import, 0.3x `python -c
pass` at every prompt (bench/README.md, issue 20, fifth pass). When nothing has imported `functools`
yet, `_sqlite3` is loaded with a stand-in in its place that gives it the same cache: `functools.lru_cache`'s
own C wrapper (`_functools._lru_cache_wrapper`, which lru_cache calls with the same arguments). The
stand-in is taken out of `sys.modules` at once, so whatever imports `functools` afterwards gets the real
one; where the stand-in does not do (an interpreter whose `_sqlite3` wants more of `functools`), the
module is imported the ordinary way. No other thread can import `functools` meanwhile and get the stand-in:
`threading` imports `functools`, so a process that has started a thread through it has the real one loaded,
and then `_sqlite3` is imported the ordinary way too.
"""

from __future__ import annotations

import sys


def _load():
    """Import `_sqlite3` (or the package), `functools` left unimported when it was."""
    if "functools" in sys.modules or "_sqlite3" in sys.modules:
        import _sqlite3

        return _sqlite3
    try:
        from _functools import _lru_cache_wrapper
    except ImportError:  # pragma: no cover - not CPython
        import sqlite3

        return sqlite3
    sys.modules["functools"] = _stand_in(_lru_cache_wrapper)
    try:
        import _sqlite3
    except (ImportError, AttributeError):  # the stand-in did not do (or there is no _sqlite3): the ordinary way
        _sqlite3 = None
    finally:
        del sys.modules["functools"]
    if _sqlite3 is None:
        try:
            import _sqlite3
        except ImportError:  # pragma: no cover - not CPython
            import sqlite3

            return sqlite3
    return _sqlite3


def _stand_in(wrapper):
    """A module named functools holding `lru_cache` as `_sqlite3` calls it: lru_cache(maxsize)(function)."""
    module = type(sys)("functools")

    def lru_cache(maxsize=128, typed=False):
        if maxsize is not None and maxsize < 0:  # as functools.lru_cache: a negative size is 0
            maxsize = 0
        return lambda function: wrapper(function, maxsize, typed, tuple)  # tuple: cache_info()'s type

    module.lru_cache = lru_cache
    return module


sqlite3 = _load()

__all__ = ["sqlite3"]
