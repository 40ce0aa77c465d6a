"""`memgit review`: the learnings the session notes gained since the person last looked, to accept
or reject; rejecting is forgetting (memgit.verbs.forget).

Where a review stands is recorded in history, not in a side file, one decision at a time: an
accepted learning is an empty `review(<scope>)` commit whose `Memgit-Accepted` trailer names it (its
note and a digest of its line), a rejected one a `forget(<scope>)` commit that takes its line out of
the note. A person may stop at any point and go on later. A review that went through every learning
of a branch ends with a `review(<scope>)` commit whose `Memgit-Reviewed` trailer names the head it
reviewed; what came before it is never asked again. It all travels with the branch (push, pull,
clone), and `git log --grep 'review('` shows when each review was.

The queue is ordered as the briefing is: first what the agent is told (the lines of the scope's
memory_summary.md, in their order), then what clears the briefing's bar for its type
(memgit.consolidate.heuristic.selection), then the rest; newest first within each.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from datetime import date

from memgit.config import Config
from memgit.core import vocab
from memgit.core.ledger import format_message, one_line, parse_subject, parse_trailers
from memgit.verbs.forget import SESSIONS_DIR, Drop, drop_learnings, forget_in, reconsolidate
from memgit.verbs.remember import Written, scope_label, writable

KIND = "review"
TRAILER = "Memgit-Reviewed"  # the head a review went through whole
ACCEPTED = "Memgit-Accepted"  # one learning accepted: "<note path> <digest of its line>"
_CODE = re.compile(r"`([^`]+)`")
_DAY = re.compile(r"(\d{4}-\d{2}-\d{2})")


@dataclass(frozen=True, slots=True)
class Learning:
    """One learning a session note gained since the last review."""

    branch: str
    path: str
    type: str
    text: str

    @property
    def line(self) -> str:
        return f"- [{self.type}] {self.text}"

    @property
    def key(self) -> str:
        """How a review commit names it: its note, and its line's digest (a line may be long)."""
        return f"{self.path} {hashlib.sha256(self.line.encode()).hexdigest()[:16]}"

    @property
    def day(self) -> str:
        """The day of its session, as the note's name says (sessions/YYYY/MM/<day>-...)."""
        found = _DAY.match(self.path.rsplit("/", 1)[-1])
        return found.group(1) if found else ""


@dataclass(slots=True)
class Pending:
    learnings: list[Learning]  # the queue: filtered, ordered, cut at the limit
    heads: dict[str, str]  # the heads read: a review that goes through a branch whole records it as reviewed
    since: dict[str, str | None]  # each branch's last reviewed head (None: never reviewed)
    total: dict[str, int] = field(default_factory=dict)  # per branch, every learning not reviewed, filters aside

    @property
    def left(self) -> int:
        return sum(self.total.values())

    def as_dict(self) -> dict:
        return {"learnings": [asdict(x) for x in self.learnings], "since": self.since, "left": self.left}


@dataclass(slots=True)
class Reviewed:
    accepted: int
    rejected: int
    commits: list[Written] = field(default_factory=list)  # forget commits, then review commits
    consolidated: list = field(default_factory=list)


def last_review(repo, head: str) -> tuple[str | None, set[str]]:
    """The head the newest whole review of this branch reviewed (None when never), and the learnings
    accepted one by one since (their keys), along first parents."""
    accepted: set[str] = set()
    for info in repo.walk(head):
        subject = parse_subject(info.message)
        if subject and subject[0] == KIND:
            trailers = parse_trailers(info.message)
            accepted.update(trailers.get(ACCEPTED, ()))
            reviewed = trailers.get(TRAILER)
            if reviewed and repo.resolve(reviewed[0]):
                return reviewed[0], accepted
    return None, accepted


def _learnings(text: str) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    drop_learnings(text, lambda t, x: found.append((t, x)) or False)  # collects every learning, drops none
    return found


def _added(repo, branch: str, head: str, since: str | None) -> list[Learning]:
    new_tree = repo.tree_id(head, SESSIONS_DIR)
    if since is None:
        changed = repo.blobs(head, SESSIONS_DIR)
    else:
        changed = repo.tree_changes(repo.tree_id(since, SESSIONS_DIR), new_tree, SESSIONS_DIR)
        if changed is None:  # the reviewed commit is gone (a rewritten history): every note is new
            changed, since = repo.blobs(head, SESSIONS_DIR), None
    out = []
    for path, blob in sorted(changed.items()):
        if blob is None or not path.endswith(".md"):
            continue
        before = set(_learnings((repo.read(since, path) or b"").decode("utf-8", "replace"))) if since else set()
        for type_, text in dict.fromkeys(_learnings(repo.read_blob(blob).decode("utf-8", "replace"))):
            if (type_, text) not in before:
                out.append(Learning(branch, path, type_, text))
    return out


