"""The LLM prompts: shipped markdown files a person can read, and replace with their own.

`~/.config/memgit/prompts/<name>.md` (the config dir) replaces the shipped `prompts/<name>.md`.
Every commit made with a prompt records which one in its `Memgit-Prompt` trailer, by hash:
`extract sha256:1a2b3c4d5e6f`, with ` (override)` when the person's own file was used.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from memgit.errors import ConfigError
from memgit.resources import data_dir

NAMES = ("extract", "consolidate", "consolidate_global")


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    text: str
    path: Path
    override: bool  # True when the person's file replaced the shipped one

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()

    @property
    def label(self) -> str:
        """The `Memgit-Prompt` trailer value: name, hash prefix, and whether it was overridden."""
        return f"{self.name} sha256:{self.sha256[:12]}" + (" (override)" if self.override else "")


def override_path(name: str, config_dir: Path) -> Path:
    return config_dir / "prompts" / f"{name}.md"


def load(name: str, config_dir: Path) -> Prompt:
    """Return prompt `name`: the person's override when there is one, else the shipped file.

    Raises:
        ConfigError: the override (or the shipped file) cannot be read or is empty.
    """
    own = override_path(name, config_dir)
    path, override = (own, True) if own.is_file() else (data_dir("prompts") / f"{name}.md", False)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read the prompt {path}: {e}; fix or remove it") from e
    if not text.strip():
        raise ConfigError(f"the prompt {path} is empty; write one or remove the file to use the shipped prompt")
    return Prompt(name, text, path, override)
