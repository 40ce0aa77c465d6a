"""Configuration: defaults, then ~/.config/memgit/config.toml, then MEMGIT_* environment variables."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Mapping

from memgit.errors import ConfigError

DEFAULT_AUTHOR = "memgit <memgit@localhost>"


class RedactPatterns(tuple):
    """`[redact] extra_patterns`, carrying `[redact] allow` along as `.allow`.

    Every caller hands the extra patterns to the redaction functions (`redact.redact(text,
    cfg.extra_redact_patterns)`); the allow list riding on the same value is honoured by all of them
    without each call naming it. A plain tuple of patterns has no allow list.
    """

    allow: tuple[str, ...]

    def __new__(cls, patterns=(), allow=()):
        self = super().__new__(cls, patterns)
        self.allow = tuple(allow)
        return self


@dataclass(frozen=True, slots=True)
class Config:
    repo_path: Path
    author: str = DEFAULT_AUTHOR
    remote: str = "origin"  # the remote push, pull and auto_push/auto_pull use
    auto_push: bool = False  # push after every sync that committed
    auto_pull: bool = False  # pull before every sync
    claude_root: Path = Path("~/.claude").expanduser()  # holds projects/
    codex_root: Path = Path("~/.codex").expanduser()  # holds sessions/, archived_sessions/
    gemini_root: Path = Path("~/.gemini").expanduser()  # holds tmp/<project>/chats/
    agents: tuple[str, ...] = ("claude-code", "codex", "gemini-cli")  # the sources a sync reads
    min_idle_minutes: float = 30.0
    max_age_days: float = 30.0  # 0 means no limit
    include_projects: tuple[str, ...] = ()
    exclude_projects: tuple[str, ...] = ()
    extra_redact_patterns: tuple[str, ...] = ()  # a RedactPatterns when loaded: carries redact_allow
    redact_allow: tuple[str, ...] = ()  # values that are not secrets (each regex must match all of one)
    extract_model: str = "heuristic"  # or an agent CLI (claude-code/haiku) or a litellm model string
    consolidate_model: str = "heuristic"
    api_base: str | None = None
    concurrency: int = 4
    max_input_tokens: int = 60_000
    timeout: float = 120.0
    summary_tokens: int = 2_500
    max_tokens_per_day: int = 2_000_000  # every model call of a UTC day, all machines (0: no limit)
    max_cost_per_day: float = 0.0  # USD (0: no limit)
    model_workdir: Path = Path("~/.cache/memgit/model-calls").expanduser()  # where agent CLIs run for memgit
    semantic: bool = True  # fuse embeddings into `memgit search` when the `semantic` extra is installed
    team_review: str = "new"  # "new": a teammate's learning is briefed once accepted; "none": the team is trusted
    config_file: Path | None = None
    config_dir: Path = field(default=Path("~/.config/memgit").expanduser())

    @property
    def claude_projects(self) -> Path:
        return self.claude_root / "projects"

    @property
    def state_dir(self) -> Path:
        """Derived state (caches, lock, logs): safe to delete."""
        return self.repo_path / ".git" / "memgit"


# Every key a config file may hold: section -> key -> (the Config field it sets, the environment
# variables that override the file, those the file overrides). `load` reads them; `memgit config
# show` says where each value came from; a key not here is an error (a typo would otherwise be
# silently ignored).
KNOWN: dict[str, dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]]] = {
    "repo": {
        "path": ("repo_path", ("MEMGIT_HOME",), ()),
        "author": ("author", ("MEMGIT_AUTHOR",), ()),
        "remote": ("remote", ("MEMGIT_REMOTE",), ()),
        "auto_push": ("auto_push", (), ()),
        "auto_pull": ("auto_pull", (), ()),
    },
    "sources": {
        "agents": ("agents", (), ()),
        "claude_code": ("claude_root", ("CLAUDE_CONFIG_DIR",), ()),
        "codex": ("codex_root", (), ("CODEX_HOME",)),
        "gemini": ("gemini_root", (), ("GEMINI_CLI_HOME",)),
        "min_idle_minutes": ("min_idle_minutes", ("MEMGIT_MIN_IDLE_MINUTES",), ()),
        "max_age_days": ("max_age_days", ("MEMGIT_MAX_AGE_DAYS",), ()),
        "include": ("include_projects", (), ()),
        "exclude": ("exclude_projects", (), ()),
    },
    "redact": {"extra_patterns": ("extra_redact_patterns", (), ()), "allow": ("redact_allow", (), ())},
    "extract": {
        "model": ("extract_model", ("MEMGIT_MODEL",), ()),
        "api_base": ("api_base", ("MEMGIT_API_BASE",), ()),
        "concurrency": ("concurrency", ("MEMGIT_CONCURRENCY",), ()),
        "max_input_tokens": ("max_input_tokens", (), ()),
        "timeout": ("timeout", (), ()),
    },
    "consolidate": {"model": ("consolidate_model", ("MEMGIT_CONSOLIDATE_MODEL",), ("MEMGIT_MODEL",))},
    "context": {"summary_tokens": ("summary_tokens", (), ())},
    "llm": {"max_tokens_per_day": ("max_tokens_per_day", (), ()), "max_cost_per_day": ("max_cost_per_day", (), ())},
    "search": {"semantic": ("semantic", ("MEMGIT_SEMANTIC",), ())},
    "team": {"review": ("team_review", (), ())},
}


def check_keys(data: Mapping, cfile: Path) -> None:
    """Refuse a section or key memgit does not know, naming the closest one it does.

    Raises:
        ConfigError: an unknown section or key (a typo, most likely).
    """
    for message in unknown_keys(data, cfile):
        raise ConfigError(message)


def unknown_keys(data: Mapping, cfile: Path) -> list[str]:
    """What is wrong with the file's sections and keys: each unknown one, with the closest known."""
    import difflib

    found = []
    for section, table in data.items():
        if not isinstance(table, dict):  # a key outside any section: name the section it belongs in
            keys = {k: f"[{sec}] {k}" for sec, known in KNOWN.items() for k in known}
            close = difflib.get_close_matches(section, list(keys), n=1)
            hint = f"; did you mean {keys[close[0]]}?" if close else f"; keys go in a section: {', '.join(KNOWN)}"
            found.append(f"unknown key {section!r} outside any section in {cfile}{hint}")
        elif section not in KNOWN:
            close = difflib.get_close_matches(section, list(KNOWN), n=1)
            hint = f"; did you mean [{close[0]}]?" if close else f"; known sections: {', '.join(KNOWN)}"
            found.append(f"unknown section [{section}] in {cfile}{hint}")
        else:
            for key in table:
                if key not in KNOWN[section]:
                    close = difflib.get_close_matches(key, list(KNOWN[section]), n=1)
                    hint = (f"; did you mean {close[0]}?" if close
                            else f"; [{section}] knows: {', '.join(KNOWN[section])}")
                    found.append(f"unknown key {key!r} in [{section}] of {cfile}{hint}")
    return found


