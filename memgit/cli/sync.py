"""`memgit sync` and `memgit consolidate`: run the pipeline, print what it did."""

from __future__ import annotations

import sys
from dataclasses import asdict

import click

from memgit.cli import sync_fast
from memgit.cli.app import cli, emit, json_option, load_config, repo_option
from memgit.errors import LLMError


@cli.command()
@click.option("--project", help="Only sessions of this project: its branch, slug or PROJECT.md name, "
              "or an agent folder; or a prefix only it has.")
@click.option("--session", help="Only this session (id or prefix), whatever its age.")
@click.option("--all", "all_", is_flag=True, help="Ignore the idle time and the age window.")
@click.option("--dry-run", is_flag=True, help="Say what would be read; write nothing anywhere.")
@click.option("--max-sessions", type=click.IntRange(min=1), help="Read at most N sessions.")
@click.option("--redo", metavar="SESSION", help="Read this session again from its start.")
@click.option("--retry-failed", is_flag=True, help="Read again the sessions whose last attempt failed.")
@click.option("--wait/--no-wait", default=True, help="Wait for a sync already running (default) or stop.")
@click.option("--model", metavar="MODEL", help="Extract and consolidate with this model instead of the offline "
              "heuristic: an agent CLI you have (claude-code/haiku, codex/<model>, gemini-cli/<model>) or, "
              "with the llm extra, a litellm model (anthropic/claude-haiku-4-5, ollama_chat/llama3.1).")
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
    cfg = sync_mod.with_model(load_config(repo_path), model, api_base)
    with Progress(enabled=not as_json) as progress:
        result = sync_mod.run(cfg, opts, on_wait=progress.waiting, on_progress=progress.update)
    failure = result.model_failure()  # what was read is printed first; then the run fails
    emit(as_json, sync_fast.payload(result, waited=progress.waited, failure=failure, code=LLMError.code),
         sync_fast.text(result))
    if failure:
        if not as_json:
            click.echo(f"Error: {failure}", err=True)
        sys.exit(LLMError.exit_code)


@cli.command()
@click.option("--project", help="Only this project: its branch, slug or PROJECT.md name, or a prefix only it has.")
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

    results = consolidation.consolidate(load_config(repo_path), project=project, global_=global_, force=force, wait=wait)
    lines = [f"{r.sha[:8]} consolidate({r.scope}): {_n(r.notes, 'note')}, {_n(r.learnings, 'learning')}, summary "
             f"{r.summary_tokens} tokens{', skills: ' + ', '.join(r.skills) if r.skills else ''}"
             + (f" ({r.fallback})" if r.fallback else "") for r in results]
    emit(as_json, {"ok": True, "commits": [asdict(r) for r in results]},
         "\n".join(lines) or ("consolidated again: each scope's memory was already what its notes give; nothing to commit"
                              if force else "nothing to consolidate: every scope is up to date"))


def _n(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"
