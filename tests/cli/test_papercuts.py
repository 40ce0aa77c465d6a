"""The small things a person trips over (issue 11, item 5): selectors, SHAs, redo over an edit,
init --path, config typos, a sync whose every model call failed, the age window, progress."""

import json
import subprocess
from dataclasses import replace

from memgit.sources.claude_code.synthetic import demo_sessions
from tests.conftest import age, fsck, git


def _write_demo(claude_projects, *, ids=None):
    sessions = demo_sessions()
    if ids:
        sessions = [replace(s, session_id=i) if i else s for s, i in zip(sessions, ids)]
    for s in sessions:
        age(s.write(claude_projects))
    return sessions


def _read(result) -> list[str]:
    return [r["session"] for r in json.loads(result.stdout)["sessions"] if r["kind"] == "extract" or r["kind"] == "skip"]


# ---- selectors: exact, or a prefix only one has; ambiguous and unknown are errors ------------


def test_session_selector_is_exact_or_unique_prefix(memgit_cli, claude_projects, memory_path):
    _write_demo(claude_projects, ids=[None, "c3aaaaaa-0000-5000-8000-000000000001", None, None])
    one = memgit_cli("sync", "--session", "7b03", "--json")
    assert one.exit_code == 0 and _read(one) == ["claude-code/7b037ddc-2809-5da8-b145-488900e64288"]
    # "c" used to match every session (every key starts claude-code/); here it is a prefix of two ids
    ambiguous = memgit_cli("sync", "--session", "c3")
    assert ambiguous.exit_code == 11, ambiguous.stderr
    assert ambiguous.stderr.startswith("Error: 'c3' matches 2 sessions: ")
    assert "c33793bc" in ambiguous.stderr and "c3aaaaaa" in ambiguous.stderr
    none = memgit_cli("sync", "--session", "ffff")
    assert none.exit_code == 12 and none.stderr.startswith("Error: no session matches 'ffff'")
    assert memgit_cli("sync", "--redo", "c").exit_code == 11
    exact = memgit_cli("sync", "--session", "claude-code/c33793bc-d5fa-5d33-9de7-247b75115af8", "--json")
    assert exact.exit_code == 0 and _read(exact) == ["claude-code/c33793bc-d5fa-5d33-9de7-247b75115af8"]
    fsck(memory_path)


def test_project_selector_is_exact_or_unique_prefix(memgit_cli, claude_projects, memory_path):
    _write_demo(claude_projects)
    # "an" is inside "lantern": a substring used to select it
    assert memgit_cli("sync", "--project", "an").exit_code == 12
    assert memgit_cli("sync", "--project", "an", "--dry-run").exit_code == 12
    ambiguous = memgit_cli("sync", "--project", "-home-demo-dev-")
    assert ambiguous.exit_code == 11 and "matches 3 projects" in ambiguous.stderr
    lantern = memgit_cli("sync", "--project", "lan", "--json")
    assert lantern.exit_code == 0, lantern.stderr
    assert {r["branch"] for r in json.loads(lantern.stdout)["sessions"]} == {"projects/lantern"}
    assert len(_read(lantern)) == 2
    # known now by its PROJECT.md; nothing new is not an error, an unknown name still is
    assert memgit_cli("sync", "--project", "lantern").exit_code == 0
    assert memgit_cli("sync", "--project", "lanterns").exit_code == 12
    assert memgit_cli("log", "--project", "lan", "--json").exit_code == 0
    assert memgit_cli("log", "--project", "x").exit_code == 12
    fsck(memory_path)


def test_show_accepts_every_sha_memgit_prints(memgit_cli, claude_projects, memory_path):
    _write_demo(claude_projects)
    assert memgit_cli("sync").exit_code == 0
    printed = memgit_cli("log", "-n", "50").stdout.splitlines()
    extracts = [line.split()[0] for line in printed if " extract(" in line]
    assert extracts
    for short in extracts:
        shown = memgit_cli("show", short)
        assert shown.exit_code == 0, shown.stderr
        full = git(memory_path, "rev-parse", short).strip()
        assert shown.stdout.startswith(f"commit {full}\n")
        note = git(memory_path, "log", "-1", "--format=%(trailers:key=Memgit-Note,valueonly)", full).strip()
        assert f"changed: {note}" in shown.stdout
        assert git(memory_path, "show", f"{full}:{note}").strip() in shown.stdout
    full = git(memory_path, "rev-parse", extracts[0]).strip()
    data = json.loads(memgit_cli("show", full, "--json").stdout)
    assert data["commit"] == full and data["content"].startswith("---")
    for line in printed:  # every commit log prints, consolidations too
        assert memgit_cli("show", line.split()[0]).exit_code == 0, line


# ---- a sync that read 0 says why ------------------------------------------------------------


