"""Reciprocal rank fusion: several rankings of the same documents made into one, the pure part.

`memgit search` ranks by BM25 (words shared with the query) and, with the `semantic` extra, by the
cosine of static embeddings (meaning shared with the query). Their scores are on unrelated scales,
so they are fused by rank alone (Cormack, Clarke & Büttcher 2009): a document scores
sum(1 / (k + rank)) over the rankings that hold it, with ranks from 1. k = 60 damps the lead of a
first place, so a document two rankings agree on beats one that a single ranking put on top.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TypeVar

from memgit.core.search import Doc, Hit, boost, project_of
from memgit.core.vocab import teammate

K = 60
T = TypeVar("T", bound=Hashable)


def rrf(rankings: Iterable[Sequence[T]], *, k: int = K) -> list[tuple[T, float]]:
    """Fuse rankings (each best first) into one: (item, fused score), best first.

    An item found twice in one ranking counts at its best place there. Ties keep the order in
    which the items were first met (the first ranking's order first), so the result is stable.
    """
    if k < 0:
        raise ValueError(f"k must be 0 or more, not {k}")
    scores: dict[T, float] = {}
    for ranking in rankings:
        seen = set()
        for place, item in enumerate(ranking, 1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + 1.0 / (k + place)
    order = {item: i for i, item in enumerate(scores)}
    return sorted(scores.items(), key=lambda pair: (-pair[1], order[pair[0]]))


def key(hit_or_doc: Hit | Doc) -> tuple[str, str, str]:
    """What makes two results the same piece of memory: its branch, file and words."""
    return (hit_or_doc.branch, hit_or_doc.path, " ".join(hit_or_doc.text.split()))


def semantic_ranking(scored: Iterable[tuple[Doc, float]], *, current: str | None, now_date: str,
                     floor: float) -> list[Doc]:
    """Documents by cosine similarity times the same boosts as BM25 (scope, recency, support, type), best first.

    A document below `floor` (cosine) is left out: a query about nothing in memory still has
    nearest neighbours, and they must not be shown as matches.
    """
    kept = [(doc, cos * boost(doc, current=current, now_date=now_date)) for doc, cos in scored if cos >= floor]
    kept.sort(key=lambda pair: (-pair[1], pair[0].branch, pair[0].path, pair[0].unit))
    return [doc for doc, _ in kept]


def fuse(bm25_hits: Sequence[Hit], semantic_docs: Sequence[Doc], *, k: int = K,
         limit: int | None = None) -> list[Hit]:
    """BM25's ranked hits and the semantic ranking fused by RRF, as hits; best first.

    A hit keeps its BM25 snippet (the match marked); a document only the embeddings found shows
    its text's start. Each hit's `score` becomes its fused score (sum of 1/(k + rank)).
    """
    hits = {key(h): h for h in reversed(bm25_hits)}  # the best-placed copy wins
    for doc in semantic_docs:
        hits.setdefault(key(doc), _hit(doc))
    fused = rrf([[key(h) for h in bm25_hits], [key(d) for d in semantic_docs]], k=k)
    out = []
    for item, score in fused[:limit] if limit is not None else fused:
        out.append(hits[item]._replace(score=round(score, 6)))
    return out


def _hit(doc: Doc) -> Hit:
    line = " ".join(doc.text.split())
    snippet = line if len(line) <= 160 else line[:159].rstrip() + "…"
    return Hit(0.0, doc.kind, doc.type, doc.branch, project_of(doc.branch), doc.date, doc.path, doc.session,
               doc.title, snippet, doc.text, teammate(doc.path) or "")

