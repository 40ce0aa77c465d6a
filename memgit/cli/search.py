"""`memgit search` (memgit.verbs.search): ranked hits over every scope's memory, as text or JSON."""

from __future__ import annotations

from dataclasses import asdict

import click

from memgit.cli.app import cli, emit, json_option, load_config, repo_option


@cli.command()
@click.argument("query")
@click.option("--project", help="Only this project (slug, projects/<slug>, a prefix only it has, or main).")
@click.option("--type", "types", multiple=True, help="Only learnings of this type (repeatable): preference, "
              "convention, command, gotcha, decision, fact.")
@click.option("--since", metavar="YYYY-MM-DD", help="Only what is dated on or after this day.")
@click.option("--all-projects", is_flag=True, help="Rank every project alike (default: the current project first, "
              "then main, then the others).")
@click.option("--limit", type=int, default=10, show_default=True, help="At most this many hits.")
@repo_option
@json_option
def search(query, project, types, since, all_projects, limit, repo_path, as_json) -> None:
    """Search memory (session notes, MEMORY.md, skills, pinned and imported notes) for QUERY.

    Words are stemmed ("tests" finds "testing"); "a phrase" in quotes, prefix* and several words
    (any of them, the notes holding more of them first) work. Each hit says how to open it.

    Example: memgit search "docker compose" --type gotcha
    """
    from memgit.verbs.search import search as find

    hits = find(load_config(repo_path), query, project=project, types=types, since=since,
                all_projects=all_projects, limit=limit)
    emit(as_json, {"ok": True, "query": query, "hits": [asdict(h) for h in hits]}, _text(query, hits))


def _text(query: str, hits) -> str:
    if not hits:
        return f"no memory matches {query!r}"
    blocks = []
    for i, h in enumerate(hits, 1):
        head = (f"[{h.type}] " if h.type else "") + " · ".join(x for x in (h.project, h.date, h.kind) if x)
        snippet = " ".join(h.snippet.split())
        where = f"   memgit show {h.branch}:{h.path}" + (f"   (session {h.session})" if h.session else "")
        blocks.append(f"{i}. {head}\n   {snippet}\n{where}")
    return "\n".join(blocks)
