"""The project branch of a working directory, as sync files a session started there, answered from the
context cache's memo of directories (dirs.json: two `stat` calls) and resolved through
memgit.sources.workspace (dataclasses, pathlib) only when the memo cannot answer. The session-start
and prompt hooks and `memgit search` ask it at every start.
"""

from __future__ import annotations

import os

from memgit.sources import gitstat
from memgit.store.context_cache import MEMO_SIZE, empty_memo, read_json, write_json


def of_cwd(state_dir: str, cwd: str, problems: list[str], *, heads: dict | None = None,
           index: dict | None = None) -> str | None:
    """The project branch of `cwd`, from the context cache (its index, or only an index of `heads`
    when given; `index`: the index, when the caller read it already); without one, resolved over the
    projects the search index keeps."""
    cdir = os.path.join(state_dir, "context")
    if index is None:
        index = read_json(os.path.join(cdir, "index.json"))
    if index is not None and (heads is None or index.get("heads") == heads):
        return branch_of(cwd, index, cdir, problems)
    from memgit.sources import workspace
    from memgit.store import search_reader

    return workspace.resolve_cwd(cwd, search_reader.projects(state_dir))[0]


def branch_of(cwd: str, index: dict, cdir: str, problems: list[str]) -> str | None:
    """Return the project branch of `cwd` (None: no known project), remembering it in dirs.json."""
    path = os.path.join(cdir, "dirs.json")
    memo = read_json(path)
    if memo is None or memo.get("projects_digest") != index["projects_digest"]:
        memo = empty_memo(index["projects_digest"])
    found, branch = _remembered(cwd, memo)
    if found:
        return branch
    from memgit.sources import workspace  # dataclasses, pathlib: only when dirs.json cannot answer

    branch, table, key, entry = workspace.resolve_cwd(cwd, index["projects"])
    memo[table][key] = entry
    if len(memo[table]) > MEMO_SIZE:
        memo[table] = dict(list(memo[table].items())[-MEMO_SIZE:])
    write_json(path, memo, problems)
    return branch


def _remembered(cwd: str, memo: dict) -> tuple[bool, str | None]:
    top = gitstat.git_top(cwd)
    if top is not None:
        entry = memo["dirs"].get(top)
        if entry is not None and entry["sig"] == gitstat.git_signature(top, entry["config"]):
            return True, entry["branch"]
        return False, None
    here = os.path.abspath(cwd)
    if here in memo["cwds"]:
        return True, memo["cwds"][here]
    return False, None
