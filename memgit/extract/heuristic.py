"""The offline extractor: a session note from a transcript by rules, deterministic and pure.

What it keeps (the rules live in the helper modules, each documented there):

- [preference]/[convention]: standing rules the person stated in their own prompts (`_asks`);
- [command]/[gotcha]: build/test commands that passed, failures and what fixed them (`_runs`);
- [decision]/[fact]: compaction summaries and accepted plans (`_decisions`).

Skip rule: no note when the session holds no real request (empty, only slash commands, only
placeholders or warm-ups), or when it learned nothing *and* did no work (no file edits, no
build/test run, fewer than five tool calls): a chat that leaves no trace is not worth a note.

Outcome, from the end of the session: the user's last words ("thanks, works" vs "still
broken"), an interrupt with nothing after it, the last build/test run after the last prompt,
tool calls left unanswered; then the agent's closing words; else `uncertain`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..model import Extraction, Learning, Note, ToolCall, Transcript
from . import HEURISTIC
from . import _asks, _decisions, _runs
from ._keywords import keywords
from ._shell import program
from ._text import Deduper, clean_user_text, clip, scrub, sentence_case, sentences, slugify, words

EXTRACTOR = HEURISTIC
MAX_LEARNINGS = 12
PER_TYPE = {"preference": 4, "convention": 4, "command": 5, "gotcha": 3, "decision": 4, "fact": 4}
PRIORITY = ("preference", "convention", "gotcha", "command", "decision", "fact")  # who wins when over the cap
ORDER = ("preference", "convention", "command", "gotcha", "decision", "fact")  # how they are listed
WORK_TOOL_CALLS = 5
MAX_TITLE = 72
PROSE_SCAN = 1500  # of a prompt read for keywords: past that it is usually pasted material

_PLACEHOLDER = re.compile(r"^(?:\[REDACTED[^\]]*\]|warmup|\.+|\s*)$", re.I)
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
_CONTINUATION = re.compile(r"^\s*this session is being continued from a previous conversation", re.I)
_PLAN_APPROVED = re.compile(r"## Approved Plan:\s*(?P<plan>.+)$", re.S)


@dataclass
class _Session:
    """What the rules need from a transcript, gathered in one pass over its turns."""

    prompts: list[str] = field(default_factory=list)  # the person's own requests, cleaned
    commands: int = 0  # slash commands
    compactions: list[str] = field(default_factory=list)
    plans: list[str] = field(default_factory=list)  # accepted plans
    rejections: list[str] = field(default_factory=list)  # words typed when rejecting a tool call
    calls: list[ToolCall] = field(default_factory=list)  # main-chain tool calls, in order
    side_calls: list[ToolCall] = field(default_factory=list)  # subagents' tool calls
    tail_start: int = 0  # index in `calls` of the first call after the last prompt
    last_user_kind: str = ""
    closing: str = ""  # the agent's last words
    runs: list[_runs.Run] = field(default_factory=list)  # build/test runs among `calls`
    side_runs: list[_runs.Run] = field(default_factory=list)
    edits: list[ToolCall] = field(default_factory=list)  # file edits, subagents' included


def _gather(transcript: Transcript) -> _Session:
    s = _Session()
    for turn in transcript.turns:
        if turn.sidechain:
            s.side_calls.extend(turn.tool_calls)
            continue
        if turn.role == "assistant":
            s.calls.extend(turn.tool_calls)
            if turn.text.strip():
                s.closing = turn.text
            for call in turn.tool_calls:
                _plan_and_rejection(s, call)
            continue
        if turn.kind == "compact_summary":
            s.compactions.append(turn.text)
        elif turn.kind == "command":
            s.commands += 1
        elif turn.kind in ("prompt", "queued", "interrupt"):
            s.last_user_kind = turn.kind
            if turn.kind == "interrupt":
                continue
            text = clean_user_text(turn.text)
            if _PLACEHOLDER.match(text):
                continue
            if _CONTINUATION.match(text):  # a recap the source did not mark as one
                s.compactions.append(text)
                continue
            if _asks.is_plan_paste(text):
                s.plans.append(text)
            s.prompts.append(text)
            s.tail_start = len(s.calls)
            s.closing = ""
    s.runs, s.side_runs = _runs.runs(s.calls), _runs.runs(s.side_calls)
    s.edits = [c for c in s.calls + s.side_calls if c.name in _runs.EDIT_TOOLS and not c.is_error]
    return s


def _plan_and_rejection(s: _Session, call: ToolCall) -> None:
    if call.name == "ExitPlanMode" and call.answered:
        if not call.is_error:
            plan = call.input.get("plan")
            if not isinstance(plan, str) and (approved := _PLAN_APPROVED.search(call.output)):
                plan = approved.group("plan")
            if isinstance(plan, str) and plan.strip():
                s.plans.append(plan)
    if call.is_error and (reason := _asks.rejection_reason(call.output)):
        s.rejections.append(reason)


def _learnings(s: _Session) -> list[Learning]:
    found: dict[str, list[str]] = {t: [] for t in ORDER}
    for text in s.prompts + s.rejections:
        for kind, statement in _asks.rules_from(text):
            found[kind].append(statement)
    found["command"] += _runs.command_learnings(s.runs + s.side_runs)
    found["gotcha"] += _runs.gotchas(s.runs, s.calls)
    for plan in s.plans:
        if decision := _decisions.from_plan(plan):
            found["decision"].append(decision)
    for summary in s.compactions:
        for kind, text in _decisions.from_compaction(summary):
            found[kind].append(text)
    return _select(found)


def _select(found: dict[str, list[str]]) -> list[Learning]:
    """Dedupe within each type, cap each type and the total, list them in a stable order."""
    kept: dict[str, list[str]] = {t: [] for t in ORDER}
    total = 0
    for kind in PRIORITY:
        near = Deduper()  # commands are deduped by family already; prose by wording
        for text in found[kind]:
            if total >= MAX_LEARNINGS or len(kept[kind]) >= PER_TYPE[kind]:
                break
            if text not in kept[kind] and (kind == "command" or near.add(text)):
                kept[kind].append(text)
                total += 1
    return [Learning(kind, text) for kind in ORDER for text in kept[kind]]


def _title(transcript: Transcript, s: _Session) -> str:
    """A plan's title, the source's title, a compaction's stated intent, else the first real request."""
    if s.prompts and _asks.is_plan_paste(s.prompts[0]) and (title := _decisions.plan_title(s.prompts[0])):
        return clip(title, MAX_TITLE)
    if _good_title(transcript.title):
        return clip(transcript.title or "", MAX_TITLE)
    for summary in s.compactions[:1]:  # it recaps the session from its start, better than a mid-way prompt
        if intent := _decisions.intent(summary):
            return sentence_case(clip(intent, MAX_TITLE)).rstrip(".")
    for prompt in s.prompts:
        if _GREETING.match(prompt) or len(words(prompt)) < 2:
            continue
        said = sentences(_asks.own_words(prompt))
        # A standing rule stated first ("Never use emoji. Fix the sync.") is not what the session is about.
        first = next((x for x in said if not _asks.rules_from(x)), said[0] if said else "")
        request = _asks.strip_filler(scrub(first)).rstrip("?.!:")
        if len(words(request)) >= 2:
            return sentence_case(clip(request, MAX_TITLE)).rstrip(".")
    return "Untitled session"


