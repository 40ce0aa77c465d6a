"""Regular expressions compiled at their first use: a module holding some imports no `re`.

`import re` costs about half a `python -c pass` on the 2-core machine (its compiler, and `enum` for
its flags; bench/README.md). The prompt hook's usual answer, that nothing in memory bears on the
prompt, uses none of the patterns of memgit.core.recall and memgit.core.search, and runs without it.
"""

from __future__ import annotations


class Lazy:
    """A compiled pattern's stand-in: every attribute is the pattern's (`findall`, `sub`, `split`...),
    compiled when one is first asked for."""

    __slots__ = ("source", "flags", "_compiled")

    def __init__(self, source: str, flags: int = 0):
        self.source, self.flags, self._compiled = source, flags, None

    def __getattr__(self, name: str):
        compiled = self._compiled
        if compiled is None:
            import re

            compiled = self._compiled = re.compile(self.source, self.flags)
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazyre.compile({self.source!r})"


def compile(source: str, flags: int = 0) -> Lazy:  # noqa: A001 - re.compile's name, for re.compile's job
    """re.compile(source, flags), done at the pattern's first use."""
    return Lazy(source, flags)
