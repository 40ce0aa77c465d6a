"""The heuristic consolidator: MEMORY.md, the budgeted summary, skills and the global scope (pure)."""

import random
import subprocess
import sys
from pathlib import Path

import pytest

from memgit.core import tokens
from memgit.consolidate import _markdown, heuristic
from memgit.consolidate.heuristic import briefing, skills
from memgit.core.edited import edited_files, phrase as edited_phrase
from memgit.core.model import Learning, Note
from memgit.core.notes import split_front_matter
from memgit.core.scopes import Project

ROOT = Path(__file__).resolve().parents[2]
PROJECT = Project(branch="projects/pinion", name="pinion", remotes=("github.com/acme/pinion",), paths=())


def note(n: int, *learnings: tuple[str, str], day: int | None = None, title: str = "", keywords=(),
         edited=()) -> tuple[str, Note]:
    """A note for session n, dated 2026-01-<day> (default: n), holding (type, text) learnings; its
    paragraph says it edited the files `edited`, as the extractor words it."""
    day = day if day is not None else 1 + n % 28
    date = f"2026-01-{day:02d}"
    sid = f"{n:08x}-0000-4000-8000-000000000000"
    path = f"sessions/2026/01/{date}-s{n}-{sid[:8]}.md"
    return path, Note(session=f"claude-code/{sid}", agent="claude-code", project="pinion",
                      title=title or f"Session {n}", learnings=[Learning(t, x) for t, x in learnings],
                      summary=f"The agent {edited_phrase(list(edited))}." if edited else "",
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


def test_a_long_section_is_split_by_the_things_its_bullets_name_in_code_not_by_plain_shared_words():
    # cc-backend (scale): "## Facts: already", "## Decisions: request" were words the bullets happened to share
    facts = [f"`pkg/metricstore/file{i}.go` already holds the checkpoint writer number {i}." for i in range(5)]
    facts += [f"The header was already bumped in part {i} of the release." for i in range(5)]
    facts += [f"`golangci-lint` v2 moved linter setting number {i}." for i in range(5)]
    memory = run([note(i, ("fact", text)) for i, text in enumerate(facts)]).memory_md
    headings = [s.heading for s in _markdown.sections(memory) if s.heading.startswith("Facts")]
    assert "Facts: metricstore" in headings and "Facts: golangci" in headings
    assert "Facts: already" not in headings and "Facts: header" not in headings
    # words of any language or source tree, quoted as code, name no topic either ("## Facts: return")
    facts = [f"`internal/api/rest{i}.go` has a `return` before the auth check number {i}." for i in range(5)]
    facts += [f"`pkg/metricstore/file{i}.go` holds the checkpoint writer number {i}." for i in range(5)]
    facts += [f"Plain finding {i} about nothing in code." for i in range(5)]
    memory = run([note(i, ("fact", text)) for i, text in enumerate(facts)]).memory_md
    headings = [s.heading for s in _markdown.sections(memory) if s.heading.startswith("Facts")]
    assert "Facts: metricstore" in headings
    assert not {"Facts: return", "Facts: internal", "Facts: pkg"} & set(headings)


def test_a_learning_only_a_removed_note_supported_is_gone():
    notes = [note(1, TEST, ("gotcha", "Redis must run before the tests.")), note(2, TEST)]
    assert "Redis" in run(notes).memory_md
    after = run(notes[1:]).memory_md
    assert "Redis" not in after and "uv run pytest" in after and notes[0][0] not in after


# ---- the summary --------------------------------------------------------------------------


def test_summary_says_how_to_build_and_test_then_the_learnings_in_complete_sentences():
    notes = [note(i, TEST, ("convention", "Commit subjects are imperative."), ("command", "Lint with `ruff check`."),
                  keywords=["python", "uv"]) for i in range(3)]
    notes.append(note(9, ("gotcha", "Redis must run before the tests."), title="Fix Redis tests"))
    summary = run(notes).summary_md
    sections = {s.heading: [b.text for b in s.bullets] for s in _markdown.sections(summary)}
    assert sections["How to build and test"] == ["Test: `uv run pytest`", "Lint: `ruff check`"]
    assert sections["Preferences and conventions"] == ["Commit subjects are imperative. (3 sessions, strong)"]
    assert sections["Gotchas"] == ["Redis must run before the tests."]
    assert any("Fixed Redis tests" in b for b in sections["Latest work"])  # the work done, not the request
    index = " ".join(sections["Where to look deeper"])
    assert "memgit show projects/pinion:MEMORY.md" in index
    assert "`pinion-run-tests`" in index and "memgit show projects/pinion:skills/<name>/SKILL.md" in index


def how_to(notes) -> list[str]:
    """The summary's "How to build and test" lines for these notes."""
    return [b.text for s in _markdown.sections(run(notes).summary_md) if s.heading == "How to build and test"
            for b in s.bullets]


def test_one_line_per_purpose_the_most_recent_clean_form_that_worked():
    notes = [note(1, ("command", "Tests run with `pytest`."), day=1),
             note(2, ("command", "Tests run with `uv run pytest`."), day=2),
             note(3, ("command", "Tests run with `uv run pytest -x tests/ 2>&1 | tail -20`."), day=3),
             note(4, ("command", "Format and lint with `ruff format && ruff check`."), day=4),
             note(5, ("command", "Lint with `ruff check`."), day=5)]
    lines = how_to(notes)
    # the test runs are one purpose and one tool: the latest without a display pipe wins; the chain
    # adds format, which no single command covers
    assert lines == ["Test: `uv run pytest`", "Lint: `ruff check`", "Format and lint: `ruff format && ruff check`"]


def test_the_agent_s_advice_sits_under_its_purpose_like_the_commands_that_ran():
    # cc-backend (scale): the agent told how to lint, format and start it; it ran `go build` itself
    notes = [note(1, ("command", "Build with `go build ./...`."), day=1),
             note(2, ("command", "`make fmt` — runs `gofumpt -l -w .` over all Go files."), day=2),
             note(3, ("command", "Start with `./cc-backend -server -dev`."), day=3),
             note(4, ("command", "Start with `-loglevel debug`."), day=4)]
    lines = how_to(notes)
    assert lines[:2] == ["Build: `go build ./...`", "Format: `make fmt` — runs `gofumpt -l -w .` over all Go files"]
    assert sorted(lines[2:]) == ["Debug: start with `-loglevel debug`.", "Run: `./cc-backend -server -dev`"]


@pytest.mark.parametrize("advice,shown", [
    ("Run cc-backend with `-loglevel debug`.", "Debug: run cc-backend with `-loglevel debug`."),
    ("Start the server with `--verbose`.", "Debug: start the server with `--verbose`."),
    ("Start the server with `--port 8080`.", "Start the server with `--port 8080`."),  # no more logging: as said
    ("Open it with `-d`.", "Open it with `-d`."),
    ("Check the version with `node -v`.", "Check the version with `node -v`."),  # -v: a version as often as verbose
])
def test_a_flag_that_makes_the_program_log_more_is_told_as_how_to_debug(advice, shown):
    notes = [note(1, ("command", advice)), note(2, ("command", advice))]
    lines = how_to(notes)
    assert lines == [shown]


def test_a_run_of_the_whole_project_beats_a_later_run_of_one_file_or_with_a_display_pipe():
    notes = [note(1, ("command", "Format with `uv run ruff format`."), day=1),
             note(2, ("command", "Format with `ruff format claude_code_log/renderer.py`."), day=2),
             note(3, ("command", "Tests run with `uv run pytest test/test_template_rendering.py -v`."), day=3),
             note(4, ("command", "Lint with `mise run lint`."), day=4),
             note(5, ("command", "Lint with `mise run lint 2>&1 | tail -20`."), day=5)]
    lines = how_to(notes)
    # one file's tests are all that is known of the tests: kept, and said to be one file's; the formatter
    # ran on the whole project once
    assert lines == ["Test (one file): `uv run pytest test/test_template_rendering.py -v`",
                     "Lint: `mise run lint`", "Format: `uv run ruff format`"]  # and no display pipe


def test_two_tools_of_one_purpose_are_one_line_and_advice_tells_the_command_it_runs():
    # fixtures/scale (cc-backend): `go build ./...` and `make` both built the whole project
    notes = [note(0, ("command", "Build with `go build ./...`."), day=1),
             note(1, ("command", "Build with `make`."), day=2),
             note(2, ("command", "Lint with `golangci-lint run`."), day=3),
             note(3, ("command", "`make lint` — runs `golangci-lint run ./...` using `.golangci.yml`."), day=4)]
    lines = how_to(notes)
    assert lines == ["Build: `make` or `go build ./...`",  # the latest first
                     # the advice names `golangci-lint run`: no line of its own
                     "Lint: `make lint` — runs `golangci-lint run ./...` using `.golangci.yml`"]
    notes[2] = note(2, ("command", "Lint with `golangci-lint run --fix`."), day=3)  # not what the advice runs
    assert "Lint: `golangci-lint run --fix`" in how_to(notes)


def test_the_summary_keeps_standing_corrections_and_memory_md_every_one():
    standing = ["could we reuse the session_nav.html template for that, it looks very similar?",  # a choice the agent makes again
                "I didn't find those cross-session navigation links helpful, replace them with one link",
                "I'd actually love that test to be saved as a permanent unit test"]
    one_off = ["Fix all issues in the suggested order",  # the next step of the task, from fixtures/scale
               "The current way with F1 is OK. Commit the changes",
               "Plan a fix for scenario 1",
               "do we even need _generate_html_with_combined_link then?",  # a challenge of one piece of work
               "No teams or leads are loading into the pane now",  # a report of what is broken (fixtures, codex)
               "I think we should start relatively fresh from main branch, can you switch"]  # the task's next step
    notes = [note(i, ("preference", f'The user corrected the agent: "{ask}"'), day=i + 1)
             for i, ask in enumerate(standing + one_off)]
    notes.append(note(9, ("preference", "Never commit without running the tests first."), day=1))
    result = run(notes)
    assert all(ask in result.memory_md for ask in standing + one_off)  # MEMORY.md keeps them all
    assert "Never commit without running the tests first." in result.summary_md
    assert [ask in result.summary_md for ask in standing + one_off] == [True] * 3 + [False] * 6



def test_a_standing_correction_is_told_without_the_request_that_followed_it():
    # fixtures, claude-code-log fe869ecb: the rule, then a request of that session's work
    rule = "Wait, does it only run on main? I think we should run it on all push?"
    request = "Also, would you mind fixing the type issues? They don't look that bad."
    reason = "could we reuse the session_nav.html template for that? looks like it's very similar?"
    notes = [note(0, ("preference", f'The user corrected the agent: "{rule} {request}"'), day=1),
             note(1, ("preference", f'The user corrected the agent: "{reason}"'), day=2)]
    result = run(notes)
    assert f'"{rule}"' in result.summary_md and "type issues" not in result.summary_md
    assert f"{rule} {request}" in result.memory_md  # MEMORY.md and the note keep the whole quote
    assert f'"{reason}"' in result.summary_md  # what follows a rule as its reason is no request: kept

def test_a_standing_remark_that_leans_on_its_session_stays_out_of_the_summary():
    # fixtures, entire-cli e8106766: "this code" was the check the session had just shown; the remark
    # reads as nothing without it. Naming the thing, or saying enough of it, stands alone.
    leaning = "any chance we can consolidate this code?"
    named = "could we reuse claude_code_log/templates/components/session_nav.html for that?"
    said = "I didn't find those cross-session navigation links helpful, replace them with one link"
    notes = [note(i, ("preference", f'The user corrected the agent: "{ask}"'), day=i + 1)
             for i, ask in enumerate((leaning, named, said))]
    result = run(notes)
    assert leaning in result.memory_md and leaning not in result.summary_md
    assert named in result.summary_md and said in result.summary_md


def test_what_the_person_said_in_work_that_recurs_reaches_the_summary_with_its_file():
    # Release notes are updated before every release (fixtures/scale: ReleaseNotes.md, edited in 8 of 82
    # sessions): what the person corrected there holds for the next time. The same kind of remark made
    # in one-off work, or in a session that touched many files, stays in MEMORY.md.
    said = 'The user corrected the agent: "{}"'
    version = said.format("1.5.4 is not yet released. The version can stay there")
    elsewhere = said.format("The timeout can stay at thirty seconds for the importer")
    broad = said.format("Keep the old flag name as an alias for the next minor version")
    notes = [note(1, TEST, edited=["ReleaseNotes.md"]), note(2, TEST, edited=["ReleaseNotes.md", "Makefile"]),
             note(3, ("convention", version), edited=["Makefile", "ReleaseNotes.md"]),
             note(4, ("convention", elsewhere), edited=["importer.go"]),
             note(5, ("convention", broad), edited=["ReleaseNotes.md", "a.go", "b.go", "c.go"]),
             note(6, ("preference", "Never bump the version in a docs-only change."), edited=["ReleaseNotes.md"])]
    result = run(notes)
    assert f"{version} (while editing `ReleaseNotes.md`)" in result.summary_md
    assert elsewhere not in result.summary_md and broad not in result.summary_md
    assert all(text in result.memory_md for text in (version, elsewhere, broad))
    # A rule stated in general terms stands on its own: no file is named after it.
    assert "- Never bump the version in a docs-only change.\n" in result.summary_md
    # Two sessions (with the broad one, which does not count) are not yet a task that recurs.
    assert version not in run(notes[2:]).summary_md


def test_a_request_for_the_next_step_in_work_that_recurs_stays_out_of_the_summary():
    # fixtures/scale e301df65: said while editing files three sessions edited, but it asks the session to look
    # into something; how that work is done next time it does not say
    said = 'The user corrected the agent: "{}"'
    rule = said.format("Keep the existing information and highlight changes and fixes")
    polite = said.format("Please keep the shutdown deadline above a minute")  # a rule said politely asks for nothing
    step = said.format("There are indications that WAL sharding caused the long shutdown times. "
                       "Further investigate if this relates to the issue.")
    notes = [note(1, TEST, edited=["server.go"]), note(2, TEST, edited=["server.go"]),
             note(3, ("preference", rule), edited=["server.go"]), note(4, ("preference", step), edited=["server.go"]),
             note(5, ("preference", polite), edited=["server.go"])]
    result = run(notes)
    assert f"{rule} (while editing `server.go`)" in result.summary_md
    assert f"{polite} (while editing `server.go`)" in result.summary_md
    assert step not in result.summary_md and step in result.memory_md


def test_how_a_tool_the_project_uses_behaves_reaches_the_summary_from_one_session():
    # fixtures/scale 46f222a8 and fixtures 9e953218: a lesson about golangci-lint or Vercel holds wherever they run;
    # what one session found of the project's own code, or saw happening then, stays in MEMORY.md
    tool = ('Golangci-lint v2 requires a `version: "2"` field and restructures `linters-settings` under '
            '`linters.settings`.')
    host = "Vercel doesn't have SSH keys set up, so it can't clone via the `git@github.com:` URL."
    code = "`internal/auth/auth.go` requires the session cookie to be set before the redirect."
    seen = "Vercel is still building the old commit, so the preview shows the previous page."
    notes = [note(i, ("fact", text), day=i + 1) for i, text in enumerate((tool, host, code, seen))]
    result = run(notes)
    assert tool in result.summary_md and host in result.summary_md
    assert code not in result.summary_md and seen not in result.summary_md
    assert all(text in result.memory_md for text in (code, seen))


def test_the_files_a_session_edited_are_kept_in_the_cache_through_a_rebuild(tmp_path):
    from memgit.consolidate.heuristic.memory import Memory

    notes = big_scope(60, seed=3)
    expected = {path: edited_files(n.summary) for path, n in notes}  # (tests/unit/test_edited.py reads them)
    assert sum(1 for e in expected.values() if e) > 30
    memory = Memory(str(tmp_path / "cache.db"))
    for path, n in notes:
        memory.add(path, n)
    assert {i.path: i.edited for i in memory.infos()} == expected
    before = run(memory)
    memory._rebuild()  # what a memory that doubled since its token order was taken does
    assert [(i.path, i.edited) for i in memory.infos()] == [(i.path, i.edited) for i in Memory.of(notes).infos()]
    assert run(memory).summary_md == before.summary_md


def test_the_summary_holds_no_fragment():
    notes = [note(n, ("fact", "The parser lives in `src/parse.py`."), ("fact", "and then the"),
                  ("gotcha", "Here's what happened:")) for n in (1, 2)]
    summary = run(notes).summary_md
    assert "The parser lives in `src/parse.py`." in summary
    assert "and then the" not in summary and "Here's what happened" not in summary


def test_no_type_fills_the_summary():
    notes = [note(i, *[("gotcha", f"Gotcha {k}: the {w} service fails when {w} is down.")
                       for k, w in enumerate(["redis", "kafka", "minio", "vault", "consul", "nginx", "etcd",
                                              "rabbit", "mongo", "mysql", "solr", "memcache"])]) for i in range(3)]
    notes.append(note(10, ("preference", "Prefer small pull requests.")))
    sections = {s.heading: s.bullets for s in _markdown.sections(run(notes).summary_md)}
    assert len(sections["Gotchas"]) == briefing.CAPS["gotcha"]
    assert [b.text for b in sections["Preferences and conventions"]] == ["Prefer small pull requests."]


# ---- contradictions ---------------------------------------------------------------------------


@pytest.mark.parametrize("older,newer", [
    ("Use pnpm instead of npm.", "Use npm, not pnpm."),
    ("Always use British spelling in the docs.", "Always use American spelling in the docs."),
    ("Use tabs for indentation.", "Don't use tabs for indentation."),
    ("Node 18 is required to build the web frontend, because the build uses Vite.",
     "Node 20 is required to build the web frontend, because the build uses Vite."),
], ids=["choice reversed", "alternatives", "polarity", "numbers"])
def test_the_later_of_two_contradicting_learnings_holds(older, newer):
    kind = "fact" if "Node" in older else "convention"
    if kind == "fact":
        kind = "decision"  # a statement of what to do, as facts about versions are decided
    notes = [note(1, (kind, older), day=3), note(2, (kind, older), day=4), note(3, (kind, newer), day=9)]
    c = run(notes)
    assert newer in c.summary_md and older not in c.summary_md
    superseded = {s.heading: s.bullets for s in _markdown.sections(c.memory_md)}["Superseded"]
    [line] = [b.text for b in superseded]
    assert older in line and f'superseded by "{newer}"' in line and "2026-01-09" in line
    assert line.count("](sessions/") >= 2  # where each was said


def test_agreeing_learnings_are_no_contradiction():
    notes = [note(1, ("convention", "Always run the linter before committing.")),
             note(2, ("convention", "Always run the tests before committing."))]
    memory = run(notes).memory_md
    assert "Superseded" not in memory and memory.count("[convention]") == 2


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
        edited = rnd.sample(["ReleaseNotes.md", "api.go", "db.go", "README.md", "x.py"], rnd.randint(0, 5))
        notes.append(note(i, *learnings, day=1 + i % 28, keywords=[rnd.choice(common)], edited=edited))
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
    assert all(path in summary for path, _ in pinned) or "more pinned notes: `memgit show projects/pinion:notes/`" in summary
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


def test_a_memory_built_note_by_note_in_any_order_renders_the_same_bytes():
    from memgit.consolidate.heuristic.memory import Memory

    notes = big_scope(300, seed=5)
    whole = run(notes, pinned=PINNED)
    for seed in range(3):
        order = notes[:]
        random.Random(seed).shuffle(order)
        memory = Memory()
        for i, (path, n) in enumerate(order):
            memory.add(path, n)
            if i % 7 == 3:  # a revert, then the note back
                memory.remove(path)
                memory.add(path, n)
        for path, _ in order[::11]:  # and some gone for good
            memory.remove(path)
        fewer = run([pn for pn in notes if pn not in order[::11]], pinned=PINNED)
        again = run(memory, pinned=PINNED)
        assert (again.memory_md, again.summary_md, again.skills) == (fewer.memory_md, fewer.summary_md, fewer.skills)
        for path, n in order[::11]:
            memory.add(path, n)
        back = run(memory, pinned=PINNED)
        assert (back.memory_md, back.summary_md, back.skills) == (whole.memory_md, whole.summary_md, whole.skills)


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


def across(projects, *, pinned=(), budget=2500):
    """consolidate_global over projects given as branch -> (summary, notes)."""
    memory = heuristic.across({branch: heuristic.portable(notes, branch) for branch, (_, notes) in projects.items()})
    counts = {branch: (summary, len(notes)) for branch, (summary, notes) in projects.items()}
    return heuristic.consolidate_global(counts, memory, pinned=list(pinned), budget_tokens=budget)


def test_global_keeps_what_two_projects_share_and_general_preferences_and_names_them():
    a = [note(1, EMOJI, ("decision", "Use Postgres.")), note(2, ("gotcha", "Docker needs 8 GB of RAM."))]
    b = [note(3, ("preference", "No emoji in commit messages, please."), ("decision", "Use Postgres.")),
         note(5, ("gotcha", "Docker needs 8 GB of RAM."))]
    c = [note(4, ("fact", "Only here.")), note(6, ("preference", "Never push to main without a review."))]
    result = across(
        {"projects/pinion": ("# pinion\n\n## How to build and test\n\n- Tests run with `uv run pytest`.\n", a),
         "projects/lantern": ("", b), "projects/solo": ("", c)},
        pinned=[("notes/2026-01-01-me.md", "I work in UTC.")])
    bullets = [bl.text for s in _markdown.sections(result.memory_md) for bl in s.bullets if bl.type]
    assert len(bullets) == 3, bullets  # decisions and facts stay in their project
    emoji = next(t for t in bullets if "emoji" in t)
    assert "2 projects (lantern, pinion)" in emoji and "`projects/pinion:sessions/2026/01/" in emoji
    assert any("Docker needs 8 GB" in t for t in bullets)
    assert any("Never push to main without a review." in t and "1 project (solo)" in t for t in bullets)
    summary = result.summary_md
    assert "(seen in lantern, pinion)" in summary and "I work in UTC." in summary
    assert "Never push to main without a review." in summary  # stated in general terms, in one project
    assert "uv run pytest" not in summary  # a project's commands stay in its briefing
    assert "1 preference the user stated in general terms and 2 learnings that 2 or more projects share" in summary
    assert tokens.count(summary) <= 2500


@pytest.mark.parametrize("text", [
    "Always run the tests with `uv run pytest`.",  # a command
    "Keep the parser in src/pinion/parse.py.",  # a path
    "Never edit config.yaml by hand.",  # a file name
    "Call `SaveChanges` only from the hook.",  # an identifier
    "Use the GetAgent helper for the agent name.",  # an identifier
    "The user corrected the agent: \"no, put the button outside the search bar\"",  # one task's correction
])
def test_a_project_only_item_never_reaches_main(text):
    projects = {"projects/pinion": ("", [note(1, ("preference", text))]), "projects/lantern": ("", [note(2, TEST)])}
    result = across(projects)
    assert text not in result.memory_md and text not in result.summary_md


def test_a_command_two_projects_share_stays_in_the_projects():
    projects = {"projects/pinion": ("", [note(1, TEST)]), "projects/lantern": ("", [note(2, TEST)])}
    result = across(projects)
    assert "uv run pytest" not in result.memory_md.split("## Projects")[0]


def test_global_budget_holds_with_many_projects():
    projects = {f"projects/p{i}": ("", big_scope(40, seed=i)) for i in range(30)}
    result = across(projects, pinned=PINNED, budget=1000)
    assert tokens.count(result.summary_md) <= 1000 and len(result.summary_md) < 9000
    assert "Never commit .env files." in result.memory_md  # shared by every project


def test_how_to_run_one_test_has_its_own_line_beside_the_suite():
    notes = [note(1, ("command", "Tests run with `mise run test`."), day=1),
             note(2, ("command", "Run one test with `go test ./cmd/cli/strategy/ -run \"NAME\" -v -count=1`."), day=2),
             note(3, ("command", "Tests run with `go test ./internal/api/ -run TestNats -v`."), day=3)]
    lines = how_to(notes)
    # a named run is how to run one test (its names shown as NAME), never the suite's line
    assert lines[0] == "Test: `mise run test`"
    assert set(lines[1:]) <= {"One test: `go test ./internal/api/ -run 'NAME' -v`",
                              "One test: `go test ./cmd/cli/strategy/ -run \"NAME\" -v -count=1`"}
    assert "One test: `go test ./internal/api/ -run 'NAME' -v`" in lines
