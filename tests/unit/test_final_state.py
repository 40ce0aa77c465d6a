"""What reaches the briefing, as pure rules: standing or one-off, the final state of a session, statements that
stand alone, and which learnings earn a line (issue 17).

The sentences are the real ones of ../shared/fixtures (the session named beside each), so each rule is shown
on what people and agents actually write; the transcripts themselves are read in test_briefing_fixtures.py.
"""

from __future__ import annotations

import pytest

from memgit.consolidate.heuristic.graph import Cluster, Occurrence
from memgit.consolidate.heuristic.selection import briefed, lasting_gotcha
from memgit.core.model import Transcript, Turn
from memgit.extract import heuristic
from memgit.extract.heuristic import filters, revisions, session
from memgit.extract.heuristic.standing import correction_worth_keeping, standing, stated_generally
from tests.unit.test_heuristic import CWD, agent, bash, call, edit, note_of, texts, user

CORRECTED = "The user corrected the agent: "

# ---- standing or one-off -------------------------------------------------------------------------

STANDING = [
    # stated in general terms, as the person's taste, or as a choice the agent would make again
    "Never push directly to main.",
    "The user prefers small focused commits.",
    "Use pnpm instead of npm in this repo from now on.",  # the demo's lantern session
    "Don't use ClMail for communication, use the builtin subagent teams.",  # ef958aa1 (claude fixtures)
    "Keep our working documentation in linear.",  # 8b418ea5
    CORRECTED + '"I didn\'t find those cross-session navigation links helpful, can you please replace them with a '
                'single link to the combined transcript instead?"',  # 37f83ec9
    CORRECTED + '"could we reuse claude_code_log/templates/components/session_nav.html for that? looks like it\'s '
                'very similar?"',  # 37f83ec9
    CORRECTED + '"Wait, does it only run on main? I think we should run it on all push?"',  # fe869ecb
    CORRECTED + '"This all feels complex and over-engineered for loading and editing a simple team object."',  # 01997e76
    "Project rule (CLAUDE.md, Performance): All code changes must prioritize maximum throughput.",  # 50633cd8 (scale)
    "Do not apply linting for the tests.",  # b6fee4c0 (scale): a norm, though "Do" opens questions too
    CORRECTED + '"Tests should exercise real strategy behaviour, not just metadata serialization"',
    # a judgement with an intensifier judges as one without ("not so useful" is "not useful")
    CORRECTED + '"can you remove the not so useful checkpoint_tests again"',  # 6113e919 (claude fixtures)
    CORRECTED + '"these comments are not really helpful"',
]
ONE_OFF = [
    # the next step of the task, a pointer into the session, an approval, a plain question (fixtures/scale)
    CORRECTED + '"Fix all issues in the suggested order"',  # fc14d957
    # a proposal to look into something counts the things of one task ("at each …"), no rule (a318ad73)
    CORRECTED + '"I think we should look what we calculate at each shadow branch state around line usages, this '
                'might also be helpful for debugging since the calculation is pretty opaque"',
    CORRECTED + '"The current way with F1 is OK. Commit the changes"',  # fc14d957
    CORRECTED + '"Plan a fix for scenario 1"',  # 039c7932
    CORRECTED + '"Only implement fix 6"',  # 3a41c7a4
    CORRECTED + '"Make the log message in line 363 more descriptive"',  # 50633cd8
    CORRECTED + '"Why wasn\'t this a problem before the changes?"',  # 734f1e28
    CORRECTED + '"How can I add the projects array used for the manager role in KeyCloak"',  # 07d71faa
    CORRECTED + '"I couldn\'t replicate the 4 session issue, but I still got 2 commits, so maybe we should focus on '
                'that"',  # 6113e919 (claude fixtures)
    "Keep the existing information and highlight changes and fixes.",  # ff9dfa67 (scale): the task's brief
    # a report of what is broken, an interjection, a proposal for the task, a challenge of one piece of work
    CORRECTED + '"No teams or leads are loading into the pane now"',  # 01997e76 (codex fixtures)
    CORRECTED + '"Why do we need stats for the team?"',  # 01997e76
    CORRECTED + '"not the new session button. this one the plus button in there"',  # 8a2518dd
    CORRECTED + '"hmm, I was able to do it through the UI -> https://linear.app/entirehq/document/task-list it '
                'shows up in the Issue\'s \"Resources\""',  # 8b418ea5
    CORRECTED + '"I think we should start relatively fresh from main branch, can you switch, write a new '
                'architecture document replacing the multi one"',  # a318ad73
    CORRECTED + '"ah I messed up, I reset the commit and made a new one, the old shadow branch was gone, so the '
                'data is now totally off I guess? but this should mean it attributes more to me but numbers should '
                'be correct?"',  # 6113e919
    CORRECTED + '"This is annoying, maybe we should use the https repo address?"',  # 9e953218
    # a task that asks what should be done: the "should" of an indirect question states no rule (9fa13bc4, scale)
    CORRECTED + '"Analyse which directories should be added to the directoryFilters"',
    CORRECTED + '"Check whether the cache has to be invalidated after a write"',
    # documentation the person pasted: a "do not" inside it is no rule of theirs (cb2e607c)
    CORRECTED + '"Installing the tool is useful if you need the tool to be available to other programs on your '
                'system, e.g., if some script you do not control requires the tool"',
]


