"""Gotchas: an error, its cause when the agent explained one, and what fixed it.

Five places say so:

- the person *reports a problem* ("the redirect doesn't work", a pasted error) and the agent's
  answer says what was wrong or what it changed: "Problem: … Fix: …";
- the agent *explains a failure* it just met (a tool call that failed, then "this fails because …"),
  or names the cause in its text ("The root cause is …");
- an *approved plan* names the cause it was built on ("Root cause: the session cookie is set to
  `SameSite=Strict`"): often the only place a session says why, since its last answer lists changes;
- a build/test command *fails on the environment* (a missing module, a port in use, a wrong
  flag) and passes later in the session: what ran in between (an install, a cleanup, another
  invocation) is the fix;
- a compaction summary's "Errors and fixes" section.

Routine churn is not a gotcha: lint and format findings fixed by editing the file, typos, unused
variables, failures of code still being written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memgit.core.model import Learning, ToolCall
from memgit.core.scan import clip
from memgit.extract.heuristic import compaction
from memgit.extract.heuristic.candidate import Candidate, concreteness, fluff, hedged, monologue, reasoned
from memgit.extract.heuristic.commands import paths_corrected, usable
from memgit.extract.heuristic.filters import drop_opener, is_ephemeral, problem, scrub
from memgit.extract.heuristic.session import Exchange, Run, Session, is_edit
from memgit.extract.heuristic.shell import failed, program, verbatim
from memgit.extract.heuristic.symptoms import symptom
from memgit.extract.heuristic.text import Unit, fit_sentences, sentence_case
from memgit.extract.tools import touched_text

MAX_FIX = 320
MAX_FLAGGED = 5  # of one answer's listed problems (the ranker's cap on gotchas still applies)
MAX_REPORT = 600  # characters of the person's own words in a message that reports a problem
_TROUBLE = re.compile(
    r"\b(?:doesn'?t work|didn'?t work|does not work|did not work|not working|no longer works?|still (?:not|doesn'?t|"
    r"broken|fail\w*|getting|seeing|the same|shows?)|broken|fails|failed|failing|errors?|exception|crash(?:es|ed)?|"
    r"wrong|bug|we lost|is lost|blocked|nothing happens|hangs|stuck|regress\w*|(?:does not|doesn'?t) exist|"
    r"complain(?:s|ts|ing)?|incompatible|outdated)\b",
    re.I,
)
CAUSE = re.compile(
    r"\b(?:because|the (?:root )?(?:issue|problem|error|bug|cause|culprit) (?:is|was)|root cause|turns out|"
    r"caused by|the reason|this happens|happens when|fails? (?:because|when|if|on)|was failing|is failing|"
    r"(?:doesn'?t|does not|don'?t|do not|can'?t|cannot|won'?t) (?:work|support|serve|clone|find|load|resolve|see|"
    r"handle|pick up|run|check out|allow|apply)|isn'?t (?:supported|available|allowed)|not (?:supported|allowed|"
    r"permitted|available)|need(?:s)? to be|must be|only works?|ignor(?:es|ed|ing)|blocked|falls? back|"
    r"returns? early|never (?:called|set|runs?))\b",
    re.I,
)
_CHANGE = re.compile(
    r"\b(?:switched|changed|moved|added|removed|replaced|updated|fixed|set|use[sd]?|now|instead|so that|"
    r"rewrote|wrapped|marked|passed|pinned|renamed)\b",
    re.I,
)
# An answer's sentence that says what the agent did, once its "I've" is gone.
_DONE = re.compile(r"(?:switched|changed|moved|added|removed|replaced|updated|rewrote|wrapped|pinned|renamed|"
                   r"set|made|wired|registered|installed|upgraded|downgraded|reverted)\b", re.I)
# ...and that sentence in a gotcha's fix: it names the code it changed whether the cause was the
# project's code or a library's behaviour, so it says nothing of whether the gotcha bites again.
_DONE_SENTENCE = re.compile(r"(?:(?<=^)|(?<=Fix: )|(?<=[.!] ))" + _DONE.pattern + r".*?(?:[.!](?=\s|$)|$)", re.I)
_CAUSE_HEADING = re.compile(r"root cause|bug analysis|the (?:problem|issue|bug)|what (?:was|went) wrong|"
                            r"why|cause|diagnos|finding|the fix|fix", re.I)
_ROUTINE = re.compile(
    r"\btypo\b|\bunused (?:variable|import|parameter)|declared and not used|redeclared|no new variables|"
    r"\bimport (?:order|sorting)\b|\bformatting\b|\bwhitespace\b|\bindentation\b|\blint(?:er|ing)? (?:error|warning|issue)s?\b",
    re.I,
)
_FIX_PROGRAMS = frozenset(
    "rm mkdir chmod ln cp mv touch export docker kill brew apt apt-get pip pip3 uv npm pnpm yarn bun corepack "
    "nvm pyenv rustup go mise asdf direnv poetry pdm conda make git".split()
)


def learn(s: Session) -> list[Candidate]:
    found: list[Candidate] = []
    for exchange in s.exchanges:
        if exchange.said and exchange.kind in ("prompt", "queued") and _reports_trouble(exchange):
            if candidate := _reported(exchange, s):
                found.append(candidate)
        found += _explained(exchange, s)
        found += _diagnosed(exchange.texts, s)
        found += _admitted(exchange, s)
        found += _flagged(exchange, s)
    for plan in s.plans:  # the diagnosis an approved plan was built on: the final state of the session's analysis
        found += _diagnosed((plan,), s)
    found += _from_runs(s.runs, s.calls)
    for summary in s.compactions:
        found += _from_compaction(summary)
    return [c for c in found if not _ROUTINE.search(c.text)]


def settle(learnings: list[Learning], s: Session) -> list[Learning]:
    """The gotchas about the project's own code that the same session then changed, as facts: the
    cause of one bug, fixed there, does not bite again; it is the story of that fix. Done after
    ranking, so the note keeps the same learnings."""
    if not any(learning.type == "gotcha" for learning in learnings):
        return learnings
    touched = "\n".join(touched_text(call) for call in s.edits)
    return [Learning("fact", learning.text)
            if learning.type == "gotcha" and fixed_here(_DONE_SENTENCE.sub("", learning.text), touched)
            else learning for learning in learnings]


# A symbol of the code named in a learning: `RotateWALFiles`, `Init()`, `metricstore.Shutdown()`,
# `SaveChanges` (a name with a capital or an underscore inside, or called); a library's dotted
# lower-case function (`json.loads`, `typing.cast`) is the library's, not the project's.
_SPAN = re.compile(r"`([^`\n]{3,80})`")
_SYMBOL = re.compile(r"^[A-Za-z_][\w.]*(?:\([^)]*\))?$")


def symbols(text: str) -> set[str]:
    """The names of the project's code a learning quotes (`generate_html([], title)` names generate_html)."""
    found = set()
    for span in _SPAN.findall(text):
        if not _SYMBOL.match(span):
            continue
        called = "(" in span
        name = span.split("(", 1)[0]
        last = name.rsplit(".", 1)[-1]
        if "." in name and not last[:1].isupper():
            continue
        if len(last) >= 4 and (called or last[:1].isupper() or re.search(r"[A-Z_]", last[1:])):
            found.add(last)
    return found


