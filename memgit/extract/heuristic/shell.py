"""Shell commands: which ones build, test, lint or run the project, of what kind; did they pass.

A command line is split on `&&`, `||`, `;` and pipes (quote-aware). `cd …`, `source …`, `echo …`
segments, display-only pipe tails (`| tail -30`, `| grep …`) and redirections are dropped; the
segments left are classified by their tool (after runners such as `uv run`, `npx`, `python -m`)
or by the script/target name of a task runner (`npm run build`, `mise run test`, `make lint`).
`Shell.text` is the command without what only made sense once (absolute paths, test files and
node ids, `-k`/`-run` selections, verbosity flags): a key to group runs of one command by, never
what a learning quotes — learnings quote the command as it ran (`verbatim`).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache

from memgit.extract.heuristic.filters import scrub

CATEGORIES = ("test", "build", "lint", "typecheck", "format", "run", "ci", "install")

_TOOLS = {
    "test": "pytest py.test tox nox jest vitest mocha ava rspec phpunit ctest nosetests unittest playwright "
    "cypress karma",
    "lint": "ruff eslint flake8 pylint golangci-lint shellcheck hadolint stylelint rubocop markdownlint "
    "actionlint pre-commit biome oxlint standard clippy",
    "format": "black isort prettier gofmt goimports rustfmt clang-format shfmt dprint autopep8 yapf",
    "typecheck": "mypy pyright basedpyright tsc vue-tsc pyre flow",
    "build": "cmake ninja webpack esbuild rollup bazel hugo",
    "run": "uvicorn gunicorn",
    "ci": "act",
}
_TOOL_CATEGORY = {tool: cat for cat, names in _TOOLS.items() for tool in names.split()}
# Tools whose first argument says what they do.
_SUBCOMMANDS = {
    "cargo": {"test": "test", "nextest": "test", "build": "build", "clippy": "lint", "fmt": "format",
              "check": "typecheck", "run": "run", "fetch": "install"},
    "go": {"test": "test", "build": "build", "vet": "lint", "run": "run", "generate": "build",
           "mod": "install", "get": "install"},
    "ruff": {"check": "lint", "format": "format"},
    "biome": {"format": "format", "lint": "lint", "check": "lint"},
    "docker": {"build": "build", "compose": "compose"},
    "docker-compose": {"up": "run", "build": "build"},
    "dotnet": {"test": "test", "build": "build", "run": "run", "restore": "install", "format": "format"},
    "deno": {"test": "test", "lint": "lint", "fmt": "format", "check": "typecheck", "task": "task"},
    "swift": {"test": "test", "build": "build", "run": "run"},
    "zig": {"build": "build", "test": "test"},
    "uv": {"sync": "install", "build": "build", "pip": "pip", "tool": "tool", "lock": "install"},
    "pip": {"install": "install"}, "pip3": {"install": "install"},
    "poetry": {"install": "install", "build": "build", "check": "lint"},
    "pdm": {"install": "install", "build": "build"},
    "hatch": {"build": "build", "test": "test", "fmt": "format"},
    "bundle": {"install": "install"}, "composer": {"install": "install"},
    "mvn": {"test": "test", "package": "build", "install": "build", "compile": "build", "verify": "test"},
    "mkdocs": {"build": "build", "serve": "run"},
    "python": {"manage.py": "django"}, "python3": {"manage.py": "django"},
    "flask": {"run": "run"}, "rails": {"test": "test", "server": "run", "s": "run"},
    "git": {"submodule": "submodule"},  # a submodule is a dependency: updating it is setting up (not `add`)
}
_TASK_RUNNERS = ("npm", "pnpm", "yarn", "bun", "mise", "make", "just", "task", "gradle", "gradlew", "turbo",
                 "nx", "rake", "invoke", "poe", "tox", "nox")
_TASK_NAME = [
    (re.compile(r"^(?:type-?check|check-?types|types|tsc|mypy|pyright)"), "typecheck"),
    (re.compile(r"^(?:test|tests|spec|e2e|check|ci|verify|coverage|unit|integration)"), "test"),
    (re.compile(r"^(?:lint|clippy|vet|eslint|ruff)"), "lint"),
    (re.compile(r"^(?:fmt|format|prettier|pretty)"), "format"),
    (re.compile(r"^(?:build|compile|dist|bundle|package|assemble|all)$|^build"), "build"),
    (re.compile(r"^(?:dev|start|serve|server|run|up|watch|preview)$"), "run"),
    (re.compile(r"^(?:install|i|ci|setup|bootstrap|deps)$"), "install"),
]
_RUNNER_PREFIXES = [
    ("uv", "run"), ("poetry", "run"), ("pipenv", "run"), ("pdm", "run"), ("hatch", "run"), ("rye", "run"),
    ("pnpm", "exec"), ("pnpm", "dlx"), ("yarn", "dlx"), ("bundle", "exec"), ("mise", "exec"), ("mise", "x"),
    ("python", "-m"), ("python3", "-m"), ("py", "-m"), ("npx",), ("bunx",), ("time",), ("sudo",), ("env",),
]
_RUNNER_OPTS_WITH_VALUE = {"--with", "--extra", "--group", "-p", "--python", "--package", "--env-file", "--from"}
_DROP_SEGMENT = re.compile(r"^(?:cd|pushd|popd|source|\.|export|set|echo|printf|sleep|clear|true|false|:|sync)\b")
_DISPLAY_PIPE = re.compile(r"^(?:head|tail|grep|egrep|rg|less|more|tee|cat|sort|uniq|wc|cut|column|jq|sed|awk|tr)\b")
_REDIRECT = re.compile(r"\s*(?:\d?>&\d|&>\s*\S+|\d?>>?\s*\S+|<\s*/dev/null)")
_SHELL_WRAPPER = re.compile(r"^(?:ba|z)?sh\s+-l?c\s+(?P<q>['\"]?)(?P<body>.*)(?P=q)$", re.S)
_SELECT_OPTS = {"-k", "-run", "--run", "-t", "--testNamePattern", "--grep", "-g", "--test-name-pattern",
                "--deselect", "--filter", "-f", "--only"}
_NOISE_FLAGS = re.compile(r"^(?:-v+|-q+|--verbose|--quiet|-s|--tb=\w+|--color(?:=\w+)?|--no-header|-rA|-ra|"
                          r"--no-cache|--no-color|--silent|-rs)$")
_ENV_ASSIGNMENT = re.compile(r"^[A-Z_][A-Z0-9_]*=")
_META_FLAGS = {"--collect-only", "--co", "--help", "-h", "--version", "-V", "--list", "-l", "--markers"}
_SOURCE_FILE = re.compile(r"\.(?:py|pyi|ts|tsx|js|jsx|mjs|cjs|go|rs|rb|java|kt|php|c|cc|cpp|h|hpp|cs|swift|"
                          r"ex|exs|scala|vue|svelte|feature|json|ya?ml|toml|txt|log|html|css)$")
_FAILURE_CASED = re.compile(
    r"^(?:FAIL\b|FAILED\b|ERROR\b|E\s{2,}\S|--- FAIL|npm ERR!|Traceback \(most recent call last\)|"
    r"error(?:\[\w+\])?:|fatal:|panic:|Exit code [1-9])"
    r"|\b[1-9]\d* (?:failed|failing|errors?|issues?)\b|\bERROR task failed\b",
    re.M,
)
_FAILURE_ANY = re.compile(
    r"\bjob failed\b|\bno tests (?:ran|collected)\b|\bcommand not found\b|\bbuild failed\b|"
    r"\bcompilation failed\b|\bexit (?:code|status) [1-9]|\bcannot find module\b|\bModuleNotFoundError\b",
    re.I,
)
_PASS_TAIL = re.compile(
    r"^(?:PASS\b|ok\b)|\b\d+ passed\b(?!.*\b(?:failed|errors?)\b)|\b0 issues\b|All checks passed|"
    r"\bsucceeded\b|BUILD SUCCESSFUL|^\s*Finished\b|Job succeeded",
    re.M,
)


# Cheap pre-check: a command line naming none of these cannot be a build/test/lint/run command.
_MAYBE_BUILD = re.compile(
    r"\b(?:" + "|".join(sorted({re.escape(t) for t in _TOOL_CATEGORY} | {re.escape(t) for t in _SUBCOMMANDS}
                                | {re.escape(t) for t in _TASK_RUNNERS}, key=len, reverse=True)) + r")\b"
)


@dataclass(frozen=True, slots=True)
class Shell:
    """A build/test/lint/run command line, normalised for reuse."""

    text: str  # the normalised command line
    family: str  # runner + tool + subcommand/target of each segment: what makes two runs "the same"
    categories: tuple[str, ...]  # in the order of the segments

    @property
    def meta(self) -> bool:
        """A run that inspects rather than does the work (`--collect-only`, `--help`, `--version`)."""
        return bool(_META_FLAGS & set(self.text.split()))


def _split(command: str) -> list[tuple[str, str]]:
    """Split a command line into (operator before, segment), outside quotes and $( )."""
    parts: list[tuple[str, str]] = []
    op, buf, quote, depth, i = "", [], "", 0, 0
    while i < len(command):
        ch = command[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                buf.append(ch)
                i += 1
                ch = command[i] if i < len(command) else ""
        elif ch in "'\"":
            quote = ch
        elif ch == "(" and i and command[i - 1] == "$":
            depth += 1
        elif ch == ")" and depth:
            depth -= 1
        elif not depth and (two := command[i : i + 2]) in ("&&", "||"):
            parts.append((op, "".join(buf)))
            op, buf, i = two, [], i + 2
            continue
        elif not depth and ch in ";|\n":
            parts.append((op, "".join(buf)))
            op, buf = ch, []
            i += 1
            continue
        buf.append(ch)
        i += 1
    parts.append((op, "".join(buf)))
    return [(op, seg.strip()) for op, seg in parts if seg.strip()]


def _tokens(segment: str) -> list[str]:
    try:
        return shlex.split(segment)
    except ValueError:
        return segment.split()


def _peel(tokens: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Split a segment into (leading env assignments and runners, the tool and its args, runner words)."""
    head: list[str] = []
    runner: list[str] = []
    i = 0
    while i < len(tokens) and _ENV_ASSIGNMENT.match(tokens[i]):
        head.append(tokens[i])
        i += 1
    peeled = True
    while peeled and i < len(tokens):
        peeled = False
        for prefix in _RUNNER_PREFIXES:
            if tuple(t.rsplit("/", 1)[-1] for t in tokens[i : i + len(prefix)]) != prefix:
                continue
            head.extend(tokens[i : i + len(prefix)])
            runner.extend(prefix)
            i += len(prefix)
            while i < len(tokens) and tokens[i].startswith("-") and tokens[i] != "--":
                option = tokens[i]
                head.append(option)
                i += 1
                if option in _RUNNER_OPTS_WITH_VALUE and i < len(tokens):
                    head.append(tokens[i])
                    i += 1
            if i < len(tokens) and tokens[i] == "--":
                head.append(tokens[i])
                i += 1
            peeled = True
            break
    return head, tokens[i:], runner


