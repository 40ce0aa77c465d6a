"""Checks: what the project's CI and git hooks run, and what its linter checks and skips, from the files the
session wrote.

A newcomer needs to know which checks a change must pass before it is pushed, when they run, and what
the linter leaves alone (generated code, tests). The session shows it when the agent writes or edits
a CI workflow (`.github/workflows/*.yml`, `.gitlab-ci.yml`), a linter's configuration (`.golangci.yml`,
`ruff.toml`) or the git hooks' (`.pre-commit-config.yaml`, husky's): the file as the session left it is
the fact, so each file is followed through the session's writes, whole reads and edits, and told once,
as it ended (a step added and taken out again, a trigger narrowed and widened back, leaves no trace).
When an edit meets a file the session never saw whole, or a patch this does not apply, its end state
is unknown and nothing is told. What the person said about the file in the turn that changed it is then
in the statement, and leaves the note (`settle`).
"""

from __future__ import annotations

import re
from typing import Any

from memgit.core.model import TRIMMED_PATTERN, Learning, ToolCall
from memgit.core.recall import stem, terms
from memgit.core.scan import words
from memgit.extract.heuristic.candidate import Candidate
from memgit.extract.heuristic.session import Session
from memgit.extract.heuristic.standing import CI, GIT_HOOKS, LINTING, configured_file, instructed, words_of
from memgit.extract.tools import patches, replacements

SCORE = 4.0  # the project's setup, true of every change pushed
MAX_COMMANDS = 6
MAX_NAMES = 8
_WORKFLOW = re.compile(r"(?:^|/)(?:\.github/workflows/[^/]+\.ya?ml|\.gitlab-ci\.ya?ml)$")
_LINTER = re.compile(r"(?:^|/)(?:\.golangci\.ya?ml|\.?ruff\.toml|pyproject\.toml)$")
_GIT_HOOKS = re.compile(r"(?:^|/)(?:\.pre-commit-config\.ya?ml|\.husky/pre-(?P<when>commit|push))$")
# A read tool's line numbers ("    12→name: CI"; an empty last line reads "37").
_NUMBERED = re.compile(r"^\s*\d+(?:→|\t|$)", re.M)
_TRIMMED = re.compile(TRIMMED_PATTERN)
_PATCH_FILE = re.compile(r"^\*\*\* (?P<op>Add|Update|Delete) File: (?P<path>.+?)\s*$", re.M)  # Codex's apply_patch
_VERSION_KEY = re.compile(r"^(?P<tool>[a-z]+)[-_]versions?$")
_TOOL_NAMES = {"python": "Python", "node": "Node", "go": "Go", "java": "Java", "ruby": "Ruby", "rust": "Rust"}
_QUIET = re.compile(r"^(?:echo|cd|ls|cat|mkdir|export|set|printf|#)\b")
_EVERYWHERE = frozenset({"node_modules", "vendor", "venv", "dist", "build", "target"})  # skipped by any project


def learn(s: Session) -> list[Candidate]:
    """One convention per checks file of the project the session changed and left in a known state."""
    out = []
    for path, text in _final_states([*s.calls, *s.side_calls], s.cwd).items():
        if text is not None and _in_project(path, s.cwd) and (said := describe(_relative(path, s.cwd), text)):
            out.append(Candidate("convention", said, SCORE, "checks"))
    return out


def settle(learnings: list[Learning], s: Session) -> list[Learning]:
    """The person's remarks made in a turn that changed a checks file this tells, about what it tells
    ("does it only run on main? we should run it on all push"), leave the note: what they asked for is
    the file as the session left it, and a later state of the file supersedes the statement, which a
    remark of its own would outlive. Done after ranking, on the statements the note keeps."""
    told = {path: _stems(item.text) for item in learnings if (path := configured_file(item.text))}
    remarks = []  # (the turn's words, the stems of the statements of the files it changed)
    for exchange in s.exchanges if told else ():
        changed = {_relative(path, s.cwd) for call in exchange.calls for path in _changes(call, s.cwd)} & told.keys()
        if exchange.said and exchange.kind in ("prompt", "queued", "rejection") and changed:
            remarks.append((_flat(exchange.said), set().union(*(told[path] for path in changed))))
    return [item for item in learnings if not any(_about(item, said, stems) for said, stems in remarks)]


def _about(item: Learning, said: str, stems: set[str]) -> bool:
    if item.type not in ("preference", "convention") or instructed(item.text):
        return False
    own = words_of(item.text)
    return bool(_flat(own)) and _flat(own) in said and bool(_stems(own) & stems)


