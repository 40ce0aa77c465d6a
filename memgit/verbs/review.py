"""`memgit review`: the learnings the session notes gained since the person last looked, to accept
or reject; rejecting is forgetting (memgit.verbs.forget).

Where the last review stands is recorded in history, not in a side file: each review ends with an
empty `review(<scope>)` commit whose `Memgit-Reviewed` trailer names the head it reviewed. It travels
with the branch (push, pull, clone), and `git log --grep 'review('` shows when each review was.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from memgit.config import Config
from memgit.core import vocab
from memgit.core.ledger import format_message, parse_subject, parse_trailers
from memgit.verbs.forget import SESSIONS_DIR, Drop, drop_learnings, forget_in, reconsolidate
from memgit.verbs.remember import Written, scope_label, writable

KIND = "review"
TRAILER = "Memgit-Reviewed"


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


@dataclass(slots=True)
class Pending:
    learnings: list[Learning]
    heads: dict[str, str]  # the heads read: a review records these as reviewed
    since: dict[str, str | None]  # each branch's last reviewed head (None: never reviewed)

    def as_dict(self) -> dict:
        return {"learnings": [asdict(x) for x in self.learnings], "since": self.since}


@dataclass(slots=True)
class Reviewed:
    accepted: int
    rejected: int
    commits: list[Written] = field(default_factory=list)  # forget commits, then review commits
    consolidated: list = field(default_factory=list)


def last_review(repo, head: str) -> str | None:
    """The head the newest review of this branch reviewed, along first parents; None when never."""
    for info in repo.walk(head):
        subject = parse_subject(info.message)
        if subject and subject[0] == KIND:
            reviewed = parse_trailers(info.message).get(TRAILER)
            if reviewed and repo.resolve(reviewed[0]):
                return reviewed[0]
    return None


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


def pending(cfg: Config) -> Pending:
    """The learnings added to every scope since its last review, oldest scope order: main, then projects.

    Raises:
        NotARepo: there is no memory repository yet.
    """
    from memgit.verbs.inspect import open_repo

    with open_repo(cfg) as repo:
        heads = {b: h for b, h in sorted(repo.branches().items()) if b == vocab.MAIN or b.startswith(vocab.PREFIX)}
        since = {b: last_review(repo, h) for b, h in heads.items()}
        learnings = [x for b, h in heads.items() for x in _added(repo, b, h, since[b])]
    return Pending(learnings, heads, since)


def finish(cfg: Config, review: Pending, rejected: list[Learning]) -> Reviewed:
    """Forget the rejected learnings, then record every branch with learnings as reviewed.

    Raises:
        ConflictError: a branch moved since the review was read (review again: nothing was lost).
        NotARepo, LockHeld, SecretFound: as the commits raise them.
    """
    branches = sorted({x.branch for x in review.learnings})
    heads = dict(review.heads)
    accepted = len(review.learnings) - len(rejected)
    with writable(cfg) as repo:
        drops: dict[tuple[str, str], Drop] = {}
        for x in rejected:
            drops.setdefault((x.branch, x.path), Drop(x.branch, x.path, False)).lines.append(x.line)
        commits = forget_in(repo, list(drops.values()), heads, "rejected in review") if drops else []
        heads.update({c.branch: c.sha for c in commits})
        for branch in branches:
            mine = [x for x in review.learnings if x.branch == branch]
            no = sum(1 for x in rejected if x.branch == branch)
            scope = scope_label(branch)
            message = format_message(KIND, scope, f"{len(mine) - no} accepted, {no} rejected",
                                     trailers=[(TRAILER, heads[branch])])
            sha = repo.commit(branch, {}, message, expected=heads[branch], allow_empty=True)
            commits.append(Written(sha, branch, scope, "", message.split("\n", 1)[0]))
        consolidated = reconsolidate(repo, cfg, {x.branch for x in rejected}) if rejected else []
    return Reviewed(accepted, len(rejected), commits, consolidated)
