"""How to build, test and run a project: the [command] learnings worth a line of its briefing.

One line per purpose (build, test, lint…), directory and tool: the most recent form that worked on the
whole project, as a newcomer would type it (display pipes, redirects and progress echoes set aside, the
sub-directory it runs in kept); the agent's advice on how to run the project as it said it. A command
whose program a later rule replaced ("use pnpm instead of npm") is left out: the later holds.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from functools import lru_cache

from memgit.consolidate.heuristic import skills as skills_mod
from memgit.consolidate.heuristic.graph import Cluster, code_spans
from memgit.extract.heuristic.commands import displayed, generic, named, narrowed_to, partial
from memgit.extract.heuristic.shell import as_typed, leading_dir, program, verbatim

PER_PURPOSE = 2  # tools shown for one purpose (a Go build and the frontend's npm build)
PURPOSES = ("build", "test", "one test", "lint", "typecheck", "format", "run", "ci", "install")
_PURPOSE_LABEL = {"build": "Build", "test": "Test", "one test": "One test", "lint": "Lint", "typecheck": "Type-check",
                  "format": "Format", "run": "Run", "ci": "CI locally", "install": "Set up", "other": "Also"}


def purposes(clusters: Sequence[Cluster], replaced: Collection[str] = ()) -> list[tuple[tuple[str, ...], Cluster]]:
    """The [command]s worth a line, by purpose (build, test, …): for each purpose, directory and
    program, the most recent form that worked on the whole project (a run of one file or test only
    when nothing else is known); at most PER_PURPOSE programs a purpose, the latest first (`go build`
    and `npm run build` in one project). A chain is kept only for a purpose no single command covers.
    A command whose program a later rule replaced (`replaced`: "npm" after "use pnpm instead of npm")
    is left out."""
    latest: dict[tuple[tuple[str, ...], str, str], Cluster] = {}
    for c in clusters:
        if c.type != "command" or c.superseded_by is not None:
            continue
        form = _form(c)
        spans = code_spans(form)
        if replaced and any(program(span) in replaced for span in spans):
            continue
        kinds = skills_mod.categories(c) or ("other",)
        if kinds == ("test",) and any(named(verbatim(span)) for span in spans):
            kinds = ("one test",)  # beside the whole suite, not instead of it
        key = (kinds, _directory(form), _tool(spans[0]) if spans else "")
        held = latest.get(key)
        if held is None or _preferred(c) > _preferred(held):
            latest[key] = c
    single = {kinds[0] for kinds, _, _ in latest if len(kinds) == 1}
    chosen: dict[tuple[tuple[str, ...], str], list[Cluster]] = {}
    for (kinds, where, _), c in sorted(latest.items(), key=lambda kv: _preferred(kv[1]), reverse=True):
        if len(kinds) > 1 and set(kinds) <= single:
            continue
        group = chosen.setdefault((kinds, where), [])
        if len(group) < PER_PURPOSE and (not group or _clean(_form(c))[0]):
            group.append(c)
    order = [*PURPOSES, "other"]
    return sorted(((kinds, c) for (kinds, _), group in chosen.items() for c in group),
                  key=lambda kc: (len(kc[0]) > 1, [order.index(k) if k in order else len(order) for k in kc[0]],
                                  _directory(_form(kc[1]))))


_WRAPPERS = frozenset("uv run poetry pipenv pdm hatch npx pnpx bunx exec python python3 -m bundle rye".split())


def _tool(span: str) -> str:
    """The tool a command runs, past its runner (`uv run pytest -x` -> pytest; `npm run build` -> npm)."""
    words = as_typed(verbatim(span)).split()
    return next((w for w in words if w not in _WRAPPERS and not w.startswith("-")), words[0] if words else "")


def _directory(text: str) -> str:
    """The sub-directory a command runs in (`cd web/frontend && npm run build`), "" for the root."""
    spans = code_spans(text)
    where = leading_dir(spans[0]) if spans else None
    return where.strip("./") if where and not where.startswith(("/", "~")) else ""


@lru_cache(maxsize=4096)
def _clean(text: str) -> tuple[bool, bool]:
    """(on the whole project, without a display pipe) for a [command]'s text (a project's commands are
    said in a few wordings, thousands of times: each wording is judged once)."""
    spans = code_spans(text)
    return (not any(partial(verbatim(s)) for s in spans), not any(displayed(s) for s in spans))


def _preferred(c: Cluster) -> tuple:
    """Whole project over part of it, then without a display pipe (`| tail`), then the latest."""
    return (*_clean(_form(c)), c.recency, -c.support, c.text)


def _form(c: Cluster) -> str:
    """The wording of a [command] to show: its latest form, of the cleanest forms it was seen in."""
    best = max(c.occurrences, key=lambda o: (*_clean(o.text), o.when, o.text))
    return best.text


# How the extractor phrases a command it saw pass ("Tests run with `go test ./...`.", "Build and lint with
# `…`."): the briefing shows the command itself; the agent's advice ("Run with `-loglevel debug`.") as said.
_VERB = r"(?:test|lint|format|type-check|build|run|run CI|install)"
_PHRASED = re.compile(r"^(?:Tests run|Run one test|Lint|Format|Type-check|Build|Run the project|"
                      r"Run the CI workflow locally|"
                      rf"Install or set up|[A-Z][a-z-]+(?:, {_VERB})* and {_VERB}) with `[^`]+`\.$")


_ON_FILES = frozenset(("test", "lint", "typecheck", "format"))  # purposes a run narrows to files or folders


def command_line(kinds: tuple[str, ...], c: Cluster) -> str:
    """"- Test: `go test ./...`": the purpose, then the command as a newcomer would type it (display
    pipes, redirects and noise flags set aside; the sub-directory it runs in kept)."""
    form = _form(c)
    spans = code_spans(form)
    if not spans or not _PHRASED.match(form):  # the agent's advice ("Run cc-backend with `-loglevel debug`.")
        return f"- {_advice_line(kinds, form, spans)}"
    where = _directory(form)
    typed = [as_typed(verbatim(span)) for span in spans]
    if kinds == ("one test",):
        typed = [generic(t) for t in typed]
    shown = [f"`{f'cd {where} && ' if where else ''}{t}`" for t in typed]
    labels = [_PURPOSE_LABEL.get(k, k) for k in dict.fromkeys(kinds)]
    label = " and ".join([labels[0], *(x if x.startswith("CI") else x.lower() for x in labels[1:])])
    parts = [where] if where else []
    if set(kinds) <= _ON_FILES and not _clean(form)[0]:  # only a narrowed run is known: said, not passed off as the whole
        parts += [part for part in map(narrowed_to, typed) if part][:1]
    if parts:
        label += f" ({', '.join(parts)})"
    return f"- {label}: {', '.join(shown)}"


_PLAIN = re.compile(r"^- (?P<label>[^:`]+): (?P<command>`[^`]+`)$")


def command_lines(chosen: Sequence[tuple[tuple[str, ...], Cluster]]) -> list[str]:
    """The lines of `purposes`, two tools of one purpose and place on one line ("- Build: `go build ./...`
    or `make`"): a newcomer reads the choice at once. Advice lines ("— runs …") stay lines of their own, and
    a plain command one of them says it runs is told there only."""
    lines: list[str] = []
    for kinds, c in chosen:
        line = command_line(kinds, c)
        plain, before = _PLAIN.match(line), _PLAIN.match(lines[-1]) if lines else None
        if plain and before and plain["label"] == before["label"]:
            lines[-1] += f" or {plain['command']}"
        else:
            lines.append(line)
    return [line for line in lines if not _told_in_advice(line, lines)]


_ADVICE = re.compile(r"^- (?P<label>[^:`]+): `[^`]+` — (?P<what>.+)$")


def _told_in_advice(line: str, lines: Sequence[str]) -> bool:
    """A plain command another line of its purpose says it runs ("Lint: `golangci-lint run`" beside
    "Lint: `make lint` — runs `golangci-lint run ./...`"): one line tells both."""
    if not (plain := _PLAIN.match(line)) or " or " in line:
        return False
    command = plain["command"].strip("`")
    for other in lines:
        advice = _ADVICE.match(other)
        if advice and advice["label"] == plain["label"] and any(
                span == command or span.startswith(command + " ") for span in code_spans(advice["what"])):
            return True
    return False


# The agent's advice in the two forms a purpose can head: "`make lint` — runs `golangci-lint run ./...`"
# and "Start with `./cc-backend -server -dev`." / "Run `golangci-lint run`." (a command, not flags alone).
_DESCRIBED = re.compile(r"^`(?P<command>[^`]+)`\s*(?:[—–-]|:)\s*(?P<what>.+?)\.?$")
_TOLD = re.compile(r"^(?:run|start|launch|use)(?: \w+)? (?:with )?`(?P<command>[^-`][^`]*)`\.?$", re.I)


def _advice_line(kinds: tuple[str, ...], form: str, spans: list[str]) -> str:
    """The agent's advice under its purpose when it names a whole command ("Lint: `make lint` — runs
    `golangci-lint run ./...`"), a flag that makes it log more under "Debug", else as said."""
    label = _PURPOSE_LABEL.get(kinds[0]) if kinds and kinds[0] != "other" else None
    if (described := _DESCRIBED.match(form)) and label:
        return f"{label}: `{described.group('command')}` — {described.group('what')}"
    if (told := _TOLD.match(form)) and (label or told.group("command").startswith("./")):
        return f"{label or 'Run'}: `{told.group('command')}`"
    if any(_DEBUG.search(span) for span in spans):  # flags that make it say more, not a command of its own
        return f"Debug: {form[0].lower()}{form[1:]}"
    return form


# A flag that makes a program log more: how to see what it does when something goes wrong.
_DEBUG = re.compile(r"(?:^|\s)--?(?:verbose|debug|trace|log-?level[= ]+(?:debug|trace))(?=\s|$)", re.I)


_INSTEAD = re.compile(r"\b(?:use|prefer|switch to|go with|stick (?:to|with))\s+`?(?P<new>[\w.-]+)`?\s+(?:instead of|rather than|"
                      r"over|not)\s+`?(?P<old>[\w.-]+)`?|\binstead of\s+`?(?P<old2>[\w.-]+)`?,?\s+use\s+`?(?P<new2>[\w.-]+)",
                      re.I)


def replaced_programs(clusters: Sequence[Cluster]) -> set[str]:
    """Programs a holding rule replaced ("Use pnpm instead of npm" -> {"npm"}) after their last use:
    the later holds, and the briefing never shows both."""
    last_use: dict[str, str] = {}
    for c in clusters:
        if c.type == "command":
            for o in c.occurrences:
                for span in code_spans(o.text):
                    name = program(span)
                    last_use[name] = max(last_use.get(name, ""), o.when)
    out = set()
    for c in clusters:
        if c.type not in ("preference", "convention") or c.superseded_by is not None:
            continue
        match = _INSTEAD.search(c.text)
        if match is None:
            continue
        old = (match.group("old") or match.group("old2") or "").lower()
        if old and old in last_use and last_use[old] <= c.recency:
            out.add(old)
    return out


def runs(c: Cluster, programs: Collection[str]) -> bool:
    """The learning quotes a command of one of these programs (a gotcha about `npm run build`)."""
    return bool(programs) and any(program(span) in programs for span in code_spans(c.text))
