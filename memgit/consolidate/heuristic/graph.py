"""A scope's learnings merged and linked: near-identical ones clustered, contradictory ones superseded.

Nodes are *groups* of identical learnings (same type and normalised text; for commands, the same
command once display pipes and one-off arguments are set aside). Two groups of one type are

- **similar** (the same learning in other words) when their content words overlap by Jaccard >=
  `THRESHOLD` and they agree on negation, on every number and (when both quote code) on a code span;
- **in contradiction** (preferences, conventions, decisions) when they say the same thing with the
  opposite polarity ("Use tabs" / "Don't use tabs"), with other numbers ("Node 18" / "Node 20"),
  with the choice reversed ("pnpm instead of npm" / "npm, not pnpm"), or name two alternatives of
  one choice in otherwise the same words ("Use British spelling" / "Use American spelling").

This module holds the pure rules (texts, similarity, contradiction) and the Cluster a consolidation
renders; memory.py keeps a scope's groups and clusters up to date, note by note.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import NamedTuple

from memgit.extract.heuristic.shell import parse
from memgit.extract.heuristic.standing import states_a_file
from memgit.core.model import Note
from memgit.core.vocab import TYPES

THRESHOLD = 0.7  # merge: the same learning in other words (short statements; longer ones need more)
PROBE = 0.5  # candidates for contradictions: low enough to find every one among short statements


def threshold(words: int) -> float:
    """The Jaccard two statements need to be the same learning: 0.7 up to 10 content words, 0.75 up
    to 15, 0.85 beyond. Word overlap tells a paraphrase of a short statement; two long ones that
    share two thirds of their words are usually two findings about the same code."""
    return THRESHOLD if words <= 10 else 0.75 if words <= 15 else 0.85


def probe(words: int) -> float:
    """The Jaccard under which two statements are not even compared for a contradiction."""
    return PROBE if words <= 10 else threshold(words)
TIERS = ((5, "critical"), (3, "strong"), (2, "emerging"))  # minimum sessions -> tier
CHOICE_TYPES = frozenset(name for name, t in TYPES.items() if t.choice)

_PUNCT = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_CODE = re.compile(r"`([^`\n]+)`")
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing|nor|avoid|without|cannot|dont|stop)\b|n't\b")
_STOP = frozenset(
    "a an the to of in on at by for from with into onto as and or but if then so than that this these "
    "those it its is are was were be been being do does did has have had will would should could can "
    "may might must shall we you i he she they them our your their me my us not no never nor also just "
    "only very too which who whom what when where there here all any each some such via per please don "
    "doesn didn isn aren wasn won".split()  # what is left of "don't" etc.: the polarity check sees the negation
)
# Words so common in learnings that they make poor index keys: put last in the global order.
_COMMON = frozenset(
    "use used using run runs test tests fix fixed file files code user agent command error fail fails failed "
    "make add set get need work works new instead always project session change changes way".split()
)
# Choices people make one way or the other: two of one family in the same words contradict.
ALTERNATIVES = tuple(frozenset(f.split()) for f in (
    "npm pnpm yarn bun",
    "pip uv poetry pdm pipenv conda",
    "british american",
    "tabs spaces",
    "pytest unittest nose",
    "jest vitest mocha",
    "black ruff yapf autopep8",
    "eslint biome oxlint",
    "prettier biome dprint",
    "mypy pyright",
    "single double",
    "camelcase snake kebab pascalcase",
    "rebase merge squash",
    "ssh https",
    "docker podman",
    "light dark",
    "sync async",
))
_CHOICE = re.compile(
    r"\b(?:use|prefer|choose|pick|go with|switch to)\s+(?P<a>[^,.;]{1,40}?)\s*,?\s*"
    r"(?:instead of|rather than|over|not|and not)\s+(?P<b>[^,.;]{1,40})"
    r"|\b(?:instead of|rather than)\s+(?P<c>[^,.;]{1,40}?)\s*,\s*(?:use|prefer)\s+(?P<d>[^,.;]{1,40})"
)
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


# ---- words and texts ---------------------------------------------------------------------------


def normalise(text: str) -> str:
    """Lowercase, unify quotes and dashes, collapse whitespace, drop the final punctuation."""
    if text.isascii():  # NFKC and the quotes' table leave ASCII as it is, and casefold is lower there
        return " ".join(text.lower().split()).rstrip(" .;:!,…")
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT).casefold()
    return " ".join(text.split()).rstrip(" .;:!,…")


def code_spans(text: str) -> tuple[str, ...]:
    """The code in backticks, whitespace collapsed, in order of appearance."""
    return tuple([" ".join(span.split()) for span in _CODE.findall(text)])


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def content_words(text: str) -> frozenset[str]:
    """The words that carry meaning: stop words dropped, plurals folded ("checkpoints" ~ "checkpoint")."""
    return _content(normalise(text))


def _content(text: str) -> frozenset[str]:
    """content_words of a normalised text."""
    # _WORD's matches; in ASCII, every byte but a-z and 0-9 made a space and split: a third of the time
    words = text.encode().translate(_APART).decode().split() if text.isascii() else _WORD.findall(text)
    found = frozenset(map(_CONTENT.__getitem__, words))  # "don't" leaves a "t": no content
    return found - _NOTHING if "" in found else found


class _Words(dict):
    """Each word's content form, "" for none, made the first time a word is looked up (a scope's
    learnings share their words)."""

    def __missing__(self, word: str) -> str:
        if len(self) > 1 << 18:
            self.clear()
        self[word] = found = _fold(word) if word not in _STOP and (len(word) > 1 or word.isdigit()) else ""
        return found


_APART = bytes(c if 0x30 <= c <= 0x39 or 0x61 <= c <= 0x7A else 0x20 for c in range(256))
_CONTENT = _Words()
_NOTHING = frozenset(("",))
# _NEGATION in ASCII: its words as whole runs of word characters (\w: ASCII letters, digits, "_"), or "n't" at a run's end
_NEGATORS = frozenset(b"not no never none nothing nor avoid without cannot dont stop".split())
_WORDLIKE = bytes(c if chr(c).isascii() and (chr(c).isalnum() or c == 0x5F) else 0x20 for c in range(256))
_NOT = re.compile(r"n't\b")


def _negated(norm: str) -> bool:
    """Whether `_NEGATION` finds a negation in a normalised text ("don't" read as "dont")."""
    text = norm.replace("don't", "dont")
    if not text.isascii():
        return bool(_NEGATION.search(text))
    return bool("n't" in text and _NOT.search(text)) or not _NEGATORS.isdisjoint(text.encode().translate(_WORDLIKE).split())


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    if not a and not b:
        return 1.0
    common = len(a & b)
    return common / (len(a) + len(b) - common)


def tier(support: int) -> str:
    """The tier of a learning supported by `support` sessions ("" below emerging)."""
    return next((name for least, name in TIERS if support >= least), "")


def recency(note: Note, path: str) -> str:
    """A sortable "YYYY-MM-DDTHH:MM:SS" for a note: its end, its start, else the date in its path."""
    for value in (note.ended, note.started):
        if value and _DATE.match(value):
            return value.replace(" ", "T")[:19]
    found = _DATE.search(path.rsplit("/", 1)[-1])
    return found.group(1) if found else ""


_NOT_DIGIT = re.compile(r"\D")


@lru_cache(maxsize=1 << 16)
def desc(when: str) -> int:
    """A key that sorts recency strings ("2026-02-04T15:15:16", "2026-02-04", "") newest first."""
    digits = _NOT_DIGIT.sub("", when)[:14]
    return -int(digits.ljust(14, "0")) if digits else 0


def command_key(text: str) -> str | None:
    """What makes two [command] learnings the same command: their commands, display pipes, redirects
    and one-off arguments set aside (`uv run pytest -x tests/ 2>&1 | tail` ~ `uv run pytest -x tests/`)."""
    spans = code_spans(text)
    if not spans:
        return None
    keys = []
    for span in spans:
        shell = parse(span)
        keys.append(shell.text if shell else span)
    return " then ".join(keys)


# ---- groups, clusters ---------------------------------------------------------------------------


class Occurrence(NamedTuple):
    """One learning as one note states it (a tuple: a large scope's view makes tens of thousands)."""

    type: str
    text: str
    path: str  # the note's path on its branch
    session: str
    when: str  # recency(); "" when unknown
    source: str = ""  # the branch the note is on (global consolidation)
    title: str = ""  # the note's title


def occurrences(notes: Sequence[tuple[str, Note]], source: str = "") -> list[Occurrence]:
    """Every learning of every note, with where it came from."""
    out = []
    for path, note in notes:
        out += note_occurrences(path, note, source)
    return out


def note_occurrences(path: str, note: Note, source: str = "") -> list[Occurrence]:
    when = recency(note, path)
    out = []
    for learning in note.learnings:
        text = " ".join(learning.text.split())
        if text:
            out.append(Occurrence(learning.type, text, path, note.session or path, when, source, note.title))
    return out


def group_key(o: Occurrence) -> tuple[str, str]:
    if o.type == "command" and (key := command_key(o.text)):
        return ("command", key)
    return (o.type, normalise(o.text))


class Signature:
    """What the similarity tests need of a group's text: its content words at once, the rest when a test
    first asks (most of the 31,619 groups of a team's first pull are never compared to another)."""

    __slots__ = ("words", "_norm", "_choosing", "_rest")

    def __init__(self, words: frozenset[str], norm: str = "", choosing: bool = False) -> None:
        self.words, self._norm, self._choosing, self._rest = words, norm, choosing, None

    @property
    def negated(self) -> bool:
        return (self._rest or self._read())[0]

    @property
    def numbers(self) -> frozenset[str]:
        return (self._rest or self._read())[1]

    @property
    def spans(self) -> frozenset[str]:
        return (self._rest or self._read())[2]

    @property
    def choice(self) -> tuple[frozenset[str], frozenset[str]] | None:
        return (self._rest or self._read())[3]

    def _read(self) -> tuple:
        norm = self._norm
        self._rest = (_negated(norm), frozenset(_NUMBER.findall(norm)), frozenset(code_spans(norm)),
                      _choice(norm) if self._choosing else None)
        return self._rest


@lru_cache(maxsize=65536)
def signature(kind: str, norm: str) -> Signature:
    """The signature of a group (`norm`: its normalised text, as `group_key` gives it)."""
    if kind == "command":
        return Signature(frozenset())
    return Signature(_content(norm) if norm.isascii() else content_words(norm), norm, kind in CHOICE_TYPES)


def _choice(norm: str) -> tuple[frozenset[str], frozenset[str]] | None:
    """(chosen, rejected) words of "use X instead of Y" / "X, not Y" / "instead of Y, use X"."""
    match = _CHOICE.search(norm)
    if not match:
        return None
    chosen, rejected = (match.group("a"), match.group("b")) if match.group("a") else (match.group("d"), match.group("c"))
    return content_words(chosen), content_words(rejected)


def _compatible(a: Signature, b: Signature) -> bool:
    # two states of one file are two clusters: the later supersedes (view._latest_state_holds)
    if states_a_file(a._norm) or states_a_file(b._norm) or a.negated != b.negated or a.numbers != b.numbers:
        return False
    return not (a.choice and b.choice and _reversed(a.choice, b.choice)) and \
        not (a.spans and b.spans and not a.spans & b.spans)


def _reversed(a: tuple[frozenset[str], frozenset[str]], b: tuple[frozenset[str], frozenset[str]]) -> bool:
    return bool((a[0] & b[1]) or (a[1] & b[0]))


def _alternatives(a: Signature, b: Signature) -> bool:
    """Two choices of one family in otherwise the same words ("British spelling" / "American spelling")."""
    only_a, only_b = a.words - b.words, b.words - a.words
    if len(only_a) != 1 or len(only_b) != 1 or len(a.words & b.words) < 2:
        return False
    return any({*only_a, *only_b} <= family for family in ALTERNATIVES)


def similar(a: Signature, b: Signature) -> float:
    """The Jaccard of two signatures that may merge, else 0."""
    score = jaccard(a.words, b.words)
    needed = max(threshold(len(a.words)), threshold(len(b.words)))
    return score if score >= needed and _compatible(a, b) else 0.0


def contradicts(a: Signature, b: Signature) -> bool:
    """Two statements of what to do (one type) that cannot both hold."""
    score = jaccard(a.words, b.words)
    if score >= THRESHOLD and a.negated != b.negated and a.numbers == b.numbers:
        return True
    if a.numbers and b.numbers and a.numbers != b.numbers and a.negated == b.negated \
            and jaccard(a.words - a.numbers, b.words - b.numbers) >= THRESHOLD:
        return True
    return bool(a.choice and b.choice and _reversed(a.choice, b.choice)) or _alternatives(a, b)


@dataclass
class Cluster:
    """Learnings judged the same, with the sessions that support them (read only once built)."""

    type: str
    occurrences: list[Occurrence] = field(default_factory=list)
    superseded_by: Cluster | None = None

    @cached_property
    def sessions(self) -> list[str]:
        return sorted({o.session for o in self.occurrences})

    @cached_property
    def support(self) -> int:
        return len(self.sessions)

    @cached_property
    def recency(self) -> str:
        return max((o.when for o in self.occurrences), default="")

    @property
    def sources(self) -> list[str]:
        return sorted({o.source for o in self.occurrences})

    @property
    def tier(self) -> str:
        return tier(self.support)

    @cached_property
    def text(self) -> str:
        """The wording most sessions used; ties go to the most recent, then the shortest."""
        sessions: dict[str, set[str]] = {}
        newest: dict[str, str] = {}
        for o in self.occurrences:
            if (seen := sessions.get(o.text)) is None:
                sessions[o.text], newest[o.text] = {o.session}, o.when
            else:
                seen.add(o.session)
                if o.when > newest[o.text]:
                    newest[o.text] = o.when
        return min(sessions, key=lambda t: (-len(sessions[t]), desc(newest[t]), len(t), t))

    @cached_property
    def latest(self) -> Occurrence:
        """The most recent occurrence (its wording is the form that worked last, for commands)."""
        newest = self.recency
        return min((o for o in self.occurrences if o.when == newest), key=lambda o: (o.text, o.path))

    def notes(self, source: str | None = None) -> list[Occurrence]:
        """One occurrence per note (of `source` if given), most recent first."""
        return [o for o in self._by_note if source is None or o.source == source]

    @property
    def paths(self) -> frozenset[str]:
        """Every note it comes from."""
        return frozenset(o.path for o in self.occurrences)

    def note_count(self, source: str | None = None) -> int:
        return len(self.notes(source))

    @cached_property
    def _by_note(self) -> list[Occurrence]:
        seen: dict[tuple[str, str], Occurrence] = {}
        ordered = sorted(self.occurrences, key=lambda o: (o.source, o.path))
        ordered.sort(key=lambda o: o.when, reverse=True)  # stable: newest first, then source and path
        for o in ordered:
            seen.setdefault((o.source, o.path), o)
        return list(seen.values())


def rank_key(cluster: Cluster) -> tuple:
    """Strongest first: support, then recency, then the text (for a stable order)."""
    return (-cluster.support, desc(cluster.recency), cluster.type, normalise(cluster.text))