@pytest.mark.parametrize("text", STANDING, ids=[t[:40] for t in STANDING])
def test_a_standing_rule_is_told(text):
    assert standing(text)


@pytest.mark.parametrize("text", ONE_OFF, ids=[t[:40] for t in ONE_OFF])
def test_a_one_off_instruction_is_not(text):
    assert not standing(text)


@pytest.mark.parametrize("said", ["Fix all issues in the suggested order", "The current way with F1 is OK. Commit the changes",
                                  "How can I add the projects array used for the manager role in KeyCloak",
                                  # a report of what is broken: a symptom (codex fixtures, 01997e76), no rule
                                  "No teams or leads are loading into the pane now",
                                  "Ok it is still not working either way. No data is showing up",
                                  "I don't know why this fails"])
def test_a_redirect_that_steers_the_task_is_not_even_kept_as_a_correction(said):
    assert not correction_worth_keeping(said)


@pytest.mark.parametrize("said", ["Don't retry when the build fails", "The tests should not be skipped when CI fails"])
def test_a_rule_about_failures_is_kept_as_a_correction(said):
    assert correction_worth_keeping(said)


def test_only_a_rule_in_general_terms_holds_in_every_project():
    assert stated_generally("Never push directly to main.")
    assert stated_generally("I prefer plain imperative commit subjects.")
    assert not stated_generally("Use pnpm instead of npm.")  # a choice of one project's tooling
    assert not stated_generally(CORRECTED + '"I think we should run it on all push?"')  # one project's correction


def test_a_one_off_correction_stays_in_the_note_and_out_of_the_briefing():
    from tests.unit.test_heuristic import WORK, note_of

    note = note_of(*WORK, user("no remove this again, the risk someone assumes it's a stable link is to big"),
                   agent(edit(f"{CWD}/b.py"), text="Done."))
    [kept] = [l.text for l in note.learnings if l.type in ("preference", "convention")]
    assert kept.startswith(CORRECTED) and not standing(kept)


# ---- the final state of a session ----------------------------------------------------------------


def read(*turns: Turn) -> session.Session:
    return revisions.prune(session.read(Transcript("s", "claude-code", "/x.jsonl", cwd=CWD, turns=list(turns))))


def told(*turns: Turn) -> str:
    result = heuristic.extract(Transcript("s", "claude-code", "/x.jsonl", cwd=CWD, turns=list(turns)), project="p")
    return "\n".join(l.text for l in result.note.learnings) if result.note else ""


def test_a_claim_the_person_later_corrected_is_not_stored():
    # 020fd1ca (scale): the agent's account of the idle+down case, which the person corrected next
    turns = (user("Adopt the determineState routine to set the state in the order of the switch statement."),
             agent(edit(f"{CWD}/api/node.go"), text="The `determineState` function now checks the priority order. "
                   "Naturally handles the idle+down exception — since `idle` is checked before `down`, it always "
                   "wins when both are present."),
             user("Correction: If a node is idle + down then mark it as down"),
             agent(edit(f"{CWD}/api/node.go"), text="The idle+down case now explicitly returns `down` before the "
                   "individual `idle` check fires."))
    s = read(*turns)
    assert [x.said[:10] for x in s.exchanges] == ["Adopt the ", "Correction"]
    assert "The `determineState` function now checks the priority order." in s.exchanges[0].texts[0]
    assert "always wins when both are present" not in s.exchanges[0].texts[0]
    assert "explicitly returns `down`" in s.exchanges[-1].texts[0]
    assert "always wins when both are present" not in told(*turns)


def test_a_claim_the_agent_later_retracted_is_not_stored():
    turns = (user("Why does the importer skip archived jobs?"),
             agent(call("Read", file_path=f"{CWD}/importer.go"),
                   text="The importer skips archived jobs because `loadJobs` filters on `job_state = 'running'`."),
             user("Are you sure?"),
             agent(call("Read", file_path=f"{CWD}/importer.go"),
                   text="Actually, I was wrong: `loadJobs` reads every job; the skip happens in `archive.Filter`, "
                        "which drops jobs older than the retention window."))
    s = read(*turns)
    assert not any("filters on `job_state" in t for t in s.exchanges[0].texts)
    assert "archive.Filter" in s.exchanges[-1].texts[0]


