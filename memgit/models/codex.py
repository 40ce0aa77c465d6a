"""`codex/<model>`: Codex's non-interactive mode, `codex exec --json`.

Flags from openai/codex `codex-rs/exec/src/cli.rs` and `features/src/lib.rs` as of 2026-11 (and the
"Non-interactive mode" docs, developers.openai.com/codex/noninteractive):
- `exec -` reads the prompt from stdin; `--json` prints JSONL events: `thread.started{thread_id}`,
  `item.completed{item:{type:"agent_message",text}}`, `turn.completed{usage:{input_tokens,
  cached_input_tokens,output_tokens}}`, `turn.failed{error:{message}}`, `error{message}`. Codex
  reports no cost: the Memgit-Cost trailer is left out (unknown), the tokens are counted;
- `--ephemeral`: no rollout file is written (the session never reaches ~/.codex/sessions);
- `--skip-git-repo-check`: memgit's working folder is not a git repository;
- `--sandbox read-only` and `-c features.shell_tool=false -c web_search="disabled"`: no command, no
  edit, no search; `-c features.hooks=false`: no hook fires for the child; `-c features.memories=false`:
  the child adds nothing to Codex's own memories;
- `--output-schema FILE`: the final message is JSON of that schema (written to the working folder).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from memgit.models.agent_cli import Answer, Failure, failed, json_objects, number, one_line

EXECUTABLE = "codex"
ENV: dict[str, str] = {}


def _schema_file(schema: dict, workdir: Path) -> str:
    """The schema in a file of the working folder (Codex takes a path), written once per content."""
    workdir.mkdir(parents=True, exist_ok=True)
    text = json.dumps(schema.get("schema", schema), sort_keys=True)
    path = workdir / f"schema-{hashlib.sha256(text.encode()).hexdigest()[:12]}.json"
    if not path.is_file():
        fd, tmp = tempfile.mkstemp(dir=workdir, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)  # whole or not at all: a concurrent call reads a complete file
    return str(path)


def args(model: str, *, schema: dict | None, workdir: Path) -> list[str]:
    """The command line (the prompt goes on stdin)."""
    argv = ["exec", "--json", "--ephemeral", "--skip-git-repo-check", "--sandbox", "read-only", "--model", model,
            "-c", "features.shell_tool=false", "-c", "features.hooks=false", "-c", "features.memories=false",
            "-c", 'web_search="disabled"']
    if schema is not None:
        argv += ["--output-schema", _schema_file(schema, workdir)]
    return [*argv, "-"]


def answer(code: int, stdout: str, stderr: str) -> Answer:
    """Read the JSONL events: the last agent message and the turn's usage.

    Raises:
        Failure: a failed turn or an error event (its kind from the message), or no answer at all.
    """
    events = json_objects(stdout)
    usage: dict = {}
    text, problem = None, ""
    for event in events:
        kind = event.get("type")
        if kind == "item.completed" and isinstance(event.get("item"), dict):
            item = event["item"]
            if item.get("type") == "agent_message" and isinstance(item.get("text"), str):
                text = item["text"]
        elif kind == "turn.completed" and isinstance(event.get("usage"), dict):
            usage = event["usage"]
        elif kind == "turn.failed" and isinstance(event.get("error"), dict):
            problem = str(event["error"].get("message", "")) or "turn failed"
        elif kind == "error":
            problem = str(event.get("message", "")) or problem or "error"
    prompt = int(number(usage.get("input_tokens")))
    completion = int(number(usage.get("output_tokens")))
    if problem or text is None or code != 0:
        said = problem or stderr or stdout or "no answer"
        error = failed(code, said, EXECUTABLE)
        raise Failure(error.kind, f"{EXECUTABLE}: {one_line(said)}", prompt_tokens=prompt, completion_tokens=completion)
    return Answer(text, prompt, completion, None)
