"""Taking in what a remote sends: fetched into a quarantine beside the repository, checked, scanned
for secrets, and only then joined to the repository (memgit.store.remote's fetch, memgit.store.team's)."""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from tempfile import SpooledTemporaryFile

from dulwich.object_store import DiskObjectStore

from memgit.core import bulk
from memgit.store import blobs, crossing, transport
from memgit.store import scan as scan_mod
from memgit.store.objects import StoredObject, stored_objects
from memgit.store.transport import describe_url

Progress = Callable[[str], None]
INDEX_WITH_GIT = 100  # objects from which a received pack is indexed by git (a process costs more than a few)


def receive(repo, url: str, select: Callable[[Mapping[bytes, bytes | None]], dict[str, str]], *,
            check: Callable | None = None, haves: Sequence[bytes] | None = None,
            progress: Progress | None = None) -> tuple[dict[str, str], int]:
    """Fetch what `select` picks of the remote's refs ({name: sha}) into a quarantine beside the
    repository; `check(store, heads)` may refuse it; what arrived is scanned for secrets, then joins
    the repository. Returns (the selected heads, objects received); no ref is moved here.

    Raises:
        RemoteError: it could not be reached or read; `check` refused it.
        SecretFound: what arrived holds a possible secret (nothing joined the repository).
    """
    raw = repo._repo
    client, path = transport.connect(url, raw.get_config_stack(), push=False)
    heads: dict[str, str] = {}

    def wants(refs, depth=None):
        heads.update(select(refs))
        return sorted({sha.encode() for sha in heads.values()} - _present(raw, heads.values()))

    memgit_dir = Path(raw.controldir()) / "memgit"
    memgit_dir.mkdir(exist_ok=True)
    quarantine = Path(tempfile.mkdtemp(prefix="incoming-", dir=memgit_dir))
    store = DiskObjectStore.init(str(quarantine))
    objects = 0
    try:
        store.add_alternate_path(raw.object_store.path)
        walker = raw.get_graph_walker(_haves(raw) if haves is None else list(haves))
        with transport.reaching(url, client), SpooledTemporaryFile(max_size=32 << 20, dir=quarantine) as pack:
            client.fetch_pack(path, wants, walker, pack.write, progress=bytes_progress(progress))
            if pack.tell():
                pack.seek(0)
                objects = objects_of(pack)
                _index_pack(store, raw.controldir(), pack)
            transport.settle_credentials(client)
        if check is not None:
            check(store, heads)
        arrived = (sha for pack in store.packs for sha in pack)  # the quarantine's own, not its alternates
        files: dict[str, bytes] = {}  # what arrived, as the scan reads it: the consolidation after reads it too
        with bulk.paused():  # every object that arrived, read once: no cycles among them to look for
            found = scan_mod.scan_objects(_files_kept(stored_objects(store, arrived, git_dir=raw.controldir(),
                                                                     objects_dir=store.path), files),
                                          repo.extra_patterns)
        crossing.refuse_secrets(found, f"take in what {describe_url(url)} sent: its history holds",
                                "Nothing was fetched. Remove them from that history on the machine that pushed them "
                                "(`memgit scan` there says where, `memgit purge` removes them)")
        store.close()
        _admit(store, raw.object_store)
        blobs.arrived(files)
    finally:
        store.close()
        shutil.rmtree(quarantine, ignore_errors=True)
    return heads, objects


def _files_kept(objects: Iterator[StoredObject], files: dict[str, bytes]) -> Iterator[StoredObject]:
    """The objects, each blob's content kept in `files` as it passes, until they pass blobs.ARRIVED_BYTES
    (then none is kept: a large fetch is not held in memory whole)."""
    size = 0
    for obj in objects:
        if obj.kind == "blob" and size <= blobs.ARRIVED_BYTES:
            size += len(obj.data)
            if size <= blobs.ARRIVED_BYTES:
                files[obj.sha] = obj.data
            else:
                files.clear()
        yield obj


def _index_pack(store: DiskObjectStore, git_dir: str, pack) -> None:
    """Take the (thin) pack received into the quarantine: `git index-pack --fix-thin` when git is there
    (its bases found through the quarantine's alternates; C, where dulwich indexes and writes the
    pack again in Python), else dulwich's add_thin_pack."""
    import subprocess

    git = shutil.which("git")
    if git and objects_of(pack) >= INDEX_WITH_GIT:
        env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}  # memgit may run in a git hook
        env.update(GIT_CONFIG_NOSYSTEM="1", GIT_DIR=git_dir, GIT_OBJECT_DIRECTORY=store.path)
        try:
            pack.rollover()  # a file git can read
            subprocess.run([git, "index-pack", "--stdin", "--fix-thin"], stdin=pack, capture_output=True, env=env,
                           check=True)
            return
        except (OSError, subprocess.CalledProcessError) as e:
            import logging

            logging.getLogger(__name__).debug("git index-pack failed (%s); indexing through dulwich", e)
            for name in os.listdir(store.pack_dir):  # what it may have left
                os.unlink(os.path.join(store.pack_dir, name))
            pack.seek(0)
    store.add_thin_pack(pack.read, None)


def objects_of(pack) -> int:
    """The object count in the header of the pack `pack` (a file at its start: left there)."""
    count = struct.unpack(">L", pack.read(12)[8:12])[0]
    pack.seek(0)
    return count


def _haves(raw) -> list[bytes]:
    """What the remote need not send: every local branch and remote-tracking head (dulwich's
    default walker offers the local branches only, so each fetch would bring a remote's whole
    history again)."""
    refs = {**raw.refs.as_dict(b"refs/heads"), **raw.refs.as_dict(b"refs/remotes")}
    return sorted({sha for sha in refs.values() if sha in raw.object_store})


def _present(raw, shas) -> set[bytes]:
    return {sha.encode() for sha in shas if sha.encode() in raw.object_store}


def _admit(store: DiskObjectStore, target: DiskObjectStore) -> None:
    """Move the quarantine's packs into the repository: each .pack before its .idx, as git does."""
    for name in sorted(os.listdir(store.pack_dir), key=lambda n: n.endswith(".idx")):
        if name.endswith((".pack", ".idx")):
            os.replace(os.path.join(store.pack_dir, name), os.path.join(target.pack_dir, name))


def bytes_progress(progress: Progress | None):
    if progress is None:
        return None
    return lambda data: progress(data.decode("utf-8", "replace"))
