"""The note's title, its paragraph and the session's outcome.

Title: an accepted plan's title, the source's own title, a compaction's stated intent, else the
person's first real request. Paragraph: what was asked, how many follow-ups came, what the agent's
closing summary says was done (the best account of a session's result), what else it did, and
how it ended. Outcome, from the end of the session: the person's last words ("thanks, works" vs
"still broken"), an interrupt with nothing after it, the last build/test run after the last
prompt, tool calls left unanswered; then the agent's closing words; else `uncertain`.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic import compaction
from memgit.extract.heuristic.candidate import concreteness, fluff
from memgit.extract.heuristic.decisions import plan_title
from memgit.extract.heuristic.filters import problem, scrub
from memgit.extract.heuristic.preferences import standing_rule, strip_filler
from memgit.extract.heuristic.standing import asks
from memgit.extract.heuristic.session import Session, is_edit
from memgit.core.edited import phrase
from memgit.core.scan import clip
from memgit.extract.heuristic.text import fit_sentences, sentence_case, words

MAX_TITLE = 72
# A log line pasted into the request's sentence ("warnings in the log: [WARNING] x.go: … dropped 7220001
# messages"): its counts and timestamps are the moment's, not the session's subject.
_LOG_LINE = re.compile(r"\s*\[(?:WARNING|WARN|ERROR|INFO|DEBUG|FATAL|TRACE)\].*?(?=[?!]|\.(?:\s|$)|$)", re.S)
MAX_CLOSING = 480
MAX_CONTEXT = 2  # sentences of context a first request may say before what it asks
_SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+){2,}$")
# An ask that leans on the context before it: a pronoun standing for it ("Evaluate how this is handled",
# "fix it"). A determiner with its noun ("move these 3 files", "hand over this research") names its subject.
_DEICTIC = re.compile(r"\b(?:it|them|they|(?:this|that|these|those)(?=\s*(?:$|[.,;:?!)]|(?:is|was|are|were|'s|does|did|"
                      r"has|had|will|would|can|could|should|works?|happens?)\b)))", re.I)
# An ask with no subject of its own: "Fix the problem", "Investigate the issue and fix it", "Is this a
# problem?". The context said before it is what the session is about.
_GENERIC_ASK = frozenset("""a an the and or it this that these those is are was be do does did can could would you we i me
please again now just fix fixes fixed investigate look check suggest solve resolve problem problems issue issues error
errors bug bugs happening wrong help""".split())
_OBJECT_WORDS = 5  # where an ask names what it is about ("move these 3 files into …"); later pronouns refer back inside it
# How a request is put, before what it asks: "Do you think it would be possible to move …" asks to move.
_ASK_LEAD = re.compile(r"^(?:now|next|then)[,:]?\s+|^(?:do you think |i wonder (?:if|whether) )?(?:(?:it(?:'s| is| would be| might be)"
                       r"|is it|would it be) (?:possible|feasible) to|(?:we|you) (?:could|can|might))\s+", re.I)
# A clause that says nothing of a subject ("there isn't much to see here, mostly one idea about …"): the
# title starts after it.
_EMPTY = frozenset("there here it this that is isn s t not much little nothing anything to see so ok okay well "
                   "really quite a the".split())


def _without_empty_lead(text: str) -> str:
    lead, comma, rest = text.partition(", ")
    if comma and len(words(rest)) >= 3 and set(words(lead)) <= _EMPTY:
        rest = re.sub(r"^(?:mostly|just|basically|only)\s+", "", rest, flags=re.I)
        return rest[:1].upper() + rest[1:]
    return text


_LOOKAROUND = re.compile(r"^\s*(?:show|list|ls|print|display)(?:\s+(?:me|all|the|my|[\w./-]+)){0,3}[\s?.!]*$", re.I)
_GREETING = re.compile(r"^(?:hey|hi|hello|yo|hej|howdy|good (?:morning|afternoon|evening))\b[\s\w,!.]{0,12}$", re.I)
_USER_POSITIVE = re.compile(
    r"\b(?:thanks?|thank you|thx|works|working now|perfect|great|awesome|excellent|lgtm|looks good|"
    r"nice|well done|good job|ship it|all good|it'?s good|that'?s it|fixed|solved)\b",
    re.I,
)
_USER_NEGATIVE = re.compile(
    r"\b(?:still (?:broken|fail\w*|not|doesn'?t|does not|don'?t|the same|getting|seeing)|(?:doesn'?t|does not|didn'?t|"
    r"isn'?t) work\w*|not working|broken|wrong|same error|no luck|nope|worse)\b",
    re.I,
)
_AGENT_NEGATIVE = re.compile(
    r"\b(?:unable to|couldn'?t|could not|can'?t|cannot|failed to|still (?:fail\w*|broken)|not able to|blocked|"
    r"requires? (?:your )?approval)\b",
    re.I,
)
_AGENT_POSITIVE = re.compile(
    r"\b(?:all (?:\d+ )?tests pass\w*|tests? (?:now )?pass\w*|successfully|now works|works now|is working|"
    r"done|complete[d]?|fixed|implemented|created|updated|pushed|committed|merged)\b|✅",
    re.I,
)
_ACK = re.compile(
    r"^(?:thanks?|thank you|thx|ty|ok(?:ay)?|great|perfect|nice|cool|yes|yep|no|nope|lgtm|sure|go ahead|continue|"
    r"looks good|works)\b[\s\w,.!']{0,20}$",
    re.I,
)


def title(s: Session, source_title: str | None) -> str:
    first = s.requests[0] if s.requests else None
    if first and first.kind == "plan" and (found := plan_title(first.said)):
        return clip(found, MAX_TITLE)
    if source_title and _SLUG.match(source_title):  # "fix-wal-reset-on-shutdown": a title set as a slug
        source_title = sentence_case(source_title.replace("-", " ")).rstrip(".")
    if _good_title(source_title):
        return clip(source_title or "", MAX_TITLE)
    for summary in s.compactions[:1]:  # it recaps the session from its start, better than a mid-way prompt
        if intent := compaction.intent(summary):
            return sentence_case(clip(intent, MAX_TITLE)).rstrip(".")
    for i, request in enumerate(s.requests):
        if _GREETING.match(request.said) or len(words(request.said)) < 2:
            continue
        if _LOOKAROUND.match(request.said) and any(asks(r.said) for r in s.requests[i + 1:]):
            continue  # "show tools" before the work: a look around, not what the session is about
        said = [u.text for u in s.units(request.said)]
        # A standing rule stated first ("Never use emoji. Fix the sync.") is not what the session is about,
        # nor the context said before the ask ("This app checkpoints with a WAL. Analyse when the files are reset.").
        told = [x for x in said if not standing_rule(x)] or said[:1]
        ask = next((x for x in told[:MAX_CONTEXT + 1] if asks(x)), None)
        ask = ask and _ASK_LEAD.sub("", strip_filler(ask))
        if ask and (_DEICTIC.search(" ".join(ask.split()[:_OBJECT_WORDS])) or set(words(ask)) <= _GENERIC_ASK):
            ask = None
        opening = _LOG_LINE.sub("", ask or (told[0] if told else ""))
        asked = _without_empty_lead(strip_filler(scrub(opening, s.cwd))).rstrip("?.!: ")
        if len(words(asked)) >= 2:
            return sentence_case(clip(asked, MAX_TITLE)).rstrip(".")
    return "Untitled session"


def _good_title(found: str | None) -> bool:
    """The source's own title (ai-title, or a summary whose leaf is in this file) when it reads as one."""
    if not found:
        return False
    return 8 <= len(found) <= 80 and len(found.split()) >= 2 and not found.startswith(("<", "/", "["))