def config_file(env: Mapping[str, str]) -> Path:
    """The config file memgit reads (it may not exist)."""
    return Path(env["MEMGIT_CONFIG"]) if env.get("MEMGIT_CONFIG") else config_dir(env) / "config.toml"


def read_file(cfile: Path, *, check: bool = True) -> dict:
    """The config file's tables, checked for unknown keys (unless not `check`); {} when there is none.

    Raises:
        ConfigError: it is not valid TOML, cannot be read, or holds an unknown key.
    """
    if not cfile.is_file():
        return {}
    try:
        import tomllib  # only when there is a file: ~10 ms of every command and hook otherwise

        data = tomllib.loads(cfile.read_text(encoding="utf-8"))
    except (ValueError, OSError) as e:  # TOMLDecodeError and UnicodeDecodeError are ValueErrors
        raise ConfigError(f"cannot read {cfile}: {e}; fix or remove it") from e
    if check:
        check_keys(data, cfile)
    return data


def _xdg(env: Mapping[str, str], var: str, fallback: str) -> Path:
    value = env.get(var)
    return Path(value) if value else Path(env.get("HOME", str(Path.home()))) / fallback


def config_dir(env: Mapping[str, str]) -> Path:
    return _xdg(env, "XDG_CONFIG_HOME", ".config") / "memgit"


# The numbers a person may set: (section, key, its environment variable, int or float, the least
# value, whether that least value itself is refused). A negative age or a zero concurrency is a
# mistake, not a setting.
NUMBERS = {
    "min_idle_minutes": ("sources", "min_idle_minutes", "MEMGIT_MIN_IDLE_MINUTES", float, 0, False),
    "max_age_days": ("sources", "max_age_days", "MEMGIT_MAX_AGE_DAYS", float, 0, False),
    "concurrency": ("extract", "concurrency", "MEMGIT_CONCURRENCY", int, 1, False),
    "max_input_tokens": ("extract", "max_input_tokens", None, int, 1, False),
    "timeout": ("extract", "timeout", None, float, 0, True),
    "summary_tokens": ("context", "summary_tokens", None, int, 1, False),
    "max_tokens_per_day": ("llm", "max_tokens_per_day", None, int, 0, False),  # 0: no limit
    "max_cost_per_day": ("llm", "max_cost_per_day", None, float, 0, False),
}


