"""`memgit search` without click: the console script's fast path (memgit.entry), and the rendering
both paths share.

Importing click and every command costs about five `python -c pass` before anything is searched;
a search that finds its answer in a few milliseconds should not pay that. Only the plain forms are
read here (the options `memgit search --help` lists); anything else (`--help`, an unknown option,
a missing value) returns None and goes through click, which says what is wrong the usual way.
"""

from __future__ import annotations

import os
import sys

VALUED = {"--project": "project", "--type": "types", "--since": "since", "--limit": "limit", "--repo": "repo_path"}
FLAGS = {"--all-projects": "all_projects", "--json": "as_json"}


def parse(argv: list[str]) -> dict | None:
    """The options of `memgit search ...` (argv after `search`), or None when click should read them."""
    opts: dict = {"types": [], "project": None, "since": None, "limit": "10", "repo_path": None,
                  "all_projects": False, "as_json": False}
    query, i, only_args = None, 0, False
    while i < len(argv):
        arg = argv[i]
        i += 1
        if only_args or arg == "-" or not arg.startswith("-"):
            if query is not None:
                return None
            query = arg
        elif arg == "--":
            only_args = True
        elif arg in FLAGS:
            opts[FLAGS[arg]] = True
        else:
            name, eq, value = arg.partition("=")
            if name not in VALUED:
                return None
            if not eq:
                if i >= len(argv):
                    return None
                value, i = argv[i], i + 1
            if name == "--type":
                opts["types"].append(value)
            else:
                opts[VALUED[name]] = value
    try:
        opts["limit"] = int(opts["limit"])
    except ValueError:
        return None
    return {**opts, "query": query} if query is not None else None


def payload(query: str, hits) -> dict:
    return {"ok": True, "query": query, "hits": [h._asdict() for h in hits]}


def text(query: str, hits) -> str:
    if not hits:
        return f"no memory matches {query!r}"
    blocks = []
    for i, h in enumerate(hits, 1):
        head = (f"[{h.type}] " if h.type else "") + " · ".join(x for x in (h.project, h.date, h.kind) if x) \
            + (f" · from teammate {h.person}" if h.person else "")
        snippet = " ".join(h.snippet.split())
        where = f"   memgit show {h.branch}:{h.path}" + (f"   (session {h.session})" if h.session else "")
        blocks.append(f"{i}. {head}\n   {snippet}\n{where}")
    return "\n".join(blocks)


def main(argv: list[str]) -> int | None:
    """Run `memgit search` from argv (after `search`); None when click must handle these arguments."""
    opts = parse(argv)
    if opts is None:
        return None
    from memgit import locate
    from memgit.errors import STORAGE_ERRNOS, MemgitError, StorageError
    from memgit.verbs.search import search

    try:
        try:
            cfg = locate.settings(os.environ, opts["repo_path"])
            if cfg is None:  # a config file or a setting to check: config.load reads (and refuses) them
                from memgit import config

                cfg = config.load(repo_path=opts["repo_path"])
            hits = search(cfg, opts["query"], project=opts["project"],
                          types=opts["types"], since=opts["since"], all_projects=opts["all_projects"],
                          limit=opts["limit"])
        except OSError as e:  # as the click group turns them (memgit.cli.app.MemgitGroup)
            if e.errno not in STORAGE_ERRNOS:
                raise
            raise StorageError.from_os_error(e) from e
    except MemgitError as e:
        if os.environ.get("MEMGIT_DEBUG"):
            raise
        if opts["as_json"]:
            import json

            print(json.dumps({"ok": False, "error": {"code": e.code, "message": e.message}}))
        else:
            print(f"Error: {e.message}", file=sys.stderr)
        return e.exit_code
    if opts["as_json"]:
        import json  # only for --json: its import is a tenth of a search

        print(json.dumps(payload(opts["query"], hits), indent=2))
    else:
        print(text(opts["query"], hits))
    return 0