def outcome(s: Session) -> tuple[str, str]:
    """(outcome, how it ended: words that complete "It ended …") from the end of the session."""
    tail = s.calls[s.tail_start :]
    tail_runs = [r for r in s.runs if r.index >= s.tail_start and not r.shell.meta]
    requests = s.requests
    last_prompt = requests[-1].said if requests else ""
    if s.last_user_kind == "interrupt" and not tail:
        return "partial", "with the user interrupting"
    if _USER_NEGATIVE.search(last_prompt) and not any(r.ok for r in tail_runs):
        return "fail", "with the user reporting it still did not work"
    opening = next(iter(s.units(last_prompt)), None)
    opening_text = opening.text if opening else ""
    short_praise = len(words(last_prompt)) <= 12 or len(words(opening_text)) <= 6
    if _USER_POSITIVE.search(opening_text if len(words(last_prompt)) > 12 else last_prompt) and short_praise \
            and not tail_runs:
        return "success", "with the user confirming it works"
    if tail_runs:
        last = tail_runs[-1]
        return ("success", f"with `{last.command}` passing") if last.ok else ("fail", f"with `{last.command}` failing")
    if s.calls and not s.calls[-1].answered:
        return "partial", "with tool calls left unanswered"
    if s.last_user_kind == "interrupt":
        return "partial", "with the user interrupting"
    closing = s.closing[-600:]
    if tail and _AGENT_NEGATIVE.search(closing):
        return "partial", "with the agent reporting it could not finish"
    if tail and _AGENT_POSITIVE.search(closing) and not tail[-1].is_error:
        return "success", "with the agent reporting the work done"
    if s.runs and not s.runs[-1].shell.meta and not _USER_NEGATIVE.search(last_prompt):
        last = s.runs[-1]  # no news after the last prompt: the last run before it stands
        return ("success", f"with `{last.command}` passing") if last.ok else ("fail", f"with `{last.command}` failing")
    return "uncertain", "without a clear signal of success or failure"