def test_first_sync_on_an_old_history_says_the_sessions_are_outside_the_window(memgit_cli, claude_projects):
    for s in demo_sessions():
        age(s.write(claude_projects), 40 * 86400)
    result = memgit_cli("sync")
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "4 session(s) are older than 30 days (max_age_days); `memgit sync --all` reads them" in lines
    assert lines[-1].startswith("read 0, ")
    assert json.loads(memgit_cli("sync", "--json").stdout)["too_old"] == 4
    everything = json.loads(memgit_cli("sync", "--all", "--json").stdout)
    assert everything["read"] == 4 and "too_old" not in everything
    assert "older than" not in memgit_cli("sync").stdout  # read now: nothing left outside the window


# ---- the progress label follows the sessions -----------------------------------------------


def test_the_progress_label_names_each_session_in_turn(claude_projects, memory_path, monkeypatch):
    """A real sync drawing its bar on a real terminal (a pty): each session's id shows in turn."""
    import os
    import pty
    import sys

    from memgit import config
    from memgit.cli.progress import Progress
    from memgit.verbs import sync as sync_mod

    sessions = _write_demo(claude_projects)
    master, slave = pty.openpty()
    terminal = os.fdopen(slave, "w", buffering=1)
    monkeypatch.setattr(sys, "stderr", terminal)
    with Progress() as progress:
        assert progress.enabled
        sync_mod.run(config.load(), sync_mod.SyncOptions(), on_progress=progress.update)
    terminal.flush()
    drawn = b""
    while True:
        import select

        if not select.select([master], [], [], 0.2)[0]:
            break
        drawn += os.read(master, 65536)
    terminal.close()
    os.close(master)
    for s in sessions:
        assert s.session_id[:8].encode() in drawn, (s.session_id, drawn[-400:])


# ---- the config: typos, init --path, config show -------------------------------------------


def _config(home):
    path = home / ".config" / "memgit" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_a_typo_in_a_config_key_is_an_error_with_a_did_you_mean(memgit_cli, hermetic_env):
    cfile = _config(hermetic_env)
    for text, said in [("[sources]\nmax_age_day = 90\n", "unknown key 'max_age_day' in [sources] of {f}; did you mean max_age_days?"),
                       ("[source]\nmax_age_days = 90\n", "unknown section [source] in {f}; did you mean [sources]?"),
                       ('path = "~/memory"\n', "unknown key 'path' outside any section in {f}; did you mean [repo] path?"),
                       ('[extract]\nmodle = "x"\n', "unknown key 'modle' in [extract] of {f}; did you mean model?")]:
        cfile.write_text(text)
        for command in (["status"], ["sync"], ["config", "show"]):
            result = memgit_cli(*command)
            assert result.exit_code == 4, (command, result.stderr)
            assert result.stderr == f"Error: {said.format(f=cfile)}\n"


def test_init_path_is_remembered_for_the_next_command(memgit_cli, hermetic_env, tmp_path, claude_projects):
    elsewhere = tmp_path / "memory"
    made = memgit_cli("init", "--path", str(elsewhere))
    assert made.exit_code == 0, made.stderr
    cfile = _config(hermetic_env)
    assert f"remembered in {cfile}: [repo] path = {elsewhere}" in made.stdout
    status = json.loads(memgit_cli("status", "--json").stdout)
    assert status["repo"] == str(elsewhere)
    _write_demo(claude_projects)
    assert memgit_cli("sync").exit_code == 0
    assert "extract(" in git(elsewhere, "log", "--all", "--format=%s")
    fsck(elsewhere)
    # a config that names another path is not overruled; one with other keys keeps them
    cfile.write_text('[repo]\nauthor = "me <me@example.org>"\n\n[sources]\nmax_age_days = 90\n')
    again = memgit_cli("init", "--path", str(tmp_path / "second"))
    assert again.exit_code == 0
    assert cfile.read_text() == (f'[repo]\npath = "{tmp_path / "second"}"\nauthor = "me <me@example.org>"\n\n'
                                 "[sources]\nmax_age_days = 90\n")
    third = memgit_cli("init", "--path", str(tmp_path / "third"))
    assert third.exit_code == 0 and f"names [repo] path {tmp_path / 'second'}" in third.stdout
    assert f'path = "{tmp_path / "second"}"' in cfile.read_text()


def test_init_at_the_default_path_writes_no_config(memgit_cli, hermetic_env, memory_path):
    assert memgit_cli("init", "--path", str(memory_path)).exit_code == 0
    assert not _config(hermetic_env).exists()


def test_config_show_says_where_each_value_came_from(memgit_cli, hermetic_env, monkeypatch):
    cfile = _config(hermetic_env)
    cfile.write_text('[sources]\nmax_age_days = 90\n\n[extract]\nmodel = "openai/x"\n')
    monkeypatch.setenv("MEMGIT_CONCURRENCY", "2")
    data = json.loads(memgit_cli("config", "show", "--json").stdout)
    rows = {r["key"]: r for r in data["settings"]}
    assert rows["sources.max_age_days"] == {"key": "sources.max_age_days", "value": 90.0, "origin": f"file {cfile}"}
    assert rows["extract.concurrency"] == {"key": "extract.concurrency", "value": 2, "origin": "env MEMGIT_CONCURRENCY"}
    assert rows["sources.min_idle_minutes"]["origin"] == "default"
    assert rows["consolidate.model"] == {"key": "consolidate.model", "value": "openai/x",
                                         "origin": f"file {cfile} ([extract] model)",
                                         "backend": "litellm (needs the llm extra: pip install 'memgit[llm]')"}
    assert data["config_file"] == str(cfile) and data["exists"]
    text = memgit_cli("config", "show").stdout
    assert "[sources]\nagents = " in text and f"\nmax_age_days = 90.0  # file {cfile}\n" in text


