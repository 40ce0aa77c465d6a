"""Standing or one-off: is a person's sentence a rule meant beyond the task at hand?

A preference or convention is *standing* when it says so or shows it:

- it is stated in general terms: "always", "never", "from now on", "in this repo", "by default",
  "whenever", "for every change";
- it states the person's own taste or the team's practice: "I prefer", "I like", "we use";
- it chooses between alternatives the agent would pick again: "use X instead of Y", "X, not Y",
  "rather than";
- it pushes back on a choice the agent made, in terms that outlive the task: "don't …", "no need
  to …", "too complex", "reuse …", "why did you …", "we should …";
- it was written into the project's instruction file (CLAUDE.md, AGENTS.md, GEMINI.md) — decided
  where the learning is made, not here.

It is *one-off* when it steers the task in progress: a next step ("commit it", "now run it again",
"fix the three top items"), a pointer into this session ("fix 6", "scenario 1", "line 363", "as
suggested", "the findings"), an approval ("the current way is OK"), or a question that pushes back
on nothing. When in doubt a sentence is one-off: it may stay in its session's note, where search
finds it, but never reaches the briefing or the global scope.

Pure functions over text; the extractor and the consolidator call the same ones.
"""

from __future__ import annotations

import re

from memgit.extract.heuristic.candidate import concreteness

CORRECTION = "The user corrected the agent:"
INSTRUCTED = ("Project instructions:", "Project rule")  # learnings made from the project's instruction file
REMEMBERED = "Saved to the agent's memory:"  # what it wrote into its own memory (memgit.extract.heuristic.memories)
CI, LINTING, GIT_HOOKS = "CI (", "Linting (", "Git hooks ("  # how memgit.extract.heuristic.checks opens them
CONFIGURED = (CI, LINTING, GIT_HOOKS)  # learnings made from the project's CI, linter or git hooks configuration

_FILLER = re.compile(
    r"^(?:(?:hey|hi|hello|ok(?:ay)?|yes|yeah|so|oh|well|right|also|and|but|btw|then|now|next|just|please|pls|"
    r"first|finally|great|perfect|thanks?|cool|nice|good|sure|alright)\b[,!.:]?\s*)+",
    re.I,
)
# Temporal or scope generality: the rule is meant beyond this task.
_ALWAYS = (r"always|never|from now on|going forward|in (?:the )?future|henceforth|from here on|by default|"
           r"as a (?:general )?rule|in general|generally|at all times|every time|each time|whenever|"
           r"in (?:this|our|the) (?:repo|repository|project|codebase|code ?base|team|company|org)|"
           r"(?:don'?t|do not) ever|ever again|no matter")
# "for every change", "on all pushes": general as a rule, but in a proposal to look into something ("I think
# we should look at what we calculate at each shadow branch state") it counts the things of one task.
_EVERY = r"(?:for|on|in|with|after|before|at) (?:any|every|all|each) (?!of (?:these|those|them|the)\b)"
_GENERAL = re.compile(rf"\b(?:{_ALWAYS}|{_EVERY})\b", re.I)
_GENERAL_ALWAYS = re.compile(rf"\b(?:{_ALWAYS})\b", re.I)
# A proposal for the task in progress ("I think we should look at …", "maybe we should use …").
_PROPOSING = r"(?:(?:I think|I guess|maybe|perhaps|so)\s+)?(?:we|you) (?:should|could|need to|might)"
_LOOK_INTO = re.compile(_PROPOSING + r" (?:also )?(?:look|check|investigate|debug|analy[sz]e|see|explore|examine|"
                        r"inspect|dig|print|log|trace)\b", re.I)
