"""The paths that start a process at every session start, every prompt and every search import only what
they use (issue 20; DESIGN §8 measures them against `python -c pass`): each runs as the console script
runs it, under `python -X importtime`, on a synced memory with its caches in place.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from memgit.store import embedding
from memgit.verbs.install import LAUNCHER
from tests.conftest import ROOT
from tests.integration.test_hooks import PROJECT_MARK, additional_context, payload, world  # noqa: F401 (a fixture)
from tests.integration.test_sync import write_demo
from tests.integration.test_prompt_hook import GOTCHA, PROMPT, gotcha, prompt_stdin  # noqa: F401 (a fixture)

# Whatever none of the three paths needs: the CLI, git, YAML and markdown, the models, the fast JSON
# decoder of sync, and the standard library's heavier modules, each one several milliseconds
# (dataclasses: ~1x `python -c pass` with inspect; pathlib ~0.5x; the json and sqlite3 packages:
# their C modules do the work without them).
NEVER = {"click", "dulwich", "litellm", "frontmatter", "markdown_it", "msgspec", "yaml", "ahocorasick_rs", "numpy",
         "mcp", "dataclasses", "pathlib", "typing", "inspect", "logging", "subprocess", "tomllib", "json", "sqlite3",
         "hashlib", "string", "shutil", "tempfile", "argparse", "urllib", "email", "uuid", "threading", "ast",
         "datetime", "importlib.util", "contextlib", "warnings",
         "memgit.config", "memgit.cli.commands", "memgit.cli.app", "memgit.store.repo", "memgit.sources.workspace",
         "memgit.core.scopes", "memgit.core.redact", "memgit.verbs.briefing", "memgit.verbs.sync", "memgit.core.fusion"}
# The session start reads the context cache: no search index, no ranking, no dates; and no collections (its
# named tuples are memgit.core.record's), nor a codec beyond UTF-8 to read the ref files.
NOT_AT_START = {"_sqlite3", "math", "memgit.core.search", "memgit.core.recall", "memgit.store.search_index",
                "collections", "encodings.ascii"}
# The prompt hook neither ranks by age nor looks for the semantic extra.
NOT_AT_PROMPT = {"memgit.verbs.search", "memgit.verbs.semantic", "memgit.store.embedding"}
# An index of the current heads is read without its writer (memgit.store.search_reader alone), by the prompt
# hook and by `memgit search`.
WRITER = {"memgit.store.search_index", "memgit.store.search_rows", "memgit.store.blobs", "memgit.core.search_units"}
# What a prompt that memory bears on needs no more than a silent one: no regular expression is compiled
# on the way (memgit.core.scan cuts the hit's lines), so neither `re` nor `enum` is imported, nor the module of
# patterns compiled at first use (memgit.core.lazyre: the index's side, memgit.core.search_units, has them).
NO_PATTERNS = {"re", "enum", "memgit.core.lazyre"}
# `_sqlite3` imports functools for lru_cache alone (its statement cache), and functools imports collections, types,
# reprlib, keyword and operator: a prompt loads `_sqlite3` with a stand-in holding the same cache
# (memgit.store.sqlite), so without `re` (which imports them itself) none of them is imported.
NO_FUNCTOOLS = {"functools", "collections", "types", "reprlib", "keyword", "operator"}
# A sync with nothing new (memgit.verbs.sync_noop) reads the configuration and lists the agents' folders as
# every sync does (pathlib, dataclasses, the sources' discovery), and nothing of the pipeline.
NOT_IN_NOOP_SYNC = {"click", "dulwich", "litellm", "frontmatter", "markdown_it", "msgspec", "yaml", "ahocorasick_rs",
                    "numpy", "mcp", "sqlite3", "_sqlite3", "logging", "subprocess", "threading", "pickle", "datetime",
                    "tempfile", "shutil", "memgit.cli.commands", "memgit.cli.app", "memgit.store.repo",
                    "memgit.store.ledger_cache", "memgit.verbs.sync", "memgit.core.redact", "memgit.core.ledger",
                    "memgit.extract", "memgit.consolidate", "memgit.sources.claude_code.reader"}
# The hooks as installed start without site (python -S): neither it nor what its .pth files import (setuptools'
# distutils shim), unless an import needs it (tests/integration/test_hooks.py).
SITE = {"site", "sitecustomize", "_distutils_hack"}
MAIN = "from memgit.entry import main\nmain()\n"
UNRELATED = "Write a function to calculate the factorial of a number, with type hints and a docstring"


def imported(args: list[str], stdin: bytes, cwd, *, launcher: bool = False,
             **env) -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `memgit ARGS` as the console script would (with `launcher`, as the hooks `memgit install` writes
    run it: python -S, memgit's launcher), under -X importtime; return it and what it imported."""
    probe = ["-c", f"import sys\nsys.argv = ['memgit', *{args!r}]\n{MAIN}"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), **env}
    done = subprocess.run([sys.executable, "-X", "importtime", *(["-S", str(LAUNCHER), *args] if launcher else probe)],
                          input=stdin, capture_output=True, env=env, cwd=cwd, timeout=60)
    lines = [line for line in done.stderr.decode().splitlines() if line.startswith("import time:")]
    assert lines, done.stderr.decode()[-2000:]
    return done, {line.rsplit("|", 1)[1].strip() for line in lines[1:]}  # the first line is the header


def forbidden(modules: set[str], names: set[str]) -> set[str]:
    """The modules (or packages, with everything under them) of `names` that were imported."""
    return {m for m in modules if m in names or m.split(".")[0] in names}


