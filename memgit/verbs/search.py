"""`memgit search`: the index brought up to date when the branch heads moved, queried, and ranked
with the cwd's project first; and `refresh_index`, called after every commit memgit makes.

A fresh index is answered without opening the repository (no dulwich): the heads are read from
the ref files and compared with the ones indexed, over the one connection the search then reads.
"""

from __future__ import annotations

import os
import time

from memgit.core import vocab
from memgit.core.search import Hit, match_every, match_expression, rank
from memgit.errors import NotARepo, UsageError
from memgit.store import search_reader
from memgit.store.context_cache import read_heads
from memgit.store.sqlite import sqlite3
from memgit.verbs import semantic as semantic_search

TYPE_CHECKING = False  # the typing module is not imported: a search starts a process for a few milliseconds
if TYPE_CHECKING:
    from collections.abc import Sequence

    from memgit.config import Config

POOL = 20  # candidates fetched per hit asked for: the boosts reorder BM25's best, never rescue its worst
MIN_POOL = 200


def search(cfg: Config, query: str, *, project: str | None = None, types: Sequence[str] = (),
           since: str | None = None, all_projects: bool = False, limit: int = 10, cwd: str | None = None,
           now: float | None = None, semantic: bool | None = None) -> list[Hit]:
    """Search every scope's memory for `query`, best first; the index is brought up to date first.

    Args:
        project: only this project's branch (exact slug or branch, or a prefix only it has; "main"
            for the global scope).
        types: only learnings of these types.
        since: only what is dated on or after this day (YYYY-MM-DD).
        all_projects: rank every scope alike (the cwd's project is not put first).
        cwd: where the search is run from (default: the process's): its project comes first.
        semantic: fuse with the embeddings' ranking (memgit.verbs.semantic): True to insist, False
            for BM25 alone, None as `[search] semantic` says when the `semantic` extra is installed.
    Returns:
        the hits, at most `limit`; [] when nothing matches.
    Raises:
        UsageError: an empty or unsearchable query, an unknown type, a bad date or limit, or
            `project` with `all_projects`.
        NoMatch, AmbiguousSelector: `project` names no branch, or several.
        NotARepo: there is no memory repository.
    """
    match = match_expression(query)
    if not match:
        raise UsageError(f"nothing to search for in {query!r}: give words, a \"phrase\" or a prefix*")
    unknown = [t for t in types if t not in vocab.TYPES]
    if unknown:
        raise UsageError(f"unknown type {unknown[0]!r}; one of {', '.join(vocab.LEARNING_TYPES)}")
    if since is not None:
        from datetime import date as Date

        try:
            since = Date.fromisoformat(since).isoformat()
        except ValueError as e:
            raise UsageError(f"--since wants a day as YYYY-MM-DD, not {since!r}") from e
    if limit < 1:
        raise UsageError(f"--limit must be 1 or more, not {limit}")
    if project and all_projects:
        raise UsageError("give --project or --all-projects, not both")
    every_head = read_heads(os.path.join(cfg.repo_path, ".git"))
    heads = {b: sha for b, sha in every_head.items() if b == vocab.MAIN or b.startswith(vocab.PREFIX)}
    if vocab.MAIN not in heads:
        raise NotARepo(f"no memory repository at {cfg.repo_path}; run `memgit init` or `memgit sync` to create it")
    index = _index(cfg, heads)
    try:
        branches = None
        if project:
            from memgit.core.selector import pick, project_names

            named = {p["branch"]: p.get("name") for p in search_reader.projects(cfg.state_dir)}
            names = {b: project_names(b, named.get(b)) if b != vocab.MAIN else (b,) for b in heads}
            branches = [pick(project, names, what="project", hint="`memgit projects` lists them")]
        current = None if all_projects or project else _current(cfg, every_head, heads, cwd or os.getcwd())
        found = search_reader.Found([], [], match) if index is None else search_reader.query(
            index, match, every=match_every(query), branches=branches, types=tuple(types), since=since,
            limit=max(limit * POOL, MIN_POOL))
        today = time.strftime("%Y-%m-%d", time.gmtime(time.time() if now is None else now))  # the UTC day
        if semantic_search.wanted(cfg, semantic):
            hits = semantic_search.fuse(cfg, query, rank(found.candidates, current=current, now_date=today),
                                        branches=branches, types=types, since=since, current=current, today=today,
                                        limit=limit)
        else:
            hits = rank(found.candidates, current=current, now_date=today, limit=limit)
        return _marked(index, found, hits)
    finally:
        if index is not None:
            index.close()


def _index(cfg: Config, heads: dict[str, str]) -> sqlite3.Connection | None:
    """The index opened to read, of `heads` (brought up to date first when they moved); None without one."""
    index = search_reader.reading(cfg.state_dir)
    try:
        if index is not None and search_reader.heads(index) == heads:
            return index
    except sqlite3.DatabaseError:
        pass  # brought up to date: a broken one is built anew
    if index is not None:
        index.close()
    _refresh(cfg)
    return search_reader.reading(cfg.state_dir)


def _marked(index: sqlite3.Connection | None, found: search_reader.Found, hits: list[Hit]) -> list[Hit]:
    """The hits with the words they match marked, read for the hits shown only (memgit.store.search_reader.snippets)."""
    row_of = {(d.branch, d.path, d.text): row for (d, _), row in zip(found.candidates, found.rows)}
    rows = [row_of.get((h.branch, h.path, h.text)) for h in hits]
    marked = search_reader.snippets(index, found.match, [r for r in rows if r is not None]) if index else {}
    return [h._replace(snippet=marked[row]) if row in marked else h for h, row in zip(hits, rows)]


def _refresh(cfg: Config) -> None:
    from memgit.store.repo import MemoryRepo

    with MemoryRepo.open(cfg.repo_path, author=cfg.author) as repo:
        refresh_index(repo, cfg)


def refresh_index(repo, cfg: Config) -> None:
    """Bring the search index up to date with the repository's heads; a broken index is built anew.

    Cheap when nothing moved (the heads are compared first); never raises for the index's sake
    (a full or read-only disk is logged: search then reads what the index holds). A shared project
    that moved is indexed with the teammates' notes its reader may be told (memgit.verbs.team_memory).
    """
    from memgit.store import search_index

    try:
        if search_index.indexed_heads(cfg.state_dir) == {b: s for b, s in repo.branches().items()
                                                          if b == vocab.MAIN or b.startswith(vocab.PREFIX)}:
            return
        from memgit.verbs import team_memory

        counts = search_index.update(repo, cfg.state_dir,
                                     team=lambda branch, head: team_memory.searchable(repo, cfg, branch, head))
        _log().debug("search index: %s", counts)
    except (OSError, sqlite3.Error) as e:
        _log().warning("search index not updated: %s", e)


def _current(cfg: Config, every_head: dict[str, str], heads: dict[str, str], cwd: str) -> str | None:
    """The project branch of `cwd`, as sync files a session started there; None outside every project.

    The context cache's memo of directories answers when the cache is of the current heads (its
    projects are then the index's); else the projects the index holds are read and resolved.
    """
    from memgit.verbs.cwd_branch import of_cwd

    # a memo that cannot be written costs only speed
    branch = of_cwd(str(cfg.state_dir), cwd, [], heads=every_head)
    return branch if branch in heads else None


def _log():
    import logging  # ~7 ms: imported only when an index update has something to say

    return logging.getLogger("memgit.verbs.search")
