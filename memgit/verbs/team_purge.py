"""`memgit purge` of a shared project (issues 18 and 22): the next push to the team goes on.

A team's share commits name the local head they were made from (`Memgit-Shared-From`), and a push
goes on from the last one only when that head is in the local history (else the share came from a
memory this one lacks). A purge rewrites that history, so the project's purge commit says what became
of that head (`Memgit-Rewrote: <old> <new>`), and the person's own share ref stays what the team holds
(a rewrite would only rename the head it names). When the purged value had reached the team, that ref
is dropped instead (it holds the value), and the purge commit names what the team holds there
(`Memgit-Replaces: <team>/people/<me>/projects/<slug> <sha>`): the next push sends a share of the
purged history in its place, leased on that commit, and the value leaves the team's history.
"""

from __future__ import annotations

from collections.abc import Iterator

from memgit.core.ledger import PURGE, REPLACES_TRAILER, REWROTE_TRAILER, parse_subject, parse_trailers
from memgit.core.vocab import PREFIX
from memgit.store import team as store

SHARED_FROM = "Memgit-Shared-From"  # on a share commit: the local head it was made from


def shared_from(repo, share: str) -> str:
    """The local head a share commit was made from ("" when it does not say)."""
    [info] = repo.walk(share, limit=1)
    return (parse_trailers(info.message).get(SHARED_FROM) or [""])[0]


def marks(repo, history) -> tuple[dict[str, list[tuple[str, str]]], dict[bytes, bytes | None]]:
    """For a purge's rewrite (memgit.store.rewrite.History): the trailers each shared project's purge
    commit takes ({branch: [(trailer, value)]}), and where the person's own share refs go once the
    rewrite moved them ({ref: the commit it keeps, or None to drop it: it holds the value})."""
    trailers: dict[str, list[tuple[str, str]]] = {}
    refs: dict[bytes, bytes | None] = {}
    heads = repo.branches()
    for t in store.teams(repo):
        for (person, slug), sha in sorted(store.fetched(repo, t.name).items()):
            branch = PREFIX + slug
            if person != t.person or branch not in heads:
                continue
            ref = store.local_ref(t.name, person, slug).encode()
            if history.places(sha.encode()):  # what the team holds there holds the value: replaced at the next push
                trailers.setdefault(branch, []).append(
                    (REPLACES_TRAILER, f"{t.name}/{store.remote_ref(person, slug)} {sha}"))
                refs[ref] = None
                continue
            refs[ref] = sha.encode()  # kept as the team holds it (a rewrite would only rename the head it names)
            sent = shared_from(repo, sha)
            now = sent if sent and repo.resolve(sent) else rewrite_of(repo, heads[branch], sent)
            if now and now.encode() in history.commits:
                trailers.setdefault(branch, []).append((REWROTE_TRAILER, f"{sent} {history.commits[now.encode()].decode()}"))
    return trailers, refs


def settle(repo, refs: dict[bytes, bytes | None]) -> None:
    """Put the person's own share refs where `marks` said, after the rewrite moved them."""
    for ref, sha in refs.items():
        if sha is None:
            repo._repo.refs.remove_if_equals(ref, None, message=b"memgit: purge")
        else:
            repo._repo.refs.set_if_equals(ref, None, sha, message=b"memgit: purge")


def rewrite_of(repo, head: str, old: str) -> str | None:
    """The commit a purge in `head`'s history rewrote `old` to (the newest purge saying so); None when none did."""
    if not old:
        return None
    for trailers in _purges(repo, head):
        for value in trailers.get(REWROTE_TRAILER, []):
            before, _, after = value.partition(" ")
            if before == old:
                return after
    return None


def lease(repo, head: str, team: str, branch: str) -> str | None:
    """What team `team` holds at `branch` (people/<me>/projects/<slug>) that a purge in `head`'s
    history replaced (the oldest purge saying so: the team never saw the later ones); None when none did."""
    found = None
    for trailers in _purges(repo, head):
        for value in trailers.get(REPLACES_TRAILER, []):
            ref, _, sha = value.partition(" ")
            if ref == f"{team}/{branch}":
                found = sha
    return found


def _purges(repo, head: str) -> Iterator[dict[str, list[str]]]:
    """The trailers of each purge commit in `head`'s history, newest first."""
    for info in repo.history(head):
        if (parse_subject(info.message) or ("",))[0] == PURGE:
            yield parse_trailers(info.message)