# The person's own taste, or the team's practice.
_FIRST_PERSON = re.compile(
    r"\b(?:prefer(?:s|red)?|I(?: would|'d) (?:actually |really )?(?:prefer|rather|like|love|want)|the user (?:prefers|likes|dislikes|wants|would rather|never|always)|I (?:prefer|like|dislike|hate|"
    r"love|(?:really )?(?:don'?t|do not) like|(?:would|'d) (?:actually |really )?(?:prefer|rather|like|love|want)|want you to|"
    r"(?:don'?t|do not) want (?:you|to see|any))|we (?:always |usually |only |normally )?(?:use|prefer|keep|"
    r"write|follow|put|run|do not|don'?t)|the (?:project|team|repo) (?:always |usually |only )?(?:uses|prefers|follows)|"
    r"our (?:convention|rule|style|practice|policy))\b",
    re.I,
)
# Where the team keeps things: a practice of this project ("keep our docs in Linear"), not a taste for all.
_PRACTICE = re.compile(r"\b(?:keep|put|store|track|document|write|log|record)\b[^.?!]{0,40}\b(?:our|my)\b", re.I)
# A choice between alternatives, which the agent would otherwise make again.
_CHOICE = re.compile(
    r"\binstead of\b|\brather than\b|\b(?:use|prefer|pick|choose|keep|stick (?:to|with)|go with|switch to)\s+"
    r"[^.;?!]{1,60}?,?\s+(?:not|over|and not|but not)\s+\S|\b(?:not|never)\s+[^.;?!]{1,40}?,\s*(?:but|use)\s+\S",
    re.I,
)
# Too much of something: the words of a judgement of what the agent built.
_TOO_MUCH = (r"too (?:complex|complicated|verbose|long|many|much|slow|big|noisy)|over-?engineer\w*|overkill|"
             r"over-?complicat\w*|unnecessar\w*")
