"""The config as memgit sees it: each effective value and where it came from; remembering `init --path`."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from memgit import config, models
from memgit.errors import ConfigError


def _shown(value) -> object:
    """A Config value as text or JSON shows it (paths as strings, tuples as lists)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def effective(env: Mapping[str, str] | None = None, *, repo_path: str | None = None) -> dict:
    """Every known setting: its value and its origin (default, file, env VAR, option), and what is
    wrong with any of them; a bad value is shown as given, beside its problem, never refused here.

    Returns:
        {"config_file", "exists", "settings": [{"key", "value", "origin", "problem"?}],
         "problems": [{"key", "message"}] (key "" for the file as a whole)}.
    """
    env = os.environ if env is None else env
    problems: list[tuple[str, str]] = []
    cfg = config.load(env, repo_path=repo_path, problems=problems)
    cfile = config.config_file(env)
    try:
        data = config.read_file(cfile, check=False)
    except ConfigError:  # already among the problems
        data = {}
    bad = dict(reversed(problems))  # the first problem of each key
    rows = []
    for section, keys in config.KNOWN.items():
        table = data.get(section) if isinstance(data.get(section), dict) else {}
        for key, (attr, over, under) in keys.items():
            origin, given = "default", None
            if attr == "repo_path" and repo_path:
                origin = "option --repo"
            elif any(env.get(v) for v in over):
                var = next(v for v in over if env.get(v))
                origin, given = "env " + var, env[var]
            elif key in table:
                origin, given = f"file {cfile}", table[key]
            elif any(env.get(v) for v in under):
                var = next(v for v in under if env.get(v))
                origin, given = "env " + var, env[var]
            elif (section, key) == ("consolidate", "model") and "model" in data.get("extract", {}):
                origin = f"file {cfile} ([extract] model)"  # the consolidation model follows the extraction one
            row = {"key": f"{section}.{key}", "value": _shown(getattr(cfg, attr)), "origin": origin}
            if row["key"] in bad:  # shown as given: the default stands in only inside memgit
                row.update(value=_shown(given), problem=bad[row["key"]])
            if key == "model":  # which backend runs it: the offline heuristic, an agent CLI, litellm
                row["backend"] = models.backend(row["value"])
            rows.append(row)
    return {"config_file": str(cfile), "exists": cfile.is_file(), "settings": rows,
            "problems": [{"key": k, "message": m} for k, m in problems]}


def remember_repo_path(env: Mapping[str, str], repo: Path) -> str:
    """Write `[repo] path` into the config file after `init --path`, so the next command finds the repo.

    Nothing is written when the path is the default one, when $MEMGIT_HOME is set, or when the
    config file already names a path (it is not overruled: the returned text says so).

    Returns:
        what was done, for the person: "" when nothing needed saying.
    Raises:
        ConfigError: the config file is broken, or cannot be written.
    """
    default = config.load({k: v for k, v in env.items() if k != "MEMGIT_HOME"} | {"MEMGIT_CONFIG": os.devnull})
    if repo == default.repo_path:
        return ""
    if env.get("MEMGIT_HOME"):
        return ("" if Path(os.path.expanduser(env["MEMGIT_HOME"])).absolute() == repo else
                f"$MEMGIT_HOME names {env['MEMGIT_HOME']}: set it to {repo} (or pass --repo) to use this repository")
    cfile = config.config_file(env)
    data = config.read_file(cfile)
    named = data.get("repo", {}).get("path")
    if named is not None:
        if Path(os.path.expanduser(str(named))).absolute() == repo:
            return ""
        return f"{cfile} names [repo] path {named}: change it to {repo} (or pass --repo) to use this repository"
    text = cfile.read_text(encoding="utf-8") if cfile.is_file() else ""
    line = f"path = {json.dumps(str(repo))}\n"  # a JSON string is a valid TOML basic string
    header = re.search(r"^\[repo\][ \t]*(#.*)?$\n?", text, re.M)
    if header:
        new = text[: header.end()] + ("" if header.group(0).endswith("\n") else "\n") + line + text[header.end():]
    else:
        new = text + ("\n" if text and not text.endswith("\n") else "") + ("\n" if text else "") + "[repo]\n" + line
    try:
        cfile.parent.mkdir(parents=True, exist_ok=True)
        tmp = cfile.with_name(cfile.name + ".tmp")
        tmp.write_text(new, encoding="utf-8")
        os.replace(tmp, cfile)  # whole or not at all: a half-written config would break every command
    except OSError as e:
        raise ConfigError(f"created {repo}, but cannot write [repo] path into {cfile}: {e}; add it by hand, "
                          f"or pass --repo {repo} to each command") from e
    return f"remembered in {cfile}: [repo] path = {repo}"
