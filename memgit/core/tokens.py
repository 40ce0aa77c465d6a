"""Count tokens the way the models do, offline: tiktoken's cl100k_base from the BPE file litellm ships.

litellm bundles the cl100k_base rank file (litellm/litellm_core_utils/tokenizers/<sha1 of its URL>)
so that it never downloads it. This module finds that file with importlib (without importing
litellm, which takes seconds), checks its sha256 and builds the encoding from it directly —
no network, and no TIKTOKEN_CACHE_DIR set for the whole process. When tiktoken or the file is
missing, `count` falls back to a character estimate calibrated on memgit's own markdown
(see `estimate`).
"""

from __future__ import annotations

import atexit
import binascii
import hashlib
import importlib.util
import marshal
import math
import os
from functools import lru_cache

# tiktoken_ext/openai_public.py: cl100k_base's URL, its sha256 and its split pattern.
_CL100K_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# Measured on the summaries memgit writes for the fixtures (tests/integration/
# test_consolidation_fixtures.py re-measures it): memory_summary.md runs at 3.3-4.1 characters per
# cl100k token (its command lines, dates and session ids are dense; a short one of prose alone
# reaches 5). The budget is the summary's, so the estimate must never undercount one: len/3.2
# stays above every real count measured and within 30% of it for a summary of any size that
# matters to its budget. (MEMORY.md, denser with links and paths, runs at 2.9-4.0; it has no budget.)
CHARS_PER_TOKEN = 3.2


def _bundled_bpe_file() -> str | None:
    """The cl100k_base rank file inside the installed litellm package, or None."""
    try:
        spec = importlib.util.find_spec("litellm")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    name = hashlib.sha1(_CL100K_URL.encode()).hexdigest()  # tiktoken's cache key for the URL
    for root in spec.submodule_search_locations:
        path = os.path.join(root, "litellm_core_utils", "tokenizers", name)
        if os.path.isfile(path):
            return path
    return None


@lru_cache(maxsize=1)
def _encoding():
    """The cl100k_base encoding built from the bundled file, or None when it cannot be."""
    path = _bundled_bpe_file()
    if path is None:
        return None
    try:
        import tiktoken

        with open(path, "rb") as f:
            data = f.read()
        if hashlib.sha256(data).hexdigest() != _CL100K_SHA256:
            return None
        ranks = _ranks(data)
        return tiktoken.Encoding(
            name="cl100k_base", pat_str=_CL100K_PATTERN, mergeable_ranks=ranks, special_tokens={}
        )
    except (ImportError, OSError, ValueError):
        return None


def _ranks(data: bytes) -> dict[bytes, int]:
    """The BPE ranks of the (verified) file: parsed once, then read from a cache file in the user's
    cache directory (a tenth of a second less on every sync: 100k base64 lines)."""
    cache = os.path.join(_cache_dir(), f"cl100k_base.{_CL100K_SHA256[:16]}.marshal")
    try:
        with open(cache, "rb") as f:
            ranks = marshal.loads(f.read())  # marshal.load(f) reads in small pieces: 5x slower
        if isinstance(ranks, dict) and len(ranks) > 100_000:
            return ranks
    except (OSError, EOFError, ValueError, TypeError):
        pass  # no cache yet, or a torn one: parsed below
    decode = binascii.a2b_base64  # base64.b64decode's checks cost 5x on 100k lines
    ranks = {decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        tmp = f"{cache}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            marshal.dump(ranks, f)
        os.replace(tmp, cache)
    except OSError:
        pass  # a read-only home: parsed again next time, nothing else lost
    return ranks


def estimate(text: str) -> int:
    """A character-based token estimate, biased high (used when tiktoken is unavailable)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def exact() -> bool:
    """True when counts come from the real tokenizer rather than the estimate."""
    return _encoding() is not None


def count(text: str) -> int:
    """Return the number of cl100k_base tokens in `text` (an estimate if tiktoken is missing)."""
    if not text:
        return 0
    enc = _encoding()
    if enc is None:
        return estimate(text)
    return len(enc.encode_ordinary(text))


def count_often(text: str) -> int:
    """`count` for the text every sync counts (the summaries it fits to their budget): the same
    number, from cached counts of its pieces, without building the encoding when all are known."""
    if not text:
        return 0
    if (n := _Pieces.get().count(text)) is not None:
        return n
    return estimate(text)


# Building the encoding costs ~0.2 s in every process that counts (tiktoken turns 100k ranks into
# its tables), and a sync counts the summaries it writes. cl100k splits text with a regex and
# encodes each piece alone, so a count is the sum of its pieces' counts: those are cached in the
# user's cache directory, and the encoding is built only for a piece never seen before. The
# summaries memgit writes reuse their vocabulary: after a few syncs, nothing is missing. (Text sent
# to a model is counted with `count`: its vocabulary is the transcripts', which would fill the cache.)
_PIECES_MAX = 50_000  # pieces kept in the cache file (~1 MB); past that it starts again


class _Pieces:
    _instance: _Pieces | None = None

    def __init__(self) -> None:
        import regex  # tiktoken's own dependency; 35 ms to import, 1/6 of building the encoding

        self.split = regex.compile(_CL100K_PATTERN).findall
        self.path = os.path.join(_cache_dir(), f"cl100k_base.{_CL100K_SHA256[:16]}.pieces.marshal")
        self.counts: dict[str, int] = {}
        self.dirty = False
        try:
            with open(self.path, "rb") as f:
                counts = marshal.loads(f.read())
            if isinstance(counts, dict):
                self.counts = counts
        except (OSError, EOFError, ValueError, TypeError):
            pass  # no cache yet, or a torn one: it fills again

    @classmethod
    def get(cls) -> _Pieces:
        if cls._instance is None:
            cls._instance = cls()
            atexit.register(cls._instance.save)
        return cls._instance

    def count(self, text: str) -> int | None:
        """The exact count, or None when tiktoken or its file is missing."""
        pieces = self.split(text)
        counts = self.counts
        missing = {p for p in pieces if p not in counts}
        if missing:
            enc = _encoding()
            if enc is None:
                return None
            if len(counts) + len(missing) > _PIECES_MAX:
                counts.clear()
            for piece in missing:
                counts[piece] = len(enc.encode_ordinary(piece))
            self.dirty = True
        return sum(counts[p] for p in pieces)

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            os.makedirs(os.path.dirname(self.path), exist_ok=True)
            tmp = f"{self.path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as f:
                marshal.dump(self.counts, f)
            os.replace(tmp, self.path)  # concurrent writers: the last one wins, the others' pieces return
            self.dirty = False
        except OSError:
            pass  # a read-only home: counted again next time, nothing else lost


def _cache_dir() -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
                        "memgit")
