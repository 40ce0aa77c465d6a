"""The offline consolidator: MEMORY.md, memory_summary.md and skills recomputed from all notes of a scope.

Pure and deterministic: the same notes give the same bytes, whatever their order, so consolidating
again after nothing changed commits nothing, and after a revert the result is exactly what the
remaining notes say. No clock: recency comes from the notes' own times.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

from ..model import Consolidation, Note
from ..scopes import Project
from . import _memory_md, skills as skills_mod
from ._budget import Document, Line
from ._clusters import Cluster, cluster, code_spans, occurrences, rank_key, recency, tier
from ._memory_md import TIER_LEGEND, TOPICS, link_label

CONSOLIDATOR = "heuristic/1"
# What the summary holds at most of each type (the profile lists commands and conventions).
SUMMARY_CAPS = {"preference": 8, "gotcha": 8, "decision": 5, "fact": 5, "convention": 6, "command": 6}
COMMANDS_PER_KIND = 2
MAX_PINNED_CHARS = 800  # of one pinned note in the summary; MEMORY.md links the whole note
MIN_PINNED_CHARS = 160
RECENT_SESSIONS = 5
GLOBAL_TYPES = ("preference", "convention", "gotcha", "command")
GLOBAL_MIN_PROJECTS = 2
MAIN = "main"

_PROJECT_SECTIONS = ("Profile", "Pinned notes", "Key learnings", "Recent sessions", "Where to look deeper")
_GLOBAL_SECTIONS = ("Pinned notes", "Across projects", "Projects", "Where to look deeper")
_KIND_LABELS = {"test": "Test", "build": "Build", "lint": "Lint", "typecheck": "Type-check",
                "format": "Format", "run": "Run", "ci": "CI locally", "install": "Set up"}


def consolidate(notes: Sequence[tuple[str, Note]], *, scope: str, project: Project | None,
                pinned: Sequence[tuple[str, str]], budget_tokens: int) -> Consolidation:
    """Consolidate one project's notes (path, Note) and pinned notes (path, text)."""
    label = project.name if project else scope
    clusters = cluster(occurrences(notes))
    found = skills_mod.find(clusters, slug=scope)
    skill_files = {s.name: skills_mod.render(s, label) for s in found}
    memory = _project_memory(label, notes, clusters, found, pinned)
    summary = _project_summary(label, scope, project, notes, clusters, found, pinned, budget_tokens)
    return Consolidation(memory_md=memory, summary_md=summary, skills=skill_files, consolidator=CONSOLIDATOR)


def consolidate_global(projects: Mapping[str, tuple[str, Sequence[tuple[str, Note]]]], *,
                       pinned: Sequence[tuple[str, str]], budget_tokens: int) -> Consolidation:
    """Keep what transfers: learnings seen in two or more projects (branch -> (summary, notes))."""
    items = [o for branch in sorted(projects) for o in occurrences(projects[branch][1], source=branch)]
    shared = [c for c in cluster(items)
              if c.type in GLOBAL_TYPES and len(c.sources) >= GLOBAL_MIN_PROJECTS]
    shared.sort(key=lambda c: (-len(c.sources), *rank_key(c)))
    memory = _global_memory(projects, shared, pinned)
    summary = _global_summary(projects, shared, pinned, budget_tokens)
    return Consolidation(memory_md=memory, summary_md=summary, consolidator=CONSOLIDATOR)


# ---- shared pieces ------------------------------------------------------------------------


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _one_line(text: str, limit: int) -> str:
    """A person's note as one line: headings' #s dropped, whitespace collapsed, cut at a word."""
    from ..notes import split_front_matter

    try:
        _, body = split_front_matter(text)
    except ValueError:
        body = text
    lines = []
    for line in body.splitlines():
        text = line.strip()
        if text.startswith("#"):  # a heading runs into the text after it: "Title: text"
            text = text.lstrip("#").strip()
            text = text if not text or text[-1] in ".:!?" else text + ":"
        lines.append(text)
    flat = " ".join(" ".join(lines).split())
    if len(flat) <= limit:
        return flat
    return flat[: limit - 1].rsplit(" ", 1)[0] + "…"


