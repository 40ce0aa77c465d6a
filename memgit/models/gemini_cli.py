"""`gemini-cli/<model>`: Gemini CLI's headless mode, `gemini -p … --output-format json`.

Flags from google-gemini/gemini-cli `packages/cli/src/config/config.ts`, `settingsSchema.ts` and
`packages/core/src/output/json-formatter.ts` at v0.56.0-nightly (2026-08-21), and docs/cli/headless.md:
- `-p TEXT` runs headless; the text is appended to what stdin holds, so the request travels on
  stdin and `-p` carries one fixed line;
- `--output-format json` prints `{"session_id","response","stats":{"models":{<name>:{"tokens":
  {"input","prompt","candidates","total","cached","thoughts","tool"}}}},"error":{"type","message","code"}}`
  (an error also as that object, on stdout or stderr; exit 41 = authentication, 1 = API error).
  Gemini reports no cost: tokens only;
- no tools: `--approval-mode plan` (read-only), `--extensions none`, `--allowed-mcp-server-names`
  naming no server, and the working folder's `.gemini/settings.json` with `tools.core` allowing no
  built-in tool and `hooksConfig.enabled: false` (no hook fires for the child); `--skip-trust` so
  that folder's settings apply;
- Gemini records every session (`~/.gemini/tmp/<project>/chats/`) and has no switch against it:
  the child runs in memgit's working folder, whose sessions memgit's sources skip.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from memgit.models.agent_cli import Answer, Failure, failed, json_objects, number, one_line

EXECUTABLE = "gemini"
ENV: dict[str, str] = {}
INSTRUCTION = "Answer the request above exactly as it asks, with no tool."
SETTINGS = {"tools": {"core": ["memgit_no_tool"]}, "hooksConfig": {"enabled": False}, "mcp": {"allowed": ["memgit-none"]}}


def _settings(workdir: Path) -> None:
    """The working folder's own Gemini settings: no tool, no hook."""
    path = workdir / ".gemini" / "settings.json"
    text = json.dumps(SETTINGS, indent=2) + "\n"
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def args(model: str, *, schema: dict | None, workdir: Path) -> list[str]:
    """The command line (the request goes on stdin; Gemini CLI has no schema option)."""
    _settings(workdir)
    return ["-p", INSTRUCTION, "--output-format", "json", "--model", model, "--approval-mode", "plan",
            "--extensions", "none", "--allowed-mcp-server-names", "memgit-none", "--skip-trust"]


def answer(code: int, stdout: str, stderr: str) -> Answer:
    """Read the JSON object: `response`, the tokens of every model in `stats`, or `error`.

    Raises:
        Failure: an `error` object or a non-zero exit (its kind from the message and exit code).
    """
    found = json_objects(stdout) or json_objects(stderr)
    data = found[-1] if found else {}
    prompt = completion = 0
    stats = data.get("stats") if isinstance(data.get("stats"), dict) else {}
    for model in (stats.get("models") or {}).values():
        tokens = model.get("tokens", {}) if isinstance(model, dict) else {}
        prompt += int(number(tokens.get("prompt") or tokens.get("input")))
        completion += int(number(tokens.get("candidates"))) + int(number(tokens.get("thoughts")))
    error = data.get("error")
    if isinstance(error, dict) or code != 0 or not isinstance(data.get("response"), str):
        said = (error.get("message") if isinstance(error, dict) else "") or stderr or stdout or "no answer"
        problem = failed(code, said, EXECUTABLE)
        if code == 41:  # FatalAuthenticationError
            problem.kind = "auth"
        raise Failure(problem.kind, f"{EXECUTABLE}: {one_line(said)}", prompt_tokens=prompt,
                      completion_tokens=completion)
    return Answer(data["response"], prompt, completion, None)
