"""Packs: the objects of a commit, or of a batch of commits, written as one pack fsynced once before
any ref names them; small packs merged as they pile up; an old repository's loose objects packed.

A pack becomes visible only when both its files are in place (dulwich and git read a `.pack` only
beside its `.idx`), so a kill -9 at any instant leaves either no new pack or a whole one. The files
are written under git's own temporary names (`tmp_pack_*`, `tmp_idx_*`): `git fsck` passes over one
a kill left, `git gc` prunes it, and so does `memgit gc` once it is an hour old.
"""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterable, Iterator

from dulwich.objects import ShaFile, hex_to_sha
from dulwich.pack import UnpackedObject, full_unpacked_object, write_pack_data, write_pack_index

MAX_PACKS = 6  # more than this after a sync and the small ones are merged (geometrically, as git's --geometric=2)
STALE_TEMP = 3600.0  # seconds: a temporary pack file this old belongs to no live writer


def write_pack(store, objects: Iterable[ShaFile]) -> str | None:
    """Write objects as one pack in store, durable and visible on return; its name, None if empty."""
    unique = {o.id: o for o in objects}
    if not unique:
        return None
    return _write(store, len(unique), (full_unpacked_object(o) for o in unique.values()))


def _write(store, count: int, records: Iterator[UnpackedObject]) -> str:
    """Write `count` records as a pack: data, then index, each fsynced, then both renamed into place."""
    pack_dir = store.pack_dir
    os.makedirs(pack_dir, exist_ok=True)
    temps: list[str] = []
    try:
        fd, tmp_pack = tempfile.mkstemp(prefix="tmp_pack_", dir=pack_dir)
        temps.append(tmp_pack)
        with os.fdopen(fd, "wb") as f:
            entries, checksum = write_pack_data(f.write, records, num_records=count, object_format=store.object_format)
            f.flush()
            os.fsync(f.fileno())
        fd, tmp_idx = tempfile.mkstemp(prefix="tmp_idx_", dir=pack_dir)
        temps.append(tmp_idx)
        with os.fdopen(fd, "wb") as f:
            write_pack_index(f, sorted((sha, offset, crc) for sha, (offset, crc) in entries.items()), checksum)
            f.flush()
            os.fsync(f.fileno())
        base = os.path.join(pack_dir, "pack-" + checksum.hex())
        for tmp in temps:
            os.chmod(tmp, 0o444)  # pack files are read-only, as git makes them
        os.replace(tmp_pack, base + ".pack")
        temps.remove(tmp_pack)
        os.replace(tmp_idx, base + ".idx")  # last: the pack is seen from here on
        temps.remove(tmp_idx)
    except BaseException:
        for tmp in temps:
            try:
                os.unlink(tmp)
            except FileNotFoundError:
                pass
        raise
    # No fsync of the folder: as for loose objects before, the journal keeps renames in order, so a
    # ref renamed after this is never on disk without the pack (and each of its files was fsynced).
    store.packs  # noqa: B018 - the property rescans the pack directory: the new pack is read from now on
    return os.path.basename(base)


def pack_sizes(store) -> dict[str, int]:
    """{pack base name: size of its .pack} for every pack that has its index and no .keep."""
    try:
        names = set(os.listdir(store.pack_dir))
    except FileNotFoundError:
        return {}
    sizes = {}
    for name in names:
        base = name.removesuffix(".pack")
        if name.endswith(".pack") and base + ".idx" in names and base + ".keep" not in names:
            try:
                sizes[base] = os.stat(os.path.join(store.pack_dir, name)).st_size
            except FileNotFoundError:
                continue
    return sizes


def geometric(sizes: list[int], factor: int = 2) -> int:
    """How many of the smallest packs (sizes ascending) to merge so that every pack left, the merged
    one included, is at least `factor` times all the smaller ones together: a sequence of n syncs
    then rewrites each byte about log(n) times, never the whole repository at every sync."""
    for k in range(len(sizes) + 1):
        rest = sizes[k:]
        merged = sum(sizes[:k])
        if all(b >= factor * a for a, b in zip(rest, rest[1:])) and (not rest or rest[0] >= factor * merged):
            return k if k >= 2 else 0
    return 0  # unreachable: k = len(sizes) always qualifies


