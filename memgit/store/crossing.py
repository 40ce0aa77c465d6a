"""What crosses to or from a remote is scanned for secrets: the objects a push is about to send
(found once, scanned before a byte is sent, then packed) and those a fetch brought.

A remote keeps what it is given, and a mirror keeps it forever; a history that holds a secret must
not spread from one machine to the next either way. Only what crosses is read — not the whole
history at every push — so a push after one session costs what that session added.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from dulwich.object_store import MissingObjectFinder
from dulwich.objects import ZERO_SHA
from dulwich.pack import generate_unpacked_objects

from memgit.errors import RemoteError, SecretFound
from memgit.store import scan as scan_mod
from memgit.store.objects import stored_objects

MAX_LISTED = 5
REUSE_DELTAS_FROM = 1_000  # objects sent: below it, a push does not look for deltas in the packs


def refuse_secrets(found: Sequence[scan_mod.Found], doing: str, what_to_do: str) -> None:
    """Raise SecretFound naming each finding's kind and place (never the value) when there is one.

    Raises:
        SecretFound: "refusing to <doing>: ... <what_to_do>".
    """
    if not found:
        return
    listed = "; ".join(f.describe() for f in found[:MAX_LISTED])
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    raise SecretFound(f"refusing to {doing}: {len(found)} possible secret(s): {listed}{more}. {what_to_do}")


class Outgoing:
    """The objects a push sends: found once, scanned for secrets before anything is sent, then packed.

    send_pack asks update_refs for the new refs before it writes to the remote, and only then for
    the pack: plan() runs in the first step, so a refusal leaves the remote untouched on every
    transport, and generate_pack_data() packs the objects plan() scanned without walking the
    history a second time (were it asked for others, it scans those before packing them).
    """

    def __init__(self, store, extra_patterns: Sequence[str]):
        self.store, self.extra_patterns = store, extra_patterns
        self.planned: dict[tuple[frozenset, frozenset], tuple[list, set]] = {}

    def plan(self, old_refs: Mapping[bytes, bytes], new_refs: Mapping[bytes, bytes]) -> None:
        # what send_pack passes on: every old value is a have; a new value not among them a want
        have = frozenset(sha for sha in old_refs.values() if sha and sha != ZERO_SHA)
        want = frozenset(sha for sha in new_refs.values() if sha != ZERO_SHA and sha not in have)
        self._checked(have, want)

    def _checked(self, have: frozenset, want: frozenset) -> tuple[list, set]:
        if (have, want) not in self.planned:
            finder = MissingObjectFinder(_HeadsOnly(self.store), haves=have, wants=want)
            ids = list(finder)
            found = scan_mod.scan_objects(stored_objects(self.store, [sha for sha, _ in ids]), self.extra_patterns)
            refuse_secrets(found, "push: what would be sent holds",
                           "Nothing was sent. Remove them from the history first: `memgit purge`")
            self.planned[have, want] = (ids, finder.get_remote_has())
        return self.planned[have, want]

    def generate_pack_data(self, have, want, *, shallow=None, progress=None, ofs_delta: bool = True):
        if shallow:
            raise RemoteError("the remote is shallow; memgit pushes only to a full repository")
        ids, remote_has = self._checked(frozenset(have), frozenset(want))
        # Looking for deltas to reuse reads every object of every pack (at 10,000 notes, most of a push
        # after one session); it pays only when much of the history is sent.
        reuse = len(ids) > REUSE_DELTAS_FROM
        return len(ids), generate_unpacked_objects(self.store, ids, progress=progress, ofs_delta=ofs_delta,
                                                    other_haves=remote_has, reuse_deltas=reuse)


class _HeadsOnly:
    """The object store, as MissingObjectFinder sees it, with the remote's heads as the only commits
    it is known to hold.

    dulwich first collects every ancestor of the remote's heads (at 10,000 commits, most of a
    push's time) and then walks back from what is sent until it meets one of them. The remote is a
    full repository, so everything behind one of its heads is there: walking back from what is
    sent until a head is met finds the same commits when the push is a fast-forward (memgit's are:
    update_refs refuses any other), costing only what the push adds. A walk that meets no head (a
    branch new to the remote) goes on to the root and sends commits the remote may already have:
    more bytes, never a missing object.
    """

    def __init__(self, store):
        self._store = store

    def __getattr__(self, name):
        return getattr(self._store, name)

    def __getitem__(self, sha):
        return self._store[sha]

    def __contains__(self, sha) -> bool:
        return sha in self._store

    def get_reachability_provider(self):
        return _HeadsReach(self._store.get_reachability_provider())


class _HeadsReach:
    def __init__(self, provider):
        self._provider = provider

    def __getattr__(self, name):
        return getattr(self._provider, name)

    def get_reachable_commits(self, heads, exclude=None, shallow=None):
        return set(heads)
