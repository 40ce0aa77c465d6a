"""What the person asked for or corrected, as standing rules: preference and convention learnings.

Only sentences that are *directives* count: an imperative "don't / never / always / stop …ing /
make sure / no need to / please use", or a first-person statement of a rule ("I prefer", "we use",
"I don't want you to", "use X instead of Y"). Questions, one-off requests about "this" or "the
last commit", opinions ("I don't think …") and chit-chat ("don't worry") are not rules.
"""

from __future__ import annotations

import re

from ._text import clean_user_text, is_ephemeral, scrub, sentence_case, sentences

MAX_CHARS = 200

_LEAD = r"(?:^|(?<=[,;:(])\s*|\b(?:and|but|also|so|then|just|oh|ok|okay|pls|please|btw|again)\s+)"
# "don't worry", "I never know": the word after is not something to do or avoid.
_NOT_AN_ACTION = re.compile(
    r"worry|know|think|care|mind|understand|see|panic|hesitate|get|remember|bother|like|believe|"
    r"expect|feel|agree|recall|mean|have|need|seem|be|been|was|is|had|did|worked|works"
)
_IMPERATIVE = re.compile(
    _LEAD + r"(?:please\s+)?(?P<verb>don'?t|do not|never|always|stop|avoid|keep|prefer)\s+(?P<next>[\w-]+)", re.I
)
_FIRST_PERSON = re.compile(
    r"\b(?:I\s+(?:would|'d)\s+(?:prefer|rather|like you to)|I\s+prefer|I\s+want\s+you\s+to|"
    r"I\s+(?:don'?t|do not)\s+want\s+you\s+to|we\s+(?:always\s+|usually\s+|only\s+)?(?:use|prefer)|"
    r"(?:you|we)\s+(?:should|must)\s+(?:always|never)|(?:we|I)\s+(?:always|never)\s+\w+|"
    r"please\s+(?:use|prefer|keep|avoid)|make sure|no need to|from now on|in (?:the )?future)\b",
    re.I,
)
_INSTEAD = re.compile(
    r"(?:^|\b(?:please|just|always|let'?s|we should|you should|rather)\s+)(?:use|prefer|switch to|go with|"
    r"stick (?:to|with)|rely on)\b[^.?!]{1,80}\binstead\b|\binstead of\b[^.?!]{1,80},\s*(?:use|prefer)\b",
    re.I,
)
_USE_NOT = re.compile(
    _LEAD + r"(?:please\s+)?(?:always\s+)?use\s+[^.;?!]{1,60}?,?\s+(?:not|rather than|over)\s+\S", re.I
)
# One-off requests point at something in this session; standing rules don't.
_DEICTIC = re.compile(
    r"\b(?:this(?! (?:project|repo|repository|codebase|team|company))|these|those|here|again|"
    r"the (?:last|latest|previous|current|above|new|old)|right now|for now|yet|anymore)\b"
    r"|\b(?:that|it)\W*$",
    re.I,
)
_GENERIC = re.compile(r"\b(?:always|never|any|every|all|whenever|from now on|in (?:the )?future|ever)\b", re.I)
_LEADING_FILLER = re.compile(
    r"^(?:(?:hey|hi|hello)(?: claude)?[,!]?\s+|(?:ok(?:ay)?|yes|yeah|no|nope|so|oh|well|actually|right)[,!.:]\s+|"
    r"(?:also|and|but|btw|then|fyi|one more thing|one follow up|to be clear|note|important|just so you know)\b[,:]?\s+|"
    r"(?:please|pls|kindly)[,!]?\s+|(?:can|could|would|will) you(?: please)?\s+|i(?:'d| would) like you to\s+)+",
    re.I,
)
_TRAILING_FILLER = re.compile(r"[\s,]*(?:please|thanks|thank you|thx|ty|ok)[.!]*$", re.I)
_PREFERENCE_TOPIC = re.compile(
    r"\b(?:commit\w*|push\w*|pull requests?|PRs?|merg\w*|ask\w*|confirm\w*|explain\w*|explanation|summar\w*|"
    r"respon\w*|answer\w*|emoji\w*|messages?|tell me|show me|me|verbose|brief|concise|chat|plan\w*|todo|you|"
    r"communicat\w*|document\w*|notes?|tickets?|issues?)\b",
    re.I,
)
_CONVENTION_TOPIC = re.compile(
    r"\b(?:code|tests?|function|class|module|imports?|types?|typing|naming|names?|variables?|comments?|"
    r"docstrings?|format\w*|lint\w*|style|indent\w*|tabs|spaces|package|dependenc\w*|librar\w*|framework|"
    r"api|endpoint|schema|migrations?|files?|director\w*|folders?|branch\w*|logg\w*|errors?|exceptions?|"
    r"async|css|html|component|hooks?|config\w*|env|version|python|node|uv|pip|poetry|npm|pnpm|yarn|bun|"
    r"cargo|go|docker|makefile|mise|ruff|black|eslint|prettier|mypy|pytest|jest|vitest|sql|orm|"
    r"us(?:e|es|ed|ing)|over|instead|cli)\b",  # "use X (not Y)": a choice of tool or idiom for the code
    re.I,
)
_PLAN_PASTE = re.compile(r"^\s*(?:implement the following plan|here is the plan)\b", re.I)
_LOGLIKE = re.compile(
    r"^\s*(?:\d{1,2}:\d{2}(?::\d{2})?(?:\.\d+)?\b|\d{4}-\d{2}-\d{2}|\[?(?:ERROR|WARN(?:ING)?|INFO|DEBUG)\b|"
    r"(?:GET|POST|PUT|PATCH|DELETE)\s+https?://|at \S+ \(|Traceback|File \"|[\w.]*(?:Error|Exception)\b:|fatal:|"
    r"error(?:\[\w+\])?:|npm ERR!|\$ |\{|\}|\")"
)
_REJECTION = re.compile(
    r"(?:reason for the rejection:|the user said:)\s*(?P<reason>.+)$", re.I | re.S
)


