"""`memgit hook user-prompt-submit` on a 10,000-note repository (DESIGN §8: p50 <= 2x `python -c pass`),
and with --relevance, how its bar sorts prompts over a sync of the labelled fixtures.

Speed: what Claude Code runs, the command `memgit install` writes (this interpreter running
memgit's hook launcher, with -S) and the console script older installs run, with the hook's JSON on stdin,
as a fresh subprocess in a subfolder of the bench project, HOME and XDG_* in a temporary home. The repository
is bench/generate.py's (make_note_repo: ~5% of the notes hold the gotcha "the integration tests
hang when Redis is not running"); its search index is built first, and the session-start hook run
once (its context cache is what the prompt hook compares hits with). Rounds interleave `python -c
pass`, a prompt on that gotcha (answered: the JSON is checked) and a prompt memory knows nothing
of (silence), so the medians see the same machine noise.

Relevance (--relevance, needs ../shared): the fixtures synced as ../shared/eval/run.sh does, then
each labelled fact's statement as a prompt typed in its session's project (does a note of its own
session come back?), each fact named by three of its words in a sentence (the same), and prompts
about other things (does anything come back?). ../shared/eval/hooks_score.py measures the hook on
prompts written as a person would type them (bench/bench_scale.py runs it on the scale corpus).

    python bench/bench_prompt_hook.py [--quick] [--notes 10000] [--commits 10000] [--runs 30] [--relevance]
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import PYTHON, ROOT, Rows, arg_parser, bench_project, lay_out_eval, median, p90, user_env
from bench_hook import CONSOLE_SCRIPT, installed, summarise, timed
from generate import make_note_repo

RATIO_TARGET = 2.0
RELEVANT = "The integration tests hang again, is Redis running?"
UNRELATED = [
    "Write a function to calculate the factorial of a number", "How do I center a div horizontally and vertically in CSS?",
    "Explain the difference between a list and a tuple in Python", "yes", "go on", "thanks, that looks good",
    "Can you add type hints to this module?", "Rename the variable foo to something more descriptive",
    "What does this regular expression match?", "Translate this paragraph into French",
    "Make the button blue and round its corners", "Add pagination to the products page",
    "Why is my React component rendering twice?", "Sort this array of numbers in descending order",
    "Write a haiku about autumn leaves", "Convert this JSON to YAML", "How many bytes are in a kilobyte?",
    "Refactor this loop into a list comprehension", "What's the time complexity of binary search?",
    "Set up a GitHub Actions workflow that builds the Rust crate on every push",
    "Add a dark mode toggle to the settings screen", "Write unit tests for the shopping cart total calculation",
    "The login form should show an error when the password is empty",
    "Implement a linked list in C with insert and delete", "Draft an email to the team about the offsite next week",
    "Generate a SQL query that finds the top five customers by revenue",
    "Create a Dockerfile for a Flask app with gunicorn", "Why does my Kubernetes pod keep restarting with CrashLoopBackOff?",
    "Optimise the image loading on the landing page", "Add a retry with exponential backoff to the HTTP client",
    "Parse the CSV file and compute the average of the third column",
    "Update the README with installation instructions", "Explain how TCP's three-way handshake works",
    "Write a bash script that backs up my photos folder to an external drive", "Fix the typo in the footer",
    "Add a loading spinner while the data is fetched", "Scaffold a new Django project with a blog app",
    "How do I undo my last git commit but keep the changes?", "Add an index on the email column of the users table",
    "Let's implement OAuth login with Google",
]
EVAL = ROOT.parent / "shared" / "eval"
FIXTURES = ROOT.parent / "shared" / "fixtures" / "transcripts"


def answer_text(stdout: bytes) -> str:
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"] if stdout else ""


def speed(args, rows: Rows) -> None:
    runs = 10 if args.quick else max(args.runs, 20)
    notes, commits = (2_000, 2_000) if args.quick and args.notes == 10_000 else (args.notes, args.commits)
    home = Path(tempfile.mkdtemp(prefix="memgit-bench-prompt-"))
    try:
        env = user_env(home)
        memory = home / ".local" / "share" / "memgit"
        t0 = time.perf_counter()
        make_note_repo(memory, notes=notes, commits=commits, slug="bench")
        from memgit.store import search_index
        from memgit.store.repo import MemoryRepo

        t1 = time.perf_counter()
        with MemoryRepo.open(memory) as repo:
            counts = search_index.update(repo, memory / ".git" / "memgit")
        print(f"generated a memory repo of {notes} notes and {commits} commits in {t1 - t0:.1f} s; "
              f"indexed {counts['added']:,} search units in {time.perf_counter() - t1:.1f} s")
        project = bench_project(home, env)
        cwd = project / "src" / "app"
        cwd.mkdir(parents=True)
        script = home / "bin" / "memgit"
        script.parent.mkdir()
        script.write_text(CONSOLE_SCRIPT)
        base = {"session_id": "0b1d2c3e-0000-4000-8000-000000000001", "cwd": str(cwd),
                "transcript_path": str(home / ".claude" / "projects" / "x" / "0b1d2c3e.jsonl")}
        start = json.dumps({**base, "hook_event_name": "SessionStart", "source": "startup"}).encode()
        summarise(memory)  # consolidated summaries, as a consolidated memory has them
        with MemoryRepo.open(memory) as repo:
            search_index.update(repo, memory / ".git" / "memgit")
        timed([PYTHON, str(script), "hook", "session-start"], stdin=start, env=env, cwd=cwd)  # the context cache
        hook_script = [PYTHON, str(script), "hook", "user-prompt-submit"]
        # As installed: the launcher; a tree from before it (MEMGIT_BENCH_SRC) installed the console script.
        hook = installed("user-prompt-submit", env) or hook_script
        print("as installed: " + " ".join(hook))

        def stdin(prompt: str) -> bytes:
            return json.dumps({**base, "hook_event_name": "UserPromptSubmit", "prompt": prompt}).encode()

        relevant, unrelated = stdin(RELEVANT), stdin(UNRELATED[0])
        text = answer_text(timed(hook, stdin=relevant, env=env, cwd=cwd)[1])  # compiles the bytecode once
        if "Redis" not in text or len(text) > 1_500:
            raise SystemExit(f"unexpected answer ({len(text)} chars):\n{text}")
        timed([PYTHON, "-c", "pass"], stdin=b"", env=env, cwd=cwd)
        passes, hits, quiet, script_hits, script_quiet = [], [], [], [], []
        for _ in range(runs):
            passes.append(timed([PYTHON, "-c", "pass"], stdin=b"", env=env, cwd=cwd)[0])
            elapsed, out = timed(hook, stdin=relevant, env=env, cwd=cwd)
            if answer_text(out) != text:
                raise SystemExit("the hook answered differently from one run to the next")
            hits.append(elapsed)
            elapsed, out = timed(hook, stdin=unrelated, env=env, cwd=cwd)
            if out:
                raise SystemExit(f"an unrelated prompt brought back:\n{answer_text(out)}")
            quiet.append(elapsed)
            script_hits.append(timed(hook_script, stdin=relevant, env=env, cwd=cwd)[0])
            script_quiet.append(timed(hook_script, stdin=unrelated, env=env, cwd=cwd)[0])
        log = memory / ".git" / "memgit" / "hook.log"
        if log.exists():
            raise SystemExit(f"the hook logged a problem:\n{log.read_text()[-2000:]}")
        pass_ms = median(passes)
        rows.baseline_ms = pass_ms
        ratio, ratio_quiet = median(hits) / pass_ms, median(quiet) / pass_ms
        print(f"{runs} rounds; the answer: {len(text):,} characters, {text.count(chr(10) + '- ')} hits")
        print(f"  python -c pass                          median {pass_ms:6.1f} ms  p90 {p90(passes):6.1f} ms")
        print(f"  user-prompt-submit, a relevant prompt   median {median(hits):6.1f} ms  p90 {p90(hits):6.1f} ms  "
              f"({ratio:.2f}x pass)")
        print(f"  user-prompt-submit, an unrelated prompt median {median(quiet):6.1f} ms  p90 {p90(quiet):6.1f} ms  "
              f"({ratio_quiet:.2f}x pass)")
        print(f"  the same through the console script: relevant {median(script_hits) / pass_ms:.2f}x, "
              f"unrelated {median(script_quiet) / pass_ms:.2f}x")
        rows.add(f"hook user-prompt-submit, {notes} notes, a relevant prompt (p50, x python -c pass)", ratio, "x",
                 RATIO_TARGET, note=f"{median(hits):.1f} ms vs {pass_ms:.1f} ms; p90 {p90(hits):.1f} ms; "
                                    f"unrelated prompt {median(quiet):.1f} ms ({ratio_quiet:.2f}x)")
    finally:
        shutil.rmtree(home, ignore_errors=True)


def relevance(rows: Rows) -> None:
    """The bar over the labelled fixtures: facts as prompts, facts named by three words, other prompts."""
    if not (EVAL / "labels.json").exists() or not FIXTURES.is_dir():
        print(f"relevance: skipped ({EVAL} or {FIXTURES} is missing)")
        return
    from memgit.core import recall as rules
    from memgit.hook.prompt import recall

    work = Path(tempfile.mkdtemp(prefix="memgit-bench-relevance-"))
    try:
        home, memory = work / "home", work / "mem"
        lay_out_eval(home, EVAL, FIXTURES)
        env = {**user_env(home), "MEMGIT_HOME": str(memory)}
        done = subprocess.run([PYTHON, "-m", "memgit.cli.commands", "sync", "--all"], env=env, capture_output=True)
        if done.returncode != 0:
            raise SystemExit(f"sync failed:\n{done.stderr.decode()[-2000:]}")
        now = time.time()

        def told(prompt: str, cwd: str) -> str:
            return recall(str(memory), cwd, prompt, now=now).text

        labels = json.loads((EVAL / "labels.json").read_text())
        cwds = _cwds(labels)
        facts = [(s["session_id"], f["statement"], cwds.get(s["session_id"], str(work)))
                 for s in labels["sessions"] for f in s["facts"]]
        rng = random.Random(7)
        named = []
        for sid, statement, cwd in facts:
            words = rules.terms(statement)
            if len(words) >= 3:
                a, b, c = rng.sample(words, 3)
                named.append((sid, f"can you look at the {a} {b} thing, {c} again", cwd))
        own = sum(sid[:8] in told(p, cwd) for sid, p, cwd in facts) / len(facts)
        own_named = sum(sid[:8] in told(p, cwd) for sid, p, cwd in named) / len(named)
        places = sorted(set(cwds.values()))
        noisy = [p for i, p in enumerate(UNRELATED) if told(p, places[i % len(places)])]
        generic = json.loads((Path(__file__).parent / "generic_prompts.json").read_text())
        loud = {part: [p for i, p in enumerate(generic[part]) if told(p, places[i % len(places)])]
                for part in ("tuning", "held_out")}
        print("relevance over the labelled fixtures (each prompt typed in its session's project):")
        print(f"  a fact's statement as the prompt: a note of its session comes back for {own:.0%} of {len(facts)}")
        print(f"  a fact named by three of its words: {own_named:.0%} of {len(named)}")
        print(f"  prompts about other things: {len(noisy)} of {len(UNRELATED)} bring anything back"
              + (f" ({'; '.join(noisy)})" if noisy else ""))
        for part, found in loud.items():
            print(f"  generic_prompts.json {part}: {len(found)} of {len(generic[part])} bring anything back"
                  + (f" ({'; '.join(found)})" if found else ""))
        rows.add("prompt hook: unrelated prompts that bring anything back (fixtures)", 100 * len(noisy) / len(UNRELATED),
                 "%", None, note=f"facts as prompts: {own:.0%} find their session; named by 3 words: {own_named:.0%}")
        rows.add("prompt hook: generic_prompts.json answered (fixtures)", sum(map(len, loud.values())), "", 0,
                 note="; ".join(f"{part} {len(found)}/{len(generic[part])}" for part, found in loud.items()))
        _generic_at_scale(generic, rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _generic_at_scale(generic: dict, rows: Rows) -> None:
    """The generic prompts typed in cc-backend's checkout after a sync of ../shared/fixtures/scale."""
    from bench_scale import MAIN_CHECKOUT, SCALE, lay_out_scale

    from memgit.hook.prompt import recall

    if not (SCALE / "cc-backend").is_dir():
        print(f"  the scale corpus: skipped ({SCALE} is missing)")
        return
    work = Path(tempfile.mkdtemp(prefix="memgit-bench-relevance-scale-"))
    try:
        home, memory = work / "home", work / "mem"
        lay_out_scale(home)
        env = {**user_env(home), "MEMGIT_HOME": str(memory)}
        done = subprocess.run([PYTHON, "-m", "memgit.cli.commands", "sync", "--all"], env=env, capture_output=True)
        if done.returncode != 0:
            raise SystemExit(f"sync failed:\n{done.stderr.decode()[-2000:]}")
        now = time.time()
        loud = {part: [p for p in generic[part] if recall(str(memory), MAIN_CHECKOUT, p, now=now).text]
                for part in ("tuning", "held_out")}
        for part, found in loud.items():
            print(f"  the scale corpus (cc-backend, 82 sessions), generic_prompts.json {part}: {len(found)} of "
                  f"{len(generic[part])} bring anything back" + (f" ({'; '.join(found)})" if found else ""))
        rows.add("prompt hook: generic_prompts.json answered (scale corpus)", sum(map(len, loud.values())), "", 0,
                 note="; ".join(f"{part} {len(found)}/{len(generic[part])}" for part, found in loud.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _cwds(labels: dict) -> dict[str, str]:
    """Each labelled session's cwd, as its transcript records it (where its facts' prompts are typed)."""
    sys.path.insert(0, str(EVAL))
    from hooks_score import transcript_cwd

    found = {}
    for s in labels["sessions"]:
        cwd = transcript_cwd(str(FIXTURES / s["corpus_path"]))
        if cwd:
            found[s["session_id"]] = cwd
    return found


def main() -> None:
    parser = arg_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--notes", type=int, default=10_000)
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--relevance", action="store_true", help="also the bar over the labelled fixtures")
    args = parser.parse_args()
    rows = Rows("prompt_hook")
    speed(args, rows)
    if args.relevance:
        relevance(rows)
    rows.write(args.rows)


if __name__ == "__main__":
    main()
