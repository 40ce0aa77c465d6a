"""Synthetic Claude Code transcripts and memory repositories at scale, for the benchmarks.

    python bench/generate.py transcripts DIR -n 1000        # DIR laid out like ~/.claude/projects
    python bench/generate.py big FILE --mb 50               # one ~50 MB session
    python bench/generate.py repo DIR --notes 10000         # a memory repo, 10k notes / 10k commits

Transcripts are built with memgit.sources.claude_code.synthetic.SessionWriter (the real record format) and written
record by record, so a 50 MB session never sits in memory as one string. Content is drawn from
pools of realistic lines (pytest and npm logs, source code, grep hits, git output) with a seeded
random generator: the same seed writes the same bytes.

The note repository is built directly with dulwich objects written into one pack (seconds, where
10k commits through MemoryRepo.commit, each fsyncing its loose objects, would take minutes):

- `main` holds the init commit, as `memgit init` makes it;
- `projects/<slug>` forks from it with PROJECT.md (through MemoryRepo.commit, as sync does), then
  one commit adds every note (rendered with memgit.core.notes.render_note) under sessions/YYYY/MM/,
  then a chain of `commits` ledger commits (extract/skip messages with the real trailers, made
  by memgit.core.ledger.format_message) that all point at that final tree. The history therefore reads
  like 10k syncs to the ledger, while the object store holds one tree per directory, as a
  `git gc`'d repository would after the same syncs (less the intermediate trees).
"""

from __future__ import annotations

import argparse
import os
import random
import stat
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

SRC = Path(os.environ.get("MEMGIT_BENCH_SRC") or Path(__file__).resolve().parent.parent).resolve()
if str(SRC) not in sys.path:
    sys.path.insert(0, str(SRC))

from memgit.sources.claude_code.synthetic import SessionWriter, encode_project_dir, session_id  # noqa: E402

HOUR = 3600
WORDS = (
    "sync index cache worker queue token parser config schema client server request response "
    "handler model view route table column migration fixture session user account order invoice "
    "payment search result page batch stream buffer retry timeout event metric log trace span "
    "build deploy release branch commit merge review test suite case assert mock patch"
).split()
PREFERENCES = (
    "Always run the tests with `uv run pytest`, plain pytest misses the venv.",
    "Don't put emoji in commit messages; plain imperative subjects.",
    "Use pnpm instead of npm in this repo from now on.",
    "We use click for the CLI, never argparse.",
    "Please keep functions under 40 lines.",
    "I prefer f-strings over str.format.",
    "Never push to main directly, open a PR.",
    "Make sure every new endpoint has a test.",
    "We always use ruff for formatting, not black.",
    "Don't add new dependencies without asking me first.",
)
TASKS = (
    "The {a} {b} tests are failing, can you fix them?",
    "Add a --dry-run flag to the {a} command.",
    "Refactor the {a} {b} so it streams instead of loading everything.",
    "Why is the {a} {b} so slow? Profile it and fix the hot spot.",
    "Write tests for the {a} {b} edge cases.",
    "The {a} endpoint returns 500 when the {b} is empty; fix it.",
    "Rename {a}_{b} to {b}_{a} everywhere.",
)
TEST_COMMANDS = ("uv run pytest -x tests/", "npm test", "pnpm run test", "cargo test", "go test ./...",
                 "make test", "python -m pytest -q")
CLOSINGS = ("Great, thanks, that works.", "Perfect, thanks!", "Looks good, ship it.", "ok")


@dataclass
class _Pools:
    """Lines of tool output to draw from; built once per seed (a few thousand lines)."""

    code: list[str]
    grep: list[str]
    log: list[str]
    git: list[str]


