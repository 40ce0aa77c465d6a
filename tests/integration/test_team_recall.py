"""A teammate's learnings through the prompt hook and `memgit search` (issue 22): two people, two HOMEs,
one bare team remote. What the reader accepted (`memgit review --team`) comes back, labelled with its
teammate; what they have not reviewed (review "new") and what they forgot does not; with review "none"
the team is trusted. The relevance bar is the one a person's own notes meet (memgit.core.recall). A
teammate's learning is forgotten by its id or its note's path; the LLM consolidator is sent what may be told.
"""

from __future__ import annotations

import json

from memgit.config import load as load_config
from memgit.core.model import Learning, Note
from memgit.core.notes import note_path, render_note
from memgit.sources.claude_code.synthetic import session_id
from memgit.store.repo import MemoryRepo
from memgit.verbs import team_review
from tests.conftest import fsck, git, point_home
from tests.integration.test_hooks import run_hook
from tests.integration.test_team import Person, configure, memory_of, pair

# One session's debugging trails (no rule of how things are): the briefing leaves them in the notes, where
# the prompt hook and search find them.
POSTGRES = "The integration tests failed on port 5432 already in use: a stale postgres container was holding it; " \
           "`docker rm -f pgtest` freed it."
CELERY = "The celery worker hung at startup: the redis broker had reached maxmemory; flushing the broker queue fixed it."
INOTIFY = "The webpack dev server crashed with ENOSPC: the inotify watches had run out; raising max_user_watches fixed it."
OWN = ["Always read the stripe keys of the billing service from vault, never from env files.",
       "Always render invoices to pdf with weasyprint in the worker.",
       "Always embed the admin dashboard charts from metabase."]


def learned(person: Person, seed: str, day: int, gotcha: str) -> None:
    """A session note holding one gotcha, committed to the person's project as sync commits one (the
    extractor is not what this tests)."""
    note = Note(session=f"claude-code/{session_id(seed)}", agent="claude-code", project="app",
                title=f"Fix the failing {seed} tests", summary=f"The user asked to fix the failing tests. In the end: {gotcha}",
                learnings=[Learning("gotcha", gotcha)], started=f"2026-11-{day:02d}T10:00:00Z",
                ended=f"2026-11-{day:02d}T11:00:00Z", outcome="success")
    with MemoryRepo.open(person.memory) as repo:
        repo.commit("projects/app", {note_path(note, ""): render_note(note).encode()}, f"extract(app): {seed}\n")


def shared_app(tmp_path, monkeypatch, memgit_cli, gotchas: dict[str, tuple[int, str]], *, own=OWN,
               before: str = "") -> tuple[Person, Person, object, dict]:
    """ana and ben share app through a bare team remote (`pair`): ben's own notes (`own`), ana's with her
    `gotchas` ({seed: (day, text)}), pushed by ana and pulled by ben (his config `before` it, if any)."""
    ana, ben, bare, app = pair(tmp_path, monkeypatch, memgit_cli)
    if before:
        configure(ben, before)
    ana.session(app[ana], "t-ana-0", "Always run `make lint` before pushing.", day=9)
    for i, lesson in enumerate(own):  # ben's own memory of the project: other subjects
        ben.session(app[ben], f"t-ben-{i}", lesson, day=12 + i)
    for p in (ana, ben):
        p.run("sync")
    for seed, (day, text) in gotchas.items():
        learned(ana, seed, day, text)
    for p in (ana, ben):
        p.run("team", "add", "acme", str(bare))
        p.run("share", "app", "--team", "acme")
    ana.run("push", "acme")
    ben.run("pull", "acme")
    return ana, ben, bare, app


def asked(person: Person, cwd, prompt: str) -> str:
    """What the prompt hook adds to `prompt` typed in `cwd` on `person`'s machine ("" for nothing)."""
    point_home(person.mp, person.home)
    stdin = json.dumps({"session_id": "7ea77ea7-0000-4000-8000-000000000001", "cwd": str(cwd), "prompt": prompt,
                        "hook_event_name": "UserPromptSubmit", "transcript_path": "/nonexistent"}).encode()
    done, _ = run_hook("user-prompt-submit", stdin, cwd=cwd)
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else ""


def searched(person: Person, cwd, query: str) -> list[dict]:
    person.mp.chdir(cwd)
    return person.json("search", query, "--limit", "20")["hits"]


