"""Codex user text: the person's words told apart from what the harness injects.

Codex sends the model, as "user" messages, text the person never typed: AGENTS.md, the environment
(`<environment_context>`), skills, hook output, notices of aborted turns. Upstream classifies a
content item as such a fragment when its trimmed text starts and ends with a known marker pair
(`is_contextual_user_fragment`); new fragments appear with most releases, so any text wrapped whole
in one snake_case or spaced tag counts too. IDE and Desktop clients put attachments before the
request in the same string, ending with `## My request for Codex:`.
"""

from __future__ import annotations

import re
from typing import Any

AGENTS_MD = "# agents.md instructions for"
REQUEST = "## My request for Codex:"  # upstream USER_MESSAGE_BEGIN
COMPACTION_PREFIX = "Another language model started to solve this problem and produced a summary"
SUMMARY_LEAD = "to assist with your own analysis:"  # the preamble's last words (summary_prefix.md)
# Whole-text tags Codex injects whose names carry no "_" or space (those all count).
KNOWN_TAGS = frozenset({"skill", "plugins", "instructions", "apps", "personality"})
_WRAPPED = re.compile(r"<(?P<tag>[a-z][a-z0-9_ -]{0,60}?)(?:\s[^>]*)?>.*</(?P=tag)>", re.S | re.I)
_INSTRUCTIONS = re.compile(r"<(?P<tag>INSTRUCTIONS|user_instructions)>\s*(?P<body>.*?)\s*</(?P=tag)>", re.S)
_CWD = re.compile(r"<cwd>\s*(?P<cwd>[^<\n]+?)\s*</cwd>")
_USER_TEXT_KIND = "user.text"  # internal_chat_message_metadata_passthrough.content_item_kinds


def is_injected(text: str) -> bool:
    """True when a user text is harness context (AGENTS.md, environment, skills, hooks…)."""
    text = text.strip()
    if text[: len(AGENTS_MD)].lower() == AGENTS_MD:
        return True
    if not (text.startswith("<") and text.endswith(">")):
        return False
    match = _WRAPPED.fullmatch(text)
    if match is None:
        return False
    tag = match.group("tag").lower()
    return tag in KNOWN_TAGS or "_" in tag or " " in tag or "-" in tag


def instructions(text: str) -> str | None:
    """The project's instructions (AGENTS.md) in an injected fragment, or None for any other text.

    Since 0.5x Codex writes `# AGENTS.md instructions for <dir>` and the file inside `<INSTRUCTIONS>`
    (the environment context may follow in the same text); earlier builds wrapped it whole in
    `<user_instructions>`.
    """
    text = text.strip()
    if not (text[: len(AGENTS_MD)].lower() == AGENTS_MD or text.startswith("<user_instructions>")):
        return None
    match = _INSTRUCTIONS.search(text)
    body = match.group("body") if match else text.split("\n", 1)[-1] if text.startswith("#") else ""
    return body.strip() or None


def summary(text: str) -> str:
    """A compaction summary without the preamble Codex puts before it in the new context."""
    if text.startswith(COMPACTION_PREFIX):
        end = text.find(SUMMARY_LEAD, 0, 1000)
        if end >= 0:
            return text[end + len(SUMMARY_LEAD):].strip()
    return text.strip()


def history_summary(history: Any) -> str | None:
    """The summary in a `compacted` record's replacement history (its `message` is empty then)."""
    for item in history if isinstance(history, list) else []:
        if isinstance(item, dict) and item.get("type") == "message" and item.get("role") == "user":
            for text, _ in item_texts(item):
                if text.startswith(COMPACTION_PREFIX):
                    return summary(text)
    return None


def request(text: str) -> tuple[str, str]:
    """(the client's attachments, the person's request) of an IDE/Desktop message.

    The attachments (open tabs, selections, mentioned files) come before the last request marker;
    a message without the marker is all the person's.
    """
    at = text.rfind(REQUEST)
    return (text[:at].strip(), text[at + len(REQUEST):]) if at >= 0 else ("", text)


def unwrap(text: str) -> str:
    """An injected fragment's text without the tag around it."""
    text = text.strip()
    if text.startswith("<") and text.endswith(">") and (at := text.find(">")) < text.rfind("</"):
        return text[at + 1: text.rfind("</")].strip()
    return text


def environment_cwd(text: str) -> str | None:
    """The `<cwd>` of an `<environment_context>` fragment (pre-envelope rollouts have no other)."""
    if "<environment_context" not in text:
        return None
    match = _CWD.search(text)
    return match.group("cwd") if match else None


def item_texts(item: dict[str, Any]) -> list[tuple[str, bool]]:
    """(text, typed by the person) of each content part of a `message` item; images as `[image]`.

    Newer builds label every part (`content_item_kinds`): only `user.text` is the person's.
    """
    passthrough = item.get("internal_chat_message_metadata_passthrough")
    kinds = passthrough.get("content_item_kinds") if isinstance(passthrough, dict) else None
    kinds = kinds if isinstance(kinds, list) else None
    content = item.get("content")
    if isinstance(content, str):
        content = [{"type": "input_text", "text": content}]
    if not isinstance(content, list):
        return []
    parts = []
    for index, part in enumerate(content):
        if not isinstance(part, dict):
            continue
        typed = kinds is None or (index < len(kinds) and kinds[index] == _USER_TEXT_KIND)
        text = part.get("text")
        if isinstance(text, str):
            parts.append((text, typed and not is_injected(text)))
        elif part.get("type") in ("input_image", "image"):
            parts.append(("[image]", typed))
    return parts


def output_texts(content: Any) -> str:
    """The text parts of a message's content (assistant `output_text`), joined."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = [part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str)]
    return "\n".join(texts)
