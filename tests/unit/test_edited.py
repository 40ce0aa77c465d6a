"""The files a session edited, as its note's paragraph says them and the consolidator reads them back."""

import pytest

from memgit.core.edited import SHOWN, edited_files, phrase


@pytest.mark.parametrize("names", [["ReleaseNotes.md"], ["Makefile", "ReleaseNotes.md"],
                                   ["11_optimize-indexes.up.sql", "11_optimize-indexes.down.sql", "migration.go"],
                                   ["a.go", "b.go", "c.go", "d.go"]])
def test_what_the_extractor_writes_reads_back(names):
    summary = f"The user asked: update the notes. The agent {phrase(names)}, ran 3 shell commands and made 1 other tool call."
    assert edited_files(summary) == tuple(names)


def test_a_partial_list_or_no_list_reads_as_no_files():
    many = [f"f{i}.go" for i in range(SHOWN + 2)]
    assert phrase(many).endswith("and 2 more)")
    assert edited_files(f"The agent {phrase(many)}.") == ()  # broad work: the files shown are not all
    assert edited_files("The agent answered without using tools.") == ()
    assert edited_files("Refactored the parser; the agent edited the README by hand.") == ()  # an LLM's words
    assert edited_files("The agent edited 2 files (a.go).") == ()  # a count the list does not match
