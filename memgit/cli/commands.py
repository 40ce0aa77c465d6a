"""The command line: parse options, call one verb, print its result as text or JSON."""

from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import asdict

import click

from memgit.errors import STORAGE_ERRNOS, MemgitError, StorageError


class Failure(click.ClickException):
    """A MemgitError on its way out: `Error: ...` on stderr, or a JSON object with --json."""

    def __init__(self, error: MemgitError, as_json: bool):
        super().__init__(error.message)
        self.exit_code, self.code, self.as_json = error.exit_code, error.code, as_json

    def show(self, file=None) -> None:
        if self.as_json:
            click.echo(json.dumps({"ok": False, "error": {"code": self.code, "message": self.message}}))
        else:
            click.echo(f"Error: {self.message}", err=True)


class MemgitGroup(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except MemgitError as e:
            if os.environ.get("MEMGIT_DEBUG"):
                raise
            _let_go(e)
            raise Failure(e, bool(ctx.meta.get("memgit.json"))) from e
        except OSError as e:  # a full, read-only or forbidden disk is the machine's state, not a bug
            if os.environ.get("MEMGIT_DEBUG") or e.errno not in STORAGE_ERRNOS:
                raise
            _let_go(e)
            raise Failure(StorageError.from_os_error(e), bool(ctx.meta.get("memgit.json"))) from e


def _let_go(error: BaseException) -> None:
    """Free what the frames of a failed write still hold, without a word.

    A write that failed on a full disk can leave a half-closed file in those frames (dulwich's
    GitFile); its finalizer tries to flush again, fails again, and Python prints that failure as
    "Exception ignored ... Traceback" at exit, under the one line that already said what happened.
    """
    hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None  # only while these frames are cleared
    try:
        seen: set[int] = set()
        while error is not None and id(error) not in seen:
            seen.add(id(error))
            traceback.clear_frames(error.__traceback__)
            error = error.__cause__ or error.__context__
    finally:
        sys.unraisablehook = hook


def _set_json(ctx: click.Context, _param, value: bool) -> bool:
    ctx.meta["memgit.json"] = value
    return value


json_option = click.option("--json", "as_json", is_flag=True, callback=_set_json, expose_value=True,
                           is_eager=True, help="Print the result as JSON.")
repo_option = click.option("--repo", "repo_path", type=click.Path(file_okay=False), default=None,
                           help="The memory repository (default: $MEMGIT_HOME or ~/.local/share/memgit).")


def _config(repo_path: str | None):
    from memgit import config

    return config.load(repo_path=repo_path)


def _emit(as_json: bool, data, text: str) -> None:
    click.echo(json.dumps(data, indent=2) if as_json else text)


@click.group(cls=MemgitGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memgit")
def cli() -> None:
    """memgit: memory for coding agents, kept in a git repository of markdown notes.

    \b
    Example:
      memgit sync          # read new Claude Code sessions into ~/.local/share/memgit
      git -C ~/.local/share/memgit log --all
    """


@cli.command()
@click.option("--path", type=click.Path(file_okay=False), default=None, help="Where to create the repository.")
@json_option
def init(path: str | None, as_json: bool) -> None:
    """Create the memory repository.

    Example: memgit init --path ~/memory
    """
    from memgit.resources import repo_template_files
    from memgit.store import bootstrap

    cfg = _config(path)
    if not bootstrap.ensure(cfg.repo_path, repo_template_files(), author=cfg.author):
        raise MemgitError(f"{cfg.repo_path} already holds a repository (with a branch main); use it or pick "
                          "another path")
    _emit(as_json, {"ok": True, "repo": str(cfg.repo_path)}, f"Created memory repository at {cfg.repo_path}")


@cli.command()
@click.option("--project", help="Only sessions of this project (branch slug, name or ~/.claude/projects folder).")
@click.option("--session", help="Only this session (id or prefix), whatever its age.")
@click.option("--all", "all_", is_flag=True, help="Ignore the idle time and the age window.")
@click.option("--dry-run", is_flag=True, help="Say what would be read; commit nothing.")
@click.option("--max-sessions", type=click.IntRange(min=1), help="Read at most N sessions.")
@click.option("--redo", metavar="SESSION", help="Read this session again from its start.")
@click.option("--retry-failed", is_flag=True, help="Read again the sessions whose last attempt failed.")
@click.option("--wait/--no-wait", default=True, help="Wait for a sync already running (default) or stop.")
@click.option("--model", metavar="MODEL", help="Extract and consolidate with this litellm model "
              "(e.g. anthropic/claude-haiku-4-5, ollama_chat/llama3.1) instead of the offline heuristic.")
@click.option("--api-base", metavar="URL", help="The model's server (a local or OpenAI-compatible one).")
@repo_option
@json_option
def sync(project, session, all_, dry_run, max_sessions, redo, retry_failed, wait, model, api_base, repo_path,
         as_json) -> None:
    """Read new transcripts into the memory repository, one commit per session.

    Example: memgit sync --project pinion --dry-run --model anthropic/claude-haiku-4-5
    """
    from memgit.verbs import sync as sync_mod
    from memgit.cli.progress import Progress

    opts = sync_mod.SyncOptions(project, session, all_, dry_run, max_sessions, redo, retry_failed, wait)
    cfg = sync_mod.with_model(_config(repo_path), model, api_base)
    with Progress(enabled=not as_json) as progress:
        result = sync_mod.run(cfg, opts, on_wait=progress.waiting, on_progress=progress.update)
    _emit(as_json, {"ok": True, **result.summary(), "waited": progress.waited,
                    "sessions": [asdict(r) for r in result.results]},
          _sync_text(result))


def _usd(cost) -> str:
    return f", ~${cost:.4f}" if cost is not None else ", cost unknown (model not in litellm's price map)"


def _sync_text(result) -> str:
    lines = []
    for r in result.results:
        if r.kind == "planned":
            lines.append(f"would read {r.session}  {r.project}  bytes {r.start}-{r.end}  ({r.reason})"
                         + (f"  ~{r.tokens:,} tokens{_usd(r.cost)}" if r.tokens else ""))
        elif r.kind == "fail":
            lines.append(f"failed {r.session}: {r.reason}")
        elif r.kind == "gone":
            lines.append(f"gone {r.session}: {r.reason}")
    for folder, reason in sorted(result.unreadable.items()):
        agent, _, name = folder.partition(":")
        lines.append(f"unreadable {agent} folder {name}: {reason}")
    s = result.summary()
    if result.dry_run:
        lines.append(f"{len(result.results)} session(s) would be read (dry run; nothing committed)")
        if s.get("tokens"):
            lines.append(f"{result.extractor} would be sent ~{s['tokens']:,} tokens{_usd(s['cost'])} "
                         "(estimate; output tokens guessed)")
    else:
        if result.consolidated:
            lines.append("consolidated " + ", ".join(c.branch for c in result.consolidated))
        if result.consolidation_error:
            lines.append(f"consolidation failed (the sessions are recorded; the next sync retries): "
                         f"{result.consolidation_error}")
        lines += [f"warning: {w}" for w in result.warnings]
        lines.append(f"read {s['read']}, extracted {s['extracted']}, skipped {s['skipped']}, "
                     f"failed {s['failed']}, commits {s['commits']}  ({s['repo']})")
    return "\n".join(lines)


@cli.command()
@click.option("--project", help="Only this project (branch slug, projects/<slug> or its PROJECT.md name).")
@click.option("--global", "global_", is_flag=True, help="Main's cross-project memory (alone: only that).")
@click.option("--force", is_flag=True, help="Consolidate even scopes with nothing new (a changed budget, say).")
@click.option("--wait/--no-wait", default=True, help="Wait for a sync already running (default) or stop.")
@repo_option
@json_option
def consolidate(project, global_, force, wait, repo_path, as_json) -> None:
    """Rewrite MEMORY.md, memory_summary.md and skills/ of the scopes with new notes.

    Example: memgit consolidate --project pinion --global
    """
    from memgit.verbs import consolidate as consolidation

    results = consolidation.consolidate(_config(repo_path), project=project, global_=global_, force=force, wait=wait)
    lines = [f"{r.sha[:8]} consolidate({r.scope}): {r.notes} notes, {r.learnings} learnings, summary "
             f"{r.summary_tokens} tokens{', skills: ' + ', '.join(r.skills) if r.skills else ''}"
             + (f" ({r.fallback})" if r.fallback else "") for r in results]
    _emit(as_json, {"ok": True, "commits": [asdict(r) for r in results]},
          "\n".join(lines) or "nothing to consolidate: every scope is up to date")


@cli.command()
@repo_option
@json_option
def status(repo_path, as_json) -> None:
    """Per project: transcripts on disk, processed, pending, failed, last sync; then why sessions failed.

    Example: memgit status --json
    """
    from memgit.verbs import inspect as views

    data = views.status(_config(repo_path))
    rows = [f"{'agent':11} {'project folder':44} {'disk':>5} {'done':>5} {'pend':>5} {'wait':>5} {'fail':>5}  last sync"]
    for p in data["projects"]:
        rows.append(f"{p['agent']:11} {p['project_dir'][:44]:44} {p['on_disk']:5} {p['processed']:5} {p['pending']:5} "
                    f"{p['waiting']:5} {p['failed']:5}  {p['last_sync'] or '-'}")
    rows.append(f"repo: {data['repo']}")
    rows.append("transcripts: " + ", ".join(f"{agent} {root}" for agent, root in data["sources"].items()))
    if data["failed_sessions"]:
        rows.append("failed sessions (once fixed: memgit sync --retry-failed):")
        rows += [f"  {f['session']}  {f['project_dir']}: {f['reason']}" for f in data["failed_sessions"]]
    if data["unreadable_folders"]:
        rows.append("unreadable project folders (not read until fixed):")
        rows += [f"  {u['agent']} {u['project_dir']}: {u['reason']}" for u in data["unreadable_folders"]]
    _emit(as_json, {"ok": True, **data}, "\n".join(rows))


@cli.command()
@click.option("--no-caches", is_flag=True, help="Leave out the derived files under .git/memgit.")
@repo_option
@json_option
def scan(no_caches, repo_path, as_json) -> None:
    """Look for secrets in the whole memory repository: every object of its history (reachable or
    not), branch and ref names, reflogs, its config and the caches under .git/memgit. Prints each
    finding's kind and place, never the value; exits 6 when there is one.

    \b
    To remove a secret from the history (it is not in the files any more, but git keeps every
    version; a remote that was pushed to has it too):
      1. remove or reword it where it is now (the file, or let memgit rewrite the note);
      2. rewrite the history, e.g. with git-filter-repo (pip install git-filter-repo):
           git -C REPO filter-repo --force --replace-text FILE
         where FILE holds one line `THE-VALUE==>[REDACTED]` per secret (it rewrites files,
         names and commit messages on every branch);
      3. drop what the old history left behind:
           git -C REPO reflog expire --expire=now --all && git -C REPO gc --prune=now
           rm -rf REPO/.git/memgit/ledger.pickle REPO/.git/memgit/context REPO/.git/memgit/memory
         (caches memgit rebuilds), then run `memgit scan` again;
      4. revoke the secret where it was issued, and force-push every remote that had it.

    Example: memgit scan --json
    """
    from memgit import config
    from memgit.errors import SecretFound
    from memgit.store.repo import MemoryRepo
    from memgit.store import scan as scan_mod

    cfg = config.load(repo_path=repo_path)
    with MemoryRepo.open(cfg.repo_path, author=cfg.author, extra_patterns=cfg.extra_redact_patterns) as repo:
        found = scan_mod.scan(repo, cfg.extra_redact_patterns, caches=not no_caches)
    text = "\n".join(f"secret: {f.describe()}" for f in found)
    text += ("\n" if text else "") + (f"{len(found)} possible secret(s) found; see `memgit scan --help` to remove "
                                        "them" if found else f"no secret found ({cfg.repo_path})")
    _emit(as_json, {"ok": not found, "repo": str(cfg.repo_path), "findings": [asdict(f) for f in found]}, text)
    if found:
        sys.exit(SecretFound.exit_code)


@cli.command()
@click.option("--project", help="Only this project's branch (slug or projects/<slug>).")
@click.option("-n", "limit", type=click.IntRange(min=1), default=20, show_default=True, help="How many commits.")
@repo_option
@json_option
def log(project, limit, repo_path, as_json) -> None:
    """memgit's commits, newest first, across all branches.

    Example: memgit log --project pinion -n 5
    """
    from memgit.verbs import inspect as views

    rows = views.log(_config(repo_path), project=project, limit=limit)
    text = "\n".join(f"{r['sha'][:8]} {r['time']} {r['branch']:24} {r['subject']}" for r in rows)
    _emit(as_json, {"ok": True, "commits": rows}, text or "no commits")


@cli.command()
@click.argument("what")
@repo_option
@json_option
def show(what, repo_path, as_json) -> None:
    """Print a session's note (by session id prefix) or a file (PATH or BRANCH:PATH).

    Example: memgit show 6f1c2e4a
    """
    from memgit.verbs import inspect as views

    data = views.show(_config(repo_path), what)
    if data.get("content") is not None:
        text = data["content"].rstrip("\n")
    else:
        text = "\n".join(f"{data['session']}: {e['kind']} {e['range']} {e['outcome']} {e['reason']}".rstrip()
                         for e in data["entries"])
    _emit(as_json, {"ok": True, **data}, text)


@cli.command()
@click.option("--keep", type=click.Path(file_okay=False), default=None, help="Keep the demo files in this folder.")
@json_option
def demo(keep, as_json) -> None:
    """Run the whole pipeline on synthetic transcripts in a temporary repo and show the result.

    Example: memgit demo
    """
    from memgit.verbs.demo import run_demo

    data = run_demo(keep)
    _emit(as_json, {"ok": True, **data}, data["text"])


# ---- the agents: hooks, context, install (memgit.hook.entry, memgit.hook.context, memgit.verbs.install)


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


@cli.command("context")
@click.option("--cwd", type=click.Path(file_okay=False), default=None, help="Where the session starts (default: here).")
@repo_option
@json_option
def context_cmd(cwd, repo_path, as_json) -> None:
    """Print what a Claude Code session started here would be told; its size goes to stderr.

    Example: memgit context --cwd ~/dev/pinion --json
    """
    from memgit.hook import context as context_mod

    data = context_mod.preview(_config(repo_path), os.path.abspath(cwd or os.getcwd()))
    if as_json:
        _emit(True, {"ok": True, **data}, "")
        return
    if data["context"]:
        click.echo(data["context"])
    click.echo(_context_footer(data), err=True)


def _context_footer(data: dict) -> str:
    if data["reason"]:
        return data["reason"]
    where = (f"project {data['project']} (branch {data['branch']})" if data["branch"]
             else "no project: global memory only")
    waiting = f"; {data['pending']} session(s) waiting to be synced" if data["pending"] else ""
    return f"{data['chars']:,} characters, ~{data['tokens']:,} tokens; {where}{waiting}; repo {data['repo']}"


_settings_option = click.option("--settings", "settings_path", type=click.Path(dir_okay=False), default=None,
                                help="The Claude Code settings file (default: ~/.claude/settings.json).")
_agents_option = click.option("--agent", "agents", multiple=True, metavar="AGENT",
                              help="claude-code, codex or gemini; repeatable (default: every agent found here).")


@cli.command()
@_agents_option
@_settings_option
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@json_option
def install(agents, settings_path, dry_run, as_json) -> None:
    """Wire memgit into the agents: session-start memory, background sync, skills in their skills folder.

    Example: memgit install --agent claude-code --agent codex --dry-run
    """
    from pathlib import Path

    from memgit.verbs import install as install_mod

    report = install_mod.install_agents(_config(None), agents, settings=Path(settings_path) if settings_path else None,
                                        dry_run=dry_run)
    _emit(as_json, {"ok": True, **report.as_dict()}, _install_text(report))


@cli.command()
@_agents_option
@_settings_option
@click.option("--purge", is_flag=True, help="Also delete the memory repository (asks first).")
@click.option("--yes", "-y", is_flag=True, help="With --purge: delete without asking.")
@click.option("--dry-run", is_flag=True, help="Say what would change; write and delete nothing.")
@repo_option
@json_option
def uninstall(agents, settings_path, purge, yes, dry_run, repo_path, as_json) -> None:
    """Take memgit out of the agents (their files back as they were); --purge deletes the memory too.

    Example: memgit uninstall --agent gemini
    """
    from pathlib import Path

    from memgit.verbs import install as install_mod

    cfg = _config(repo_path)
    report = install_mod.uninstall_agents(cfg, agents, settings=Path(settings_path) if settings_path else None,
                                          dry_run=dry_run)
    what = install_mod.describe_repo(cfg.repo_path) if purge else None
    purged = bool(what) and not dry_run and (yes or click.confirm(f"Delete the memory repository {what}? "
                                                                 "This cannot be undone", err=True))
    if purged:
        install_mod.purge(cfg.repo_path)
    text = _install_text(report)
    if purge:
        text += (f"\nDeleted the memory repository {what}." if purged else f"\nKept the memory repository {what}."
                 if what else f"\nNo memory repository at {cfg.repo_path}; nothing to delete.")
    _emit(as_json, {"ok": True, **report.as_dict(), "purged": str(cfg.repo_path) if purged else None}, text)


def _install_text(report) -> str:
    lines = []
    for f in report.files:
        label = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}[f.agent]
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
    if report.dry_run:
        lines.append("Dry run: nothing was written.")
    elif report.action == "install" and report.changed:
        lines.append("New sessions start with memgit's memory; each session that ends or compacts is synced in the "
                     "background. `memgit sync` reads the sessions you already have; `memgit context` shows what a "
                     "session here is told; `memgit uninstall` takes it all out again.")
    return "\n".join(lines + [f"Warning: {w}" for w in dict.fromkeys(report.warnings)])


def main() -> None:
    cli(prog_name="memgit")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