def _stems(text: str) -> set[str]:
    return {stem(word) for word in terms(text)}


def _flat(text: str) -> str:
    return " ".join(words(text.lower()))


def _changes(call: ToolCall, cwd: str | None) -> list[str]:
    """The checks files an edit call changed (a patch's files, or the one it names)."""
    if call.kind != "edit" or not call.ran or call.is_error:
        return []
    if patch := next(iter(patches(call)), ""):
        return list(_patched(patch, {}, cwd))
    path = (call.file_path or "").replace("\\", "/")
    return [path] if _checks_file(path) else []


def _final_states(calls: list[ToolCall], cwd: str | None = None) -> dict[str, str | None]:
    """Each checks file the calls changed, as they left it (None: an edit met a text the session never
    saw whole); a file only read is not the session's to tell."""
    states: dict[str, str | None] = {}
    edited: set[str] = set()
    for call in calls:
        path = (call.file_path or "").replace("\\", "/")
        if call.kind == "edit" and call.ran and not call.is_error and (patch := next(iter(patches(call)), "")):
            found = _patched(patch, states, cwd) or ({path: None} if _checks_file(path) else {})
            states.update(found)  # a patch whose files this cannot read leaves its checks file unknown
            edited.update(found)
            continue
        if not _checks_file(path) or not call.ran or call.is_error:
            continue
        if call.kind == "read":
            text, numbered = _read_text(call.output)
            whole = not call.input.get("offset") and not call.input.get("limit")
            if whole and text is not None and (numbered or states.get(path) is None):
                states[path] = text  # the file as it is (a formatter may have changed it since the last edit)
        elif call.kind == "edit":
            states[path] = _edited(states.get(path), call)
            edited.add(path)
    return {path: text for path, text in states.items() if path in edited}


def _patched(patch: str, states: dict[str, str | None], cwd: str | None) -> dict[str, str | None]:
    """The checks files a patch (Codex's apply_patch) adds or updates, as it leaves them: an added file
    is its `+` lines; an update applies its hunks to the text the session saw, else the file is unknown."""
    out: dict[str, str | None] = {}
    heads = list(_PATCH_FILE.finditer(patch))
    for i, head in enumerate(heads):
        path = head.group("path").replace("\\", "/")
        path = path if path.startswith("/") or not cwd else f"{cwd.rstrip('/')}/{path}"
        if not _checks_file(path):
            continue
        body = patch[head.end(): heads[i + 1].start() if i + 1 < len(heads) else len(patch)]
        lines = [line for line in body.splitlines() if line and not line.startswith("*** ")]
        if _TRIMMED.search(body) or head.group("op") == "Delete" or "*** Move to:" in body:
            out[path] = None
        elif head.group("op") == "Add":
            out[path] = "\n".join(line[1:] for line in lines if line.startswith("+")) + "\n"
        else:
            out[path] = _hunks_applied(states.get(path), lines)
    return out


def _hunks_applied(text: str | None, lines: list[str]) -> str | None:
    hunks: list[list[str]] = [[]]
    for line in lines:
        if line.startswith("@@"):
            hunks.append([])
        elif line[:1] in (" ", "-", "+"):
            hunks[-1].append(line)
    for hunk in filter(None, hunks):
        old = "\n".join(line[1:] for line in hunk if line[0] in " -")
        new = "\n".join(line[1:] for line in hunk if line[0] in " +")
        if text is None or old not in text:
            return None
        text = text.replace(old, new, 1)
    return text


def _in_project(path: str, cwd: str | None) -> bool:
    """A file of the session's project: its repository holds the cwd, or lies under it (not a scratch
    repository in /tmp the agent set up to try something)."""
    if not cwd or not path.startswith("/"):
        return True
    found = _checks_file(path)
    root, cwd = path[: found.start()].rstrip("/") if found else path, cwd.rstrip("/")
    return cwd == root or cwd.startswith(root + "/") or root.startswith(cwd + "/")


def _read_text(output: str) -> tuple[str | None, bool]:
    """A read's text (None when cut) and whether it came with line numbers: then it is surely the file,
    and not a note in its place ("File unchanged since last read …")."""
    if not output.strip() or _TRIMMED.search(output):
        return None, False
    lines = output.splitlines()
    numbered = all(_NUMBERED.match(line) for line in lines if line.strip())
    if numbered:
        lines = [_NUMBERED.sub("", line, count=1) for line in lines]
    return "\n".join(lines) + "\n", numbered  # a read's output loses the file's last newline


