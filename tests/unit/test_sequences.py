"""Numbered files as the project's convention (schema migrations): the form the work shows, worded the
same in every session so that two sessions meet in one learning that reaches the briefing (issue 17)."""

from __future__ import annotations

from memgit.extract.heuristic import sequences, session
from tests.unit.test_heuristic import CWD, agent, call, learned, transcript, user


def write(path: str) -> object:
    return call("Write", file_path=f"{CWD}/{path}", content="-- sql\n")


def conventions(*paths: str) -> list[str]:
    return learned(user("add an index for the running jobs query"), agent(*[write(p) for p in paths]),
                   kinds=("convention",))


def test_a_migration_pair_and_the_file_that_keeps_the_version_make_one_convention():
    # c31c699a, 87b3c7c9, efbcf0f5 … (scale): 11_optimize-indexes.up.sql + .down.sql + migration.go
    found = conventions("internal/repository/migrations/sqlite3/13_status-covering-indexes.up.sql",
                        "internal/repository/migrations/sqlite3/13_status-covering-indexes.down.sql",
                        "internal/repository/migration.go", "internal/repository/jobQuery.go")
    assert found == ["New files in `internal/repository/migrations/sqlite3/` are numbered in sequence: "
                     "`NN_name.up.sql` and `NN_name.down.sql`; `migration.go` changes with them."]


def test_two_sessions_word_it_alike_whatever_the_migration():
    first = conventions("db/migrations/0003_add_index.py")
    second = conventions("db/migrations/0004_drop_column.py")
    assert first == second == ["New files in `db/migrations/` are numbered in sequence: `NNNN_name.py`."]
    rails = conventions("db/migrate/20240101120000_create_users.rb")
    assert rails == ["New files in `db/migrate/` are numbered in sequence: `TIMESTAMP_name.rb`."]


def test_no_numbered_file_or_one_outside_the_project_is_no_convention():
    assert conventions("internal/repository/jobQuery.go") == []
    s = session.read(transcript(user("add a migration"), agent(call("Write", file_path="/tmp/scratch/01_try.sql",
                                                                     content="x"))))
    assert sequences.learn(s) == []
