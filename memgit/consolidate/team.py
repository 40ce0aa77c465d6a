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

from memgit.consolidate.heuristic import view
from memgit.consolidate.heuristic.graph import Cluster, normalise
from memgit.consolidate.heuristic.memory_md import MAX_LINKS, link_label
from memgit.core.vocab import TEAM_DIR, UNREVIEWED
from memgit.core.vocab import teammate as person_of

_THE_USER = ("The user prefers ", "The user likes ", "The user dislikes ", "The user wants ", "The user would rather ")


def note_path(person: str, path: str) -> str:
    """Where a teammate's note sits in the shared project's memory."""
    return f"{TEAM_DIR}/{person}/{path}"


def learning_key(type_: str, text: str) -> str:
    """A learning as a review names it, whoever said it: its type and normalised words."""
    return _key(type_, normalise(text))


def _key(type_: str, normalised: str) -> str:
    return hashlib.sha256(f"{type_}\0{normalised}".encode()).hexdigest()[:16]


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

    def theirs_alone(self, c: Cluster) -> bool:
        """A preference one teammate alone holds: theirs, never the reader's, nothing to accept."""
        return c.type == "preference" and self.teammates_only(c) and len(self.people(c)) < 2

    def unreviewed(self, c: Cluster) -> bool:
        """A learning only teammates hold that the reader has not accepted (review "new")."""
        return self.gated and self.teammates_only(c) and not self.theirs_alone(c) and not self.accepted_cluster(c)

    def keeps(self, c: Cluster) -> bool:
        """Whether the reader may be told this cluster (the briefing, the prompt hook, search): a single
        teammate's preference never; one only teammates hold, once accepted (review "new")."""
        return not (self.theirs_alone(c) or self.unreviewed(c))

    def briefable(self, clusters: Sequence[Cluster]) -> list[Cluster]:
        """The clusters the briefing may tell (`keeps`)."""
        return [c for c in clusters if self.keeps(c)]

    def pending(self, clusters: Sequence[Cluster]) -> list[Cluster]:
        """What `memgit review --team` asks about: holding learnings only teammates hold, not yet
        accepted (a single teammate's preference is theirs: nothing to accept)."""
        return [c for c in clusters if c.superseded_by is None and self.teammates_only(c)
                and not self.theirs_alone(c) and not self.accepted_cluster(c)]

    def admitted(self, memory) -> dict[str, set[tuple[str, str]]]:
        """Each teammate's note of `memory` (a heuristic Memory holding their notes under
        `team/<person>/…`) with the learnings of it the reader may be told, as (type, text): those of
        the clusters `keeps` keeps that the reader accepted (review "new"; one the reader holds too is
        found in their own note) or all of them (review "none"). Only those clusters are read: the
        accepted ones; with "none" the preferences (the rest is kept whole)."""
        db = memory.db
        kept: dict[str, set[tuple[str, str]]] = {}
        if self.gated:  # a group's norm is its members' normalised words (a command's: its key)
            leaders = {leader for leader, kind, words in view.group_texts(db, whole="command")
                       if (learning_key(kind, words) if kind == "command" else _key(kind, words)) in self.accepted
                       } if self.accepted else set()
        else:
            for path, kind, text in view.members_under(db, TEAM_DIR, but="preference"):
                kept.setdefault(path, set()).add((kind, text))
            leaders = view.leaders_with(db, TEAM_DIR, "preference")
        for c in view.clusters_of(db, leaders):
            if (self.gated or c.type == "preference") and self.keeps(c):
                for o in c.occurrences:
                    if person_of(o.path):
                        kept.setdefault(o.path, set()).add((o.type, o.text))
        return kept

    def own(self, infos):
        """The reader's own notes (the briefing's dates and latest work are theirs)."""
        return [(path, info) for path, info in infos if person_of(path) is None]

    # -- MEMORY.md ----------------------------------------------------------------------------------

    def text(self, c: Cluster) -> str:
        people = self.people(c)
        if c.type == "preference" and len(people) == 1 and people[0] != self.me:
            if c.text.startswith(_THE_USER):  # "The user prefers tabs." -> "ana prefers tabs."
                return people[0] + c.text[len("The user"):]
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
        if self.unreviewed(c):  # search leaves it out (memgit.core.search) until the reader accepts it
            who += f", {UNREVIEWED}"
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
