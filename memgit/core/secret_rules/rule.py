"""One secret rule, whoever wrote it: the keywords that let it run, its pattern, and its judge."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from memgit.core.secret_rules.anchors import Placement, place

Span = tuple[int, int]
Judge = Callable[["re.Match[bytes]", bytes], "Span | None"]  # the span to redact, or None: no secret


@dataclass(slots=True, eq=False)
class Rule:
    kind: str  # the <kind> of [REDACTED:<kind>]
    keywords: tuple[str, ...]  # lowercase; the rule runs only where one of them occurs
    source: str  # Python `re` syntax over UTF-8 bytes; compiled on first use
    judge: Judge  # given a match and the raw bytes: the span to redact, or None
    flags: int = 0
    fold: bool = False  # match the ASCII-lowercased text (offsets are the same); the pattern is lowercase
    bounded: bool = False  # a match must not continue a word on its left (checked here, not by \b,
    # which would stop `re` skipping ahead to the literal)
    _compiled: re.Pattern[bytes] | None = field(default=None, repr=False)
    _placement: Placement | None = field(default=None, repr=False)

    @property
    def pattern(self) -> re.Pattern[bytes]:
        if self._compiled is None:
            self._compiled = re.compile(self.source.encode(), self.flags)
        return self._compiled

    @property
    def placement(self) -> Placement:
        if self._placement is None:
            self._placement = place(self.source, self.flags, self.keywords)
        return self._placement
