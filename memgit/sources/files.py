"""Session files of any agent: what discovery lists, and how a file, compressed or not, is opened.

Every agent package (`sources/codex`, `sources/gemini`, and later Claude Code) exposes the same few
names, so a registry can list them without knowing which is which:

    AGENT: str                                            the ledger's agent name
    default_root(env: Mapping[str, str]) -> Path          where the agent keeps its files
    discover(root: Path) -> list[SessionFile]             one entry per session, duplicates merged
    read_transcript(path, *, start=0, session_id=None, clean=None) -> Transcript
    peek_cwd(path) -> str | None                          the session's directory, cheaply

Offsets. `read_transcript` reads from byte `start` to the end of the last complete line and says
where it stopped (`Transcript.end`). For a `.zst` file the offsets count bytes of the
*decompressed* stream: Codex compresses a rollout only when it is cold and decompresses it back to
the same plain bytes before appending, so a cursor kept in decompressed bytes stays valid whichever
form is on disk. A file that is rewritten whole (`SessionFile.whole`: Gemini's legacy `.json`,
Codex's TypeScript-era `.json`) has no resumable offset: it is always read whole, and the transcript
says so with `start == 0`.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from memgit.core.names import safe_name
from memgit.errors import TranscriptError

ZSTD_SUFFIX = ".zst"
ZSTD_MISSING = ("{name} is zstd-compressed; install the zstd extra to read it: "
                "pip install 'memgit[zstd]' (or pip install zstandard)")


@dataclass(frozen=True, slots=True)
class SessionFile:
    """A session's transcript file, as discovery found it."""

    session_id: str  # the agent's own session id (Codex thread UUID, Gemini sessionId)
    path: Path
    project_dir: str  # the agent's folder for it, relative to its root (never decoded into a path)
    size: int  # bytes on disk (for a .zst: compressed bytes; see stream_size)
    mtime: float
    agent: str
    whole: bool = False  # rewritten whole by its agent: read from 0 again whenever it changes

    @property
    def key(self) -> str:
        """The ledger's name for the session: `<agent>/<id>`, the id replaced by a stable stand-in
        when it cannot be written into git as it is (see memgit.core.names)."""
        return f"{self.agent}/{safe_name(self.session_id)}"

    @property
    def source(self) -> str:
        """Where it was read from, as the ledger writes it: `<folder>/<file>`, each part safe."""
        return f"{safe_name(self.project_dir)}/{safe_name(self.path.name)}"

    @property
    def compressed(self) -> bool:
        return self.path.name.endswith(ZSTD_SUFFIX)


@dataclass(frozen=True, slots=True)
class Listing:
    """What an agent's folders hold: its session files, and the folders that could not be read."""

    files: list[SessionFile]
    unreadable: dict[str, str]  # folder (relative to the agent's root) -> why (e.g. "Permission denied")


@contextmanager
def open_stream(path: Path) -> Iterator[BinaryIO]:
    """Open a transcript for reading as bytes, decompressing a `.zst` file as it streams.

    Raises:
        TranscriptError: a `.zst` file and no zstd decoder installed.
        OSError: the file cannot be opened (the reader turns it into a TranscriptError).
    """
    path = Path(path)
    if not path.name.endswith(ZSTD_SUFFIX):
        with open(path, "rb") as f:
            yield f
        return
    with open(path, "rb") as raw:
        reader = _zstd_reader(raw, path)
        try:
            yield reader
        finally:
            reader.close()


def _zstd_reader(raw: BinaryIO, path: Path) -> BinaryIO:
    """A buffered reader of the decompressed bytes; the decoder is imported only here."""
    try:
        from compression import zstd  # Python >= 3.14 (an optional module some builds lack)

        return io.BufferedReader(_Decoded(zstd.ZstdFile(raw, "rb")), buffer_size=1 << 20)
    except ImportError:
        pass
    try:
        import zstandard
    except ImportError as e:
        raise TranscriptError(ZSTD_MISSING.format(name=path.name)) from e
    # Codex writes one frame; a file concatenated from several is read across all of them.
    stream = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True, closefd=False)
    return io.BufferedReader(_Decoded(stream), buffer_size=1 << 20)


class CorruptStream(OSError):
    """Compressed bytes that cannot be decoded: corrupt, or not zstd at all."""


class _Decoded(io.RawIOBase):
    """A decoder's stream whose decoding errors (each backend has its own type) become CorruptStream."""

    def __init__(self, stream):
        self._stream = stream

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        try:
            return self._stream.readinto(buffer)
        except OSError:
            raise
        except Exception as e:  # the decoder's own error type: zstandard.ZstdError, compression.zstd.ZstdError
            raise CorruptStream(f"corrupt compressed data: {e}") from e

    def close(self) -> None:
        self._stream.close()
        super().close()


def stream_size(path: Path) -> int:
    """The length of the byte stream `read_transcript` offsets count: the file's size, or for a
    `.zst` file its decompressed size (decompressed to count it: call it only when needed).

    Raises:
        TranscriptError: the file cannot be read, or a `.zst` file and no zstd decoder installed.
    """
    path = Path(path)
    try:
        if not path.name.endswith(ZSTD_SUFFIX):
            return path.stat().st_size
        total = 0
        with open_stream(path) as f:
            while chunk := f.read(1 << 20):
                total += len(chunk)
        return total
    except CorruptStream as e:
        raise TranscriptError(f"cannot decompress {path}: {e}") from e
    except OSError as e:
        raise TranscriptError(f"cannot read {path}: {e.strerror or e}; is it still there?") from e


def sha256_range(path: Path, start: int, end: int) -> str | None:
    """The digest of bytes start..end of a transcript (of its decompressed stream for a `.zst`);
    None when it cannot be read (any more): a `fail` for a vanished file is still recorded."""
    import hashlib

    digest = hashlib.sha256()
    try:
        with open_stream(Path(path)) as f:
            if path_is_plain(path):
                f.seek(start)
            else:  # a decompressing stream cannot seek: read past the start
                left = start
                while left > 0 and (chunk := f.read(min(left, 1 << 20))):
                    left -= len(chunk)
            left = end - start
            while left > 0:
                chunk = f.read(min(left, 1 << 20))
                if not chunk:
                    break
                digest.update(chunk)
                left -= len(chunk)
    except (OSError, TranscriptError):
        return None
    return digest.hexdigest()


def path_is_plain(path: Path) -> bool:
    return not str(path).endswith(ZSTD_SUFFIX)


def lazy_reader(package: str):
    """A source package's module `__getattr__`: `read_transcript` and `peek_cwd` come from its
    `reader` module, imported on first use (listing sessions never needs the parser)."""
    def __getattr__(name: str):
        if name in ("read_transcript", "peek_cwd"):
            import importlib

            return getattr(importlib.import_module(f"{package}.reader"), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