def test_options_not_taken_are_gone_and_the_chosen_one_stays():
    # bef12fe0 / 3a41c7a4 (scale): a menu of options, then the person picks one
    answer = ("Two ways to fix the shutdown:\n\n"
              "**Option A: Raise the deadline to 120s** — `metricstore.Shutdown()` gets enough time to write the "
              "snapshots.\n\n"
              "**Option B: Remove the outer deadline, keep per-component timeouts (cleaner)** — each component "
              "bounds its own shutdown.\n\nWhich one?")
    s = read(user("The shutdown takes too long, what can we do?"), agent(text=answer), user("Go with option A"),
             agent(edit(f"{CWD}/server.go"), text="Done."))
    kept = s.exchanges[0].texts[0]
    assert "Raise the deadline to 120s" in kept and "Remove the outer deadline" not in kept


def test_an_alternative_nobody_chose_is_not_a_fix():
    # 0fb73ab2 (scale): "Alternative: use `%+v` with `errors` wrapping" beside the fix that was made
    answer = ("Use `runtime.Callers` to capture the call site in `handleError`.\n\n"
              "Alternative: use `%+v` with `errors` wrapping — callers wrap their errors with context first.")
    s = read(user("How can I see where an error is logged from?"), agent(text=answer), user("ok, do it"))
    assert "runtime.Callers" in s.exchanges[0].texts[0] and "%+v" not in s.exchanges[0].texts[0]


def test_the_fixes_a_person_named_are_kept_and_the_others_are_not():
    answer = "\n".join(f"### Fix {n} — {what}\nChange `{what.split()[0]}` in `repo.go`." for n, what in
                       [(5, "Prepared statements for tag lookups"), (6, "BusyTimeout from the config"),
                        (7, "Batch tag operations on job start")])
    s = read(user("Review the write path"), agent(text=answer), user("Only implement fix 6"))
    kept = s.exchanges[0].texts[0]
    assert "BusyTimeout from the config" in kept and "Batch tag operations" not in kept and "Prepared" not in kept


def test_a_plan_keeps_every_step_it_lists():
    plan = "# Fix write contention\n\n## Fix 1: WAL mode\nSet `journal_mode=WAL`.\n\n## Fix 2: busy timeout\nRaise it."
    s = read(user(plan, "plan"))  # the source marks the pasted plan (the harness wrapper removed)
    assert s.plans and "journal_mode=WAL" in s.plans[0] and "Raise it." in s.plans[0]


def test_a_reverted_change_is_not_a_decision():
    turns = (user("Make the cache flush every second"),
             agent(edit(f"{CWD}/cache.go"), text="Switched the cache to flush on a 1-second `time.Ticker` instead of "
                                                 "after every batch, because batches are small."),
             user("revert that"),
             agent(bash("git checkout cache.go", "ok"), text="Reverted."))
    assert "time.Ticker" not in told(*turns)


def _fixture_note(pattern: str):
    from memgit.sources.claude_code.reader import read_transcript
    from tests.conftest import SHARED

    found = sorted(SHARED.glob(f"fixtures/**/{pattern}*.jsonl"))
    if not found:
        pytest.skip("../shared/fixtures is absent")
    return heuristic.extract(read_transcript(found[0]), project="x").note


def test_what_a_plan_the_person_turned_down_proposed_is_not_stored():
    # cb2e607c (fixtures): a subagent's report and the first plan rename the script; the person turns the plan
    # down ("Let's keep the name of the py file …") and approves one that keeps it
    said = " ".join(l.text for l in _fixture_note("cb2e607c").learnings)
    assert "coderabbit_review_extractor.py" not in said and "Let's keep the name of the py file" in said
    # cc530b30 (scale): the second plan words the root cause anew (`walCheckpoint.go:266-296`, "flushes every
    # open `bufio.Writer`"); what it still names is no option not taken
    assert any("flushAll()" in l.text for l in _fixture_note("cc530b30").learnings)


# ---- statements that stand alone ------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "For paths 3 and 4: the parquet file cleanup (`os.Remove`) already happens, just need `continue` instead of `return`",
    "This approach keeps the old behaviour for the REST handler.",
    "It is called from `Init()` before the server starts.",
    "Fix: The code matches the fixed version:: `n, m := 0, len(series[0].Data)` — uses local `series`",
    "Problem: Check if the previous bug is fixed. Fix: Line 307:",
    # cc-backend (scale): a pronoun and its verb, or "these <things>", lean on what the session said before
    "This reduces flush work from O(all_hosts_in_shard) to O(hosts_written_in_batch) per cycle.",
    "These filters are passed to `JobRepository.JobsStatsGrouped()`, which calls `buildStatsQuery()`.",
    "It returns nil when the job is not found in the cache.",
])
def test_a_statement_that_leans_on_its_session_is_dropped(text):
    assert filters.problem(text) is not None