_SO = r"(?:so |very |really |that |too |particularly |all that )?"  # "not so useful" judges as "not useful" does
# A judgement of what the agent built, said as one (not asked): the taste outlives the task.
_JUDGEMENT = re.compile(
    rf"\b(?:I (?:didn'?t|don'?t|do not) (?:find|like)|not {_SO}(?:helpful|useful|needed|necessary|what I)|{_TOO_MUCH}|"
    r"feels? (?:complex|complicated|wrong|heavy|clunky|hacky))\b",
    re.I,
)
# Judging what the agent built, said or asked: a taste that outlives the task, even when it points at this work.
_EVALUATIVE = re.compile(
    rf"{_JUDGEMENT.pattern}|\b(?:I (?:didn'?t|don'?t|do not) (?:think|want)|(?:do|did) (?:we|you) (?:even |really )?need|"
    r"why (?:did|do|would) you)\b",
    re.I,
)
# Pushing back on what the agent chose or built, in terms that outlive the task.
_PUSHBACK = re.compile(
    r"^(?:no|nope|not|wait|actually|hmm+|hold on|oh no)\b|\b(?:don'?t|do not|doesn'?t need|no need|shouldn'?t|should not|must not|mustn'?t|never|avoid|stop \w+ing|"
    r"we should|you should|should (?:be|use|run|stay|keep|go|live|not|always|only|also)|must (?:be|use|run|"
    r"stay|keep|go|always|only|also)|has to|have to|needs? to be|why (?:did|do|would|are|is) you|"
    rf"(?:do|did) (?:we|you) (?:even |really )?need|not {_SO}(?:helpful|needed|necessary|useful|what)|{_TOO_MUCH}|"
    r"re-?use|duplicat\w*|de-?dup\w*|consolidat\w*|simpler|simplif\w*|simplicity|keep it simple|hard-?cod\w*|"
    r"I (?:don'?t|do not) (?:think|want|like|need)|I didn'?t (?:find|want|ask|like|mean)|"
    r"(?:I think|maybe|perhaps) we (?:should|could|need))\b",
    re.I,
)
# A next step of the task in progress: an imperative of the work itself.
_TASK_VERB = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|let'?s |please |go ahead and |now |then |also |and |only |"
    r"just |further |ok,? |okay,? )*(?:fix|add|commit|push|implement|plan|make|update|create|write|run|rerun|re-run|analy[sz]e|"
    r"check|verify|review|investigate|debug|do|continue|proceed|start|try|change|remove|delete|rename|move|extend|"
    r"apply|adopt|repeat|test|build|deploy|merge|rebase|revert|roll ?back|undo|show|tell|explain|list|summari[sz]e|"
    r"look|open|read|find|search|compare|describe|document|refactor|improve|optimi[sz]e|clean ?up|set ?up|install|"
    r"upgrade|bump|release|publish|prepare|draft|generate|split|combine|consolidate|introduce|enable|disable|"
    r"resolve|address|handle|finish|complete|go|retry|redo|again|give|put|insert|replace|restore|integrate|port|"
    r"convert|migrate|reproduce|trace|profile|benchmark|measure|estimate|evaluate|assess|discuss|answer|ask|"
    r"send|post|reply|note|mark|tag|close|reopen|stage|squash|amend|cherry-?pick)\b",
    re.I,
)
# A pointer into this session: the numbered item, the line, what was suggested or found.
_POINTER = re.compile(
    r"\b(?:(?:fix|item|issue|point|option|scenario|step|finding|problem|bug|suggestion|change|phase|part|"
    r"case|variant|approach|proposal|alternative|solution|task|todo|number)\s*#?\d+[a-z]?\b|"
    r"(?:option|variant|approach|alternative|solution|plan|scenario)\s+[A-D]\b|"
    r"lines? \d+|#\d+|the (?:first|second|third|last|top|other|remaining)\b|as (?:you )?suggested|"
    r"(?:the|your) (?:suggested|proposed|recommended|following|above|findings|points|suggestions|results|"
    r"changes|plan|fixes|issues)\b|these|those|here\b|right now|for now|this time|again\b|"
    r"(?:on|with|to|for|at|about|in) (?:that|this|it|them)\s*[?.!]*\s*$)",
    re.I,
)
_APPROVAL = re.compile(
    r"^(?:(?:the|this|that|it|your|current)\b[^.?!]{0,60}\b(?:is|are|looks?|seems?) (?:ok(?:ay)?|fine|good|"
    r"great|correct|right|perfect)|(?:looks|sounds) (?:good|great|fine|ok)|lgtm|ship it|go ahead|"
    r"(?:yes|ok(?:ay)?|sure|fine|good|great|perfect|thanks?)\b[^.?!]{0,30}$)",
    re.I,
)
_QUESTION = re.compile(
    r"\?\s*$|^(?:how|what|when|where|which|who|why|is|are|does|do|did|can|could|would|will|should|shall|"
    r"has|have|was|were)\b",
    re.I,
)
# The sentences of what a person said; a norm or a judgement must stand in one of them.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# A call to reuse what exists rather than build it twice: a choice the agent would make again.
_REUSE = re.compile(r"\b(?:re-?use|duplicat\w*|de-?dup\w*|consolidat\w*)\b", re.I)
# A norm: what must or must not be done, said as a rule rather than as the next step.
_FORBID = re.compile(r"^(?:please\s+)?(?:don'?t|do not|never|avoid|stop \w+ing|no need to)\b", re.I)
_NORM = re.compile(
    r"\b(?:should(?:n'?t| not)?|must(?:n'?t| not)?|has to|have to|needs? to be|doesn'?t need|no need to)\b|"
    r"\bI (?:don'?t|do not) (?:think|want|like|need)\b|\bI didn'?t (?:find|want|ask|like|mean)\b|"
    r"\b(?:simpler|simplif\w*|keep it simple|hard-?cod\w*)\b",  # (judgements: _JUDGEMENT, asked first)
    re.I,
)
# A proposal for the task in progress ("I think we should look at …", "maybe we should use …"): no norm.
_PROPOSAL = re.compile(rf"\b{_PROPOSING}\b", re.I)
# A request of the task in progress inside the sentence: "…, can you switch and write …".
_ASKED = re.compile(r"\b(?:can|could|would|will) you\b", re.I)  # a request put as a question
_REQUEST = re.compile(rf"{_ASKED.pattern}|\bplease\b|\blet'?s\b", re.I)
# The norm of an indirect question ("which directories should be added"): what the task is to find out.
_INDIRECT = re.compile(r"^[^.?!]*?\b(?:which|what|where|whether|how|if|when|why)\b[^.?!,;]{0,80}?"
                       r"\b(?:should|must|has to|have to|needs? to be)\b", re.I)
_QUOTED = re.compile(r'^[^"]*:\s*"(?P<said>.*)"\s*$', re.S)


