"""memory_summary.md: the briefing a new session gets, within the token budget.

What a senior engineer hands a newcomer on day one, in this order: what the project is (the first
paragraph of PROJECT.md's body), how to build, test, lint and run it (one line per purpose and
directory: the most recent form that worked on the whole project, display pipes and redirects set
aside), the person's pinned notes, their standing rules and the project's conventions, gotchas that
would bite again, decisions still in force, the latest work one line each, and where to look deeper.
Which learnings earn a line is memgit.consolidate.heuristic.selection's call; a learning a later one
contradicted is never in it (MEMORY.md lists it as superseded), nor a command a later rule replaced.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence

from memgit.core.about import about as described
from memgit.core.scan import clip
from memgit.extract.heuristic.filters import problem
from memgit.core.scopes import Project
from memgit.consolidate._budget import Document, Line
from memgit.consolidate.heuristic import howto, skills as skills_mod
from memgit.consolidate.heuristic.graph import Cluster, tier
from memgit.consolidate.heuristic.memory import NoteInfo
from memgit.consolidate.heuristic.memory_md import link_label
from memgit.consolidate.heuristic.scope import GLOBAL_TYPES, MIN_PROJECTS
from memgit.consolidate.heuristic.selection import REPORTED, briefed, lasting
from memgit.extract.heuristic.standing import asks_for_work, instructed, stated_generally, told_part
from memgit.core.vocab import MAIN, PERSONAL, PREFIX, TRUNKS, TYPES
from memgit.core.work_line import work_line

# The types with a section of their own (in the order of the injected context) and the section;
# how many of each type the summary holds at most: no type fills it.
_SECTION = {name: t.section for name, t in sorted(TYPES.items(), key=lambda nt: nt[1].rank) if t.section}
CAPS = {name: t.summary_cap for name, t in TYPES.items()}
SECTION_CAPS = {section: sum(CAPS[name] for name, of in _SECTION.items() if of == section)
                for section in _SECTION.values()}
PROJECT_CHARS = 4_400  # a project's summary: the session-start context holds it, main's and the frame in 6,000
GLOBAL_CHARS = 1_100
MAX_PINNED_CHARS = 800  # of one pinned note in the summary; MEMORY.md links the whole note
MIN_PINNED_CHARS = 160
MAX_ABOUT = 320
RECENT_SESSIONS = 4
RECURRING = 3  # sessions that edited a file: its work recurs
MAX_FOCUS = 3  # files a session edited, at most, for them to say what the person's words there were about
PROJECT_SECTIONS = ("How to build and test", "Pinned notes", *dict.fromkeys(_SECTION.values()),
                    "Latest work", "Where to look deeper")
GLOBAL_SECTIONS = ("Pinned notes", "Preferences", "Across projects", "Where to look deeper")


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def sentence(c: Cluster, files: Sequence[str] = ()) -> str | None:
    """A learning as a summary line: a complete sentence, with its support when it recurs, or with the
    files its one session edited when that is what the person's words were about."""
    if problem(c.text) and c.type != "command":
        return None
    strength = f" ({plural(c.support, 'session')}{', ' + c.tier if c.tier else ''})" if c.support >= 2 else ""
    about_ = f" (while editing {', '.join(f'`{name}`' for name in files)})" if files else ""
    return f"- {_finding(told_part(c.text))}{strength}{about_}"


MAX_REPORT = 100