@pytest.mark.parametrize("text", [
    "This process handles every write to the WAL files in order.",  # a noun ending in s, not a verb
    "This repo uses pnpm workspaces for every package.",
    "Vercel doesn't have SSH keys set up, so it can't clone via the `git@github.com:` URL.",
])
def test_a_statement_naming_its_subject_stands(text):
    assert filters.problem(text) is None


def test_a_line_number_goes_and_leaves_no_stray_comma():
    # cc-backend (scale): "(stats.go, line 233)", "(`internal/repository/user.go`, lines 33-56)"
    assert filters.scrub("Filters reach `JobsStatsGrouped()` (stats.go, line 233) first.") == \
        "Filters reach `JobsStatsGrouped()` (stats.go) first."
    assert filters.scrub("Modify the `Scan` block in `GetUser` (`internal/repository/user.go`, lines 33-56).") == \
        "Modify the `Scan` block in `GetUser` (`internal/repository/user.go`)."
    # claude fixtures (entire-cli): a list of line ranges goes whole, not as "(, 319-342)"
    assert filters.scrub("The multi-session support already exists (lines 280, 319-342): it archives the old "
                         "session.") == "The multi-session support already exists: it archives the old session."


def test_the_yes_or_no_of_an_answer_goes_and_its_finding_stands():
    # cc-backend (scale): the answer to "is GOMAXPROCS set anywhere?"
    assert filters.scrub("No, `GOMAXPROCS` is never set explicitly in this application.") == \
        "`GOMAXPROCS` is never set explicitly in this application."
    assert filters.scrub("No new files were added by the plan.") == "No new files were added by the plan."


def test_a_lead_in_before_a_labelled_list_is_cut_and_the_list_stands():
    # cb2e607c (claude fixtures): the agent's "This provides:" before what each command is for
    said = ("This provides: Regular update: `uv tool upgrade coderabbit-review-extractor` - for normal updates; "
            "Force reinstall: `uv tool upgrade --reinstall coderabbit-review-extractor` - to rebuild from source.")
    kept = filters.scrub(said)
    assert kept.startswith("Regular update: `uv tool upgrade") and filters.problem(kept) is None
    assert filters.problem(filters.scrub("It now supports: JSON and YAML configs.")) is not None  # no list: still leans


def test_a_review_label_is_cut_and_the_finding_kept():
    text = "M4 — `pkg/metricstore/metricstore.go`: `Shutdown()` is now idempotent and releases its lock first."
    assert filters.scrub(text).startswith("`pkg/metricstore/metricstore.go`")


# ---- which learnings earn a line in the briefing -------------------------------------------------


def cluster(kind: str, text: str, sessions: int = 1) -> Cluster:
    return Cluster(kind, [Occurrence(kind, text, f"sessions/n{i}.md", f"claude-code/s{i}", f"2026-03-0{i + 1}")
                          for i in range(sessions)])


@pytest.mark.parametrize("kind,text,sessions,told_", [
    ("gotcha", "`ReceiveNats` blocks by design, so `Init()` must start it in a goroutine.", 1, True),
    ("gotcha", "`npm run build` failed with \"Cannot find module 'vite'\"; running `npm install` fixed it.", 1, True),
    ("gotcha", "`act -j test` failed with \"image platform mismatch\"; `act --container-architecture linux/amd64 "
               "-j test` works.", 1, True),
    # a debugging trail of one session: a typo'd package path, a bug since fixed, the story of one change
    ("gotcha", "`go test ./cmd/... ./internal/api/...` failed with \"lstat ./internal/api/: no such file\"; "
               "`go test ./cmd/... ./internal/repository/...` works.", 1, False),
    ("gotcha", "Root cause: `flushAll()` flushes every open host WAL file after each batch.", 1, False),
    ("gotcha", "Root cause: `flushAll()` flushes every open host WAL file after each batch.", 2, True),
    ("decision", "`internal/config/config.go` — Replaced `Resolutions []int` with `DefaultPolicy string`.", 1, False),
    ("decision", "Logging improvements: Reduced tagger log noise to debug level.", 1, False),
    ("decision", "Metric writes always go to the in-memory store first, so a full WAL channel never loses data.", 1,
     True),
    ("fact", "The metric store keeps metrics in memory and checkpoints them per host.", 1, False),
    ("fact", "The metric store keeps metrics in memory and checkpoints them per host.", 2, True),
    ("preference", CORRECTED + '"Fix all issues in the suggested order"', 1, False),
    ("preference", "Never push directly to main.", 1, True),
])
def test_what_earns_a_line(kind, text, sessions, told_):
    assert briefed(cluster(kind, text, sessions)) is told_


