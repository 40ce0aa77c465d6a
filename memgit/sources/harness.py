"""Harness text: what an agent's harness writes into a transcript that neither the person nor the agent wrote.

Each source knows where its agent puts such text (memgit.core.model says what the marks mean); what
the sources share is here: lifting tagged blocks out of a person's message, bounding what is kept
of harness text, and recognising the two kinds of answer a harness gives in a tool's place when the
call never ran: the person declined it, or a permission rule or a policy refused it.
"""

from __future__ import annotations

import re

from memgit.sources.trim import Clean, redact, trim

# Kept of a harness text: enough for a reader (or a model) to see what it was, never a learning.
HARNESS_HEAD, HARNESS_TAIL = 600, 200
_REFUSAL_SCAN = 800  # a refusal says so in a few lines; a longer answer is the tool's own output

# A whole text wrapped in one tag whose name no prose or markup uses: snake_case or kebab-case.
_WRAPPED = re.compile(r"<(?P<tag>[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+)(?:\s[^>]{0,200})?>.*</(?P=tag)>", re.S)

# The harness answering for the person: they turned the call down.
_DECLINED = re.compile(
    r"\b(?:(?:rejected|denied|declined|aborted|cancell?ed|refused) by (?:the )?user|"
    r"(?:the )?user (?:rejected|denied|declined|refused|cancell?ed|did not (?:allow|approve)|(?:does|did) ?n[o']t want to)|"
    r"(?:tool use|tool call|call|command|edit|change|patch) (?:was|has been) (?:rejected|denied|declined))\b",
    re.I,
)
# The harness answering for a permission rule, a sandbox or a security policy: the call was stopped
# before it ran (the wording changes with every release; what it says stays).
_REFUSED = re.compile(
    r"\b(?:requires? (?:your |user )?(?:approval|permission)|(?:have ?n[o']t|has ?n[o']t|not been) granted|"
    r"requested permissions? (?:to|for)|permission to (?:use|run|read|write|edit) \S+ (?:was|has been) denied|"
    r"(?:was|were|has been|is) (?:blocked|denied|not allowed)|(?:security|sandbox|permission|approval) polic(?:y|ies)|"
    r"(?:blocked|denied|rejected|refused|not allowed)\b[^.\n]{0,60}\bpolic(?:y|ies)|"
    r"rejected (?:this|the) (?:action|command|call|request|tool))\b",
    re.I,
)


def harness_text(text: str, clean: Clean = redact) -> str:
    """Harness text as a transcript keeps it: stripped and cut to its head and tail."""
    return trim(text.strip(), HARNESS_HEAD, HARNESS_TAIL, clean)


def lift_tags(text: str, tags: tuple[str, ...]) -> tuple[str, list[str]]:
    """Lift every `<tag …>…</tag>` block of these tags out of a message (to its end when unclosed).

    Returns what is left and the inner text of each block, in order.
    """
    lifted: list[str] = []
    for tag in tags:
        opening, closing = f"<{tag}", f"</{tag}>"
        start = text.find(opening)
        while start >= 0:
            after = text[start + len(opening): start + len(opening) + 1]
            if after not in (">", " ", "\n", "\t"):  # `<tag-longer>`: another tag
                start = text.find(opening, start + 1)
                continue
            inner_at = text.find(">", start) + 1
            end = text.find(closing, inner_at)
            lifted.append(text[inner_at:] if end < 0 else text[inner_at:end])
            text = text[:start] if end < 0 else text[:start] + text[end + len(closing):]
            start = text.find(opening, start)
    return text, lifted


def wrapped_whole(text: str) -> str | None:
    """The inner text when a whole message is one block of a snake_case or kebab-case tag, else None.

    Harnesses wrap what they inject in such tags and add new ones with most releases; a person's
    message is not one such block from start to end.
    """
    text = text.strip()
    if not (text.startswith("<") and text.endswith(">")):
        return None
    match = _WRAPPED.fullmatch(text)
    if match is None:
        return None
    return text[text.find(">") + 1: text.rfind("</")]


def declined(text: str) -> bool:
    """True when a tool's answer is the harness saying the person turned the call down.

    The harness says so first (what follows may quote the person at any length); a tool's own
    output that mentions a rejection further down is not such an answer.
    """
    return _DECLINED.search(_first_line(text)) is not None


def refused(text: str) -> bool:
    """True when a tool's answer is the harness saying a permission rule or a policy stopped the call."""
    return len(text) <= _REFUSAL_SCAN and _REFUSED.search(_first_line(text)) is not None


def _first_line(text: str) -> str:
    return text[:1000].lstrip()[:400].split("\n", 1)[0]
