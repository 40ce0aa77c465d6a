"""Commands: how the project is built, tested, linted, formatted and run — as they ran and passed.

One command per kind of command (family: runner, tool and subcommand), quoted verbatim (a leading
`cd DIR &&` aside) from a call that succeeded. Of the variants that passed, the most general wins:
the whole suite rather than one test, no display pipe, no one-off path; then the one run most
often; then the latest. A chain (`fmt && lint && test`) stands for the families it covers.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.filters import is_ephemeral
from memgit.extract.heuristic.session import Run, Session
from memgit.extract.heuristic.shell import CATEGORIES

MAX_CHARS = 160
_VERBS = {"test": "test", "lint": "lint", "format": "format", "typecheck": "type-check", "build": "build",
          "run": "run", "ci": "run CI", "install": "install"}
PHRASES = {
    "test": "Tests run with `{}`.",
    "lint": "Lint with `{}`.",
    "format": "Format with `{}`.",
    "typecheck": "Type-check with `{}`.",
    "build": "Build with `{}`.",
    "run": "Run the project with `{}`.",
    "ci": "Run the CI workflow locally with `{}`.",
    "install": "Install or set up with `{}`.",
}
_WEIGHT = {"test": 1.0, "build": 0.9, "lint": 0.8, "typecheck": 0.8, "format": 0.6, "ci": 0.9, "run": 0.6,
           "install": 0.3}
_SELECTION = re.compile(r"(?:^|\s)(?:-k|-run|--run|-t|--grep|-g|--filter|--testNamePattern|--deselect|-m)(?:\s|=)|::")
_ONE_FILE = re.compile(r"\S+\.(?:py|ts|tsx|js|jsx|go|rs|rb|java|kt|php|spec|test)\b")
# A path two levels deep (`./cmd/cli/logging/...`, `tests/unit`) narrows a run to part of the project.
_SUB_PATH = re.compile(r"(?:^|\s)(?:\./)?[\w.-]*\w[\w.-]*/[\w.-]*\w")
_DISPLAY = re.compile(r"\|\s*(?:head|tail|grep|less|more|tee|cat|sort|wc|jq|sed|awk)\b")


def generality(command: str) -> float:
    """Lower is more general: one test, a display pipe or a single file make a command specific."""
    penalty = 2.0 * len(_SELECTION.findall(command)) + 1.0 * len(_ONE_FILE.findall(command))
    penalty += 1.0 if displayed(command) else 0.0
    penalty += 0.5 if re.search(r"\d?>&\d|>\s*/dev/null", command) else 0.0
    penalty += 1.0 if re.search(r"(?:^|\s)/(?:Users|home|tmp|var)/", command) else 0.0
    return penalty + len(command) / 200


def partial(command: str) -> bool:
    """A run of part of the project: one test, one file or a sub-directory."""
    return bool(_SELECTION.search(command) or _ONE_FILE.search(command) or _SUB_PATH.search(command))


def displayed(command: str) -> bool:
    """Output cut or filtered for the screen (`| tail -20`, `2>&1 | grep`)."""
    return _DISPLAY.search(command) is not None


def phrase(run: Run) -> str:
    unique = list(dict.fromkeys(run.shell.categories))
    if len(unique) == 1:
        return PHRASES[unique[0]].format(run.command)
    verbs = [_VERBS[c] for c in unique]
    return f"{', '.join(verbs[:-1]).capitalize()} and {verbs[-1]} with `{run.command}`."


def usable(run: Run) -> bool:
    command = run.command
    return (run.ok and not run.shell.meta and "\n" not in command and "`" not in command
            and len(command) <= MAX_CHARS and not is_ephemeral(command))


def learn(s: Session) -> list[Candidate]:
    by_family: dict[str, list[Run]] = {}
    for run in s.runs + s.side_runs:
        if usable(run):
            by_family.setdefault(run.shell.family, []).append(run)
    steps = {family: set(family.split(" && ")) for family in by_family}
    by_purpose: dict[tuple[str, ...], tuple[Run, int]] = {}
    for family, runs in by_family.items():
        if any(steps[family] < other for other in steps.values()):
            continue  # a chain that passed says it already
        counts: dict[str, int] = {}
        for run in runs:
            counts[run.command] = counts.get(run.command, 0) + 1
        best = min(runs, key=lambda r: (generality(r.command), -counts[r.command], -r.index))
        purpose = tuple(dict.fromkeys(best.shell.categories))
        chosen = by_purpose.get(purpose)
        if chosen is None or (generality(best.command), -len(runs)) < (generality(chosen[0].command), -chosen[1]):
            by_purpose[purpose] = (best, len(runs))
    found = []
    for purpose, (best, seen) in by_purpose.items():  # one command per purpose: the most general
        if len(purpose) == 1 and partial(best.command) and any(
                purpose[0] in other and len(other) > 1 for other in by_purpose):
            continue  # part of the suite, where a chain that passed ran the whole of it
        kind = purpose[0]
        score = 2.0 + 1.5 * _WEIGHT[kind] + 0.3 * min(3, seen) - 0.3 * min(3.0, generality(best.command))
        found.append(Candidate("command", phrase(best), score, f"command:{CATEGORIES.index(kind)}"))
    return found
