"""Near-identical learnings of many notes merged into clusters, each counting the sessions behind it.

Two learnings are the same when they have the same type and

- [command]: the same command(s) in backticks (whitespace aside): `go test` and `go test -count=1`
  are different commands, however alike their sentences ("Tests run with …") read;
- any other type: the same normalised text, or a Jaccard similarity of their content words of at
  least `THRESHOLD`, provided they agree on negation, on every number and (when both quote code)
  on at least one code span.

`THRESHOLD` = 0.65 sits in the gap the Claude fixtures show (tests/unit/test_consolidate_merge.py
re-checks every example here): "Shadow branches named `entire/<commit-hash>` for checkpoints." and
"Shadow branches (`entire/<commit-hash>`) for temporary checkpoint storage." — one fact, two
sessions — score 0.67 and merge; the two errcheck gotchas "`mise run lint` fails with "Error
return value of `baseCommit.Tree` is not checked (errcheck)"; fixed by editing
manual_commit_condensation.go." and the same with `paths.ReadCurrentSession` / logger.go — two
different fixes — score 0.52 and stay apart. It is above 0.6 so that a short statement with one
word swapped stays itself: "Tests fail when Redis is not running." and "Deploys fail when Redis
is not running." share 3 of 5 words (0.6). Paraphrases merge: "Don't put emoji in commit
messages." and "No emoji in commit messages, please." score 0.75. The guards catch what word
overlap cannot: "Use tabs for indentation." vs "Don't use tabs for indentation." (1.0, opposite
polarity); "Node 18 is required to build the web frontend." vs "Node 20 …" (0.71, other numbers).

Clustering is leader-based and independent of input order: groups of identical learnings are
taken strongest first (support, then recency, then text) and each joins the most similar leader
or leads its own cluster. Candidate leaders come from a prefix-filter index (rare tokens first),
which finds every pair at or above the threshold without comparing all pairs: 10,000 learnings
of 2,000 notes cluster in a fraction of a second. Only text with a tiny vocabulary (every word
in every learning) defeats the index; `MAX_CANDIDATES` then bounds the work, comparing a
learning with the strongest leaders only.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from ..model import Note

THRESHOLD = 0.65
MAX_CANDIDATES = 256  # leaders compared per learning: bounds the worst case (a tiny vocabulary)
TIERS = ((5, "critical"), (3, "strong"), (2, "emerging"))  # minimum sessions -> tier

_PUNCT = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-"})
_CODE = re.compile(r"`([^`\n]+)`")
_WORD = re.compile(r"[a-z0-9]+")
_NUMBER = re.compile(r"\d+(?:\.\d+)*")
_NEGATION = re.compile(r"\b(?:not|no|never|none|nothing|nor|avoid|without|cannot|dont)\b|n't\b")
_STOP = frozenset(
    "a an the to of in on at by for from with into onto as and or but if then so than that this these "
    "those it its is are was were be been being do does did has have had will would should could can "
    "may might must shall we you i he she they them our your their me my us not no never nor also just "
    "only very too which who whom what when where there here all any each some such via per please don "
    "doesn didn isn aren wasn won".split()  # what is left of "don't" etc.: the polarity check sees the negation
)
_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})")


def tier(support: int) -> str:
    """The tier of a learning supported by `support` sessions ("" below emerging)."""
    return next((name for least, name in TIERS if support >= least), "")


def normalise(text: str) -> str:
    """Lowercase, unify quotes and dashes, collapse whitespace, drop the final punctuation."""
    text = unicodedata.normalize("NFKC", text).translate(_PUNCT).casefold()
    return " ".join(text.split()).rstrip(" .;:!,…")


def code_spans(text: str) -> tuple[str, ...]:
    """The code in backticks, whitespace collapsed, in order of appearance."""
    return tuple(" ".join(span.split()) for span in _CODE.findall(text))


def content_words(text: str) -> frozenset[str]:
    """The words that carry meaning: stop words dropped, plurals folded ("checkpoints" ~ "checkpoint")."""
    out = set()
    for word in _WORD.findall(normalise(text)):
        if word in _STOP or (len(word) == 1 and not word.isdigit()):  # "don't" leaves a "t"
            continue
        if len(word) > 4 and word.endswith("ies"):
            word = word[:-3] + "y"
        elif len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        out.add(word)
    return frozenset(out)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def recency(note: Note, path: str) -> str:
    """A sortable "YYYY-MM-DDTHH:MM:SS" for a note: its end, its start, else the date in its path."""
    for value in (note.ended, note.started):
        if value and _DATE.match(value):
            return value.replace(" ", "T")[:19]
    found = _DATE.search(path.rsplit("/", 1)[-1])
    return found.group(1) if found else ""


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One learning as one note states it."""

    type: str
    text: str
    path: str  # the note's path on its branch
    session: str
    when: str  # recency(); "" when unknown
    source: str = ""  # the branch the note is on (global consolidation)
    title: str = ""  # the note's title


