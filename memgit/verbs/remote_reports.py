"""What a push and a pull report, whichever kind of remote (a person's own, or a team's) they went to."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class PushReport:
    remote: str
    url: str
    updated: dict[str, list]  # branch -> [old sha on the remote or None, new sha]
    deleted: list[str]  # branches joined into another here, so removed from the remote
    objects: int  # objects sent
    bytes: int
    forced: list[str] = field(default_factory=list)  # branches a purge rewrote, replaced on the remote


@dataclass(slots=True)
class PullReport:
    remote: str
    url: str
    fetched: int  # objects received
    branches: list[dict] = field(default_factory=list)  # per branch: what joining did
    conflicts: list[dict] = field(default_factory=list)  # {branch, paths}: left as they were here
    consolidated: list[str] = field(default_factory=list)
    purged: list[dict] = field(default_factory=list)  # {branch, replayed}: rebuilt on the remote's purged history
    notices: list[str] = field(default_factory=list)  # a team pull: projects whose identities do not meet
