"""The promises every command keeps alike (issue 19, items 7 to 9): one selector rule, tables that
never cut an identifier, one exit code per condition.

One corpus is synced once for the module: three repositories called `cli` (projects cli, cli-2 and
cli-3, all named "cli"), client-tools (renamed "completion-stanza" in its PROJECT.md by hand) and two
projects whose folders and branches share their first 44 characters. Each transcript then grows by
a line, so every project has a session waiting (read with `--all`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from memgit.sources.claude_code.synthetic import SessionWriter, encode_project_dir, session_id
from tests import faults, servers
from tests.cli.test_doctor import config_file
from tests.conftest import age, git, point_home
from tests.fake_llm import Reply

LONG = "/home/u/experiments/completion-stanza-manager-for-shells"
CWDS = {"projects/cli": "/home/u/a/cli", "projects/cli-2": "/home/u/b/cli", "projects/cli-3": "/home/u/c/cli",
        "projects/client-tools": "/home/u/d/client-tools",
        "projects/completion-stanza-manager-for-shells-v1": f"{LONG}-v1",
        "projects/completion-stanza-manager-for-shells-v2": f"{LONG}-v2"}
FOLDERS = {encode_project_dir(cwd): branch for branch, cwd in CWDS.items()}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("contract-home")
    projects = home / ".claude" / "projects"
    files = []
    for i, cwd in enumerate(CWDS.values()):
        w = (SessionWriter(session_id(f"contract-{i}"), cwd, start=datetime(2026, 11, 18, 9, tzinfo=timezone.utc)
                           + timedelta(hours=i))
             .user("Run the tests. Always use `uv run pytest`, plain pytest misses the venv.")
             .assistant("Running them.").bash("uv run pytest -x", "3 passed").user("Great, thanks."))
        path = w.write(projects)
        age(path)
        files.append(path)
    env = faults.memgit_env(home)
    first = faults.memgit(home, "sync", "--json", env=env)
    assert first.returncode == 0 and json.loads(first.stdout)["extracted"] == len(CWDS), first.stderr
    # a person names client-tools "completion-stanza": a name that is also a prefix of two slugs
    rename = "sed -i 's/^name: .*/name: completion-stanza/'"
    named = faults.memgit(home, "edit", "PROJECT.md", "--project", "client-tools", env={**env, "EDITOR": rename})
    assert named.returncode == 0, named.stderr
    assert faults.memgit(home, "consolidate", env=env).returncode == 0  # nothing left pending
    for path in files:  # a session waiting in every project (grown, not idle yet)
        with path.open("a") as f:
            f.write(path.read_text().splitlines()[-1] + "\n")
    return home


@pytest.fixture
def at_corpus(corpus, monkeypatch):
    point_home(monkeypatch, corpus)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(corpus / ".gitconfig"))
    return corpus


# ---- item 7: one selector rule, every command ------------------------------------------------------

def _merge_args(memgit_cli_module, sel: str, other: str) -> list[str]:
    """`projects merge SEL OTHER`, confirmed when the command asks (it refuses without a terminal)."""
    merge = memgit_cli_module.commands["projects"].commands["merge"]
    return ["projects", "merge", sel, other, *(["--yes"] if any(p.name == "yes" for p in merge.params) else [])]


def _branches(pattern: str):
    return lambda r: set(re.findall(pattern, r.stdout + r.stderr))


# command -> (its arguments around the selector, the branches its output shows the selector named)
COMMANDS = {
    "sync": (lambda s: ["sync", "--project", s, "--dry-run", "--all", "--json"],
             lambda r: {FOLDERS[x["project"]] for x in json.loads(r.stdout)["sessions"]}),
    "sessions": (lambda s: ["sessions", "--project", s, "--json"],
                 lambda r: {x["branch"] for x in json.loads(r.stdout)["sessions"]}),
    "log": (lambda s: ["log", "--project", s, "-n", "3", "--json"],
            lambda r: {x["branch"] for x in json.loads(r.stdout)["commits"]}),
    "search": (lambda s: ["search", "pytest", "--project", s, "--json"],
               lambda r: {x["branch"] for x in json.loads(r.stdout)["hits"]}),
    "remember": (lambda s: ["remember", "--project", s, f"Selector check {time.monotonic_ns()}", "--json"],
                 lambda r: {json.loads(r.stdout)["branch"]}),
    "consolidate": (lambda s: ["consolidate", "--project", s, "--json"],  # after remember: its scope is pending
                    lambda r: {x["branch"] for x in json.loads(r.stdout)["commits"]}),
    "edit": (lambda s: ["edit", "--project", s], _branches(r"(projects/[\w.-]+):")),  # EDITOR=true: unchanged
    "projects merge": (None, _branches(r"the same project \((projects/[\w.-]+)\)")),
}

SELECTORS = [  # selector, the project it names (or the exit code and the candidates listed)
    ("cli", "projects/cli"),  # an exact slug wins over the name cli, cli-2 and cli-3 share
    ("projects/cli-2", "projects/cli-2"),  # an exact branch
    ("cli-3", "projects/cli-3"),
    ("completion-stanza", "projects/client-tools"),  # an exact PROJECT.md name wins over a prefix of two slugs
    ("clie", "projects/client-tools"),  # a prefix only it has
    ("completion-stanza-manager-for-shells-v2", "projects/completion-stanza-manager-for-shells-v2"),
    ("cl", (11, ["projects/cli", "projects/cli-2", "projects/cli-3", "projects/client-tools"])),
    ("completion-stanza-", (11, ["projects/completion-stanza-manager-for-shells-v1",
                                 "projects/completion-stanza-manager-for-shells-v2"])),
    ("nope", (12, [])),
]


@pytest.mark.parametrize("selector,expected", SELECTORS, ids=[s for s, _ in SELECTORS])
def test_every_command_reads_a_project_selector_alike(at_corpus, memgit_cli, monkeypatch, selector, expected):
    from memgit.cli.commands import cli

    monkeypatch.setenv("EDITOR", "true")
    for name, (args, shown) in COMMANDS.items():
        if name == "projects merge":
            other = expected if isinstance(expected, str) else "projects/cli"
            result = memgit_cli(*_merge_args(cli, selector, other))
        else:
            result = memgit_cli(*args(selector))
        said = result.stdout + result.stderr
        if isinstance(expected, str):
            assert result.exit_code == (1 if name == "projects merge" else 0), (name, said)
            assert shown(result) == {expected}, (name, said)
        else:
            code, candidates = expected
            assert result.exit_code == code, (name, said)
            if code == 11:
                assert f"{selector!r} matches {len(candidates)} projects: {', '.join(candidates)}" in said, (name, said)
            else:
                assert f"no project matches {selector!r}" in said, (name, said)


# ---- item 8: tables print identifiers whole ----------------------------------------------------------

@pytest.mark.parametrize("columns", ["250", "60"])
def test_tables_never_cut_an_identifier(at_corpus, memgit_cli, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)
    long = [b for b in CWDS if "-v" in b]
    projects = memgit_cli("projects").stdout.splitlines()
    assert [line.split()[0] for line in projects[1:]] == sorted(CWDS)
    status = memgit_cli("status").stdout.splitlines()
    folders = [line.split()[1] for line in status if line.startswith("claude-code ")]
    assert sorted(folders) == sorted(FOLDERS)  # two folders alike in their first 44 characters: two rows
    sessions = memgit_cli("sessions").stdout.splitlines()
    keys = {x["session"] for x in json.loads(memgit_cli("sessions", "--json").stdout)["sessions"]}
    assert {line.split()[0] for line in sessions} == keys and {line.split()[2] for line in sessions} == set(CWDS)
    log = memgit_cli("log", "--project", long[0], "-n", "2").stdout.splitlines()
    assert [line.split()[2] for line in log] == [long[0]] * 2
    if columns == "60":  # the free text gave way: the identities are shortened, not the branches
        assert any(line.endswith("…") for line in projects) and any(line.endswith("…") for line in sessions)


# ---- item 9: one exit code per condition ------------------------------------------------------------

def _remote_ahead(home: Path, run) -> list[str]:
    bare = servers.bare_repo(home / "remote.git")
    assert run("remote", "add", "origin", str(bare)).exit_code == 0 and run("push").exit_code == 0
    tree = git(bare, "rev-parse", "main^{tree}").strip()
    ahead = subprocess.run(["git", "-c", "user.name=B", "-c", "user.email=b@example.org", "--git-dir", str(bare),
                            "commit-tree", tree, "-p", "main", "-m", "elsewhere"],
                           capture_output=True, text=True, check=True).stdout.strip()
    git(bare, "update-ref", "refs/heads/main", ahead)
    return ["push"]


def _conflicting_notes(home: Path, run) -> list[str]:
    for project, end in (("cli", "here"), ("cli-2", "there")):  # one file name, two texts
        assert run("remember", "--project", project, f"Deploy with make release from the {end}").exit_code == 0
    from memgit.cli.commands import cli

    return _merge_args(cli, "cli", "cli-2")


def _held_lock(home: Path, run) -> list[str]:
    holder = subprocess.Popen(
        [faults.sys.executable, "-c",
         "import sys, time; from pathlib import Path; from memgit.store.lock import sync_lock\n"
         "with sync_lock(Path(sys.argv[1]), wait=False):\n    print('held', flush=True); time.sleep(30)",
         str(home / ".local" / "share" / "memgit" / ".git" / "memgit")], stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "held"
    _held_lock.holders.append(holder)
    return ["sync", "--no-wait"]


_held_lock.holders = []

SECRET = "ghp_" + "x7Kq2mP9vR4tY8wZ1aB3cD5eF6gH0jL2nQ4s"

# condition, exit code, the command (or a setup that returns it after preparing a copy of the corpus)
EXIT_CODES = [
    ("ok", 0, ["status"]),
    ("a failure the command reports: two names of one project", 1, ["projects", "merge", "cli", "projects/cli", "--yes"]),
    ("usage: click's own (an unknown command)", 2, ["frobnicate"]),
    ("usage: click's own (-n 0)", 2, ["log", "-n", "0"]),
    ("usage: a bad --since", 2, ["search", "pytest", "--since", "yesterday"]),
    ("usage: a bad --limit", 2, ["search", "pytest", "--limit", "0"]),
    ("usage: an unknown --type", 2, ["search", "pytest", "--type", "gotchas"]),
    ("usage: --project with --global", 2, ["remember", "x", "--project", "cli", "--global"]),
    ("usage: nothing to remember", 2, ["remember", "  "]),
    ("not a repository", 3, lambda home, run: ["log", "--repo", str(home / "nowhere")]),
    ("config: a bad value", 4, lambda home, run: (home / ".config" / "memgit").mkdir(parents=True, exist_ok=True) or
     (home / ".config" / "memgit" / "config.toml").write_text("[sources]\nmax_age_days = \"ten\"\n") and ["status"]),
    ("a secret in a person's edit", 6, ["edit", "notes/token.md", "--project", "cli"]),
    ("a conflict: one note, two texts", 7, _conflicting_notes),
    ("the model failed every call", 8, ["sync", "--all", "--model", "openai/fake-model"]),
    ("a sync holds the lock", 9, _held_lock),
    ("ambiguous selector", 11, ["log", "--project", "cl"]),
    ("no such project", 12, ["sessions", "--project", "nope"]),
    ("no such session or commit", 12, ["show", "fffffffff"]),
    ("no such remote", 12, ["push", "nowhere"]),
    ("nothing to forget", 12, ["forget", "words nobody ever wrote", "--yes"]),
    ("a remote that cannot be reached", 13, lambda home, run: ["clone", str(home / "nowhere.git"), "--path",
                                                              str(home / "clone")]),
    ("the remote is ahead", 14, _remote_ahead),
    ("a repository is there already", 15, ["init"]),
    ("a remote of that name is there already", 15,
     lambda home, run: run("remote", "add", "origin", str(home)) and ["remote", "add", "origin", str(home)]),
]


@pytest.mark.parametrize("condition,code,command", EXIT_CODES, ids=[c for c, _, _ in EXIT_CODES])
def test_each_condition_has_its_exit_code_in_every_command(corpus, tmp_path, monkeypatch, memgit_cli, fake_llm,
                                                           condition, code, command):
    home = tmp_path / "home"
    shutil.copytree(corpus, home, symlinks=True)
    point_home(monkeypatch, home)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("EDITOR", f"sh -c 'echo token = {SECRET} > \"$1\"' --")
    fake_llm.default = Reply.error(401, "Incorrect API key provided")
    monkeypatch.setenv("MEMGIT_API_BASE", fake_llm.api_base)
    try:
        args = command(home, memgit_cli) if callable(command) else command
        if args[:2] == ["projects", "merge"] and "--yes" in args:
            from memgit.cli.commands import cli

            args = _merge_args(cli, *args[2:4])
        result = memgit_cli(*args)
        assert result.exit_code == code, (condition, result.stdout, result.stderr)
        if code > 2:
            as_json = memgit_cli(*args, "--json") if "--json" in _options(args) else None
            if as_json is not None and code not in (8, 9):  # a failed session is not tried again by itself
                assert as_json.exit_code == code and json.loads(as_json.stdout)["ok"] is False, as_json.stdout
    finally:
        while _held_lock.holders:
            holder = _held_lock.holders.pop()
            holder.kill()
            holder.wait()


def _options(args: list[str]) -> set[str]:
    from memgit.cli.commands import cli

    command = cli
    for word in args:
        if word.startswith("-") or not hasattr(command, "commands") or word not in command.commands:
            break
        command = command.commands[word]
    return {opt for p in command.params for opt in p.opts}


# ---- item 8: config show, bad values ----------------------------------------------------------------

def test_config_show_prints_toml_memgit_would_read(memgit_cli, hermetic_env, monkeypatch):
    import tomllib

    cfile = config_file(hermetic_env, '[sources]\nmax_age_days = 90\ninclude = ["a\\"b"]\n[extract]\nmodel = "openai/x"\n')
    monkeypatch.setenv("MEMGIT_CONCURRENCY", "2")
    shown = memgit_cli("config", "show")
    assert shown.exit_code == 0 and shown.stderr == ""
    parsed = tomllib.loads(shown.stdout)
    assert parsed["sources"]["max_age_days"] == 90.0 and parsed["sources"]["include"] == ['a"b']
    assert parsed["repo"]["auto_push"] is False and parsed["extract"]["concurrency"] == 2
    assert "api_base" not in parsed["extract"] and "# api_base is not set (default)" in shown.stdout
    assert f"max_age_days = 90.0  # file {cfile}\n" in shown.stdout
    assert "concurrency = 2  # env MEMGIT_CONCURRENCY" in shown.stdout
    # the file it prints is one memgit reads back to the same values
    monkeypatch.delenv("MEMGIT_CONCURRENCY")
    cfile.write_text(shown.stdout)
    again = json.loads(memgit_cli("config", "show", "--json").stdout)
    assert again["ok"] is True and {r["key"]: r["value"] for r in again["settings"]}["extract.concurrency"] == 2


def test_a_bad_value_names_its_key_and_config_show_still_shows_the_rest(memgit_cli, hermetic_env, monkeypatch):
    import tomllib

    cfile = config_file(hermetic_env, "[sources]\nmax_age_days = -3\n[extract]\ntimeout = 0\n")
    monkeypatch.setenv("MEMGIT_MIN_IDLE_MINUTES", "ten")
    status = memgit_cli("status")
    assert status.exit_code == 4
    assert status.stderr == ("Error: MEMGIT_MIN_IDLE_MINUTES must be a number of 0 or more, not 'ten'\n")
    monkeypatch.delenv("MEMGIT_MIN_IDLE_MINUTES")
    negative = memgit_cli("status")
    assert negative.exit_code == 4
    assert negative.stderr == f"Error: [sources] max_age_days in {cfile} must be a number of 0 or more, not -3\n"
    monkeypatch.setenv("MEMGIT_CONCURRENCY", "4.5")
    shown = memgit_cli("config", "show")
    assert shown.exit_code == 4
    parsed = tomllib.loads(shown.stdout)  # still valid TOML: each bad value as given, marked
    assert parsed["sources"]["max_age_days"] == -3 and parsed["extract"]["concurrency"] == "4.5"
    assert parsed["repo"]["remote"] == "origin" and parsed["sources"]["min_idle_minutes"] == 30.0
    assert f"max_age_days = -3  # file {cfile}; BAD: [sources] max_age_days in {cfile} must be a number" in shown.stdout
    assert shown.stderr.splitlines() == [
        f"Error: [sources] max_age_days in {cfile} must be a number of 0 or more, not -3",
        "Error: MEMGIT_CONCURRENCY must be a whole number of 1 or more, not '4.5'",
        f"Error: [extract] timeout in {cfile} must be a number above 0, not 0"]
    data = json.loads(memgit_cli("config", "show", "--json").stdout)
    assert data["ok"] is False and data["error"]["code"] == "config"
    rows = {r["key"]: r for r in data["settings"]}
    assert rows["extract.timeout"]["value"] == 0 and "must be a number above 0" in rows["extract.timeout"]["problem"]
    assert "problem" not in rows["repo.remote"]


# ---- item 11: python -m memgit, and the text slips ----------------------------------------------------

def test_python_dash_m_memgit_is_the_memgit_command(hermetic_env):
    result = subprocess.run([faults.sys.executable, "-m", "memgit", "--help"], capture_output=True, text=True,
                            env=faults.memgit_env(hermetic_env), cwd=hermetic_env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("Usage: memgit [OPTIONS] COMMAND") and "  sync " in result.stdout


def test_counts_in_subjects_agree_with_their_number(corpus):
    subjects = git(corpus / ".local" / "share" / "memgit", "log", "--all", "--format=%s").splitlines()
    counted = [s for s in subjects if s.startswith("consolidate(")]
    assert "consolidate(cli): 1 note, 2 learnings" in counted, counted
    assert not [s for s in counted if re.search(r"\b1 (notes|learnings)\b", s)], counted


def test_forget_of_nothing_points_at_what_finds_things(at_corpus, memgit_cli):
    result = memgit_cli("forget", "words nobody ever wrote", "--yes")
    assert result.exit_code == 12 and "`memgit log`" not in result.stderr
    assert "`memgit search WORDS` finds them" in result.stderr and "`memgit sessions`" in result.stderr


def test_redo_of_an_unchanged_session_commits_nothing(corpus, tmp_path, monkeypatch, memgit_cli):
    home = tmp_path / "home"
    shutil.copytree(corpus, home, symlinks=True)
    point_home(monkeypatch, home)
    repo = home / ".local" / "share" / "memgit"
    before = git(repo, "rev-parse", "projects/cli").strip()
    [transcript] = (home / ".claude" / "projects" / encode_project_dir(CWDS["projects/cli"])).glob("*.jsonl")
    transcript.write_text("".join(transcript.read_text().splitlines(keepends=True)[:-1]))  # as it was read
    key = next(x["session"] for x in json.loads(memgit_cli("sessions", "--project", "cli", "--json").stdout)["sessions"])
    result = memgit_cli("sync", "--redo", key)
    assert result.exit_code == 0, result.stderr
    assert "redone: the note came out as it was" in result.stdout and "commits 0" in result.stdout
    assert git(repo, "rev-parse", "projects/cli").strip() == before


def test_consolidate_force_says_what_it_did(at_corpus, memgit_cli):
    memgit_cli("consolidate")
    forced = memgit_cli("consolidate", "--project", "cli-3", "--force")
    assert forced.exit_code == 0
    assert forced.stdout.strip() == ("consolidated again: each scope's memory was already what its notes give; "
                                     "nothing to commit")


def test_install_names_each_agents_skills_and_every_codex_hook_and_uninstall_leaves_no_empty_folder(
        memgit_cli, hermetic_env):
    (hermetic_env / ".claude").mkdir()
    (hermetic_env / ".codex").mkdir()
    before = sorted(p for p in hermetic_env.rglob("*") if p.is_dir())
    installed = memgit_cli("install", "--no-mcp")
    assert installed.exit_code == 0, installed.stderr
    lines = installed.stdout.splitlines()
    claude = lines.index("Claude Code skills:")
    codex = lines.index("Codex skills:")
    assert lines[claude + 1] == f"  published {hermetic_env}/.claude/skills/memgit-recall/SKILL.md"
    assert lines[codex + 1] == f"  published {hermetic_env}/.agents/skills/memgit-recall/SKILL.md"
    assert ("Warning: Codex runs a new or changed hook only once you trust it: open /hooks in Codex and trust "
            "memgit's SessionStart, UserPromptSubmit and PreCompact hooks") in lines
    hooks = json.loads((hermetic_env / ".codex" / "hooks.json").read_text())["hooks"]
    assert sorted(hooks) == ["PreCompact", "SessionStart", "UserPromptSubmit"]  # the three the warning names
    removed = memgit_cli("uninstall", "--yes")
    assert removed.exit_code == 0, removed.stderr
    assert f"  removed the empty folder {hermetic_env}/.agents" in removed.stdout.splitlines()
    local = hermetic_env / ".local"  # memgit's own state (its install manifest)
    after = sorted(p for p in hermetic_env.rglob("*") if p.is_dir() and local not in (p, *p.parents))
    assert after == before  # no empty skills folder (nor .agents) left behind


def test_doctor_says_when_a_sync_cannot_write_to_the_repository(hermetic_env, claude_projects, memory_path):
    try:
        drop = faults.unprivileged()
    except RuntimeError as e:
        pytest.skip(f"permissions cannot be made to bind here: {e}")
    assert faults.memgit(hermetic_env, "init").returncode == 0
    objects = memory_path / ".git" / "objects"
    objects.chmod(0o555)
    try:
        result = faults.memgit(hermetic_env, "doctor", "--json", preexec=drop)
    finally:
        objects.chmod(0o755)
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert result.returncode == 1 and checks["writable"]["status"] == "fail", checks["writable"]
    assert checks["writable"]["found"] == f"a sync cannot write in {objects}: Permission denied"
    assert "give your user access to it" in checks["writable"]["fix"]
    fine = faults.memgit(hermetic_env, "doctor", "--json", preexec=drop)
    assert {c["name"]: c for c in json.loads(fine.stdout)["checks"]}["writable"]["status"] == "ok"


def test_the_readme_exit_code_table_is_the_one_errors_py_holds():
    from memgit import errors

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| (\d+) \| `(\w+)` \|", readme, re.M))
    classes, todo = {}, [errors.MemgitError]
    while todo:
        cls = todo.pop()
        classes.setdefault(str(cls.exit_code), set()).add(cls.code)
        todo += cls.__subclasses__()
    assert {k: {v} for k, v in table.items()} == classes
    assert sorted(int(k) for k in table) == list(range(1, 16))  # one code per condition, none skipped
    tested = {code for _, code, _ in EXIT_CODES}
    # not from this corpus: 5 (a sync records an unreadable transcript as `fail`, test_bad_transcripts.py)
    # and 10 (a disk that refuses writes, test_disk_faults.py)
    assert tested >= set(range(0, 16)) - {5, 10}, sorted(tested)
