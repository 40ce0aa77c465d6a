"""memgit.core.hand: a person's edit of a regenerated file read as intent and replayed on new output."""

from __future__ import annotations

import pytest

from memgit.core import hand
from memgit.core.model import Consolidation

MEMORY = """# Memory: pinion

## Build and test

- [command] Tests run with `uv run pytest`. — 2 sessions: [a](sessions/a.md), [b](sessions/b.md) (tier: emerging)

## Conventions

- [convention] Always use structlog. — 1 session: [a](sessions/a.md)
- [convention] Commit messages in English. — 1 session: [b](sessions/b.md)
"""


def kept(old: str, new: str, file: str = "MEMORY.md", notes: dict[str, str] | None = None) -> hand.Kept:
    files = {p: t.encode() for p, t in (notes or {}).items()}
    found = hand.keep(file, old, new, stamp="2026-11-27-100000", day="2026-11-27", read=files.get,
                      pinned_notes=list(files))
    assert found is not None
    return found


def records(k: hand.Kept) -> list[hand.Record]:
    return [hand.parse(k.changes[k.record_path].decode())]


@pytest.mark.parametrize("line, said", [
    ("- [convention] Always use structlog. — 1 session: [a](sessions/a.md)", ("convention", "Always use structlog.")),
    ("- Always use structlog. (3 sessions, strong)", (None, "Always use structlog.")),
    ("1. `uv run pytest` — worked", (None, "`uv run pytest` — worked")),
    ("## Conventions", (None, "")),
    ("", (None, "")),
    ("- [notes/2026-11-27-x.md](notes/2026-11-27-x.md)", (None, "")),
])
def test_what_a_line_states(line, said):
    assert hand.statement(line) == said


def test_an_edit_replayed_on_the_same_output_gives_back_the_persons_text_exactly():
    new = MEMORY.replace("- [convention] Always use structlog. — 1 session: [a](sessions/a.md)\n", "") \
        .replace("## Conventions\n\n", "## Conventions\n\n- [convention] Releases on Fridays.\n")
    k = kept(MEMORY, new)
    assert hand.apply(MEMORY, records(k)) == new
    assert k.added == 1 and k.removed == 1 and k.pinned == ["notes/2026-11-27-releases-on-fridays.md"]
    note = k.changes[k.pinned[0]].decode()
    assert "type: convention" in note and "from: MEMORY.md" in note and note.endswith("Releases on Fridays.\n")
    assert hand.origin(note) == "MEMORY.md"
    assert ("Memgit-Drop", "- [convention] Always use structlog.") in k.trailers


def test_on_changed_output_a_removed_line_stays_out_and_an_added_one_follows_its_line():
    new = MEMORY.replace("- [convention] Always use structlog. — 1 session: [a](sessions/a.md)\n", "") \
        .replace("(tier: emerging)\n", "(tier: emerging)\n- [command] Lint with `make lint`.\n")
    later = MEMORY.replace("2 sessions: [a](sessions/a.md), [b](sessions/b.md) (tier: emerging)",
                           "3 sessions: [a](sessions/a.md), [b](sessions/b.md), [c](sessions/c.md) (tier: strong)") \
        .replace("1 session: [a](sessions/a.md)\n", "2 sessions: [a](sessions/a.md), [c](sessions/c.md) (tier: emerging)\n")
    out = hand.apply(later, records(kept(MEMORY, new)))
    lines = out.splitlines()
    assert "structlog" not in out
    assert lines[lines.index("- [command] Lint with `make lint`.") - 1].startswith("- [command] Tests run with")
    assert "(tier: strong)" in out  # the output's own news stays


def test_a_learning_removed_from_memory_leaves_the_summary_too_and_a_rewritten_line_replaces_its_old_form():
    summary = "# pinion\n\n## Preferences and conventions\n\n- Always use structlog. (2 sessions, emerging)\n- Commit messages in English.\n"
    new = MEMORY.replace("- [convention] Always use structlog. — 1 session: [a](sessions/a.md)\n", "")
    rewritten = summary.replace("- Commit messages in English.", "- Commit messages in English, imperative mood.")
    found = records(kept(MEMORY, new)) + records(kept(summary, rewritten, "memory_summary.md"))
    c = hand.applied(Consolidation(MEMORY, summary, {}), found)
    assert "structlog" not in c.summary_md and "structlog" not in c.memory_md
    assert "- Commit messages in English, imperative mood." in c.summary_md
    assert "- Commit messages in English.\n" not in c.summary_md


def test_removing_a_pinned_notes_line_forgets_the_note_and_a_moved_line_is_no_new_note():
    summary = "# pinion\n\n## Pinned notes\n\n- **notes/2026-11-20-fridays.md**: Deploys on Fridays.\n\n## Latest work\n\n- a\n"
    k = kept(summary, summary.replace("- **notes/2026-11-20-fridays.md**: Deploys on Fridays.\n", ""),
             "memory_summary.md", {"notes/2026-11-20-fridays.md": "---\nadded: '2026-11-20'\n---\nDeploys on Fridays.\n"})
    assert k.forgot == ["notes/2026-11-20-fridays.md"] and k.changes["notes/2026-11-20-fridays.md"] is None
    moved = MEMORY.replace("- [convention] Commit messages in English. — 1 session: [b](sessions/b.md)\n", "") \
        .replace("## Build and test\n\n", "## Build and test\n\n- [convention] Commit messages in English.\n")
    assert kept(MEMORY, moved).pinned == []


def test_only_memgits_own_files_are_read_as_intent():
    assert hand.regenerated("MEMORY.md", "") and hand.regenerated("memory_summary.md", "")
    assert hand.regenerated("skills/x/SKILL.md", "---\nname: x\n---\n<!-- memgit:generated skill; … -->\n")
    assert not hand.regenerated("skills/x/SKILL.md", "---\nname: x\n---\nMy own steps.\n")
    assert not hand.regenerated("notes/a.md", "") and not hand.regenerated("README.md", "")
    assert hand.parse("---\nadded: '2026-11-27'\n---\nnot a record\n") is None


def test_a_summary_written_before_memgit_wrote_one_is_kept_at_its_end():
    k = kept("", "- Deploys happen on Fridays.\n", "memory_summary.md")
    assert k.pinned == ["notes/2026-11-27-deploys-happen-on-fridays.md"]
    generated = "# pinion: what memory holds\n\n## Latest work\n\n- a\n\n## Where to look deeper\n\n- b\n"
    assert hand.apply(generated, records(k)).endswith("- b\n- Deploys happen on Fridays.\n")
