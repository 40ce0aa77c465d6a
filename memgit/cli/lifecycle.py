"""`memgit init`, `demo`, `install`, `uninstall` and the agents' `hook` entry points."""

from __future__ import annotations

import click

from memgit.cli.app import cli, confirm, emit, json_option, load_config, repo_option
from memgit.errors import MemgitError


@cli.command()
@click.option("--path", type=click.Path(file_okay=False), default=None, help="Where to create the repository.")
@json_option
def init(path: str | None, as_json: bool) -> None:
    """Create the memory repository.

    Example: memgit init --path ~/memory
    """
    import os

    from memgit.resources import repo_template_files
    from memgit.store import bootstrap
    from memgit.verbs.settings import remember_repo_path

    cfg = load_config(path)
    if not bootstrap.ensure(cfg.repo_path, repo_template_files(), author=cfg.author):
        raise MemgitError(f"{cfg.repo_path} already holds a repository (with a branch main); use it or pick "
                          "another path")
    from memgit.verbs.purge import start_noticing

    start_noticing(cfg)
    note = remember_repo_path(os.environ, cfg.repo_path) if path else ""
    emit(as_json, {"ok": True, "repo": str(cfg.repo_path), "config": note},
         f"Created memory repository at {cfg.repo_path}" + (f"\n{note}" if note else ""))


@cli.command()
@click.option("--keep", type=click.Path(file_okay=False), default=None, help="Keep the demo files in this folder.")
@json_option
def demo(keep, as_json) -> None:
    """Run the whole pipeline on synthetic transcripts in a temporary repo and show the result.

    Example: memgit demo
    """
    from memgit.verbs.demo import run_demo

    data = run_demo(keep)
    emit(as_json, {"ok": True, **data}, data["text"])


@cli.group()
def hook() -> None:
    """Agent hook entry points: Claude Code, Codex and Gemini CLI run them, `memgit install` registers them.

    Each reads the hook's JSON on stdin and exits 0 whatever happens; failures go to
    .git/memgit/hook.log. `memgit context` shows what session-start would print.

    \b
    Example:
      echo '{"session_id":"0b1d","cwd":"'"$PWD"'","source":"startup"}' | memgit hook session-start
    """
_agent_arg = click.option("--agent", type=click.Choice(["claude-code", "codex", "gemini"]), default="claude-code",
                          show_default=True, help="The agent running the hook (its stdin and answer shape).")


@hook.command("session-start")
@_agent_arg
def hook_session_start(agent) -> None:
    """Print this cwd's memory as SessionStart JSON; sync waiting sessions in the background.

    Example: memgit hook session-start --agent codex < tests/data/hooks/session-start-startup.json
    """
    from memgit.hook import entry as hook_mod

    hook_mod.main(["session-start", "--agent", agent])


@hook.command("user-prompt-submit")
@_agent_arg
def hook_user_prompt_submit(agent) -> None:
    """Print the memories relevant to the prompt (UserPromptSubmit; Gemini CLI: BeforeAgent), else nothing.

    Example: memgit hook user-prompt-submit < tests/data/hooks/user-prompt-submit.json
    """
    from memgit.hook import entry as hook_mod

    hook_mod.main(["user-prompt-submit", "--agent", agent])


@hook.command("session-end")
@_agent_arg
def hook_session_end(agent) -> None:
    """Start a detached `memgit sync --session ID` for the session that ended; return at once.

    Example: memgit hook session-end < tests/data/hooks/session-end.json
    """
    from memgit.hook import entry as hook_mod

    hook_mod.main(["session-end", "--agent", agent])


@hook.command("pre-compact")
@_agent_arg
def hook_pre_compact(agent) -> None:
    """Start a detached `memgit sync --session ID` before compaction; never block it.

    Example: memgit hook pre-compact < tests/data/hooks/pre-compact.json
    """
    from memgit.hook import entry as hook_mod

    hook_mod.main(["pre-compact", "--agent", agent])
_settings_option = click.option("--settings", "settings_path", type=click.Path(dir_okay=False), default=None,
                                help="The Claude Code settings file (default: ~/.claude/settings.json).")
_agents_option = click.option("--agent", "agents", multiple=True, metavar="AGENT",
                              help="claude-code, codex or gemini; repeatable (default: every agent found here).")