def _pools(rng: random.Random) -> _Pools:
    def ident() -> str:
        return "_".join(rng.sample(WORDS, rng.randint(1, 3)))

    code = []
    for _ in range(1500):
        indent = "    " * rng.randint(0, 3)
        form = rng.randrange(6)
        if form == 0:
            code.append(f"{indent}def {ident()}(self, {ident()}: str, {ident()}: int = {rng.randint(0, 99)}) -> None:")
        elif form == 1:
            code.append(f"{indent}{ident()} = {ident()}.{ident()}({ident()}, timeout={rng.randint(1, 60)})")
        elif form == 2:
            code.append(f"{indent}if {ident()} is None or len({ident()}) > {rng.randint(1, 500)}:")
        elif form == 3:
            error = ident().title().replace("_", "")
            code.append(f'{indent}raise {error}Error(f"cannot {rng.choice(WORDS)} {{{ident()}}}")')
        elif form == 4:
            pair = f"[{rng.randint(0, 9)}, {rng.randint(0, 9)}]"
            code.append(f"{indent}return {{'{ident()}': {ident()}, '{ident()}': {pair}}}")
        else:
            code.append(f"{indent}# {' '.join(rng.choices(WORDS, k=rng.randint(4, 12)))}")
    grep = [f"src/{ident()}/{ident()}.py:{rng.randint(1, 900)}:{rng.choice(code).strip()}" for _ in range(800)]
    log = []
    for _ in range(1200):
        form = rng.randrange(5)
        if form == 0:
            pad = " " * rng.randint(1, 20)
            log.append(f"tests/test_{ident()}.py::test_{ident()} PASSED{pad}[{rng.randint(1, 100):3d}%]")
        elif form == 1:
            log.append(f"{datetime(2026, 11, 1) + timedelta(seconds=rng.randint(0, 10**6)):%Y-%m-%d %H:%M:%S} "
                       f"INFO {ident()}: {' '.join(rng.choices(WORDS, k=rng.randint(3, 9)))} "
                       f"id={rng.getrandbits(64):016x} ms={rng.randint(1, 3000)}")
        elif form == 2:
            log.append(f"npm WARN deprecated {ident()}@{rng.randint(0, 9)}.{rng.randint(0, 20)}.{rng.randint(0, 9)}: "
                       f"this package is no longer supported")
        elif form == 3:
            log.append(f"  File \"/home/u/dev/app/src/{ident()}.py\", line {rng.randint(1, 900)}, in {ident()}")
        else:
            log.append(f"{rng.getrandbits(160):040x}  refs/heads/{ident()}  {rng.choice(code).strip()[:60]}")
    git = [f"{rng.getrandbits(28):07x} {' '.join(rng.choices(WORDS, k=rng.randint(3, 8))).capitalize()}"
           for _ in range(400)]
    return _Pools(code, grep, log, git)


def _block(rng: random.Random, pool: list[str], size: int) -> str:
    """About `size` characters of consecutive pool lines (wrapping around)."""
    i, out, n = rng.randrange(len(pool)), [], 0
    while n < size:
        line = pool[i % len(pool)]
        out.append(line)
        n += len(line) + 1
        i += 1
    return "\n".join(out)


def _output_size(rng: random.Random, mean: int) -> int:
    """A tool output size: mostly small, now and then a very large one (a log, a whole file)."""
    return int(min(rng.lognormvariate(0, 1.0) * mean, mean * 40)) + 40


