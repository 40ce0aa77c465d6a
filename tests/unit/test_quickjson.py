"""The hooks' JSON (memgit.core.quickjson) reads and writes exactly what the json package does."""

from __future__ import annotations

import json

import pytest

from memgit.core import quickjson
from memgit.hook import entry as hook

VALUES = [b'{"session_id": "abc", "cwd": "/tmp/x", "n": 3, "f": 1.5e3, "ok": true, "none": null}',
          '  {"prompt": "caf\\u00e9 \\ud83d\\ude00 \\"quoted\\"\\n", "list": [1, -2, 3.25, [], {}]}\n',
          b'\xef\xbb\xbf{"bom": 1}', '{"nan": NaN, "inf": -Infinity}', b'"just a string"', "[1, 2]", b"12",
          '{"a": 1}{"b": 2}', b"", b"not json", b'{"session_id": ', b"\xff\xfe\x00garbage",
          "{\"tab\": \"a\tb\"}", '{"dup": 1, "dup": 2}', "\ufeff{}", '{"a": 1} \r\n\t', "{\"x\": 1}\x0c"]


@pytest.mark.parametrize("data", VALUES, ids=range(len(VALUES)))
def test_loads_gives_what_json_loads_gives_or_raises_as_it_does(data):
    try:
        expected = json.loads(data)
    except ValueError as e:
        with pytest.raises(type(e)):
            quickjson.loads(data)
    else:
        assert json.dumps(quickjson.loads(data)) == json.dumps(expected)


@pytest.mark.parametrize("text", ["", "plain", 'a "quoted" \\ path\n\ttab', "café ✓ 😀 \x00\x1f\u2028"])
def test_the_hook_answer_is_written_as_json_dumps_writes_it(text):
    assert quickjson.quote(text) == json.dumps(text)
    answer = {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": text}}
    assert hook.answer("codex", text, "UserPromptSubmit") == json.dumps(answer)
