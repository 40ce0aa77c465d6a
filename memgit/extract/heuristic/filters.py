"""The filter stage every candidate learning passes: cleaned of volatile details, or refused with a reason.

Refused (`problem` says why):

- a *fragment*: under four words, cut mid-sentence (ends with `:` or `…`, unbalanced backticks or
  brackets), or a continuation ("and then …");
- *turn mechanics*: the agent narrating what it will do or did ("Let me check", "Perfect!",
  "Would you like me to …"), which the next session cannot use;
- *not prose*: pasted logs, stack traces, diffs, code, JSON (mostly symbols, or log-like);
- *injected*: memgit's own context, skill or command boilerplate the agent's harness inserted;
- *ephemeral*: what only held at that moment — timestamps and dates, commit hashes, ids, temporary
  paths, pull-request numbers, process ids — left after `scrub` removed what it could.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memgit.extract.heuristic.text import LOGLIKE, words

MIN_WORDS = 4
MAX_CHARS = 480

# Removed where they sit in a sentence: they date it without changing what it says.
_LINES = r"lines? ~?\d+(?:\s*[-–]\s*\d+)?(?:\s*(?:,|and|&)\s*\d+(?:\s*[-–]\s*\d+)?)*"  # "lines 280, 319-342"
_LINE_REF = re.compile(
    rf"\s*\((?:around |at |see |on )?{_LINES}\)|\s*\b(?:at|on|around|near) {_LINES}|\s*\b{_LINES}\b",
    re.I,
)
_LEFT_COMMA = re.compile(r"\s*,\s*\)")
_FILE_LINE = re.compile(r"(\.\w{1,6}):\d+(?:[:-]\d+)*\b")
_DURATION = re.compile(r"\s*\(?\bin \d+(?:\.\d+)?\s?m?s\)?|\s*\(\d+(?:\.\d+)?\s?m?s\)")
_HOME = re.compile(r"(?:/Users|/home)/[^/\s'\"`)]+|/root(?=/)")
_ABS_PATH = re.compile(r"(?<![\w.~])(?:~|/(?:Users|home|root|private|var|tmp|opt|mnt|workspace|srv|vercel))(?:/[^\s/'\"`),;:\]]+)+/?")

# What, left in a learning, ties it to one moment: the learning is refused. A date only when the
# offline extractor wrote it (a pasted timestamp); a model is asked for absolute dates.
# In two parts, for speed: what holds a digit, and what need not. Most units hold no digit, and a
# search for the first part's alternatives at every position of them cost the extractor more than
# any other pattern (is_ephemeral runs `\d` first: one fast scan).
_DATE = r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2})?|"
_NUMBERED_MOMENT = (
    r"\b\d{1,2}:\d{2}:\d{2}\b"  # times
    r"|(?<![\w/.-])(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{6,40}(?![\w-])"  # commit and object hashes
    # request, message and tool ids (the word is all [A-Za-z0-9_], so its digit is one of 0-9)
    r"|\b(?=\w*[A-Z])(?=\w*[a-z])(?=\w*\d)[A-Za-z0-9_]{22,}\b"
    r"|\bpull/\d+|\bPR\s?#?\d+|\bpull request #?\d+|\bmerge request !?\d+"  # one change's number
    r"|\b(?:pid|pgid|ppid)\b:?\s*\d+"
)
# The parts that need no digit, each behind a character it cannot match without.
_NAMED_MOMENTS = (
    ("-", re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)),  # uuids (a-f alone too)
    ("_", re.compile(r"\b(?:req|msg|toolu|call|chatcmpl|run|sess)_[A-Za-z0-9]{8,}", re.I)),  # request and tool ids
    ("/", re.compile(r"/tmp/|/var/folders/|/private/var/|\.claude/plans/|\bT/[\w-]+", re.I)),  # temporary files
)
_SCREENSHOT = re.compile(r"\bScreenshot\b", re.I)
# Words that date a statement to the session that said it ("isn't possible right now", "the tool groups
# available in this session").
_THE_MOMENT = re.compile(r"\b(?:right now|at the moment|in this (?:session|conversation|chat)|as of now)\b", re.I)
_EPHEMERAL_NUMBERS = re.compile(_DATE + _NUMBERED_MOMENT, re.I)
_MODEL_EPHEMERAL_NUMBERS = re.compile(_NUMBERED_MOMENT, re.I)
_DIGIT = re.compile(r"\d")
# Quoted text a model wrote (an error message, a command): kept verbatim and judged as a unit.
QUOTED = re.compile(r'"[^"\n]+"|`[^`\n]+`')
_NARRATION = re.compile(
    r"^(?:let me|let's (?:see|check|look|run|try|start|verify|first)|now (?:let me|i'?ll|i need|i will|i can|let's)|"
    r"i'?ll |i will |i'm going to|i need to|i'm now|i am now|first,? (?:let me|i'?ll)|next,? (?:let me|i'?ll)|"
    r"perfect|great|excellent|good(?: call| catch| point| question| idea| observation| context)?[!.,]|"
    r"done(?:[!.;:,]|\s+[—–-])|ok(?:ay)?[,.!]|sure[,.!]|alright|got it|understood|interesting|hmm|"
    r"you'?re (?:absolutely |completely )?right[!.]|looking at (?:the|this|your)|here'?s (?:what|the|a|my)|"
    r"would you like|should i |do you want|want me to|shall i|let me know|feel free|ready to|"
    r"i'?ve (?:successfully|completed|finished|now)|everything (?:is|looks)|here are (?:the |\d+ |some |a few )|"
    r"all (?:\S+ ){0,2}(?:tests|checks) (?:pass|passed|are passing|are green|succeeded)|"
    # asking the person for something: the session's next turn, no knowledge
    r"(?:could|can|would) you (?:please )?(?:provide|share|confirm|clarify|specify|paste|send|tell me)\b|"
    r"please (?:provide|share|confirm|clarify|specify|paste|send|tell me)\b[^.?!]*\byour?\b|"
    r"the (?:changes|implementation|code) (?:is|are|look) now|this (?:should|will) (?:now )?(?:fix|work|resolve)|"
    r"try (?:it|committing|again|running)|the user (?:wants|asked)|summary\b)",
    re.I,
)
# A status report of the moment ("GitHub Action is working.", "All set."): true then, useless later.
_STATUS = re.compile(r"^(?:\S+\s+){0,4}(?:is|are|was|were)\s+(?:now\s+)?(?:working|done|complete|ready|fixed|in place|"
                     r"passing|green|good)\W*$|"
                     r"^(?:\S+\s+){0,4}(?:is|are|has been|have been) now (?:pushed|committed|merged|deployed|opened|"
                     r"created|published|installed)\b", re.I)
_CONTINUATION = re.compile(r"^(?:and|or|but|so|then|which|that|also|plus|because|while|whereas)\b", re.I)
_INJECTED = re.compile(
    r"<memgit-context|memgit (?:context|memory)|Base directory for this skill|<command-(?:name|message|args)>|"
    r"ARGUMENTS:|This session is being continued from a previous conversation|"
    r"Caveat: The messages below were generated|<system-reminder>|\[REDACTED",
    re.I,
)
# A statement that leans on its session: "This approach …", "It is called …", "For paths 3 and 4: …".
_DANGLING = re.compile(
    r"^(?:this|that|these|those)\s+(?:approach|change|fix|one|ones|way|solution|issue|problem|version|step|part|"
    r"case|cases|logic|pattern|behaviou?r|design|setup|variant|option)\b|"
    r"^(?:this|that|it|they|these|those|both)\s+(?:is|was|are|were|will|would|should|can|could|means|catches|"
    r"ensures|makes|keeps|avoids|works|handles|prevents|allows|lets|gives|fixes|matches|also|now|only|still|"
    r"does|did|has|had|needs?|seems?)\b|^(?:the (?:above|following|same|former|latter)|as (?:above|mentioned|"
    r"discussed|suggested|planned))\b|"
    # "This reduces …", "It returns …": a pronoun and a verb of the third person, leaning on what came before
    r"^(?:this|that|it)\s+(?!\w+(?:ss|us|is)\b)\w+[^\W_s]s\b(?!\s*(?:is|are|was|were)\b)|"
    # "These filters are passed to …": which ones, only the session knew
    r"^(?:these|those)\s+\w+\s+(?:are|were|have|had|do|did|need|must|should|can|will|get|got)\b",
    re.I,
)
_NUMBERED = re.compile(
    r"\b(?:paths?|steps?|items?|fix(?:es)?|options?|scenarios?|cases?|points?|findings?|phases?|bugs?|"
    r"improvements?|issues?|changes?|fixes)\s+#?\d+(?:\s*(?:and|,|-|–|to|&)\s*#?\d+)*\b",
    re.I,
)
_LEANS = re.compile(r"\b(?:the )?same (?:benefit|issue|problem|fix|thing|reason|approach|pattern|logic|change)\b|"
                    r"\bas (?:above|before|mentioned|discussed|shown above)\b", re.I)
_HALF_COPIED = re.compile(r"::\s|,\s*\d+:\s*$|\b\d+:\s*$")
# A label and the code it points at, nothing said of it ("File: `internal/repository/dbConnection.go:82`").
_LABEL_ONLY = re.compile(r"^[A-Za-z][\w/-]*(?: [\w/-]+){0,2}:\s*(?:`[^`]*`[\s,;]*)+\W*$")  # a label: three words at most
_CODE_SPAN = re.compile(r"`[^`]*`")
_NOT_PROSE_CHAR = re.compile(r"[^A-Za-z\s,.'’;:!?()-]")


_TEMP_FILE = re.compile(r"""(['"]?)(?:/var/folders|/private/var/folders|/tmp)/[^\s'"]*(?:[^'"\n]*\1)?""")


# A review's "M1 — ", "C2: "; the "No, " of an answer to a question; a lead-in that points back at the
# session before a labelled list ("This provides: Regular update: `uv tool upgrade …`; Force reinstall:
# …"), whose labels say what it is about.
_ITEM_LABEL = re.compile(r"^(?:(?:[A-Z]{1,2}\d{1,2}|#\d+)\s*[—–:-]|(?:yes|no)\s*[,:—–]|"
                         r"(?:this|that|it|these|they)(?:\s+\w+){1,3}:(?=\s+[^:`]{2,40}:\s))\s+(?=\S)", re.I)


# scrub and problem are pure and the learners ask them about the same units again and again (a
# third of the calls, ~15% of an extraction): each answer is remembered for a while.
REMEMBERED = 4096


@lru_cache(maxsize=REMEMBERED)
def scrub(text: str, cwd: str | None = None) -> str:
    """Remove line references, durations, temporary files and a review item's label; make paths
    relative to the project and free of the home directory."""
    return " ".join(_volatile(_ITEM_LABEL.sub("", text.lstrip()), cwd).split()).strip()


def scrub_unquoted(text: str, cwd: str | None = None) -> str:
    """scrub for a model's learning: quoted text (`"bash: -c: line 0: syntax error"`, a command in
    backticks) stays as written, but for the project's path and the home directory."""
    text, parts, at = _ITEM_LABEL.sub("", text.lstrip()), [], 0
    for m in QUOTED.finditer(text):
        parts += [_volatile(text[at:m.start()], cwd), _private(m.group(0), cwd)]
        at = m.end()
    parts.append(_volatile(text[at:], cwd))
    return " ".join("".join(parts).split()).strip()


