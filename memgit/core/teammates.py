"""A teammate's session note of a shared project as search units (issue 22): the learnings of it the
reader may be told, and its title; never its summary, which may tell the others. Pure, as
memgit.core.search is; memgit.store.search_team indexes them.
"""

from __future__ import annotations

from memgit.core.search import Doc
from memgit.core.search_units import _front_matter, _session_note


class _Keeping:
    """A teammate's learnings the reader may be told, asked as memgit.core.superseded.Lookup is: the
    others are left out as a superseded one is."""

    def __init__(self, keep):
        self.keep = {(kind, " ".join(text.split())) for kind, text in keep}

    def __bool__(self) -> bool:
        return True

    def covers(self, path: str, kind: str, text: str) -> bool:
        return (kind, " ".join(text.split())) not in self.keep


def documents(branch: str, path: str, text: str, keep) -> list[Doc]:
    """A teammate's session note of a shared project (`path`: team/<person>/sessions/…) as search units:
    the learnings of it in `keep` ((type, text) pairs: what the reader accepted, or all with a trusted
    team, never one the reader hid) and its title; never its summary, which may tell the others."""
    meta, body = _front_matter(text)
    docs = _session_note(branch, path, meta, body, _Keeping(keep))
    return [d._replace(text=d.title) if d.kind == "note" else d for d in docs if d.kind != "superseded"]
