"""Check a consolidator's output before it is committed (an LLM's above all); repair what is safe to.

Refused: an empty or over-budget summary (tokens or characters), a MEMORY.md without a `## `
section or out of all proportion, a skill whose name is not kebab-case or whose SKILL.md lacks
`name`/`description` front matter, and any secret. Repaired: links to notes that do not exist
lose their target (the words stay); skills get memgit's marker so a later run may remove them.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import replace

from memgit.core import redact, tokens
from memgit.core.model import Consolidation
from memgit.consolidate import _markdown
from memgit.consolidate._budget import MAX_CHARS
from memgit.consolidate.heuristic.skills import MARKER, MAX_NAME

MAX_MEMORY_CHARS = 400_000
MAX_SKILL_CHARS = 20_000
_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def problems(c: Consolidation, *, budget_tokens: int, extra_patterns: Sequence[str] = ()) -> list[str]:
    """What makes `c` unfit to commit; [] when it is fit."""
    found = []
    if not c.summary_md.strip():
        found.append("memory_summary.md is empty")
    elif len(c.summary_md) > MAX_CHARS:
        found.append(f"memory_summary.md has {len(c.summary_md)} characters (at most {MAX_CHARS})")
    elif (n := tokens.count(c.summary_md)) > budget_tokens:
        found.append(f"memory_summary.md has {n} tokens (budget {budget_tokens})")
    if not any(s.heading for s in _markdown.sections(c.memory_md)):
        found.append("MEMORY.md has no `## ` topic section")
    if len(c.memory_md) > MAX_MEMORY_CHARS:
        found.append(f"MEMORY.md has {len(c.memory_md)} characters (at most {MAX_MEMORY_CHARS})")
    for name, text in c.skills.items():
        found += [f"skill {name!r}: {p}" for p in skill_problems(name, text)]
    texts = {"MEMORY.md": c.memory_md, "memory_summary.md": c.summary_md,
             **{f"skills/{n}/SKILL.md": t for n, t in c.skills.items()}}
    for path, text in texts.items():
        kinds = sorted({f.kind for f in redact.find_secrets(text, extra_patterns)})
        if kinds:
            found.append(f"{path} holds what looks like a secret ({', '.join(kinds)})")
    return found


def skill_problems(name: str, text: str) -> list[str]:
    from memgit.core.notes import split_front_matter

    found = []
    if not _NAME.match(name) or len(name) > MAX_NAME:
        found.append("the name is not kebab-case within 64 characters")
    if len(text) > MAX_SKILL_CHARS:
        found.append(f"SKILL.md has {len(text)} characters (at most {MAX_SKILL_CHARS})")
    try:
        meta, _ = split_front_matter(text)
    except ValueError:
        meta = {}
    if meta.get("name") != name:
        found.append("the front matter's `name` is missing or differs from the directory")
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
        found.append("the front matter has no one-line `description`")
    return found


def mark_skill(text: str) -> str:
    """Put memgit's marker right after the front matter, once."""
    if MARKER in text:
        return text
    end = text.find("\n---", 3) if text.startswith("---") else -1
    if end < 0:
        return MARKER + "\n\n" + text
    cut = text.find("\n", end + 4)
    cut = len(text) if cut < 0 else cut + 1
    return text[:cut] + MARKER + "\n" + text[cut:]


def repair(c: Consolidation, existing: Collection[str]) -> Consolidation:
    """Drop link targets that name no file on the branch; mark every skill as memgit's."""
    skills = {
        name: mark_skill(_markdown.unlink_broken(text, existing, f"skills/{name}"))
        for name, text in c.skills.items()
    }
    return replace(
        c,
        memory_md=_markdown.unlink_broken(c.memory_md, existing),
        summary_md=_markdown.unlink_broken(c.summary_md, existing),
        skills=skills,
    )
