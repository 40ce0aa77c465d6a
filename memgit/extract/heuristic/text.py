"""Prose helpers for the learners: a message cut into units (sentences and list items), cleaned.

A *unit* is the smallest piece of prose a learning may quote: a sentence of a paragraph, or a list
item with its sub-items (`Individual pages: show one link; the combined page keeps its list`), each
with the heading it sits under. Code blocks, tables, quoted lines and pasted logs are not prose and
never become units: a learning is something a person or the agent *stated*, not something a tool
printed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memgit.core.model import TRIMMED_PATTERN
from memgit.core.vocab import slugify

# What the harness put around the person's words is not in their turn (the sources split it off and
# mark it, memgit.core.model); left here is how people write: placeholders for what they pasted,
# mentions of files and agents, typographic quotes.
_IMAGE_REF = re.compile(r"\[Image #?\d*\]|\[image\]", re.I)
_SPACES = re.compile(r"[ \t]+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})
_AGENT_MENTION = re.compile(r'@"[^"\n]{1,60}\(agent\)"\s*|@agent-[\w-]+\s*')
_MENTION = re.compile(r"(?<![\w@])@(?=[\w.-]*[/.][\w])")
_WORD = re.compile(r"[a-z0-9]+")

# Lines that are not prose: a log, a trace, a diff, a listing, a file body, a table.
LOGLIKE = re.compile(
    r"^\s*(?:\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\b|\d{4}-\d{2}-\d{2}|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG|TRACE)\b|"
    r"(?:GET|POST|PUT|PATCH|DELETE|HEAD)\s+(?:https?://|/)|at \S+ \(|at [\w.$<>]+\(|Traceback|File \"|"
    r"[\w.]*(?:Error|Exception)\b:|fatal:|error(?:\[\w+\])?:|npm ERR!|warning:|\$ |> |\+\+\+ |--- |@@ |"
    r"diff --git|index [0-9a-f]{7}|\d+\s*(?:→|\|)|[{}\[\]]\s*,?$|\"[\w-]+\":|<[a-zA-Z!/]|\|)"
)
_FENCE = re.compile(r"^\s*(```|~~~)")
# Where a source cut a long text to its head and tail: the line before it and the line after it are
# halves of what was written.
_CUT = re.compile(rf"^{TRIMMED_PATTERN}$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_BOLD_HEADING = re.compile(r"^\s*\*\*(?P<text>[^*]{2,80}?)\*\*:?\s*$")
_NUMBERED = re.compile(r"^\d{1,2}[.)]\s+")  # "2. Updated the docs" as a heading: the number is layout
_ITEM = re.compile(r"^(?P<indent>\s*)(?:[-*•+]|\d{1,2}[.)]|[a-z][.)])\s+(?P<text>\S.*)$")
# A sentence ends at ., ! or ? before white space (people start sentences in lower case too),
# not after a common abbreviation. `(?<=[.!?])` is tried first: it fails at nearly every position,
# and the abbreviations' look-behinds are then never tried (7x faster, the same splits).
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<!\bcf\.)(?<!\bNo\.)\s+(?=\S)")

# Markdown and decoration that carry no meaning in a one-line learning.
_LINK = re.compile(r"\[([^\]\n]{1,200})\]\((?:[^()\s]|\([^()\s]*\))+\)")
_EMPHASIS = re.compile(r"\*\*|__|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
_DECORATION = re.compile(
    "[\u2705\u274c\u26a0\u2728\u2b50\u2714\u2716\u27a1\ufe0f\u200d"  # check marks, warning, sparkles, arrows
    "\U0001f300-\U0001faff\u2600-\u26ff]"  # emoji
)


@dataclass(frozen=True, slots=True)
class Unit:
    """A sentence or list item of a message, cleaned of markdown, with the heading above it."""

    text: str
    heading: str = ""
    index: int = 0  # position in its message
    item: bool = False  # a list item (with its sub-items folded in)


def clean_user_text(text: str) -> str:
    """Tidy what a person typed: image placeholders and @-mentions out, quotes and spaces normalised."""
    text = straight_quotes(text)
    text = _IMAGE_REF.sub(" ", text)
    text = _AGENT_MENTION.sub("", text)
    text = _MENTION.sub("", text)
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.splitlines()).strip()


def own_words(text: str) -> str:
    """What a person wrote in a message, without what they pasted: code blocks, and from the first
    of three or more log-like lines on (a pasted log and whatever follows its start)."""
    kept: list[str] = []
    fenced = False
    lines = text.splitlines()
    for at, line in enumerate(lines):
        if _CUT.match(line.strip()):  # whether the tail of a cut text starts inside a code block
            fenced = _opens_inside(lines[at + 1:])
            continue
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            kept.append(line)
    marks = [i for i, line in enumerate(kept) if LOGLIKE.match(line)]
    if len(marks) >= 3:
        kept = kept[: marks[0]]
    for i, line in enumerate(kept[:MAX_LEAD_LINES]):  # "Does this doc page help?" and the page itself
        if _POINTS_AT.search(line) and _pasted_prose(kept[i + 1:]):
            kept = kept[: i + 1]
            break
    return "\n".join(kept).strip()


# A line of the person's that points at a document they pasted after it ("Does this doc page help?"):
# the text that follows is someone else's, however it reads, and no report of theirs either (an error
# output they paste is a symptom: LOGLIKE and the gotchas read it).
_POINTS_AT = re.compile(
    r"\b(?:this|these|the following|below|here'?s|here is|here are)\b[^.?!:]{0,40}?\b(?:docs?|documentation|"
    r"page|article|post|guide|section|readme|thread|comment|answer|excerpt|spec|specification|email)s?\b"
    r"[^.?!:]{0,40}[?:]\s*$", re.I)
MAX_LEAD_LINES = 6  # the pointer is among the person's first lines
MIN_PASTED = 400  # characters after it: less is the person's own follow-up


def _pasted_prose(lines: list[str]) -> bool:
    """Long enough to be a document, and not the person's own list of points."""
    filled = [line for line in lines if line.strip()]
    items = sum(1 for line in filled if _ITEM.match(line))
    return sum(map(len, filled)) >= MIN_PASTED and items * 2 < len(filled)