# ---- memgit sessions -----------------------------------------------------------------------


def test_sessions_lists_each_with_its_state_and_filters(memgit_cli, claude_projects, memory_path):
    _write_demo(claude_projects)
    assert memgit_cli("sync", "--project", "pinion").exit_code == 0
    rows = json.loads(memgit_cli("sessions", "--json").stdout)["sessions"]
    states = {r["session"].split("/")[1][:8]: (r["state"], r["branch"]) for r in rows}
    assert states == {"7b037ddc": ("done", "projects/pinion"), "11477283": ("done", "projects/pinion"),
                      "c33793bc": ("pending", None), "49f61833": ("pending", None)}
    lantern = json.loads(memgit_cli("sessions", "--project", "lan", "--json").stdout)["sessions"]
    assert sorted(r["session"][12:20] for r in lantern) == ["49f61833", "c33793bc"]
    assert memgit_cli("sessions", "--project", "nope").exit_code == 12
    assert json.loads(memgit_cli("sessions", "--failed", "--json").stdout)["sessions"] == []
    text = memgit_cli("sessions").stdout
    assert len(text.splitlines()) == 4 and "pending" in text


# ---- sync --redo keeps a note a person edited ----------------------------------------------


def test_redo_keeps_a_note_a_person_edited(memgit_cli, claude_projects, memory_path):
    _write_demo(claude_projects)
    assert memgit_cli("sync").exit_code == 0
    session = "7b037ddc-2809-5da8-b145-488900e64288"
    shown = json.loads(memgit_cli("show", session, "--json").stdout)
    branch, note = shown["branch"], shown["path"]
    # memgit's own note: a redo may rewrite it (here it comes out the same, so nothing is committed)
    redone = memgit_cli("sync", "--redo", session[:8], "--json")
    assert redone.exit_code == 0 and [r["kind"] for r in json.loads(redone.stdout)["sessions"]] == ["none"]
    # a person edits it on its branch, with git
    git(memory_path, "switch", "-q", branch)
    edited = (memory_path / note).read_text() + "\nMy own words about this session.\n"
    (memory_path / note).write_text(edited)
    git(memory_path, "-c", "user.name=P", "-c", "user.email=p@x", "commit", "-qam", "my edit")
    before = git(memory_path, "rev-parse", branch)
    kept = memgit_cli("sync", "--redo", session[:8])
    assert kept.exit_code == 0, kept.stderr
    assert f"warning: not redone: {note} on {branch} was edited by hand since memgit wrote it" in kept.stdout
    assert git(memory_path, "show", f"{branch}:{note}") == edited
    assert git(memory_path, "rev-parse", branch) == before
    fsck(memory_path)


def test_sessions_failed_lists_the_sessions_the_model_failed(memgit_cli, claude_projects, fake_llm):
    from tests.fake_llm import Reply

    _write_demo(claude_projects)
    fake_llm.default = Reply.error(400, "bad request")
    failed = memgit_cli("sync", "--model", "openai/fake-model", "--api-base", fake_llm.api_base, "--project", "lantern")
    assert failed.exit_code == 8, failed.stderr
    assert failed.stderr.startswith("Error: every model call failed (2 session(s)): openai/fake-model rejected")
    rows = json.loads(memgit_cli("sessions", "--failed", "--json").stdout)["sessions"]
    assert sorted(r["session"][12:20] for r in rows) == ["49f61833", "c33793bc"]
    assert all(r["state"] == "failed" and "rejected the request" in r["reason"] for r in rows)
    # one session extracted and one failed: not every call failed, the run succeeds
    fake_llm.default = Reply.error(400, "bad request")
    fake_llm.script(Reply.json({"keep": False, "reason": "nothing here"}))
    mixed = memgit_cli("sync", "--model", "openai/fake-model", "--api-base", fake_llm.api_base, "--project", "pinion",
                       "--json")
    assert mixed.exit_code == 0, mixed.stdout
    assert sorted(r["kind"] for r in json.loads(mixed.stdout)["sessions"]) == ["fail", "skip"]


def test_show_takes_any_agents_session_key(memgit_cli, claude_projects):
    _write_demo(claude_projects)
    assert memgit_cli("sync").exit_code == 0
    shown = memgit_cli("show", "claude-code/7b037ddc")
    assert shown.exit_code == 0 and "7b037ddc" in shown.stdout
    assert memgit_cli("show", "codex/7b037ddc").exit_code == 12  # a session key, not a file: no such session