def test_a_gotcha_that_bites_again_reads_as_how_things_behave():
    assert lasting_gotcha("SQLite parses double-quoted strings as literals, so `json_extract(x, \"$.a\")` never "
                          "matches a metric name.")
    assert not lasting_gotcha("The issue was that the `drained:` label was inside the `select` statement.")


@pytest.mark.parametrize("text,told_", [
    # what was happening at that moment of the debugging (9e953218): it reads only inside its session
    ("The rewrite is serving `index.html` correctly, but the CSS/JS files referenced within it are being requested "
     "from the root (`/tokenizer.css`) instead of from within the tokenizer directory.", False),
    ("The submodule files are there, but Next.js isn't serving them properly because they're in the `public/` "
     "directory but not being treated as static assets correctly.", False),
    # a progressive inside a condition is how things behave (e9fb405b)
    ("\"Fail-Open\" Secret Detection: The `.husky/pre-commit` hook attempts to run `npm run validate:secrets`. "
     "However, if the Docker daemon is not running, the script skips detection and allows the commit.", True),
])
def test_a_debugging_observation_is_no_gotcha_that_bites_again(text, told_):
    assert lasting_gotcha(text) is told_


@pytest.mark.parametrize("text,told_", [
    # the person's report must name its subject; the finding must hold beyond the fix one session made
    ("Problem: Ok it is still not working either way. Fix: Patched `useTeamWithStats` so that any `initialTeam` "
     "is treated as stale, which forces an immediate fetch whenever the sheet opens.", False),  # 01997e76 (codex)
    ("Problem: Integration tests failing \"Expected session ID conflict error\". Fix: moving shadow branch conflict "
     "check before the early return, when `CheckpointCount == 0`", False),  # 6113e919
    ("Problem: \"is a directory\" error when creating shadow branch. Fix: ensuring `BaseCommit` is always set in "
     "`checkConcurrentSessions`", False),  # 6113e919
    ("Problem: The build fails on a clean checkout with a missing module error. Fix: `go generate ./...` must run "
     "before `go build`, since the GraphQL code is generated.", True),
    # a fix made in the setup, not in the project's code: whoever sets the same thing up meets it again
    ('Problem: "Error: Command "git submodule update --init --recursive && yarn run build" exited with 1" Fix: '
     "Switched the submodule from SSH (`git@github.com:`) to HTTPS (`https://github.com/`). Now Vercel will be able "
     "to clone the submodule during the build process without needing SSH keys.", True),  # 9e953218
    ("Problem: Still doesn't work, maybe there's a step needed to have the submodule checked out during Vercel build? "
     "Fix: Added a `buildCommand` to vercel.json that will: Initialize and update git submodules", True),  # 9e953218
    ("Problem: The stylecheck linter does not exist. Fix: Removed `stylecheck` from the linters list and moved "
     '`checks: ["ST1003"]` into `staticcheck`\'s settings.', True),  # 46f222a8 (scale)
    ("Problem: I thinkt you got an API error? Fix: Created `.claude/scripts/remote-setup.sh` - automated setup for "
     "web sessions Updated `.claude/settings.json`", False),  # the agent's own trouble, not the project's setup
    ("Problem: Test compilation failure - `SimulateGeminiAfterAgent` undefined. Fix: Added the missing function to "
     "`hooks.go` and `testenv.go`", False),  # a fix in the project's code
])
def test_a_reported_problem_is_told_only_as_a_lesson_that_holds(text, told_):
    assert lasting_gotcha(text) is told_


