"""MEMORY.md: a scope's learnings as topic clusters, every bullet linked to the notes behind it.

    ## Gotchas
    - [gotcha] `mise run lint` fails with … — 3 sessions: [2026-02-09 ad_a8171](sessions/2026/02/….md), … (tier: strong)

Topics are the learning types; a type with more than `SPLIT_AT` bullets is split further by the
word most of its bullets share among those some bullet quotes as code or a path ("## Gotchas: lint"). Every learning seen in two or more sessions
is listed; of those seen once, the `MAX_SINGLES` most recent per type (the rest stay in their
notes, which the file says). A learning a later one contradicts is listed under "## Superseded",
with what holds now and the session that said it: it is never lost, and never injected.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence

from memgit.consolidate.heuristic.graph import Cluster, code_spans, content_words
from memgit.core.vocab import TYPES

TOPICS = tuple((t.name, t.topic) for t in sorted(TYPES.values(), key=lambda t: t.topic_order))
MAX_LINKS = 5
MAX_SINGLES = 40
MAX_SUPERSEDED = 60
SPLIT_AT = 12
MAX_SPLITS = 6
TIER_LEGEND = "Tiers: emerging = 2 sessions, strong = 3-4, critical = 5 or more."
# Words every gotcha or command sentence has, and words that name no subject ("sure", "before"):
# a topic heading is a thing the bullets are about.
_GENERIC = frozenset(
    "fail fails failed fixed fixing editing edit error errors run runs running use used using with file files "
    "test tests command commands work works need needs make makes way new add added instead always never problem "
    "user users corrected agent sure before after other cause caused causes when then than into from that this "
    "these those which while what where there their they them about also only just like want wants should would "
    "could must does doesn done going being been have having here more most much many some same each every "
    "first last next still even because since until without within between through over under again once "
    "issue issues case cases thing things part parts change changes changed call calls called data value values "
    "prefers prefer default current currently instead rather".split()
    # the words of any language and any source tree: quoted as code, they still name no topic
    + "return returns null none true false self func function class const static public private void string "
    "list dict struct type types import export package module internal pkg src lib cmd main index util utils "
    "common core".split()
)


def link_label(when: str, session: str) -> str:
    """"2026-02-09 6f1c2e4a": the date and the id `memgit show` takes."""
    short = session.rsplit("/", 1)[-1][:8]
    return f"{when[:10]} {short}".strip()


def links(cluster: Cluster, prefix: str = "") -> str:
    notes, count = cluster.notes(), cluster.note_count()
    shown = [f"[{link_label(o.when, o.session)}]({prefix}{o.path})" for o in notes[:MAX_LINKS]]
    if count > MAX_LINKS:
        shown.append(f"+{count - MAX_LINKS} more")
    return ", ".join(shown)


def bullet(cluster: Cluster, prefix: str = "") -> str:
    n = cluster.support
    tail = f" (tier: {cluster.tier})" if cluster.tier else ""
    return f"- [{cluster.type}] {cluster.text} — {n} session{'s' if n != 1 else ''}: {links(cluster, prefix)}{tail}"


def superseded_bullet(cluster: Cluster, prefix: str = "") -> str:
    holder = cluster.superseded_by
    assert holder is not None
    newer = holder.latest
    return (f"- [{cluster.type}] ~~{cluster.text}~~ — said in {links(cluster, prefix)}; superseded by "
            f"\"{holder.text}\" ([{link_label(newer.when, newer.session)}]({prefix}{newer.path}))")


def split_topics(clusters: Sequence[Cluster]) -> list[tuple[str, list[Cluster]]]:
    """Group one type's clusters (strongest first) by shared words; the group with the strongest first.

    A topic word is shared by at least 3 bullets and at most half of them (a word in every
    bullet names no topic); what no topic takes is "other".
    """
    if len(clusters) <= SPLIT_AT:
        return [("", list(clusters))]
    words = {id(c): {w for w in content_words(c.text) - _GENERIC if len(w) >= 4 and w.isalpha()} for c in clusters}
    # A heading names a thing of the project: a word its bullets quote as code or a path ("metricstore",
    # "golangci", "checkpoint"), not a plain word they happen to share ("already", "return", "request").
    named = Counter(w for c in clusters for w in words[id(c)] & content_words(" ".join(code_spans(c.text))))
    left, topics = list(clusters), []
    while left and len(topics) < MAX_SPLITS:
        counts = Counter(w for c in left for w in words[id(c)])
        fitting = [(n, w) for w, n in counts.items() if 3 <= n <= len(clusters) // 2 and named[w] >= 1]
        if not fitting:
            break
        n, word = min(fitting, key=lambda nw: (-nw[0], nw[1]))
        topics.append((word, [c for c in left if word in words[id(c)]]))
        left = [c for c in left if word not in words[id(c)]]
    if not topics:
        return [("", list(clusters))]
    if left:
        topics.append(("other", left))
    position = {id(c): i for i, c in enumerate(clusters)}
    return sorted(topics, key=lambda t: position[id(t[1][0])])


def _by_purpose(clusters: Sequence[Cluster]) -> list[tuple[str, list[Cluster]]]:
    """Commands by what they do (build, test, lint…), the purpose of the strongest first."""
    from memgit.consolidate.heuristic.skills import categories

    if len(clusters) <= SPLIT_AT:
        return [("", list(clusters))]
    groups: dict[str, list[Cluster]] = {}
    for c in clusters:
        groups.setdefault(" and ".join(dict.fromkeys(categories(c))) or "other", []).append(c)
    return list(groups.items())


def sections(clusters: Sequence[Cluster], types: Sequence[tuple[str, str]] = TOPICS,
             render: Callable[[Cluster], str] = bullet, left_out: dict[str, int] | None = None,
             render_superseded: Callable[[Cluster], str] = superseded_bullet) -> list[str]:
    """The `## Topic` sections of the clusters that hold (strongest first within each), then the
    superseded ones. `left_out`: how many single-session learnings of each type were not given."""
    out = []
    holding = [c for c in clusters if c.superseded_by is None]
    for kind, title in types:
        of_type = [c for c in holding if c.type == kind]
        shared = [c for c in of_type if c.support >= 2]
        singles = [c for c in of_type if c.support < 2]
        older = len(singles) - MAX_SINGLES if len(singles) > MAX_SINGLES else 0
        older += (left_out or {}).get(kind, 0)
        kept = shared + singles[:MAX_SINGLES]
        split = _by_purpose if kind == "command" else split_topics
        for word, members in split(kept) if kept else ():
            heading = f"## {title}: {word}" if word else f"## {title}"
            out.append(heading + "\n\n" + "\n".join(render(c) for c in members))
        if older:
            out.append(f"_{older} older {title.lower()} seen in one session only are in their session notes "
                       "(sessions/)._")
    superseded = [c for c in clusters if c.superseded_by is not None]
    if superseded:
        lines = [render_superseded(c) for c in superseded[:MAX_SUPERSEDED]]
        if len(superseded) > MAX_SUPERSEDED:
            lines.append(f"- … and {len(superseded) - MAX_SUPERSEDED} more in their session notes")
        out.append("## Superseded\n\nLearnings a later session contradicted; what holds now follows each.\n\n"
                   + "\n".join(lines))
    return out
