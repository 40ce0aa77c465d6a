"""Semantic recall for `memgit search`: with the `semantic` extra installed (and `[search] semantic`
not turned off), BM25's ranking is fused by RRF with the documents nearest in meaning to the query.

The embeddings are a cache beside the search index (memgit.store.semantic_index), brought up to
date here, at search time, when the index moved: sync and the hooks never load the model (numpy
and the model take ~0.3-1 s to load, far over the prompt hook's budget). Without the extra, or
when anything about it fails, search is BM25 alone, as without this module.
"""

from __future__ import annotations

from collections.abc import Sequence

from memgit.core.search import Hit
from memgit.errors import MemgitError

TYPE_CHECKING = False  # every search imports this module: neither typing nor memgit.config (dataclasses)
if TYPE_CHECKING:
    from memgit.config import Config

POOL = 50  # from each ranking: RRF past 50 places adds less than 1/110 per document
FLOOR = 0.2  # cosine below which a document is no semantic match: the best of 0, 0.2, 0.3, 0.4 on the eval (bench/README.md)


def available() -> str | None:
    """Why semantic search cannot run here (what to install), or None when it can."""
    from memgit.store import embedding

    return embedding.missing()


def wanted(cfg: Config, semantic: bool | None) -> bool:
    """Whether this search fuses: asked for (--semantic), or on in the config and installed.

    Raises:
        MemgitError: --semantic was asked for and the extra is not installed (says what to install).
    """
    if semantic is False or (semantic is None and not cfg.semantic):
        return False
    reason = available()
    if reason and semantic:
        raise MemgitError(reason)
    return reason is None


def fuse(cfg: Config, query: str, bm25_hits: Sequence[Hit], *, branches: Sequence[str] | None,
         types: Sequence[str], since: str | None, current: str | None, today: str, limit: int) -> list[Hit]:
    """BM25's hits (ranked, best first) fused with the semantic ranking; BM25's alone if that fails."""
    from memgit.core import fusion
    from memgit.store import embedding, semantic_index
    from memgit.store.sqlite import sqlite3

    try:
        model = embedding.load()
        counts = semantic_index.update(cfg.state_dir, model)
        _log().debug("semantic cache: %s", counts)
        near = semantic_index.query(cfg.state_dir, model, query, branches=branches, types=types, since=since,
                                    limit=POOL)
    except (OSError, sqlite3.Error, RuntimeError, ValueError) as e:
        _log().warning("semantic search skipped: %s", e)
        return list(bm25_hits[:limit])
    docs = fusion.semantic_ranking(near, current=current, now_date=today, floor=FLOOR)
    return fusion.fuse(bm25_hits[:POOL], docs, limit=limit)


def _log():
    import logging  # ~7 ms: every search loads this module, few ever log from it

    return logging.getLogger("memgit.verbs.semantic")
