"""Where the memory repository is, found as memgit.config finds it, without importing memgit.config:
its dataclass and pathlib cost about one `python -c pass`, more than the whole work of the hooks and
of `memgit search`, which start a process to answer in milliseconds.
"""

from __future__ import annotations

import os

# The environment variables memgit.config.load checks (and refuses when wrong) that search does not
# read: with any of them set, or with a config file, only config.load can say whether the configuration
# is valid. MEMGIT_SEMANTIC, which search reads, is checked here as config.load checks it.
CHECKED_ENV = ("MEMGIT_MIN_IDLE_MINUTES", "MEMGIT_MAX_AGE_DAYS", "MEMGIT_CONCURRENCY")
DEFAULT_AUTHOR = "memgit <memgit@localhost>"  # memgit.config's


def config_file(env) -> str:
    """The config file memgit reads (it may not exist), as memgit.config.config_file names it."""
    return env.get("MEMGIT_CONFIG") or os.path.join(xdg(env, "XDG_CONFIG_HOME", ".config"), "memgit", "config.toml")


def repo_path(env) -> str:
    """The memory repository, with config.load's precedence, reading TOML only when a config file exists.

    Raises:
        tomllib.TOMLDecodeError, OSError: the config file is broken or unreadable.
    """
    path = env.get("MEMGIT_HOME")
    if not path:
        config = config_file(env)
        if os.path.isfile(config):
            import tomllib

            with open(config, "rb") as f:
                section = tomllib.load(f).get("repo", {})
            path = section.get("path") if isinstance(section, dict) else None
    if not path:
        path = os.path.join(xdg(env, "XDG_DATA_HOME", os.path.join(".local", "share")), "memgit")
    return os.path.abspath(os.path.expanduser(str(path)))


def xdg(env, var: str, fallback: str) -> str:
    """The directory `var` names, else ~/`fallback` (the XDG base directories, as memgit.config reads them)."""
    return env.get(var) or os.path.join(env.get("HOME") or os.path.expanduser("~"), fallback)


class Settings:
    """What `memgit search` reads of the configuration (memgit.config.Config's fields of the same names,
    paths as strings), when there is nothing for config.load to check."""

    __slots__ = ("repo_path", "author", "semantic")

    def __init__(self, repo_path: str, author: str, semantic: bool = True):
        self.repo_path, self.author, self.semantic = repo_path, author, semantic

    @property
    def state_dir(self) -> str:
        return os.path.join(self.repo_path, ".git", "memgit")


def settings(env, repo: str | None = None) -> Settings | None:
    """The settings config.load would give for `repo` (or the configured repository) in `env`; None when
    a config file exists or a variable config.load checks is set (then config.load must read them)."""
    if any(var in env for var in CHECKED_ENV) or os.path.isfile(config_file(env)):
        return None
    semantic = env.get("MEMGIT_SEMANTIC", "1").strip().lower()
    if semantic not in ("0", "1", "true", "false"):
        return None  # config.load says what is wrong with it
    path = repo or env.get("MEMGIT_HOME") or os.path.join(xdg(env, "XDG_DATA_HOME", os.path.join(".local", "share")),
                                                          "memgit")
    return Settings(os.path.abspath(os.path.expanduser(str(path))), env.get("MEMGIT_AUTHOR") or DEFAULT_AUTHOR,
                    semantic in ("1", "true"))
