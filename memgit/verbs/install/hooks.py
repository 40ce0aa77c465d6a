"""memgit's hook entries in an agent's JSON hooks file: recognise them, add them as text, take them out.

Adding goes through memgit.verbs.install.jsontext (snippets of text, the rest of the file
untouched). Taking them out removes those snippets when the file still holds them verbatim, else
parses the file, drops memgit's handlers (and the groups, event lists and `hooks` object that held
nothing else) and writes it back with two-space indentation.
"""

from __future__ import annotations

import copy
import json
import re

from memgit.errors import ConfigError
from memgit.verbs.install import jsontext
from memgit.verbs.install.agents import Agent

_MEMGIT_COMMAND = re.compile(
    r"memgit(?:\.exe|\.entry|\.cli)?['\"]?\s+hook\s+(?:session-start|user-prompt-submit|session-end|pre-compact)\b"
)


def is_memgit_handler(handler: object) -> bool:
    """True for a handler memgit installed: a command running `memgit hook <event>`."""
    if not isinstance(handler, dict) or not isinstance(handler.get("command"), str):
        return False
    args = handler.get("args")
    if isinstance(args, list) and args[:1] == ["hook"]:  # exec form: command memgit, args [hook, event]
        return bool(re.search(r"memgit(\.exe)?['\"]?$", handler["command"]))
    return bool(_MEMGIT_COMMAND.search(handler["command"]))


def parse(text: str, where: str) -> dict:
    """The settings document in `text` (comments allowed); an empty text is an empty document.

    Raises:
        ConfigError: it is not a JSON object, or its `hooks` is not of the shape the agents read.
    """
    if not text.strip():
        return {}
    try:
        doc = jsontext.loads(text)
    except ValueError as e:
        raise ConfigError(f"{where} is not valid JSON ({e}); fix it, then run this again") from e
    if not isinstance(doc, dict):
        raise ConfigError(f"{where} holds a JSON {type(doc).__name__}, not an object; fix it first")
    hooks = doc.get("hooks", {})
    if not isinstance(hooks, dict):
        raise ConfigError(f"`hooks` in {where} is not an object; fix it by hand first")
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            raise ConfigError(f"`hooks.{event}` in {where} is not a list; fix it by hand first")
    return doc


def _handlers(group: object) -> list:
    handlers = group.get("hooks") if isinstance(group, dict) else None
    return handlers if isinstance(handlers, list) else []


def ours(doc: dict, event: str) -> list:
    """The groups of one event holding a memgit handler."""
    return [g for g in doc.get("hooks", {}).get(event, []) if any(map(is_memgit_handler, _handlers(g)))]


def commands(doc: dict) -> list[str]:
    """The commands of memgit's handlers in the document, each once, in order."""
    return list(dict.fromkeys(h["command"] for event in doc.get("hooks", {}) for g in ours(doc, event)
                              for h in _handlers(g) if is_memgit_handler(h)))


def has_memgit(doc: dict) -> bool:
    return any(ours(doc, event) for event in doc.get("hooks", {}))


def missing(doc: dict, agent: Agent, memgit: str) -> list:
    """The agent's hooks the document lacks; None when it holds a memgit entry that must be replaced."""
    wanted = []
    for hook in agent.hooks:
        found = ours(doc, hook.event)
        if found == [agent.group(memgit, hook)]:
            continue
        if found:
            return None
        wanted.append(hook)
    if any(ours(doc, e) for e in doc.get("hooks", {}) if e not in {h.event for h in agent.hooks}):
        return None  # memgit's handler on an event memgit no longer uses
    return wanted


def add(text: str, agent: Agent, memgit: str, hooks: list) -> tuple[str, list[str]]:
    """The text with a group for each of `hooks` appended, and the snippets inserted (in order)."""
    inserts: list[str] = []
    if not text.strip():  # no document yet: write one after whatever whitespace is there
        doc = {"hooks": {h.event: [agent.group(memgit, h)] for h in hooks}}
        snippet = json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
        return text + snippet, [snippet]
    for hook in hooks:
        root = jsontext.scan(text)
        holder = root.member("hooks")
        if holder is None:  # one member holds every event still missing
            value = {h.event: [agent.group(memgit, h)] for h in hooks[len(inserts):]}
            at, snippet = jsontext.insertion(text, root, value, key="hooks")
            return jsontext.insert(text, at, snippet), inserts + [snippet]
        event = holder.member(hook.event)
        group = agent.group(memgit, hook)
        if event is None:
            at, snippet = jsontext.insertion(text, holder, [group], key=hook.event)
        else:
            at, snippet = jsontext.insertion(text, event, group)
        text = jsontext.insert(text, at, snippet)
        inserts.append(snippet)
    return text, inserts


def remove(doc: dict) -> tuple[dict, list[str]]:
    """The document without memgit's handlers, and one line per event they were removed from."""
    out = copy.deepcopy(doc)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out, []
    changes = []
    for event in list(hooks):
        kept, removed = [], []
        for group in hooks[event]:
            handlers = _handlers(group)
            mine = [h for h in handlers if is_memgit_handler(h)]
            if not mine:
                kept.append(group)
                continue
            removed += [h["command"] for h in mine]
            rest = [h for h in handlers if not is_memgit_handler(h)]
            if rest:
                kept.append({**group, "hooks": rest})
        if removed:
            changes.append(f"{event}: removed {', '.join(f'`{c}`' for c in removed)}")
            if kept:
                hooks[event] = kept
            else:
                del hooks[event]
    if changes and not hooks:
        del out["hooks"]  # memgit's hooks were all it held
    return out, changes


def dump(doc: dict) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