def fixed_here(text: str, touched: str) -> bool:
    """True when a learning quotes a name of the project's code that the session's edits touched."""
    return any(re.search(rf"\b{re.escape(name)}\b", touched) for name in symbols(text)) if touched else False



def _reports_trouble(x: Exchange) -> bool:
    """The person says something broke: an error they pasted, or a short message saying so (a long
    one is more often a pasted document that mentions failures)."""
    if x.pasted and symptom(x.pasted):
        return True
    return len(x.said) <= MAX_REPORT and _TROUBLE.search(x.said) is not None


def _symptom_of(x: Exchange, s: Session) -> str:
    """The error the person pasted (its first meaningful line), else their own words about it."""
    if x.pasted and (found := symptom(x.pasted)):
        return f'"{found[0]}"'
    said = [u.text for u in s.units(x.said)]
    troubled = [t for t in said if _TROUBLE.search(t)] or said
    if not troubled or _HOW_TO.match(troubled[0]):
        return ""
    return clip(_ASKED_FIX.sub("", troubled[0]), 160).rstrip(" .:;,")


# A question how to do something ("How can I enrich the log message to show where the error is
# triggered?") asks for a way, not for a fix: it reports nothing broken, whatever words it holds.
_HOW_TO = re.compile(r"^(?:how (?:can|could|do|should|would) (?:i|we|one|you)|is there a way to|what'?s the (?:best )?way to)\b"
                     r"(?!.*\b(?:fix|solve|resolve|avoid|prevent|get rid|work ?around|stop|debug|why)\b)[^?]*\?$", re.I)


