"""Find the shipped prompts/, templates/, hooks/ and skills/ both in a wheel and in the source tree."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """Return the directory of shipped data `name` (prompts, templates, hooks, skills)."""
    installed = _PACKAGE / "_data" / name  # laid out by the wheel's force-include
    if installed.is_dir():
        return installed
    return _PACKAGE.parent / name  # running from a checkout


def repo_template_files() -> dict[str, bytes]:
    """Return the files a new memory repository starts with, keyed by path."""
    root = data_dir("templates") / "repo"
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }
