"""A text a source cut to its head and tail (memgit.sources.trim) yields whole sentences only.

The cut falls anywhere, mid-word too: the sentence or list item it ends and the half sentence the
text resumes with are not statements, and a learning quoting them does not stand alone.
"""

from __future__ import annotations

from memgit.extract.heuristic.text import own_words, units
from memgit.sources.trim import trim

PLAN = (
    "## Release 1.5.3\n\n"
    "The release notes cover every fix merged since the last tag. The checkpoint archiver keeps one "
    "interval of history so a restart replays the WAL.\n\n"
    "- Doubleranged filters: both bounds are applied to the query.\n"
    + "- Filler item that only pads the plan out to a long text.\n" * 60
    + "- Manual checkpoint cleanup CLI flag (`-cleanup-checkpoints`): trigger checkpoint cleanup without "
    "starting the server.\n"
    "- Explicit node state queries in node view: health and scheduler state are fetched apart from the metrics.\n"
)


def _texts(text: str) -> list[str]:
    return [u.text for u in units(text)]


def test_no_unit_holds_the_cut_or_a_half_of_what_it_cut():
    for head in range(150, 700, 37):  # the cut at many places: mid-word, mid-sentence, mid-item
        cut = trim(PLAN, head, 160, clean=lambda t: t)
        assert "chars trimmed" in cut
        said = _texts(cut)
        assert said and not any("trimmed" in s for s in said)
        whole = set(_texts(PLAN))
        assert set(said) <= whole, set(said) - whole  # every unit is one the uncut text has


def test_a_short_text_is_split_as_before():
    assert _texts(PLAN) == _texts(trim(PLAN, len(PLAN), 0))
    assert "Explicit node state queries in node view: health and scheduler state are fetched apart from the " \
           "metrics." in _texts(PLAN)


def test_a_tail_that_starts_inside_a_code_block_is_read_as_code():
    text = ("Run the suite first.\n\n" + "The output is long. " * 20 + "\n\n```\n" + "go test ./...\n" * 200
            + "```\n\nThe suite passes on Linux only.")
    cut = trim(text, 24, 60, clean=lambda t: t)  # the fence that opened the block is in what was cut
    assert _texts(cut) == ["Run the suite first.", "The suite passes on Linux only."]
    assert "go test" not in own_words(cut)