def _cycle(w: SessionWriter, rng: random.Random, p: _Pools, cwd: str, mean: int) -> None:
    """One unit of agent work: look around, edit, fail a test run, fix, pass."""
    name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}"
    path = f"{cwd}/src/{rng.choice(WORDS)}/{name}.py"
    test = TEST_COMMANDS[sum(map(ord, cwd)) % len(TEST_COMMANDS)]  # one test command per project
    w.assistant(f"Let me look at how {name.replace('_', ' ')} works first.")
    w.tool("Read", {"file_path": path}, _block(rng, p.code, _output_size(rng, mean)))
    w.tool("Grep", {"pattern": name, "path": cwd}, _block(rng, p.grep, _output_size(rng, mean // 3)))
    w.edit(path, rng.choice(p.code).strip(), rng.choice(p.code).strip())
    if rng.random() < 0.6:
        failure = (f"{_block(rng, p.log, _output_size(rng, mean // 2))}\n"
                   f"E   AssertionError: expected {rng.randint(1, 99)} {name} got {rng.randint(100, 200)}\n"
                   f"FAILED tests/test_{name}.py::test_{rng.choice(WORDS)} - AssertionError\n1 failed")
        w.bash(test, failure, error=True)
        w.assistant(f"The {name} check compares against the old value; updating the fixture.")
        w.edit(f"{cwd}/tests/test_{name}.py", "assert result == 1", "assert result == 2")
    w.bash(test, f"{_block(rng, p.log, _output_size(rng, mean // 2))}\n{rng.randint(5, 300)} passed in "
                 f"{rng.uniform(0.5, 30):.2f}s")
    if rng.random() < 0.3:
        w.bash("git log --oneline -20", _block(rng, p.git, 900))


def _flush(w: SessionWriter, f) -> int:
    """Write the records built so far as JSONL and drop them; return the bytes written."""
    data = w.lines().encode("utf-8")
    f.write(data)
    w.records.clear()
    return len(data)


def _write_session(f, w: SessionWriter, rng: random.Random, p: _Pools, size: int, mean: int) -> int:
    cwd = w.cwd
    task = rng.choice(TASKS).format(a=rng.choice(WORDS), b=rng.choice(WORDS))
    w.user(f"{task} {rng.choice(PREFERENCES)}" if rng.random() < 0.7 else task)
    w.assistant("I'll start by running the test suite to see what fails.")
    written = _flush(w, f)
    while written < size:
        _cycle(w, rng, p, cwd, mean)
        if rng.random() < 0.15:
            w.user(rng.choice(PREFERENCES))
        written += _flush(w, f)
    w.user(rng.choice(CLOSINGS))
    w.assistant(f"Done: the {rng.choice(WORDS)} {rng.choice(WORDS)} tests pass now.")
    return written + _flush(w, f)


def write_transcripts(projects_dir: Path, n: int, *, projects: int = 10, size_kb: float = 40,
                      seed: int = 1, idle_hours: float = 2.0, cwd: str | None = None) -> list[Path]:
    """Write `n` idle sessions spread over `projects` project folders; return their paths.

    Sizes vary around `size_kb` (log-normal, a few sessions 10x larger); mtimes are set
    `idle_hours` and more in the past, so every session is eligible for a plain `memgit sync`.
    The sessions run in /home/u/dev/proj0..proj<projects-1>, or all in `cwd` when given.
    """
    rng = random.Random(seed)
    pools = _pools(rng)
    projects_dir = Path(projects_dir)
    now = time.time()
    base = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
    paths = []
    for i in range(n):
        sid = session_id(f"bench-{seed}-{i}")
        start = base - timedelta(days=rng.uniform(0, 25), minutes=i)
        w = SessionWriter(sid, cwd or f"/home/u/dev/proj{i % projects}", start=start, git_branch=rng.choice(("main", "feat/sync", "fix/tests")))
        folder = projects_dir / encode_project_dir(w.cwd)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{sid}.jsonl"
        size = int(min(rng.lognormvariate(0, 0.8), 10) * size_kb * 1024)
        with open(path, "wb") as f:
            _write_session(f, w, rng, pools, size, mean=max(300, size // 12))
        then = now - idle_hours * HOUR - i
        os.utime(path, (then, then))
        paths.append(path)
    return paths


def write_big_transcript(path: Path, mb: float = 50, *, seed: int = 7) -> int:
    """Write one long session of about `mb` MB; return its size in bytes.

    Thousands of turns with tool outputs of a few KB to a few hundred KB, and every ~10 MB one
    huge output (a 3 MB log dumped by `cat`), the lines that stress a reader most.
    """
    rng = random.Random(seed)
    pools = _pools(rng)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    w = SessionWriter(session_id(f"bench-big-{seed}"), "/home/u/dev/bigproj")
    target, huge_every = int(mb * 1e6), 10_000_000
    with open(path, "wb") as f:
        size = _write_session(f, w, rng, pools, min(target, huge_every), mean=6000)
        while size < target:
            w.bash("cat logs/worker.log", _block(rng, pools.log, 3_000_000))
            size += _flush(w, f)
            size += _write_session(f, w, rng, pools, min(target - size, huge_every), mean=6000)
    then = time.time() - 2 * HOUR
    os.utime(path, (then, then))
    return size


# ---- the memory repository ------------------------------------------------------------------


_SYLLABLES = "ba be bi bo bu ca ce co cu da de di do fa fe fi fo ga ge go ka ke ki ko la le li lo lu ma me mi " \
             "mo na ne ni no pa pe pi po ra re ri ro sa se si so ta te ti to va ve vi vo za ze zo".split()
_VERBS = ("caches", "retries", "validates", "serialises", "batches", "locks", "streams", "indexes", "reads", "writes")
_ERRORS = ("KeyError", "TimeoutError", "ValueError", "ConnectionRefusedError", "PermissionError", "ImportError")


def _nouns() -> list[str]:
    """The nouns a project's learnings use: the common WORDS and a few hundred of its own."""
    global _NOUNS
    if _NOUNS is None:
        rng = random.Random(11)
        _NOUNS = list(WORDS) + sorted({_name(rng) for _ in range(600)})
    return _NOUNS


_NOUNS: list[str] | None = None


def _name(rng: random.Random) -> str:
    """A made-up identifier, like the many a real codebase has (`kalivo`, `bedoru`)."""
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(2, 4)))


def _note(rng: random.Random, i: int, project: str, day: datetime):
    """A session note with learnings worded like the extractor's: most name things of their own
    session (files, functions, errors), some recur across sessions (the test command, the team's
    rules, a known gotcha), as in a real project's memory."""
    from memgit.core.model import Learning, Note

    from memgit.core.notes import note_slug

    a, b = rng.choice(WORDS), rng.choice(WORDS)
    title = rng.choice(TASKS).format(a=a, b=b).rstrip("?.")[:72]
    test = rng.choice(TEST_COMMANDS)
    module, func, other = _name(rng), _name(rng), _name(rng)
    nouns = _nouns()
    path = f"src/{a}/{module}.py"
    learnings = [Learning("command", f"Tests run with `{test}`.")]
    if rng.random() < 0.6:
        error = rng.choice(_ERRORS)
        learnings.append(Learning(
            "gotcha", f"Problem: `{test}` failed with \"{error}: {other} {rng.randint(1, 999)}\". Fix: `{func}()` in "
                      f"`{path}` now {rng.choice(_VERBS)} the {rng.choice(nouns)} before the {a} {rng.choice(nouns)} "
                      f"runs."))
    if rng.random() < 0.05:
        learnings.append(Learning("gotcha", "Problem: the integration tests hang when Redis is not running. Fix: "
                                            "start it with `docker compose up -d redis` first."))
    learnings += [Learning("preference", text) for text in rng.sample(PREFERENCES, rng.randint(0, 2))]
    for _ in range(rng.randint(1, 3)):
        learnings.append(Learning("fact", f"The `{_name(rng)}` {rng.choice(nouns)} in `{path}` "
                                          f"{rng.choice(_VERBS)} each {rng.choice(nouns)} of the `{func}` {b}."))
    if rng.random() < 0.3:
        learnings.append(Learning("decision", f"`{module}` {rng.choice(_VERBS)} the {a} with `{other}` instead of "
                                              f"`{_name(rng)}`, because the {rng.choice(nouns)} {rng.choice(nouns)} "
                                              f"must stay ordered."))
    stamp = day.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    return Note(
        session=f"claude-code/{session_id(f'note-{i}')}", agent="claude-code", project=project,
        title=title, summary=f"The user asked: {title}. In the end: `{func}()` in `{path}` was fixed and `{test}` "
                             f"passes. It ended with `{test}` passing (success).",
        learnings=learnings, cwd=f"/home/u/dev/{project}", git_branch="main", started=stamp,
        ended=(day + timedelta(minutes=rng.randint(2, 90))).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
        outcome=rng.choice(("success", "success", "partial", "uncertain")),
        keywords=sorted(set(rng.sample(WORDS, 3))), slug=note_slug(title),
    )


def _tree(store: list, entries: dict) -> bytes:
    """Build nested Tree objects from {name: sha | dict}; append them to store; return the root id."""
    from dulwich.objects import Tree

    tree = Tree()
    for name, value in entries.items():
        if isinstance(value, dict):
            tree.add(name.encode(), stat.S_IFDIR, _tree(store, value))
        else:
            tree.add(name.encode(), 0o100644, value)
    store.append(tree)
    return tree.id


def make_note_repo(path: Path, notes: int = 10_000, commits: int = 10_000, *, slug: str = "bench",
                   seed: int = 3) -> str:
    """Create a memory repo whose `projects/<slug>` holds `notes` session notes and ~`commits` commits.

    Returns the branch name. See the module docstring for how it is built.
    """
    from dulwich.objects import Blob, Commit

    from memgit.core import notes as notes_mod
    from memgit.core import scopes
    from memgit.core.ledger import format_message
    from memgit.store.repo import DEFAULT_AUTHOR, MemoryRepo
    from memgit.resources import repo_template_files

    rng = random.Random(seed)
    branch = f"projects/{slug}"
    with MemoryRepo.init(Path(path), repo_template_files(), author=DEFAULT_AUTHOR) as repo:
        project = scopes.Project(branch=branch, name=slug, remotes=(f"github.com/acme/{slug}",),
                                 paths=(f"/home/u/dev/{slug}",))
        repo.commit(branch, {"PROJECT.md": scopes.render_project_md(project).encode()},
                    format_message("init", slug, f"project {slug}", body=f"Identity: github.com/acme/{slug}"),
                    create_from=repo.root())
        raw = repo._repo  # bench code only: the dulwich Repo under MemoryRepo
        head = raw.refs[b"refs/heads/" + branch.encode()]

    objects: list = []
    first_day = datetime(2025, 1, 1, 9, 0, tzinfo=timezone.utc)
    span_days = 690  # ~23 months of sessions: ~430 notes per month directory
    root = {e.path.decode(): e.sha for e in raw.object_store[raw.object_store[head].tree].iteritems()}
    sessions: dict = {}
    made = []  # (note, path) in date order
    days = sorted(first_day + timedelta(days=rng.uniform(0, span_days)) for _ in range(notes))
    for i, day in enumerate(days):
        note = _note(rng, i, slug, day)
        rel = notes_mod.note_path(note, day.strftime("%Y-%m-%d"))
        blob = Blob.from_string(notes_mod.render_note(note).encode())
        objects.append(blob)
        _, year, month, name = rel.split("/")
        sessions.setdefault(year, {}).setdefault(month, {})[name] = blob.id
        made.append((note, rel))
    root["sessions"] = sessions
    tree_id = _tree(objects, root)

    author = DEFAULT_AUTHOR.encode()
    t0 = int(days[0].timestamp()) if days else int(time.time())

    def commit(parent: bytes, message: str, when: int) -> bytes:
        c = Commit()
        c.tree, c.parents = tree_id, [parent]
        c.author = c.committer = author
        c.author_time = c.commit_time = when
        c.author_timezone = c.commit_timezone = 0
        c.message = message.encode()
        objects.append(c)
        return c.id

    tip = commit(head, f"edit({slug}): {notes} file(s) changed by hand\n\nadded: sessions/ (bench bulk import)\n", t0)
    for i in range(commits):
        sid = session_id(f"note-{i}") if i < len(made) else session_id(f"skip-{i}")
        trailers = [("Memgit-Session", f"claude-code/{sid}"), ("Memgit-Source", f"-home-u-dev-{slug}/{sid}.jsonl"),
                    ("Memgit-Range", f"0-{rng.randint(2_000, 900_000)}"),
                    ("Memgit-Source-Sha256", f"{rng.getrandbits(256):064x}"),
                    ("Memgit-Extractor", "heuristic/1")]
        if i < len(made):
            note, rel = made[i]
            message = format_message("extract", slug, note.title, body=note.summary, trailers=[
                *trailers, ("Memgit-Tokens", 0), ("Memgit-Outcome", note.outcome), ("Memgit-Note", rel)])
        else:
            message = format_message("skip", slug, f"{sid[:8]} nothing worth keeping", trailers=[
                *trailers, ("Memgit-Outcome", "skipped"), ("Memgit-Reason", "nothing worth keeping")])
        tip = commit(tip, message, t0 + 60 * (i + 1))
    raw.object_store.add_objects([(o, None) for o in objects])
    if not raw.refs.set_if_equals(b"refs/heads/" + branch.encode(), head, tip):
        raise RuntimeError(f"{branch} moved while the bench repo was built")
    raw.close()
    return branch


def check_out(path: Path, branch: str) -> None:
    """Check `branch` out in the repo at path (worktree and index), as `git switch` would."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run(["git", "-C", str(path), "-c", "core.fsync=none", "switch", "-q", branch],
                   check=True, env={**env, "GIT_CONFIG_NOSYSTEM": "1"})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="what", required=True)
    t = sub.add_parser("transcripts", help="n idle sessions laid out like ~/.claude/projects")
    t.add_argument("dir", type=Path)
    t.add_argument("-n", type=int, default=1000)
    t.add_argument("--projects", type=int, default=10)
    t.add_argument("--size-kb", type=float, default=40)
    t.add_argument("--seed", type=int, default=1)
    b = sub.add_parser("big", help="one long session of about --mb MB")
    b.add_argument("file", type=Path)
    b.add_argument("--mb", type=float, default=50)
    r = sub.add_parser("repo", help="a memory repo with --notes notes and --commits commits")
    r.add_argument("dir", type=Path)
    r.add_argument("--notes", type=int, default=10_000)
    r.add_argument("--commits", type=int, default=10_000)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    if args.what == "transcripts":
        paths = write_transcripts(args.dir, args.n, projects=args.projects, size_kb=args.size_kb, seed=args.seed)
        total = sum(p.stat().st_size for p in paths)
        print(f"{len(paths)} transcripts, {total / 1e6:.1f} MB in {args.dir}", end="")
    elif args.what == "big":
        print(f"{write_big_transcript(args.file, args.mb) / 1e6:.1f} MB in {args.file}", end="")
    else:
        branch = make_note_repo(args.dir, args.notes, args.commits)
        print(f"{args.notes} notes on {branch} in {args.dir}", end="")
    print(f" ({time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
