"""Text helpers shared by the heuristic extractor's rules: cleaning, ephemera, sentences, dedupe."""

from __future__ import annotations

import re
import unicodedata

# Blocks the harness or the IDE wraps around what the person typed: context, not their words.
_NOISE_BLOCK = re.compile(
    r"<(ide_[a-z_]+|system-reminder|command-[a-z]+|local-command-[a-z]+|bash-[a-z]+|"
    r"user-prompt-submit-hook|user_context|context)>.*?</\1>",
    re.S,
)
_LEFTOVER_TAG = re.compile(r"</?[a-z][\w-]*>")
_FENCE = re.compile(r"```.*?(?:```|\Z)", re.S)
_IMAGE_REF = re.compile(r"\[Image #?\d*\]|\[image\]", re.I)
_SPACES = re.compile(r"[ \t]+")

# Volatile details no future session can use: removed where they sit in a sentence...
_LINE_REF = re.compile(
    r"\s*\((?:around |at |see )?lines? ~?\d+(?:\s*[-–]\s*\d+)?\)|\s*\b(?:at|on|around|near) lines? ~?\d+(?:\s*[-–]\s*\d+)?"
    r"|\s*\blines? ~?\d+(?:\s*[-–]\s*\d+)?\b",
    re.I,
)
_FILE_LINE = re.compile(r"(\.\w{1,6}):\d+(?::\d+)?\b")
_ABS_PATH = re.compile(r"(?:~|/(?:Users|home|root|private|var|tmp|opt|mnt|workspace|srv))(?:/[^\s/'\"`),;:]+)+/?")
_TIMESTAMP = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?|\b\d{1,2}:\d{2}:\d{2}(?:\.\d+)?\b"
)
_EMPTIED = re.compile(r"\s*\((?:\s*\w+){0,2}\s*\)")  # "(seen at )" once its timestamp is gone
_DURATION = re.compile(r"\s*\(?\bin \d+(?:\.\d+)?s\)?|\s*\(\d+(?:\.\d+)?m?s\)")
# ...and, when they survive, a reason to drop the learning.
EPHEMERA = re.compile(
    r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\b\d{1,2}:\d{2}:\d{2}\b"  # timestamps
    r"|(?:localhost|127\.0\.0\.1|0\.0\.0\.0|\]|\b[a-z][\w.-]*):\d{2,5}\b"  # host:port
    r"|/tmp/|/var/folders/|/private/var/"
    r"|\blines? \d+|\.\w{1,6}:\d+\b"  # line numbers
    r"|\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",  # uuids
    re.I,
)

_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<!\betc\.)(?<=[.!?])\s+|\n+")
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})
_AGENT_MENTION = re.compile(r'@"[^"\n]{1,60}\(agent\)"\s*|@agent-[\w-]+\s*')
_MENTION = re.compile(r"(?<![\w@])@(?=[\w.-]*[/.][\w])")
_WORD = re.compile(r"[a-z0-9]+")


def clean_user_text(text: str) -> str:
    """Strip IDE/harness wrappers, fenced code and image markers from what a person typed."""
    text = text.translate(_QUOTES)
    text = _NOISE_BLOCK.sub(" ", text)
    text = _FENCE.sub(" ", text)
    text = _IMAGE_REF.sub(" ", text)
    text = _LEFTOVER_TAG.sub(" ", text)
    text = _AGENT_MENTION.sub("", text)
    text = _MENTION.sub("", text)
    return "\n".join(_SPACES.sub(" ", line).strip() for line in text.splitlines()).strip()


def scrub(text: str) -> str:
    """Remove line references, absolute paths' volatile parts and durations from a sentence."""
    text = _LINE_REF.sub("", text)
    text = _FILE_LINE.sub(r"\1", text)
    text = _ABS_PATH.sub(lambda m: m.group(0).rstrip("/").rsplit("/", 1)[-1], text)
    text = _DURATION.sub("", text)
    if _TIMESTAMP.search(text):
        text = _EMPTIED.sub("", _TIMESTAMP.sub("", text))
    return _SPACES.sub(" ", text).strip()


def is_ephemeral(text: str) -> bool:
    return EPHEMERA.search(text) is not None


def sentences(text: str) -> list[str]:
    """Split prose into sentences (and lines); skip quoted and list-of-log-looking lines."""
    out = []
    for part in _SENTENCE_END.split(text):
        part = part.strip().lstrip(">").strip().strip("\"'“”").strip()
        if part:
            out.append(part)
    return out


def clip(text: str, limit: int) -> str:
    """Cut `text` at a word boundary so it fits in `limit` characters (with an ellipsis)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0].rstrip(" ,;:-")
    return cut + "…"


def sentence_case(text: str) -> str:
    """Capitalise the first letter and end with a full stop (unless it ends with punctuation)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    if text[-1] not in ".!?…`\"')":
        text += "."
    return text


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def slugify(text: str, *, max_words: int = 6, max_chars: int = 50) -> str:
    """Kebab-case ASCII slug of at most `max_words` words and `max_chars` characters."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = ""
    for word in words(ascii_text)[:max_words]:
        candidate = f"{slug}-{word}" if slug else word
        if len(candidate) > max_chars:
            break
        slug = candidate
    return slug or "session"


class Deduper:
    """Remember learnings seen so far; near-identical ones (same words, mostly) are rejected."""

    def __init__(self, threshold: float = 0.75) -> None:
        self.threshold = threshold
        self.seen: list[frozenset[str]] = []

    def add(self, text: str) -> bool:
        """Record `text`; False when it is a near-duplicate of one recorded before."""
        tokens = frozenset(w for w in words(text) if len(w) > 2)
        if not tokens:
            return False
        for other in self.seen:
            overlap = len(tokens & other)
            smaller = min(len(tokens), len(other))
            if overlap / len(tokens | other) >= self.threshold or (smaller >= 4 and overlap == smaller):
                return False
        self.seen.append(tokens)
        return True