def _finding(text: str) -> str:
    """A reported problem and its fix as one statement: a long report (a pasted query or log) gives
    way to the finding, which says what holds."""
    found = REPORTED.match(text)
    if found is None or len(found.group("problem")) <= MAX_REPORT:
        return text
    fix = found.group("fix").strip()
    if len(found.group("problem")) <= 2 * MAX_REPORT and not lasting(fix):
        return text  # alone, the finding would read as one session's change: the report says why it matters
    return fix[0].upper() + fix[1:]


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
    """Offer every pinned note (full, then shorter) within half the document; return the paths that did
    not fit (the other half is for the rest of the briefing)."""
    left, used = [], 0
    share = max(MIN_PINNED_CHARS, doc.max_chars // 2 // max(1, len(pinned)))
    for i, (path, text) in enumerate(sorted(pinned)):
        for limit in (min(MAX_PINNED_CHARS, share), MIN_PINNED_CHARS):
            line = f"- **{path}**: {one_line(text, limit)}"
            if used + len(line) <= doc.max_chars // 2 and doc.offer(Line("Pinned notes", line, (i,))):
                used += len(line) + 1
                break
        else:
            left.append(path)
    return left


def more_pinned(doc: Document, paths: Sequence[str], branch: str) -> None:
    """Name the pinned notes that did not fit, or say how many there are and where."""
    if not doc.offer(Line("Where to look deeper", "- More pinned notes: " + ", ".join(paths), (2,))):
        doc.offer(Line("Where to look deeper", f"- {plural(len(paths), 'more pinned note')}: "
                                               f"`memgit show {branch}:notes/`", (2,)))


# ---- the learnings that earn a line ----------------------------------------------------------------


class Work:
    """What the sessions edited, for the person's one-session words. A task that recurs (three or more
    sessions edited the same file among a few: the release notes before each release) will be done
    again, so what the person said in it holds for the next time, and the file says what it was about
    ("Do not assume any order in the state slice", while editing `nats.go`)."""

    def __init__(self, notes: Sequence[tuple[str, NoteInfo]]) -> None:
        self.edited = {path: info.edited for path, info in notes if 0 < len(info.edited) <= MAX_FOCUS}
        counts = Counter(name for files in self.edited.values() for name in files)
        self.recurring = frozenset(name for name, n in counts.items() if n >= RECURRING)

    def context(self, c: Cluster) -> tuple[str, ...]:
        """The recurring files the one session of a person's remark edited; () for a rule stated in
        general terms or written into the project's instructions, which is about no file."""
        if c.type not in PERSONAL or c.support != 1 or instructed(c.text) or stated_generally(c.text):
            return ()
        return tuple(name for name in self.edited.get(c.occurrences[0].path, ()) if name in self.recurring)

    def recurs(self, c: Cluster) -> bool:
        """A one-session remark of the person's, made in work that recurs, that says how the work is done
        rather than asking for the session's next step."""
        return c.superseded_by is None and bool(self.context(c)) and not asks_for_work(c.text)


def _capped(clusters: Sequence[Cluster], types: Collection[str], work: Work | None = None) -> list[Cluster]:
    """Those that earn a line (selection.briefed, then what the person said in recurring work), most
    supported first (stable: the most recent first within), at most SECTION_CAPS[section] in a section
    (a preference and a convention share theirs: which of the two a rule is told is a guess of words)."""
    taken: Counter[str] = Counter()
    out = []
    held = [(c, briefed(c)) for c in clusters if c.type in types]
    for c, on_its_own in sorted(held, key=lambda cb: (-cb[0].support, not cb[1])):
        section = _SECTION[c.type]
        if taken[section] >= SECTION_CAPS[section] or not (on_its_own or work and work.recurs(c)):
            continue
        taken[section] += 1
        out.append(c)
    return out


def _type_order(kind: str) -> int:
    return TYPES[kind].topic_order  # as MEMORY.md orders its topics


def about(project: Project | None) -> str:
    """What the project is: PROJECT.md's description (memgit.core.about), one or two sentences."""
    return clip(described(project) or "", MAX_ABOUT) if project is not None else ""


def project_summary(label: str, scope: str, project: Project | None, notes: Sequence[tuple[str, NoteInfo]],
                    clusters: Sequence[Cluster], found: Sequence[skills_mod.Skill],
                    pinned: Sequence[tuple[str, str]], budget: int) -> str:
    doc = Document(PROJECT_SECTIONS, budget, max_chars=PROJECT_CHARS)
    dates = sorted(info.when[:10] for _, info in notes if info.when)
    span = f", {dates[0]} to {dates[-1]}" if dates else ""
    branch = project.branch if project else f"{PREFIX}{scope}"
    holding = [c for c in clusters if c.superseded_by is None]
    doc.offer(Line("", f"# {label}: what memory holds", (0,)))
    if line := about(project):
        doc.offer(Line("", line, (1,)))
    not_fitting = pinned_lines(pinned, doc)  # the person's own words come first
    doc.offer(Line("Where to look deeper", f"- Every learning by topic, with its sessions, and what was "
                                           f"superseded: `memgit show {branch}:MEMORY.md`", (0,)))
    doc.offer(Line("Where to look deeper", "- A session's full note: `memgit show <id>` (the ids above); what this "
                                           "summary leaves out: `memgit search <words>`", (1,)))
    if not_fitting:
        more_pinned(doc, not_fitting, branch)
    doc.offer(Line("", f"{plural(len(notes), 'session')}{span} (branch {branch} of the memory repository).", (2,)))
    if line := trunk_line(notes):
        doc.offer(Line("How to build and test", line, (-1,)))
    replaced = howto.replaced_programs(holding)
    for i, line in enumerate(howto.command_lines(howto.purposes(clusters, replaced))):
        doc.offer(Line("How to build and test", line, (i,)))
    current = [c for c in holding if c.type in PERSONAL or not howto.runs(c, replaced)]
    work = Work(notes)
    for i, c in enumerate(_capped(current, _SECTION, work)):
        if line := sentence(c, work.context(c)):
            doc.offer(Line(_SECTION[c.type], line, (i,)))
    recent = sorted(notes, key=lambda pn: (pn[1].when, pn[0]), reverse=True)[:RECENT_SESSIONS]
    for i, (_, info) in enumerate(recent):
        doc.offer(Line("Latest work", f"- {link_label(info.when, info.session)}: {work_line(info.title)}", (i,)))
    if line := skills_line(found, branch):
        doc.offer(Line("Where to look deeper", line, (3,)))
    return doc.text()


def trunk_line(notes: Sequence[tuple[str, NoteInfo]]) -> str | None:
    """"Main branch: `master` (not `main`)" when the latest session on either worked on `master`: agents
    take `main` for granted (its diffs, its pull requests' base). A rename to `main` ends it."""
    on_trunk = [(info.when, info.branch) for _, info in notes if info.branch in TRUNKS]
    latest = max(on_trunk, default=("", ""))[1]
    return f"- Main branch: `{latest}` (not `{TRUNKS[0]}`)" if latest and latest != TRUNKS[0] else None


MAX_SKILLS = 6  # named in the briefing's one line; MEMORY.md lists every one


def skills_line(found: Sequence[skills_mod.Skill], branch: str) -> str | None:
    """One line naming the project's skills: each restates commands the briefing tells already, and an
    installed agent has them as its own skills, so a line each would only repeat them."""
    if not found:
        return None
    names = ", ".join(f"`{s.name}`" for s in found[:MAX_SKILLS])
    more = f" and {len(found) - MAX_SKILLS} more" if len(found) > MAX_SKILLS else ""
    return (f"- Skills ({plural(len(found), 'procedure')} of {skills_mod.MIN_SESSIONS} or more sessions): {names}{more}: "
            f"`memgit show {branch}:skills/<name>/SKILL.md`")


# ---- across projects (main) ----------------------------------------------------------------------


def project_label(branch: str) -> str:
    """How the global summary names a scope: its project's slug ("(no project)" for main's own sessions)."""
    return "(no project)" if branch == MAIN else branch.removeprefix(PREFIX)


def global_summary(projects: Mapping[str, tuple[str, int]], shared: Sequence[Cluster],
                   pinned: Sequence[tuple[str, str]], budget: int) -> str:
    """`projects`: branch -> (its summary, its number of notes); `shared`: the clusters that transfer.

    It says what it holds, truthfully: the person's preferences stated in general terms, and what two
    or more projects share. The projects themselves are listed in main's MEMORY.md, not here: a
    session in one project does not need the others' commands.
    """
    doc = Document(GLOBAL_SECTIONS, budget, max_chars=GLOBAL_CHARS)
    doc.offer(Line("", "# Across projects: what memory holds", (0,)))
    not_fitting = pinned_lines(pinned, doc)
    if not_fitting:
        more_pinned(doc, not_fitting, MAIN)
    scopes = sum(1 for _, n in projects.values() if n)
    shown = [c for c in _capped_global(shared) if not problem(c.text)]
    general = sum(1 for c in shown if len(c.sources) < MIN_PROJECTS)
    doc.offer(Line("", f"{holds(general, len(shown) - general)} ({plural(scopes, 'project')} in memory).", (1,)))
    if shown:
        doc.offer(Line("Where to look deeper", "- Each with its notes, and every project: `memgit show main:MEMORY.md`",
                       (0,)))
    for i, c in enumerate(shown):
        where = (f" (seen in {', '.join(project_label(s) for s in c.sources)})" if len(c.sources) >= MIN_PROJECTS else "")
        section = "Preferences" if len(c.sources) < MIN_PROJECTS else "Across projects"
        doc.offer(Line(section, f"- {c.text}{where}", (_type_order(c.type), i)))
    return doc.text()


def holds(general: int, shared: int) -> str:
    """What main holds, truthfully: "2 preferences the user stated in general terms and 1 learning that
    2 or more projects share"."""
    what = []
    if general:
        what.append(f"{plural(general, 'preference')} the user stated in general terms")
    if shared:
        what.append(f"{plural(shared, 'learning')} that {MIN_PROJECTS} or more projects share")
    return " and ".join(what) or "Nothing that holds across projects yet"


def _capped_global(shared: Sequence[Cluster]) -> list[Cluster]:
    taken: Counter[str] = Counter()
    out = []
    for c in shared:
        if c.type not in GLOBAL_TYPES or taken[c.type] >= CAPS[c.type]:
            continue
        taken[c.type] += 1
        out.append(c)
    return out


def global_bullet(c: Cluster) -> str:
    where = "; ".join(
        f"{project_label(src)}: " + ", ".join(f"`{o.path}`" for o in c.notes(src)[:2])  # path: "<branch>:<note>"
        + (f" +{c.note_count(src) - 2}" if c.note_count(src) > 2 else "")
        for src in c.sources
    )
    t = f", tier: {tier(c.support)}" if tier(c.support) else ""
    return (f"- [{c.type}] {c.text} — {plural(len(c.sources), 'project')} ({', '.join(project_label(s) for s in c.sources)}), "
            f"{plural(c.support, 'session')}{t}. Notes: {where}")
