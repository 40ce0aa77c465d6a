"""Command and gotcha learnings from the shell runs of a session.

- [command]: build/test/lint/format/type-check/run/install commands that passed, grouped by family
  (runner + tool + subcommand), the most frequent normalised variant of each, at most five.
- [gotcha]: a run that failed with an environment/tooling or lint symptom, then passed later in
  the same family; what happened in between (setup commands run, files edited, or a different
  invocation) is the fix. Failures of the code under development (assertions, compile errors of
  new code) are ordinary work, not gotchas.
- [gotcha] (tool errors): a plain shell command failing with an environment symptom followed,
  within three commands, by a related command that worked (`python` → `python3`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..model import ToolCall
from ._shell import CATEGORIES, Shell, failed, parse, program, short
from ._symptoms import symptom, workaround_symptom
from ._text import is_ephemeral

MAX_COMMANDS = 5
_ABSOLUTE = re.compile(r"(?:^|\s)[~/]")
EDIT_TOOLS = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit", "apply_patch", "str_replace_based_edit_tool"})
_FIX_PROGRAMS = frozenset(
    "rm mkdir chmod ln cp mv touch export docker kill brew apt apt-get pip pip3 uv npm pnpm yarn bun corepack "
    "nvm pyenv rustup go mise asdf direnv poetry pdm conda make".split()
)
_FIX_GIT = ("git checkout", "git stash", "git submodule", "git clean", "git config", "git lfs")
_VERBS = {"test": "test", "lint": "lint", "format": "format", "typecheck": "type-check", "build": "build",
          "run": "run", "ci": "run CI", "install": "install"}
_PHRASES = {
    "test": "Tests run with `{}`.",
    "lint": "Lint with `{}`.",
    "format": "Format with `{}`.",
    "typecheck": "Type-check with `{}`.",
    "build": "Build with `{}`.",
    "run": "Run the project with `{}`.",
    "ci": "Run the CI workflow locally with `{}`.",
    "install": "Install or set up with `{}`.",
}


@dataclass(frozen=True, slots=True)
class Run:
    """One answered shell call that built, tested, linted or ran the project."""

    index: int  # position in the session's ordered tool calls
    call: ToolCall
    shell: Shell
    ok: bool


def runs(calls: list[ToolCall]) -> list[Run]:
    found = []
    for index, call in enumerate(calls):
        if call.answered and (shell := parse(call.command)):
            found.append(Run(index, call, shell, not failed(call.output, call.is_error)))
    return found


def _phrase(shell: Shell) -> str:
    unique = list(dict.fromkeys(shell.categories))
    if len(unique) == 1:
        return _PHRASES[unique[0]].format(shell.text)
    verbs = [_VERBS[c] for c in unique]
    return f"{', '.join(verbs[:-1]).capitalize()} and {verbs[-1]} with `{shell.text}`."


def command_learnings(all_runs: list[Run]) -> list[str]:
    """The most useful few passing commands, one per family."""
    counts: dict[str, dict[str, int]] = {}
    first: dict[str, int] = {}
    shells: dict[str, Shell] = {}
    for order, run in enumerate(all_runs):
        if not run.ok or run.shell.meta or is_ephemeral(run.shell.text):
            continue
        variants = counts.setdefault(run.shell.family, {})
        variants[run.shell.text] = variants.get(run.shell.text, 0) + 1
        first.setdefault(run.shell.family, order)
        shells.setdefault(run.shell.text, run.shell)
    # A chain (`fmt && lint && test`) says it all: drop the families whose steps it covers.
    steps = {family: set(family.split(" && ")) for family in counts}
    best = []
    installs = 0
    for family, variants in counts.items():
        if any(steps[family] < other for other in steps.values()):
            continue
        text = max(variants, key=lambda t: (variants[t], -len(t)))
        shell = shells[text]
        if shell.categories == ("install",):
            installs += 1
            if installs > 1:
                continue
        best.append((CATEGORIES.index(shell.categories[0]), first[family], shell))
    return [_phrase(shell) for _, _, shell in sorted(best, key=lambda b: b[:2])[:MAX_COMMANDS]]


def _fix_commands(calls: list[ToolCall]) -> list[str]:
    """Setup commands that worked (installs, `rm`, `docker …`, `git stash` …): candidate fixes."""
    fixes: list[str] = []
    for call in calls:
        if not call.command or not call.answered or failed(call.output, call.is_error):
            continue
        if shell := parse(call.command):
            text = shell.text if "install" in shell.categories else None  # another build/test run is no fix
        else:
            text = short(call.command)
            if text and program(text) not in _FIX_PROGRAMS and not text.startswith(_FIX_GIT):
                text = None
        if text and not is_ephemeral(text) and text not in fixes:
            fixes.append(text)
    return fixes[:2]


def _edited(calls: list[ToolCall]) -> list[str]:
    names: list[str] = []
    for call in calls:
        if call.name in EDIT_TOOLS and not call.is_error and call.file_path:
            name = call.file_path.rstrip("/").rsplit("/", 1)[-1]
            if name not in names:
                names.append(name)
    return names


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def _gotcha(failure: Run, sym: str, success: Run, between: list[ToolCall]) -> str | None:
    head = f"`{failure.shell.text}` fails with {_quote(sym)}"
    if fixes := _fix_commands(between):
        return f"{head} until `{'` and `'.join(fixes)}` is run."
    if edited := _edited(between):
        more = " and others" if len(edited) > 2 else ""
        return f"{head}; fixed by editing {' and '.join(edited[:2])}{more}."
    if success.shell.text != failure.shell.text:
        return f"{head}; `{success.shell.text}` works."
    return None


def gotchas(all_runs: list[Run], calls: list[ToolCall], limit: int = 3) -> list[str]:
    """Failed-then-fixed pairs from build/test runs, then plain tool errors with a clear workaround."""
    found: list[str] = []
    pending: dict[str, tuple[Run, str]] = {}
    done: set[str] = set()  # one gotcha per family: the first episode says it
    for run in all_runs:
        if run.shell.meta:
            continue
        family = run.shell.family
        sym = None if run.ok else symptom(run.call.output, run.shell.categories)
        if family in pending and (run.ok or not sym or sym[0] != pending[family][1]):
            # The symptom is gone (a pass, or a different failure): what came between fixed it.
            failure, text = pending.pop(family)
            gotcha = _gotcha(failure, text, run, calls[failure.index + 1 : run.index])
            if gotcha and not is_ephemeral(gotcha) and gotcha not in found:
                found.append(gotcha)
                done.add(family)
        if sym and sym[1] in ("env", "lint") and family not in pending and family not in done:
            pending[family] = (run, sym[0])
    found.extend(t for t in _workarounds(calls, {r.index for r in all_runs}) if t not in found)
    return found[:limit]


def _related(prog_a: str, prog_b: str) -> bool:
    return bool(prog_a) and prog_a.rstrip("0123456789") == prog_b.rstrip("0123456789")


def _workarounds(calls: list[ToolCall], build_indexes: set[int]) -> list[str]:
    shell_calls = [c for i, c in enumerate(calls) if c.command and c.answered and i not in build_indexes]
    found = []
    for pos, call in enumerate(shell_calls):
        if not failed(call.output, call.is_error):
            continue
        sym = symptom(call.output)
        if not sym or not workaround_symptom(sym[0]):
            continue
        prog = program(call.command or "")
        for later in shell_calls[pos + 1 : pos + 4]:
            if failed(later.output, later.is_error) or not _related(prog, program(later.command or "")):
                continue
            before, after = short(call.command or ""), short(later.command or "")
            absolute = _ABSOLUTE.search((call.command or "") + " " + (later.command or ""))
            if before and after and before != after and not absolute and not is_ephemeral(before + after):
                found.append(f"`{before}` fails with {_quote(sym[0])}; `{after}` works instead.")
            break
    return found
