"""memory_summary.md: the briefing a new session gets, within the token budget.

What a senior engineer would hand a newcomer, in this order: how to build, test and run the
project (one line per purpose: the most recent form that worked on the whole project, without a
display pipe when one ran without), the person's pinned notes,
then the learnings that hold — preferences and conventions, gotchas, decisions, facts — strongest
and most recent first, each a complete sentence; the latest sessions; where to look deeper.
A learning a later one contradicted is never in it (MEMORY.md lists it as superseded).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from memgit.extract.heuristic.commands import displayed, partial
from memgit.extract.heuristic.filters import problem
from memgit.core.scopes import Project
from memgit.consolidate._budget import Document, Line
from memgit.consolidate.heuristic import skills as skills_mod
from memgit.consolidate.heuristic.graph import Cluster, code_spans, tier
from memgit.consolidate.heuristic.memory import NoteInfo
from memgit.consolidate.heuristic.memory_md import link_label
from memgit.consolidate.heuristic.scope import CORRECTION, GLOBAL_TYPES, MIN_PROJECTS
from memgit.core.vocab import MAIN, PREFIX, TYPES

# The types with a section of their own (in the order of the injected context) and the section;
# how many of each type the summary holds at most: no type fills it.
_SECTION = {name: t.section for name, t in sorted(TYPES.items(), key=lambda nt: nt[1].rank) if t.section}
CAPS = {name: t.summary_cap for name, t in TYPES.items()}
# A correction seen once was about one task: the most recent few tell a newcomer how the person
# reacts; the rest stay in MEMORY.md.
MAX_ONE_OFF_CORRECTIONS = 2
MAX_PINNED_CHARS = 800  # of one pinned note in the summary; MEMORY.md links the whole note
MIN_PINNED_CHARS = 160
RECENT_SESSIONS = 5
PURPOSES = ("test", "build", "lint", "typecheck", "format", "run", "ci", "install")
PROJECT_SECTIONS = ("How to build and test", "Pinned notes", *dict.fromkeys(_SECTION.values()),
                    "Recent sessions", "Where to look deeper")
GLOBAL_SECTIONS = ("Pinned notes", "Preferences", "Across projects", "Projects", "Where to look deeper")


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def sentence(c: Cluster) -> str | None:
    """A learning as a summary line: a complete sentence, with its support when it recurs."""
    if problem(c.text) and c.type != "command":
        return None
    strength = f" ({plural(c.support, 'session')}{', ' + c.tier if c.tier else ''})" if c.support >= 2 else ""
    return f"- {c.text}{strength}"


def one_line(text: str, limit: int) -> str:
    """A person's note as one line: headings' #s dropped, whitespace collapsed, cut at a word."""
    from memgit.core.notes import split_front_matter

    try:
        _, body = split_front_matter(text)
    except ValueError:
        body = text
    lines = []
    for line in body.splitlines():
        part = line.strip()
        if part.startswith("#"):  # a heading runs into the text after it: "Title: text"
            part = part.lstrip("#").strip()
            part = part if not part or part[-1] in ".:!?" else part + ":"
        lines.append(part)
    flat = " ".join(" ".join(lines).split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def pinned_lines(pinned: Sequence[tuple[str, str]], doc: Document) -> list[str]:
    """Offer every pinned note (full, then shorter); return the paths that did not fit."""
    left = []
    share = max(MIN_PINNED_CHARS, doc.max_chars // 2 // max(1, len(pinned)))
    for i, (path, text) in enumerate(sorted(pinned)):
        for limit in (min(MAX_PINNED_CHARS, share), MIN_PINNED_CHARS):
            if doc.offer(Line("Pinned notes", f"- **{path}**: {one_line(text, limit)}", (i,))):
                break
        else:
            left.append(path)
    return left


def purposes(clusters: Sequence[Cluster]) -> list[tuple[tuple[str, ...], Cluster]]:
    """One [command] per purpose (test, lint, …): the most recent form that worked on the whole
    project (a run of one file or test only when nothing else is known), without a display pipe
    when one ran without. A chain is kept only for a purpose no single command covers."""
    latest: dict[tuple[str, ...], Cluster] = {}
    for c in clusters:
        if c.type != "command" or c.superseded_by is not None:
            continue
        kinds = skills_mod.categories(c) or ("other",)
        held = latest.get(kinds)
        if held is None or _preferred(c) > _preferred(held):
            latest[kinds] = c
    single = {kinds[0] for kinds in latest if len(kinds) == 1}
    kept = [(kinds, c) for kinds, c in latest.items() if len(kinds) == 1 or not set(kinds) <= single]
    order = [*PURPOSES, "other"]
    return sorted(kept, key=lambda kc: (len(kc[0]) > 1, [order.index(k) if k in order else len(order) for k in kc[0]]))


def _clean(text: str) -> tuple[bool, bool]:
    """(on the whole project, without a display pipe) for a [command]'s text."""
    spans = code_spans(text)
    return (not any(partial(s) for s in spans), not any(displayed(s) for s in spans))


def _preferred(c: Cluster) -> tuple:
    """Whole project over part of it, then without a display pipe (`| tail`), then the latest."""
    return (*_clean(_form(c)), c.recency, -c.support, c.text)


def _form(c: Cluster) -> str:
    """The wording of a [command] to show: its latest form, of the cleanest forms it was seen in."""
    best = max(c.occurrences, key=lambda o: (*_clean(o.text), o.when, o.text))
    return best.text


def _capped(clusters: Sequence[Cluster], types: Collection[str]) -> list[Cluster]:
    """Strongest first, at most CAPS[type] of each type; at equal support a rule the person stated
    comes before their correction of one task, and of those only the latest few."""
    taken: Counter[str] = Counter()
    out = []
    ordered = sorted(clusters, key=lambda c: (-c.support, c.text.startswith(CORRECTION)))  # stable: recency stays
    for c in ordered:
        if c.type not in types or c.superseded_by is not None or taken[c.type] >= CAPS[c.type]:
            continue
        if c.text.startswith(CORRECTION) and c.support < 2:
            if taken[CORRECTION] >= MAX_ONE_OFF_CORRECTIONS:
                continue
            taken[CORRECTION] += 1
        taken[c.type] += 1
        out.append(c)
    return out


def _type_order(kind: str) -> int:
    return TYPES[kind].topic_order  # as MEMORY.md orders its topics


def project_summary(label: str, scope: str, project: Project | None, notes: Sequence[tuple[str, NoteInfo]],
                    clusters: Sequence[Cluster], found: Sequence[skills_mod.Skill],
                    pinned: Sequence[tuple[str, str]], budget: int) -> str:
    doc = Document(PROJECT_SECTIONS, budget)
    dates = sorted(info.when[:10] for _, info in notes if info.when)
    span = f", {dates[0]} to {dates[-1]}" if dates else ""
    branch = project.branch if project else f"{PREFIX}{scope}"
    holding = [c for c in clusters if c.superseded_by is None]
    doc.offer(Line("", f"# {label}: what memory holds", (0,)))
    not_fitting = pinned_lines(pinned, doc)  # the person's own words come first
    doc.offer(Line("Where to look deeper", f"- All learnings by topic, each linked to its sessions, and what was "
                                           f"superseded: `memgit show {branch}:MEMORY.md`", (0,)))
    doc.offer(Line("Where to look deeper", "- A session's full note: `memgit show <id>` (the ids below)", (1,)))
    if not_fitting:
        doc.offer(Line("Where to look deeper", "- More pinned notes: " + ", ".join(not_fitting), (2,)))
    doc.offer(Line("", f"{plural(len(notes), 'session')}{span}; {plural(len(holding), 'learning')} "
                       f"(branch {branch} of the memory repository).", (1,)))
    for i, (_, c) in enumerate(purposes(clusters)):
        doc.offer(Line("How to build and test", f"- {_form(c)}", (i,)))
    for i, c in enumerate(_capped(holding, _SECTION)):
        if line := sentence(c):
            doc.offer(Line(_SECTION[c.type], line, (i,)))
    for i, s in enumerate(found):
        doc.offer(Line("Where to look deeper", f"- Skill `{s.name}` ({s.title.lower()}): "
                                               f"`memgit show {branch}:skills/{s.name}/SKILL.md`", (3, i)))
    recent = sorted(notes, key=lambda pn: (pn[1].when, pn[0]), reverse=True)[:RECENT_SESSIONS]
    for i, (_, info) in enumerate(recent):
        doc.offer(Line("Recent sessions", f"- {link_label(info.when, info.session)}: {_clip(info.title, 90)}", (i,)))
    return doc.text()


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- across projects (main) ----------------------------------------------------------------------


def project_label(branch: str) -> str:
    """How the global summary names a scope: its project's slug ("(no project)" for main's own sessions)."""
    return "(no project)" if branch == MAIN else branch.removeprefix(PREFIX)


def _profile_line(summary: str) -> str:
    """The first build/test line of a project's summary."""
    section = False
    for line in summary.splitlines():
        if line.startswith("## "):
            section = line[3:].strip() in ("How to build and test", "Profile")
        elif section and line.startswith("- ") and not line.startswith("- Repository:"):
            return line[2:].strip()
    return ""


def global_summary(projects: Mapping[str, tuple[str, int]], shared: Sequence[Cluster],
                   pinned: Sequence[tuple[str, str]], budget: int) -> str:
    """`projects`: branch -> (its summary, its number of notes); `shared`: the clusters that transfer."""
    doc = Document(GLOBAL_SECTIONS, budget)
    doc.offer(Line("", "# Across projects: what memory holds", (0,)))
    not_fitting = pinned_lines(pinned, doc)
    doc.offer(Line("Where to look deeper", "- What transfers, with its notes: `memgit show main:MEMORY.md`", (0,)))
    doc.offer(Line("Where to look deeper", "- One project's memory: `memgit show projects/<slug>:memory_summary.md` "
                                           "(or `:MEMORY.md`)", (1,)))
    if not_fitting:
        doc.offer(Line("Where to look deeper", "- More pinned notes: " + ", ".join(not_fitting), (2,)))
    scopes = sum(1 for _, n in projects.values() if n)
    doc.offer(Line("", f"{plural(len(shared), 'learning')} that hold{'s' if len(shared) == 1 else ''} in every project, from "
                       f"{plural(scopes, 'project')} (branch main of the memory repository).", (1,)))
    for i, c in enumerate(_capped(shared, GLOBAL_TYPES)):
        if problem(c.text):
            continue
        where = (f" (seen in {', '.join(project_label(s) for s in c.sources)})" if len(c.sources) >= MIN_PROJECTS else "")
        section = "Preferences" if c.type == "preference" and len(c.sources) < MIN_PROJECTS else "Across projects"
        doc.offer(Line(section, f"- {c.text}{where}", (_type_order(c.type), i)))
    active = sorted((b for b in projects if projects[b][1]), key=lambda b: (-projects[b][1], b))
    for i, branch in enumerate(active):
        summary, count = projects[branch]
        profile = _profile_line(summary)
        doc.offer(Line("Projects", f"- {project_label(branch)}: {plural(count, 'session')}"
                                   + (f"; {_clip(profile, 120)}" if profile else ""), (i,)))
    return doc.text()


def global_bullet(c: Cluster) -> str:
    where = "; ".join(
        f"{project_label(src)}: " + ", ".join(f"`{o.path}`" for o in c.notes(src)[:2])  # path: "<branch>:<note>"
        + (f" +{c.note_count(src) - 2}" if c.note_count(src) > 2 else "")
        for src in c.sources
    )
    t = f", tier: {tier(c.support)}" if tier(c.support) else ""
    return (f"- [{c.type}] {c.text} — {plural(len(c.sources), 'project')} ({', '.join(project_label(s) for s in c.sources)}), "
            f"{plural(c.support, 'session')}{t}. Notes: {where}")
