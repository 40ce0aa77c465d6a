"""The heuristic consolidator: MEMORY.md, the budgeted summary, skills and the global scope (pure)."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from memgit import tokens
from memgit.consolidate import _markdown, heuristic, skills
from memgit.model import Learning, Note
from memgit.notes import split_front_matter
from memgit.scopes import Project

ROOT = Path(__file__).resolve().parents[2]
PROJECT = Project(branch="projects/pinion", name="pinion", remotes=("github.com/acme/pinion",), paths=())


def note(n: int, *learnings: tuple[str, str], day: int | None = None, title: str = "", keywords=()) -> tuple[str, Note]:
    """A note for session n, dated 2026-01-<day> (default: n), holding (type, text) learnings."""
    day = day if day is not None else 1 + n % 28
    date = f"2026-01-{day:02d}"
    sid = f"{n:08x}-0000-4000-8000-000000000000"
    path = f"sessions/2026/01/{date}-s{n}-{sid[:8]}.md"
    return path, Note(session=f"claude-code/{sid}", agent="claude-code", project="pinion",
                      title=title or f"Session {n}", learnings=[Learning(t, x) for t, x in learnings],
                      started=f"{date}T10:00:00Z", ended=f"{date}T11:00:00Z", keywords=list(keywords))


def run(notes, pinned=(), budget=2500, scope="pinion", project=PROJECT):
    return heuristic.consolidate(notes, scope=scope, project=project, pinned=list(pinned), budget_tokens=budget)


TEST = ("command", "Tests run with `uv run pytest`.")
EMOJI = ("preference", "Don't put emoji in commit messages.")


# ---- MEMORY.md ----------------------------------------------------------------------------


def test_memory_md_has_topic_sections_and_bullets_linked_to_existing_notes():
    notes = [note(1, TEST, EMOJI), note(2, TEST, ("gotcha", "`uv sync` fails offline; set UV_OFFLINE=1.")),
             note(3, TEST, EMOJI), note(4, ("fact", "The API lives in src/pinion/api."))]
    memory = run(notes).memory_md
    sections = {s.heading: s.bullets for s in _markdown.sections(memory)}
    assert {"Build and test", "Preferences", "Gotchas", "Facts", "Skills"} <= set(sections)
    paths = {p for p, _ in notes}
    targets = _markdown.links(memory)
    assert targets and all(t in paths or t.startswith("skills/") for t in targets)
    [command] = sections["Build and test"]
    assert command.type == "command" and len(command.links) == 3 and "(tier: strong)" in command.text
    [pref] = sections["Preferences"]
    assert "2 sessions" in pref.text and "(tier: emerging)" in pref.text


@pytest.mark.parametrize("sessions,shown", [(1, None), (2, "emerging"), (3, "strong"), (4, "strong"), (5, "critical")])
def test_tiers_are_shown_in_memory_md(sessions, shown):
    memory = run([note(i, EMOJI) for i in range(sessions)]).memory_md
    [bullet] = [b for s in _markdown.sections(memory) for b in s.bullets if b.type]
    assert (f"(tier: {shown})" in bullet.text) if shown else "tier:" not in bullet.text


def test_memory_md_lists_strongest_first_and_keeps_only_the_most_recent_single_session_learnings():
    notes = [note(i, ("fact", f"Fact number {i} about module m{i}."), day=1 + i % 28) for i in range(60)]
    notes += [note(100 + i, ("fact", "The queue is Redis.")) for i in range(3)]
    memory = run(notes).memory_md
    facts = [b.text for s in _markdown.sections(memory) if s.heading.startswith("Facts") for b in s.bullets]
    assert facts[0].startswith("[fact] The queue is Redis.")
    assert len(facts) == 1 + 40 and "20 older facts seen in one session only" in memory


def test_a_learning_only_a_removed_note_supported_is_gone():
    notes = [note(1, TEST, ("gotcha", "Redis must run before the tests.")), note(2, TEST)]
    assert "Redis" in run(notes).memory_md
    after = run(notes[1:]).memory_md
    assert "Redis" not in after and "uv run pytest" in after and notes[0][0] not in after


# ---- the summary --------------------------------------------------------------------------


def test_summary_has_a_profile_the_strongest_learnings_and_an_index():
    notes = [note(i, TEST, ("convention", "Commit subjects are imperative."), ("command", "Lint with `ruff check`."),
                  keywords=["python", "uv"]) for i in range(3)]
    notes.append(note(9, ("gotcha", "Redis must run before the tests."), title="Fix Redis tests"))
    summary = run(notes).summary_md
    sections = {s.heading: s.bullets for s in _markdown.sections(summary)}
    profile = " ".join(b.text for b in sections["Profile"])
    assert "Repository: github.com/acme/pinion" in profile and "`uv run pytest` (3 sessions)" in profile
    assert "Lint: `ruff check`" in profile and "Commit subjects are imperative." in profile and "python" in profile
    assert any("Redis must run" in b.text for b in sections["Key learnings"])
    assert any("Fix Redis tests" in b.text for b in sections["Recent sessions"])
    index = " ".join(b.text for b in sections["Where to look deeper"])
    assert "memgit show projects/pinion:MEMORY.md" in index and "skills/pinion-run-tests/SKILL.md" in index


def test_no_type_fills_the_summary():
    notes = [note(i, *[("gotcha", f"Gotcha {k}: the {w} service fails when {w} is down.")
                       for k, w in enumerate(["redis", "kafka", "minio", "vault", "consul", "nginx", "etcd",
                                              "rabbit", "mongo", "mysql", "solr", "memcache"])]) for i in range(3)]
    notes.append(note(10, ("preference", "Prefer small pull requests.")))
    summary = run(notes).summary_md
    learned = [b for s in _markdown.sections(summary) if s.heading == "Key learnings" for b in s.bullets]
    assert sum(b.type == "gotcha" for b in learned) == heuristic.SUMMARY_CAPS["gotcha"]
    assert any(b.type == "preference" for b in learned)


def big_scope(n_notes: int, seed: int = 7):
    rnd = random.Random(seed)
    vocab = [f"w{k}" for k in range(3000)]
    common = ["typesense", "docker", "pytest", "migration", "schema", "redis", "celery", "cache"]
    kinds = ["preference", "convention", "gotcha", "decision", "fact", "command"]
    notes = []
    for i in range(n_notes):
        learnings = []
        for _ in range(5):
            kind = rnd.choice(kinds)
            if kind == "command":
                text = rnd.choice(["Tests run with `uv run pytest`.", "Lint with `ruff check`.",
                                   f"Build with `make build-{rnd.randint(0, 40)}`."])
            elif rnd.random() < 0.3:
                text = rnd.choice(["Never commit .env files.", "Use uv, not pip.", "Redis must run before the tests."])
            else:
                text = " ".join([rnd.choice(common)] + rnd.sample(vocab, rnd.randint(5, 12))).capitalize() + "."
            learnings.append((kind, text))
        notes.append(note(i, *learnings, day=1 + i % 28, keywords=[rnd.choice(common)]))
    return notes


PINNED = [("notes/2026-01-02-deploys.md", "# Deploys\nDeploy only from main, never on Fridays."),
          ("notes/2026-01-03-style.md", "---\ncreated: 2026-01-03\n---\n" + "Use British spelling in docs. " * 30)]


@pytest.mark.parametrize("budget", [60, 400, 2500, 5000])
def test_budget_is_never_exceeded_even_with_2000_notes(budget):
    c = run(big_scope(2000), pinned=PINNED, budget=budget)
    assert tokens.count(c.summary_md) <= budget
    assert len(c.summary_md) < 9000


def test_pinned_notes_are_always_in_the_summary_even_with_2000_notes():
    summary = run(big_scope(2000), pinned=PINNED).summary_md
    assert "Deploys: Deploy only from main, never on Fridays." in summary
    assert "**notes/2026-01-03-style.md**: Use British spelling in docs." in summary  # front matter dropped
    assert len(summary) < 9000 and tokens.count(summary) <= 2500


def test_many_pinned_notes_are_each_in_the_summary_or_named_in_its_index():
    pinned = [(f"notes/2026-02-{d:02d}-rule.md", f"Rule {d}: " + "keep it short and plain. " * 20) for d in range(1, 29)]
    summary = run([note(1, TEST)], pinned=pinned).summary_md
    assert all(path in summary for path, _ in pinned)
    assert tokens.count(summary) <= 2500


def test_same_notes_in_any_order_give_the_same_bytes():
    notes = big_scope(200, seed=3)
    first = run(notes, pinned=PINNED)
    shuffled = notes[:]
    random.Random(1).shuffle(shuffled)
    again = run(shuffled, pinned=list(reversed(PINNED)))
    assert (again.memory_md, again.summary_md, again.skills) == (first.memory_md, first.summary_md, first.skills)


def test_output_does_not_depend_on_the_hash_seed():
    code = ("import hashlib, sys; sys.path.insert(0, 'tests/unit'); from test_consolidate import run, big_scope, PINNED; "
            "c = run(big_scope(150), pinned=PINNED); "
            "print(hashlib.sha256((c.memory_md + c.summary_md + repr(sorted(c.skills.items()))).encode()).hexdigest())")
    digests = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                              env={"PYTHONHASHSEED": seed, "PATH": "/usr/bin:/bin"}).stdout for seed in ("1", "2")}
    assert len(digests) == 1


def test_a_scope_without_learnings_still_gets_valid_files():
    c = run([note(1, title="Just a chat")])
    assert "# Memory: pinion" in c.memory_md and "No learnings yet" in c.memory_md
    assert "Just a chat" in c.summary_md and c.skills == {}


# ---- skills -------------------------------------------------------------------------------


@pytest.mark.parametrize("sessions,expected", [(2, False), (3, True)])
def test_a_test_command_seen_in_three_sessions_becomes_a_skill(sessions, expected):
    c = run([note(i, TEST) for i in range(sessions)])
    assert ("pinion-run-tests" in c.skills) is expected


def test_a_command_family_counts_all_its_commands():
    notes = [note(1, ("command", "Tests run with `go test ./...`.")), note(2, ("command", "Tests run with `mise run test`.")),
             note(3, ("command", "Format, lint and test with `mise run fmt && mise run lint && mise run test`."),
                  ("gotcha", '`mise run lint` fails with "errcheck"; fixed by checking the error.'))]
    c = run(notes)
    assert sorted(c.skills) == ["pinion-run-tests"]  # lint and format: one session each
    text = c.skills["pinion-run-tests"]
    assert "`go test ./...`" in text and "`mise run test`" in text


def test_skill_md_has_claude_code_front_matter_steps_pitfalls_and_sessions():
    notes = [note(i, ("command", "Lint with `ruff check .`."),
                  ("gotcha", "`ruff check .` fails with E501 on generated files; excluded them in pyproject.toml."))
             for i in range(3)]
    c = run(notes)
    [(name, text)] = c.skills.items()
    meta, body = split_front_matter(text)
    assert meta == {"name": name, "description": meta["description"]} and name == "pinion-lint"
    assert "\n" not in meta["description"] and meta["description"].startswith("Lint the code of pinion")
    assert "use before committing" in meta["description"]
    assert skills.MARKER in body and "1. `ruff check .` — 3 sessions" in body
    assert "## Pitfalls seen" in body and "E501" in body
    targets = _markdown.links(text)
    assert len(targets) == 3 and all(_markdown.resolve(t, f"skills/{name}") in {p for p, _ in notes} for t in targets)


def test_skill_names_are_kebab_case_within_64_characters():
    assert skills.skill_name("Very_Long Project.Name" * 5, "ci").endswith("-run-ci-locally")
    assert len(skills.skill_name("x" * 100, "test")) <= 64
    assert skills.skill_name("cli-2", "format") == "cli-2-format-code"


# ---- across projects ----------------------------------------------------------------------


def test_global_keeps_what_two_projects_share_and_names_them():
    a = [note(1, EMOJI, ("decision", "Use Postgres.")), note(2, ("gotcha", "Docker needs 8 GB of RAM."))]
    b = [note(3, ("preference", "No emoji in commit messages, please."), ("decision", "Use Postgres."))]
    c = [note(4, ("fact", "Only here."))]
    result = heuristic.consolidate_global(
        {"projects/pinion": ("# pinion\n\n## Profile\n\n- Test: `uv run pytest`\n", a), "projects/lantern": ("", b),
         "projects/solo": ("", c)},
        pinned=[("notes/2026-01-01-me.md", "I work in UTC.")], budget_tokens=2500)
    bullets = [bl for s in _markdown.sections(result.memory_md) for bl in s.bullets if bl.type]
    assert len(bullets) == 1  # decisions are project-specific; one-project learnings stay there
    assert "emoji" in bullets[0].text and "2 projects (lantern, pinion)" in bullets[0].text
    assert "`projects/pinion:sessions/2026/01/" in bullets[0].text
    summary = result.summary_md
    assert "(lantern, pinion)" in summary and "I work in UTC." in summary
    assert "pinion: 2 sessions; Test: `uv run pytest`" in summary
    assert tokens.count(summary) <= 2500


def test_global_budget_holds_with_many_projects():
    projects = {f"projects/p{i}": ("", big_scope(40, seed=i)) for i in range(30)}
    result = heuristic.consolidate_global(projects, pinned=PINNED, budget_tokens=1000)
    assert tokens.count(result.summary_md) <= 1000 and len(result.summary_md) < 9000
    assert "Never commit .env files." in result.memory_md  # shared by every project


# ---- the core stays pure ------------------------------------------------------------------


def test_the_consolidation_core_imports_no_adapters():
    from tests.test_architecture import FORBIDDEN, imported_modules

    for path in sorted((ROOT / "memgit" / "consolidate").glob("*.py")):
        if path.name != "llm.py":
            assert not imported_modules(path) & FORBIDDEN, path.name
    assert not imported_modules(ROOT / "memgit" / "tokens.py") & FORBIDDEN
