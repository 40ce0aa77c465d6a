"""One pass over a transcript: the session as the learners read it.

A session is a list of *exchanges*: what the person said (a prompt, a prompt queued while the agent
worked, the words typed when rejecting a tool call, a plan they approved, or a compaction summary)
and the agent's work until the person spoke again — its texts (the last one is its *answer*) and
its tool calls. An exchange that follows an interruption or a rejected tool call is a *correction*:
the person stopped the agent to redirect it. Also gathered: accepted plans, build/test runs, file
edits.

Who wrote what is the sources' mark (memgit.core.model: a turn's kind and origin, a call's
`declined` and `harness`); nothing here knows an agent's format. Harness text is never read: not
as the person's words, not as a tool's output.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memgit.core.model import HARNESS, ToolCall, Transcript
from memgit.extract.tools import is_edit
from memgit.extract.tools import kind as tool_kind
from memgit.extract.heuristic import shell
from memgit.extract.heuristic.text import Unit, clean_user_text, own_words, points_at_document, units

# A prompt with nothing in it: a redacted capture, a warm-up, dots.
_PLACEHOLDER = re.compile(r"^(?:\[REDACTED[^\]]*\]|warmup|\.+|\s*)$", re.I)


@dataclass(frozen=True, slots=True)
class Run:
    """One answered shell call that built, tested, linted or ran the project."""

    index: int  # position in the session's ordered main-chain tool calls
    call: ToolCall
    shell: shell.Shell
    ok: bool

    @property
    def command(self) -> str:
        return shell.verbatim(self.call.command or "")


@dataclass(slots=True)
class Exchange:
    """What the person said and what the agent did until they spoke again."""

    said: str  # the person's own words: cleaned, pasted logs and code left out ("" for a summary)
    kind: str  # "prompt" | "queued" | "rejection" | "compact_summary" | "plan" | "start"
    # `said` is the person's words for a prompt, a queued prompt and a rejection, and the plan itself
    # (the agent's, approved by the person) for a plan.
    correction: bool = False  # right after the person interrupted the agent or rejected a tool call
    pasted: str = ""  # what the person pasted (logs, errors), when they did
    texts: list[str] = field(default_factory=list)  # the agent's texts, in order
    first_call: int = 0  # index of its first tool call in Session.calls
    calls: list[ToolCall] = field(default_factory=list)

    @property
    def answer(self) -> str:
        """The agent's last words before the person spoke again."""
        return self.texts[-1] if self.texts else ""


@dataclass
class Session:
    exchanges: list[Exchange] = field(default_factory=list)
    compactions: list[str] = field(default_factory=list)
    instructions: list[str] = field(default_factory=list)  # the project's instruction files, as loaded
    plans: list[str] = field(default_factory=list)  # accepted plans
    commands: int = 0  # slash commands
    calls: list[ToolCall] = field(default_factory=list)  # main-chain tool calls, in order
    side_calls: list[ToolCall] = field(default_factory=list)  # subagents' tool calls
    runs: list[Run] = field(default_factory=list)  # build/test runs among `calls`
    side_runs: list[Run] = field(default_factory=list)
    edits: list[ToolCall] = field(default_factory=list)  # file edits, subagents' included
    reports: list[str] = field(default_factory=list)  # what subagents reported back (Task/Agent results)
    # (the exchange where the person turned a plan down, that plan, the plan they approved next)
    replaced_plans: list[tuple[Exchange, str, str]] = field(default_factory=list)
    last_user_kind: str = ""
    tail_start: int = 0  # index in `calls` of the first call after the last prompt
    cwd: str | None = None
    hooks: list[tuple[str, str, str]] = field(default_factory=list)  # the harness's hook runs (Transcript.hooks)
    _units: dict[str, tuple[Unit, ...]] = field(default_factory=dict, init=False, repr=False, compare=False)

    def units(self, text: str) -> tuple[Unit, ...]:
        """`text` cut into units once per session: every learner reads the same units of an answer."""
        cut = self._units.get(text)
        if cut is None:
            cut = self._units[text] = tuple(units(text))
        return cut

    @property
    def requests(self) -> list[Exchange]:
        """The exchanges that open with the person's own words."""
        return [x for x in self.exchanges if x.said and x.kind in ("prompt", "queued", "plan")]

    @property
    def closing(self) -> str:
        """The agent's last words in the session (its final summary, usually)."""
        for exchange in reversed(self.exchanges):
            if exchange.texts:
                return exchange.answer
        return ""


