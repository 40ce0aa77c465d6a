"""Codex tool calls: their inputs and outputs, as the normalised ToolCall holds them.

Shell calls have taken three shapes (`shell` with an argv list ≤ 0.4x, `exec_command` with a
`cmd` string, `local_shell_call` with an action); an argv `[bash, -lc, <script>]` is kept as its
script under `command`, the argv beside it. Outputs are a plain string, a JSON string
`{"output", "metadata": {"exit_code"}}` (≤ 0.4x and apply_patch), unified exec's text with a
`Chunk ID / Wall time / Process exited with code N / Output:` header, or content items.

Some answers are the harness's, not the tool's: a call the person rejected ("patch rejected by
user"), one a sandbox or a policy refused, the sandbox's account of a failed command around what
the command printed. `answer` tells them apart.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memgit.sources import harness

# What each Codex tool does, in the neutral kinds of memgit.core.model.TOOL_KINDS.
KINDS = {
    "shell": "shell", "exec_command": "shell", "local_shell": "shell", "container.exec": "shell",
    "apply_patch": "edit", "view_image": "read", "update_plan": "todo", "web_search": "web",
}
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "fish"})
_EXEC_HEADER = re.compile(r"\A(?:Chunk ID|Wall time): [^\n]*\n(?:[^\n]*\n){0,8}?Output:\n")
_EXIT_CODE = re.compile(r"^Process exited with code (-?\d+)$", re.M)
# ≤ 0.4x: a command that failed in the sandbox, told by the harness around what it printed.
_SANDBOX_FAILURE = re.compile(r"\A(?P<said>failed in sandbox \S+ with execution error: .*?, exit code: -?\d+), "
                              r"stdout: (?P<stdout>.*?), stderr: (?P<stderr>.*)\Z", re.S)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (?P<path>.+?)\s*$", re.M)


def kind(name: str) -> str:
    """The neutral kind of a Codex tool ("" for one memgit does not classify: MCP tools, `js`…)."""
    return KINDS.get(name, "")


def call_input(item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The tool name and input of a `*_call` response item."""
    item_type = item.get("type")
    name = item.get("name") if isinstance(item.get("name"), str) else ""
    if item_type == "function_call":
        args = _json_object(item.get("arguments"), "arguments")
    elif item_type == "custom_tool_call":
        args = _json_object(item.get("input"), "input")
    elif item_type == "local_shell_call":
        name = name or "local_shell"
        action = item.get("action") if isinstance(item.get("action"), dict) else {}
        args = {k: v for k, v in action.items() if k != "type"}
        if "working_directory" in args:
            args["workdir"] = args.pop("working_directory")
    else:  # tool_search_call and later kinds: their arguments as they are
        name = name or str(item_type).removesuffix("_call")
        args = item.get("arguments") if isinstance(item.get("arguments"), dict) else {}
    if name == "apply_patch" and isinstance(args.get("input"), str):  # custom tool, or a function's argument
        files = [m.group("path") for m in _PATCH_FILE.finditer(args["input"])]
        if files:
            args["files"] = files
            args.setdefault("file_path", files[0])
    return name, _unwrap_shell(args)


def output_text(output: Any) -> tuple[str, bool | None]:
    """The text of a `*_output` item and whether it reports a failure (None: it does not say)."""
    if isinstance(output, str):
        return _string_output(output)
    if isinstance(output, dict):
        if "content" in output or "success" in output:  # {content, success}
            text, error = output_text(output.get("content"))
            return text, (output.get("success") is False) or error
        if isinstance(output.get("text"), str):
            return output["text"], None
        if isinstance(output.get("output"), str):
            return _string_output(output["output"])
        return "", None
    if isinstance(output, list):
        texts = []
        for part in output:
            if isinstance(part, dict):
                if isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif part.get("type") in ("input_image", "image"):
                    texts.append("[image]")
        return "\n".join(texts), None
    return "", None


def answer(kind: str, text: str, failed: bool | None) -> tuple[str, str, str | None]:
    """Split a call's answer into (the tool's output, the harness's text, the person's words if they declined it).

    A shell call whose exit code is known ran: its output is its own. Otherwise a short answer
    saying the person rejected the call, or that a sandbox, a permission or a policy stopped it, is
    the harness's (the person's words are "" then: Codex does not quote them).
    """
    if (sandbox := _SANDBOX_FAILURE.match(text)) is not None:
        printed = [sandbox.group(k).strip() for k in ("stdout", "stderr")]
        return "\n".join(p for p in printed if p), sandbox.group("said"), None
    if kind == "shell" and failed is not None:
        return text, "", None
    if harness.declined(text):
        return "", text, ""
    if harness.refused(text):
        return "", text, None
    return text, "", None


def exec_output(payload: dict[str, Any]) -> str:
    """What an `exec_command_end` / `CommandExecution` says the command printed."""
    for key in ("aggregated_output", "formatted_output"):
        if isinstance(payload.get(key), str) and payload[key]:
            return payload[key]
    parts = [payload[k] for k in ("stdout", "stderr") if isinstance(payload.get(k), str) and payload[k]]
    return "\n".join(parts)


def exit_failed(code: Any) -> bool | None:
    """True for a non-zero exit code, False for zero, None when there is none."""
    if isinstance(code, bool) or not isinstance(code, int):
        return None
    return code != 0


def mcp_result(result: Any) -> tuple[str, bool | None]:
    """The text of an MCP call's `{"Ok": {content, isError}}` or `{"Err": …}` result."""
    if not isinstance(result, dict):
        return "", None
    if "Err" in result:
        return str(result["Err"])[:2000], True
    ok = result.get("Ok", result)
    if not isinstance(ok, dict):
        return "", None
    text, _ = output_text(ok.get("content"))
    return text, ok.get("isError") is True


def _string_output(text: str) -> tuple[str, bool | None]:
    if text.startswith('{"output"'):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and isinstance(value.get("output"), str):
            metadata = value.get("metadata")
            code = metadata.get("exit_code") if isinstance(metadata, dict) else None
            return value["output"], exit_failed(code)
    if text.startswith(("Chunk ID: ", "Wall time: ")):
        code = _EXIT_CODE.search(text[:2000])
        header = _EXEC_HEADER.match(text)
        body = text[header.end():] if header else text
        failed = exit_failed(int(code.group(1))) if code else None
        if body.startswith('[{"type"'):  # a code-mode tool's content items
            body = _string_output(body)[0]
        return body, failed
    if text.startswith('[{"type"'):  # content items, as JSON text
        try:
            items = json.loads(text)
        except (ValueError, RecursionError):
            items = None
        if isinstance(items, list):
            return output_text(items)
    if text.startswith("failed in sandbox "):
        return text, True
    return text, None


def _json_object(raw: Any, key: str) -> dict[str, Any]:
    """A JSON-object string as a dict; anything else kept whole under `key`."""
    if isinstance(raw, dict):
        return dict(raw)
    if isinstance(raw, str):
        if raw.lstrip().startswith("{"):
            try:
                value = json.loads(raw)
            except (ValueError, RecursionError):
                value = None
            if isinstance(value, dict):
                return value
        return {key: raw}
    return {}


def _unwrap_shell(args: dict[str, Any]) -> dict[str, Any]:
    """`command: [bash, -lc, script]` → `command: script` (the argv kept as `argv`)."""
    argv = args.get("command")
    if (isinstance(argv, list) and len(argv) == 3 and all(isinstance(a, str) for a in argv)
            and argv[0].rsplit("/", 1)[-1] in _SHELLS and argv[1] in ("-lc", "-c", "-l -c")):
        return {**args, "command": argv[2], "argv": argv}
    return args
