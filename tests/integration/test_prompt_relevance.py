"""What the prompt hook tells in a large project (issue 17): a memory of a project with 150 sessions
worded in everyday programming words, one other project, and main; then the scale corpus of
../shared when it is there. The repositories are built once per module (notes committed as sync
commits them, the index and the context cache built by the real code); each test runs the real
hook as the agents do.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memgit.core import scopes
from memgit.core.vocab import MAIN
from memgit.resources import repo_template_files
from memgit.store import search_index
from memgit.store.repo import DEFAULT_AUTHOR, MemoryRepo
from tests.conftest import ROOT, SHARED
from tests.integration.test_hooks import run_hook

SCALE = SHARED / "fixtures" / "scale" / "cc-backend" / "claude"

# Everyday words of a web shop's code: the generic prompts below share many of them.
AREAS = ("orders", "invoices", "payments", "users", "accounts", "search", "checkout", "cart", "catalog", "reports")
THINGS = ("query", "table", "index", "column", "function", "error", "test", "cache", "request", "response", "timeout",
          "string", "list", "file", "config", "handler", "server", "client", "session", "token", "page", "batch")
VERBS = ("caches", "validates", "retries", "sorts", "filters", "paginates", "logs", "parses", "serialises", "locks")
NAMES = ("kalivo", "bedoru", "miresa", "toplan", "venuda", "sorike", "dabelo", "quenta", "rimolo", "pasuki")

UNIQUE_GOTCHA = ("The nightly `reindex-catalog` job deadlocks on the `sku_aliases` table when the importer runs at "
                 "the same time; schedule the importer after 02:00.")
UNIQUE_PROMPT = "The reindex-catalog job hung again last night, something about sku_aliases. Why?"
# A component named by its file only (8a2518dd of the fixtures: `AppInnerSidebar.tsx`, asked as "the sidebar").
COMPONENT_FACT = "The plus button moved out of the search box into its own button in `GlazeRecipeDrawer.tsx`."
COMPONENT_PROMPT = "Where is the glaze recipe drawer implemented?"
OTHER_FACT = "The kiln firmware flasher needs the `--baud 921600` flag or the esp32 upload times out."
OTHER_PROMPT = "Flashing the esp32 kiln firmware times out again, which baud did we use?"
PINNED = "Commit subjects are written in the imperative mood, under 60 characters."

GENERIC = [
    "What's the difference between a Python dataclass and a NamedTuple?",
    "How do I reverse a singly linked list in Rust without cloning the nodes?",
    "Write a SQL query that returns the top 5 users by number of orders from tables users and orders.",
    "Explain the difference between a process and a thread.",
    "In Go, what's the difference between a nil slice and an empty slice?",
    "How can I mock time.Now in Go tests?",
    "Write a function that parses an ISO 8601 duration string into seconds.",
    "Thanks, that's all for today. Have a good weekend!",
    "How do I center a div horizontally and vertically with CSS grid?",
    "What is a sensible default for the connection pool size of a small web app?",
    "Translate 'the cache is cold' into German.",
    "Write a haiku about a failing test on a Friday afternoon.",
]


def _note(rng: random.Random, i: int) -> tuple[str, str]:
    area, thing, other = rng.choice(AREAS), rng.choice(THINGS), rng.choice(THINGS)
    name, verb = rng.choice(NAMES) + str(i), rng.choice(VERBS)
    day = f"2026-{1 + i % 9:02d}-{1 + i % 27:02d}"
    sid = f"{i:08x}-5a5a-4000-8000-{i:012x}"
    learnings = [
        f"[fact] The {area} {thing} in `{name}.py` {verb} each {other} before the {area} handler runs.",
        f"[gotcha] Problem: the {area} {other} test failed with a {thing} error. Fix: `{name}()` now {verb} the "
        f"{other} first.",
        f"[command] Tests run with `make test-{area}`.",
    ]
    if i % 3 == 0:
        learnings.append(f"[decision] The {area} {thing} stays in `{name}` instead of the shared {other} module.")
    body = (f"---\nsession: claude-code/{sid}\nagent: claude-code\nproject: shop\nstarted: {day}T10:00:00Z\n"
            f"ended: {day}T11:00:00Z\noutcome: success\nextractor: heuristic/1\n---\n"
            f"# Fix the {area} {thing}\n\nThe user asked: fix the {area} {thing}. In the end: `{name}()` {verb} the "
            f"{other}. It ended with `make test-{area}` passing (success).\n\n## Learnings\n"
            + "".join(f"- {item}\n" for item in learnings))
    return f"sessions/{day[:4]}/{day[5:7]}/{day}-fix-the-{area}-{sid[:8]}.md", body


def _env(home: Path, memory: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "MEMGIT_", "CLAUDE_", "CODEX_", "GEMINI_", "XDG_"))}
    env.update(HOME=str(home), MEMGIT_HOME=str(memory), GIT_CONFIG_NOSYSTEM="1", MEMGIT_SEMANTIC="0",
               XDG_CONFIG_HOME=str(home / ".config"), XDG_DATA_HOME=str(home / ".local" / "share"))
    return env


def _project(memory: MemoryRepo, slug: str, path: Path) -> None:
    project = scopes.Project(branch=f"projects/{slug}", name=slug, remotes=(f"github.com/acme/{slug}",),
                             paths=(str(path),))
    memory.commit(project.branch, {"PROJECT.md": scopes.render_project_md(project).encode()},
                  f"init({slug}): project {slug}\n", create_from=memory.root())


def ask(world: dict, prompt: str, cwd: Path) -> str:
    """The hook's answer to `prompt` typed in `cwd` ("" when it says nothing); `cwd` need not exist."""
    stdin = json.dumps({"session_id": "5e55104e-0000-4000-8000-000000000001", "cwd": str(cwd), "prompt": prompt,
                        "hook_event_name": "UserPromptSubmit", "transcript_path": "/nonexistent"}).encode()
    done, _ = run_hook("user-prompt-submit", stdin, cwd=world["home"], env=world["env"])
    assert done.returncode == 0 and done.stderr == b"", done.stderr
    return json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"] if done.stdout else ""