def compact(store, *, max_packs: int = MAX_PACKS) -> int:
    """Merge the small packs when there are more than max_packs; return how many were merged."""
    sizes = pack_sizes(store)
    if len(sizes) <= max_packs:
        return 0
    ordered = sorted(sizes, key=lambda base: sizes[base])
    chosen = ordered[: geometric([sizes[b] for b in ordered])]
    if len(chosen) < 2:
        return 0
    _repack(store, chosen, loose=[])
    return len(chosen)


def repack_all(store) -> tuple[int, int]:
    """Pack every object (every pack and loose object) into one pack and remove the old copies.

    Returns (loose objects packed, packs merged). Unreachable objects are kept: a person's
    `git gc` prunes them; memgit never drops an object another process may be about to name.
    """
    packs = list(pack_sizes(store))
    loose = list(store._iter_loose_objects())
    if not loose and len(packs) <= 1:
        remove_stale_temps(store)
        return 0, 0
    _repack(store, packs, loose)
    remove_stale_temps(store)
    return len(loose), len(packs)


def _repack(store, packs: list[str], loose: list[bytes]) -> None:
    """Write the objects of `packs` and the `loose` ones into one new pack, then remove the old copies.

    The new pack is durable and visible before a single old copy goes: a kill -9 between the two
    leaves objects twice, never once too few. Objects are streamed, never all held in memory.
    """
    shas: set[bytes] = set(loose)
    for base in packs:
        index = store._pack_cache.get(base)
        if index is None:
            store.packs  # noqa: B018 - a pack another process just wrote: read it in
            index = store._pack_cache[base]
        shas.update(index.index)  # hex ids of every object in the pack

    def records() -> Iterator[UnpackedObject]:
        for sha in sorted(shas):
            kind, raw = store.get_raw(sha)
            yield UnpackedObject(kind, delta_base=None, crc32=None, decomp_chunks=[raw], sha=hex_to_sha(sha))

    written = _write(store, len(shas), records())
    for base in packs:
        if base == written:
            continue  # the same objects as before: the pack was rewritten in place
        for suffix in (".idx", ".rev", ".bitmap", ".pack"):  # index first: readers stop seeing the pack
            try:
                os.unlink(os.path.join(store.pack_dir, base + suffix))
            except FileNotFoundError:
                pass
    for sha in loose:
        try:
            os.unlink(store._get_shafile_path(sha))
        except FileNotFoundError:
            pass
    for folder in {sha[:2].decode() for sha in loose}:
        try:
            os.rmdir(os.path.join(store.path, folder))  # as `git prune-packed` does
        except OSError:
            pass  # not empty: an object written meanwhile, or a temporary file
    store.packs  # noqa: B018 - forget the removed packs


def remove_stale_temps(store, *, now: float | None = None) -> list[str]:
    """Remove temporary object and pack files a killed writer left (older than STALE_TEMP); return their names."""
    now = time.time() if now is None else now
    removed = []
    candidates = []
    for folder in [store.pack_dir] + [os.path.join(store.path, d) for d in os.listdir(store.path) if len(d) == 2]:
        try:
            names = os.listdir(folder)
        except (FileNotFoundError, NotADirectoryError):
            continue
        candidates += [os.path.join(folder, name) for name in names
                       if name.startswith(("tmp_pack_", "tmp_idx_", "tmp_obj_")) or
                       (name.startswith("tmp") and name.endswith(".pack"))]  # dulwich's own fetch writes tmpXXXX.pack
    for path in candidates:
        try:
            if now - os.stat(path).st_mtime > STALE_TEMP:
                os.unlink(path)
                removed.append(os.path.basename(path))
        except FileNotFoundError:
            continue
    return removed


def loose_count(store) -> int:
    return sum(1 for _ in store._iter_loose_objects())
