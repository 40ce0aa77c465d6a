"""Work that makes hundreds of thousands of objects at once (a scope's memory built from all its notes).

CPython's cycle collector runs every few hundred allocations, and each of its full passes walks every
object alive: a first team pull, which parses 11,000 notes into a Memory, spent 2.2 s in 1,900 passes
that found next to nothing (its objects hold no cycles). `paused` holds the collector off for
the length of such a block; reference counting still frees everything as usual, and what cycles the
block left are collected at the next pass after it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Hold the cycle collector off while the block runs (nested blocks: the outermost resumes it)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