def _edited(text: str | None, call: ToolCall) -> str | None:
    """The text after an edit: a written file, or replacements applied in order; None when unknown (a
    patch, which this does not apply, included)."""
    pairs = replacements(call)
    if not pairs:
        return None
    for old, new in pairs:
        if _TRIMMED.search(new) or _TRIMMED.search(old):
            return None
        if not old:  # a whole file written
            text = new
        elif text is None or old not in text:
            return None
        else:
            text = text.replace(old, new) if call.input.get("replace_all") else text.replace(old, new, 1)
    return text


def _relative(path: str, cwd: str | None) -> str:
    if cwd and path.startswith(cwd.rstrip("/") + "/"):
        return path[len(cwd.rstrip("/")) + 1:]
    found = _checks_file(path)
    return path[found.start():].lstrip("/") if found else path


def _checks_file(path: str) -> re.Match | None:
    return _WORKFLOW.search(path) or _LINTER.search(path) or _GIT_HOOKS.search(path)


def describe(path: str, text: str) -> str | None:
    """The file's state in one statement (`CI (…) runs …` or `Linting (…) …`), None when it does not
    parse or says nothing a newcomer acts on."""
    if (husky := _GIT_HOOKS.search(path)) and husky.group("when"):
        return _husky(path, text, husky.group("when"))
    data = _parsed(path, text)
    if not isinstance(data, dict):
        return None
    if _GIT_HOOKS.search(path):
        return _pre_commit(path, data)
    if _WORKFLOW.search(path):
        return _workflow(path, data)
    if path.endswith("pyproject.toml"):
        return _ruff(path, _section(_section(data, "tool"), "ruff"))
    return _ruff(path, data) if path.endswith(".toml") else _golangci(path, data)


def _parsed(path: str, text: str) -> Any:
    if path.endswith(".toml"):
        import tomllib

        try:
            return tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
    import yaml  # PyYAML comes with python-frontmatter; only a session that wrote such a file needs it

    try:
        return yaml.safe_load(text)
    except (yaml.YAMLError, RecursionError):  # a file broken or nested past what the parser recurses into
        return None


# ---- CI workflows ----------------------------------------------------------------------------------


def _workflow(path: str, data: dict) -> str | None:
    """"CI (`path`) runs on …, with Python 3.12 and 3.13: `cmd`, `cmd`."; None when it runs no command."""
    jobs = _jobs(data)
    commands = list(dict.fromkeys(c for job in jobs for c in _commands(job)))[:MAX_COMMANDS]
    if not commands:
        return None
    when = _triggers(data.get("on", data.get(True)))  # YAML 1.1 reads the key `on` as true
    versions = _versions(jobs)
    return (f"{CI}`{path}`) runs{' ' + when if when else ''}{', with ' + versions if versions else ''}: "
            + ", ".join(f"`{c}`" for c in commands) + ".")


def _jobs(data: dict) -> list[dict]:
    jobs = data.get("jobs")
    if isinstance(jobs, dict):  # GitHub Actions
        return [job for job in jobs.values() if isinstance(job, dict)]
    return [job for job in data.values() if isinstance(job, dict) and "script" in job]  # GitLab CI


def _commands(job: dict) -> list[str]:
    """The command lines a job runs of its own (not the actions it uses), without templated ones."""
    runs: list[Any] = [step.get("run") for step in job.get("steps") or () if isinstance(step, dict)]
    script = job.get("script")
    runs += script if isinstance(script, list) else [script]
    out = []
    for run in runs:
        if not isinstance(run, str):
            continue
        for line in run.replace("\\\n", " ").splitlines():
            line = " ".join(line.split())
            if line and "${{" not in line and "$" not in line[:1] and not _QUIET.match(line) and len(line) <= 80:
                out.append(line)
    return out


def _triggers(on: Any) -> str:
    """When the workflow runs, in words ("" for a GitLab pipeline, which runs on every push)."""
    if isinstance(on, str):
        on = {on: None}
    elif isinstance(on, list):
        on = dict.fromkeys(on)
    if not isinstance(on, dict):
        return ""
    said = []
    for event, what in on.items():
        branches = what.get("branches") if isinstance(what, dict) else None
        branches = [branches] if isinstance(branches, str) else branches
        to = f" to {_and(branches)}" if isinstance(branches, list) and branches else ""
        if event == "push":
            tags_only = isinstance(what, dict) and "tags" in what and not to
            said.append("on tag pushes" if tags_only else f"on pushes{to}" if to else "on every push to any branch")
        elif event == "pull_request":
            said.append(f"on pull requests{to}" if to else "on every pull request")
        elif event == "workflow_dispatch":
            said.append("by hand")
        elif event == "schedule":
            said.append("on a schedule")
        elif event == "release":
            said.append("on releases")
    return _and(said)