@pytest.fixture(scope="module")
def world(tmp_path_factory) -> dict:
    """shop (150 sessions) and kiln (3) as projects with their checkouts, main with a pinned note."""
    home = tmp_path_factory.mktemp("large")
    memory = home / "mem"
    shop, kiln, elsewhere = home / "dev" / "shop", home / "dev" / "kiln", home / "elsewhere"
    for path in (shop, kiln, elsewhere):
        path.mkdir(parents=True)
    rng = random.Random(17)
    notes = dict(_note(rng, i) for i in range(150))
    notes["sessions/2026/03/2026-03-14-reindex-c0ffee01.md"] = (
        "---\nsession: claude-code/c0ffee01-0000-4000-8000-000000000001\nagent: claude-code\nproject: shop\n"
        "started: 2026-03-14T10:00:00Z\n---\n# Nightly catalog job\n\nThe user asked: look at the nightly job. "
        f"In the end: moved the importer.\n\n## Learnings\n- [gotcha] {UNIQUE_GOTCHA}\n")
    with MemoryRepo.init(memory, repo_template_files(), author=DEFAULT_AUTHOR) as repo:
        _project(repo, "shop", shop)
        _project(repo, "kiln", kiln)
        repo.commit("projects/shop", {p: t.encode() for p, t in notes.items()}, "extract(shop): sessions\n")
        repo.commit("projects/kiln", {"sessions/2026/02/2026-02-02-flash-k11n0001.md": (
            "---\nsession: claude-code/k11n0001-0000-4000-8000-000000000001\nagent: claude-code\nproject: kiln\n"
            "started: 2026-02-02T10:00:00Z\n---\n# Flash the firmware\n\nThe user asked: flash it.\n\n"
            f"## Learnings\n- [gotcha] {OTHER_FACT}\n").encode(),
            "sessions/2026/02/2026-02-03-move-k11n0002.md": (
            "---\nsession: claude-code/k11n0002-0000-4000-8000-000000000002\nagent: claude-code\nproject: kiln\n"
            "started: 2026-02-03T10:00:00Z\n---\n# Move the button\n\nThe user asked: move the plus button.\n\n"
            f"## Learnings\n- [decision] {COMPONENT_FACT}\n").encode()}, "extract(kiln): sessions\n")
        repo.commit(MAIN, {"notes/2026-01-05-subjects.md": f"---\nadded: '2026-01-05'\n---\n{PINNED}\n".encode()},
                    "remember(main): commit subjects\n")
        search_index.update(repo, memory / ".git" / "memgit")
    world = {"home": home, "memory": memory, "shop": shop, "kiln": kiln, "elsewhere": elsewhere,
             "env": _env(home, memory)}
    start = json.dumps({"session_id": "5e55104e-0000-4000-8000-000000000002", "cwd": str(shop),
                        "hook_event_name": "SessionStart", "source": "startup"}).encode()
    assert run_hook("session-start", start, cwd=shop, env=world["env"])[0].returncode == 0  # the context cache
    return world


