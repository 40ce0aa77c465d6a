"""A batch of commits made and not yet published (commits.py): their heads, and each commit as it can
be made again on top of a branch another process moved meanwhile. Their objects wait in
Objects.pending (objects.py) until the batch's one pack is written."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

# {path: (mode or None to keep the current one, content) or None to delete}
Changes = dict[bytes, tuple[int | None, bytes] | None]

# A batch is published when it holds this many commits, or is this old: what a kill -9 can make the
# next sync redo. 16 commits cost one pack (3 fsyncs) and a ref per branch, where each commit took ~7.
BATCH_COMMITS = 16
BATCH_SECONDS = 0.5


@dataclass(slots=True)
class Made:
    """A commit of a batch, as it can be made again on top of a branch another process moved."""

    changes: Changes | None  # None: a branch forked from `base` without a commit
    message: str
    base: bytes | None
    allow_empty: bool
    merged: bytes | None
    author_time: int | None


@dataclass(slots=True)
class Batch:
    """Commits made and not yet published: their objects wait in Objects.pending, their heads here."""

    size: int
    seconds: float
    started: float = 0.0
    heads: dict[str, tuple[bytes | None, bytes]] = field(default_factory=dict)  # branch: (on disk, pending)
    made: dict[str, list[Made]] = field(default_factory=dict)

    def add(self, branch: str, old: bytes | None, new: bytes, made: Made) -> None:
        if not self.heads:
            self.started = time.monotonic()
        self.heads[branch] = (self.heads[branch][0] if branch in self.heads else old, new)
        self.made.setdefault(branch, []).append(made)

    def full(self) -> bool:
        count = sum(len(m) for m in self.made.values())
        return count >= self.size or time.monotonic() - self.started >= self.seconds
