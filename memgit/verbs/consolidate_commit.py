"""Committing a scope's consolidation: its outputs checked and repaired, memgit's skills written or
removed (a person's own are left alone), one commit whose message and trailers say what it read and
made; an output byte-identical to what is there makes no commit."""

from __future__ import annotations

from dataclasses import dataclass, field

from memgit.config import Config
from memgit.consolidate import _markdown, _validate, heuristic
from memgit.consolidate.heuristic.briefing import plural
from memgit.consolidate.heuristic.skills import MARKER
from memgit.core import hand, redact, tokens
from memgit.core.ledger import format_message, one_line
from memgit.core.model import Consolidation
from memgit.verbs.consolidate_pending import KIND

OUTPUTS = ("MEMORY.md", "memory_summary.md")


@dataclass(slots=True)
class ConsolidateResult:
    """One consolidate commit."""

    branch: str
    scope: str  # slug, or "main"
    sha: str
    through: str  # the head it read
    notes: int
    learnings: int
    consolidator: str
    summary_tokens: int
    tokens: int = 0  # spent by an LLM
    skills: list[str] = field(default_factory=list)  # written
    removed_skills: list[str] = field(default_factory=list)
    fallback: str = ""  # why the configured LLM consolidator was not used


def _changes(repo, head: str, c: Consolidation) -> tuple[dict[str, bytes | None], list[str]]:
    """Files to write (outputs, skills) and memgit's skills to delete; returns (changes, removed names)."""
    changes: dict[str, bytes | None] = {
        "MEMORY.md": c.memory_md.encode("utf-8"),
        "memory_summary.md": c.summary_md.encode("utf-8"),
    }
    ours, theirs = set(), set()
    for path in repo.list(head, "skills"):
        parts = path.split("/")
        if len(parts) == 3 and parts[2] == "SKILL.md":
            (ours if MARKER.encode() in (repo.read(head, path) or b"") else theirs).add(parts[1])
    for name, text in sorted(c.skills.items()):
        if name not in theirs:  # a person's own skill of the same name wins
            changes[f"skills/{name}/SKILL.md"] = text.encode("utf-8")
    removed = sorted(ours - set(c.skills))
    for name in removed:
        changes[f"skills/{name}/SKILL.md"] = None
    return changes, removed


class _Paths:
    """The files at a commit, looked up one by one: checking a summary's few dozen links must not
    list a branch of 10,000 notes."""

    def __init__(self, repo, rev: str, extra: set[str]):
        self.exists, self.extra = repo.exists_at(rev), extra

    def __contains__(self, path: object) -> bool:
        return path in self.extra or (isinstance(path, str) and self.exists(path))


def hand_records(repo, head: str) -> list[hand.Record]:
    """The person's kept edits of the scope's derived files (hand/), oldest first."""
    found = []
    for path in sorted(repo.list(head, hand.HAND_DIR)):
        record = hand.parse((repo.read(head, path) or b"").decode("utf-8", "replace")) if path.endswith(".md") else None
        if record is not None:
            found.append(record)
    return found


def commit(repo, cfg: Config, branch: str, scope: str, head: str, c: Consolidation, *, n_notes: int,
            fallback: str, read: dict[str, str] | None = None, force: bool = False) -> ConsolidateResult | None:
    existing = _Paths(repo, head, {*OUTPUTS, *(f"skills/{n}/SKILL.md" for n in c.skills)})
    c = _validate.repair(c, existing)
    records = hand_records(repo, head)
    if records:  # the person's words win over the consolidator's
        c = hand.applied(c, records)
        repo.keep_reverts_clean()  # this clone too, whichever machine the edit was made on
    changes, removed = _changes(repo, head, c)
    n_learnings = _markdown.learnings(c.memory_md)
    summary_tokens = tokens.count_often(c.summary_md)
    body = [f"MEMORY.md: {plural(n_learnings, 'learning')} from {plural(n_notes, 'note')}",
            f"memory_summary.md: {summary_tokens} tokens (budget {cfg.summary_tokens}), "
            f"{len(c.summary_md)} characters"]
    if c.skills or removed:
        body.append("skills: " + ", ".join([*sorted(c.skills), *(f"-{n}" for n in removed)]))
    if fallback:  # an error's words may quote a reply: redacted like everything memgit commits
        body.append(redact.redact(one_line(f"Fell back to {heuristic.CONSOLIDATOR}: {fallback}", 400),
                                  cfg.extra_redact_patterns))
    trailers = [("Memgit-Through", head), ("Memgit-Consolidator", c.consolidator),
                ("Memgit-Tokens", c.tokens), ("Memgit-Cost", f"{c.cost:.6f}" if c.cost is not None else None),
                ("Memgit-Summary-Tokens", summary_tokens),
                ("Memgit-Prompt", c.prompt or None)]
    trailers += [("Memgit-Read", f"{b} {sha}") for b, sha in sorted((read or {}).items())]
    message = format_message(KIND, scope, f"{plural(n_notes, 'note')}, {plural(n_learnings, 'learning')}",
                             body="\n".join(body), trailers=trailers)
    # Kept hand edits often leave the output as it is: the commit still records that it was read.
    sha = repo.commit(branch, changes, message, expected=head, allow_empty=bool(records) and not force)
    if sha == head:
        return None  # byte-identical: nothing to commit
    return ConsolidateResult(branch, scope, sha, head, n_notes, n_learnings, c.consolidator, summary_tokens,
                             c.tokens, sorted(c.skills), removed, fallback)

