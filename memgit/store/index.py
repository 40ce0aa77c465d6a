"""The git index (.git/index) as raw v2/v3 records: read, looked up, and patched by splicing.

Patched in place because rebuilding a 10k-entry index through dulwich costs ~180 ms per commit.
"""

from __future__ import annotations

import bisect
import hashlib
import io
import os
import struct
from collections.abc import Iterator

from dulwich.index import read_index_dict_with_version, write_index_dict

from memgit.errors import MemgitError
from memgit.store.objects import State

ENTRY = struct.Struct(">10I20sH")  # ctime s,ns  mtime s,ns  dev ino mode uid gid size  sha  flags
M32 = 0xFFFFFFFF
KEEP = object()  # "leave this index entry alone"


class Index:
    """A v2/v3 index as raw bytes, with the offset and name of every entry, patched by splicing."""

    __slots__ = ("data", "version", "starts", "names", "end")

    def __init__(self, data: bytes, version: int, starts: list[int], names: list[bytes], end: int):
        self.data, self.version, self.starts, self.names, self.end = data, version, starts, names, end

    @classmethod
    def parse(cls, data: bytes) -> Index:
        try:
            return cls._parse(data)
        except (struct.error, ValueError, IndexError) as e:
            raise MemgitError(
                "the memory repository's .git/index is corrupt; rebuild it with "
                "`rm .git/index && git reset` in the repository"
            ) from e

    @classmethod
    def _parse(cls, data: bytes) -> Index:
        if not data:
            return cls(b"", 2, [], [], 12)
        sig, version, count = struct.unpack_from(">4sII", data)
        if sig != b"DIRC" or version not in (2, 3, 4):
            raise ValueError(sig)
        if version == 4:  # path-compressed: let dulwich expand it once, then keep it as v2
            entries, _, _ = read_index_dict_with_version(io.BytesIO(data))
            buf = io.BytesIO()
            write_index_dict(buf, entries, version=2)
            return cls._parse(buf.getvalue())
        starts, names, unpack, pos = [], [], struct.unpack_from, 12
        for _ in range(count):
            flags = unpack(">H", data, pos + 60)[0]
            name_at = pos + (64 if flags & 0x4000 else 62)
            length = flags & 0xFFF
            if length == 0xFFF:
                length = data.index(b"\0", name_at) - name_at
            starts.append(pos)
            names.append(data[name_at : name_at + length])
            pos += (name_at - pos + length + 8) & ~7
        ext = pos
        while ext < len(data) - 20:  # optional extensions (TREE, UNTR...) are dropped on write
            sig = data[ext : ext + 4]
            if not b"A" <= sig[:1] <= b"Z":
                raise MemgitError(
                    f"the index uses the {sig.decode('ascii', 'replace')!r} extension "
                    "(split or sparse index), which memgit cannot keep in sync; "
                    "run `git config core.splitIndex false && git sparse-checkout disable`"
                )
            ext += 8 + struct.unpack_from(">I", data, ext + 4)[0]
        return cls(data, version, starts, names, pos)

    def get(self, name: bytes) -> State | None | object:
        """Return the stage-0 entry's (mode, sha), None if absent, KEEP if conflicted."""
        i = bisect.bisect_left(self.names, name)
        if i == len(self.names) or self.names[i] != name:
            return None
        fields = ENTRY.unpack_from(self.data, self.starts[i])
        if fields[11] & 0x3000 or (i + 1 < len(self.names) and self.names[i + 1] == name):
            return KEEP
        return fields[6], fields[10].hex().encode()

    def entries(self) -> Iterator[tuple[bytes, tuple]]:
        for name, start in zip(self.names, self.starts):
            yield name, ENTRY.unpack_from(self.data, start)

    def patched(self, updates: dict[bytes, bytes | None]) -> Index:
        """Return the index with each named entry replaced by a raw record (None: removed)."""
        view = memoryview(self.data)
        chunks: list = [b""]  # the header, once the count is known
        starts: list[int] = []
        names: list[bytes] = []
        n, done, out = len(self.names), 0, 12

        def copy(upto: int) -> None:  # entries done..upto unchanged, shifted to `out`
            nonlocal out
            if upto <= done:
                return
            a, b = self.starts[done], self.starts[upto] if upto < n else self.end
            chunks.append(view[a:b])
            shift = out - a
            kept = self.starts[done:upto]
            starts.extend([s + shift for s in kept] if shift else kept)
            names.extend(self.names[done:upto])
            out += b - a

        for name in sorted(updates):
            i = bisect.bisect_left(self.names, name, done)
            copy(i)
            done = bisect.bisect_right(self.names, name, max(i, done))
            if (raw := updates[name]) is not None:
                chunks.append(raw)
                starts.append(out)
                names.append(name)
                out += len(raw)
        copy(n)
        chunks[0] = struct.pack(">4sII", b"DIRC", self.version, len(names))
        digest = hashlib.sha1()
        for chunk in chunks:
            digest.update(chunk)
        chunks.append(digest.digest())
        return Index(b"".join(chunks), self.version, starts, names, out)


def record(name: bytes, st: os.stat_result, mode: int, sha: bytes) -> bytes:
    """Encode one stage-0 index entry (v2 layout) for a file just written or verified."""
    head = ENTRY.pack(
        int(st.st_ctime_ns // 10**9) & M32, st.st_ctime_ns % 10**9,
        int(st.st_mtime_ns // 10**9) & M32, st.st_mtime_ns % 10**9,
        st.st_dev & M32, st.st_ino & M32, mode, st.st_uid & M32, st.st_gid & M32,
        st.st_size & M32, bytes.fromhex(sha.decode()), min(len(name), 0xFFF),
    )  # fmt: skip
    return head + name + b"\0" * (8 - (62 + len(name)) % 8)


def stat_clean(fields: tuple, st: os.stat_result, mode: int, index_time: int) -> bool:
    """Trust the index's stat cache the way git does, racily-clean entries excepted."""
    mtime = fields[2] * 10**9 + fields[3]
    return (
        fields[6] == mode
        and mtime == st.st_mtime_ns
        and fields[0] * 10**9 + fields[1] == st.st_ctime_ns
        and fields[9] == st.st_size & M32
        and fields[5] == st.st_ino & M32
        and mtime < index_time
    )
