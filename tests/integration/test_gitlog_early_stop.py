"""A reader of `git log` may stop early (team_purge.rewrite_of does): git then dies of SIGPIPE, and that
is no failure to report; a history read to its end still reports one."""

from __future__ import annotations

import subprocess

import pytest

from memgit.store.gitlog import git_log


@pytest.fixture(scope="module")
def long_history(tmp_path_factory):
    repo = tmp_path_factory.mktemp("log")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    message = repo / "message.txt"
    message.write_text("subject\n\n" + "a long body line of the commit message\n" * 40_000)  # ~1.6 MB each
    for _ in range(4):  # more than the 1 MB pipe and the first read hold: git is still writing
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q",
                        "--allow-empty", "-F", str(message)], check=True)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True,
                          text=True).stdout.strip()
    return repo / ".git", head


def test_a_reader_that_stops_after_the_first_commit_gets_no_error(long_history):
    git_dir, head = long_history
    commits = git_log(str(git_dir), head.encode(), None)
    assert commits is not None
    first = next(commits)
    assert first.sha == head
    commits.close()  # raised "`git log` failed …" when git died of the closed pipe


def test_the_whole_history_is_read(long_history):
    git_dir, head = long_history
    assert len(list(git_log(str(git_dir), head.encode(), None))) == 4