def words_of(text: str) -> str:
    """The person's words in a learning: the quote of a correction, else the text; leading filler dropped."""
    text = text.strip()
    if text.startswith(("The user ", CORRECTION)) and (quoted := _QUOTED.match(text)):
        text = quoted.group("said")  # "The user prefers simple designs: "…"": what they said is the evidence
    return _FILLER.sub("", text).strip()


def general(text: str) -> bool:
    return _GENERAL.search(text) is not None


def first_person(text: str) -> bool:
    return _FIRST_PERSON.search(text) is not None


def choice(text: str) -> bool:
    return _CHOICE.search(text) is not None


def pushback(text: str) -> bool:
    return _PUSHBACK.search(text) is not None


def question(text: str) -> bool:
    return _QUESTION.search(text.strip()) is not None


def asks(sentence: str) -> bool:
    """A sentence that asks for work or an answer: a question, or a request of the task ("Analyse when
    the wal files are reset"), as opposed to the context said before it."""
    said = _FILLER.sub("", sentence.strip())
    return question(said) or _TASK_VERB.match(said) is not None


def task_step(text: str) -> bool:
    """A next step of the task in progress, or a pointer into this session; a task that asks what
    should be done ("Analyse which directories should be added") is one too."""
    said = words_of(text)
    return _POINTER.search(said) is not None or (_TASK_VERB.match(said) is not None
                                                 and (not pushback(said) or _INDIRECT.search(said) is not None))


def asks_for_work(text: str) -> bool:
    """Some sentence of what the person said asks for a next step of the task ("Further investigate if
    this relates to the issue", "…, can you rerun it?"): the remark steers its session, whatever else it
    says. A rule said politely ("Please keep the version as it is") asks for nothing."""
    said = words_of(text)
    return any(task_step(part) or _ASKED.search(part) is not None for part in _SENTENCE.split(said) if part.strip())



def approval(text: str) -> bool:
    return _APPROVAL.match(words_of(text)) is not None


def instructed(text: str) -> bool:
    """Made from the project's instruction file (CLAUDE.md, AGENTS.md, …), its CI, linter or git hooks'
    configuration, or what the agent wrote into its own memory: standing by where it stands."""
    return text.startswith((*INSTRUCTED, *CONFIGURED, REMEMBERED))


def states_a_file(norm: str) -> bool:
    """A normalised statement (memgit.consolidate.heuristic.graph.normalise) of a file's state."""
    return norm.startswith(_STATES)


_STATES = tuple(f"{lead.lower()}`" for lead in CONFIGURED)


def configured_file(text: str) -> str | None:
    """The file a statement of the project's configuration describes ("CI (`path`) runs …"), else None:
    such statements tell a file's state, so of two about one file the later holds."""
    lead = next((f"{lead}`" for lead in CONFIGURED if text.startswith(f"{lead}`")), None)
    end = text.find("`)", len(lead)) if lead else -1
    return text[len(lead):end] if lead and end > 0 else None


def standing(text: str) -> bool:
    """A preference or convention meant beyond the task at hand (see the module docstring)."""
    if instructed(text):
        return True
    said = words_of(text)
    if not said or approval(said):
        return False
    if first_person(said) or choice(said) or _PRACTICE.search(said):
        return True
    return any(_general_rule(part) or _lasting_pushback(part) for part in _SENTENCE.split(said) if part.strip())


def _general_rule(sentence: str) -> bool:
    """One sentence stated in general terms: "always", "in this repo" anywhere; "for every …", "on all …"
    not in a proposal to look into something, which is the task's next step."""
    if _GENERAL_ALWAYS.search(sentence):
        return True
    said = _FILLER.sub("", sentence.strip())
    return general(said) and not _LOOK_INTO.match(said)


