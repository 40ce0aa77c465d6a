"""Preferences and conventions: what the person asked for as a rule, or corrected.

Two kinds of the person's sentences count:

- a *standing rule*: an imperative "don't / never / always / stop …ing / make sure / no need to",
  or a first-person rule ("I prefer", "we use", "I don't want you to", "use X instead of Y"). A
  rule that points at the task at hand ("add a test for *this*", "fix it *again*") is a one-off
  instruction, not a preference, unless it says it holds generally ("always", "every", "from now on");
- a *correction*: the person pushing back on the agent's choice ("no, use …", "I didn't find those
  links helpful", "do we even need …?", "I think we should …"), or redirecting it right after
  interrupting it or rejecting a tool call. The whole sentence is kept, with its object and
  reason, in the person's own words.

A preference is about how the agent works with the person (commits, explanations, questions,
tests it writes…); a convention is about the code (style, tools, layout).
"""

from __future__ import annotations

import re

from memgit.extract.heuristic import compaction, instructed
from memgit.extract.heuristic.candidate import Candidate, concreteness, reasoned
from memgit.extract.heuristic.session import Session
from memgit.extract.heuristic.standing import correction_worth_keeping, pushback
from memgit.extract.heuristic.text import fit_sentences, sentence_case, sentences, words

MAX_RULE = 240
MAX_CORRECTION = 300
_USER_KINDS = ("prompt", "queued", "rejection")

_LEAD = r"(?:^|(?<=[,;:(])\s*|\b(?:and|but|also|so|then|just|oh|ok|okay|pls|please|btw|again)\s+)"
# "don't worry", "I never know": the word after is not something to do or avoid.
_NOT_AN_ACTION = re.compile(
    r"worry|know|think|care|mind|understand|see|panic|hesitate|get|remember|bother|like|believe|"
    r"expect|feel|agree|recall|mean|have|need|seem|be|been|was|is|had|did|worked|works|forget"
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
    r"^(?:(?:hey|hi|hello)(?: claude)?[,!]?\s+|(?:ok(?:ay)?|yes|yeah|so|oh|well|right)[,!.:]\s+|"
    r"(?:also|and|but|btw|then|fyi|one more thing|one follow up|to be clear|note|important|just so you know)\b[,:]?\s+|"
    r"(?:remember|keep in mind|don'?t forget|note)(?: that)?\b[,:]?\s+(?=(?:i|we|you|always|never|in)\b)|"
    r"(?:please|pls|kindly)[,!]?\s+|(?:can|could|would|will) you(?: please)?\s+|i(?:'d| would) like you to\s+)+",
    re.I,
)
_TRAILING_FILLER = re.compile(r"[\s,]*\b(?:please|thanks|thank you|thx|ty|ok)[.!]*$", re.I)
_PREFERENCE_TOPIC = re.compile(
    r"\b(?:commit\w*|push\w*|pull requests?|PRs?|merg\w*|ask\w*|confirm\w*|explain\w*|explanation|summar\w*|"
    r"respon\w*|answer\w*|emoji\w*|messages?|tell me|show me|me|verbose|brief|concise|chat|plan\w*|todo|you|"
    r"communicat\w*|document\w*|notes?|tickets?|issues?|tests?|simple|simpler|complex\w*)\b",
    re.I,
)
_CONVENTION_TOPIC = re.compile(
    r"\b(?:code|function|class|module|imports?|types?|typing|naming|names?|variables?|comments?|"
    r"docstrings?|format\w*|lint\w*|style|indent\w*|tabs|spaces|package|dependenc\w*|librar\w*|framework|"
    r"api|endpoint|schema|migrations?|files?|director\w*|folders?|branch\w*|logg\w*|errors?|exceptions?|"
    r"async|css|html|component|hooks?|config\w*|env|version|python|node|uv|pip|poetry|npm|pnpm|yarn|bun|"
    r"cargo|go|docker|makefile|mise|ruff|black|eslint|prettier|mypy|pytest|jest|vitest|sql|orm|cli|"
    r"us(?:e|es|ed|ing)|over|instead)\b",  # "use X (not Y)": a choice of tool or idiom for the code
    re.I,
)


def standing_rule(sentence: str) -> bool:
    """A directive meant to hold beyond this task."""
    if sentence.rstrip().endswith("?") or not _directive(sentence):
        return False
    return not (_DEICTIC.search(sentence) and not _GENERIC.search(sentence))


def classify(text: str) -> str:
    """`preference` when it is about how the agent works with the person, else `convention`."""
    if _PREFERENCE_TOPIC.search(text):
        return "preference"
    return "convention" if _CONVENTION_TOPIC.search(text) else "preference"


def strip_filler(text: str) -> str:
    """Drop greetings, "please", "can you" and trailing thanks around a request."""
    return _TRAILING_FILLER.sub("", _LEADING_FILLER.sub("", text.strip())).strip(" ,;:-")


