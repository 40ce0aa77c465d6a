"""`memgit doctor`: each check passes on a sound setup and fails (or warns) on a real fault — a config
typo, a torn object file, a lock a killed process left, a secret in the history, hooks not installed,
memory told twice, a full disk — with its fix; and it runs on a setup too broken for the other commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from memgit.core.ledger import format_message
from memgit.store import lock
from memgit.store.fsck import fsck
from memgit.store.repo import MemoryRepo
from memgit.verbs import doctor as verb
from tests.conftest import git, unpack
from tests.integration.test_native_memory import memory_folder, project, synced  # noqa: F401 (fixtures)
from tests.integration.test_scan import AWS, TOKEN, person_commits

NAMES = {"config", "repository", "fsck", "writable", "locks", "secrets", "remotes", "sync failures", "hooks claude-code",
         "hooks codex", "hooks gemini", "double injection", "disk space"}


def doctor(memgit_cli, *args: str) -> tuple[object, dict[str, dict]]:
    """Run `memgit doctor --json` and its text form; return the text run and the checks by name."""
    data = memgit_cli("doctor", "--json", *args)
    text = memgit_cli("doctor", *args[1:] if args[:1] == ("--fix",) else args)  # --fix acts once
    assert data.exit_code == text.exit_code, data.stdout + text.stdout
    assert "Traceback" not in data.output + text.output
    return text, {c["name"]: c for c in json.loads(data.stdout)["checks"]}


@pytest.fixture
def repo(memory_path, memgit_cli) -> Path:
    assert memgit_cli("init").exit_code == 0
    return memory_path


def loose_objects(repo: Path, kind: str) -> list[Path]:
    """The loose object files of one kind (blob, tree, commit), read with git."""
    unpack(repo)
    found = []
    for path in sorted((repo / ".git" / "objects").glob("??/*")):
        sha = path.parent.name + path.name
        if git(repo, "cat-file", "-t", sha).strip() == kind:
            found.append(path)
    return found


def tear(path: Path) -> None:
    """Cut an object file in half, as a crash or a bad disk would."""
    path.chmod(0o644)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


# ---- the whole command ----------------------------------------------------------------------------


def test_a_sound_repository_passes_every_check_and_the_json_lists_them(repo, memgit_cli):
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 0 and result.stdout.rstrip().endswith("all checks passed")
    assert set(checks) == NAMES
    for check in checks.values():
        assert set(check) == {"name", "status", "found", "fix", "details", "checked"}
        assert check["status"] == "ok" and check["found"]
    assert checks["fsck"]["found"] == "git fsck: no problem"
    assert not checks["hooks codex"]["checked"] and "not installed on this machine" in checks["hooks codex"]["found"]
    assert "✓ repository: " in result.stdout and "- hooks codex: Codex is not installed" in result.stdout
    data = json.loads(memgit_cli("doctor", "--json").stdout)
    assert data["ok"] is True and data["repo"] == str(repo) and data["fixed"] == []


def test_no_repository_is_one_failure_with_its_fix_and_the_rest_still_report(memory_path, memgit_cli):
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 1
    assert checks["repository"]["status"] == "fail" and "memgit init" in checks["repository"]["fix"]
    assert "memgit clone URL" in checks["repository"]["fix"]
    assert [n for n, c in checks.items() if c["status"] == "fail"] == ["repository"]
    assert checks["disk space"]["checked"] and checks["config"]["status"] == "ok"
    assert not checks["fsck"]["checked"]
    assert "✗ repository: no memory repository at" in result.stdout
    assert "    fix: memgit init" in result.stdout
    assert not memory_path.exists()  # doctor creates nothing
    assert json.loads(memgit_cli("doctor", "--json").stdout)["ok"] is False


def test_help_names_the_checks_the_exit_codes_and_an_example(memgit_cli):
    result = memgit_cli("doctor", "--help")
    assert result.exit_code == 0 and "Example: memgit doctor --json" in result.stdout
    assert "Exits 1 when a check fails" in result.stdout and "--fix" in result.stdout


# ---- config ---------------------------------------------------------------------------------------


def config_file(home: Path, text: str) -> Path:
    path = home / ".config" / "memgit" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_a_config_typo_is_the_config_checks_failure_and_the_other_checks_run(repo, memgit_cli, hermetic_env):
    path = config_file(hermetic_env, '[repo]\nauthr = "me <me@example.com>"\n')
    assert memgit_cli("status").exit_code == 4  # the usual commands stop at the typo
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 1
    assert checks["config"]["status"] == "fail"
    assert "did you mean author?" in checks["config"]["found"] and str(path) in checks["config"]["found"]
    assert str(path) in checks["config"]["fix"]
    assert checks["repository"]["status"] == "ok" and checks["secrets"]["status"] == "ok"
    assert "✗ config: unknown key 'authr'" in result.stdout
    path.write_text('[repo]\nauthor = "me <me@example.com>"\n')  # fixed
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 0 and checks["config"]["found"] == str(path)


def test_with_a_refused_config_the_repository_it_names_is_still_the_one_checked(memgit_cli, hermetic_env, tmp_path):
    elsewhere = tmp_path / "memory"
    assert memgit_cli("init", "--path", str(elsewhere)).exit_code == 0
    config_file(hermetic_env, f'[repo]\npath = "{elsewhere}"\nauto_push = "yes"\n')  # a bad value
    result, checks = doctor(memgit_cli)
    assert checks["config"]["status"] == "fail" and "must be true or false" in checks["config"]["found"]
    assert checks["repository"] == {**checks["repository"], "status": "ok", "found": str(elsewhere)}


# ---- fsck -----------------------------------------------------------------------------------------


def test_a_torn_object_fails_fsck_and_doctor_still_runs_every_check(repo, memgit_cli):
    tear(loose_objects(repo, "blob")[0])
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 1
    assert checks["fsck"]["status"] == "fail" and checks["fsck"]["found"].startswith("git fsck: error:")
    assert "memgit clone URL" in checks["fsck"]["fix"]
    assert set(checks) == NAMES and checks["secrets"]["status"] == "ok"  # the scan reads the other objects
    assert memgit_cli("scan").exit_code == 0  # and `memgit scan` does not crash on it either


def test_a_torn_head_commit_is_reported_without_a_crash(repo, memgit_cli):
    head = git(repo, "rev-parse", "main").strip()
    unpack(repo)
    tear(repo / ".git" / "objects" / head[:2] / head[2:])
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 1 and checks["fsck"]["status"] == "fail"
    assert set(checks) == NAMES


def test_without_git_dulwich_reads_every_object_and_walks_every_branch(repo, memgit_cli, monkeypatch, tmp_path):
    tree, blob = loose_objects(repo, "tree")[0], loose_objects(repo, "blob")[0]
    monkeypatch.setenv("PATH", str(tmp_path / "no-programs"))  # git is not installed
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 0 and checks["fsck"]["found"] == "dulwich: no problem"
    tree.unlink()  # a tree gone from main's history
    tear(blob)
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 1 and checks["fsck"]["found"].startswith("dulwich: ")
    problems = [checks["fsck"]["found"].removeprefix("dulwich: "), *checks["fsck"]["details"]]
    assert any(p.startswith(f"object {blob.parent.name}{blob.name}: cannot be read") for p in problems)
    assert f"refs/heads/main: missing tree {tree.parent.name}{tree.name}" in problems


def test_dulwich_and_git_agree_on_a_sound_and_a_broken_repository(repo):
    assert fsck(repo).problems == () and fsck(repo, use_git=False).problems == ()
    commit = git(repo, "rev-parse", "main").strip()
    unpack(repo)
    (repo / ".git" / "objects" / commit[:2] / commit[2:]).unlink()
    assert fsck(repo).problems and fsck(repo, use_git=False).problems == (f"refs/heads/main: missing commit {commit}",)


# ---- locks ----------------------------------------------------------------------------------------


def old_lock(path: Path, minutes: float = 10) -> Path:
    path.write_text("")
    then = time.time() - minutes * 60
    os.utime(path, (then, then))
    return path


def test_a_stale_lock_warns_and_fix_removes_it_then_doctor_is_clean(repo, memgit_cli):
    index_lock = old_lock(repo / ".git" / "index.lock")
    ref_lock = old_lock(repo / ".git" / "refs" / "heads" / "main.lock", minutes=90)
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 0  # a warning only
    assert checks["locks"]["status"] == "warn" and "2 stale lock file(s)" in checks["locks"]["found"]
    assert "memgit doctor --fix" in checks["locks"]["fix"] and str(index_lock) in checks["locks"]["fix"]
    assert "! locks: " in result.stdout and "    fix: memgit doctor --fix" in result.stdout
    fixed = memgit_cli("doctor", "--fix")
    assert fixed.exit_code == 0 and f"removed {index_lock}" in fixed.stdout
    assert not index_lock.exists() and not ref_lock.exists()
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 0 and result.stdout.rstrip().endswith("all checks passed")
    assert git(repo, "status", "--porcelain") == ""  # git works again


def test_a_fresh_lock_belongs_to_a_running_process_and_is_left_alone(repo, memgit_cli):
    fresh = repo / ".git" / "index.lock"
    fresh.write_text("")
    result, checks = doctor(memgit_cli, "--fix")
    assert checks["locks"]["status"] == "ok" and fresh.exists()


def test_fix_removes_nothing_while_a_sync_holds_the_lock(repo, memgit_cli):
    stale = old_lock(repo / ".git" / "index.lock")
    with lock.sync_lock(repo / ".git" / "memgit", wait=False):
        result, checks = doctor(memgit_cli, "--fix")
    assert stale.exists() and checks["locks"]["status"] == "warn"
    assert f"a memgit sync is running (pid {os.getpid()})" in checks["locks"]["found"]


@pytest.mark.parametrize("age, stale", [(0, False), (59.9, False), (60.1, True), (86400, True)])
def test_a_lock_is_stale_after_a_minute(age, stale):
    assert verb.is_stale(age) is stale


# ---- secrets --------------------------------------------------------------------------------------


def test_a_secret_in_the_history_fails_naming_its_kind_and_place_never_its_value(repo, memgit_cli):
    person_commits(repo, "notes: deploy", {"notes/deploy.md": f"Deploy with\ntoken: {TOKEN}\n"})
    person_commits(repo, "notes: remove the token", delete=("notes/deploy.md",))
    person_commits(repo, f"notes: rotate {AWS}")
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 1 and checks["secrets"]["status"] == "fail"
    everything = result.output + json.dumps(checks)
    assert TOKEN not in everything and AWS not in everything
    assert "github_token in file notes/deploy.md" in " ".join([checks["secrets"]["found"], *checks["secrets"]["details"]])
    assert "memgit purge" in checks["secrets"]["fix"]


# ---- sync failures --------------------------------------------------------------------------------


def test_a_failed_session_warns_with_retry_failed(repo, memgit_cli):
    with MemoryRepo.open(repo) as r:
        r.commit("main", {}, format_message("fail", "main", "s.jsonl cannot be read", trailers=[
            ("Memgit-Session", "claude-code/0b5e"), ("Memgit-Source", "-home-u-app/0b5e.jsonl"),
            ("Memgit-Range", "0-812"), ("Memgit-Outcome", "failed"), ("Memgit-Reason", "Permission denied")]),
            allow_empty=True)
    result, checks = doctor(memgit_cli)
    assert result.exit_code == 0 and checks["sync failures"]["status"] == "warn"
    assert "claude-code/0b5e: Permission denied" in checks["sync failures"]["found"]
    assert "memgit sync --retry-failed" in checks["sync failures"]["fix"]


# ---- hooks and double injection ------------------------------------------------------------------


def test_hooks_not_installed_in_a_present_agent_warn_and_install_clears_it(repo, memgit_cli, hermetic_env):
    (hermetic_env / ".codex").mkdir()
    result, checks = doctor(memgit_cli)
    codex = checks["hooks codex"]
    assert result.exit_code == 0 and codex["status"] == "warn" and codex["fix"] == "memgit install --agent codex"
    assert not checks["hooks claude-code"]["checked"]  # no ~/.claude: skipped
    assert memgit_cli("install", "--agent", "codex").exit_code == 0
    result, checks = doctor(memgit_cli)
    assert checks["hooks codex"]["status"] == "ok" and result.exit_code == 0
    hooks_file = hermetic_env / ".codex" / "hooks.json"
    doc = json.loads(hooks_file.read_text())
    del doc["hooks"]["PreCompact"]  # a person removed one of them
    hooks_file.write_text(json.dumps(doc))
    codex = doctor(memgit_cli)[1]["hooks codex"]
    assert codex["status"] == "warn" and "PreCompact" in codex["found"] and "SessionStart" not in codex["found"]
    hooks_file.write_text("{ not json")
    result, checks = doctor(memgit_cli)
    assert checks["hooks codex"]["status"] == "fail" and "not valid JSON" in checks["hooks codex"]["found"]
    assert result.exit_code == 1


def test_hooks_of_an_older_form_warn_and_install_upgrades_them(repo, memgit_cli, hermetic_env):
    from memgit import config
    from memgit.verbs import install

    (hermetic_env / ".claude").mkdir()
    old = "/home/u/.local/bin/memgit"  # the console script, as memgit installed its hooks before the launcher
    install.install_agents(config.load(), ["claude-code"], command=old)
    settings = hermetic_env / ".claude" / "settings.json"
    assert f"{old} hook session-start" in settings.read_text()
    found = doctor(memgit_cli)[1]["hooks claude-code"]
    assert found["status"] == "warn" and f"`{old} hook session-start`" in found["found"]
    assert found["fix"] == "memgit install --agent claude-code"
    assert memgit_cli("install", "--agent", "claude-code").exit_code == 0
    assert old not in settings.read_text() and f"{install.memgit_command()} hook session-start" in settings.read_text()
    assert doctor(memgit_cli)[1]["hooks claude-code"]["status"] == "ok"


def test_memory_told_twice_warns_with_the_setting_to_change(synced, memgit_cli, project):  # noqa: F811
    assert doctor(memgit_cli)[1]["double injection"]["status"] == "ok"  # memgit's hook not installed yet
    assert memgit_cli("install").exit_code == 0
    result, checks = doctor(memgit_cli)
    twice = checks["double injection"]
    assert result.exit_code == 0 and twice["status"] == "warn" and str(project) in twice["found"]
    assert "autoMemoryEnabled" in twice["fix"] and "memgit uninstall" in twice["fix"]
    settings = json.loads(synced.read_text())
    synced.write_text(json.dumps({**settings, "autoMemoryEnabled": False}))
    assert doctor(memgit_cli)[1]["double injection"]["status"] == "ok"


# ---- disk -----------------------------------------------------------------------------------------


def test_free_space_under_the_thresholds_warns_then_fails(repo):
    free = shutil.disk_usage(repo).free
    ok = verb.run(os.environ)
    assert next(c for c in ok.checks if c.name == "disk space").status == "ok"
    warned = verb.run(os.environ, disk_warn_below=free + 2**30)
    disk = next(c for c in warned.checks if c.name == "disk space")
    assert disk.status == "warn" and warned.ok and "free some space" in disk.fix
    failed = verb.run(os.environ, disk_warn_below=free + 2**31, disk_fail_below=free + 2**30)
    assert next(c for c in failed.checks if c.name == "disk space").status == "fail" and not failed.ok


@pytest.mark.parametrize("free, status", [(10 << 20, "fail"), (100 << 20, "warn"), (200 << 20, "ok"), (1 << 40, "ok")])
def test_judge_space(free, status):
    assert verb.judge_space(free) == status


# ---- remotes --------------------------------------------------------------------------------------

# A history: a <- b <- c on main; x only on the remote.
PARENTS = {"a": None, "b": "a", "c": "b"}


def is_ancestor(a: str, b: str) -> bool:
    while b is not None:
        if a == b:
            return True
        b = PARENTS.get(b)
    return False


@pytest.mark.parametrize("local, theirs, unpushed, behind", [
    ({"main": "c"}, {"main": "c"}, [], []),
    ({"main": "c"}, {"main": "a"}, ["main"], []),  # local ahead
    ({"main": "a"}, {"main": "c"}, [], ["main"]),  # remote is a descendant
    ({"main": "c"}, {"main": "x"}, [], ["main"]),  # remote holds a commit this repository has not fetched
    ({"main": "c", "projects/app": "b"}, {"main": "c"}, ["projects/app"], []),  # never pushed
    ({"main": "c"}, {"main": "c", "projects/app": "x"}, [], ["projects/app"]),  # made on another machine
])
def test_compare_heads(local, theirs, unpushed, behind):
    drift = verb.compare_heads(local, theirs, is_ancestor=is_ancestor, known=lambda sha: sha in PARENTS)
    assert (drift.unpushed, drift.behind) == (unpushed, behind)


def test_diverged_branches_need_a_pull_then_a_push():
    parents = {"a": None, "b": "a", "y": "a"}
    drift = verb.compare_heads({"main": "b"}, {"main": "y"}, known=parents.__contains__,
                               is_ancestor=lambda a, b: a == "a" or a == b)
    finding = verb.judge_drift("origin", drift)
    assert finding.status == "warn" and finding.fix == "memgit pull && memgit push"
    assert verb.judge_drift("origin", verb.Drift(unpushed=["main"])).fix == "memgit push"
    assert verb.judge_drift("origin", verb.Drift(behind=["main"])).fix == "memgit pull"
    assert verb.judge_drift("origin", verb.Drift()).status == "ok"


def test_the_remotes_check_reports_none_unpushed_behind_and_unreachable(repo, memgit_cli, tmp_path):
    checks = doctor(memgit_cli)[1]
    assert checks["remotes"]["status"] == "ok" and "memgit remote add origin URL" in checks["remotes"]["found"]
    bare = tmp_path / "backup.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    assert memgit_cli("remote", "add", "origin", str(bare)).exit_code == 0
    assert doctor(memgit_cli)[1]["remotes"]["found"] == "origin: up to date"
    person_commits(repo, "notes: one more")
    remotes = doctor(memgit_cli)[1]["remotes"]
    assert remotes["status"] == "warn" and "1 branch(es) not pushed: main" in remotes["found"]
    assert remotes["fix"] == "memgit push"
    assert memgit_cli("push").exit_code == 0
    assert doctor(memgit_cli)[1]["remotes"]["found"] == "origin: up to date"
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(bare), str(other)], check=True)
    person_commits(other, "notes: from another machine")
    git(other, "push", "-q", "origin", "main")
    remotes = doctor(memgit_cli)[1]["remotes"]
    assert remotes["status"] == "warn" and remotes["fix"] == "memgit pull"
    shutil.rmtree(bare)
    result, checks = doctor(memgit_cli)
    assert checks["remotes"]["status"] == "fail" and "cannot be reached" in checks["remotes"]["found"]
    assert result.exit_code == 1