@pytest.mark.parametrize("title,line", [
    ("Add a Make target to format all go files using gofumpt", "Added a Make target to format all go files using gofumpt"),
    ("Build the site and fix whatever breaks", "Built the site and fixed whatever breaks"),  # the demo's lantern
    ("can you please add a Github Action to run tests and linting?", "Added a Github Action to run tests and linting"),
    ("run an agent that creates a color file inside docs, choose your color", "Ran an agent that creates a color file inside docs"),
    ("Have a look at the git diff of renderer.py and explain it", "Looked at the git diff of renderer.py and explained it"),
    ("When are the wal journal files reset", "Looked into: when are the wal journal files reset"),
    ("Do you think these files could live in a submodule", "Looked into: do you think these files could live in a submodule"),
    ("Evaluate packages/services and create a new package", "Evaluated packages/services and created a new package"),
    # cc-backend (scale): a plan's title keeps the code it names whole, a label colon and a step number go
    ("Fix Missing `rows.Close()` Memory Leaks in SQLite3", "Fixed Missing `rows.Close()` Memory Leaks in SQLite3"),
    ("Fix: ReceiveNats blocks Init() during startup", "Fixed ReceiveNats blocks Init() during startup"),
    ("Add CLI Flag: `-cleanup-checkpoints`", "Added CLI Flag `-cleanup-checkpoints`"),
    ("Step 5: Add covering indexes for status queries", "Added covering indexes for status queries"),
    ("I'm working on linear ENT-98", "Worked on linear ENT-98"),  # 8b418ea5 (claude fixtures)
    # cc-backend (scale): a reported problem is what was worked on, not the project's state today
    ("The cleanup archiving still does not work", "Worked on: the cleanup archiving still does not work"),
    ("The shutdown still runs into the 60s timeout", "Worked on: the shutdown still runs into the 60s timeout"),
    ("Per-User Resampling Preferences with Policy-Based Configuration",
     "Per-User Resampling Preferences with Policy-Based Configuration"),  # a plan's title stays as it is
    ("Metricstore NATS Slow Consumer Analysis", "Metricstore NATS Slow Consumer Analysis"),
    # a title the note cut ends before a clause or a name that opens just before the cut, and a hedge
    ("Move these 3 files into a git submodule or something so they can live…",
     "Moved these 3 files into a git submodule…"),  # 9e953218
    ("how can I make this possible to install as a library with `uv` so I…",
     "Looked into: how can I make this possible to install as a library with `uv`…"),  # cb2e607c
    ("Analyze existing CLI command and create specification for adding…",
     "Analyzed existing CLI command and created specification…"),  # e9fb405b
    ("Evaluate packages/services and create a new package called…", "Evaluated packages/services and created a new package…"),
    # a phrase that has said something stays, and so does a cut inside code
    ("Updating a team to assign a lead or change from viewer to contributor…",
     "Updating a team to assign a lead or change from viewer to contributor…"),
    ("One idea about how to organize the work Markdown documents generated…",
     "One idea about how to organize the work Markdown documents generated…"),
    ("Fix the flag in `sync --dry-run and then…", "Fixed the flag in `sync --dry-run and then…"),
])
def test_the_latest_work_says_what_was_done_not_what_was_asked(title, line):
    from memgit.core.work_line import work_line

    assert work_line(title) == line


# ---- a bug of the project's own code, fixed in the session, is its history ----------------------------

def test_the_cause_of_a_bug_the_session_then_fixed_is_a_fact_not_a_gotcha():
    # fc14d957/bef12fe0 (scale): the agent explains why the WAL files survive a shutdown, then changes that code
    cause = ("Writing ~5800 binary snapshots for 21GB takes well over 10s, so the process exits before "
             "`RotateWALFilesAfterShutdown()` runs.")
    fixed = call("Edit", file_path=f"{CWD}/pkg/metricstore/metricstore.go",
                 old_string="\tcheckpointing.Shutdown()\n", new_string="\tcheckpointing.Shutdown()\n"
                 "\tRotateWALFilesAfterShutdown(dirs)\n")
    turns = [user("the shutdown still leaves the wal files behind, it's broken"),
             agent(call("Read", file_path=f"{CWD}/pkg/metricstore/metricstore.go"), text=f"The root cause: {cause}")]
    assert any(cause in text for text in texts(note_of(*turns), "gotcha"))  # explained, not yet changed: a gotcha
    fixed_note = note_of(*turns, agent(fixed, text="I changed the shutdown so the WAL files are rotated first."))
    assert not any(cause in text for text in texts(fixed_note, "gotcha"))
    assert any(cause in text for text in texts(fixed_note, "fact"))  # kept: search and the prompt hook find it


@pytest.mark.parametrize("text,edited,fixed", [
    ("`ReceiveNats` blocks by design (`wg.Wait()` waits for context cancellation), but it's called synchronously "
     "from `Init()`", "go ReceiveNats(ctx)", True),  # 734f1e28 (scale)
    # a library's behaviour stays a gotcha although the session edited code that calls it
    ("Under strict pyright, values coming out of `json.loads` are Unknown; narrow them with `typing.cast()`.",
     "data = cast(dict[str, Any], json.loads(raw))", False),  # fe869ecb
    ("Without statistics in `sqlite_stat1`, SQLite's query planner chose `jobs_jobstate_energy`.",
     "db.Exec(\"ANALYZE\")", False),  # 42401d2e (scale)
    ("`CountStates` has a bad merge", "", False),  # no edit: nothing was fixed here
    ("When there are no session messages, it takes the early return path and calls `generate_html([], title)` "
     "without the cache manager.", "    return generate_html(messages, title, cache_manager)", True),  # 37f83ec9
])
def test_only_names_of_the_code_the_session_changed_make_a_gotcha_its_history(text, edited, fixed):
    from memgit.extract.heuristic.gotchas import fixed_here

    assert fixed_here(text, edited) is fixed