def test_a_teammates_accepted_learning_comes_back_labelled_never_an_unreviewed_or_forgotten_one(tmp_path, monkeypatch,
                                                                                               memgit_cli):
    ana, ben, bare, app = shared_app(tmp_path, monkeypatch, memgit_cli,
                                     {"postgres": (10, POSTGRES), "webpack": (11, INOTIFY)})
    ben.run("review", "--team", "--accept-all")  # ben accepts what ana had learned so far
    learned(ana, "celery", 20, CELERY)  # then she learns more: not reviewed yet
    ana.run("push", "acme")
    ben.run("pull", "acme")
    assert "celery worker hung" in memory_of(ben) and "not yet reviewed" in memory_of(ben)

    # the accepted gotcha: told for a prompt about it, with whose it is; found by search, labelled
    told = asked(ben, app[ben], "The integration tests say port 5432 is already in use, a stale postgres container?")
    assert "docker rm -f pgtest" in told and "from teammate ana" in told, told
    assert "memgit show projects/app:team/ana/sessions/" in told
    hits = searched(ben, app[ben], "stale postgres container port 5432")
    mine = [h for h in hits if "pgtest" in h["text"] and h["person"] == "ana"]
    assert mine and mine[0]["path"].startswith("team/ana/sessions/") and mine[0]["kind"] == "learning", hits
    shown = ben.json("show", f"projects/app:{mine[0]['path']}")  # the pointer the hook and search give
    assert "pgtest" in shown["content"]
    assert "from teammate ana" in ben.run("search", "stale postgres container port 5432").stdout

    # the unreviewed one: neither told nor found, not even through MEMORY.md
    assert "celery" not in asked(ben, app[ben], "Why does the celery worker hang at startup, redis broker maxmemory?")
    assert not [h for h in searched(ben, app[ben], "celery worker hangs redis broker maxmemory") if "celery" in h["text"]]

    # ben's own notes are found as ever, labelled as nobody's
    hits = searched(ben, app[ben], "stripe keys vault billing")
    assert any("stripe" in h["text"] and h["person"] == "" for h in hits), hits

    # forgotten by ben: gone from both, while ana's ref keeps it
    question = "The webpack dev server crashes with ENOSPC: the inotify watches ran out?"
    assert "max_user_watches" in asked(ben, app[ben], question)
    ben.run("forget", "inotify watches", "--yes")
    assert "max_user_watches" not in asked(ben, app[ben], question)
    assert not [h for h in searched(ben, app[ben], "webpack ENOSPC inotify watches") if "inotify" in h["text"]]
    assert "inotify" in git(bare, "log", "-p", "people/ana/projects/app")

    # with review "none" the team is trusted: the celery gotcha is told at the next consolidation
    configure(ben, '[team]\nreview = "none"\n')
    ben.run("consolidate", "--project", "app", "--force")
    assert "celery worker hung" in asked(ben, app[ben], "Why does the celery worker hang at startup, redis broker maxmemory?")
    assert "max_user_watches" not in asked(ben, app[ben], question)  # what ben hid stays hidden
    fsck(ben.memory)


def test_a_teammates_learning_is_forgotten_by_its_id_and_by_its_notes_path(tmp_path, monkeypatch, memgit_cli):
    ana, ben, bare, app = shared_app(tmp_path, monkeypatch, memgit_cli,  # ben trusts the team: all of ana's is told
                                     {"postgres": (10, POSTGRES), "celery": (11, CELERY)},
                                     before='[team]\nreview = "none"\n')
    celery = "Why does the celery worker hang at startup, redis broker maxmemory?"
    postgres = "The integration tests say port 5432 is already in use, a stale postgres container?"
    assert "celery worker hung" in asked(ben, app[ben], celery) and "pgtest" in asked(ben, app[ben], postgres)

    # by its id, as `memgit review --team` gives it
    [key] = [x["key"] for x in ben.json("review", "--team")["learnings"] if "celery" in x["text"]]
    assert f"id {key}" in ben.run("review", "--team", input="q\n").stdout
    forgot = ben.json("forget", key[:10], "--yes")
    assert [c["path"] for c in forgot["commits"]] == ["team/hidden.md"]
    assert "celery" not in asked(ben, app[ben], celery) and "celery" not in memory_of(ben)
    assert ben.run("forget", "0000000000", "--yes", ok=False).exit_code != 0  # an id nothing has

    # by its note's path, as search and the prompt hook print it
    [hit] = [h for h in searched(ben, app[ben], "stale postgres container port 5432") if "pgtest" in h["text"]]
    ben.run("forget", f"{hit['branch']}:{hit['path']}", "--yes")
    assert "pgtest" not in asked(ben, app[ben], postgres) and "pgtest" not in memory_of(ben)
    assert "celery" in git(bare, "log", "-p", "people/ana/projects/app") and "make lint" in memory_of(ben)
    fsck(ben.memory)


def test_the_llm_consolidator_is_sent_the_teammates_learnings_the_reader_may_be_told(tmp_path, monkeypatch,
                                                                                     memgit_cli, fake_llm):
    ana, ben, bare, app = shared_app(tmp_path, monkeypatch, memgit_cli,
                                     {"postgres": (10, POSTGRES), "celery": (11, CELERY)}, own=OWN[:1])
    [key] = [x["key"] for x in ben.json("review", "--team")["learnings"] if "postgres" in x["text"]]
    point_home(ben.mp, ben.home)  # accept the one, leave the other unreviewed
    queue = team_review.pending(load_config())
    team_review.decide(load_config(), queue, [x for x in queue.learnings if x.key == key], [])
    configure(ben, f'[consolidate]\nmodel = "openai/fake-model"\n[extract]\napi_base = "{fake_llm.api_base}"\n')
    ben.run("consolidate", "--project", "app", "--force")
    user = fake_llm.requests[-1]["body"]["messages"][1]["content"]
    block = user.split("<team_learnings>\n")[1].split("</team_learnings>")[0]
    assert "pgtest" in block and "— ana, team/ana/sessions/" in block and "celery" not in block
