"""memgit.core.vocab: the one table of learning types, and the one slugify behind every stored name."""

from __future__ import annotations

import random
import re
import unicodedata

import pytest

from memgit.consolidate import _markdown
from memgit.consolidate.heuristic import briefing, graph, memory_md, scope
from memgit.core.model import Learning, Note
from memgit.core.notes import note_slug, parse_note, render_note
from memgit.core.scopes import project_slug
from memgit.core.vocab import LEARNING_TYPES, TYPE_RANK, TYPES, slugify
from memgit.extract.heuristic import rank
from memgit.extract.heuristic.text import title_slug


# ---- the table -------------------------------------------------------------------------------


def test_every_table_of_types_covers_every_row():
    names = set(LEARNING_TYPES)
    assert set(TYPE_RANK) == names and set(rank.CAPS) == names and set(rank.ORDER) == names
    assert {kind for kind, _ in memory_md.TOPICS} == names
    assert set(briefing.CAPS) == names
    assert set(scope.GLOBAL_TYPES) | set(graph.CHOICE_TYPES) <= names


def test_orders_are_total():
    rows = TYPES.values()
    assert sorted(t.rank for t in rows) == list(range(len(TYPES)))
    assert sorted(t.topic_order for t in rows) == list(range(len(TYPES)))
    assert [kind for kind, _ in memory_md.TOPICS] == sorted(TYPES, key=lambda n: TYPES[n].topic_order)


def test_summary_sections_follow_the_types_rank():
    sections = [s for s in briefing.PROJECT_SECTIONS if s in {t.section for t in TYPES.values()}]
    ranked = sorted((t for t in TYPES.values() if t.section), key=lambda t: t.rank)
    assert sections == list(dict.fromkeys(t.section for t in ranked))


@pytest.mark.parametrize("kind", LEARNING_TYPES)
def test_every_type_reads_back_from_a_note_and_from_memory_md(kind):
    note = Note(session="claude-code/0123abcd-0000-4000-8000-000000000000", agent="claude-code", project="p",
                title="A session", summary="Did a thing.", learnings=[Learning(kind, "Something that holds.")])
    assert [item.type for item in parse_note(render_note(note)).learnings] == [kind]
    text = f"# Memory\n\n## Topic\n\n- [{kind}] Something that holds. — 2 sessions: [a](sessions/a.md)\n"
    assert _markdown.learnings(text) == 1
    assert [b.type for s in _markdown.sections(text) for b in s.bullets] == [kind]


def test_an_unknown_type_is_no_learning():
    assert _markdown.learnings("- [opinion] Tabs.\n") == 0


# ---- slugify: stored names do not change -------------------------------------------------------
# The three definitions the one slugify replaced, verbatim: a project's branch, a note's file
# name (notes and the LLM extractor), a note's file name (the heuristic extractor).


def _old_branch_slug(text: str, max_len: int = 40) -> str:
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", folded.lower()).strip("-")
    return slug[:max_len].rstrip("-") or "project"


def _old_note_slug(text: str, max_words: int = 6, max_len: int = 50) -> str:
    words = re.sub(r"[^a-z0-9]+", " ", text.lower()).split()[:max_words]
    slug = "-".join(words)[:max_len].strip("-")
    return slug or "note"


def _old_title_slug(text: str, *, max_words: int = 6, max_chars: int = 50) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = ""
    for word in re.findall(r"[a-z0-9]+", ascii_text.lower())[:max_words]:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > max_chars:
            break
        slug = candidate
    return slug or "session"


EXAMPLES = [
    # from tests/unit/test_scopes.py and tests/unit/test_notes.py
    "Repo", "my_cool.Project!!", "--a  b--", "Café Übersicht", "", "日本語", "x" * 50, "a" * 39 + "-b",
    "Fix Typesense sync tests!", "Fix Typesense sync tests", "   ", "a b c d e f g h", "Ünïcode — dashes",
    # cut points, long words, digits, odd letters (Kelvin sign, dotted I, ligatures, full-width)
    "Supercalifragilisticexpialidocious and antidisestablishmentarianism together",
    "a" * 49 + " b", "a" * 50 + " b", "a" * 51, "one two three four five six seven", "v2.1.17 release-notes",
    "\u212a\u0130\u00df\ufb01 ＡＢＣ １２３", "Ⅻ roman", "naïve café — déjà vu", "TODO: fix #123 (urgent)",
    "claude-code-log", "agent-workflows-monorepo-v2", "über-project", "-", "__init__", "CamelCaseName",
]


def _random_texts(n: int) -> list[str]:
    rng = random.Random(7)
    alphabet = "abcXYZ019 -_./:é Ü ß ı İ 日本 ﬁ Ⅻ ＡＢ \u212a\t\n!?"
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 90))) for _ in range(n)]


@pytest.mark.parametrize("text", EXAMPLES + _random_texts(400))
def test_every_slug_is_what_it_was(text):
    assert project_slug(text) == _old_branch_slug(text)
    assert slugify(text, 64) == _old_branch_slug(text, 64)  # as scopes.slugify(text, 64) named skills
    assert note_slug(text) == _old_note_slug(text)
    assert title_slug(text) == _old_title_slug(text)


def test_slugs_named_in_the_tests_before():
    assert project_slug("Café Übersicht") == "cafe-ubersicht"
    assert note_slug("Ünïcode — dashes") == "n-code-dashes"  # accents dropped, not folded: names as stored
    assert title_slug("Ünïcode — dashes") == "unicode-dashes"
