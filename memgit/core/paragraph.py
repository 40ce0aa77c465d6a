"""A heuristic note's paragraph as search indexes it: the session's words, without memgit's frame.

The extractor (memgit.extract.heuristic.summary) writes every note's paragraph in one form: "The user
asked: … 2 follow-up requests came after. In the end: … The agent edited 2 files (a.go, b.go), ran 5
shell commands, including `make test`, made 9 other tool calls and followed an approved plan. It ended
with `make test` passing (success)." Its frame words ("user", "requests", "shell commands", "tool calls",
"plan", "success") are in every note, so in the index they weighed as much as a session's own words did,
and a prompt about tools, commands or users met every note of a project, or (each such word then weighing
nothing) missed the one note that is about them. `indexed` keeps what the session said: the request, its
closing statements, the files and the commands ("Asked: … Done: … Edited a.go, b.go; ran `make test`.").
The outcome stays in the note's front matter.
"""

from __future__ import annotations

WORK = ("Edited ", "Ran `")  # how `indexed` opens the sentence of files and commands
ASKED, EARLIER, DONE = "Asked: ", "Earlier: ", "Done: "  # the labels `indexed` puts on the frame's sentences
# Patterns as text, compiled (and cached) by `re` in `indexed`, the index writer's side: the prompt
# hook reads indexed text with the plain string functions below and imports no pattern machinery.
_ASKED = r"\bThe user asked: (?:implement the plan (?=\"))?"  # a plan's request is its title
_FOLLOW_UPS = r"\s*\b\d+ follow-up requests? came after\."
_EARLIER = r"\bEarlier context \(compacted\): "
_DONE = r"\bIn the end: "
# "The agent edited …, ran …, made … and followed ….": the sentence before the ending, to its end (a
# command it names may hold ". "); its openings are memgit.extract.heuristic.summary._work_done's
_TOOL_USE = (r"\bThe agent (?:edited \d+ files? \(|ran \d+ shell commands?\b|made \d+ other tool calls?\b|"
             r"delegated work to subagents\b|followed an approved plan\b|answered without using tools\b).*$")
_ENDED = r"\s*\bIt ended (?P<how>.*?) \((?:success|fail|partial|uncertain)\)\.$"
_CODE = r"`[^`\n]+`"


def indexed(text: str) -> str:
    """`text` (a note's paragraph) as the index holds it: without memgit's frame words.

    A paragraph not in the heuristic's form, which always ends "It ended … (outcome).", is all content
    (an LLM's summary, a person's edit): it is returned as it is.
    """
    if "It ended " not in text:
        return text
    import re

    from memgit.core.edited import shown_files

    ended = re.search(_ENDED, text)
    if ended is None:
        return text
    commands = re.findall(_CODE, ended.group("how"))
    text = text[:ended.start()]
    files = ""
    if tool := re.search(_TOOL_USE, text):
        said = tool.group(0)
        files = ", ".join(shown_files(said))
        commands = list(dict.fromkeys([*re.findall(_CODE, said), *commands]))
        text = text[:tool.start()] + text[tool.end():]
    for frame, label in ((_ASKED, ASKED), (_FOLLOW_UPS, ""), (_EARLIER, EARLIER), (_DONE, DONE)):
        text = re.sub(frame, label, text)
    work = "; ".join(filter(None, [f"Edited {files}" if files else "", f"ran {', '.join(commands)}" if commands else ""]))
    if work:
        work = work[0].upper() + work[1:] + "."
    return " ".join(" ".join([text, work]).split())


def without_work(text: str) -> str:
    """An indexed paragraph without its closing sentence of files and commands (a hit's title says what
    the session touched)."""
    if text.startswith(WORK):
        return ""
    at = max(text.rfind(". " + lead) for lead in WORK)
    return text[:at + 1] if at >= 0 else text


def unlabelled(sentence: str) -> str:
    """A sentence of an indexed paragraph without the label `indexed` put on it ("Done: …")."""
    return sentence.removeprefix(DONE).removeprefix(EARLIER).removeprefix(ASKED)
