"""`memgit forget`: find what a NOTE, SESSION or QUERY names, then remove it in one `forget(<scope>)`
commit per branch and consolidate again, so the learning leaves MEMORY.md and the summary too.

A learning lives in the session notes (`sessions/`); MEMORY.md, memory_summary.md and skills/ are
derived from them. So forgetting removes the learning's lines from every note that holds them and
runs the scope's consolidation, which reads the notes again (its cache follows each note's blob).
`git revert` of the forget commit puts the lines back; the next consolidation reads them again.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

from memgit.core import selector
from memgit.config import Config
from memgit.core import vocab
from memgit.core.ledger import format_message, one_line
from memgit.core.notes import LEARNINGS_HEADING, split_front_matter
from memgit.errors import NoMatch, UsageError
from memgit.store.blobs import read_blobs
from memgit.verbs import team_review
from memgit.verbs.remember import NOTES_DIR, Written, scope_label, writable

SESSIONS_DIR = "sessions"
_LEARNING = re.compile(rf"^[-*] \[(?P<type>{vocab.TYPE_PATTERN})\] (?P<text>.+)$")
MIN_SESSION_PREFIX = 6  # characters of a session id that may stand for it


@dataclass(slots=True)
class Drop:
    """What goes from one file: the whole file, or some of its learning lines."""

    branch: str
    path: str
    whole: bool
    lines: list[str] = field(default_factory=list)  # the learning lines removed, as written


@dataclass(slots=True)
class ForgetPlan:
    target: str
    how: str  # "note", "session" or "query"
    drops: list[Drop]
    heads: dict[str, str]  # the heads the plan was read at: the commit fails if one moved

    def as_dict(self) -> dict:
        return {"target": self.target, "how": self.how, "drops": [asdict(d) for d in self.drops]}


@dataclass(slots=True)
class Forgotten:
    commits: list[Written]
    consolidated: list = field(default_factory=list)  # memgit.verbs.consolidate_commit.ConsolidateResult


def drop_learnings(text: str, unwanted: Callable[[str, str], bool]) -> tuple[str, list[str]]:
    """Remove the lines of the `## Learnings` section whose (type, text) is unwanted; return (text, removed)."""
    out, removed, inside = [], [], False
    for line in text.splitlines(keepends=True):
        bare = line.strip()
        if bare == LEARNINGS_HEADING:
            inside = True
        elif inside and bare.startswith("#"):
            inside = False
        elif inside and (m := _LEARNING.match(bare)) and unwanted(m["type"], m["text"].strip()):
            removed.append(bare)
            continue
        out.append(line)
    return "".join(out), removed


def _files(repo, heads: dict[str, str]) -> list[tuple[str, str]]:
    """(branch, path) of every session note and pinned note on every scope's branch."""
    return [(b, p) for b in sorted(heads) for d in (SESSIONS_DIR, NOTES_DIR)
            for p in repo.list(heads[b], d) if p.endswith(".md")]


def _texts(repo, heads: dict[str, str]) -> dict[tuple[str, str], str]:
    """The text of every session note and pinned note on every scope's branch, read at once."""
    blobs = {(b, p): blob for b in sorted(heads) for d in (SESSIONS_DIR, NOTES_DIR)
             for p, blob in repo.blobs(heads[b], d).items() if p.endswith(".md")}
    contents = read_blobs(repo, set(blobs.values()))  # git cat-file, not a read per note
    return {key: contents[blob].decode("utf-8", "replace") for key, blob in blobs.items()}


def _by_path(repo, heads: dict[str, str], target: str) -> list[Drop]:
    branch, sep, path = target.partition(":")
    if sep and branch in heads:
        wanted = [(branch, path.strip("/"))]
    else:
        wanted = [(b, target.strip("/")) for b in heads]
    found = [Drop(b, p, True) for b, p in wanted if p.startswith((f"{SESSIONS_DIR}/", f"{NOTES_DIR}/"))
             and repo.exists(heads[b], p)]
    if found:
        return found
    name = target.rsplit("/", 1)[-1]
    return [Drop(b, p, True) for b, p in _files(repo, heads)
            if p.rsplit("/", 1)[-1] in (name, f"{name}.md")]


def _by_session(texts: dict[tuple[str, str], str], target: str) -> list[Drop]:
    """The notes of the one session `target` names (its id, or a prefix of at least
    MIN_SESSION_PREFIX characters only it has); a prefix several sessions share is an error."""
    notes_of: dict[str, list[tuple[str, str]]] = {}
    for (branch, path), text in texts.items():
        if not path.startswith(f"{SESSIONS_DIR}/"):
            continue
        try:
            session = str(split_front_matter(text)[0].get("session", ""))
        except ValueError:
            continue
        if session:
            notes_of.setdefault(session, []).append((branch, path))
    names = {s: (s, s.split("/", 1)[-1]) for s in notes_of}
    found = selector.matching(target, names)
    if not found or (len(target) < MIN_SESSION_PREFIX and target not in {n for s in found for n in names[s]}):
        return []
    if len(found) > 1:
        selector.pick(target, {s: names[s] for s in found}, what="session")  # raises AmbiguousSelector
    return [Drop(branch, path, True) for branch, path in notes_of[found[0]]]


