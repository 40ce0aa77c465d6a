"""Stand-ins for the `claude`, `codex` and `gemini` commands, for tests of the agent CLIs as models.

`StandIns(bin_dir)` writes three small Python programs named like the real CLIs into a folder put
first on PATH. Each records its argv, stdin, environment and working folder (`calls`), writes its
own session where the real CLI would write it (Claude Code: ~/.claude/projects/<cwd as dashes>/,
Codex: ~/.codex/sessions/YYYY/MM/DD/, Gemini CLI: ~/.gemini/tmp/<slug>/chats/ and its .project_root), aged past
memgit's idle time, and answers in that CLI's JSON shape for the mode set (`mode(cli, …)`):
success, error, ratelimit (once: the next call succeeds), signedout, slow, expensive.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

PROGRAM = r'''#!__PYTHON__
import hashlib, json, os, sys, time, uuid
from pathlib import Path

name = os.path.basename(sys.argv[0])
here = Path(__file__).resolve().parent
stdin = sys.stdin.read()
with open(here / "calls.jsonl", "a", encoding="utf-8") as f:
    f.write(json.dumps({"cli": name, "argv": sys.argv[1:], "stdin": stdin, "env": dict(os.environ),
                        "cwd": os.getcwd()}) + "\n")
mode_file = here / f"{name}.mode"
mode = mode_file.read_text().strip() if mode_file.is_file() else "success"
if mode == "ratelimit":  # once: the next call succeeds
    mode_file.write_text("success")
reply = json.loads((here / "reply.json").read_text(encoding="utf-8"))
home, cwd, sid = Path(os.environ["HOME"]), os.getcwd(), str(uuid.uuid4())
stamp = "2026-11-20T10:00:00.000Z"
old = time.time() - 7200


def aged(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    os.utime(path, (old, old))


# The child's own session, where the real CLI keeps it (a CLI that ignored memgit's flags).
if name == "claude":
    folder = "".join(c if c.isalnum() else "-" for c in cwd)
    records = [{"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": sid, "cwd": cwd, "timestamp": stamp,
                "message": {"role": "user", "content": "Write the session note for the transcript below."}},
               {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": sid, "cwd": cwd,
                "timestamp": stamp, "message": {"id": "m1", "role": "assistant", "model": "claude-haiku",
                                                "content": [{"type": "text", "text": json.dumps(reply)}]}}]
    aged(home / ".claude" / "projects" / folder / f"{sid}.jsonl", "".join(json.dumps(r) + "\n" for r in records))
elif name == "codex":
    lines = [{"timestamp": stamp, "type": "session_meta", "payload": {"id": sid, "timestamp": stamp, "cwd": cwd,
              "originator": "codex_exec", "cli_version": "0.150.0", "source": "exec"}},
             {"timestamp": stamp, "type": "response_item", "payload": {"type": "message", "role": "user",
              "content": [{"type": "input_text", "text": "Write the session note for the transcript below."}]}},
             {"timestamp": stamp, "type": "event_msg", "payload": {"type": "user_message",
              "message": "Write the session note for the transcript below."}},
             {"timestamp": stamp, "type": "response_item", "payload": {"type": "message", "role": "assistant",
              "content": [{"type": "output_text", "text": json.dumps(reply)}]}}]
    aged(home / ".codex" / "sessions" / "2026" / "11" / "20" / f"rollout-2026-11-20T10-00-00-{sid}.jsonl",
         "".join(json.dumps(r) + "\n" for r in lines))
else:  # v0.29+: tmp/<slug of the project root>/, its path in .project_root and projects.json
    digest, slug = hashlib.sha256(cwd.encode()).hexdigest(), os.path.basename(cwd)
    (home / ".gemini" / "tmp" / slug).mkdir(parents=True, exist_ok=True)
    (home / ".gemini" / "tmp" / slug / ".project_root").write_text(cwd, encoding="utf-8")
    (home / ".gemini" / "projects.json").write_text(json.dumps({"projects": {cwd: slug}}), encoding="utf-8")
    doc = {"sessionId": sid, "projectHash": digest, "startTime": stamp, "lastUpdated": stamp, "messages": [
        {"id": "m1", "timestamp": stamp, "type": "user", "content": "Write the session note for the transcript below."},
        {"id": "m2", "timestamp": stamp, "type": "gemini", "content": json.dumps(reply), "model": "gemini-2.5-flash"}]}
    aged(home / ".gemini" / "tmp" / slug / "chats" / f"session-2026-11-20T10-00-{sid[:8]}.json", json.dumps(doc))

if mode == "slow":
    time.sleep(30)
tokens = (40_000, 10_000) if mode == "expensive" else (1_000, 200)
said = {"signedout": {"claude": "Not logged in · Please run /login",
                      "codex": "401 Unauthorized: you are signed out; run `codex login`",
                      "gemini": "Please set an Auth method in your settings.json or specify GEMINI_API_KEY"},
        "ratelimit": {"claude": "API Error: Request rejected (429) · rate limit reached",
                      "codex": "exceeded retry limit, last status: 429 Too Many Requests",
                      "gemini": "[API Error: Quota exceeded for quota metric 'Generate Content API requests' (status: 429)]"},
        "error": {"claude": "API Error: 400 model: not-a-model not found",
                  "codex": "400 Bad Request: The requested model 'not-a-model' does not exist.",
                  "gemini": "[API Error: models/not-a-model is not found for API version v1beta (status: 404)]"}}
if name == "claude":
    usage = {"input_tokens": tokens[0] - 100, "cache_creation_input_tokens": 50, "cache_read_input_tokens": 50,
             "output_tokens": tokens[1]}
    base = {"type": "result", "duration_ms": 1200, "duration_api_ms": 1100, "num_turns": 2, "session_id": sid,
            "uuid": str(uuid.uuid4())}
    if mode in said:
        status = {"signedout": 401, "ratelimit": 429, "error": 400}[mode]
        print(json.dumps({**base, "subtype": "success", "is_error": True, "api_error_status": status,
                          "result": said[mode][name], "total_cost_usd": 0,
                          "usage": {k: 0 for k in usage}}))
        sys.exit(1)
    schema = "--json-schema" in sys.argv
    print(json.dumps({**base, "subtype": "success", "is_error": False, "result": "" if schema else json.dumps(reply),
                      "stop_reason": "end_turn", "total_cost_usd": 0.0123 if mode != "expensive" else 0.5,
                      "usage": usage, **({"structured_output": reply} if schema else {})}))
elif name == "codex":
    print(json.dumps({"type": "thread.started", "thread_id": sid}))
    print(json.dumps({"type": "turn.started"}))
    if mode in said:
        print(json.dumps({"type": "error", "message": said[mode][name]}))
        print(json.dumps({"type": "turn.failed", "error": {"message": said[mode][name]}}))
        sys.exit(1)
    print(json.dumps({"type": "item.completed", "item": {"id": "item_0", "type": "agent_message",
                                                          "text": json.dumps(reply)}}))
    print(json.dumps({"type": "turn.completed", "usage": {"input_tokens": tokens[0], "cached_input_tokens": 0,
                                                           "output_tokens": tokens[1]}}))
else:
    if mode in said:
        code = {"signedout": 41, "ratelimit": 1, "error": 1}[mode]
        print(json.dumps({"session_id": sid, "error": {"type": "FatalAuthenticationError" if code == 41 else "Error",
                                                       "message": said[mode][name], "code": code}}), file=sys.stderr)
        sys.exit(code)
    print(json.dumps({"session_id": sid, "response": json.dumps(reply), "stats": {"models": {"gemini-2.5-flash": {
        "api": {"totalRequests": 1, "totalErrors": 0, "totalLatencyMs": 900},
        "tokens": {"input": tokens[0], "prompt": tokens[0], "candidates": tokens[1], "total": sum(tokens),
                   "cached": 0, "thoughts": 0, "tool": 0}}},
        "tools": {"totalCalls": 0, "totalSuccess": 0, "totalFail": 0, "totalDurationMs": 0, "byName": {}},
        "files": {"totalLinesAdded": 0, "totalLinesRemoved": 0}}}, indent=2))
'''

CLIS = ("claude", "codex", "gemini")


class StandIns:
    """The three stand-ins in `bin_dir`; `calls` lists what each run received."""

    def __init__(self, bin_dir: Path, reply: dict):
        self.bin = bin_dir
        bin_dir.mkdir(parents=True, exist_ok=True)
        for name in CLIS:
            path = bin_dir / name
            path.write_text(PROGRAM.replace("__PYTHON__", sys.executable), encoding="utf-8")
            path.chmod(0o755)
        self.reply(reply)

    def reply(self, data: dict) -> None:
        (self.bin / "reply.json").write_text(json.dumps(data), encoding="utf-8")

    def mode(self, cli: str, mode: str) -> None:
        (self.bin / f"{cli}.mode").write_text(mode, encoding="utf-8")

    @property
    def calls(self) -> list[dict]:
        path = self.bin / "calls.jsonl"
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]

    def path_env(self) -> str:
        return f"{self.bin}{os.pathsep}{os.environ.get('PATH', '')}"
