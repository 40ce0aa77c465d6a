"""`memgit search` (memgit.verbs.search): ranked hits over every scope's memory, as text or JSON.

The console script runs the plain forms without click (memgit.cli.search_fast); this command is
what `memgit search --help`, a mistyped option and a caller of `cli` get."""

from __future__ import annotations

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option
from memgit.cli.search_fast import payload, text


@cli.command()
@click.argument("query")
@click.option("--project", help="Only this project: its branch, slug or PROJECT.md name, a prefix only "
              "it has, or main.")
@click.option("--type", "types", multiple=True, help="Only learnings of this type (repeatable): preference, "
              "convention, command, gotcha, decision, fact.")
@click.option("--since", metavar="YYYY-MM-DD", help="Only what is dated on or after this day.")
@click.option("--all-projects", is_flag=True, help="Rank every project alike (default: the current project first, "
              "then main, then the others).")
@click.option("--limit", type=int, default=10, show_default=True, help="At most this many hits.")
@click.option("--semantic/--no-semantic", default=None, help="Fuse with the embeddings' ranking (the `semantic` "
              "extra; default: on when installed, unless [search] semantic = false).")
@repo_option
@json_option
def search(query, project, types, since, all_projects, limit, semantic, repo_path, as_json) -> None:
    """Search memory (session notes, MEMORY.md, skills, pinned and imported notes) for QUERY.

    Words are stemmed ("tests" finds "testing"); "a phrase" in quotes, prefix* and several words
    (any of them, the notes holding more of them first) work. Each hit says how to open it.

    Example: memgit search "docker compose" --type gotcha
    """
    from memgit.verbs.search import search as find

    hits = find(load_config(repo_path), query, project=project, types=types, since=since,
                all_projects=all_projects, limit=limit, semantic=semantic)
    emit(as_json, payload(query, hits), text(query, hits))
