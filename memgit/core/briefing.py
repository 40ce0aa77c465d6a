"""What a new session is told (DESIGN §5), as pure text: the scopes' summaries and pinned notes fitted
into the fenced context within budget, and the digest of recent notes that stands in for a summary
until consolidation writes one. Values in, text out; the cache and the hook are elsewhere
(memgit.store.context_cache, memgit.verbs.briefing, memgit.hook.context).
"""

from __future__ import annotations

import os

from memgit.core.vocab import MAIN, MARKER, PREFIX, SUMMARY_FILE, TYPE_RANK

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # memgit/
_templates: dict[str, str] = {}

MAX_CHARS = 10_000  # Claude Code's cap on additionalContext; longer text is replaced by a file path
BUDGET = 6_000  # what the whole injected text stays under, pending line included: a briefing, not a dump
PINNED_MAX = 3_000  # one pinned note, before the budget is shared out
RECENT_NOTES = 24  # newest notes read for the digest of a project without a summary
LEARNINGS_PER_NOTE = 3


def assemble(*, repo: str, branch: str | None, project: str | None, project_part: dict | None,
             main_part: dict | None, pending: int, search: bool, budget: int = BUDGET) -> str:
    """Fit the scopes' summaries and pinned notes into the fenced text; "" when there is nothing to tell."""
    sections = []  # (heading, body, where the rest is, weight when the budget is shared)
    if project_part and project_part["summary"]:
        hint = (f"`memgit show {branch}:{SUMMARY_FILE}`" if project_part["source"] == SUMMARY_FILE
                else f"`memgit log --project {branch[len(PREFIX):]}`")
        sections.append((sanitize(f"## Project {' '.join(str(project).split())} (branch `{branch}`)"),
                         project_part["summary"], sanitize(hint), 3))
    if main_part and "\n- " in "\n" + main_part["summary"]:  # a summary with nothing in it is not worth a heading
        sections.append(("## Across all projects", main_part["summary"], f"`memgit show {MAIN}:{SUMMARY_FILE}`", 2))
    pinned = [(note, "this project") for note in (project_part or {}).get("pinned", ())]
    pinned += [(note, "all projects") for note in (main_part or {}).get("pinned", ())]
    if pinned:
        body = "\n\n".join(f"### {note['path']} ({scope})\n{note['text']}" for note, scope in pinned)
        sections.append(("## Pinned notes (the user added these)", body, "`memgit show <branch>:notes/<file>`", 2))
    if not sections:
        return ""
    if branch:
        where = f"branch `{branch}` holds this project's notes, `{MAIN}` what holds across projects"
    else:
        where = f"branch `{MAIN}` holds what holds across projects; this directory is in no project memgit has seen yet"
    commands = "`memgit show <session-id>` prints a session's note, `memgit show <branch>:<path>` any file."
    if search:
        commands = f"`memgit search \"<words>\"` finds earlier sessions and learnings; {commands}"
    commands = f"- {commands}\n"
    line = ""
    if pending:
        whose = "of this project" if branch else "started here"
        sessions, are = ("session", "is") if pending == 1 else ("sessions", "are")
        line = f"- {pending} earlier {sessions} {whose} {are} waiting to be synced into memory.\n"
    wrapper = template("context.md")
    fill = {"repo": sanitize(repo), "branches": sanitize(where), "commands": commands, "pending": line}
    fixed = len(substitute(wrapper, sections="", **fill).rstrip()) + sum(len(s[0]) + 3 for s in sections)
    room = budget - fixed
    for _ in range(8):
        allotted = _share([(len(body), weight) for _, body, _, weight in sections], room)
        cuts = [f"{h}\n{cut(body, n, hint)}\n\n" for (h, body, hint, _), n in zip(sections, allotted, strict=True)]
        told = "".join(cuts)  # a project's summary that says how to look deeper: the frame does not repeat it
        said = "`memgit show <id>`" in told and (not search or "`memgit search" in told)
        text = substitute(wrapper, sections=told, **{**fill, "commands": "" if said else commands}).rstrip()
        if len(text) <= budget:
            return text
        room -= len(text) - budget  # a cut landed past its share: take the overflow off and refit
    return ""  # not even the frame fits (a repository path thousands of characters long)