def points_at_document(said: str) -> bool:
    """True when the person's words (own_words) end by pointing at a document they pasted after them."""
    return _POINTS_AT.search(said.rpartition("\n")[2]) is not None


def straight_quotes(text: str) -> str:
    """Typographic quotes and non-breaking spaces as plain ASCII."""
    # All of _QUOTES' characters are non-ASCII, and str.translate looks each character up in a
    # dict: an ASCII text (most of them) is returned as it is.
    return text if text.isascii() else text.translate(_QUOTES)


def plain(text: str) -> str:
    """One line of prose: links to their labels, emphasis and emoji dropped, whitespace collapsed."""
    text = straight_quotes(text)
    # Each pattern runs only on a text holding what it needs: most sentences have no link and
    # no emphasis, and a search of every position costs several times these substring tests.
    if "](" in text:
        text = _LINK.sub(r"\1", text)
    if "*" in text or "__" in text:
        text = _EMPHASIS.sub("", text)
    if not text.isascii():  # every decoration is outside ASCII
        text = _DECORATION.sub("", text)
    return " ".join(text.split()).strip()


def sentences(text: str) -> list[str]:
    """Split one paragraph into sentences."""
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def units(text: str, *, fold_items: int = 360) -> list[Unit]:
    """The prose of a markdown message as units, in order.

    Paragraphs are split into sentences. A list item is one unit; its sub-items are folded into
    it (`item: sub; sub`) while the whole stays under `fold_items` characters, else each sub-item
    becomes a unit led by its parent's words. Code blocks, tables and log-like lines are skipped.
    """
    out: list[Unit] = []
    heading = ""
    paragraph: list[str] = []
    cut_before = False  # the paragraph being read starts where a cut text resumes: its first sentence is a half
    items: list[tuple[int, list[str]]] = []  # (indent, lines) of the current list
    fenced = False
    lead = ""  # a sentence ending with ":" that introduces the list after it

    def flush_paragraph(*, cut_after: bool = False) -> None:
        nonlocal cut_before
        if paragraph:
            said = sentences(" ".join(paragraph))
            for sentence in said[1 if cut_before else 0:len(said) - 1 if cut_after else None]:
                out.append(Unit(plain(sentence), heading, len(out)))
            paragraph.clear()
        cut_before = False

    def introduced() -> Unit | None:
        """The sentence just emitted when it ends with ":" (it introduces what follows)."""
        if out and not out[-1].item and out[-1].text.endswith(":") and out[-1].heading == heading:
            return out.pop()
        return None

    def flush_items() -> None:
        nonlocal lead
        if items:
            out.extend(_fold(items, heading, len(out), fold_items, lead))
            items.clear()
        lead = ""

    lines = text.splitlines()
    for at, line in enumerate(lines):
        if _CUT.match(line.strip()):
            # A long text cut mid-sentence: the sentence or item the cut ends is left out, and so is
            # the half sentence the text resumes with.
            if items:
                items.pop()
            flush_paragraph(cut_after=True)
            flush_items()
            fenced = _opens_inside(lines[at + 1:])
            cut_before = True
            continue
        if _FENCE.match(line):
            flush_paragraph()
            flush_items()
            if not fenced and (said := introduced()):  # "X returns Y:" before code still states it
                out.append(Unit(said.text[:-1].rstrip() + ".", heading, len(out)))
            fenced = not fenced
            continue
        if fenced:
            continue
        stripped = line.strip()
        if not stripped:
            flush_paragraph()
            continue
        if match := _HEADING.match(line) or _BOLD_HEADING.match(line):
            flush_paragraph()
            flush_items()
            heading = _NUMBERED.sub("", plain(match.group("text"))).rstrip(":")
            continue
        if LOGLIKE.match(line) or stripped.startswith(("|", ">")):
            flush_paragraph()
            continue
        if match := _ITEM.match(line):
            flush_paragraph()
            if not items and (said := introduced()):
                lead = said.text
            items.append((len(match.group("indent").expandtabs(4)), [match.group("text")]))
            continue
        if items and not paragraph and line[:1].isspace():
            items[-1][1].append(stripped)  # a wrapped list item
            continue
        flush_items()
        paragraph.append(stripped)
    flush_paragraph()
    flush_items()
    return out


