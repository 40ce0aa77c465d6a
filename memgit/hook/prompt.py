"""The prompt hook's work (issues 12 and 17): the few memories that clearly bear on a prompt, read
from the search index, minus what the session-start context already said (memgit.core.recall holds
the rules: which words, the bar, which line of a subject to tell).

This runs at every prompt, before the agent sees it. It reads the index as it is and never updates
it: a stale index still answers, and the next sync (or `memgit search`) brings it up to date. A
missing index (no sync since search came) answers nothing. The modules imported read files and
SQLite; none needs dulwich, click or yaml.
"""

from __future__ import annotations

import os

from memgit.core import recall as rules
from memgit.core.vocab import MAIN
from memgit.store import search_reader
from memgit.store.context_cache import part_path, read_json
from memgit.store.sqlite import sqlite3


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
    if len(words) < 2:  # "yes", "go on": answered before any file is opened
        return Recalled()
    state = os.path.join(repo_path, ".git", "memgit")
    if not os.path.exists(search_reader.path_of(state)):
        return Recalled()  # no memory repository, or no index yet: the next sync builds it
    reader = search_reader.Reader.open(state)
    if reader is None:
        return Recalled("", [f"the search index {search_reader.path_of(state)} is unreadable or of an older "
                             "kind; the next `memgit sync` rebuilds it"])
    problems: list[str] = []
    try:
        with reader:
            found = _found(reader, repo_path, cwd, words, problems)
    except sqlite3.DatabaseError as e:
        return Recalled("", [f"the search index {search_reader.path_of(state)} could not be read ({e}); "
                             "the next `memgit sync` rebuilds it"])
    if not found:
        return Recalled("", problems)
    branch, subjects, context = found
    said = rules.normalise(told_context(repo_path, branch, problems, context=context))
    hits = [line for line in (rules.line_of(units, held, said) for units, held in subjects) if line]
    return Recalled(rules.render(hits), problems)


def _found(reader: search_reader.Reader, repo_path: str, cwd: str, words: list[str], problems: list[str]):
    """(the cwd's branch, [(units, words held)] of each subject to tell, best first, the context cache's index
    as _context reads it), or None for nothing."""
    total = reader.subjects()
    if not total:
        return None
    limit = rules.common_limit(total)
    postings, counts, common = {}, {}, []
    for word in words:  # counted first, in SQLite: a common word's thousands of subjects never become Python rows
        counts[word] = reader.count(word)
        if counts[word] > limit:
            common.append(word)
        else:
            postings[word] = reader.holding(word) if counts[word] else []
    rare = [w for w, subjects in postings.items() if subjects]
    if not rare:
        return None  # a prompt made of words most of memory holds bears on nothing in particular
    for word in common:  # only where a rarer word is: reading every subject holding it costs too much
        postings[word] = reader.holding_among(word, rare)
    held = rules.held_words(postings)
    if not held:
        return None
    context = _context(repo_path)  # read once: the cwd's project, then what the session was told
    branch = current_branch(repo_path, cwd, problems, context=context)
    searched = reader.subjects([branch, MAIN] if branch else [MAIN])
    picked = rules.chosen(held, counts, reader.branches(list(held)), current=branch, searched=searched, total=total)
    if not picked:
        return None
    units = reader.units(picked)
    return branch, [(units.get(f, []), {w: rules.weight(counts[w], total) for w in held[f]}) for f in picked], context


def _context(repo_path: str) -> tuple[str, dict | None]:
    cdir = os.path.join(repo_path, ".git", "memgit", "context")
    return cdir, read_json(os.path.join(cdir, "index.json"))


def current_branch(repo_path: str, cwd: str, problems: list[str], *,
                   context: tuple[str, dict | None] | None = None) -> str | None:
    """The project branch of `cwd` as sync files a session started there; None outside every project.

    The context cache answers (and remembers the answer; `context`: its folder and index, when read
    already); without it, the identities the search index keeps of each project do.
    """
    from memgit.verbs.cwd_branch import of_cwd

    return of_cwd(os.path.join(repo_path, ".git", "memgit"), cwd, problems, index=context[1] if context else None)


def told_context(repo_path: str, branch: str | None, problems: list[str], *,
                 context: tuple[str, dict | None] | None = None) -> str:
    """The session-start context `branch` gets, from the context cache ("" when it is missing; `context`:
    its folder and index, when read already)."""
    cdir, index = context if context is not None else _context(repo_path)
    if index is None:
        return ""
    from memgit.core.briefing import assemble

    parts = {name: read_json(part_path(cdir, name)) for name in {branch or MAIN, MAIN}}
    project = next((p["name"] for p in index["projects"] if p["branch"] == branch), None)
    return assemble(repo=repo_path, branch=branch, project=project, project_part=parts.get(branch),
                    main_part=parts.get(MAIN), pending=0, search=index.get("search", False))