def pending(cfg: Config, *, project: str | None = None, types: tuple[str, ...] = (), since: date | None = None,
            limit: int | None = None) -> Pending:
    """The learnings added to the scopes (or one) since their last review, in the briefing's order.

    Args:
        project: one scope: a project (as `projects merge` names one) or main.
        types: only learnings of these types; since: only from sessions of this day or later;
            limit: at most this many. `Pending.total` still counts every learning not reviewed.

    Raises:
        NotARepo: there is no memory repository yet.
        NoMatch, AmbiguousSelector: `project` names no project, or several.
    """
    from memgit.verbs.inspect import open_repo
    from memgit.verbs.projects import find

    with open_repo(cfg) as repo:
        heads = {b: h for b, h in sorted(repo.branches().items()) if b == vocab.MAIN or b.startswith(vocab.PREFIX)}
        if project:
            chosen = vocab.MAIN if project == vocab.MAIN else find(repo, project)
            heads = {chosen: heads[chosen]}
        since_head, learnings, told = {}, [], {}
        for b, h in heads.items():
            since_head[b], accepted = last_review(repo, h)
            learnings += [x for x in _added(repo, b, h, since_head[b]) if x.key not in accepted]
            told[b] = (repo.read(h, vocab.SUMMARY_FILE) or b"").decode("utf-8", "replace")
    total = {b: sum(1 for x in learnings if x.branch == b) for b in heads}
    queue = [x for x in ordered(learnings, told) if (not types or x.type in types)
             and (since is None or x.day >= since.isoformat())]
    return Pending(queue[:limit] if limit else queue, heads, since_head, {b: n for b, n in total.items() if n})


def ordered(learnings: list[Learning], summaries: dict[str, str]) -> list[Learning]:
    """The briefing's order: what each scope's summary tells (in its order), then what clears the
    briefing's bar for its type, then the rest; the newest sessions first within each."""
    from memgit.consolidate.heuristic.selection import earns_a_line

    lines = {b: [line[2:] for line in text.splitlines() if line.startswith("- ")] for b, text in summaries.items()}

    def told(x: Learning) -> int | None:
        probes = _CODE.findall(x.text)[:1] if x.type == "command" else [x.text]  # a command: its form is shown
        for i, line in enumerate(lines.get(x.branch, ())):
            if any(line.startswith(p) if p == x.text else p in line for p in probes):
                return i
        return None

    def rank(x: Learning) -> tuple:
        where = told(x)
        tier = 0 if where is not None else 1 if earns_a_line(x.type, x.text) else 2
        return tier, where or 0, vocab.TYPE_RANK.get(x.type, 99), _newest_first(x.day), x.branch, x.path

    return sorted(learnings, key=rank)


def _newest_first(day: str) -> tuple:
    return tuple(-ord(c) for c in day)


def decide(cfg: Config, x: Learning, accept: bool) -> Written | None:
    """Record one decision at once: an accepted learning's `review` commit, or a rejected one's
    `forget` commit (consolidated by `finish`). None when a rejected line is not in its note any more.

    Raises:
        NotARepo, LockHeld, SecretFound: as the commits raise them.
    """
    with writable(cfg) as repo:
        heads = repo.branches()
        if x.branch not in heads:
            return None
        if not accept:
            done = forget_in(repo, [Drop(x.branch, x.path, False, [x.line])], heads, "rejected in review")
            return done[0] if done and done[0].sha != heads[x.branch] else None
        scope = scope_label(x.branch)
        message = format_message(KIND, scope, f"accepted [{x.type}] {one_line(x.text, 80)}",
                                 trailers=[(ACCEPTED, x.key)])
        sha = repo.commit(x.branch, {}, message, expected=heads[x.branch], allow_empty=True)
        return Written(sha, x.branch, scope, x.path, message.split("\n", 1)[0])


def finish(cfg: Config, review: Pending, accepted: list[Learning], rejected: list[Learning], *,
           recorded: bool = False) -> Reviewed:
    """Close a review: consolidate the scopes that lost learnings, and mark as reviewed each branch
    whose every learning not reviewed was decided.

    Args:
        accepted, rejected: the decisions; `recorded` when `decide` recorded each already
            (else the rejected are forgotten and the accepted recorded here, one commit per branch).

    Raises:
        ConflictError: a branch moved since the review was read (review again: nothing was lost).
        NotARepo, LockHeld, SecretFound: as the commits raise them.
    """
    decided = {x.branch: 0 for x in accepted + rejected}
    for x in accepted + rejected:
        decided[x.branch] += 1
    commits: list[Written] = []
    with writable(cfg) as repo:
        heads = repo.branches()
        if rejected and not recorded:
            drops: dict[tuple[str, str], Drop] = {}
            for x in rejected:
                drops.setdefault((x.branch, x.path), Drop(x.branch, x.path, False)).lines.append(x.line)
            commits = forget_in(repo, list(drops.values()), heads, "rejected in review")
            heads.update({c.branch: c.sha for c in commits})
        for branch in sorted(decided):
            whole = decided[branch] >= review.total.get(branch, 0)
            mine = [x for x in accepted if x.branch == branch]
            no = sum(1 for x in rejected if x.branch == branch)
            trailers = [] if recorded or whole else [(ACCEPTED, x.key) for x in mine]
            if whole:
                trailers.append((TRAILER, review.heads[branch]))
            if not trailers:
                continue
            scope = scope_label(branch)
            message = format_message(KIND, scope, f"{len(mine)} accepted, {no} rejected", trailers=trailers)
            sha = repo.commit(branch, {}, message, expected=heads[branch], allow_empty=True)
            commits.append(Written(sha, branch, scope, "", message.split("\n", 1)[0]))
        consolidated = reconsolidate(repo, cfg, {x.branch for x in rejected}) if rejected else []
    return Reviewed(len(accepted), len(rejected), commits, consolidated)