def _task_category(name: str) -> str | None:
    name = name.split(":", 1)[0].lower()
    for pattern, category in _TASK_NAME:
        if pattern.search(name):
            return category
    return None


def _classify(tool: str, args: list[str]) -> tuple[str | None, int]:
    """(category, number of args that are part of the family key) for one tool invocation."""
    first = args[0] if args else ""
    if tool in ("npm", "pnpm", "yarn", "bun"):
        if (scoped := _workspace_opts(args)) and scoped < len(args):
            # `pnpm --filter @repo/app lint`: a package of a monorepo; its options belong to the family
            category, n_key = _classify(tool, args[scoped:])
            return category, scoped + n_key
        if first in ("run", "run-script"):
            return (_task_category(args[1]) if len(args) > 1 else None), 2
        if tool == "bun" and first == "test":
            return "test", 1
        if first in ("install", "i", "ci") or (tool == "yarn" and not args):
            return "install", 1
        return (_task_category(first) if first and not first.startswith("-") else None), 1
    if tool in ("mise", "turbo", "nx", "task") and first == "run" and len(args) > 1:
        return _task_category(args[1]), 2
    if tool in ("make", "just", "gradle", "gradlew", "rake", "invoke", "poe", "task", "mise", "turbo", "nx"):
        target = next((a for a in args if not a.startswith("-") and "=" not in a), "")
        if not target:
            return ("build" if tool == "make" else None), 0
        return _task_category(target), 1 + args.index(target)
    if tool in _SUBCOMMANDS:
        sub = _SUBCOMMANDS[tool].get(first)
        if sub == "compose":
            action = args[1] if len(args) > 1 else ""
            return {"up": "run", "build": "build", "run": "run"}.get(action), 2
        if sub == "pip":
            return ("install" if len(args) > 1 and args[1] == "install" else None), 2
        if sub == "tool":
            return ("install" if len(args) > 1 and args[1] in ("install", "upgrade") else None), 2
        if sub == "django":
            action = args[1] if len(args) > 1 else ""
            return {"test": "test", "runserver": "run", "migrate": "install"}.get(action), 2
        if sub == "task":
            return (_task_category(args[1]) if len(args) > 1 else None), 2
        if sub == "submodule":
            return ("install" if len(args) > 1 and args[1] in ("update", "init", "sync") else None), 2
        if sub:
            return sub, 1
        if tool == "ruff" and (not first or first.startswith("-") or "/" in first or first == "."):
            return "lint", 0
        return None, 0
    category = _TOOL_CATEGORY.get(tool)
    if tool == "playwright" and first != "test":
        return None, 0
    return category, 0