# The ask that ends a report ("…, fix it."): the problem is what comes before it.
_ASKED_FIX = re.compile(r"[,;.]\s*(?:please\s+)?(?:fix|solve|resolve|repair)\s+(?:it|this|that|the (?:problem|issue))"
                        r"(?:\s+please)?\W*$", re.I)


def _fix_units(said: tuple[Unit, ...], cwd: str | None) -> list[str]:
    """The sentences of an answer that say what was wrong or what changed, in the answer's order, at
    most two: the best of them and, when the answer says what it did ("Added `ANALYZE` to …") and the
    best is not that, the best such sentence: a gotcha's fix is what was done, not a second
    sentence on the cause."""
    scored = []
    for unit in said:
        clean = scrub(unit.text, cwd)
        if problem(clean) in (None, "narration") and not fluff(clean):
            clean = drop_opener(clean)
            if problem(clean) or hedged(clean):
                continue
            cause = bool(CAUSE.search(clean)) or bool(_CAUSE_HEADING.search(unit.heading))
            score = 2.0 * cause + 1.0 * bool(_CHANGE.search(clean)) + 0.5 * concreteness(clean) + reasoned(clean)
            if score >= 1.5:
                scored.append((score, unit.index, clean))
    ranked = sorted(scored, key=lambda t: (-t[0], t[1]))
    done = [t for t in ranked[1:] if _DONE.match(t[2])]
    best = ranked[:2] if not done or _DONE.match(ranked[0][2]) else [ranked[0], done[0]]
    return [text for _, _, text in sorted(best, key=lambda t: t[1])]


def _reported(x: Exchange, s: Session) -> Candidate | None:
    sym = scrub(_symptom_of(x, s), s.cwd)
    fixes = _fix_units(s.units(x.answer), s.cwd)
    if not sym or not fixes or is_ephemeral(sym):
        return None
    fix = fit_sentences(fixes, MAX_FIX)
    sym = sym.rstrip(" .")
    stop = "" if sym.endswith(("?", "!", '"')) else "."
    text = f"Problem: {sym}{stop} Fix: {fix}"
    score = 3.0 + 0.5 * bool(CAUSE.search(fix)) + 0.25 * concreteness(fix) + 0.5 * x.correction
    return Candidate("gotcha", text, score, "reported")


def _explained(x: Exchange, s: Session) -> list[Candidate]:
    """A failed call, then the agent saying why: the cause sentence, led by the error."""
    out = []
    if not any(c.is_error or (c.command and failed(c.output, c.is_error)) for c in x.calls):
        return out
    for text in x.texts[:-1] if len(x.texts) > 1 else x.texts:
        for unit in s.units(text):
            clean = drop_opener(scrub(unit.text, s.cwd))
            if problem(clean) or fluff(clean) or not CAUSE.search(clean) or not concreteness(clean) \
                    or monologue(clean) or hedged(clean):
                continue
            score = 2.0 + 0.5 * reasoned(clean) + 0.25 * concreteness(clean)
            out.append(Candidate("gotcha", clean, score, "explained"))
    return out[:2]


DIAGNOSIS = re.compile(
    r"\b(?:root cause|(?:that'?s|this is|here'?s|found|there'?s) (?:the|a) (?:real |actual )?(?:issue|problem|bug|"
    r"culprit)|the (?:real |actual )?(?:issue|problem|bug) (?:is|was) (?:that|in)|caused by|the reason (?:is|was))\b",
    re.I,
)