def _volatile(text: str, cwd: str | None) -> str:
    # Each pattern runs only on a text holding what every match of it holds (a path's "/", a line
    # number's or a duration's digit): a substitution with no match changes nothing.
    if "/" in text:
        text = _TEMP_FILE.sub("", text)
    if _DIGIT.search(text):
        text = _LEFT_COMMA.sub(")", _LINE_REF.sub("", text))  # "(stats.go, line 233)" -> "(stats.go)"
        text = _FILE_LINE.sub(r"\1", text)
        text = _DURATION.sub("", text)
    text = _private(text, cwd)
    return _ABS_PATH.sub(_shorten_path, text) if "/" in text else text


def _private(text: str, cwd: str | None) -> str:
    """Paths relative to the project and free of the home directory (a user name is nobody's memory)."""
    if cwd and len(cwd) > 1:
        base = cwd.rstrip("/")
        text = text.replace(base + "/", "").replace(base, ".")
    return _HOME.sub("~", text)


def _shorten_path(match: re.Match) -> str:
    path = match.group(0).rstrip("/")
    if path.startswith("~"):
        return path
    return path.rsplit("/", 1)[-1] or path


_PRAISE = re.compile(r"^(?:perfect|great|excellent|done|fixed|good|ok(?:ay)?|yes|aha|found it|ah)[!.,]\s+", re.I)
_I_DID = re.compile(r"^(?:I'?ve|I have)\s+(?:now\s+|also\s+|just\s+)?(?=[a-z]+ed\b)")


