"""The offline consolidator: MEMORY.md, memory_summary.md and skills from a scope's notes.

    graph       the rules: when two learnings are the same, when they contradict; clusters
    memory      a scope's notes and their learnings' groups, kept up to date note by note (incremental)
    leaders     which group leads each cluster, decided in a fixed priority order
    view        the clusters worth rendering, and the learnings that may reach `main`
    cache       each scope's memory in a file under .git/memgit/, for the next sync
    scope       what transfers to `main`: general preferences, and what two projects share
    memory_md   MEMORY.md: everything with its provenance, superseded learnings listed apart
    briefing    memory_summary.md: the briefing within the token budget
    skills      procedures seen in three or more sessions, as Claude Code skills

Pure and deterministic: the same notes give the same bytes, whatever their order and whether the
`Memory` was built at once or note by note, so consolidating again after nothing changed commits
nothing, and after a revert the result is exactly what the remaining notes say. No clock: recency
comes from the notes' own times.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memgit.core import hand
from memgit.core.model import Consolidation, Note
from memgit.core.scopes import Project
from memgit.consolidate.heuristic import briefing, memory_md, scope, skills as skills_mod
from memgit.consolidate.heuristic.graph import Cluster, Occurrence, rank_key
from memgit.consolidate.heuristic.memory import Memory
from memgit.consolidate.heuristic.view import View

CONSOLIDATOR = "heuristic/2"

Notes = Sequence[tuple[str, Note]]


def consolidate(notes: Memory | Notes, *, scope: str, project: Project | None,
                pinned: Sequence[tuple[str, str]], budget_tokens: int, team=None) -> Consolidation:
    """Consolidate one project: its notes (path, Note), or the `Memory` that holds them, and its
    pinned notes (path, text); with `team` (memgit.consolidate.team.Team) the teammates' notes in it
    are told as theirs."""
    memory = notes if isinstance(notes, Memory) else Memory.of(notes)
    label = project.name if project else scope
    view = memory.view(singles=memory_md.MAX_SINGLES)
    found = skills_mod.find([c for c in view.clusters if c.superseded_by is None], slug=scope)
    infos = [(info.path, info) for info in memory.infos()]
    memory_text = _project_memory(label, len(infos), view, found, _told_apart(pinned, hand.MEMORY), team)
    summary = briefing.project_summary(label, scope, project, team.own(infos) if team else infos,
                                       team.briefable(view.clusters) if team else view.clusters, found,
                                       _told_apart(pinned, hand.SUMMARY), budget_tokens)
    return Consolidation(memory_md=memory_text, summary_md=summary,
                         skills={s.name: skills_mod.render(s, label) for s in found}, consolidator=CONSOLIDATOR)


def portable(notes: Memory | Notes, source: str) -> list[Occurrence]:
    """A project's learnings that may reach `main` (the global consolidation reads only these)."""
    return (notes if isinstance(notes, Memory) else Memory.of(notes)).portable(source)


def across(projects: Mapping[str, Sequence[Occurrence]]) -> Memory:
    """The Memory of `main` over the projects' portable learnings (branch -> `portable()` of it)."""
    by_note: dict[str, list[Occurrence]] = {}
    for branch in sorted(projects):
        for o in projects[branch]:
            by_note.setdefault(f"{branch}:{o.path}", []).append(o)
    memory = Memory()
    memory.build([(key, found, ("", found[0].session, found[0].when, found[0].title, found[0].source, "", ""))
                  for key, found in sorted(by_note.items())], flag_portable=False)
    return memory


def consolidate_global(projects: Mapping[str, tuple[str, int]], memory: Memory, *,
                       pinned: Sequence[tuple[str, str]], budget_tokens: int) -> Consolidation:
    """Keep what transfers. `projects`: branch -> (its summary, its number of notes); `memory`: the
    projects' portable learnings, each note keyed "<branch>:<path>" (see `across`)."""
    shared = [c for c in memory.clusters() if scope.transfers(c)]
    shared.sort(key=lambda c: (-len(c.sources), c.type != "preference", *rank_key(c)))
    return Consolidation(memory_md=_global_memory(projects, shared, _told_apart(pinned, hand.MEMORY)),
                         summary_md=briefing.global_summary(projects, shared, _told_apart(pinned, hand.SUMMARY),
                                                            budget_tokens),
                         consolidator=CONSOLIDATOR)


def _told_apart(pinned: Sequence[tuple[str, str]], file: str) -> list[tuple[str, str]]:
    """The pinned notes `file` lists: not those a person wrote into that very file by hand, which their
    own line there already says (memgit.core.hand puts it back where they wrote it)."""
    return [(path, text) for path, text in pinned if hand.origin(text) != file]


def _project_memory(label: str, n_notes: int, view: View, found, pinned, team=None) -> str:
    superseded = f", and {view.superseded} superseded by later sessions" if view.superseded else ""
    head = [
        f"# Memory: {label}",
        "",
        f"{briefing.plural(view.holding, 'learning')} from {briefing.plural(n_notes, 'session note')}, strongest "
        f"first in each topic{superseded}. {memory_md.TIER_LEGEND}",
        "memgit rewrites this file on every consolidation and keeps your edits of it: a line you add is "
        "pinned as your note, a line you remove stays out (`git revert` of your edit undoes it).",
    ]
    told = {"render": team.bullet, "render_superseded": team.superseded_bullet} if team else {}
    parts = ["\n".join(head), *memory_md.sections(view.clusters, left_out=view.left_out, **told)]
    if found:
        parts.append("## Skills\n\n" + "\n".join(
            f"- [{s.name}](skills/{s.name}/SKILL.md): {skills_mod.description(s, label)}" for s in found))
    if pinned:
        parts.append("## Pinned notes\n\n" + "\n".join(f"- [{p}]({p})" for p, _ in sorted(pinned)))
    if team:
        parts.append(team.section())
    if not view.clusters:
        parts.append("_No learnings yet: the sessions so far left none._")
    return "\n\n".join(parts) + "\n"


def _global_memory(projects: Mapping[str, tuple[str, int]], shared: Sequence[Cluster], pinned) -> str:
    n_notes = sum(n for _, n in projects.values())
    general = sum(1 for c in shared if len(c.sources) < scope.MIN_PROJECTS)
    head = [
        "# Memory across projects",
        "",
        f"{briefing.holds(general, len(shared) - general)} — from {briefing.plural(n_notes, 'session note')} in "
        f"{briefing.plural(sum(1 for _, n in projects.values() if n), 'project')}. {memory_md.TIER_LEGEND}",
        "Never a command, a path or a fact of one project: those stay on the project's branch. Each names its "
        "notes (`memgit show <branch>:<path>`); memgit rewrites this file on every consolidation.",
    ]
    parts = ["\n".join(head), *memory_md.sections(shared, render=briefing.global_bullet)]
    index = [f"- {briefing.project_label(b)} (`{b}`): {briefing.plural(projects[b][1], 'session note')}"
             for b in sorted(projects) if projects[b][1]]
    if index:
        parts.append("## Projects\n\n" + "\n".join(index))
    if pinned:
        parts.append("## Pinned notes\n\n" + "\n".join(f"- [{p}]({p})" for p, _ in sorted(pinned)))
    if not shared:
        parts.append("_Nothing that holds across projects yet._")
    return "\n\n".join(parts) + "\n"

