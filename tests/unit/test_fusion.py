"""Reciprocal rank fusion (memgit.core.fusion): BM25's hits and the embeddings' ranking made one."""

from __future__ import annotations

import pytest

from memgit.core.fusion import fuse, key, rrf, semantic_ranking
from memgit.core.search import Doc, Hit


def test_rrf_scores_are_the_sum_of_reciprocal_ranks():
    fused = dict(rrf([["a", "b", "c"], ["c", "a"]], k=60))
    assert fused["a"] == pytest.approx(1 / 61 + 1 / 62)
    assert fused["b"] == pytest.approx(1 / 62)
    assert fused["c"] == pytest.approx(1 / 63 + 1 / 61)


def test_what_both_rankings_hold_beats_what_one_put_first():
    order = [item for item, _ in rrf([["only-bm25", "both"], ["only-cosine", "both"]])]
    assert order[0] == "both"
    assert set(order) == {"both", "only-bm25", "only-cosine"}


def test_a_small_k_lets_a_first_place_win():
    # k sets how much a first place is worth against agreement: with k=0, 1/1 > 1/3 + 1/3.
    order = [item for item, _ in rrf([["top", "x", "both"], ["y", "z", "both"]], k=0)]
    assert order[:2] == ["top", "y"]


def test_ties_keep_the_first_ranking_order_and_repeats_count_once():
    fused = rrf([["a", "b", "a"], ["b", "a"]])
    assert [item for item, _ in fused] == ["a", "b"]  # equal scores: a was met first
    assert dict(fused)["a"] == pytest.approx(1 / 61 + 1 / 62)  # its repeat at place 3 adds nothing


def test_rrf_refuses_a_negative_k_and_fuses_nothing_to_nothing():
    with pytest.raises(ValueError):
        rrf([["a"]], k=-1)
    assert rrf([[], []]) == []


def doc(text, branch="projects/pinion", path="sessions/a.md", unit=1, date="2026-11-20", type_="gotcha"):
    return Doc(branch, path, unit, "learning", type_, "Title", text, "claude-code/abc", date)


def hit(text, branch="projects/pinion", path="sessions/a.md", snippet=None):
    return Hit(5.0, "learning", "gotcha", branch, "pinion", "2026-11-20", path, "claude-code/abc", "Title",
               snippet or f"[[{text}]]", text)


def test_fuse_keeps_bm25_snippets_and_adds_what_only_the_embeddings_found():
    bm25 = [hit("port 8108 in use"), hit("tests run with uv", path="sessions/b.md")]
    near = [doc("DNS resolver broken on the VM", path="sessions/c.md"), doc("port  8108 in use")]
    fused = fuse(bm25, near, limit=10)
    by_text = {h.text: h for h in fused}
    assert fused[0].text == "port 8108 in use"  # both rankings hold it (the whitespace differs: same words)
    assert by_text["port 8108 in use"].snippet == "[[port 8108 in use]]"
    assert by_text["DNS resolver broken on the VM"].snippet == "DNS resolver broken on the VM"
    assert by_text["DNS resolver broken on the VM"].project == "pinion"
    assert len(fused) == 3
    assert fused[0].score == pytest.approx(1 / 61 + 1 / 62, abs=1e-6)  # rounded to 6 places
    assert [h.score for h in fused] == sorted((h.score for h in fused), reverse=True)


def test_fuse_respects_the_limit_and_the_same_words_in_two_branches_stay_two_hits():
    bm25 = [hit("same words", branch="main", path="MEMORY.md"), hit("same words")]
    assert len(fuse(bm25, [doc("other")], limit=2)) == 2
    assert key(bm25[0]) != key(bm25[1])
    assert fuse([], [], limit=5) == []


def test_the_semantic_ranking_drops_what_is_below_the_floor_and_boosts_like_bm25():
    scored = [(doc("far", path="sessions/far.md"), 0.1),
              (doc("other project", branch="projects/other", path="sessions/o.md"), 0.5),
              (doc("current project", path="sessions/c.md"), 0.5)]
    ranked = semantic_ranking(scored, current="projects/pinion", now_date="2026-11-25", floor=0.3)
    assert [d.text for d in ranked] == ["current project", "other project"]