# A package manager's options that pick the workspace package or directory a script runs in, with a value or not.
_WORKSPACE_OPTS = {"--filter", "-F", "--workspace", "-w", "-C", "--dir", "--prefix", "--cwd"}
_WORKSPACE_FLAGS = {"-r", "--recursive", "-ws", "--workspaces", "--silent", "-s", "--if-present"}


def _workspace_opts(args: list[str]) -> int:
    """How many leading arguments choose where a package manager runs (`--filter @repo/app`, `-C web`)."""
    i = 0
    while i < len(args) and (args[i] in _WORKSPACE_FLAGS or args[i].split("=", 1)[0] in _WORKSPACE_OPTS):
        i += 1 if args[i] in _WORKSPACE_FLAGS or "=" in args[i] else 2
    return i


def _keep_arg(arg: str) -> bool:
    if arg.startswith(("/", "~")) or "::" in arg or _SOURCE_FILE.search(arg) or _NOISE_FLAGS.match(arg):
        return False
    if "/" in arg and not arg.startswith("-"):
        parts = [p for p in arg.strip("./").split("/") if p and p != "..."]
        return len(parts) <= 2
    return True


def _clean_args(args: list[str]) -> list[str]:
    kept: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        name = arg.split("=", 1)[0]
        if name in _SELECT_OPTS:
            skip = "=" not in arg
            continue
        if _keep_arg(arg):
            kept.append(arg)
    while kept and kept[-1] == "--":
        kept.pop()
    return kept