def number(raw: object, where: str, kind: type, least: float, above: bool) -> int | float:
    """A number setting read from a file (a TOML number) or an environment variable (text).

    Raises:
        ConfigError: naming `where` and the expected type and range, when `raw` is not that.
    """
    value = None
    if isinstance(raw, str):
        try:
            value = kind(raw.strip())
        except ValueError:
            value = None
    elif isinstance(raw, (int, float)) and not isinstance(raw, bool):
        value = raw if kind is float or isinstance(raw, int) else None
    if value is not None and (value > least if above else value >= least):  # NaN is neither
        return kind(value)
    what = "a whole number" if kind is int else "a number"
    bound = f"above {least:g}" if above else f"of {least:g} or more"
    return _refused(f"{where} must be {what} {bound}, not {raw!r}")


def _refused(message: str):
    raise ConfigError(message)


def _text(raw: object, where: str) -> str:
    if isinstance(raw, (dict, list, bool)):
        raise ConfigError(f"{where} must be a string, not {raw!r}")
    return str(raw)


def _names(raw: object, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise ConfigError(f"{where} must be a list of strings, not {raw!r}")
    return tuple(raw)


def model_workdir(env: Mapping[str, str]) -> Path:
    """The folder agent CLIs run in when memgit uses them as models: sources skip its sessions."""
    return _xdg(env, "XDG_CACHE_HOME", ".cache") / "memgit" / "model-calls"


def load(env: Mapping[str, str] | None = None, *, repo_path: str | None = None,
         problems: list[tuple[str, str]] | None = None) -> Config:
    """Read the configuration.

    Args:
        problems: when given, nothing is refused: each problem is appended as ("section.key", message)
            ("" for the file as a whole) and the default stands in for the value (`memgit config show`).
    Raises:
        ConfigError: the config file is not valid TOML, holds an unknown key, or a value has the
            wrong type or is out of range (the message names the key and what it must be).
    """
    env = os.environ if env is None else env
    cdir = config_dir(env)
    cfile = config_file(env)

    def read(key: str, get, default):
        """get(), or (when collecting problems) the default after noting why get() refused."""
        try:
            return get()
        except ConfigError as e:
            if problems is None:
                raise
            problems.append((key, e.message))
            return default

    data = read("", lambda: read_file(cfile, check=problems is None), {})
    if problems is not None:
        problems.extend(("", message) for message in unknown_keys(data, cfile))
    tables = {name: t for name, t in data.items() if isinstance(t, dict)}
    repo = tables.get("repo", {})
    sources = tables.get("sources", {})
    redact = tables.get("redact", {})
    extract = tables.get("extract", {})
    consolidate = tables.get("consolidate", {})
    search = tables.get("search", {})
    home = Path(env.get("HOME", str(Path.home())))
    extra_patterns = read("redact.extra_patterns", lambda: _regexes(redact, "extra_patterns", cfile), ())
    allow = read("redact.allow", lambda: _regexes(redact, "allow", cfile), ())

    def num(attr: str):
        section, key, var, kind, least, above = NUMBERS[attr]
        default = Config.__dataclass_fields__[attr].default
        if var and env.get(var) is not None:
            raw, where = env[var], var
        else:
            raw, where = tables.get(section, {}).get(key, default), f"[{section}] {key} in {cfile}"
        return read(f"{section}.{key}", lambda: number(raw, where, kind, least, above), default)

    def text(section: str, key: str, raw: object, default):
        if raw is None:
            return default
        return read(f"{section}.{key}", lambda: _text(raw, f"[{section}] {key} in {cfile}"), default)

    path = (
        repo_path
        or env.get("MEMGIT_HOME")
        or text("repo", "path", repo.get("path"), None)
        or str(_xdg(env, "XDG_DATA_HOME", ".local/share") / "memgit")
    )
    # Each agent's home, as the agent itself finds it (its own environment variable), unless the
    # config names another: [sources] claude_code / codex / gemini.
    claude = env.get("CLAUDE_CONFIG_DIR") or text("sources", "claude_code", sources.get("claude_code"), None) \
        or str(home / ".claude")
    codex = text("sources", "codex", sources.get("codex"), None) or env.get("CODEX_HOME") or str(home / ".codex")
    gemini = text("sources", "gemini", sources.get("gemini"), None) \
        or str(Path(env.get("GEMINI_CLI_HOME") or home) / ".gemini")
    agents = sources.get("agents", ["claude-code", "codex", "gemini-cli"])
    if not isinstance(agents, list) or not set(agents) <= {"claude-code", "codex", "gemini-cli"}:
        agents = read("sources.agents", lambda: _refused(
            f"[sources] agents in {cfile} must be a list of: claude-code, codex, gemini-cli"),
            ["claude-code", "codex", "gemini-cli"])
    model = env.get("MEMGIT_MODEL") or text("extract", "model", extract.get("model"), None)
    return Config(
        repo_path=Path(os.path.expanduser(str(path))).absolute(),
        author=str(env.get("MEMGIT_AUTHOR") or text("repo", "author", repo.get("author"), None) or DEFAULT_AUTHOR),
        remote=str(env.get("MEMGIT_REMOTE") or text("repo", "remote", repo.get("remote"), None) or "origin"),
        auto_push=read("repo.auto_push", lambda: _flag(repo, "auto_push", cfile), False),
        auto_pull=read("repo.auto_pull", lambda: _flag(repo, "auto_pull", cfile), False),
        claude_root=Path(os.path.expanduser(str(claude))).absolute(),
        codex_root=Path(os.path.expanduser(str(codex))).absolute(),
        gemini_root=Path(os.path.expanduser(str(gemini))).absolute(),
        agents=tuple(agents),
        min_idle_minutes=num("min_idle_minutes"),
        max_age_days=num("max_age_days"),
        include_projects=read("sources.include", lambda: _names(sources.get("include", []),
                                                                  f"[sources] include in {cfile}"), ()),
        exclude_projects=read("sources.exclude", lambda: _names(sources.get("exclude", []),
                                                                  f"[sources] exclude in {cfile}"), ()),
        extra_redact_patterns=RedactPatterns(extra_patterns, allow),
        redact_allow=allow,
        extract_model=str(model or "heuristic"),
        consolidate_model=str(env.get("MEMGIT_CONSOLIDATE_MODEL")
                              or text("consolidate", "model", consolidate.get("model"), None) or model or "heuristic"),
        api_base=env.get("MEMGIT_API_BASE") or text("extract", "api_base", extract.get("api_base"), None) or None,
        concurrency=num("concurrency"),
        max_input_tokens=num("max_input_tokens"),
        timeout=num("timeout"),
        summary_tokens=num("summary_tokens"),
        max_tokens_per_day=num("max_tokens_per_day"),
        max_cost_per_day=num("max_cost_per_day"),
        model_workdir=model_workdir(env),
        semantic=read("search.semantic", lambda: _semantic(env, search, cfile), True),
        team_review=read("team.review", lambda: _team_review(tables.get("team", {}), cfile), "new"),
        config_file=cfile if cfile.is_file() else None,
        config_dir=cdir,
    )


def _flag(section: Mapping, key: str, cfile: Path) -> bool:
    """A true/false key of [repo].

    Raises:
        ConfigError: the value is not a TOML boolean (a quoted "false" would read as true).
    """
    value = section.get(key, False)
    if not isinstance(value, bool):
        raise ConfigError(f"[repo] {key} in {cfile} must be true or false, not {value!r}")
    return value



def _team_review(section: Mapping, cfile: Path) -> str:
    """`[team] review`: "new" (a teammate's learning is briefed once accepted) or "none" (trust the team)."""
    if (value := section.get("review", "new")) not in ("new", "none"):
        raise ConfigError(f'[team] review in {cfile} must be "new" (`memgit review --team` accepts) or "none", '
                          f"not {value!r}")
    return value


def _semantic(env: Mapping[str, str], section: Mapping, cfile: Path) -> bool:
    """`[search] semantic` (default true), overridden by MEMGIT_SEMANTIC=0/1.

    Raises:
        ConfigError: the value is not a TOML boolean, or the variable not 0/1/true/false.
    """
    value = env.get("MEMGIT_SEMANTIC")
    if value is not None:
        if value.strip().lower() not in ("0", "1", "true", "false"):
            raise ConfigError(f"MEMGIT_SEMANTIC must be 0 or 1, not {value!r}")
        return value.strip().lower() in ("1", "true")
    value = section.get("semantic", True)
    if not isinstance(value, bool):
        raise ConfigError(f"[search] semantic in {cfile} must be true or false, not {value!r}")
    return value


def _regexes(section: Mapping, key: str, cfile: Path) -> tuple[str, ...]:
    """A list of regexes from `[redact] <key>`, each checked to compile.

    Raises:
        ConfigError: the value is not a list of strings, or one is not a valid regex.
    """
    values = section.get(key, [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ConfigError(f"[redact] {key} in {cfile} must be a list of regex strings")
    for source in values:
        try:
            re.compile(source)
        except re.error as e:
            raise ConfigError(f"bad regex in [redact] {key}: {source!r}: {e}; fix or remove it") from e
    return tuple(values)