def _diagnosed(texts: Sequence[str], s: Session) -> list[Candidate]:
    """The agent naming what was wrong ("That's the issue. When …", "The root cause is …"), with the
    sentence after it when that says how the cause does its harm: one statement that reads alone."""
    out = []
    for text in texts:
        said = s.units(text)
        for i, unit in enumerate(said):
            if not DIAGNOSIS.search(unit.text):
                continue
            for j, candidate in enumerate(said[i : i + 2], start=i):
                clean = _statement(candidate, s)
                if clean is None:
                    continue
                if j == i and j + 1 < len(said) and (then := _statement(said[j + 1], s, after=unit)):
                    clean = fit_sentences([clean, then], MAX_FIX)
                out.append(Candidate("gotcha", clean, 3.0 + 0.5 * reasoned(clean) + 0.25 * concreteness(clean),
                                     "diagnosed"))
                break
    return out[:2]


def _statement(unit: Unit, s: Session, *, after: Unit | None = None) -> str | None:
    """A unit as a statement of its own; `after` the unit it would continue, in the same list item or
    paragraph under the same heading (not the next item of a list, not a label)."""
    if after is not None and (unit.heading != after.heading or unit.item or DIAGNOSIS.search(unit.text)):
        return None
    clean = drop_opener(scrub(unit.text, s.cwd))
    if problem(clean) or fluff(clean) or hedged(clean) or monologue(clean):
        return None
    if after is None and not concreteness(clean):  # a continuation may say how without naming anything
        return None
    return clean


_ADMISSION = re.compile(
    r"\b(?:my (?:mistake|bad|apologies|error)|I (?:misread|misunderstood|mistakenly|incorrectly|wrongly|overlooked|"
    r"was wrong|should have)|(?:that|this) was (?:a|my) mistake)\b",
    re.I,
)
_APOLOGY = re.compile(r"^(?:my (?:apologies|bad|mistake)|(?:I'?m )?sorry|oops)\W*$", re.I)
_REMEDY = re.compile(r"^(?:I'?ll|I will|I'?m going to|let me|now I'?ll)\s+(?:now\s+|instead\s+)?", re.I)


def _admitted(x: Exchange, s: Session) -> list[Candidate]:
    """The agent owning up to a mistake of its own ("I misread the `ls` output and thought …"): what
    it got wrong, and what it does instead — the next session should not repeat it."""
    out = []
    for text in x.texts:
        said = [u for u in s.units(text) if not _APOLOGY.match(u.text.strip())]
        for i, unit in enumerate(said):
            if not _ADMISSION.search(unit.text):
                continue
            wrong = scrub(unit.text, s.cwd)
            remedy = next((scrub(_REMEDY.sub("", u.text), s.cwd) for u in said[i + 1 : i + 3] if _REMEDY.match(u.text)), "")
            statement = f"Mistake: {wrong.rstrip(' .')}." + (f" Instead: {sentence_case(remedy)}" if remedy else "")
            if concreteness(statement) and not problem(statement) and not hedged(wrong):
                out.append(Candidate("gotcha", statement, 2.5 + 0.25 * concreteness(statement), "admitted"))
            break
    return out[:1]


# A review's finding, labelled as a problem: "Weak Fallback Encryption: Issue: When the keychain …".
_FLAGGED = re.compile(r"(?:^|:\s)(?:issue|problem|risk|weakness|bug|vulnerability|pitfall|caveat):\s+(?P<finding>\S.*)$",
                      re.I | re.S)

_NEXT_LABEL = re.compile(r",?\s+(?:impact|effect|evidence|recommendation|fix|solution|suggestion|why):\s", re.I)