def parse(command: str | None) -> Shell | None:
    """The normalised build/test/lint/run command in `command`, or None when it is none of those."""
    if not command or "<<" in command or len(command) > 600 or not _MAYBE_BUILD.search(command):
        return None
    return _parse(command)


@lru_cache(maxsize=4096)
def _parse(command: str) -> Shell | None:
    command = command.replace("\\\n", " ").strip()
    if wrapped := _SHELL_WRAPPER.match(command):
        command = wrapped.group("body")
    texts, families, categories = [], [], []
    for op, segment in _split(command):
        if op == "|":
            if _DISPLAY_PIPE.match(segment):
                continue
            return None
        segment = _REDIRECT.sub("", segment).strip()
        if not segment or _DROP_SEGMENT.match(segment):
            continue
        head, rest, runner = _peel(_tokens(segment))
        if not rest:
            continue
        tool = rest[0].rsplit("/", 1)[-1]
        category, n_key = _classify(tool, rest[1:])
        if category is None:
            continue
        args = rest[1 : 1 + n_key] + _clean_args(rest[1 + n_key :])
        shown = tool if rest[0].startswith(("/", "~")) else rest[0]
        texts.append(shlex.join([*head, shown, *args]))
        families.append(" ".join([*runner, tool, *rest[1 : 1 + n_key]]))
        categories.append(category)
    if not texts:
        return None
    text = " && ".join(texts)
    if len(text) > 120:
        return None
    return Shell(text=text, family=" && ".join(families), categories=tuple(categories))


