"""A shared project's consolidation with the teammates' notes (issue 22): whose each learning is.

The teammates' session notes join the reader's in one `Memory`, each under `team/<person>/<its path>`,
so that the rules that merge and supersede learnings work across people as within one person's
memory (contradictions resolve by time). Then:

- support counts people as well as sessions: "3 sessions, 2 people";
- a preference is a person's: one only a teammate holds is shown as theirs ("ana prefers: …") and
  never reaches the reader's briefing; held by two people or more, it is the team's convention;
- with review "new", a learning only teammates hold reaches the briefing once the reader accepted it
  (`memgit review --team`); the reader's own learnings are never gated;
- MEMORY.md says who said what, and which commit of each teammate's ref it read.

Pure: the Team value carries the reader's name, the keys accepted, and the heads read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from memgit.consolidate.heuristic.graph import Cluster, normalise
from memgit.consolidate.heuristic.memory_md import MAX_LINKS, link_label

TEAM_DIR = "team"


def note_path(person: str, path: str) -> str:
    """Where a teammate's note sits in the shared project's memory."""
    return f"{TEAM_DIR}/{person}/{path}"


def person_of(path: str) -> str | None:
    """The teammate a note in the memory is from; None for the reader's own."""
    if not path.startswith(TEAM_DIR + "/"):
        return None
    return path.split("/", 2)[1]


def learning_key(type_: str, text: str) -> str:
    """A learning as a review names it, whoever said it: its type and normalised words."""
    return hashlib.sha256(f"{type_}\0{normalise(text)}".encode()).hexdigest()[:16]


def hidden_key(person: str, type_: str, text: str) -> str:
    """A teammate's learning as the reader's forget names it: theirs only."""
    return hashlib.sha256(f"{person}\0{type_}\0{normalise(text)}".encode()).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Mate:
    person: str
    ref: str  # where the teammate's notes were read: refs/memgit/team/<team>/<person>/projects/<slug>
    head: str  # the commit read
    notes: int


@dataclass(frozen=True, slots=True)
class Team:
    me: str
    mates: tuple[Mate, ...]
    accepted: frozenset[str] = frozenset()  # learning_key()s the reader accepted
    gated: bool = True  # [team] review = "new"

    def people(self, c: Cluster) -> list[str]:
        """Who holds a learning: the reader by name, and each teammate."""
        return sorted({person_of(p) or self.me for p in c.paths})

    def teammates_only(self, c: Cluster) -> bool:
        return all(person_of(p) for p in c.paths)

    def accepted_cluster(self, c: Cluster) -> bool:
        return any(learning_key(o.type, o.text) in self.accepted for o in c.occurrences)

    def briefable(self, clusters: Sequence[Cluster]) -> list[Cluster]:
        """The clusters the briefing may tell: a single teammate's preference never; one only
        teammates hold, once accepted (review "new")."""
        kept = []
        for c in clusters:
            if self.teammates_only(c):
                if c.type == "preference" and len(self.people(c)) < 2:
                    continue
                if self.gated and not self.accepted_cluster(c):
                    continue
            kept.append(c)
        return kept

    def pending(self, clusters: Sequence[Cluster]) -> list[Cluster]:
        """What `memgit review --team` asks about: holding learnings only teammates hold, not yet
        accepted (a single teammate's preference is theirs: nothing to accept)."""
        return [c for c in clusters if c.superseded_by is None and self.teammates_only(c)
                and not (c.type == "preference" and len(self.people(c)) < 2) and not self.accepted_cluster(c)]

    def own(self, infos):
        """The reader's own notes (the briefing's dates and latest work are theirs)."""
        return [(path, info) for path, info in infos if person_of(path) is None]

    # -- MEMORY.md ----------------------------------------------------------------------------------

    def text(self, c: Cluster) -> str:
        people = self.people(c)
        if c.type == "preference" and len(people) == 1 and people[0] != self.me:
            return f"{people[0]} prefers: {c.text}"
        return c.text

    def links(self, c: Cluster, prefix: str = "") -> str:
        notes, count = c.notes(), c.note_count()
        shown = []
        for o in notes[:MAX_LINKS]:
            who = person_of(o.path)
            shown.append(f"[{who + ' ' if who else ''}{link_label(o.when, o.session)}]({prefix}{o.path})")
        if count > MAX_LINKS:
            shown.append(f"+{count - MAX_LINKS} more")
        return ", ".join(shown)

    def bullet(self, c: Cluster, prefix: str = "") -> str:
        people = self.people(c)
        n = c.support
        who = f", {len(people)} people" if len(people) > 1 else "" if people == [self.me] else f", {people[0]}"
        tail = f" (tier: {c.tier})" if c.tier else ""
        return f"- [{c.type}] {self.text(c)} — {n} session{'s' if n != 1 else ''}{who}: {self.links(c, prefix)}{tail}"

    def superseded_bullet(self, c: Cluster, prefix: str = "") -> str:
        holder = c.superseded_by
        assert holder is not None
        newer = holder.latest
        by = person_of(newer.path) or self.me
        return (f"- [{c.type}] ~~{self.text(c)}~~ — said by {', '.join(self.people(c))} in {self.links(c, prefix)}; "
                f"superseded by {by}: \"{holder.text}\" ([{link_label(newer.when, newer.session)}]({prefix}{newer.path}))")

    def section(self) -> str:
        lines = [f"- {m.person}: {m.notes} session note(s) at `{m.ref}` {m.head[:12]} "
                 f"(`git show {m.head[:12]}:sessions/…`)" for m in self.mates]
        gate = ("a learning only teammates hold reaches the briefing once you accept it (`memgit review --team`)"
                if self.gated else "the team is trusted: its learnings reach the briefing as yours do ([team] review = \"none\")")
        return ("## Team\n\n"
                f"Read with the notes of {len(self.mates)} teammate(s), as last pulled; `{TEAM_DIR}/<person>/…` links "
                f"are their notes at the commit named here. You are {self.me}; {gate}.\n\n" + "\n".join(lines))
