"""The words memgit's repository is built from, spelled once: branch names, file names, learning types.

A new learning type is one row of `TYPES`; every table of types elsewhere is derived from it.
"""

from __future__ import annotations

from memgit.core.record import record

# Nothing heavier than memgit.core.record at the top: the hooks import this module (and not collections).

MAIN = "main"  # the global scope's branch
PREFIX = "projects/"  # a project's branch: projects/<slug>
TRUNKS = ("main", "master")  # what a user's repository calls its main branch, the default first
SUMMARY_FILE = "memory_summary.md"
DEFAULT_SLUG = "project"  # a project's slug when its name has no letter or digit left
MAX_SLUG = 40  # characters of a project's slug
MARKER = "<memgit-context"  # the Claude Code reader drops any user text holding it (claude_records.py)
# A shared project's memory names a teammate's note `team/<person>/<its path on their branch>` (issue 22).
TEAM_DIR = "team"
UNREVIEWED = "not yet reviewed"  # MEMORY.md's mark on a teammate's learning `memgit review --team` has not accepted

LearningType = record("LearningType", (
    "name",
    "rank",  # its place in the injected context: the lower, the earlier (preferences lead)
    "topic",  # its `## ` topic in MEMORY.md
    "topic_order",  # where that topic stands in MEMORY.md (how to build and test comes first)
    "section",  # its `## ` section in memory_summary.md; "" when it has none of its own
    "summary_cap",  # at most this many in that section
    "note_cap",  # at most this many in one session's note (the heuristic extractor; more in long sessions)
    "transfers",  # may reach `main` when it names nothing of one project
    "choice",  # a choice: two that say the same with opposite words contradict, the later one holds
), module=__name__, doc="One kind of learning and where it shows: in a note, MEMORY.md, the summary and `main`.")

# The rows stand in the order a note lists its learnings (and the LLM extractor's schema names them).
# Commands have no summary section of their own: the summary shows one per purpose under
# "How to build and test" (memgit.consolidate.heuristic.howto.purposes). Which learnings of a
# section reach the summary at all is memgit.consolidate.heuristic.selection's call.
TYPES = {t.name: t for t in (
    LearningType("preference", rank=0, topic="Preferences", topic_order=2, section="Preferences and conventions",
                 summary_cap=8, note_cap=6, transfers=True, choice=True),
    LearningType("convention", rank=1, topic="Conventions", topic_order=1, section="Preferences and conventions",
                 summary_cap=6, note_cap=3, transfers=True, choice=True),
    LearningType("command", rank=3, topic="Build and test", topic_order=0, section="",
                 summary_cap=0, note_cap=4, transfers=False, choice=False),
    LearningType("gotcha", rank=2, topic="Gotchas", topic_order=3, section="Gotchas",
                 summary_cap=6, note_cap=5, transfers=True, choice=False),
    LearningType("decision", rank=4, topic="Decisions", topic_order=4, section="Decisions in force",
                 summary_cap=4, note_cap=5, transfers=False, choice=True),
    LearningType("fact", rank=5, topic="Facts", topic_order=5, section="Facts",
                 summary_cap=3, note_cap=6, transfers=False, choice=False),
)}
LEARNING_TYPES = tuple(TYPES)  # the names, in a note's order
PERSONAL = ("preference", "convention")  # the person's rules and the project's conventions: one section
TYPE_RANK = {t.name: t.rank for t in TYPES.values()}
TYPE_PATTERN = "|".join(LEARNING_TYPES)  # a regular expression of the names (plain words) for `- [type] …`


def teammate(path: str) -> str | None:
    """The teammate whose note `path` (as a shared project's memory names it) is; None for the reader's own."""
    parts = path.split("/", 2)
    return parts[1] if len(parts) == 3 and parts[0] == TEAM_DIR else None  # not team/hidden.md


def slugify(text: str, max_chars: int = MAX_SLUG, *, max_words: int | None = None, whole_words: bool = False,
            fold: bool = True, default: str = DEFAULT_SLUG) -> str:
    """Return `text` as lowercase ASCII words joined by single dashes, or `default` when none is left.

    Words are runs of a-z and 0-9 (after lowercasing, and with `fold` after dropping accents:
    "Café" -> "cafe", without it "caf"). At most `max_words` of them, within `max_chars`:
    `whole_words` stops before the word that would not fit, otherwise the last word is cut.

    The defaults make a branch-safe name (a project's branch, memgit.core.scopes.project_slug; an
    installed skill's). The other callers' settings are fixed by what they name, since the names
    are stored: a note's file (memgit.core.notes.note_slug, the heuristic extractor's title_slug).
    """
    import re
    import unicodedata

    if fold:
        text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    words = re.findall(r"[a-z0-9]+", text.lower())[:max_words]
    if whole_words:
        slug = ""
        for word in words:
            candidate = f"{slug}-{word}" if slug else word
            if len(candidate) > max_chars:
                break
            slug = candidate
    else:
        slug = "-".join(words)[:max_chars].rstrip("-")
    return slug or default
