"""Merging near-identical learnings: the threshold, its guards, support, tiers and ranking."""

import random

import pytest

from memgit.consolidate.heuristic.graph import (
    Occurrence, content_words, jaccard, normalise, threshold, tier,
)
from memgit.consolidate.heuristic.memory import Memory


def cluster(items):
    """The clusters of occurrences, each occurrence a note of its own (as sessions write them)."""
    with Memory() as memory:
        memory.build([(f"{o.path}#{i}", [o], ("", o.session, o.when, o.title, o.source, "", "")) for i, o in enumerate(items)])
        return memory.clusters()

# Pairs from the notes memgit writes for the Claude fixtures (../shared), then pairs a person or
# an LLM extractor writes. Each row: (type, a, b, merged?, why).
PAIRS = [
    ("fact", "Shadow branches named `entire/<commit-hash>` for checkpoints.",
     "Shadow branches (`entire/<commit-hash>`) for temporary checkpoint storage.", False,
     "fixtures (projects/cli, two sessions): 0.67, under 0.7 - kept apart rather than risk a false merge"),
    ("convention", "Always run the linter before committing.", "Always run the tests before committing.", False,
     "one noun swapped, 0.67: two rules, not one"),
    ("gotcha", '`mise run lint` fails with "Error return value of `baseCommit.Tree` is not checked (errcheck)"; '
               "fixed by editing manual_commit_condensation.go.",
     '`mise run lint` fails with "Error return value of `paths.ReadCurrentSession` is not checked (errcheck)"; '
     "fixed by editing logger.go and hooks_git_cmd.go.", False,
     "fixtures (cli vs cli-2): the same linter, two different fixes, Jaccard 0.52"),
    ("command", "Tests run with `go test`.", "Tests run with `go test -count=1`.", False,
     "fixtures: different commands, however alike the sentences (0.60)"),
    ("command", "Tests run with `mise run test`.", "Tests run with `mise run test:ci`.", False,
     "fixtures: a different task (0.75 on words)"),
    ("command", "Tests run with `uv run pytest`.", "Run the tests with `uv run  pytest`", True,
     "the same command, any wording"),
    ("preference", "Don't put emoji in commit messages.", "No emoji in commit messages, please.", True,
     "a paraphrase: 0.75"),
    ("preference", "Always run the tests with `uv run pytest`; plain pytest misses the venv.",
     "Run tests with `uv run pytest` — plain `pytest` misses the venv.", True, "0.88"),
    ("convention", "Use tabs for indentation.", "Don't use tabs for indentation.", False,
     "opposite polarity, same words"),
    ("fact", "Node 18 is required to build the web frontend.", "Node 20 is required to build the web frontend.",
     False, "different numbers (0.71 on words)"),
    ("gotcha", "`docker compose up` fails with port 8108 in use; `docker rm -f typesense` fixes it.",
     "`make up` fails with port 8108 in use; `make down` fixes it.", False, "no code span in common"),
    ("preference", "Don't put emoji in commit messages.", "Don't put emoji in commit messages", True,
     "exact up to punctuation"),
    ("gotcha", "Tests fail when Redis is not running.", "Deploys fail when Redis is not running.", False,
     "one word of four swapped: 0.6, below the threshold"),
]


def occ(kind, text, session, when="2026-01-01T00:00:00", path=None, source=""):
    return Occurrence(kind, text, path or f"sessions/2026/01/{session}.md", session, when, source, session)


@pytest.mark.parametrize("kind,a,b,merged,why", PAIRS, ids=[p[4][:40] for p in PAIRS])
def test_near_identical_learnings_merge_and_different_ones_do_not(kind, a, b, merged, why):
    clusters = cluster([occ(kind, a, "s1"), occ(kind, b, "s2")])
    assert (len(clusters) == 1) is merged, why


def test_the_threshold_sits_in_the_gap_the_pairs_show():
    same = ("Don't put emoji in commit messages.", "No emoji in commit messages, please.")
    apart = ("Always run the linter before committing.", "Always run the tests before committing.")
    a, b = map(content_words, same)
    c, d = map(content_words, apart)
    assert jaccard(c, d) < threshold(len(c)) <= jaccard(a, b)
    assert threshold(5) < threshold(12) < threshold(20)  # longer statements need more overlap