def _good_title(title: str | None) -> bool:
    """The source's own title (ai-title, or a summary whose leaf is in this file) when it reads as one."""
    if not title:
        return False
    return 8 <= len(title) <= 80 and len(title.split()) >= 2 and not title.startswith(("<", "/", "["))


def _outcome(s: _Session) -> tuple[str, str]:
    """(outcome, how it ended: words that complete "It ended …") from the end of the session."""
    tail = s.calls[s.tail_start :]
    tail_runs = [r for r in s.runs if r.index >= s.tail_start and not r.shell.meta]
    last_prompt = s.prompts[-1] if s.prompts else ""
    if s.last_user_kind == "interrupt" and not tail:
        return "partial", "with the user interrupting"
    if _USER_NEGATIVE.search(last_prompt) and not any(r.ok for r in tail_runs):
        return "fail", "with the user reporting it still did not work"
    opening = next(iter(sentences(last_prompt)), "")
    short_praise = len(words(last_prompt)) <= 12 or len(words(opening)) <= 6
    if _USER_POSITIVE.search(opening if len(words(last_prompt)) > 12 else last_prompt) and short_praise and not tail_runs:
        return "success", "with the user confirming it works"
    if tail_runs:
        last = tail_runs[-1]
        return ("success", f"with `{last.shell.text}` passing") if last.ok else (
            "fail", f"with `{last.shell.text}` failing")
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
        return ("success", f"with `{last.shell.text}` passing") if last.ok else (
            "fail", f"with `{last.shell.text}` failing")
    return "uncertain", "without a clear signal of success or failure"


