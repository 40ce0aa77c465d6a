"""The ledger: commit messages and trailers, what is processed, reverts by memgit or by hand."""

import subprocess

import pytest

from memgit.core.ledger import Ledger, entry_from_commit, format_message, parse_subject, parse_trailers, reverted_target
from memgit.core.ledger import CommitInfo


def info(message: str, sha: str = "a" * 40, time: int = 1) -> CommitInfo:
    return CommitInfo(sha=sha, parents=(), message=message, time=time)


def extract_message(session="claude-code/s1", span="0-100", kind="extract") -> str:
    return format_message(kind, "pinion", "Fix tests", body="What was done.", trailers=[
        ("Memgit-Session", session), ("Memgit-Source", "-home-u/s1.jsonl"), ("Memgit-Range", span),
        ("Memgit-Outcome", "success"), ("Memgit-Note", "sessions/2026/11/x.md"), ("Memgit-Tokens", 0),
    ])


def test_trailers_agree_with_git_interpret_trailers():
    message = extract_message()
    ours = parse_trailers(message)
    git = subprocess.run(["git", "interpret-trailers", "--parse"], input=message, capture_output=True,
                         text=True, check=True).stdout
    theirs = {}
    for line in git.splitlines():
        key, value = line.split(": ", 1)
        theirs.setdefault(key, []).append(value)
    assert ours == theirs and ours["Memgit-Range"] == ["0-100"]


def test_body_lines_starting_with_dashes_are_dropped_so_trailers_stay_visible():
    message = format_message("extract", "p", "x", body="---\nkey: v", trailers=[("Memgit-Range", "0-1")])
    assert parse_trailers(message) == {"Memgit-Range": ["0-1"]}


def test_multiline_values_are_squashed_into_one_line():
    message = format_message("skip", "p", "x", trailers=[("Memgit-Reason", "two\nlines")])
    assert parse_trailers(message)["Memgit-Reason"] == ["two lines"]


@pytest.mark.parametrize("subject,parsed", [
    ("extract(pinion): Fix tests", ("extract", "pinion", "Fix tests")),
    ("skip(main): 0123abcd empty", ("skip", "main", "0123abcd empty")),
    ("Merge branch 'x'", None),
    ('Revert "extract(pinion): Fix tests"', None),
])
def test_parse_subject(subject, parsed):
    assert parse_subject(subject) == parsed


def test_entry_from_commit_reads_the_range_and_ignores_other_commits():
    entry = entry_from_commit(info(extract_message()), "projects/pinion")
    assert (entry.kind, entry.session, entry.start, entry.end, entry.note) == (
        "extract", "claude-code/s1", 0, 100, "sessions/2026/11/x.md")
    assert entry_from_commit(info("edit(main): 1 file changed by hand\n"), "main") is None
    assert entry_from_commit(info("extract(p): no trailers\n"), "main") is None


def test_processed_end_is_the_highest_range_and_failures_are_listed():
    e1 = entry_from_commit(info(extract_message(span="0-100"), "1" * 40, 1), "b")
    e2 = entry_from_commit(info(extract_message(span="100-250"), "2" * 40, 2), "b")
    f1 = entry_from_commit(info(extract_message(session="claude-code/s2", span="0-50", kind="fail"), "3" * 40), "b")
    ledger = Ledger(entries=[e2, e1, f1, e1])
    assert ledger.processed_end("claude-code/s1") == 250
    assert ledger.processed_end("claude-code/never") == -1
    assert list(ledger.failed()) == ["claude-code/s2"]
    assert ledger.note_of("claude-code/s1").sha == "2" * 40
    assert ledger.find_sessions("s") == ["claude-code/s1", "claude-code/s2"]


def test_a_hand_made_git_revert_is_understood_and_a_revert_of_it_undoes_it():
    target = "1" * 40
    by_hand = info(f'Revert "extract(p): x"\n\nThis reverts commit {target}.\n', "4" * 40)
    assert reverted_target(by_hand) == target
    ours = info(format_message("revert", "p", "x", trailers=[("Memgit-Reverts", target)]), "5" * 40)
    assert reverted_target(ours) == target
    e1 = entry_from_commit(info(extract_message(), target), "b")
    ledger = Ledger(entries=[e1], reverts={"4" * 40: target})
    assert ledger.is_reverted(target) and ledger.note_of("claude-code/s1") is None
    assert ledger.processed_end("claude-code/s1") == 100  # reverted stays read
    again = Ledger(entries=[e1], reverts={"4" * 40: target, "6" * 40: "4" * 40})
    assert not again.is_reverted(target)