def drop_opener(text: str) -> str:
    """"Perfect! I've switched the URL …" → "Switched the URL …": the agent's praise and its "I've"
    go, the statement stays."""
    text = _I_DID.sub("", _PRAISE.sub("", text))
    return text[:1].upper() + text[1:]


def is_ephemeral(text: str, *, dates: bool = False) -> bool:
    """True when text holds what ties it to one moment; `dates` lets absolute dates through."""
    if _DIGIT.search(text) and (_MODEL_EPHEMERAL_NUMBERS if dates else _EPHEMERAL_NUMBERS).search(text):
        return True
    if any(needed in text and pattern.search(text) for needed, pattern in _NAMED_MOMENTS):
        return True
    if _THE_MOMENT.search(text):
        return True
    # casefold, as re.IGNORECASE, reads the long s (ſ) as an s
    return "screenshot" in text.casefold() and _SCREENSHOT.search(text) is not None


def _balanced(text: str) -> bool:
    if text.count("`") % 2:
        return False
    return all(text.count(a) == text.count(b) for a, b in ("()", "[]", "{}"))


@lru_cache(maxsize=REMEMBERED)
def problem(text: str, *, model: bool = False) -> str | None:
    """Why `text` cannot be a learning ("fragment", "narration", …), or None when it can.

    With `model`, the rules that exist for the offline extractor's own mistakes (its cut of a long
    sentence, a pasted timestamp, unbalanced quotes inside a copied error) are left out: a model's
    learning is judged outside its quoted text, may hold a date, and its length was checked already.
    """
    if not text:
        return "empty"
    if _INJECTED.search(text):
        return "injected"
    if len(words(text)) < MIN_WORDS:
        return "fragment"
    if not model and len(text) > MAX_CHARS:
        return "too long"
    stripped = text.rstrip()
    if model:  # a quoted error may end in anything and hold a lone backtick or bracket
        stripped = QUOTED.sub(" x ", stripped).rstrip()
    if stripped.endswith((":", "…", "...", ",", ";", "(", "-")) or not _balanced(stripped):
        return "fragment"
    if _CONTINUATION.match(stripped) or stripped[0] in ")]},.;" or _LABEL_ONLY.match(stripped):
        return "fragment"
    if _NARRATION.match(stripped) or _STATUS.match(stripped):
        return "narration"
    if _DANGLING.match(stripped) or (_DIGIT.search(stripped) and _NUMBERED.search(stripped)) \
            or (":" in stripped and _HALF_COPIED.search(stripped)) or _LEANS.search(stripped):
        return "does not stand alone"
    if is_ephemeral(text if model else stripped, dates=model):
        return "ephemeral"
    if LOGLIKE.match(stripped) or _symbolic(stripped) or "\\n" in stripped:
        return "not prose"
    return None


def _symbolic(text: str) -> bool:
    """Mostly symbols and code, not words: a log line, a path list, a code fragment."""
    outside_code = _CODE_SPAN.sub(" x ", text) if "`" in text else text
    prose = len(outside_code) - len(_NOT_PROSE_CHAR.findall(outside_code))  # the fewer listed, the faster
    return prose < 0.75 * len(outside_code)
