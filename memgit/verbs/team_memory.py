"""A shared project's memory with the teammates' notes in it, for its consolidation (issue 22).

For a project shared with a team, each teammate's project of the same identity (their PROJECT.md
meets this one: the normalised remote URL), as last pulled, is read at its fetched head; their
session notes join the reader's under `team/<person>/…` (memgit.consolidate.team). The Memory is
cached under .git/memgit/ like a project's own, keyed by each note's blob, so a pull that brought
a few notes reads those.

The reader's own decisions about the team's learnings are files on the project branch, so they are
commits like any other (revertible, and never sent: a share carries sessions/ and notes/ only):
`team/accepted.md` (`memgit review --team`) and `team/hidden.md` (`memgit forget` of a teammate's
learning). Each line is `- <key> <person> [type] text`.
"""

from __future__ import annotations

import hashlib
import logging

from memgit.config import Config
from memgit.consolidate import team as rules
from memgit.consolidate.heuristic import cache as memory_cache
from memgit.consolidate.heuristic import view
from memgit.consolidate.heuristic.memory import Memory
from memgit.core import join as identity
from memgit.core import notes as notes_mod
from memgit.core import scopes
from memgit.core.vocab import PREFIX
from memgit.store import team as store
from memgit.store.blobs import read_blobs
from memgit.verbs import joining

log = logging.getLogger("memgit.verbs.team_memory")
ACCEPTED, HIDDEN = "team/accepted.md", "team/hidden.md"
HIDING = "team hidden"  # the Memory's record of what the reader had hidden when it was last brought up to date


def mates(repo, branch: str, head: str) -> tuple[str, list[tuple[str, str, str]]] | None:
    """(the reader's name, [(person, local ref, head)]) of the teammates' projects that are this shared
    project; None when it is shared with no team."""
    slug = scopes.branch_slug(branch)
    teams = [t for t in store.teams(repo) if slug in t.shared]
    if not teams:
        return None
    mine = joining.project(repo, branch, head)
    found: dict[str, tuple[str, str, str]] = {}
    for t in teams:
        for (person, theirs_slug), sha in sorted(store.fetched(repo, t.name).items()):
            if person == t.person or person in found:
                continue
            theirs = joining.project(repo, PREFIX + theirs_slug, sha)
            if mine and theirs and identity.overlaps(mine, theirs):
                found[person] = (person, store.local_ref(t.name, person, theirs_slug), sha)
    return teams[0].person, [found[p] for p in sorted(found)]


def keys(repo, rev: str, path: str) -> set[str]:
    """The keys a `team/*.md` file of the branch lists."""
    text = (repo.read(rev, path) or b"").decode("utf-8", "replace")
    return {line.split()[1] for line in text.splitlines() if line.startswith("- ") and len(line.split()) > 1}


def shared_memory(repo, cfg: Config, branch: str, head: str) -> tuple[Memory, rules.Team] | None:
    """The branch's memory with its teammates' notes, and who is who; None when it has no teammate
    (then the project's own memory is the one: memgit.verbs.consolidate_read.scope_memory). The
    caller closes the Memory.

    A note is read again when its blob changed; a teammate's also when what the reader hid changed
    what of it is read: its version names the hidden learnings it held (`<blob>:<key>,<key>`), and
    the learnings it holds are in the Memory, so a forget reads the few notes holding that learning.
    """
    team = team_of(repo, cfg, branch, head)
    if team is None:
        return None
    hidden = keys(repo, head, HIDDEN)
    wanted = {p: (b, None) for p, b in repo.blobs(head, "sessions").items() if p.endswith(".md")}
    for m in team.mates:
        wanted.update({rules.note_path(m.person, p): (b, m.person) for p, b in _notes_at(repo, m.head).items()})
    memory = memory_cache.open_memory(cfg.state_dir, f"{branch} with its team")
    known = memory.versions()
    fresh = not len(memory)
    for path in sorted(set(known) - set(wanted)):
        memory.remove(path)
    hiding = hashlib.sha1(" ".join(sorted(hidden)).encode()).hexdigest()
    again = set() if fresh or memory.get(HIDING) == hiding else _hidden_changed(memory, known, hidden)
    changed = {path: v for path, v in wanted.items() if known.get(path, "").split(":", 1)[0] != v[0] or path in again}
    contents = read_blobs(repo, {blob for blob, _ in changed.values()})  # at once: git cat-file
    added = []
    for path, (blob, person) in sorted(changed.items()):
        note = _parsed(path, contents[blob])
        if note is None:
            memory.remove(path)
            continue
        version = blob
        if person and hidden:  # what the reader hid of this teammate's is not read
            held = [(x, rules.hidden_key(person, x.type, x.text)) for x in note.learnings]
            note.learnings = [x for x, key in held if key not in hidden]
            if applied := sorted({key for _, key in held if key in hidden}):
                version = f"{blob}:{','.join(applied)}"
        added.append((path, version, note))
    if fresh:  # all at once: the token order is taken from them
        memory.build_notes(added)
    else:
        for path, version, note in added:
            memory.add(path, note, version=version)
    memory.set(HIDING, hiding)
    return memory, team


