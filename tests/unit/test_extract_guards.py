"""The extractor's fast paths give the answers of the plain patterns they stand in front of.

filters.py and text.py run a pattern only on text holding what every match of it needs (a digit, a
slash, a colon, `](`, `*`, a character outside ASCII), split the ephemera into a part that needs a
digit and one that does not, and try the sentence end's cheap look-behind first. Each is checked
here against the unguarded form it replaced, over strings chosen to break a careless guard (digits
outside ASCII, the long s and Kelvin sign that re.IGNORECASE folds onto ASCII letters, a uuid of
letters only) and over every answer, unit and scrubbed unit of the real fixture transcripts.
"""

from __future__ import annotations

import re
from functools import cache

import pytest

from memgit.extract.heuristic import filters as F
from memgit.extract.heuristic import session as session_mod
from memgit.extract.heuristic import text as T
from tests.conftest import CLAUDE_FIXTURES, needs_shared

# The plain forms, as they were before the guards.
MOMENT = (
    r"\b\d{1,2}:\d{2}:\d{2}\b"
    r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"
    r"|(?<![\w/.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{6,40}(?![\w-])"
    r"|\b(?=\w*[A-Z])(?=\w*[a-z])(?=\w*\d)[A-Za-z0-9_]{22,}\b"
    r"|\b(?:req|msg|toolu|call|chatcmpl|run|sess)_[A-Za-z0-9]{8,}"
    r"|/tmp/|/var/folders/|/private/var/|\.claude/plans/|\bT/[\w-]+"
    r"|\bpull/\d+|\bPR\s?#?\d+|\bpull request #?\d+|\bmerge request !?\d+"
    r"|\b(?:pid|pgid|ppid)\b:?\s*\d+"
    r"|\bScreenshot\b"
)
EPHEMERA = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?|" + MOMENT, re.I)
MODEL_EPHEMERA = re.compile(MOMENT, re.I)
SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bcf\.)(?<!\bNo\.)(?<=[.!?])\s+(?=\S)")
PROSE_CHAR = re.compile(r"[A-Za-z\s,.'’;:!?()-]")


def volatile(text: str, cwd: str | None) -> str:
    text = F._TEMP_FILE.sub("", text)
    text = F._LINE_REF.sub("", text)
    text = F._FILE_LINE.sub(r"\1", text)
    text = F._DURATION.sub("", text)
    return F._ABS_PATH.sub(F._shorten_path, F._private(text, cwd))


def scrub(text: str, cwd: str | None) -> str:
    return " ".join(volatile(F._ITEM_LABEL.sub("", text.lstrip()), cwd).split()).strip()


def plain(text: str) -> str:
    text = T._LINK.sub(r"\1", text.translate(T._QUOTES))
    text = T._EMPHASIS.sub("", text)
    text = T._DECORATION.sub("", text)
    return " ".join(text.split()).strip()


def symbolic(text: str) -> bool:
    outside_code = re.sub(r"`[^`]*`", " x ", text)
    return len(PROSE_CHAR.findall(outside_code)) < 0.75 * len(outside_code)


TRICKY = [
    "", "plain words and nothing else here", "see line ٣ of the log", "step ٣ and step ٤ both work",
    "the ſcreenshot shows it", "a Screenshot 2024 of it", "Screenshot", "SCREENſHOT", "screenshots", "abcdefab-abcd-abcd-abcd-abcdefabcdef is the id",
    "req_abcdefghij came back", "tOOLU_ABCDEFGH12 was called", "written to /tmp/x and /var/folders/ab/T/y",
    "fixed in 3 ms (in 12.5s)", "main.py:12:4 fails", "at 12:30:45 it broke", "pid: 4242 hung", "PR #12 and pull/7",
    "commit 1a2b3c4 landed", "KelvinKelvinKelvinKelvin1234 token", "ThisIsALongIdentifier1234567890", "2024-01-02T10:20 run",
    "the “quoted” ‘words’\u00a0here", "**bold** and __init__ and *it*", "see [the docs](https://x.y/z(a)) now",
    "✅ done 🚀", "İstanbul ı ſ K", "e.g. this. No. 5 items! Then what? Done.", "a `code` span: {x} [y]",
    "paths 3 and 4 are done", "ends with a colon 12:", "a::b c", "~/dev/proj/file.go and /Users/me/x",
]


def check_text(text: str, cwd: str | None = "/Users/me/dev/proj") -> None:
    for dates, pattern in ((False, EPHEMERA), (True, MODEL_EPHEMERA)):
        assert F.is_ephemeral(text, dates=dates) == (pattern.search(text) is not None), (text, dates)
    assert F.scrub.__wrapped__(text, cwd) == scrub(text, cwd), text
    assert T.plain(text) == plain(text), text
    assert T.straight_quotes(text) == text.translate(T._QUOTES), text
    assert T._SENTENCE_END.split(text) == SENTENCE_END.split(text), text
    if text:
        assert F._symbolic(text) == symbolic(text), text
    # The guards problem() puts in front of two of its patterns.
    if not F._DIGIT.search(text):
        assert F._NUMBERED.search(text) is None, text
    if ":" not in text:
        assert F._HALF_COPIED.search(text) is None, text


@pytest.mark.parametrize("text", TRICKY)
def test_guarded_patterns_answer_as_the_plain_ones(text):
    check_text(text)
    check_text(text.upper())


@cache
def fixture_texts() -> tuple[str, ...]:
    """Every answer of the fixture sessions, its units and their scrubbed forms."""
    from memgit.sources.claude_code.reader import read_transcript

    found: dict[str, None] = {}
    for path in sorted(CLAUDE_FIXTURES.rglob("*.jsonl")):
        if "subagents" in path.parts or path.name.startswith("agent-"):
            continue
        s = session_mod.read(read_transcript(path))
        for x in s.exchanges:
            for text in [x.said, *x.texts]:
                found[text] = None
                for unit in T.units(text):
                    found[unit.text] = None
                    found[F.scrub(unit.text, s.cwd)] = None
    return tuple(found)


@needs_shared
def test_guarded_patterns_answer_as_the_plain_ones_on_the_fixtures():
    texts = fixture_texts()
    assert len(texts) > 1000
    for text in texts:
        check_text(text)
