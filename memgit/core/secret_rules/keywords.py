"""Find where any rule's keywords occur, in one pass over the text.

Hundreds of keywords, megabytes of text: `re` would try every keyword at every byte (~10-15 MB/s
measured on the fixtures' texts); an Aho-Corasick automaton does it in one pass (~120 MB/s, most
of it call overhead on short texts). `ahocorasick_rs` (Rust, MIT/Apache-2.0, wheels for the usual
platforms) provides it; without it, one pattern of all keywords, laid out as a trie, does the same
more slowly, so memgit still runs where the wheel is missing.
"""

from __future__ import annotations

import re
from typing import Iterable


class KeywordScan:
    """Where each of a set of lowercase keywords occurs in a lowercased text, overlaps included."""

    def __init__(self, keywords: Iterable[str], *, automaton: bool = True) -> None:
        self.keywords = tuple(dict.fromkeys(k for k in keywords if k))
        encoded = [k.encode() for k in self.keywords]
        try:
            import ahocorasick_rs  # here, not at import: only a redaction needs it
        except ImportError:  # the tests run the fallback through automaton=False
            automaton = False
        if automaton:
            kind = ahocorasick_rs.MatchKind.Standard  # every occurrence, overlapping ones too
            self._automaton = ahocorasick_rs.BytesAhoCorasick(encoded, matchkind=kind)
            self._pattern = None
        else:
            self._automaton = None
            self._pattern = re.compile(_trie(encoded))
            # a keyword found at a position implies those it starts with: the trie reports the longest
            self._prefixes = {k: [i for i, p in enumerate(encoded) if k.startswith(p)] for k in encoded}

    def hits(self, lowered: bytes) -> dict[str, list[int]]:
        """Map each keyword found in `lowered` to its start offsets, in order."""
        found: dict[str, list[int]] = {}
        if self._automaton is not None:
            for index, start, _end in self._automaton.find_matches_as_indexes(lowered, overlapping=True):
                found.setdefault(self.keywords[index], []).append(start)
            for offsets in found.values():
                offsets.sort()
            return found
        m = self._pattern.search(lowered)  # type: ignore[union-attr]
        while m:
            for index in self._prefixes[m.group()]:
                found.setdefault(self.keywords[index], []).append(m.start())
            m = self._pattern.search(lowered, m.start() + 1)  # type: ignore[union-attr]
        return found


def _trie(words: list[bytes]) -> bytes:
    """One pattern matching the longest of `words` at a position, with shared prefixes factored out."""
    root: dict = {}
    for word in words:
        node = root
        for byte in word:
            node = node.setdefault(byte, {})
        node[None] = {}

    def emit(node: dict) -> bytes:
        ends = None in node
        branches = [re.escape(bytes([b])) + emit(child) for b, child in sorted((k, v) for k, v in node.items()
                                                                              if k is not None)]
        if not branches:
            return b""
        body = branches[0] if len(branches) == 1 and not ends else b"(?:" + b"|".join(branches) + b")"
        return body + (b"?" if ends else b"")

    return emit(root)