def test_a_reported_problem_keeps_what_was_done_about_it_beside_its_cause():
    # 42401d2e (scale): the answer says what it did, then two sentences on the cause; the note's fix had only
    # the cause, and the settling of gotchas must judge the cause, not the code the fix names
    dbconn = f"{CWD}/internal/repository/dbConnection.go"
    answer = ("Here's a summary of findings and fixes:\n\n### Bug 2: SQLite never ran ANALYZE\n\n"
              "Fixed. Added `ANALYZE` to `setupSqlite()` in `dbConnection.go`. Without statistics in `sqlite_stat1`, "
              "SQLite's query planner guessed and chose `jobs_jobstate_energy` (a terrible index for this query) "
              "instead of scanning `jobs_starttime` in reverse.\n\n### Bug 3: the IN clause\n\n"
              "The only efficient plan is to use the standalone `jobs_starttime` index — which SQLite does "
              "automatically after ANALYZE because it realizes the 3 states cover virtually all rows, making the "
              "WHERE clause nearly a no-op.")
    note = note_of(user("Especially the following query triggers the memory leak: SELECT * FROM job WHERE "
                        "job.job_state IN ('completed', 'running') ORDER BY job.start_time DESC; it is broken"),
                   agent(call("Edit", file_path=dbconn, old_string="func setupSqlite(db *sql.DB) error {\n",
                              new_string="func setupSqlite(db *sql.DB) error {\n\tdb.Exec(\"ANALYZE\")\n"),
                         text=answer))
    gotchas = texts(note, "gotcha")
    assert any("Fix: Added `ANALYZE` to `setupSqlite()`" in g for g in gotchas), gotchas
    assert not any(g.count("SQLite") and "Without statistics" in g and "Added" not in g for g in gotchas)


@pytest.mark.parametrize("said,source_title,title", [
    # fc14d957 (scale): the context first, then the ask; and the harness's own title, set as a slug
    ("This application uses a files based checkpointing mechanism using a WAL algorithm for crash recovery. "
     "Analyse when the wal files are reset. Currently the wal files are not reset.", None,
     "Analyse when the wal files are reset"),
    ("This application uses a WAL. Analyse when the wal files are reset.", "fix-wal-reset-on-shutdown",
     "Fix wal reset on shutdown"),
    # an ask that leans on the context ("this") keeps the context as the title (01997e76, codex)
    ("updating a team to assign a lead is VERY slow. Evaluate how this is handled in the TeamSheet.", None,
     "Updating a team to assign a lead is VERY slow"),
    # ... but a determiner with its noun names the subject (9e953218), and how the ask is put is dropped
    ("I have public/tokenizer.css and public/tokenizer.js on my website, but the deep link is awkward. Do you think "
     "it would be possible to move these 3 files into a git submodule?", None,
     "Move these 3 files into a git submodule"),
    # an ask with no subject of its own: the context said before it is the subject (46f222a8, cc530b30 scale)
    ("The stylecheck linter does not exist. Fix the problem", None, "The stylecheck linter does not exist"),
    ("There are occasional warnings in the log: [WARNING] lineprotocol.go:368: [METRICSTORE]> WAL shard channel "
     "full, dropped 7220001 messages (data safe in memory). Is this a problem? And how can it be fixed?", None,
     "There are occasional warnings in the log"),
    # a clause that names no subject before the one that does (03eb5929)
    ("Ok, so there's isn't much to see here, mostly one idea about how to organize the work Markdown documents "
     "generated during a Claude Code session.", None,
     "One idea about how to organize the work Markdown documents generated…"),
])
def test_a_note_is_titled_by_what_its_first_request_asks(said, source_title, title):
    from memgit.extract.heuristic import session, summary
    from tests.unit.test_heuristic import transcript

    t = transcript(user(said), agent(text="Done."))
    t.title = source_title
    assert summary.title(session.read(t), source_title) == title


def test_a_look_around_before_the_work_does_not_title_the_note():
    # 019e1625 (codex): "show tools", then the work; a session that only looks around keeps its one request
    from memgit.extract.heuristic import session, summary
    from tests.unit.test_heuristic import transcript

    worked = transcript(user("show tools"), agent(text="read_file, shell, …"),
                        user("let's update the default context compaction to 90 in the env var"), agent(text="Done."))
    looked = transcript(user("List the files"), agent(text="a.py b.py"), user("thanks"), agent(text="You're welcome."))
    assert summary.title(session.read(worked), None) == "Let's update the default context compaction to 90 in the env var"
    assert summary.title(session.read(looked), None) == "List the files"