@dataclass
class Cluster:
    """Learnings judged the same, with the sessions that support them (read only once built)."""

    type: str
    occurrences: list[Occurrence] = field(default_factory=list)

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
        by_text: dict[str, tuple[set[str], str]] = {}
        for o in self.occurrences:
            sessions, when = by_text.setdefault(o.text, (set(), ""))
            sessions.add(o.session)
            by_text[o.text] = (sessions, max(when, o.when))
        return min(by_text, key=lambda t: (-len(by_text[t][0]), _desc(by_text[t][1]), len(t), t))

    def notes(self, source: str | None = None) -> list[Occurrence]:
        """One occurrence per note (of `source` if given), most recent first."""
        seen: dict[tuple[str, str], Occurrence] = {}
        for o in sorted(self.occurrences, key=lambda o: (_desc(o.when), o.source, o.path)):
            if source is None or o.source == source:
                seen.setdefault((o.source, o.path), o)
        return list(seen.values())


def _desc(when: str) -> int:
    """A key that sorts recency strings ("2026-02-04T15:15:16", "2026-02-04", "") newest first."""
    digits = "".join(c for c in when if c.isdigit())[:14]
    return -int(digits.ljust(14, "0")) if digits else 0


def rank_key(cluster: Cluster) -> tuple:
    """Strongest first: support, then recency, then the text (for a stable order)."""
    return (-cluster.support, _desc(cluster.recency), cluster.type, normalise(cluster.text))


def occurrences(notes: Sequence[tuple[str, Note]], source: str = "") -> list[Occurrence]:
    """Every learning of every note, with where it came from."""
    out = []
    for path, note in notes:
        when = recency(note, path)
        for learning in note.learnings:
            text = " ".join(learning.text.split())
            if text:
                out.append(Occurrence(learning.type, text, path, note.session or path, when, source, note.title))
    return out


def _exact_key(o: Occurrence) -> tuple:
    if o.type == "command":
        spans = code_spans(o.text)
        if spans:
            return ("command", spans)
    return (o.type, normalise(o.text))


@dataclass(slots=True)
class _Group:
    key: tuple
    members: list[Occurrence]
    words: frozenset[str]
    negated: bool
    numbers: frozenset[str]
    spans: frozenset[str]
    support: int = 0
    when: str = ""


def _compatible(a: _Group, b: _Group) -> bool:
    if a.negated != b.negated or a.numbers != b.numbers:
        return False
    return not (a.spans and b.spans and not a.spans & b.spans)


def cluster(items: Iterable[Occurrence], threshold: float = THRESHOLD) -> list[Cluster]:
    """Merge near-identical learnings; return the clusters strongest first."""
    groups: dict[tuple, _Group] = {}
    for o in items:
        group = groups.get(key := _exact_key(o))
        if group is None:
            norm = normalise(o.text)
            group = groups[key] = _Group(
                key, [], content_words(o.text), bool(_NEGATION.search(norm.replace("don't", "dont"))),
                frozenset(_NUMBER.findall(norm)), frozenset(code_spans(o.text)),
            )
        group.members.append(o)
    for group in groups.values():
        group.support = len({o.session for o in group.members})
        group.when = max(o.when for o in group.members)
    ordered = sorted(groups.values(), key=lambda g: (-g.support, _desc(g.when), g.key))
    clusters: list[Cluster] = []
    by_type: dict[str, list[_Group]] = {}
    for group in ordered:
        by_type.setdefault(group.key[0], []).append(group)
    for kind in sorted(by_type):
        if kind == "command":
            clusters += [Cluster(kind, list(g.members)) for g in by_type[kind]]
        else:
            clusters += _leaders(kind, by_type[kind], threshold)
    return sorted(clusters, key=rank_key)


def _prefix(words: list[str], threshold: float) -> list[str]:
    """The tokens two sets with Jaccard >= threshold must share one of (in the global order)."""
    return words[: len(words) - math.ceil(threshold * len(words)) + 1]


def _leaders(kind: str, groups: list[_Group], threshold: float) -> list[Cluster]:
    frequency = Counter(w for g in groups for w in g.words)
    order = lambda g: sorted(g.words, key=lambda w: (frequency[w], w))  # noqa: E731  rare first
    leaders: list[tuple[_Group, Cluster]] = []
    index: dict[str, list[int]] = {}
    for group in groups:
        words = order(group)
        best, best_score = None, -1.0
        if words:
            size = len(words)
            candidates = sorted({i for w in _prefix(words, threshold) for i in index.get(w, ())})[:MAX_CANDIDATES]
            for i in candidates:
                leader = leaders[i][0]
                other = len(leader.words)  # Jaccard >= t needs t*|A| <= |B| <= |A|/t
                if other < threshold * size or other * threshold > size:
                    continue
                score = jaccard(group.words, leader.words)
                if score >= threshold and score > best_score and _compatible(group, leader):
                    best, best_score = i, score
        if best is not None:
            leaders[best][1].occurrences.extend(group.members)
            continue
        leaders.append((group, Cluster(kind, list(group.members))))
        for w in _prefix(words, threshold):
            index.setdefault(w, []).append(len(leaders) - 1)
    return [c for _, c in leaders]