def _share(wants: list[tuple[int, int]], room: int) -> list[int]:
    """Split `room` characters among sections wanting (size, weight): those under their weighted share
    whole, what they leave to the others in proportion to their weights (weighted water-filling)."""
    out = [0] * len(wants)
    left, weights = max(room, 0), sum(w for _, w in wants)
    for i in sorted(range(len(wants)), key=lambda i: wants[i][0] / wants[i][1]):
        size, weight = wants[i]
        out[i] = min(size, left * weight // weights)
        left, weights = left - out[i], weights - weight
    return out


def cut(body: str, limit: int, hint: str) -> str:
    """Keep the head of `body` within `limit` characters, cut at a line end, saying where the rest is."""
    if len(body) <= limit:
        return body
    marker = f"\n… (cut to fit; the rest: {hint})"
    room = limit - len(marker)
    if room < 40:
        return marker.strip()[: max(limit, 0)]
    cut = body.rfind("\n", 0, room)
    if cut < room // 2:
        cut = body.rfind(" ", 0, room)
    return body[: cut if cut > 0 else room].rstrip() + marker


def substitute(text: str, **values: str) -> str:
    """string.Template(text).substitute(values) for the forms the templates use ($name, $$), without
    importing string (its import compiles Template's pattern: a tenth of the session-start hook's budget).

    Raises:
        KeyError: a placeholder with no value.
    """
    pieces = text.split("$")
    out, i = [pieces[0]], 1
    while i < len(pieces):
        piece = pieces[i]
        if not piece and i + 1 < len(pieces):  # "$$" is a dollar sign
            out.append("$" + pieces[i + 1])
            i += 2
            continue
        end = 0
        while end < len(piece) and piece[end].isascii() and (piece[end].isalnum() or piece[end] == "_"):
            end += 1
        out.append(values[piece[:end]] + piece[end:])
        i += 1
    return "".join(out)


def template(name: str) -> str:
    if name not in _templates:
        installed = os.path.join(_PACKAGE, "_data", "templates")  # as resources.data_dir lays them out
        root = installed if os.path.isdir(installed) else os.path.join(os.path.dirname(_PACKAGE), "templates")
        with open(os.path.join(root, name), encoding="utf-8") as f:
            _templates[name] = f.read()
    return _templates[name]


def digest(notes: list, header: str, budget: int = BUDGET) -> str:
    """The fallback summary: newest notes first, each with its strongest learnings, within budget.

    A learning is stronger when more of these sessions repeat it, then by type (preferences and
    conventions first); a learning already shown under a newer note is not repeated.
    """
    seen_in: dict[str, int] = {}
    for note in notes:
        for text in {_norm(item.text) for item in note.learnings}:
            seen_in[text] = seen_in.get(text, 0) + 1
    lines, size, shown = [header], len(header), set()
    for note in notes:
        ranked = sorted(enumerate(note.learnings),
                        key=lambda x: (-seen_in[_norm(x[1].text)], TYPE_RANK.get(x[1].type, 9), x[0]))
        picks = []
        for _, item in ranked:
            key = _norm(item.text)
            if key in shown or len(picks) == LEARNINGS_PER_NOTE:
                continue
            shown.add(key)
            times = seen_in[key]
            support = f" (in {times} sessions)" if times > 1 else ""
            picks.append(f"  - [{item.type}] {_one_line(item.text, 300)}{support}")
        date = (note.started or note.ended or "")[:10]
        block = [f"- {date + ' ' if date else ''}{_one_line(note.title, 120)} [{note.id8}]", *picks]
        cost = sum(len(line) + 1 for line in block)
        if size + cost > budget:
            break
        lines += block
        size += cost
    return sanitize("\n".join(lines)) if len(lines) > 1 else ""


def clean_markdown(text: str) -> str:
    """Ready a markdown file for the fence: no front matter, no H1, headings one level down, no fence markers."""
    from memgit.core.notes import split_front_matter

    try:
        _, body = split_front_matter(text)
    except ValueError:
        body = text
    lines, fenced = [], False
    for line in body.strip().splitlines():
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and line.startswith("# ") and not lines:
            continue  # the file's title: the section heading says what it is
        elif not fenced and line.startswith("#"):
            line = "#" + line
        lines.append(line)
    return sanitize("\n".join(lines).strip())


def sanitize(text: str) -> str:
    """Keep memory text from closing the fence or carrying control characters."""
    text = text.replace("</memgit-context", "</memgit-ctx").replace(MARKER, "<memgit-ctx")
    return "".join(c for c in text if c >= " " or c in "\n\t")


def _norm(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".")


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def estimate_tokens(text: str) -> int:
    """Tokens the text costs: counted with memgit.core.tokens when it is there, else estimated."""
    try:
        from memgit.core.tokens import count
    except ImportError:
        return -(-len(text) * 2 // 7)  # 3.5 characters per token, rounded up
    return count(text)
