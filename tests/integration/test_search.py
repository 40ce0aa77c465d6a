"""`memgit search` on real memory repositories made by `memgit sync` of synthetic transcripts: what a
person finds, how it is ranked, and the index kept true after every way the branches move (sync,
remember, forget, a person's commit, `git revert`, a rewritten history, a join of another machine)."""

from __future__ import annotations

import json
import os

import pytest

from memgit.config import load as load_config
from memgit.store import search_index
from memgit.store.context_cache import read_heads
from memgit.store.repo import MemoryRepo
from tests.conftest import age, fsck, git
from tests.integration import test_hooks, test_join
from tests.integration.test_hooks import make_git_project, project_session

world = test_hooks.world  # the project pinion (origin acme/pinion) synced once; a pinned note on main
two = test_join.two  # machines a and b, each with pinion and sessions of its own

HIT_KEYS = ["score", "kind", "type", "branch", "project", "date", "path", "session", "title", "snippet", "text", "person"]


def search(memgit_cli, *args: str) -> dict:
    result = memgit_cli("search", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def state_dir(memory_path):
    return memory_path / ".git" / "memgit"


def fresh(memory_path) -> bool:
    """The index holds every memgit branch at its head (nothing left for the next search to do)."""
    heads = {b: s for b, s in read_heads(str(memory_path / ".git")).items() if b == "main" or b.startswith("projects/")}
    return search_index.indexed_heads(state_dir(memory_path)) == heads


def commit_as_a_person(memory_path, path: str, text: str, message: str) -> None:
    (memory_path / path).parent.mkdir(parents=True, exist_ok=True)
    (memory_path / path).write_text(text)
    git(memory_path, "add", path)
    git(memory_path, "-c", "user.name=p", "-c", "user.email=p@example.com", "commit", "-q", "-m", message)


@pytest.fixture
def other(world, tmp_path, claude_projects, memgit_cli):
    """A second project, `gears`, whose session taught the same things as pinion's."""
    project = make_git_project(tmp_path / "dev" / "gears", "git@github.com:acme/gears.git")
    age(project_session(project, "gears-world").write(claude_projects))
    assert memgit_cli("sync").exit_code == 0
    return project


def test_a_hit_says_what_it_is_where_it_matched_and_how_to_open_it(world, memgit_cli, memory_path, monkeypatch):
    monkeypatch.chdir(world)
    result = memgit_cli("search", "emoji")
    assert result.exit_code == 0
    first = result.stdout.split("\n2. ")[0]
    assert first.startswith("1. [preference] pinion · ") and "· learning" in first
    assert "[[emoji]]" in first
    command = next(line.split("memgit show ", 1)[1].split()[0] for line in first.splitlines() if "memgit show" in line)
    assert command.startswith("projects/pinion:sessions/") and "(session claude-code/" in first
    shown = memgit_cli("show", command)
    assert shown.exit_code == 0 and "emoji" in shown.stdout
    hit = search(memgit_cli, "emoji")["hits"][0]
    assert memgit_cli("show", hit["session"]).stdout == shown.stdout  # the session id opens the same note


def test_json_has_a_stable_schema(world, memgit_cli, monkeypatch):
    monkeypatch.chdir(world)
    out = search(memgit_cli, "tests")
    assert list(out) == ["ok", "query", "hits"] and out["ok"] is True and out["query"] == "tests"
    assert out["hits"] and all(list(h) == HIT_KEYS for h in out["hits"])
    assert all(isinstance(h["score"], float) and h["snippet"] for h in out["hits"])
    assert [h["score"] for h in out["hits"]] == sorted((h["score"] for h in out["hits"]), reverse=True)


def test_words_are_stemmed_and_phrases_and_prefixes_work(world, memgit_cli, monkeypatch):
    monkeypatch.chdir(world)
    assert any("[[commit messages]]" in h["snippet"] or "[[commit]] [[messages]]" in h["snippet"]
               for h in search(memgit_cli, '"commit messages"')["hits"])
    assert search(memgit_cli, "committing")["hits"]  # stemmed: "commit"
    assert search(memgit_cli, "emo*")["hits"][0]["type"] == "preference"
    assert search(memgit_cli, '"messages commit"')["hits"] == []  # a phrase keeps its order


def test_the_current_project_comes_first_then_main_and_project_restricts(other, world, memgit_cli, memory_path,
                                                                         monkeypatch):
    monkeypatch.chdir(world)
    assert memgit_cli("remember", "No emoji in release notes either", "--global").exit_code == 0
    order = [h["project"] for h in search(memgit_cli, "emoji", "--limit", "20")["hits"]]
    assert order[0] == "pinion" and {"pinion", "gears", "main"} <= set(order)
    assert order.index("main") < order.index("gears")
    monkeypatch.chdir(other)
    assert search(memgit_cli, "emoji")["hits"][0]["project"] == "gears"
    monkeypatch.chdir(memory_path.parent)  # in no project: main first
    assert search(memgit_cli, "emoji")["hits"][0]["project"] == "main"
    assert {h["project"] for h in search(memgit_cli, "emoji", "--project", "pin")["hits"]} == {"pinion"}
    assert {h["project"] for h in search(memgit_cli, "emoji", "--project", "main")["hits"]} == {"main"}
    assert {h["project"] for h in search(memgit_cli, "emoji", "--all-projects", "--limit", "20")["hits"]} == \
        {"pinion", "gears", "main"}
    assert memgit_cli("search", "emoji", "--project", "nope").exit_code != 0


def test_the_more_recent_of_two_equal_notes_comes_first(world, memgit_cli, memory_path, monkeypatch):
    monkeypatch.chdir(world)
    for day, when in (("2024-01-10", "Mondays"), ("2026-11-19", "Fridays")):  # as many words: the same BM25
        commit_as_a_person(memory_path, f"notes/{day}-kiwi.md", f"---\nadded: '{day}'\n---\nThe kiwi cache is warm on {when}.\n",
                           f"remember(main): kiwi {day}")
    assert [h["date"] for h in search(memgit_cli, "kiwi")["hits"]] == ["2026-11-19", "2024-01-10"]


def test_memgits_own_wording_is_not_searched_the_sessions_commands_are(world, memgit_cli, memory_path, monkeypatch):
    # the note's paragraph says "The user asked: … 1 follow-up request came after. The agent ran 1 shell
    # command, including `uv run pytest -x tests/`. It ended with … (success)." in every note of memory
    monkeypatch.chdir(world)
    paragraph = git(memory_path, "show", f"projects/pinion:{search(memgit_cli, 'emoji')['hits'][0]['path']}")
    assert "shell command" in paragraph and "follow-up request" in paragraph and "(success)" in paragraph
    for frame in ("shell", "follow-up", "request", "success", "agent"):
        assert [h for h in search(memgit_cli, frame)["hits"] if h["kind"] == "note"] == [], frame
    notes = [h for h in search(memgit_cli, '"uv run pytest"')["hits"] if h["kind"] == "note"]
    assert notes and "`uv run pytest -x tests/`" in notes[0]["text"]  # the command it ran still finds the note


def test_type_and_since_filter_and_bad_values_are_errors(world, memgit_cli, monkeypatch):
    monkeypatch.chdir(world)
    hits = search(memgit_cli, "emoji tests pytest", "--type", "preference", "--limit", "50")["hits"]
    assert hits and {h["type"] for h in hits} == {"preference"}
    both = search(memgit_cli, "emoji tests pytest", "--type", "preference", "--type", "command", "--limit", "50")
    assert {h["type"] for h in both["hits"]} >= {"preference"} and len(both["hits"]) >= len(hits)
    bad = memgit_cli("search", "emoji", "--type", "gotchas")
    assert bad.exit_code == 2 and "unknown type 'gotchas'" in bad.stderr and "preference" in bad.stderr
    assert search(memgit_cli, "emoji", "--since", "2999-01-01")["hits"] == []
    assert memgit_cli("search", "emoji", "--since", "yesterday").exit_code == 2


def test_nothing_found_is_not_an_error_but_nothing_to_search_for_is(world, memgit_cli, monkeypatch):
    monkeypatch.chdir(world)
    result = memgit_cli("search", "zanzibar")
    assert result.exit_code == 0 and result.stdout.strip() == "no memory matches 'zanzibar'"
    assert search(memgit_cli, "zanzibar")["hits"] == []
    for query in ("", "   ", '"" - *'):
        empty = memgit_cli("search", query)
        assert empty.exit_code == 2 and "nothing to search for" in empty.stderr


ODD = ['"', '"unclosed emoji', "-emoji", "emoji -commit", "*", "emoji*", "AND", "emoji AND OR NOT", "NEAR(emoji commit)",
       "text:emoji", "^emoji", "(", "{emoji}", "ünïcödé 日本語 🚀", "'; DROP TABLE docs; --", "emoji\nnewline", "x" * 5000]


@pytest.mark.parametrize("query", ODD)
def test_odd_queries_never_crash(world, memgit_cli, monkeypatch, query):
    monkeypatch.chdir(world)
    result = memgit_cli("search", "--json", "--", query)
    assert result.exit_code in (0, 2), result.output
    assert json.loads(result.stdout)["ok"] is (result.exit_code == 0)


def test_sync_remember_and_forget_leave_the_index_fresh(world, memgit_cli, memory_path, claude_projects, monkeypatch):
    monkeypatch.chdir(world)
    assert memgit_cli("sync").exit_code == 0  # settles what the world's hand-made consolidation left
    assert search(memgit_cli, "emoji")["hits"] and fresh(memory_path)
    before = os.stat(search_index.path_of(state_dir(memory_path))).st_mtime_ns
    assert memgit_cli("sync").exit_code == 0  # nothing new: the index is not touched
    assert os.stat(search_index.path_of(state_dir(memory_path))).st_mtime_ns == before
    assert memgit_cli("remember", "The zanzibar cluster needs a VPN", "--type", "gotcha").exit_code == 0
    assert fresh(memory_path)
    assert search(memgit_cli, "zanzibar")["hits"][0]["kind"] == "pinned"
    assert memgit_cli("forget", "zanzibar", "--yes").exit_code == 0
    assert fresh(memory_path) and search(memgit_cli, "zanzibar")["hits"] == []
    session = project_session(world, "second").user("Remember: the quokka service restarts at noon.")
    age(session.write(claude_projects))
    assert memgit_cli("sync").exit_code == 0 and fresh(memory_path)


def test_a_persons_commit_and_its_git_revert_are_seen_at_the_next_search(world, memgit_cli, memory_path, monkeypatch):
    monkeypatch.chdir(world)
    commit_as_a_person(memory_path, "notes/2026-11-21-llama.md", "---\nadded: '2026-11-21'\n---\nThe llama job runs hourly.\n",
                       "a note of my own")
    assert not fresh(memory_path)
    hit = search(memgit_cli, "llama")["hits"][0]
    assert (hit["branch"], hit["path"], hit["kind"]) == ("main", "notes/2026-11-21-llama.md", "pinned")
    git(memory_path, "-c", "user.name=p", "-c", "user.email=p@example.com", "revert", "--no-edit", "HEAD")
    assert search(memgit_cli, "llama")["hits"] == []
    assert fresh(memory_path)
    fsck(memory_path)


def test_a_rewritten_history_is_indexed_again_whole(world, memgit_cli, memory_path, monkeypatch):
    monkeypatch.chdir(world)
    commit_as_a_person(memory_path, "notes/2026-11-21-llama.md", "---\nadded: '2026-11-21'\n---\nThe llama job.\n", "mine")
    assert search(memgit_cli, "llama")["hits"]
    git(memory_path, "reset", "-q", "--hard", "HEAD~1")
    commit_as_a_person(memory_path, "notes/2026-11-21-alpaca.md", "---\nadded: '2026-11-21'\n---\nThe alpaca job.\n", "mine")
    cfg = load_config(repo_path=str(memory_path))
    with MemoryRepo.open(memory_path) as repo:
        counts = search_index.update(repo, cfg.state_dir)
    assert counts["rebuilt"] == 1 and counts["branches"] == 1  # main, whose old head is no ancestor any more
    assert search(memgit_cli, "llama")["hits"] == [] and search(memgit_cli, "alpaca")["hits"]
    assert "main" in branches_agree(memory_path).values()  # main's subjects removed and given new ids


def test_deleting_or_breaking_the_index_changes_nothing_but_speed(other, world, memgit_cli, memory_path, monkeypatch):
    monkeypatch.chdir(world)
    queries = ["emoji", "tests pytest", '"commit messages"', "fri*"]
    before = [search(memgit_cli, q, "--limit", "20") for q in queries]
    assert all(b["hits"] for b in before)
    index = search_index.path_of(state_dir(memory_path))
    os.unlink(index)
    assert [search(memgit_cli, q, "--limit", "20") for q in queries] == before
    with open(index, "wb") as f:
        f.write(b"this is not a database" * 100)
    assert [search(memgit_cli, q, "--limit", "20") for q in queries] == before
    with open(index, "r+b") as f:  # a real database cut short
        f.truncate(os.path.getsize(index) // 3)
    assert [search(memgit_cli, q, "--limit", "20") for q in queries] == before


def branches_agree(memory_path) -> dict[int, str]:
    """The prompt hook's one-row map of each subject's branch (subject_branches) says what `subjects` says."""
    from memgit.store.search_reader import Reader

    with Reader.open(state_dir(memory_path)) as reader:
        subjects = dict(reader._db.execute("SELECT id, branch FROM subjects").fetchall())
        top = reader._db.execute("SELECT max(id) FROM subjects").fetchone()[0] or 0
        assert reader.branches(list(range(top + 50))) == subjects  # an id of no subject has no branch
    return subjects


def test_the_prompt_hooks_reads_give_what_plain_reads_give(other, world, memgit_cli, memory_path, monkeypatch):
    """Reader.holding and holding_among read the ids joined in one row (group_concat): the same ids, in the same
    (rowid) order, as one row per subject; Reader.units the texts from FTS5's content table, as the FTS5 table
    gives them."""
    from memgit.store.search_reader import Reader

    monkeypatch.chdir(world)
    assert search(memgit_cli, "emoji")["hits"]
    with Reader.open(state_dir(memory_path)) as reader:
        def rows(match: str) -> list[int]:
            sql = "SELECT rowid FROM subject_fts WHERE subject_fts MATCH ?"
            return [r[0] for r in reader._db.execute(sql, (match,))]

        words = ["tests", "pytest", "emoji", "commit", "the", "nothingatall"]
        held = {w: reader.holding(w) for w in words}
        assert held == {w: rows(f'"{w}"') for w in words} and held["tests"] and held["nothingatall"] == []
        assert reader.holding_among("tests", ["pytest", "emoji"]) == rows('"tests" AND ("pytest" OR "emoji")')
        # each subject's units read from FTS5's content table are what the FTS5 table gives
        ids = list(range(reader._db.execute("SELECT max(subject) FROM subject_units").fetchone()[0] + 1))
        through = reader._db.execute("SELECT u.subject, f.text FROM subject_units u JOIN docs d ON d.id = u.doc "
                                     "JOIN fts f ON f.rowid = d.id ORDER BY u.subject, d.unit").fetchall()
        assert [(s, doc.text) for s, docs in reader.units(ids).items() for doc in docs] == through and through


def test_each_subjects_branch_is_kept_in_one_row_as_the_branches_move(other, world, memgit_cli, memory_path,
                                                                       monkeypatch):
    monkeypatch.chdir(world)
    assert search(memgit_cli, "emoji")["hits"]
    assert set(branches_agree(memory_path).values()) == {"projects/pinion", "projects/gears", "main"}
    assert memgit_cli("remember", "The zanzibar cluster needs a VPN", "--type", "gotcha").exit_code == 0
    pinned = set(branches_agree(memory_path))
    assert memgit_cli("forget", "zanzibar", "--yes").exit_code == 0
    assert len(branches_agree(memory_path)) == len(pinned) - 1
    git(memory_path, "branch", "-D", "projects/gears")  # a branch gone: its subjects leave the map
    assert search(memgit_cli, "emoji")["hits"]
    assert set(branches_agree(memory_path).values()) == {"projects/pinion", "main"}


def test_a_join_of_another_machines_memory_is_indexed(two):
    from memgit.verbs.search import search as find

    a, b = two
    assert find(a.cfg, "typesense", cwd=str(a.home)) == []  # b's session, not yet on a
    a.fetch(b)
    a.join()
    assert search_index.indexed_heads(a.cfg.state_dir) == {k: v for k, v in a.branches().items()}
    hits = find(a.cfg, "typesense", cwd=str(a.home))
    assert hits and hits[0].branch == "projects/pinion"


def console(*args: str, cwd) -> "subprocess.CompletedProcess":
    """`memgit ARGS` as the console script runs it (memgit.entry: `search` answered without click)."""
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "memgit.entry", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=60)


@pytest.mark.parametrize("args", [
    ["emoji"], ["emoji", "--json"], ["--limit=1", "tests", "--type", "command"], ["--", "-emoji"],
    ["emoji", "--project", "pinion", "--since", "2000-01-01", "--all-projects"],  # an error: both
    ["emoji", "--type", "gotchas", "--json"], [""], ["zanzibar"],
])
def test_the_console_script_answers_as_the_click_command_does(world, memgit_cli, monkeypatch, args):
    monkeypatch.chdir(world)
    expected = memgit_cli("search", *args)
    done = console("search", *args, cwd=world)
    assert (done.returncode, done.stdout, done.stderr) == (expected.exit_code, expected.stdout, expected.stderr)


def test_what_the_fast_path_does_not_read_goes_to_click(world):
    assert "Example: memgit search" in console("search", "--help", cwd=world).stdout
    wrong = console("search", "emoji", "--limit", "many", cwd=world)
    assert wrong.returncode == 2 and "'many' is not a valid integer" in wrong.stderr
    assert console("search", "emoji", "--bogus", cwd=world).returncode == 2