def _opens_inside(tail: list[str]) -> bool:
    """True when the tail of a cut text starts inside a code block: the whole text had its fences in
    pairs, so an odd number of them in the tail means one was opened before the cut."""
    return sum(1 for line in tail if _FENCE.match(line)) % 2 == 1


# A list item that starts with a verb has its subject in the heading above it ("## CLAUDE_CODE_REMOTE"
# / "- Set to true in web sessions"): the heading leads the unit.
_SUBJECTLESS = re.compile(r"^(?:[A-Z][a-z]+(?:s|ed)|Set|Run|Use|Make|Get|Put|Keep|Add|Read|Write)\b(?! (?:the|a|an) )")


def _fold(items: list[tuple[int, list[str]]], heading: str, start: int, limit: int, lead: str) -> list[Unit]:
    """Top-level items with their sub-items folded in, or split out when too long; a short list
    introduced by a sentence ending with ":" becomes one unit with it."""
    base = min(indent for indent, _ in items)
    groups: list[tuple[str, list[str]]] = []
    for indent, lines in items:
        text = plain(" ".join(lines))
        if heading and indent <= base and _SUBJECTLESS.match(text) and not lead:
            text = f"{heading}: {text}"
        if indent <= base or not groups:
            groups.append((text, []))
        else:
            groups[-1][1].append(text)
    out = []
    if lead:
        whole = f"{lead} " + "; ".join(_folded(top, children).rstrip(".;") for top, children in groups)
        if len(whole) <= limit:
            return [Unit(whole, heading, start, item=True)]
        out.append(Unit(lead[:-1].rstrip() + ".", heading, start))  # too long to fold: the lead alone
    for top, children in groups:
        folded = _folded(top, children)
        if len(folded) <= limit or not children:
            out.append(Unit(folded, heading, start + len(out), item=True))
            continue
        out.append(Unit(top, heading, start + len(out), item=True))
        for child in children:
            out.append(Unit(f"{top.rstrip(':')}: {child}", heading, start + len(out), item=True))
    return out


def _folded(top: str, children: list[str]) -> str:
    if not children:
        return top
    return f"{top.rstrip(':')}: " + ", ".join(c.rstrip(".;") for c in children)


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def fit_sentences(parts: list[str], limit: int) -> str:
    """Whole sentences from `parts`, in order, while they fit in `limit` characters (at least one)."""
    kept: list[str] = []
    size = 0
    for part in parts:
        extra = len(part) + (1 if kept else 0)
        if kept and size + extra > limit:
            break
        kept.append(part)
        size += extra
    return " ".join(kept)


def sentence_case(text: str) -> str:
    """Capitalise the first letter and end with a full stop (unless it ends with punctuation)."""
    text = text.strip()
    if not text:
        return text
    if text[0].islower() and not text.startswith(("e.g", "i.e")):
        text = text[0].upper() + text[1:]
    if text[-1] not in ".!?…`\"')":
        text += "."
    return text


def title_slug(title: str) -> str:
    """The slug of a note's title its file is named by: at most 6 whole words, 50 characters, in ASCII."""
    return slugify(title, max_chars=50, max_words=6, whole_words=True, default="session")