def own_words(text: str) -> str:
    """The part of a message the person wrote: a pasted log (three or more log-like lines) and all
    that follows its first line are cut off."""
    lines = text.splitlines()
    marks = [i for i, line in enumerate(lines) if _LOGLIKE.match(line)]
    return "\n".join(lines[: marks[0]]) if len(marks) >= 3 else text


def rejection_reason(output: str) -> str | None:
    """The words a person typed when rejecting a tool call, when the result carries them."""
    match = _REJECTION.search(output)
    return match.group("reason").strip() if match else None


def strip_filler(text: str) -> str:
    """Drop greetings, "please", "can you" and trailing thanks around a request."""
    return _TRAILING_FILLER.sub("", _LEADING_FILLER.sub("", text.strip())).strip(" ,;:-")


def is_plan_paste(text: str) -> bool:
    return _PLAN_PASTE.match(text) is not None


def _directive(sentence: str) -> bool:
    if sentence.rstrip().endswith("?"):
        return False
    for match in _IMPERATIVE.finditer(sentence):
        verb, nxt = match.group("verb").lower(), match.group("next").lower()
        if _NOT_AN_ACTION.fullmatch(nxt):
            continue
        if verb == "stop" and not nxt.endswith("ing"):
            continue
        if verb == "keep" and (match.start() > 0 or nxt in ("it", "this", "that", "them", "going", "in", "on", "up")):
            continue
        return True
    return bool(_FIRST_PERSON.search(sentence) or _INSTEAD.search(sentence) or _USE_NOT.search(sentence))


def _rewrite(sentence: str) -> str:
    text = scrub(sentence)
    text = strip_filler(text)
    text = re.sub(r"^I\s+(?:don'?t|do not)\s+want\s+you\s+to\b", "Don't", text, flags=re.I)
    text = re.sub(r"^I\s+(?:would|'d)\s+prefer\b", "The user prefers", text, flags=re.I)
    text = re.sub(r"^I\s+prefer\b", "The user prefers", text, flags=re.I)
    text = re.sub(r"^I\s+(?:would|'d)\s+rather\b", "The user would rather", text, flags=re.I)
    text = re.sub(r"^I\s+want\s+you\s+to\s+", "", text, flags=re.I)
    text = re.sub(r"^we\s+(always\s+|usually\s+|only\s+)?use\b", r"The project \1uses", text, flags=re.I)
    return sentence_case(text)


def classify(text: str) -> str:
    """`preference` when it is about how the agent works with the person, else `convention`."""
    if _PREFERENCE_TOPIC.search(text):
        return "preference"
    return "convention" if _CONVENTION_TOPIC.search(text) else "preference"


def rules_from(text: str) -> list[tuple[str, str]]:
    """(type, statement) for each standing rule the person stated in one message."""
    if is_plan_paste(text):
        return []
    found = []
    for sentence in sentences(own_words(clean_user_text(text))):
        if len(sentence) > 2 * MAX_CHARS or not _directive(sentence):
            continue
        if _DEICTIC.search(sentence) and not _GENERIC.search(sentence):
            continue
        statement = _rewrite(sentence)
        if len(statement) < 12 or len(statement) > MAX_CHARS or is_ephemeral(statement):
            continue
        found.append((classify(statement), statement))
    return found