def test_the_hooks_and_search_import_nothing_they_do_not_use(gotcha):
    stdin = payload("session-start-startup.json", cwd=str(gotcha))
    imported(["hook", "session-start"], stdin, gotcha)  # the commits after the sync made the cache stale: renewed
    start, modules = imported(["hook", "session-start"], stdin, gotcha)
    assert PROJECT_MARK in additional_context(start)  # served from the context cache the sync rendered
    assert forbidden(modules, NEVER | NOT_AT_START) == set()
    installed, modules = imported(["hook", "session-start"], stdin, gotcha, launcher=True)
    assert installed.stdout == start.stdout
    assert forbidden(modules, NEVER | NOT_AT_START | {"re", "runpy"} | SITE) == set()

    prompt, modules = imported(["hook", "user-prompt-submit"], prompt_stdin(PROMPT, gotcha), gotcha)
    assert GOTCHA in json.loads(prompt.stdout)["hookSpecificOutput"]["additionalContext"]
    assert forbidden(modules, NEVER | NOT_AT_PROMPT | WRITER) == set()
    told, modules = imported(["hook", "user-prompt-submit"], prompt_stdin(PROMPT, gotcha), gotcha, launcher=True)
    assert told.stdout == prompt.stdout
    assert forbidden(modules, NEVER | NOT_AT_PROMPT | WRITER | NO_PATTERNS | NO_FUNCTOOLS | {"runpy"} | SITE) == set()
    # The usual answer, nothing: as installed, no regular expression is compiled on the way (memgit.core.lazyre).
    quiet, modules = imported(["hook", "user-prompt-submit"], prompt_stdin(UNRELATED, gotcha), gotcha, launcher=True)
    assert quiet.returncode == 0 and quiet.stdout == b"", quiet.stderr.decode()[-2000:]
    assert forbidden(modules, NEVER | NOT_AT_PROMPT | NO_FUNCTOOLS | {"re", "runpy"} | SITE) == set()
    assert "_sqlite3" in modules

    # `[search] semantic` on, as by default: it only looks for the extra (installed, numpy would be its due).
    search, modules = imported(["search", "typesense port"], b"", gotcha, MEMGIT_SEMANTIC="1")
    assert search.returncode == 0 and "typesense" in search.stdout.decode(), search.stderr.decode()[-2000:]
    assert forbidden(modules, NEVER - ({"numpy"} if embedding.missing() is None else set())) == set()
    assert {"memgit.verbs.search", "memgit.store.search_reader"} <= modules  # the fast path, not click's
    again, modules = imported(["search", "typesense port"], b"", gotcha, MEMGIT_SEMANTIC="0")
    assert again.stdout == search.stdout and forbidden(modules, WRITER) == set()  # the index is of the heads now


def test_a_sync_with_nothing_new_imports_nothing_of_the_pipeline(claude_projects, memgit_cli, tmp_path):
    write_demo(claude_projects)
    memgit_cli("sync")
    said = memgit_cli("sync").stdout  # finds nothing new: its answer is recorded
    sync, modules = imported(["sync"], b"", tmp_path)
    assert sync.returncode == 0 and sync.stdout.decode() == said, sync.stderr.decode()[-2000:]
    assert forbidden(modules, NOT_IN_NOOP_SYNC) == set()
    assert "memgit.verbs.sync_noop" in modules  # answered from the record, not by the pipeline


SQLITE_PROBE = """
import sys
from memgit.store.sqlite import sqlite3
assert sqlite3.__name__ == "_sqlite3" and "functools" not in sys.modules, sorted(sys.modules)
db = sqlite3.connect(":memory:", cached_statements=2)
db.execute("CREATE TABLE t (n)")
for n in range(5):
    for sql in ("INSERT INTO t VALUES (?)", "INSERT INTO t VALUES (? + 10)", "INSERT INTO t VALUES (? + 20)"):
        db.execute(sql, (n,))
print(db.execute("SELECT count(*), sum(n) FROM t").fetchone())
import functools
print(functools.reduce.__module__, functools.lru_cache.__module__)  # the real module, imported afterwards
"""


def test_sqlite_loads_without_functools_and_with_the_same_statement_cache():
    """memgit.store.sqlite loads `_sqlite3` with a stand-in for functools (lru_cache: functools' own C wrapper)
    and takes it away at once: statements run through the cache as ever, and functools is the real one later."""
    done = subprocess.run([sys.executable, "-S", "-c", SQLITE_PROBE], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["(15, 180)", "_functools functools"]
    # functools imported first (any path with `re`): the ordinary import, the same module
    done = subprocess.run([sys.executable, "-c", "import functools, _sqlite3\nfrom memgit.store.sqlite import sqlite3\n"
                           "print(sqlite3 is _sqlite3)"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.stdout == "True\n", done.stderr[-2000:]


def test_the_stand_in_caches_as_lru_cache_does():
    from _functools import _lru_cache_wrapper

    from memgit.store.sqlite import _stand_in

    calls = []

    def prepare(sql):
        calls.append(sql)
        return sql.upper()

    cached = _stand_in(_lru_cache_wrapper).lru_cache(2)(prepare)
    assert [cached(s) for s in ("a", "b", "a", "c", "b", "a")] == ["A", "B", "A", "C", "B", "A"]
    assert calls == ["a", "b", "c", "b", "a"]  # two kept, the least recently used dropped first: as functools
    assert _stand_in(_lru_cache_wrapper).lru_cache(-1)(prepare)("x") == "X" and calls[-1] == "x"
