"""The prompt hook's work (issue 12): the few memories relevant to a prompt, read from the search
index, minus what the session-start context already said (memgit.core.recall holds the rules).

This runs at every prompt, before the agent sees it. It reads the index as it is and never updates
it: a stale index still answers, and the next sync (or `memgit search`) brings it up to date. A
missing index (no sync since search came) answers nothing. The modules imported read files and
SQLite; none needs dulwich, click or yaml.
"""

from __future__ import annotations

import os
import time

from memgit.core import recall as rules
from memgit.core.briefing import assemble
from memgit.core.search import match_expression, rank
from memgit.core.vocab import MAIN
from memgit.store import search_index
from memgit.store.context_cache import part_path, read_json


class Recalled:
    """What the prompt gets (may be ""), and what went wrong on the way (for the hook log)."""

    __slots__ = ("text", "problems")

    def __init__(self, text: str = "", problems: list[str] | None = None):
        self.text = text
        self.problems = problems or []


def recall(repo_path: str, cwd: str, prompt: str, *, now: float) -> Recalled:
    """Return the fenced memories relevant to `prompt` typed in `cwd`; Recalled("") when none is.

    Raises:
        Exception: whatever reading a broken context cache raises; the hook logs it and says nothing.
    """
    words = rules.terms(prompt)
    if len(words) < rules.MIN_SHARED:  # "yes", "go on": answered before any file is opened
        return Recalled()
    state = os.path.join(repo_path, ".git", "memgit")
    if not os.path.exists(search_index.path_of(state)):
        return Recalled()  # no memory repository, or no index yet: the next sync builds it
    found = candidates(state, words)
    if not found:
        if not search_index.indexed_heads(state):
            return Recalled("", [f"the search index {search_index.path_of(state)} is unreadable or empty; "
                                 "the next `memgit sync` rebuilds it"])
        return Recalled()
    passed = rules.relevant(found, words)
    if not passed:
        return Recalled()
    problems: list[str] = []
    branch, told = told_context(repo_path, cwd, problems)
    hits = rank(passed, current=branch, now_date=time.strftime("%Y-%m-%d", time.gmtime(now)))
    hits = rules.scope_order(rules.untold(hits, told), branch)
    return Recalled(rules.render(hits), problems)


def candidates(state_dir: str, words: list[str]) -> list:
    """The index's (doc, bm25, snippet) for the prompt's words that are not common (rule 3 of the bar)."""
    common = search_index.common_words(state_dir, words, share=rules.COMMON_SHARE)
    looked_up = [w for w in words if w not in common]
    if not looked_up:
        return []
    return search_index.query(state_dir, match_expression(" ".join(looked_up)), limit=rules.CANDIDATES,
                              kinds=rules.KINDS)


def told_context(repo_path: str, cwd: str, problems: list[str]) -> tuple[str | None, str]:
    """The project branch of `cwd` and the session-start context it gets, from the context cache.

    The cache is what the session-start hook served from (or wrote); when it is missing, the
    project is unknown and nothing counts as already told.
    """
    cdir = os.path.join(repo_path, ".git", "memgit", "context")
    index = read_json(os.path.join(cdir, "index.json"))
    if index is None:
        return None, ""
    from memgit.hook.context import branch_of

    branch = branch_of(cwd, index, cdir, problems)
    parts = {name: read_json(part_path(cdir, name)) for name in {branch or MAIN, MAIN}}
    project = next((p["name"] for p in index["projects"] if p["branch"] == branch), None)
    told = assemble(repo=repo_path, branch=branch, project=project, project_part=parts.get(branch),
                    main_part=parts.get(MAIN), pending=0, search=index.get("search", False))
    return branch, told
