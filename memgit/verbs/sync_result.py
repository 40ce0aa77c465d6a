"""What a sync did, as plain values the CLI renders (text or --json)."""

from __future__ import annotations

from dataclasses import dataclass, field

from memgit.core import vocab

MAIN = vocab.MAIN


@dataclass(slots=True)
class SessionResult:
    session: str
    kind: str  # extract | skip | fail | none (nothing new) | planned (dry run) | pending (not attempted)
    #            | gone (deleted since it was listed: nothing to read, nothing recorded)
    project: str = ""
    branch: str = ""
    start: int = 0
    end: int = 0
    reason: str = ""
    note: str = ""
    sha: str = ""
    title: str = ""
    tokens: int = 0  # sent and received by an LLM extractor (a dry run: the estimate of what would be sent)
    cost: float | None = None  # USD, when the model's price is known


@dataclass(slots=True)
class SyncResult:
    repo: str
    results: list[SessionResult] = field(default_factory=list)
    commits: int = 0
    dry_run: bool = False
    extractor: str = ""
    consolidated: list = field(default_factory=list)  # memgit.verbs.consolidate.ConsolidateResult
    consolidation_error: str = ""
    warnings: list[str] = field(default_factory=list)  # e.g. a file in the worktree left out: it holds a secret
    kept: list[str] = field(default_factory=list)  # a person's edits of derived files, kept as theirs (core/hand.py)
    unreadable: dict[str, str] = field(default_factory=dict)  # project folders that could not be listed, and why
    imported: list = field(default_factory=list)  # memgit.verbs.import_memory.ImportResult, one per memory folder
    model_failures: int = 0  # sessions that failed because of the model (not of their transcript)
    too_old: int = 0  # transcripts not read only because they are older than max_age_days
    max_age_days: float = 0.0  # the window they are outside of (for the message)
    joined: list[dict] = field(default_factory=list)  # {into, joined, remote}: one repository's projects joined
    looked_in: list[dict] = field(default_factory=list)  # no agent history found: {agent, folder, setting} of each
    new_repo: bool = False  # a dry run with no repository yet: a real run creates it
    secrets: list[dict] = field(default_factory=list)  # written by hand past the gate: {id, kind, where, ..., purge}
    budget: dict = field(default_factory=dict)  # a dry run with a model: the day's spend and this run's estimate

    def model_failure(self) -> str:
        """Why the run failed when every session it tried failed because of the model; "" otherwise.

        A run that recorded nothing but model failures did nothing a person asked for: the CLI
        exits non-zero (LLMError's code) so a script or a cron job notices.
        """
        tried = [r for r in self.results if r.kind in ("extract", "skip", "fail")]
        if not tried or self.model_failures < len(tried):
            return ""
        last = tried[-1].reason
        return (f"every model call failed ({len(tried)} session(s)): {last}; the sessions are recorded as failed: "
                "once fixed, run memgit sync --retry-failed")

    def count(self, kind: str) -> int:
        return sum(1 for r in self.results if r.kind == kind)

    @property
    def read(self) -> int:
        return sum(1 for r in self.results if r.kind in ("extract", "skip", "fail", "none"))

    def summary(self) -> dict:
        return {
            "repo": self.repo, "dry_run": self.dry_run, "read": self.read,
            "extracted": self.count("extract"), "skipped": self.count("skip"),
            "failed": self.count("fail"), "pending": self.count("pending"), "gone": self.count("gone"),
            "commits": self.commits,
            "unreadable_folders": [{"agent": k.partition(":")[0], "project_dir": k.partition(":")[2], "reason": v}
                                   for k, v in sorted(self.unreadable.items())],
            "extractor": self.extractor, "tokens": sum(r.tokens for r in self.results), "cost": self.cost,
            "consolidated": [c.branch for c in self.consolidated],
            **({"consolidation_error": self.consolidation_error} if self.consolidation_error else {}),
            **({"warnings": self.warnings} if self.warnings else {}),
            **({"kept_edits": self.kept} if self.kept else {}),
            **({"too_old": self.too_old} if self.too_old else {}),
            **({"joined": self.joined} if self.joined else {}),
            **({"looked_in": self.looked_in} if self.looked_in else {}),
            **({"new_repo": True} if self.new_repo else {}),
            **({"secrets": self.secrets} if self.secrets else {}),
            **({"budget": self.budget} if self.budget else {}),
            "imported": [{"agent": r.agent, "source": r.source, "branch": r.branch, "sha": r.sha}
                         for r in self.imported if r.sha],
        }

    @property
    def cost(self) -> float | None:
        """Total USD of the LLM calls (estimated in a dry run); None when no price is known."""
        known = [r.cost for r in self.results if r.cost is not None]
        return round(sum(known), 6) if known else None
