"""`claude-code/<model>`: Claude Code's print mode, `claude -p --output-format json`.

Flags from Claude Code's CLI reference and headless docs for v2.1.240 (2026-08-22; the docs mirror
ericbuess/claude-code-docs, cli-reference.md, headless.md, env-vars.md):
- `-p --output-format json`: one JSON object on stdout, `{"type":"result","subtype":"success",
  "is_error":false,"result":"…","structured_output":{…},"total_cost_usd":…,"usage":{"input_tokens",
  "cache_creation_input_tokens","cache_read_input_tokens","output_tokens"},"session_id":…}`; a
  failure inside the run (not logged in, a usage limit) is printed the same way with `is_error: true`
  and the message in `result`;
- `--tools ""` (no built-in tool), `--strict-mcp-config` without `--mcp-config` (no MCP server),
  `--disable-slash-commands` (no skills), `--settings {"disableAllHooks":true}` (no hook fires for
  the child: memgit's own SessionEnd hook would start another sync);
- `--no-session-persistence` (print mode only): the session is never written to disk;
  CLAUDE_CODE_SKIP_PROMPT_HISTORY=1 says the same for builds that read only the variable;
- `--json-schema`: the answer is validated by the CLI and returned in `structured_output`; the
  CLI answers it through its StructuredOutput tool, which takes a turn of its own, so
  `--max-turns 2` (a limit of 1 ends such runs with `error_max_turns`);
- `--system-prompt`: a fixed line replaces Claude Code's coding-agent prompt (memgit's
  instructions and the data travel on stdin with the rest: nothing variable is on the command line);
- `--bare` is not used: it skips the subscription login (bare mode reads ANTHROPIC_API_KEY only).
The prompt is read from stdin. Auto memory is turned off for the child (CLAUDE_CODE_DISABLE_AUTO_MEMORY).
"""

from __future__ import annotations

import json

from memgit.models.agent_cli import Answer, Failure, failed, json_objects, number, one_line

EXECUTABLE = "claude"
ENV = {"CLAUDE_CODE_SKIP_PROMPT_HISTORY": "1", "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}


SYSTEM = ("You answer one request and stop. You have no tools. Follow the instructions in the message and "
          "answer with only what they ask for.")


def args(model: str, *, schema: dict | None, workdir) -> list[str]:
    """The command line (the prompt goes on stdin)."""
    argv = ["-p", "--output-format", "json", "--model", model, "--max-turns", "2" if schema else "1",
            "--tools", "", "--strict-mcp-config", "--disable-slash-commands", "--no-session-persistence",
            "--settings", json.dumps({"disableAllHooks": True}), "--system-prompt", SYSTEM]
    if schema is not None:
        argv += ["--json-schema", json.dumps(schema)]
    return argv


def answer(code: int, stdout: str, stderr: str) -> Answer:
    """Read the result object.

    Raises:
        Failure: the CLI reported an error (its kind from the message), or said nothing readable.
    """
    results = [o for o in json_objects(stdout) if o.get("type") == "result"] or json_objects(stdout)
    if not results:
        raise failed(code, stderr or stdout or "no output", EXECUTABLE)
    data = results[-1]
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    prompt = sum(int(number(usage.get(k))) for k in ("input_tokens", "cache_creation_input_tokens",
                                                       "cache_read_input_tokens"))
    completion = int(number(usage.get("output_tokens")))
    cost = number(data.get("total_cost_usd"), None)
    spent = {"prompt_tokens": prompt, "completion_tokens": completion, "cost": cost}
    text = data.get("result") if isinstance(data.get("result"), str) else ""
    if data.get("is_error") or code != 0 or str(data.get("subtype", "success")) != "success":
        said = text or str(data.get("subtype") or "") or stderr
        error = failed(code, said, EXECUTABLE)
        status = number(data.get("api_error_status"), None)
        if status in (429, 529):
            error.kind = "transient"
        elif status in (401, 403):
            error.kind = "auth"
        raise Failure(error.kind, f"{EXECUTABLE}: {one_line(said)}", **spent)
    structured = data.get("structured_output")
    content = json.dumps(structured) if isinstance(structured, dict) else text
    return Answer(content, prompt, completion, cost, cut=data.get("stop_reason") == "max_tokens")