def learn(s: Session) -> list[Candidate]:
    """Standing rules and corrections from everything the person said, compaction recaps included."""
    found: list[Candidate] = []
    worked = False  # a correction needs something of the agent's to correct
    for x in s.exchanges:
        if x.said and x.kind in _USER_KINDS:
            found += _rules(x.said)
            found += _judged(x.said)
            # Rejecting a tool call with words is a correction; otherwise the words must push back
            # (after an interruption they weigh more; without pushback they are a new request).
            # Pushback is addressed to the agent (a pasted document that says "instead" is not).
            pushed = pushback(x.said) and (_OPENER.match(x.said) is not None or _PERSON.search(x.said) is not None)
            if worked and (x.kind == "rejection" or pushed or _redirect(x)):
                if candidate := _correction(x.said, x.correction or x.kind == "rejection"):
                    found.append(candidate)
        worked = worked or bool(x.texts or x.calls)
    for summary in s.compactions:  # what the person said before the compaction
        for text, _ in compaction.bullets(compaction.section(summary, "user message", "user feedback")):
            found += _rules(text.strip('"'))
    return found + instructed.learn(s, standing_rule=standing_rule)


# The person judging a design too heavy: a taste for simplicity that holds beyond the task.
_TOO_HEAVY = re.compile(r"\bover-?engineer\w*|\boverkill\b|\bover-?complicat\w*|\btoo (?:complex|complicated|convoluted)\b|"
                        r"\bunnecessar\w* (?:complex|complicated)", re.I)


def _judged(said: str) -> list[Candidate]:
    """The person calling something over-engineered or too complex, in their own words — in any
    request, the first one too (it judges the code, not only the agent's work)."""
    out = []
    for sentence in _split(said):
        if _TOO_HEAVY.search(sentence) and len(sentence) <= MAX_RULE and not sentence.rstrip().endswith("?"):
            quoted = strip_filler(sentence)
            if len(words(quoted)) >= 6:
                out.append(Candidate("preference", f'The user prefers simple designs: "{quoted}"', 3.0, "judged"))
    return out[:1]


def _rules(text: str) -> list[Candidate]:
    out = []
    for sentence in _split(text):
        if len(sentence) > 2 * MAX_RULE or not standing_rule(sentence):
            continue
        statement = _rewrite(sentence)
        if len(statement) <= MAX_RULE:
            score = 4.0 + (0.5 if _GENERIC.search(sentence) else 0) + (0.5 if reasoned(sentence) else 0)
            out.append(Candidate(classify(statement), statement, score, "rule"))
    return out


_RESUME = re.compile(r"^(?:continue|go on|go ahead|proceed|carry on|keep going|try again|retry|resume|ok(?:ay)?|yes|sure)\b",
                     re.I)


_NEW_TASK = re.compile(r"^(?:also |and |then |now )?(?:add|create|implement|write|run|make|update|commit|push|"
                       r"deploy|test|check|build|install|open|show|tell|explain|look|read|find|fix)\b", re.I)
_OPENER = re.compile(r"^(?:no|not|nope|wait|actually|hmm+|hold on|oh no)\b", re.I)
_PERSON = re.compile(r"\b(?:I|I'm|I'd|I've|we|we're|let's|you|you're|your|me|my|our|us)\b", re.I)


def _redirect(x) -> bool:
    """Short words typed right after stopping the agent, adjusting what it did: not a resume, a
    question or a new task."""
    said = strip_filler(x.said)
    return (x.correction and len(said) <= 200 and "?" not in said and not _RESUME.match(said)
            and not _NEW_TASK.match(said))


def _correction(text: str, stopped: bool) -> Candidate | None:
    """The person's pushback, whole: the sentences that push back and the one after (the reason)."""
    parts = _split(text)
    if not parts:
        return None
    if sum(len(p) + 1 for p in parts) > MAX_CORRECTION:
        marked = [i for i, p in enumerate(parts) if pushback(p)] or [0]
        keep = sorted({j for i in marked for j in (i, i + 1) if j < len(parts)})
        parts = [parts[i] for i in keep]
    quoted = strip_filler(fit_sentences(parts, MAX_CORRECTION))
    if len(words(quoted)) < 6:  # "no, then it's good" agrees; a correction says what to do instead
        return None
    if not correction_worth_keeping(quoted):  # "commit the changes", "how can I …?", "the current way is OK"
        return None
    score = 2.5 + (0.75 if stopped else 0) + (0.5 if reasoned(quoted) else 0) + 0.25 * concreteness(quoted)
    return Candidate(classify(quoted), f'The user corrected the agent: "{quoted}"', score, "correction")


def _split(text: str) -> list[str]:
    return [s for line in text.splitlines() for s in sentences(line) if s.strip()]


def _directive(sentence: str) -> bool:
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
    text = strip_filler(sentence)
    text = re.sub(r"^I\s+(?:don'?t|do not)\s+want\s+you\s+to\b", "Don't", text, flags=re.I)
    text = re.sub(r"^I\s+(?:would|'d)\s+prefer\b", "The user prefers", text, flags=re.I)
    text = re.sub(r"^I\s+prefer\b", "The user prefers", text, flags=re.I)
    text = re.sub(r"^I\s+(?:would|'d)\s+rather\b", "The user would rather", text, flags=re.I)
    text = re.sub(r"^I\s+want\s+you\s+to\s+", "", text, flags=re.I)
    text = re.sub(r"^we\s+(always\s+|usually\s+|only\s+)?use\b", r"The project \1uses", text, flags=re.I)
    return sentence_case(text)