@pytest.mark.parametrize("first,second,same", [
    # 684c9528 (scale): one finding, framed twice in one answer
    ("Root cause: `timer` is declared as `$state(null)`, making it reactive.",
     "The issue is that `timer` is declared as `$state`, which makes it reactive.", True),
    # 50633cd8 (scale)
    ("Root cause: Taggers were appended to the slices unconditionally, then `Register()` was called.",
     "In `newTagger()` (tagger.go), taggers are appended to the slices before `Register()` is called.", True),
    # two findings of one session about the same code stay two
    ("In `newTagger()` (tagger.go), taggers are appended to the slices before `Register()` is called.",
     "When `Register()` fails (directory missing), the tagger stays in the slice with uninitialized fields.", False),
])
def test_the_same_finding_framed_twice_in_one_session_is_one_learning(first, second, same):
    from memgit.extract.heuristic.rank import _content, _same

    assert _same(_content(first), _content(second)) is same


def test_a_tool_saying_something_does_not_exist_is_a_reported_problem_and_its_ask_is_no_part_of_it():
    # 46f222a8 and c92eb77e (scale): golangci-lint v2 dropped stylecheck and changed its config format
    answer = ("In golangci-lint v2, `stylecheck` was removed — its checks (ST) are now part of `staticcheck`.\n\n"
              "Removed `stylecheck` from the linters list and moved `checks: [\"ST1003\"]` into `staticcheck`'s "
              "settings. The ST1003 naming convention check will now run via `staticcheck`.")
    note = note_of(user("The stylecheck linter does not exist. Fix the problem"), agent(text=answer))
    assert any(g.startswith("Problem: The stylecheck linter does not exist. Fix: ") for g in texts(note, "gotcha"))
    from memgit.extract.heuristic.gotchas import _symptom_of

    said = "the golangci-lint tool complaints that the configuration is outdatd and incompatible, Fix it."
    from tests.unit.test_heuristic import transcript

    s = session.read(transcript(user(said), agent(text="Done.")))
    assert _symptom_of(s.exchanges[0], s) == "the golangci-lint tool complaints that the configuration is outdatd " \
                                             "and incompatible"


def test_a_question_how_to_do_something_is_no_reported_problem_whatever_words_it_holds():
    # 0fb73ab2 (scale): "error" in a question asking for a way ("How can I enrich the log message to make
    # transparent from where the error is triggered?"); the answer's way stays a fact of the note
    note = _fixture_note("0fb73ab2")
    assert texts(note, "gotcha") == [] and "Use `runtime.Callers` to capture the call site." in texts(note, "fact")
    from memgit.extract.heuristic.gotchas import _symptom_of
    from tests.unit.test_heuristic import transcript

    s = session.read(transcript(user("How can I fix the error the build shows on a clean checkout?"),
                                agent(text="Done.")))
    assert _symptom_of(s.exchanges[0], s) == "How can I fix the error the build shows on a clean checkout?"


def test_a_long_report_gives_way_to_its_finding_unless_the_finding_alone_is_one_session_s_change():
    from memgit.consolidate.heuristic.briefing import _finding

    pasted = ("Problem: Especially the following query triggers the memory leak: SELECT * FROM job WHERE job.job_state IN "
              "('completed', 'running', 'failed') ORDER BY job.start_time DESC LIMIT 50 OFFSET 0. Fix: Without statistics "
              "in `sqlite_stat1`, the planner must guess, so `ANALYZE` has to run after the indexes are made.")
    assert _finding(pasted).startswith("Without statistics")  # 42401d2e (scale): the SQL gives way
    asked = ("Problem: Still doesn't work, maybe there's a step needed to have the submodule checked out during Vercel "
             "build? Fix: Added a `buildCommand` to vercel.json that will: Initialize and update git submodules")
    assert _finding(asked) == asked  # 9e953218: "Added …" alone would not say why it matters


def test_the_main_branch_is_told_when_the_latest_session_on_a_trunk_worked_on_master():
    from memgit.consolidate.heuristic.briefing import trunk_line
    from memgit.consolidate.heuristic.memory import NoteInfo

    def notes(*branches: str):
        return [(f"n{i}", NoteInfo(f"n{i}", f"s{i}", f"2026-04-{10 + i}", "t", (), b)) for i, b in enumerate(branches)]

    assert trunk_line(notes("master", "feat/x")) == "- Main branch: `master` (not `main`)"  # ef958aa1
    assert trunk_line(notes("master", "main")) is None  # renamed: the later holds
    assert trunk_line(notes("main", "master")) == "- Main branch: `master` (not `main`)"
    assert trunk_line(notes("hotfix", "dev", "")) is None  # cc-backend (scale): no trunk seen, nothing to say