def _summary(s: _Session, outcome: tuple[str, str], cwd: str | None) -> str:
    parts = []
    requests = [p for p in s.prompts if not _GREETING.match(p)]
    if requests:
        first = requests[0]
        request = _asks.strip_filler(" ".join(sentences(_asks.own_words(first))[:2]))
        if _asks.is_plan_paste(first):
            request = f"implement the plan \"{_decisions.plan_title(first) or 'given'}\""
        request = clip(scrub(request), 220).rstrip(".")
        if re.match(r"[A-Z][a-z]", request):
            request = request[0].lower() + request[1:]
        parts.append(f"The user asked: {request}{'' if request.endswith(('?', '!', '…')) else '.'}")
        if follow := sum(1 for p in requests[1:] if not _ACK.match(p)):
            parts.append(f"{follow} follow-up request{'s' if follow > 1 else ''} came after.")
    if s.compactions and (intent := _decisions.intent(s.compactions[0])):
        parts.append(f"Earlier context (compacted): {clip(intent, 200).rstrip('.')}.")
    parts.append(_work_done(s, cwd))
    label, ending = outcome
    parts.append(f"It ended {ending} ({label}).")
    return " ".join(p for p in parts if p)


def _work_done(s: _Session, cwd: str | None) -> str:
    inside = [c.file_path for c in s.edits if c.file_path and (not cwd or not c.file_path.startswith("/")
                                                                or c.file_path.startswith(cwd))]
    edited = list(dict.fromkeys(path.rsplit("/", 1)[-1] for path in inside))
    shell = sum(1 for c in s.calls if c.command)
    passed = [r.shell.text for r in s.runs if r.ok and not r.shell.meta]
    families = list(dict.fromkeys(passed or [r.shell.text for r in s.runs if not r.shell.meta]))
    done = []
    if edited:
        shown = ", ".join(edited[:4]) + (f" and {len(edited) - 4} more" if len(edited) > 4 else "")
        done.append(f"edited {len(edited)} file{'s' if len(edited) > 1 else ''} ({shown})")
    if shell:
        checks = f", including {', '.join(f'`{f}`' for f in families[:3])}" if families else ""
        done.append(f"ran {shell} shell command{'s' if shell > 1 else ''}{checks}")
    others = len(s.calls) - shell - len([c for c in s.calls if c.name in _runs.EDIT_TOOLS])
    if others > 0:
        done.append(f"made {others} other tool call{'s' if others > 1 else ''}")
    if s.side_calls:
        done.append("delegated work to subagents")
    if s.plans:
        done.append("followed an approved plan")
    if not done:
        return "The agent answered without using tools."
    return "The agent " + (", ".join(done[:-1]) + " and " + done[-1] if len(done) > 1 else done[0]) + "."


def _skip_reason(s: _Session, learnings: list[Learning]) -> str | None:
    if not s.prompts and not s.compactions:
        return "only slash commands" if s.commands else "no user request"
    did_work = bool(s.edits) or bool(s.runs) or len(s.calls) + len(s.side_calls) >= WORK_TOOL_CALLS
    if learnings or did_work:
        return None
    n, calls = len(s.prompts), len(s.calls) + len(s.side_calls)
    if not calls:
        return f"too short: {n} prompt{'s' if n != 1 else ''}, no tool use, nothing learned"
    return f"nothing learned: {n} prompt{'s' if n != 1 else ''}, {calls} tool call{'s' if calls != 1 else ''}, no edits or builds"


def extract(transcript: Transcript, *, project: str) -> Extraction:
    """Distil one transcript into a note, or say why it is not worth one (a skip).

    Args:
        transcript: the session, normalised and redacted by the caller.
        project: the project slug of the session's scope.

    Returns:
        `Extraction(note=Note(...))`, or `Extraction(note=None, reason=...)` for a skip.
    """
    s = _gather(transcript)
    learnings = _learnings(s)
    if reason := _skip_reason(s, learnings):
        return Extraction(note=None, reason=reason)
    title = _title(transcript, s)
    outcome = _outcome(s)
    all_calls = s.calls + s.side_calls
    note = Note(
        session=transcript.ledger_id,
        agent=transcript.agent,
        project=project,
        title=title,
        summary=_summary(s, outcome, transcript.cwd),
        learnings=learnings,
        cwd=transcript.cwd,
        git_branch=transcript.git_branch,
        started=transcript.started,
        ended=transcript.ended,
        outcome=outcome[0],
        extractor=EXTRACTOR,
        keywords=keywords(
            prose=[_asks.own_words(p)[:PROSE_SCAN] for p in s.prompts] + s.compactions + s.plans,
            commands=[r.shell.text for r in s.runs + s.side_runs],
            programs=[program(c.command) for c in all_calls if c.command],
            files=[c.file_path for c in s.edits if c.file_path],
            read=[c.file_path for c in all_calls if c.name not in _runs.EDIT_TOOLS and c.file_path],
            tools=[c.name for c in all_calls],
        ),
        slug=slugify(title),
    )
    return Extraction(note=note)