def _by_query(texts: dict[tuple[str, str], str], query: str) -> list[Drop]:
    needle = query.casefold()
    drops = []
    for (branch, path), text in texts.items():
        if path.startswith(f"{NOTES_DIR}/"):
            if needle in _body(text).casefold():
                drops.append(Drop(branch, path, True))
            continue
        _, removed = drop_learnings(text, lambda _t, line: needle in line.casefold())
        if removed:
            drops.append(Drop(branch, path, False, removed))
    return drops


def _body(text: str) -> str:
    try:
        return split_front_matter(text)[1]
    except ValueError:  # front matter a person broke: the whole text is the note
        return text


def plan(cfg: Config, target: str) -> ForgetPlan:
    """What `forget TARGET` would remove: a note by path or file name, a session's notes, or the
    learnings (and pinned notes) whose text holds TARGET, tried in that order; of a teammate's (a
    shared project), what it would hide: a note's learnings by its path or session, a learning by its
    id (`memgit review --team`) or its words.

    Raises:
        UsageError: TARGET is empty.
        NoMatch: nothing matches it.
        NotARepo: there is no memory repository yet.
    """
    from memgit.verbs.inspect import open_repo

    target = target.strip()
    if not target:
        raise UsageError("say what to forget: a note's path, a session id, or words of the learning")
    with open_repo(cfg) as repo:
        heads = {b: h for b, h in repo.branches().items() if b == vocab.MAIN or b.startswith(vocab.PREFIX)}
        drops, how = _by_path(repo, heads, target), "note"
        # A teammate's learning (a shared project) is hidden here, never changed in their ref: by its
        # note's path, its session, its id (`memgit review --team`) or its words.
        team = team_review.teammate_notes(repo) if not drops else {}
        if not drops:
            drops = [Drop(b, p, False, lines) for b, p, lines in team_review.named(team, target)]
        if not drops:
            texts = _texts(repo, heads)
            drops, how = _by_session({**texts, **team}, target), "session"
            drops = _hidden_whole(drops, team)
            if not drops:
                drops, how = _by_query(texts, target), "query"
                drops += [Drop(b, p, False, lines) for b, p, lines in team_review.matching(team, target)]
    if not drops:
        raise NoMatch(f"nothing matches {target!r}: no note of that path or name, no session of that id, "
                      "no learning or pinned note holding those words (`memgit search WORDS` finds them, "
                      "`memgit sessions` lists the sessions)")
    return ForgetPlan(target, how, drops, {d.branch: heads[d.branch] for d in drops})


def _hidden_whole(drops: list[Drop], team: dict[tuple[str, str], str]) -> list[Drop]:
    """The drops with a teammate's note named whole turned into its learnings, each to hide."""
    out = []
    for d in drops:
        if not team_review.is_teammates(d.path):
            out.append(d)
        elif lines := team_review.learning_lines(team[(d.branch, d.path)]):
            out.append(Drop(d.branch, d.path, False, lines))
    return out


def forget_in(repo, drops: list[Drop], heads: dict[str, str], what: str) -> list[Written]:
    """Commit the drops, one `forget(<scope>)` commit per branch, each on the head it was planned at.

    Raises:
        ConflictError: a branch moved since the plan (run forget again).
        SecretFound: the gate refused a commit (a note that already held one); nothing of it was written.
    """
    done = []
    for branch in sorted({d.branch for d in drops}):
        mine = [d for d in drops if d.branch == branch]
        changes: dict[str, bytes | None] = {}
        changes.update(team_review.hiding(repo, heads[branch], [(d.path, d.lines) for d in mine
                                                                if team_review.is_teammates(d.path)]))
        for d in mine:
            if team_review.is_teammates(d.path):
                continue
            if d.whole:
                changes[d.path] = None
                continue
            gone = set(d.lines)
            text = (repo.read(heads[branch], d.path) or b"").decode("utf-8", "replace")
            changes[d.path] = drop_learnings(text, lambda t, x: f"- [{t}] {x}" in gone or f"* [{t}] {x}" in gone)[0].encode()
        body = "\n".join(line for d in mine for line in d.lines)
        scope = scope_label(branch)
        message = format_message("forget", scope, one_line(what, 100), body=body,
                                 trailers=[("Memgit-Forget", d.path) for d in mine])
        sha = repo.commit(branch, changes, message, expected=heads[branch])
        done.append(Written(sha, branch, scope, ", ".join(sorted(changes)), message.split("\n", 1)[0]))
    return done


def forget(cfg: Config, chosen: ForgetPlan) -> Forgotten:
    """Carry out a plan, then consolidate the scopes it touched (and main, which reads them).

    Raises:
        ConflictError: a branch moved since the plan was made.
        SecretFound, NotARepo, LockHeld: as the commits and the lock raise them.
    """
    with writable(cfg) as repo:
        what = {"note": "", "session": "session ", "query": "learnings matching "}[chosen.how] + chosen.target
        commits = forget_in(repo, chosen.drops, chosen.heads, what)
        hid = any(team_review.is_teammates(d.path) for d in chosen.drops)  # no note changed: nothing is pending
        return Forgotten(commits, reconsolidate(repo, cfg, {c.branch for c in commits}, force=hid))


def reconsolidate(repo, cfg: Config, branches: set[str], *, force: bool = False) -> list:
    """Consolidate the scopes whose notes a person changed, so MEMORY.md and the summary follow at once."""
    from memgit.verbs import consolidate

    return consolidate.run(repo, cfg, branches=sorted(b for b in branches if b.startswith(vocab.PREFIX)),
                           include_global=True, force=force)
