"""memgit's entries added to a settings document as text, and taken out again byte for byte."""

from __future__ import annotations

import pytest

from memgit.verbs.install import hooks, jsontext
from memgit.verbs.install.agents import AGENTS

DOCUMENTS = {
    "empty file": "",
    "blank lines": "\n\n",
    "empty object": "{}",
    "empty object, newline": "{}\n",
    "one line": '{"model": "opus", "hooks": {"Stop": []}}',
    "tabs": '{\n\t"hooks": {\n\t\t"SessionStart": [\n\t\t\t{"hooks": [{"type": "command", "command": "x"}]}\n\t\t]\n\t}\n}\n',
    "crlf and comments": '{\r\n  // hi\r\n  "a": 1, /* b */\r\n  "hooks": {} // none yet\r\n}\r\n',
    "empty event list": '{\n  "hooks": {\n    "PreCompact": [ ]\n  }\n}',
    "unicode and escapes": '{\n    "name": "caf\\u00e9 \\"quoted\\" ]}",\n    "emoji": "☕"\n}\n',
    "duplicate keys": '{"hooks": {}, "hooks": {"SessionEnd": []}}',
}


@pytest.mark.parametrize("agent", list(AGENTS))
@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_adding_then_removing_memgits_entries_gives_the_same_bytes(name, agent):
    text, spec = DOCUMENTS[name], AGENTS[agent]
    doc = hooks.parse(text, name)
    todo = hooks.missing(doc, spec, "memgit")
    new, inserts = hooks.add(text, spec, "memgit", todo)
    installed = hooks.parse(new, name)
    for hook in spec.hooks:
        assert hooks.ours(installed, hook.event) == [spec.group("memgit", hook)]
    assert hooks.missing(installed, spec, "memgit") == []  # a second install adds nothing
    assert jsontext.remove(new, inserts) == text


def test_a_snippet_no_longer_there_verbatim_is_reported():
    assert jsontext.remove('{"a": 1}', [', "b": 2']) is None


def test_comments_are_blanked_not_moved():
    text = '{"url": "http://x//y", /* c */ "n": 1} // end'
    assert len(jsontext.strip_comments(text)) == len(text)
    assert jsontext.loads(text) == {"url": "http://x//y", "n": 1}