def _versions(jobs: list[dict]) -> str:
    """The tool versions of the first build matrix ("Python 3.12 and 3.13")."""
    for job in jobs:
        strategy = job.get("strategy")
        matrix = strategy.get("matrix") if isinstance(strategy, dict) else None
        for key, values in matrix.items() if isinstance(matrix, dict) else ():
            found = _VERSION_KEY.match(str(key))
            if found and isinstance(values, list) and values:
                name = _TOOL_NAMES.get(found.group("tool"), found.group("tool"))
                return f"{name} {_and([str(v) for v in values])}"
    return ""


# ---- linters -------------------------------------------------------------------------------------


def _golangci(path: str, data: dict) -> str | None:
    """golangci-lint (v1 and v2 layouts): the linters and formatters it enables, the paths it skips."""
    linters, formatters, issues, run = (_section(data, key) for key in ("linters", "formatters", "issues", "run"))
    skipped = [*_names(_section(linters, "exclusions").get("paths")),
               *_names(_section(data, "exclusions").get("paths")),
               *_names(issues.get("exclude-dirs")), *_names(issues.get("exclude-files")),
               *_names(run.get("skip-dirs")), *_names(run.get("skip-files"))]
    return _linting(path, ("enables", _names(linters.get("enable"))),
                    ("formats with", _names(formatters.get("enable"))), ("skips", skipped))


def _ruff(path: str, data: dict) -> str | None:
    """ruff (ruff.toml, or pyproject.toml's [tool.ruff]): the rules it selects and ignores, the paths it skips."""
    lint = _section(data, "lint")
    return _linting(path, ("selects rules", _names(lint.get("select") or data.get("select"))),
                    ("ignores", _names(lint.get("ignore") or data.get("ignore"))),
                    ("skips", _names(data.get("exclude")) + _names(data.get("extend-exclude"))))


def _linting(path: str, *said: tuple[str, list[str]]) -> str | None:
    """"Linting (`path`) enables `a` and `b` and skips `gen/`." — the paths any project skips left out."""
    parts = []
    for verb, names in said:
        if verb == "skips":
            names = [p for p in names if not p.startswith(".") and p.strip("/") not in _EVERYWHERE]
        if names := list(dict.fromkeys(names)):
            parts.append(f"{verb} {_code_list(names)}")
    return f"{LINTING}`{path}`) {_and(parts)}." if parts else None


# ---- git hooks -----------------------------------------------------------------------------------


def _pre_commit(path: str, data: dict) -> str | None:
    """pre-commit's configuration: the hooks it runs, by id."""
    repos = data.get("repos") if isinstance(data.get("repos"), list) else []
    hooks = [hook.get("id") for repo in repos if isinstance(repo, dict) for hook in repo.get("hooks") or ()
             if isinstance(hook, dict) and isinstance(hook.get("id"), str)]
    return f"{GIT_HOOKS}`{path}`) run {_code_list(list(dict.fromkeys(hooks)))} before each commit." if hooks else None


def _husky(path: str, text: str, when: str) -> str | None:
    """A husky hook: a shell script, its commands as it runs them."""
    commands = [" ".join(line.split()) for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("#") and "husky.sh" not in line
                and not _QUIET.match(line.strip()) and len(line.strip()) <= 80]
    if not commands:
        return None
    return f"{GIT_HOOKS}`{path}`) run {_code_list(list(dict.fromkeys(commands)))} before each {when}."


def _section(data: Any, key: str) -> dict:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _names(value: Any) -> list[str]:
    """A list of names or paths as written (a regex's escaped dot read as a dot)."""
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return [item.replace("\\.", ".") for item in items if isinstance(item, str) and item.strip()]


def _code_list(names: list[str]) -> str:
    shown = [f"`{name}`" for name in names[:MAX_NAMES]]
    return _and(shown) if len(names) <= MAX_NAMES else ", ".join(shown) + f" and {len(names) - MAX_NAMES} more"


def _and(items: list) -> str:
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""