def failed(output: str, is_error: bool) -> bool:
    """True when a command's result shows a failure: the error flag, or failure lines in its output
    that a passing summary at its very end does not overrule."""
    if is_error:
        return True
    if not (_FAILURE_CASED.search(output) or _FAILURE_ANY.search(output)):
        return False
    tail = "\n".join(output.rstrip().splitlines()[-3:])
    return not _PASS_TAIL.search(tail)


_PROGRAM = re.compile(
    r"^\s*(?:(?:cd|pushd|source|export|set)\s+[^&;|]*(?:&&|;|\|\|)\s*|[A-Z_][A-Z0-9_]*=\S*\s+|"
    r"(?:sudo|time|env|command|exec)\s+)*(?P<program>[^\s;&|()<>]+)"
)


def program(command: str) -> str:
    """The program a command line runs (after `cd … &&` and env assignments), e.g. `python3`."""
    match = _PROGRAM.match(command)
    return match.group("program").rsplit("/", 1)[-1] if match else ""


_LEADING_CD = re.compile(r"^\s*(?:cd|pushd)\s+(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<dir>[^\s;&|]+))\s*(?:&&|;)\s*")
_ECHO = re.compile(r"\s*&&\s*echo\s+(?:\"[^\"]*\"|'[^']*'|\S+)")


def verbatim(command: str) -> str:
    """The command as it ran, without a leading `cd DIR &&` (the project's directory is implied)."""
    return _LEADING_CD.sub("", command.strip(), count=1).strip()


def leading_dir(command: str) -> str | None:
    """The directory a command line changes into before it runs (`cd web/frontend && …`), or None."""
    found = _LEADING_CD.match(command)
    return (found.group("dq") or found.group("sq") or found.group("dir")) if found else None


def as_typed(command: str) -> str:
    """A command as a person would type it again: the display pipes at its end (`| tail -20`), its
    redirects and progress echoes (`&& echo "BUILD OK"`) set aside, its arguments and flags kept."""
    text = _ECHO.sub("", command)
    while True:
        cut = _REDIRECT.sub("", text)
        head, bar, tail = cut.rpartition("|")
        if bar and not head.endswith("|") and _DISPLAY_PIPE.match(tail.strip()):
            cut = head
        if cut == text:
            return " ".join(text.split())
        text = cut


def short(command: str) -> str | None:
    """A short, reusable form of a non-build command (for fixes), or None when it is too specific."""
    kept = [seg for op, seg in _split(command) if op != "|" and not _DROP_SEGMENT.match(seg)]
    if not kept:
        return None
    text = " && ".join(_REDIRECT.sub("", seg).strip() for seg in kept)
    text = scrub(text)
    return text if len(text) <= 80 and "\n" not in text else None