@pytest.mark.parametrize("prompt", GENERIC)
def test_an_unrelated_prompt_in_a_large_project_gets_nothing(world, prompt):
    assert ask(world, prompt, world["shop"]) == ""


def test_the_one_session_that_met_the_subject_is_found_among_many(world):
    text = ask(world, UNIQUE_PROMPT, world["shop"])
    assert UNIQUE_GOTCHA in text and text.count("\n- ") == 1
    assert text.rstrip().splitlines()[-2].endswith("`memgit show c0ffee01`)")


def test_a_prompt_typed_outside_any_project_gets_no_projects_notes(world):
    assert ask(world, UNIQUE_PROMPT, world["elsewhere"]) == ""
    assert ask(world, OTHER_PROMPT, world["elsewhere"]) == ""
    text = ask(world, "How long may commit subjects be, and in which mood?", world["elsewhere"])
    assert "shop" not in text and "kiln" not in text  # main's pinned note, or nothing: it was told at start


def test_another_projects_note_comes_only_when_nothing_here_matches_and_the_match_is_strong(world):
    text = ask(world, OTHER_PROMPT, world["shop"])
    assert OTHER_FACT in text and "(kiln, " in text  # nothing of shop is about it
    assert ask(world, "Which flag does the flasher need?", world["shop"]) == ""  # a weak match: not told
    assert OTHER_FACT not in ask(world, UNIQUE_PROMPT + " Or was it the esp32?", world["shop"])


def test_a_component_is_found_by_the_words_of_its_camel_case_file_name(world):
    text = ask(world, COMPONENT_PROMPT, world["kiln"])
    assert COMPONENT_FACT in text and "`memgit show k11n0002`" in text


def test_the_hook_reads_the_index_without_updating_it(world):
    index = search_index.path_of(world["memory"] / ".git" / "memgit")
    before = os.stat(index).st_mtime_ns
    ask(world, UNIQUE_PROMPT, world["shop"])
    assert os.stat(index).st_mtime_ns == before


# ---- the scale corpus: one project, 82 real sessions ---------------------------------------------

SCALE_GENERIC = [
    "Explain the difference between TCP and UDP in simple terms.",
    "Write a Python function that checks whether a string is a palindrome.",
    "What's a good name for a cat that likes to sleep on keyboards?",
    "How do I write a table-driven test in Go for a function that adds two integers?",
    "Translate 'Thank you for your patience' into German and French.",
    "In TypeScript, what's the difference between `type` and `interface`?",
    "Good morning! Any plans for the weekend?",
    "Show me how to use a mutex to protect a map in Go.",
]


@pytest.fixture(scope="module")
def scale(tmp_path_factory) -> dict:
    """The cc-backend sessions of ../shared synced once, idle for three hours, as a real user's memory."""
    if not SCALE.is_dir():
        pytest.skip(f"{SCALE} is absent (the scale corpus lives beside the project, not in it)")
    home = tmp_path_factory.mktemp("scale")
    projects = home / ".claude" / "projects"
    projects.parent.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(SCALE), str(projects)], check=True)
    old = time.time() - 3 * 3600
    for path in projects.rglob("*"):
        os.utime(path, (old, old))
    env = _env(home, home / "mem")
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "memgit.cli.commands", "sync", "--all"], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return {"env": env, "home": home}


CHECKOUT = Path("/Users/jan/prg/ClusterCockpit/cc-backend")  # where most sessions ran; not on this machine


@pytest.mark.parametrize("prompt", SCALE_GENERIC)
def test_an_unrelated_prompt_in_the_scale_project_gets_nothing(scale, prompt):
    assert ask(scale, prompt, CHECKOUT) == ""