def read(transcript: Transcript) -> Session:
    """Gather what the learners need from a transcript, in one pass over its turns."""
    s = Session(cwd=transcript.cwd, hooks=list(transcript.hooks))
    current = Exchange("", "start")
    s.exchanges.append(current)
    interrupted = False
    turned_down: list[tuple[Exchange, str]] = []  # plans declined, until one is approved

    def approved(plan: str) -> None:
        s.plans.append(plan)
        s.replaced_plans.extend((at, old, plan) for at, old in turned_down)
        turned_down.clear()

    def open_exchange(said: str, kind: str, pasted: str = "") -> Exchange:
        nonlocal interrupted
        exchange = Exchange(said, kind, correction=interrupted, pasted=pasted, first_call=len(s.calls))
        interrupted = False
        s.exchanges.append(exchange)
        return exchange

    for turn in transcript.turns:
        if turn.sidechain:
            s.side_calls.extend(turn.tool_calls)
            continue
        if turn.role == "assistant":
            if turn.text.strip():
                current.texts.append(turn.text)
            for call in turn.tool_calls:
                s.calls.append(call)
                current.calls.append(call)
                if tool_kind(call) == "subagent" and call.answered and not call.is_error and call.output.strip():
                    s.reports.append(call.output)
                if tool_kind(call) == "plan" and call.answered and call.declined is None and not call.is_error:
                    if plan := _plan_of(call):
                        approved(plan)
                if call.declined is not None:
                    interrupted = True
                    if call.declined and (words := clean_user_text(call.declined)):
                        current = open_exchange(words, "rejection")
                        interrupted = True  # what the agent does next answers the same correction
                    if tool_kind(call) == "plan" and (plan := _plan_of(call)):
                        turned_down.append((current, plan))
            continue
        if turn.origin == HARNESS:
            if turn.kind == "interrupt":
                s.last_user_kind = "interrupt"
                interrupted = True
            continue  # what the harness put in the person's turn: never their words
        if turn.kind == "instructions":
            s.instructions.append(turn.text)
        elif turn.kind == "compact_summary":
            s.compactions.append(turn.text)
            current = open_exchange("", "compact_summary")
        elif turn.kind == "command":
            s.commands += 1
        elif turn.kind == "plan":
            s.last_user_kind = turn.kind
            approved(turn.text)
            current = open_exchange(turn.text, "plan")
            s.tail_start = len(s.calls)
        elif turn.kind in ("prompt", "queued"):
            s.last_user_kind = turn.kind
            text = clean_user_text(turn.text)
            if _PLACEHOLDER.match(text):
                continue
            said = own_words(text)
            pasted = text[len(said):].strip() if len(said) < len(text) and not points_at_document(said) else ""
            current = open_exchange(said or text[:200], turn.kind, pasted)
            s.tail_start = len(s.calls)
    s.runs, s.side_runs = runs(s.calls), runs(s.side_calls)
    # An edit left unanswered (the session ended, or the person interrupted the write) may have
    # happened; one declined or refused did not.
    s.edits = [c for c in s.calls + s.side_calls if is_edit(c) and not c.is_error and (c.ran or not c.answered)]
    s.exchanges = [x for x in s.exchanges if x.kind != "start" or x.texts or x.calls]
    return s


def runs(calls: list[ToolCall]) -> list[Run]:
    """The calls that built, tested, linted or ran the project: those that ran (not declined or refused)."""
    found = []
    for index, call in enumerate(calls):
        if call.ran and (parsed := shell.parse(call.command)):
            found.append(Run(index, call, parsed, not shell.failed(call.output, call.is_error)))
    return found


def _plan_of(call: ToolCall) -> str | None:
    plan = call.input.get("plan")
    return plan if isinstance(plan, str) and plan.strip() else None