def team_of(repo, cfg: Config, branch: str, head: str) -> rules.Team | None:
    """Who is who in a shared project, and what the reader accepted; None when it has no teammate."""
    found = mates(repo, branch, head)
    if not found or not found[1]:
        return None
    me, people = found
    return rules.Team(me, tuple(rules.Mate(p, ref, sha, len(_notes_at(repo, sha))) for p, ref, sha in people),
                      frozenset(keys(repo, head, ACCEPTED)), gated=cfg.team_review == "new")


_LISTED: dict[tuple[str, str], dict[str, str]] = {}  # (repository, commit) -> its notes: a commit never changes


def _notes_at(repo, sha: str) -> dict[str, str]:
    """The session notes (path -> blob) of a teammate's commit, listed once per process (a pull lists
    them for the consolidation, then for the search index)."""
    key = (str(repo.git_dir), sha)
    if key not in _LISTED:
        if len(_LISTED) > 64:
            _LISTED.clear()
        _LISTED[key] = {p: b for p, b in repo.blobs(sha, "sessions").items() if p.endswith(".md")}
    return _LISTED[key]


def _hidden_changed(memory: Memory, known: dict[str, str], hidden: set[str]) -> set[str]:
    """The teammates' notes to read again since what the reader hid changed: those holding a learning
    now hidden, and those that held one no longer hidden."""
    again = {path for path, version in known.items() if ":" in version
             and not set(version.split(":", 1)[1].split(",")) <= hidden}
    again.update(path for path, kind, text in view.members_under(memory.db, rules.TEAM_DIR)
                 if rules.hidden_key(rules.person_of(path), kind, text) in hidden)
    return again


def searchable(repo, cfg: Config, branch: str, head: str) -> dict[str, tuple[str, frozenset[tuple[str, str]]]] | None:
    """The teammates' notes of a shared project that the prompt hook and search may read, each
    (`team/<person>/<path>`) with its blob and the learnings of it they may tell ((type, text), the
    briefing's rule: memgit.consolidate.team.Team.admitted); None when the project has no teammate."""
    team = team_of(repo, cfg, branch, head)
    if team is None:
        return None
    if team.gated and not team.accepted:
        return {}  # nothing of the teammates' is told before the reader accepts it
    memory, team = shared_memory(repo, cfg, branch, head)
    with memory:
        kept = team.admitted(memory)
        versions = memory.versions()  # its blob, before the hidden learnings it held
    return {path: (versions[path].split(":", 1)[0], frozenset(learned)) for path, learned in kept.items()}


def told(memory: Memory, team: rules.Team) -> list[tuple[str, str, str, str]]:
    """The teammates' learnings the reader may be told, as the LLM consolidator takes them: (person,
    `team/<person>/<note>`, type, text)."""
    return [(rules.person_of(path), path, kind, text) for path, learned in sorted(team.admitted(memory).items())
            for kind, text in sorted(learned)]


def _parsed(path: str, data: bytes):
    try:
        return notes_mod.parse_note(data.decode("utf-8", "replace"))
    except ValueError:
        log.warning("%s is not a session note; left out of the consolidation", path)
        return None