def _pinned_lines(pinned: Sequence[tuple[str, str]], doc: Document) -> list[str]:
    """Offer every pinned note (full, then shorter); return the paths that did not fit."""
    left = []
    share = max(MIN_PINNED_CHARS, doc.max_chars // 2 // max(1, len(pinned)))
    for i, (path, text) in enumerate(sorted(pinned)):
        for limit in (min(MAX_PINNED_CHARS, share), MIN_PINNED_CHARS):
            if doc.offer(Line("Pinned notes", f"- **{path}**: {_one_line(text, limit)}", (i,))):
                break
        else:
            left.append(path)
    return left


def _summary_bullet(c: Cluster) -> str:
    n = c.support
    extra = f", {c.tier}" if c.tier else ""
    return f"- [{c.type}] {c.text} ({_plural(n, 'session')}{extra})"


def _capped(clusters: Sequence[Cluster], types: Sequence[str]) -> list[Cluster]:
    """Strongest first, at most SUMMARY_CAPS[type] of each type: no type fills the summary."""
    taken: Counter[str] = Counter()
    out = []
    for c in clusters:
        if c.type in types and taken[c.type] < SUMMARY_CAPS[c.type]:
            taken[c.type] += 1
            out.append(c)
    return out


def _type_order(kind: str) -> int:
    return [k for k, _ in TOPICS].index(kind)


# ---- a project ----------------------------------------------------------------------------


def _project_memory(label, notes, clusters, found, pinned) -> str:
    head = [
        f"# Memory: {label}",
        "",
        f"{_plural(len(clusters), 'learning')} from {_plural(len(notes), 'session note')}, strongest first "
        f"in each topic. {TIER_LEGEND}",
        "memgit rewrites this file on every consolidation: correct a learning in its session note "
        "(sessions/), or pin your own words in notes/.",
    ]
    parts = ["\n".join(head), *_memory_md.sections(clusters)]
    if found:
        parts.append("## Skills\n\n" + "\n".join(
            f"- [{s.name}](skills/{s.name}/SKILL.md): {skills_mod.description(s, label)}" for s in found))
    if pinned:
        parts.append("## Pinned notes\n\n" + "\n".join(f"- [{p}]({p})" for p, _ in sorted(pinned)))
    if not clusters:
        parts.append("_No learnings yet: the sessions so far left none._")
    return "\n\n".join(parts) + "\n"


def _commands_by_kind(clusters: Sequence[Cluster]) -> dict[tuple[str, ...], list[Cluster]]:
    """[command] clusters keyed by the kinds of work they do: ("test",), ("format", "lint", "test")…"""
    out: dict[tuple[str, ...], list[Cluster]] = {}
    for c in clusters:
        if c.type == "command":
            out.setdefault(skills_mod.categories(c) or ("other",), []).append(c)
    return out


def _kind_place(kinds: tuple[str, ...]) -> tuple:
    order = [*_KIND_LABELS, "other"]
    return (len(kinds) > 1, [order.index(k) if k in order else len(order) for k in kinds])


def _kind_label(kinds: tuple[str, ...]) -> str:
    labels = [_KIND_LABELS.get(k, "Other commands") for k in kinds]
    return labels[0] if len(labels) == 1 else " + ".join([labels[0], *(l.lower() for l in labels[1:])])


def _stack(notes: Sequence[tuple[str, Note]]) -> list[str]:
    counts = Counter(k for _, n in notes for k in dict.fromkeys(n.keywords))
    return [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]


def _note_strength(notes, clusters) -> list[tuple[int, str, str]]:
    """(sum of the support of its learnings, recency, path) per note, strongest first."""
    score: Counter[str] = Counter()
    for c in clusters:
        for o in c.notes():
            score[o.path] += c.support - 1
    when = {p: recency(n, p) for p, n in notes}
    ranked = sorted(((s, when.get(p, ""), p) for p, s in score.items() if s > 0), reverse=True)
    return ranked


def _project_summary(label, scope, project, notes, clusters, found, pinned, budget) -> str:
    doc = Document(_PROJECT_SECTIONS, budget)
    dates = sorted(recency(n, p)[:10] for p, n in notes if recency(n, p))
    span = f", {dates[0]} to {dates[-1]}" if dates else ""
    branch = project.branch if project else f"projects/{scope}"
    doc.offer(Line("", f"# {label}: what memory holds", (0,)))
    not_fitting = _pinned_lines(pinned, doc)  # the person's own words come first
    doc.offer(Line("Where to look deeper", f"- All learnings by topic, each linked to its sessions: "
                                           f"`memgit show {branch}:MEMORY.md`", (0,)))
    doc.offer(Line("Where to look deeper", "- A session's full note: `memgit show <id>` (the ids above)", (1,)))
    if not_fitting:
        doc.offer(Line("Where to look deeper", "- More pinned notes: " + ", ".join(not_fitting), (2,)))
    doc.offer(Line("", f"{_plural(len(notes), 'session')}{span}; {_plural(len(clusters), 'learning')} "
                       f"(branch {branch} of the memory repository).", (1,)))
    # Profile: how the project is built, tested and run, then its conventions.
    if project and (project.remotes or project.paths):
        where = project.remotes[0] if project.remotes else project.paths[0]
        doc.offer(Line("Profile", f"- Repository: {where}", (0,)))
    by_kind = _commands_by_kind(clusters)
    for kinds in sorted(by_kind, key=_kind_place):
        shown = ", ".join(f"{_command(c)} ({_plural(c.support, 'session')})"
                          for c in by_kind[kinds][:COMMANDS_PER_KIND])
        doc.offer(Line("Profile", f"- {_kind_label(kinds)}: {shown}", (1, _kind_place(kinds))))
    stack = _stack(notes)
    if stack:
        doc.offer(Line("Profile", f"- Stack and tools: {', '.join(stack)}", (2,)))
    for i, c in enumerate(_capped(clusters, ("convention",))):
        doc.offer(Line("Profile", f"- Convention: {c.text} ({_plural(c.support, 'session')})", (3, i)))
    for i, c in enumerate(_capped(clusters, ("preference", "gotcha", "decision", "fact"))):
        doc.offer(Line("Key learnings", _summary_bullet(c), (_type_order(c.type), i)))
    for i, s in enumerate(found):
        doc.offer(Line("Where to look deeper", f"- Skill `{s.name}`: {s.title.lower()} — "
                                               f"`memgit show {branch}:skills/{s.name}/SKILL.md`", (3, i)))
    for i, (_, _, path) in enumerate(_note_strength(notes, clusters)[:3]):
        doc.offer(Line("Where to look deeper", f"- A session whose learnings recur most: {path}", (4, i)))
    recent = sorted(notes, key=lambda pn: (recency(pn[1], pn[0]), pn[0]), reverse=True)[:RECENT_SESSIONS]
    for i, (path, note) in enumerate(recent):
        when = recency(note, path)
        doc.offer(Line("Recent sessions", f"- {link_label(when, note.session)}: {_clip(note.title, 90)}", (i,)))
    return doc.text()


def _command(c: Cluster) -> str:
    spans = code_spans(c.text)
    return " then ".join(f"`{s}`" for s in spans) if spans else c.text


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- across projects (main) ---------------------------------------------------------------


def _slug(branch: str) -> str:
    return "(no project)" if branch == MAIN else branch.removeprefix("projects/")


def _global_bullet(c: Cluster) -> str:
    where = "; ".join(
        f"{_slug(src)}: " + ", ".join(f"`{src}:{o.path}`" for o in c.notes(src)[:2])
        + (f" +{len(c.notes(src)) - 2}" if len(c.notes(src)) > 2 else "")
        for src in c.sources
    )
    t = f", tier: {tier(c.support)}" if tier(c.support) else ""
    return (f"- [{c.type}] {c.text} — {len(c.sources)} projects ({', '.join(_slug(s) for s in c.sources)}), "
            f"{_plural(c.support, 'session')}{t}. Notes: {where}")


def _global_memory(projects, shared, pinned) -> str:
    n_notes = sum(len(notes) for _, notes in projects.values())
    head = [
        "# Memory across projects",
        "",
        f"{_plural(len(shared), 'learning')} seen in {GLOBAL_MIN_PROJECTS} or more projects, from "
        f"{_plural(n_notes, 'session note')} in {_plural(sum(1 for _, n in projects.values() if n), 'project')}. "
        f"{TIER_LEGEND}",
        "Each names its projects and notes (`memgit show <branch>:<path>`); memgit rewrites this file on "
        "every consolidation.",
    ]
    parts = ["\n".join(head), *_memory_md.sections(shared, render=_global_bullet)]
    index = [f"- {_slug(b)} (`{b}`): {_plural(len(projects[b][1]), 'session note')}"
             for b in sorted(projects) if projects[b][1]]
    if index:
        parts.append("## Projects\n\n" + "\n".join(index))
    if pinned:
        parts.append("## Pinned notes\n\n" + "\n".join(f"- [{p}]({p})" for p, _ in sorted(pinned)))
    if not shared:
        parts.append("_Nothing seen in two projects yet._")
    return "\n\n".join(parts) + "\n"


def _profile_line(summary: str) -> str:
    """The first profile bullet of a project's summary (how it is tested, usually)."""
    section = False
    for line in summary.splitlines():
        if line.startswith("## "):
            section = line[3:].strip() == "Profile"
        elif section and line.startswith("- ") and not line.startswith("- Repository:"):
            return line[2:].strip()
    return ""


def _global_summary(projects, shared, pinned, budget) -> str:
    doc = Document(_GLOBAL_SECTIONS, budget)
    doc.offer(Line("", "# Across projects: what memory holds", (0,)))
    not_fitting = _pinned_lines(pinned, doc)
    doc.offer(Line("Where to look deeper", "- Cross-project learnings with their notes: `memgit show main:MEMORY.md`", (0,)))
    doc.offer(Line("Where to look deeper", "- One project's memory: `memgit show projects/<slug>:memory_summary.md` "
                                           "(or `:MEMORY.md`)", (1,)))
    if not_fitting:
        doc.offer(Line("Where to look deeper", "- More pinned notes: " + ", ".join(not_fitting), (2,)))
    scopes = sum(1 for _, notes in projects.values() if notes)
    doc.offer(Line("", f"{_plural(len(shared), 'learning')} seen in {GLOBAL_MIN_PROJECTS}+ of "
                       f"{_plural(scopes, 'project')} (branch main of the memory repository).", (1,)))
    for i, c in enumerate(_capped(shared, GLOBAL_TYPES)):
        where = ", ".join(_slug(s) for s in c.sources)
        doc.offer(Line("Across projects", f"- [{c.type}] {c.text} ({where})", (_type_order(c.type), i)))
    active = sorted((b for b in projects if projects[b][1]), key=lambda b: (-len(projects[b][1]), b))
    for i, branch in enumerate(active):
        summary, notes = projects[branch]
        profile = _profile_line(summary)
        doc.offer(Line("Projects", f"- {_slug(branch)}: {_plural(len(notes), 'session')}"
                                   + (f"; {_clip(profile, 120)}" if profile else ""), (i,)))
    return doc.text()
