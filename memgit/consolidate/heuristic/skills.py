"""Procedures that keep coming back, as Claude Code skills: skills/<name>/SKILL.md.

A skill is one kind of command — testing, linting, formatting, building… — that worked in at
least `MIN_SESSIONS` sessions of a project (any of its commands counts: `go test` in two sessions
and `mise run test` in a third make a "run the tests" skill). Its SKILL.md has Claude Code's front
matter (`name`, kebab-case; `description`, one line saying when to use it) and a body listing the
commands most used first, the pitfalls seen with them (gotchas quoting one of those commands)
and the sessions they came from.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memgit.extract.heuristic.shell import parse
from memgit.consolidate.heuristic.graph import Cluster, code_spans, normalise

MIN_SESSIONS = 3
MARKER = "<!-- memgit:generated skill; `memgit consolidate` rewrites or removes it -->"
MAX_COMMANDS = 8
MAX_PITFALLS = 8
MAX_SESSIONS = 10
MAX_NAME = 64  # Claude Code's limit for a skill name

# category -> (name suffix, what it does, when to use it)
ACTIONS = {
    "test": ("run-tests", "Run the tests", "when you need to run, check or fix the tests"),
    "lint": ("lint", "Lint the code", "before committing or when the linter complains"),
    "format": ("format-code", "Format the code", "before committing or when a formatting check fails"),
    "typecheck": ("type-check", "Type-check the code", "before committing or when the type checker complains"),
    "build": ("build", "Build the project", "when you need to build or compile it"),
    "run": ("run", "Run the project", "when you need to start it locally"),
    "ci": ("run-ci-locally", "Run the CI workflow locally", "when you need to reproduce a CI failure"),
    "install": ("set-up", "Install or set up the project", "on a fresh checkout or when dependencies are missing"),
}
# When a [command] learning holds no command memgit can parse (an LLM's wording), its phrase decides.
_PHRASES = (
    ("typecheck", re.compile(r"\btype[- ]?check")),
    ("test", re.compile(r"\btests?\b")),
    ("lint", re.compile(r"\blint")),
    ("format", re.compile(r"\bformat")),
    ("build", re.compile(r"\bbuild|\bcompile")),
    ("ci", re.compile(r"\bci\b")),
    ("install", re.compile(r"\binstall|\bset ?up\b")),
    ("run", re.compile(r"\brun the (?:project|app|server)|\bstart")),
)


@dataclass(slots=True)
class Skill:
    name: str
    category: str
    commands: list[Cluster]  # strongest first
    pitfalls: list[Cluster]
    sessions: int

    @property
    def title(self) -> str:
        return ACTIONS[self.category][1]


def categories(cluster: Cluster) -> tuple[str, ...]:
    """The kinds of work a [command] or [gotcha] learning's commands do (test, lint, …)."""
    found: list[str] = []
    for span in code_spans(cluster.text):
        shell = parse(span)
        if shell:
            found += shell.categories
    if not found and cluster.type == "command":
        text = normalise(cluster.text)
        found = [category for category, pattern in _PHRASES if pattern.search(text)][:1]
    return tuple(dict.fromkeys(found))


def skill_name(slug: str, category: str) -> str:
    """`<slug>-<action>`, kebab-case and within Claude Code's 64 characters."""
    suffix = ACTIONS[category][0]
    base = re.sub(r"[^a-z0-9]+", "-", slug.lower()).strip("-")
    base = base[: MAX_NAME - len(suffix) - 1].rstrip("-")
    return f"{base}-{suffix}" if base else suffix


def find(clusters: Sequence[Cluster], *, slug: str) -> list[Skill]:
    """The skills a scope's clusters (strongest first) hold: one per kind of command seen in 3+ sessions."""
    by_category: dict[str, list[Cluster]] = {}
    for c in clusters:
        if c.type == "command":
            for category in categories(c):
                by_category.setdefault(category, []).append(c)
    gotchas = [(c, set(categories(c))) for c in clusters if c.type == "gotcha"]
    skills = []
    for category in ACTIONS:  # a fixed order: the same notes give the same skills
        commands = by_category.get(category, [])
        sessions = {s for c in commands for s in c.sessions}
        if len(sessions) < MIN_SESSIONS:
            continue
        pitfalls = [g for g, kinds in gotchas if category in kinds]
        skills.append(Skill(skill_name(slug, category), category, commands, pitfalls, len(sessions)))
    return skills


def description(skill: Skill, label: str) -> str:
    """One line: what the skill does in this project and when to use it."""
    top = code_spans(skill.commands[0].text)
    how = f" with `{top[0]}`" if top else ""
    return f"{skill.title} of {label}{how} (worked in {skill.sessions} sessions); use {ACTIONS[skill.category][2]}."


def render(skill: Skill, label: str) -> str:
    """SKILL.md: front matter (name, description), then commands, pitfalls and sessions."""
    import yaml  # lazy, as in notes.py

    meta = yaml.safe_dump({"name": skill.name, "description": description(skill, label)},
                          sort_keys=False, allow_unicode=True, width=10_000)
    lines = ["---", meta.rstrip("\n"), "---", MARKER, "", f"# {skill.title} of {label}", "",
             f"Seen in {skill.sessions} sessions of {label}. Commands that worked, most used first:", ""]
    for i, c in enumerate(skill.commands[:MAX_COMMANDS], 1):
        lines.append(f"{i}. {_command(c)} — {_count(c.support)}")
    if skill.pitfalls:
        lines += ["", "## Pitfalls seen", ""]
        lines += [f"- {c.text} — {_count(c.support)}" for c in skill.pitfalls[:MAX_PITFALLS]]
    notes, total = _notes(skill)
    lines += ["", "## Sessions", ""]
    lines += [f"- [{o.when[:10] or 'undated'} {_label(o.title)}](../../{o.path})" for o in notes]
    if total > MAX_SESSIONS:
        lines.append(f"- … and {total - MAX_SESSIONS} more in sessions/")
    return "\n".join(lines) + "\n"


def _command(c: Cluster) -> str:
    spans = code_spans(c.text)
    return " then ".join(f"`{s}`" for s in spans) if spans else c.text


def _count(n: int) -> str:
    return f"{n} session{'s' if n != 1 else ''}"


def _label(title: str) -> str:
    text = " ".join(title.replace("[", "(").replace("]", ")").split()) or "session"
    return text if len(text) <= 60 else text[:59] + "…"


def _notes(skill: Skill):
    """The most recent notes its commands came from (one occurrence each), newest first, and how many
    notes there are in all."""
    latest: dict[str, object] = {}
    for c in skill.commands:
        for o in c.notes():
            held = latest.get(o.path)
            if held is None or (o.when, o.path) > (held.when, held.path):
                latest[o.path] = o
    total = len(frozenset().union(*(c.paths for c in skill.commands)))
    return heapq.nlargest(MAX_SESSIONS, latest.values(), key=lambda o: (o.when, o.path)), total