def test_types_never_merge():
    assert len(cluster([occ("gotcha", "Redis must run first.", "s1"), occ("fact", "Redis must run first.", "s2")])) == 2


def test_support_counts_sessions_not_mentions():
    [c] = cluster([occ("preference", "No emoji.", "s1"), occ("preference", "No emoji!", "s1", path="x.md"),
                   occ("preference", "no emoji", "s2")])
    assert c.support == 2 and c.sessions == ["s1", "s2"]


@pytest.mark.parametrize("support,name", [(1, ""), (2, "emerging"), (3, "strong"), (4, "strong"),
                                          (5, "critical"), (40, "critical")])
def test_tiers(support, name):
    assert tier(support) == name


def test_rank_by_support_then_recency():
    items = [
        occ("fact", "Alpha fact about the queue.", "a1", "2026-01-01T00:00:00"),
        occ("fact", "Bravo fact about the cache.", "b1", "2026-03-01T00:00:00"),
        occ("fact", "Charlie fact about the index.", "c1", "2026-01-01T00:00:00"),
        occ("fact", "Charlie fact about the index.", "c2", "2026-01-02T00:00:00"),
    ]
    assert [c.text for c in cluster(items)] == [
        "Charlie fact about the index.", "Bravo fact about the cache.", "Alpha fact about the queue."]


def test_the_wording_most_sessions_used_represents_a_cluster():
    items = [occ("preference", "Don't put emoji in commit messages.", s) for s in ("s1", "s2")]
    items.append(occ("preference", "No emoji in commit messages, please.", "s3", "2027-01-01T00:00:00"))
    [c] = cluster(items)
    assert c.text == "Don't put emoji in commit messages." and c.support == 3


def test_clustering_does_not_depend_on_input_order():
    base = [occ(kind, text, f"s{i}") for i, (kind, text, _, _, _) in enumerate(PAIRS)]
    base += [occ(kind, b, f"t{i}") for i, (kind, _, b, _, _) in enumerate(PAIRS)]
    expected = [(c.type, c.text, c.sessions) for c in cluster(base)]
    for seed in range(5):
        shuffled = base[:]
        random.Random(seed).shuffle(shuffled)
        assert [(c.type, c.text, c.sessions) for c in cluster(shuffled)] == expected


def test_normalise():
    assert normalise("  Don’t  put EMOJI in commits.  ") == "don't put emoji in commits"


def test_content_words_cut_every_text_as_the_word_pattern_does():
    """ASCII is cut by a byte table and a split (a third of the time): the same words as `[a-z0-9]+`."""
    import re
    import string

    from memgit.consolidate.heuristic import graph

    rng = random.Random(5)
    alphabet = string.printable + "é’ßΩ\u00a0\u2028"
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        words = re.findall(r"[a-z0-9]+", normalise(text))
        assert content_words(text) == {graph._fold(w) for w in words
                                       if w not in graph._STOP and (len(w) > 1 or w.isdigit())}, text


def test_negation_is_found_as_the_negation_pattern_finds_it():
    """ASCII is cut into runs of word characters by a byte table (a fifth of the time): the same answer
    as `_NEGATION` ("don't" read as "dont")."""
    import string

    from memgit.consolidate.heuristic import graph

    rng = random.Random(11)
    alphabet = string.ascii_lowercase[:6] + "notdwhiucsrpvl _'-.`1\t" + "é’"
    words = ["not", "no", "never", "none", "nothing", "nor", "avoid", "without", "cannot", "dont", "stop", "don't",
             "isn't", "n't", "note", "know", "_no", "no_"]
    negated = 0
    for _ in range(30_000):
        text = normalise(" ".join(rng.choice(words) if rng.random() < 0.3 else
                                  "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 6)))
                                  for _ in range(rng.randint(0, 5))))
        expected = bool(graph._NEGATION.search(text.replace("don't", "dont")))
        assert graph._negated(text) == expected, text
        negated += expected
    assert 5_000 < negated < 25_000
