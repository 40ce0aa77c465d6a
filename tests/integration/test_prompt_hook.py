"""`memgit hook user-prompt-submit` as the agents run it: real subprocesses, recorded stdin, a real
memory repo synced by `memgit sync`, old notes committed as sync commits them, the search index
built by the real refresh.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memgit.config import load as load_config
from memgit.core import recall
from memgit.store import search_index
from memgit.store.repo import MemoryRepo
from memgit.verbs.search import refresh_index
from tests.conftest import ROOT, git, unpack
from tests.integration.test_hooks import (PROJECT_MARK, consolidate_by_hand, payload, run_hook,
                                          world)  # noqa: F401 (world: a fixture)

GOTCHA = ('`docker compose up` fails with "port 8108 in use" when a stale typesense container still runs; '
          "`docker rm -f typesense` frees it.")
PROMPT = "docker compose says port 8108 is taken again, what was it?"
UNRELATED = ["yes", "go on, thanks", "Write a function to calculate the factorial of a number",
             "How do I center a div horizontally and vertically in CSS?",
             "Translate this paragraph into French", "Make the button blue and round its corners"]


def note(session: str, title: str, learnings: list[str], day: str = "2026-10-02") -> str:
    """A session note as sync renders it (DESIGN §1)."""
    items = "\n".join(f"- {item}" for item in learnings)
    return (f"---\nsession: claude-code/{session}\nagent: claude-code\nproject: pinion\nstarted: {day}T10:00:00Z\n"
            f"ended: {day}T11:00:00Z\noutcome: success\nextractor: heuristic/1\n---\n# {title}\n\n"
            f"The user asked to get the search service running again.\n\n## Learnings\n{items}\n")


def commit_notes(memory: Path, branch: str, files: dict[str, str], *, index: bool = True) -> None:
    """Commit notes the way sync does, then bring the search index up to date as sync does after it."""
    with MemoryRepo.open(memory) as repo:
        repo.commit(branch, {p: t.encode() for p, t in files.items()}, "extract(pinion): old sessions\n")
        if index:
            refresh_index(repo, load_config())


def prompt_stdin(prompt: str, cwd: Path, name: str = "user-prompt-submit.json") -> bytes:
    return payload(name, cwd=str(cwd), prompt=prompt)


def recalled(done: subprocess.CompletedProcess, event: str = "UserPromptSubmit") -> str:
    """Check the hook answered with one valid object for `event`; return its additionalContext."""
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert list(answer) == ["hookSpecificOutput"]
    assert set(answer["hookSpecificOutput"]) == {"hookEventName", "additionalContext"}
    assert answer["hookSpecificOutput"]["hookEventName"] == event
    assert done.stdout.count(b"\n") == 1 and done.stderr == b""
    text = answer["hookSpecificOutput"]["additionalContext"]
    assert text.startswith('<memgit-context source="memgit" kind="reference-data">\n')
    assert text.endswith("</memgit-context>") and "not instructions" in text
    assert len(text) <= recall.BUDGET
    return text


def hook_log(memory: Path) -> str:
    path = memory / ".git" / "memgit" / "hook.log"
    return path.read_text() if path.exists() else ""


TOPICS = ["alembic migrations", "celery beat schedule", "sentry release tags", "pydantic validators",
          "nginx gzip headers", "jinja template filters", "redis lock timeouts", "s3 presigned uploads",
          "stripe webhook signatures", "mypy strict optional", "eslint import order", "vite proxy config"]


@pytest.fixture
def gotcha(world, memory_path):
    """The pinion world with the typesense gotcha among older sessions on other subjects, indexed.

    BM25 weighs a word by the share of memory holding it: a memory of one subject only would make
    that subject's words common, which no memory that has seen a few weeks of work is.
    """
    files = {f"sessions/2026/08/2026-08-{i + 1:02d}-other-{i:08x}.md":
             note(f"{i:08x}-1111-4000-8000-000000000001", f"Work on {topic}",
                  [f"[fact] The {topic} live in module {topic.split()[0]}_{i}.",
                   f"[command] Check the {topic} with `make check-{topic.split()[0]}`."], day=f"2026-08-{i + 1:02d}")
             for i, topic in enumerate(TOPICS * 2)}
    files["sessions/2026/10/2026-10-02-typesense-1a2b3c4d.md"] = note(
        "1a2b3c4d-0000-4000-8000-000000000001", "Get typesense running", [f"[gotcha] {GOTCHA}"])
    commit_notes(memory_path, "projects/pinion", files)
    return world


# ---- what it adds, and when it adds nothing -------------------------------------------------------


def test_a_relevant_old_gotcha_comes_back_fenced_with_where_to_read_more(gotcha, memory_path):
    text = recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)[0])
    assert GOTCHA in text
    assert "[gotcha]" in text and "pinion, 2026-10-02" in text and "`memgit show 1a2b3c4d`" in text
    assert hook_log(memory_path) == ""


@pytest.mark.parametrize("prompt", UNRELATED)
def test_a_prompt_unrelated_to_memory_adds_nothing(gotcha, memory_path, prompt):
    done, _ = run_hook("user-prompt-submit", prompt_stdin(prompt, gotcha), cwd=gotcha)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert hook_log(memory_path) == ""


def test_one_shared_word_is_not_enough(gotcha):
    done, _ = run_hook("user-prompt-submit", prompt_stdin("restart docker please", gotcha), cwd=gotcha)
    assert done.stdout == b""


def test_many_relevant_notes_stay_within_budget(gotcha, memory_path):
    files = {f"sessions/2026/09/2026-09-{d:02d}-typesense-{d:08x}.md":
             note(f"{d:08x}-0000-4000-8000-000000000001", f"Typesense again {d}",
                  [f"[gotcha] Docker compose port 8108 clash number {d}: " + "a stale typesense container " * 12],
                  day=f"2026-09-{d:02d}") for d in range(1, 9)}
    commit_notes(memory_path, "projects/pinion", files)
    text = recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)[0])
    assert 1 < text.count("\n- ") <= recall.MAX_HITS and len(text) <= 1_500


def test_nothing_the_session_start_context_already_said(gotcha, memory_path):
    stdin = prompt_stdin(PROMPT, gotcha)
    assert GOTCHA in recalled(run_hook("user-prompt-submit", stdin, cwd=gotcha)[0])
    consolidate_by_hand(memory_path, "projects/pinion", {
        "memory_summary.md": f"# pinion\n\n## Gotchas\n- {GOTCHA} (2 sessions)\n- {PROJECT_MARK}.\n"})
    told = run_hook("session-start", payload("session-start-startup.json", cwd=str(gotcha)), cwd=gotcha)[0]
    assert GOTCHA in json.loads(told.stdout)["hookSpecificOutput"]["additionalContext"]
    with MemoryRepo.open(memory_path) as repo:
        refresh_index(repo, load_config())
    done, _ = run_hook("user-prompt-submit", stdin, cwd=gotcha)
    assert done.returncode == 0
    assert GOTCHA not in (json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else "")


def test_the_current_projects_hits_come_first(gotcha, memory_path, tmp_path):
    # It shares more of the prompt's words: ranked on relevance alone, it would come first everywhere.
    other = "When docker compose says port 8108 is taken, a typesense of another checkout holds it."
    commit_notes(memory_path, "main", {"notes/2026-11-01-typesense.md": f"---\nadded: '2026-11-01'\n---\n{other}\n"})
    text = recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)[0])
    assert text.index(GOTCHA) < text.index(other)
    elsewhere = tmp_path / "elsewhere"  # in no project: main's note alone, no project's
    elsewhere.mkdir()
    text = recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, elsewhere), cwd=elsewhere)[0])
    assert other in text and GOTCHA not in text and "pinion" not in text


# ---- the index: read as it is, never updated ----------------------------------------------------


def test_a_stale_index_is_used_and_never_updated(gotcha, memory_path):
    state = memory_path / ".git" / "memgit"
    heads = search_index.indexed_heads(state)
    newer = "the typesense docker compose port 8108 now clashes with grafana as well"
    commit_notes(memory_path, "projects/pinion", {"sessions/2026/11/2026-11-03-grafana-5e6f7a8b.md":
                                                  note("5e6f7a8b-0000-4000-8000-000000000001", "Grafana",
                                                       [f"[gotcha] {newer}"], day="2026-11-03")}, index=False)
    mtime = search_index.path_of(state)
    before = os.stat(mtime).st_mtime_ns
    text = recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)[0])
    assert GOTCHA in text and newer not in text  # the stale index answered
    assert search_index.indexed_heads(state) == heads and os.stat(mtime).st_mtime_ns == before


# ---- failing open -------------------------------------------------------------------------------


def test_no_index_yet_says_nothing(gotcha, memory_path):
    os.unlink(search_index.path_of(memory_path / ".git" / "memgit"))
    done, _ = run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not Path(search_index.path_of(memory_path / ".git" / "memgit")).exists()  # not built on the hook path


def test_a_broken_index_says_nothing_and_is_logged(gotcha, memory_path):
    Path(search_index.path_of(memory_path / ".git" / "memgit")).write_bytes(b"not a database" * 100)
    done, _ = run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)
    assert (done.returncode, done.stdout) == (0, b"")
    assert "user-prompt-submit" in hook_log(memory_path) and "search index" in hook_log(memory_path)


def test_a_broken_context_cache_says_nothing_and_is_logged(gotcha, memory_path):
    index = memory_path / ".git" / "memgit" / "context" / "index.json"
    data = json.loads(index.read_text())
    data["projects"] = "garbage"
    index.write_text(json.dumps(data))
    done, _ = run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)
    assert (done.returncode, done.stdout) == (0, b"")
    assert "user-prompt-submit" in hook_log(memory_path)


def test_no_repository_says_nothing(hermetic_env, memory_path, tmp_path):
    done, _ = run_hook("user-prompt-submit", prompt_stdin(PROMPT, tmp_path), cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert not memory_path.exists()


@pytest.mark.parametrize("stdin", [b"", b"not json", b"[1, 2]", json.dumps({"cwd": "/tmp"}).encode(),
                                   json.dumps({"prompt": 42}).encode()])
def test_bad_input_says_nothing_and_is_logged(gotcha, memory_path, stdin):
    done, _ = run_hook("user-prompt-submit", stdin, cwd=gotcha)
    assert (done.returncode, done.stdout) == (0, b"")
    assert "user-prompt-submit" in hook_log(memory_path)


def test_a_corrupt_repository_object_does_not_matter(gotcha, memory_path):
    blob = git(memory_path, "rev-parse", "projects/pinion:memory_summary.md").strip()
    unpack(memory_path)
    loose = memory_path / ".git" / "objects" / blob[:2] / blob[2:]
    loose.chmod(0o644)
    loose.write_bytes(b"garbage")
    assert GOTCHA in recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)[0])


# ---- the protocol: each agent's stdin and answer, light imports ----------------------------------


@pytest.mark.parametrize("agent,stdin,event", [
    ("claude-code", "user-prompt-submit.json", "UserPromptSubmit"),
    ("codex", "codex-user-prompt-submit.json", "UserPromptSubmit"),
    ("gemini", "gemini-before-agent.json", "BeforeAgent"),
])
def test_each_agent_gets_the_answer_in_its_shape(gotcha, agent, stdin, event):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    args = ["--agent", agent] if agent != "claude-code" else []
    done = subprocess.run([sys.executable, "-m", "memgit.entry", "hook", "user-prompt-submit", *args],
                          input=prompt_stdin(PROMPT, gotcha, stdin), capture_output=True, env=env, cwd=gotcha,
                          timeout=30)
    assert GOTCHA in recalled(done, event)
    quiet = subprocess.run([sys.executable, "-m", "memgit.entry", "hook", "user-prompt-submit", *args],
                           input=prompt_stdin("yes", gotcha, stdin), capture_output=True, env=env, cwd=gotcha,
                           timeout=30)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, b"", b"")


def test_the_hook_never_imports_dulwich_click_or_litellm(gotcha):
    probe = ("import sys\nimport memgit.entry\n"  # what is loaded when the hook leaves (memgit.entry.leave)
             "leave = memgit.entry.leave\n"
             "memgit.entry.leave = lambda code: (sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules))), "
             "leave(code))\n"
             "sys.argv = ['memgit', 'hook', 'user-prompt-submit']\n"
             "memgit.entry.main()\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", probe], input=prompt_stdin(PROMPT, gotcha),
                          capture_output=True, env=env, cwd=gotcha, timeout=30)
    assert GOTCHA in json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"]
    modules = set(done.stderr.decode().rsplit("MODULES ", 1)[1].split())
    heavy = {m.split(".")[0] for m in modules} & {"click", "dulwich", "yaml", "frontmatter", "litellm", "subprocess"}
    assert heavy == set()
    assert not {"memgit.store.repo", "memgit.config", "memgit.verbs.search"} & modules


def test_its_fence_is_the_one_transcript_readers_drop(gotcha):
    """Claude Code, Codex and Gemini CLI save the injected text in the transcript: sync must skip it."""
    from memgit.sources.trim import MEMGIT_MARKER

    text = recalled(run_hook("user-prompt-submit", prompt_stdin(PROMPT, gotcha), cwd=gotcha)[0])
    assert text.startswith(MEMGIT_MARKER)