def paragraph(s: Session, ended: tuple[str, str]) -> str:
    parts = []
    requests = [x for x in s.requests if not _GREETING.match(x.said)]
    if requests:
        first = requests[0]
        if first.kind == "plan":
            asked = f"implement the plan \"{plan_title(first.said) or 'given'}\""
        else:
            asked = strip_filler(fit_sentences([u.text for u in s.units(first.said)][:2], 220))
        asked = clip(scrub(_LOG_LINE.sub(" (a log line)", asked), s.cwd), 220).rstrip(".")
        if re.match(r"[A-Z][a-z]", asked):
            asked = asked[0].lower() + asked[1:]
        parts.append(f"The user asked: {asked}{'' if asked.endswith(('?', '!', '…')) else '.'}")
        if follow := sum(1 for x in requests[1:] if not _ACK.match(x.said)):
            parts.append(f"{follow} follow-up request{'s' if follow > 1 else ''} came after.")
    if s.compactions and (intent := compaction.intent(s.compactions[0])):
        parts.append(f"Earlier context (compacted): {clip(scrub(intent, s.cwd), 200).rstrip('.')}.")
    if done := _closing(s):
        parts.append(f"In the end: {done}")
    parts.append(_work_done(s))
    label, ending = ended
    parts.append(f"It ended {ending} ({label}).")
    return " ".join(p for p in parts if p)


def _closing(s: Session) -> str:
    """What the agent's closing summary says was done: its concrete statements, in order."""
    kept = []
    for unit in s.units(s.closing):
        text = scrub(unit.text, s.cwd)
        text = re.sub(r"^(?:perfect|great|excellent|done|good|ok(?:ay)?|yes)[!.,]\s+", "", text, flags=re.I)
        if problem(text) or fluff(text) or not concreteness(text):
            continue
        kept.append(sentence_case(text))
    return fit_sentences(kept, MAX_CLOSING) if kept else ""


def _work_done(s: Session) -> str:
    cwd = s.cwd
    inside = [c.file_path for c in s.edits if c.file_path and (not cwd or not c.file_path.startswith("/")
                                                                or c.file_path.startswith(cwd))]
    edited = list(dict.fromkeys(path.rsplit("/", 1)[-1] for path in inside))
    shell_calls = sum(1 for c in s.calls if c.command)
    shown_runs = [r for r in s.runs if not r.shell.meta and len(r.command) <= 80 and "`" not in r.command]
    families = list(dict.fromkeys([r.command for r in shown_runs if r.ok] or [r.command for r in shown_runs]))
    done = []
    if edited:
        done.append(phrase(edited))
    if shell_calls:
        checks = f", including {', '.join(f'`{f}`' for f in families[:3])}" if families else ""
        done.append(f"ran {shell_calls} shell command{'s' if shell_calls > 1 else ''}{checks}")
    others = len(s.calls) - shell_calls - len([c for c in s.calls if is_edit(c)])
    if others > 0:
        done.append(f"made {others} other tool call{'s' if others > 1 else ''}")
    if s.side_calls:
        done.append("delegated work to subagents")
    if s.plans:
        done.append("followed an approved plan")
    if not done:
        return "The agent answered without using tools."
    return "The agent " + (", ".join(done[:-1]) + " and " + done[-1] if len(done) > 1 else done[0]) + "."