def _flagged(x: Exchange, s: Session) -> list[Candidate]:
    """The problems the agent's answer lists as such (a code review's `Issue:` items), under their
    topic: known weaknesses of the code the next session should not rediscover."""
    out = []
    for unit in s.units(x.answer):
        match = _FLAGGED.search(unit.text)
        if match is None:
            continue
        topic, finding = unit.text[: match.start()].strip(" :"), _NEXT_LABEL.split(match.group("finding"), 1)[0]
        clean = scrub(f"{topic}: {finding}" if topic else finding, s.cwd).rstrip(" ,;") + "."
        clean = clean[:-1] if clean.endswith("..") else clean
        if concreteness(clean) and not problem(clean) and not hedged(clean) and not monologue(clean):
            out.append(Candidate("gotcha", clean, 3.0 + 0.25 * concreteness(clean), "flagged"))
    return out[:MAX_FLAGGED]


def _from_runs(runs: list[Run], calls: list[ToolCall]) -> list[Candidate]:
    """An environment failure of a command that passed later: what ran in between fixed it."""
    found: list[Candidate] = []
    pending: dict[tuple[str, ...], tuple[Run, str]] = {}
    for run in runs:
        if run.shell.meta:
            continue
        family = run.shell.categories  # another invocation for the same purpose may be the fix
        sym = None if run.ok else symptom(run.call.output, run.shell.categories)
        if family in pending and (run.ok or not sym or sym[0] != pending[family][1]):
            failure, text = pending.pop(family)
            if run.ok and (gotcha := _run_gotcha(failure, text, run, calls[failure.index + 1 : run.index])):
                found.append(Candidate("gotcha", gotcha, 2.5, "run"))
        if sym and sym[1] == "env" and family not in pending:
            pending[family] = (run, sym[0])
    return found[:2]


def _run_gotcha(failure: Run, sym: str, success: Run, between: list[ToolCall]) -> str | None:
    if not usable(success) or is_ephemeral(failure.command + sym):
        return None
    head = f'`{failure.command}` failed with "{sym}"'
    if fixes := _fix_commands(between):
        return f"{head}; running `{'` and `'.join(fixes)}` fixed it."
    # From another directory is no workaround, and a run with its paths corrected is a typo found.
    if not _same_but_paths(success.command, failure.command) and not paths_corrected(failure.command, success.command):
        return f"{head}; `{success.command}` works."
    return None


def _same_but_paths(a: str, b: str) -> bool:
    """The same command, but for a path given absolute in one and relative in the other."""
    x, y = a.split(), b.split()
    return len(x) == len(y) and all(
        p == q or p.endswith("/" + q) or q.endswith("/" + p) for p, q in zip(x, y))


def _fix_commands(calls: list[ToolCall]) -> list[str]:
    fixes: list[str] = []
    for call in calls:
        if is_edit(call) or not call.command or not call.answered or failed(call.output, call.is_error):
            continue
        command = verbatim(call.command)
        if program(command) in _FIX_PROGRAMS and len(command) <= 100 and "\n" not in command \
                and "`" not in command and not is_ephemeral(command) and command not in fixes:
            fixes.append(command)
    return fixes[:2]


def _from_compaction(summary: str) -> list[Candidate]:
    found = []
    for text, children in compaction.bullets(compaction.section(summary, "error")):
        if text.lower().startswith("user feedback"):
            continue
        fix = next((c for c in children if re.match(r"^(?:fix(?:ed)?|solution|resolved)\b", c, re.I)), None)
        if fix is None and (inline := re.search(r"\b[Ff]ixed by\b\s*(.+)$", text)):
            fix, text = "Fixed by " + inline.group(1), text[: inline.start()].rstrip(" .-—")
        if not fix:
            continue
        error = re.sub(r"^(?:error|problem|issue)\s*:\s*", "", text, flags=re.I).rstrip(" .")
        if error.endswith("?"):
            continue  # the person asking ("you got an API error?"), not the error
        fix = re.sub(r"^(?:fix(?:ed)?|solution|resolved)\s*(?:by)?\s*:?\s*", "", fix, flags=re.I)
        candidate = f"Problem: {error}. Fix: {fix}"
        found.append(Candidate("gotcha", candidate, 2.75 + 0.25 * concreteness(candidate), "compaction"))
    return found[:3]