def _lasting_pushback(sentence: str) -> bool:
    """One sentence that corrects a choice the agent would make again: a judgement of what it built,
    a call to reuse rather than duplicate, or a norm ("don't …", "tests should …"). An interjection
    ("no", "hmm", "wait"), a report of what is broken, a proposal for the task in progress ("I think we
    should start fresh, can you …") or a question about one piece of work is not one."""
    sentence = _FILLER.sub("", sentence.strip())
    if _REUSE.search(sentence) or _FORBID.match(sentence) or _JUDGEMENT.search(sentence):
        return True
    if question(sentence):
        return False  # "why do we need stats for the team?": a challenge of one piece of work
    if task_step(sentence) or _REQUEST.search(sentence):
        return False
    return _NORM.search(_PROPOSAL.sub("", sentence)) is not None


def stated_generally(text: str) -> bool:
    """Standing in every project: stated in general terms or as the person's own taste, as a rule of
    its own (not a quoted remark about one piece of work). The global scope takes a one-project rule
    only when two projects share it."""
    said = words_of(text)
    return said == text.strip() and (general(said) or first_person(said)) and not task_step(said)


def correction_worth_keeping(text: str) -> bool:
    """A person's redirect worth a line in the session's note: not an approval, not a plain question,
    not the next step of the task, not a report of what is broken (a symptom, which the gotchas read);
    whether it stands beyond the task is `standing`'s call."""
    said = words_of(text)
    if not said or approval(said):
        return False
    if _EVALUATIVE.search(said) or general(said) or first_person(said) or choice(said):
        return True
    if _BROKEN.search(said) and not (_NORM.search(said) or _FORBID.match(said)):  # `said` has no filler left
        return False
    if question(said):
        return pushback(said)
    return not task_step(said) or pushback(said)


# What a person reports as broken ("No teams or leads are loading into the pane now", "I don't know why
# this fails"): a symptom, unless it comes with a rule ("don't retry when the build fails").
_BROKEN = re.compile(r"\b(?:(?:is|are|was|were|isn'?t|aren'?t|wasn'?t|weren'?t) (?:not |still |no longer )?"
                     r"(?:loading|working|showing(?: up)?|rendering|updating|saving|running|loaded|shown|rendered|"
                     r"updated|saved)|(?:doesn'?t|don'?t|didn'?t|does not|do not|did not) "
                     r"(?:work|load|show|render|update|save|run)|broken|fails|failing|failed|crash\w*|"
                     r"(?:an|the|this|that) error|nothing (?:shows|happens|loads))\b", re.I)
_REFERS = re.compile(r"\b(?:this|that|these|those|it|them)\b", re.I)
_WORD = re.compile(r"[A-Za-z]{3,}")
MIN_ALONE = 8  # words of three letters or more a remark pointing at "this" or "it" needs to say what it is about


def stands_alone(text: str) -> bool:
    """A person's rule reads without its session: it names what it is about, or points at nothing
    ("any chance we can consolidate this code?" leans on the code the session showed)."""
    said = words_of(text)
    return not _REFERS.search(said) or concreteness(said) > 0 or len(_WORD.findall(said)) >= MIN_ALONE


def told_part(text: str) -> str:
    """A correction as the briefing tells it: its quote up to the last sentence that makes it standing,
    when the person went on to ask for other work ("I think we should run it on all push? Also, would
    you mind fixing the type issues?"): the request was done in its session, the rule holds. MEMORY.md
    and the note keep the whole quote."""
    quoted = _QUOTED.match(text) if text.startswith(CORRECTION) else None
    if quoted is None:
        return text
    parts = [part for part in _SENTENCE.split(quoted.group("said")) if part.strip()]
    marks = [i for i, part in enumerate(parts) if _general_rule(part) or _lasting_pushback(part)
             or first_person(part) or choice(part) or _PRACTICE.search(part)]
    if not marks or marks[-1] + 1 >= len(parts) or not _asks_for_more(parts[marks[-1] + 1]):
        return text
    return f'{CORRECTION} "{" ".join(part.strip() for part in parts[: marks[-1] + 1])}"'


def _asks_for_more(sentence: str) -> bool:
    """A request of other work ("Also, would you mind …", "Can you then …", "Please run …"), not the
    reason said after a rule ("looks like it's very similar?")."""
    said = _FILLER.sub("", sentence.strip())
    return _REQUEST.search(said) is not None or (_TASK_VERB.match(said) is not None and not pushback(said))