@cli.command()
@_agents_option
@_settings_option
@click.option("--mcp/--no-mcp", "mcp", default=None,
              help="Register memgit's MCP server with the agents (default: when memgit[mcp] is installed).")
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@json_option
def install(agents, settings_path, mcp, dry_run, as_json) -> None:
    """Wire memgit into the agents: session-start memory, background sync, skills in their skills folder,
    and `memgit mcp` in their MCP servers.

    Example: memgit install --agent claude-code --agent codex --dry-run
    """
    from pathlib import Path

    from memgit.verbs import install as install_mod

    report = install_mod.install_agents(load_config(None), agents, settings=Path(settings_path) if settings_path else None,
                                        dry_run=dry_run, mcp=mcp)
    emit(as_json, {"ok": True, **report.as_dict()}, _install_text(report))


@cli.command()
@_agents_option
@_settings_option
@click.option("--purge", is_flag=True, help="Also delete the memory repository.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask first (needed without a terminal, or with --json).")
@click.option("--dry-run", is_flag=True, help="Say what would change; write and delete nothing.")
@repo_option
@json_option
def uninstall(agents, settings_path, purge, yes, dry_run, repo_path, as_json) -> None:
    """Take memgit out of the agents (their files back as they were); --purge deletes the memory too.

    Shows what will change and asks; without a terminal to ask, or with --json, it needs --yes.

    Example: memgit uninstall --agent gemini --yes
    """
    from pathlib import Path

    from memgit.verbs import install as install_mod

    cfg = load_config(repo_path)
    settings = Path(settings_path) if settings_path else None
    what = install_mod.describe_repo(cfg.repo_path) if purge else None
    if not dry_run:  # nothing is touched before the person agreed to all of it
        plan = install_mod.uninstall_agents(cfg, agents, settings=settings, dry_run=True)
        if plan.changed or what:
            acts = (["take memgit out of the files above"] if plan.changed else []) + (
                [f"delete the memory repository {what} (this cannot be undone)"] if what else [])
            question = " and ".join(acts)
            confirm(question[0].upper() + question[1:] + "?", yes=yes, as_json=as_json,
                    doing="deleting the memory repository" if what else "taking memgit out of the agents",
                    shown="\n".join(_install_text(plan).splitlines()[:-1]))  # not its "Dry run: ..."
    report = install_mod.uninstall_agents(cfg, agents, settings=settings, dry_run=dry_run)
    purged = bool(what) and not dry_run
    if purged:
        install_mod.purge(cfg.repo_path)
    text = _install_text(report)
    if purge:
        text += (f"\nDeleted the memory repository {what}." if purged else f"\nKept the memory repository {what}."
                 if what else f"\nNo memory repository at {cfg.repo_path}; nothing to delete.")
    emit(as_json, {"ok": True, **report.as_dict(), "purged": str(cfg.repo_path) if purged else None}, text)


_LABELS = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


def _install_text(report) -> str:
    lines = []
    for f in report.files:
        label = _LABELS[f.agent]
        if not f.changed:
            lines.append(f"{label}: memgit's hooks are already in {f.settings}; nothing changed." if f.action == "install"
                         else f"{label}: no memgit hooks in {f.settings}; nothing changed.")
            continue
        lines += [f"{label}: {'would change' if f.dry_run else 'changed'} {f.settings}:",
                  *(f"  {change}" for change in f.changes)]
        if f.restored == "original":
            lines.append("  the file is back byte for byte as it was before memgit")
        if f.backup:
            lines.append(f"  Backup of the previous file: {f.backup}")
    for changes in report.skills.values():
        lines += [f"  skills: {change}" for change in changes]
    for f in report.mcp:
        lines.append(f"{_LABELS[f.agent]}: " + (
            ("memgit's MCP server is already registered in " if f.action == "install" else "no memgit MCP server in ")
            + f"{f.settings}; nothing changed." if not f.changed
            else f"{'would change' if f.dry_run else 'changed'} {f.settings}: " + "; ".join(f.changes)
            + ("; the file is as it was before memgit" if f.restored == "original" else "")))
    if report.dry_run:
        lines.append("Dry run: nothing was written.")
    elif report.action == "install" and report.changed:
        lines.append("New sessions start with memgit's memory; each session that ends or compacts is synced in the "
                     "background. `memgit sync` reads the sessions you already have; `memgit context` shows what a "
                     "session here is told; `memgit uninstall` takes it all out again.")
    return "\n".join(lines + [f"Warning: {w}" for w in dict.fromkeys(report.warnings)])
