"""Commands: how the project is built, tested, linted, formatted and run — as they ran and passed.

One command per kind of command (family: runner, tool and subcommand), quoted verbatim (a leading
`cd DIR &&` aside) from a call that succeeded. Of the variants that passed, the most general wins:
the whole suite rather than one test, no display pipe, no one-off path; then the one run most
often; then the latest. A chain (`fmt && lint && test`) stands for the families it covers.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.filters import is_ephemeral, problem, scrub
from memgit.extract.heuristic.session import Run, Session
from memgit.extract.heuristic.shell import CATEGORIES, as_typed, leading_dir, parse, verbatim

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


def narrowed_to(command: str) -> str:
    """What part of the project a run narrowed to ("one file", "part of the project"), "" for the whole."""
    if not partial(command):
        return ""
    return "one file" if len(_ONE_FILE.findall(command)) == 1 and not named(command) else "part of the project"


def adds_option(failed: str, works: str) -> bool:
    """The working command adds an option the failing one lacked (`act -j test` -> `act
    --container-architecture linux/amd64 -j test`), rather than fixing a path or a name."""
    return bool(_options(works) - _options(failed))


def paths_corrected(failed: str, works: str) -> bool:
    """The working command is the failing one with other paths or packages (`go test ./internal/api/...`
    -> `go test ./internal/repository/...`), as typed (display pipes aside): a typo found, not a lesson."""
    def rest(command: str) -> list[str]:
        return [w for w in as_typed(verbatim(command)).split() if "/" not in w and not _FILE_ARG.search(w)]
    return failed != works and rest(failed) == rest(works)


_FILE_ARG = re.compile(r"^[\w.-]+\.\w{1,5}$")  # `main.go`, `test_x.py`: a file named alone


def _options(command: str) -> set[str]:
    shell = parse(command)
    return {w.split("=", 1)[0] for w in (shell.text if shell else command).split() if w.startswith("-")}


def named(command: str) -> bool:
    """A test run narrowed to named tests (`-run "TestA|TestB"`, `-k name`, `test_x.py::test_y`)."""
    return _NAMED.search(command) is not None


def displayed(command: str) -> bool:
    """Output cut or filtered for the screen (`| tail -20`, `2>&1 | grep`)."""
    return _DISPLAY.search(command) is not None


def directory(run: Run, cwd: str | None) -> str:
    """The sub-directory of the project a command ran in (`cd web/frontend && npm run build`), "" for
    its root: a newcomer needs it to run the command again."""
    where = leading_dir(run.call.command or "")
    if not where:
        return ""
    where = where.rstrip("/")
    if where.startswith("/"):
        root = (cwd or "").rstrip("/")
        if not root or not where.startswith(root + "/"):
            return ""  # the project's root itself, or somewhere outside it
        where = where[len(root) + 1:]
    where = where.removeprefix("./")
    return "" if where in ("", ".") or where.startswith(("..", "~", "$")) else where


def phrase(run: Run, where: str = "") -> str:
    command = f"cd {where} && {run.command}" if where else run.command
    unique = list(dict.fromkeys(run.shell.categories))
    if len(unique) == 1:
        return PHRASES[unique[0]].format(command)
    verbs = [_VERBS[c] for c in unique]
    return f"{', '.join(verbs[:-1]).capitalize()} and {verbs[-1]} with `{command}`."


def usable(run: Run, command: str | None = None) -> bool:
    """A run worth quoting, as it ran or in the `command` form memgit shows of it."""
    command = run.command if command is None else command
    return (run.ok and not run.shell.meta and "\n" not in command and "`" not in command
            and len(command) <= MAX_CHARS and not is_ephemeral(command))


def learn(s: Session) -> list[Candidate]:
    by_family: dict[str, list[Run]] = {}
    where: dict[str, str] = {}
    for run in s.runs + s.side_runs:
        if usable(run):
            here = directory(run, s.cwd)
            family = f"{here}: {run.shell.family}" if here else run.shell.family
            by_family.setdefault(family, []).append(run)
            where[family] = here
    steps = {family: set(family.split(" && ")) for family in by_family}
    chosen_dir: dict[tuple[str, ...], str] = {}
    by_purpose: dict[tuple[str, ...], tuple[Run, int]] = {}
    for family, runs in by_family.items():
        if any(steps[family] < other for other in steps.values()):
            continue  # a chain that passed says it already
        counts: dict[str, int] = {}
        for run in runs:
            counts[run.command] = counts.get(run.command, 0) + 1
        best = min(runs, key=lambda r: (generality(r.command), -counts[r.command], -r.index))
        purpose = tuple(dict.fromkeys(best.shell.categories))
        if where[family]:
            purpose = (*purpose, f"in {where[family]}")  # the frontend's build beside the backend's
        chosen = by_purpose.get(purpose)
        if chosen is None or (generality(best.command), -len(runs)) < (generality(chosen[0].command), -chosen[1]):
            by_purpose[purpose] = (best, len(runs))
            chosen_dir[purpose] = where[family]
    found = advised(s)
    for purpose, (best, seen) in by_purpose.items():  # one command per purpose: the most general
        if len(purpose) == 1 and partial(best.command) and any(
                purpose[0] in other and len(other) > 1 and not chosen_dir[other] for other in by_purpose):
            continue  # part of the suite, where a chain that passed ran the whole of it
        kind = purpose[0]
        score = 2.0 + 1.5 * _WEIGHT[kind] + 0.3 * min(3, seen) - 0.3 * min(3.0, generality(best.command))
        found.append(Candidate("command", phrase(best, chosen_dir[purpose]), score, f"command:{CATEGORIES.index(kind)}"))
    if (whole := by_purpose.get(("test",))) and not named(whole[0].command):
        found += one_test(s.runs + s.side_runs, s.cwd)
    return found


# A test run narrowed to named tests: `-run "TestA|TestB"`, `-k name`, `-t "name"`, `path::name`. The names
# are the session's; the form is what a newcomer reuses, so they are shown as NAME.
_NAMED = re.compile(r"(?P<flag>(?:^|\s)(?:-run|-k|-t|--grep|--testNamePattern)(?:\s+|=))"
                    r"(?P<name>\"[^\"]*\"|'[^']*'|[^\s|;&]+)|(?:::[\w\[\]-]+)+(?P<case>)")


def one_test(runs: list[Run], cwd: str | None) -> list[Candidate]:
    """How to run one test, beside the whole suite: the latest passing test run narrowed to named tests,
    the names as NAME (`go test ./cmd/cli/strategy/ -run 'NAME' -v -count=1`)."""
    narrowed = [r for r in runs if r.ok and r.shell.categories == ("test",) and named(r.command)]
    if not narrowed:
        return []
    run = max(narrowed, key=lambda r: r.index)
    form = generic(_DISPLAY_TAIL.sub("", run.command))
    if cwd:
        form = form.replace(cwd.rstrip("/") + "/", "")
    if not usable(run, form):
        return []
    return [Candidate("command", f"Run one test with `{form}`.", 2.0 + 1.5 * _WEIGHT["test"] - 0.5, "command:one")]


def generic(command: str) -> str:
    """A run of named tests with the names as NAME: the session's tests are its own, the form is what
    a newcomer reuses."""
    return _NAMED.sub(_placeholder, command).strip()


def _placeholder(found: re.Match) -> str:
    if found.group("case") is not None:
        return "::NAME"
    quote = found.group("name")[0] if found.group("name")[0] in "\"'" else "'"
    return f"{found.group('flag')}{quote}NAME{quote}"


_DISPLAY_TAIL = re.compile(r"\s*(?:\d?>&\d\s*)?\|\s*(?:head|tail|grep)\b.*$")


# ---- what the agent told the person to run --------------------------------------------------------

MAX_ADVISED = 2
# "Run cc-backend with `-loglevel debug` to see the claims", "Start the server with `./app -dev`",
# "`make fmt` — formats every Go file with gofumpt": how to run the project, in the agent's words.
_ADVICE = re.compile(
    r"^(?:(?:to \w[^,]{0,40},\s*)?(?:run|start|launch|build|test|lint|format|use|execute|invoke|enable \w+(?: \w+)?:\s*(?:run|start))"
    r"\b[^`]{0,40}`[^`]+`|`[^`]+`\s*(?:[—–-]|:)\s*(?:runs|formats|lints|builds|starts|checks|installs|generates|"
    r"cleans|serves|compiles|regenerates|bundles)\b)",
    re.I,
)
_DEICTIC_TAIL = re.compile(r"\s+(?:(?:to|and) (?:see|check|verify|confirm|test|try) (?:these|this|that|it|them)\b|to see\b|"
                           r"and (?:check|look|verify|confirm|see|log in)\b|—\s*you should\b).*$", re.I)
# Where advice starts: a sentence, a clause, or a paragraph a list item carries on with after a code
# span ("… roles: [...]` Run cc-backend with `-loglevel debug` to see these").
_PIECES = re.compile(r";\s+|:\s+(?=`)|(?<=[.!?])\s+(?=[A-Z`])|(?<=`)\s+(?=[A-Z][a-z]+\s)")
# Cheap pre-check of a text: a verb of running close before a code span, or a code span described.
_MAYBE_ADVICE = re.compile(r"\b(?:run|start|launch|build|test|lint|format|use|execute|invoke)\b[^`\n]{0,40}`|"
                           r"`\s*(?:[—–-]|:)\s*(?:runs|formats|lints|builds|starts|checks|installs|generates|cleans|"
                           r"serves|compiles|regenerates|bundles)\b", re.I)
_PROJECT_CALL = re.compile(r"^(?:\./|make\b|-{1,2}[a-z])")
# Further steps after the command ("start with `./startDemo.sh`, send SIGTERM, measure exit time"): a
# plan's check of one change; how to start the project is the part before them.
_MORE_STEPS = re.compile(r"(?<=`),\s*(?:then\s+)?(?:send|measure|check|verify|wait|kill|stop|open|compare|confirm|"
                         r"observe|watch|trigger|call|curl|restart|run|time|count|look|inspect|grep)\b[^`]*$", re.I)
# Flags alone run nothing: "Run cc-backend with `-loglevel debug`" names its program, "Run with `-x`" does not.
_NAMED_PROGRAM = re.compile(r"^(?:run|start|launch)\s+(?!with\b)[\w./-]+\s+with\b", re.I)


def advised(s: Session) -> list[Candidate]:
    """How to build, test or run the project as the agent told the person (its answers and the plans
    they approved), when it names a command of the project: a make target, a script, the project's
    binary with its flags, or a build/test tool memgit knows."""
    found: list[Candidate] = []
    verified = {r.shell.family for r in s.runs + s.side_runs if r.ok}
    texts = [x.answer for x in s.exchanges if x.answer] + list(s.plans)
    for text in texts:
        if not _MAYBE_ADVICE.search(text):
            continue  # most answers advise nothing: not cut into units for this learner
        for unit in s.units(text):
            if not _MAYBE_ADVICE.search(unit.text):
                continue
            for piece in _PIECES.split(unit.text):
                if candidate := _advice(piece, s.cwd, verified):
                    found.append(candidate)
                    if len(found) >= MAX_ADVISED:
                        return found
    return found


def _advice(piece: str, cwd: str | None, verified: set[str]) -> Candidate | None:
    said = _MORE_STEPS.sub("", _DEICTIC_TAIL.sub("", scrub(piece, cwd))).strip().rstrip(".,;:")
    if not said.startswith("`"):
        said = re.sub(r"^[\w ]{2,30}:\s+(?=\w)", "", said)  # "Verification: run …"
    if not _ADVICE.match(said) or problem(said + "."):
        return None
    spans = re.findall(r"`([^`]+)`", said)
    parsed = [parse(span) for span in spans]
    if not any(_PROJECT_CALL.match(span) or shell for span, shell in zip(spans, parsed)) or is_ephemeral(said):
        return None
    if all(span.startswith("-") for span in spans) and not _NAMED_PROGRAM.match(said):
        return None
    if any(shell and shell.family in verified for shell in parsed):
        return None  # it ran in this session: the run itself is the better learning
    # How to start the project's own program (`./app -server -dev`) is seldom seen run by an agent: this
    # advice is the only place a newcomer learns it, so it weighs as a command that ran.
    score = 3.2 if any(span.startswith("./") for span in spans) else 2.6
    return Candidate("command", said[0].upper() + said[1:] + ("" if said.endswith(")") else "."), score, "advised")
