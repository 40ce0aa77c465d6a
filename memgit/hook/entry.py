"""Agent hook entry points (DESIGN §5): answer the event, and never fail the session.

`memgit hook <event> [--agent claude-code|codex|gemini]`: the installed command names the agent
(Claude Code, the default, needs no argument). All three send the same stdin fields (session_id,
cwd, transcript_path, hook_event_name) and read the same SessionStart answer (ANSWER below).

- `session-start` prints {"hookSpecificOutput": {"hookEventName": "SessionStart",
  "additionalContext": ...}} for the session's cwd (memgit.hook.context), then starts a detached
  `memgit sync` when finished sessions of the project wait unread and no sync is running.
- `user-prompt-submit` (Claude Code's and Codex's UserPromptSubmit, Gemini CLI's BeforeAgent) prints
  the few memories relevant to the prompt (memgit.hook.prompt), or nothing at all.
- `session-end` and `pre-compact` start a detached `memgit sync --session ID` and return at once
  (SessionEnd shares a 1.5 s budget with every other hook).

Whatever happens (no repository, a corrupt object, a held lock, bad stdin, a broken config, a
full disk) a hook exits 0, prints nothing or one whole JSON object, and appends the cause as
one line to `.git/memgit/hook.log` (`~/.cache/memgit/hook.log` without a repository;
`$MEMGIT_HOOK_LOG` overrides). It never waits for the sync lock.

This is the only module that speaks the hook protocol. It imports os, sys and time at the top and
nothing of memgit but memgit.core.quickjson (JSON without the json package's import), memgit.locate
(the repository, found without memgit.config) and memgit.hook.context (or memgit.hook.prompt): the
console script (memgit.entry) reaches it without click, and a session start served from the cache
never imports dulwich or yaml (tests/integration/test_fast_imports.py lists what it never imports).
"""

from __future__ import annotations

import os
import sys
import time

from memgit.core import quickjson
from memgit.locate import repo_path, xdg

EVENTS = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit", "session-end": "SessionEnd",
          "pre-compact": "PreCompact"}
MAX_INPUT = 1 << 20  # hook stdin is a few hundred bytes; more is not a hook payload
LOG_LIMIT = 256 * 1024  # a log past this size is moved to <name>.1 before the next line
HOOK_LOG = "hook.log"
SYNC_LOG = "hook-sync.log"  # the output of the background syncs the hooks start
SYNC_STAMP = "hook-sync.stamp"  # touched when session-start starts a sync
# The agents that call these hooks, and how each says so in its stdin's error messages.
AGENTS = {"claude-code": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}
DEFAULT_AGENT = "claude-code"
# Every agent reads SessionStart context from the same object: Claude Code (hooks doc, "Injecting
# context"), Codex (codex-rs/hooks/schema/generated/session-start.command.output.schema.json: no other
# key in hookSpecificOutput but `env`), Gemini CLI (packages/core/src/hooks/types.ts SessionStartOutput).
ANSWER = {agent: "hookSpecificOutput" for agent in AGENTS}
# The prompt hook's answer carries the event's name as each agent calls it: UserPromptSubmit for Claude
# Code and Codex (codex-rs/hooks/schema/generated/user-prompt-submit.command.output.schema.json), BeforeAgent
# for Gemini CLI (packages/core/src/hooks/types.ts BeforeAgentOutput: appended to this turn's prompt only).
PROMPT_EVENT = {"claude-code": "UserPromptSubmit", "codex": "UserPromptSubmit", "gemini": "BeforeAgent"}
RESTART_AFTER = 600  # seconds: a sync that left a session unread (a torn last line) is not rerun at every start
_PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # holds memgit/


class HookError(ValueError):
    """The hook cannot do its job with what it was given (logged, never shown)."""


def main(argv: list[str]) -> int:
    """Run the hook named by argv[0] (then `--agent NAME`, optionally) on stdin; return 0 whatever happens."""
    event = argv[0] if argv else ""
    env = os.environ
    try:
        run(event, _read_stdin(), env, now=time.time(), agent=agent_of(argv[1:]))
    except BaseException as e:  # noqa: BLE001 - the one boundary where everything is caught, logged, and dropped
        if env.get("MEMGIT_DEBUG"):
            raise
        log_failure(env, event, e)
    _settle_stdout()
    return 0


def agent_of(args: list[str]) -> str:
    """The agent named by `--agent NAME` (or `--agent=NAME`); Claude Code when none is.

    Raises:
        HookError: an argument memgit does not take, or an agent it does not know.
    """
    if not args:
        return DEFAULT_AGENT
    if len(args) == 2 and args[0] == "--agent":
        name = args[1]
    elif len(args) == 1 and args[0].startswith("--agent="):
        name = args[0].split("=", 1)[1]
    else:
        raise HookError(f"unexpected hook arguments {' '.join(args)!r}; expected --agent NAME")
    name = {"gemini-cli": "gemini", "claude": "claude-code"}.get(name, name)
    if name not in AGENTS:
        raise HookError(f"unknown agent {name!r}; expected one of {', '.join(AGENTS)}")
    return name


def run(event: str, raw: bytes, env, *, now: float, agent: str = DEFAULT_AGENT) -> None:
    """Handle one hook event: print the session-start or prompt answer, start the background sync.

    Raises:
        HookError: an unknown event, stdin that is not a JSON object, no usable session id, no prompt.
        Exception: anything reading the repository or the config raised (main logs it).
    """
    if event not in EVENTS:
        raise HookError(f"unknown hook event {event!r}; expected one of {', '.join(EVENTS)}")
    payload = parse_payload(raw, agent)
    repo = repo_path(env)
    if event == "session-start":
        session_start(payload, repo, env, now=now, agent=agent)
        return
    if event == "user-prompt-submit":
        user_prompt_submit(payload, repo, env, now=now, agent=agent)
        return
    session = payload.get("session_id")
    if not _valid_session_id(session):
        raise HookError(f"{EVENTS[event]} input has no usable session_id ({session!r}); nothing to sync")
    spawn_sync(["--session", session], repo, env, reason=event)


def session_start(payload: dict, repo: str, env, *, now: float, agent: str = DEFAULT_AGENT) -> None:
    """Print the context of the session's cwd; start a sync when finished sessions wait unread."""
    from memgit.hook import context

    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload["cwd"] else os.getcwd()
    session = payload.get("session_id") if _valid_session_id(payload.get("session_id")) else None
    transcript = payload.get("transcript_path") if isinstance(payload.get("transcript_path"), str) else None
    served = context.serve(repo, cwd, session_id=session, transcript_path=transcript, now=now)
    if served is None:
        return  # no memory repository yet: nothing to tell
    if served.text:
        write(answer(agent, served.text))
    for problem in served.problems:
        log_line(env, "session-start", problem)
    if not served.eligible:
        return
    from memgit.store.lock import is_held  # fcntl, memgit.errors: only when a sync may be started

    state = os.path.join(repo, ".git", "memgit")
    if not is_held(state) and not _started_lately(state, now):
        spawn_sync(["--no-wait"], repo, env, reason="session-start")
        _touch(os.path.join(state, SYNC_STAMP))


def user_prompt_submit(payload: dict, repo: str, env, *, now: float, agent: str = DEFAULT_AGENT) -> None:
    """Print the memories relevant to the prompt, if any clear the bar; never update the index."""
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        raise HookError(f"{PROMPT_EVENT.get(agent, 'UserPromptSubmit')} input has no prompt ({type(prompt).__name__})")
    from memgit.hook import prompt as recall

    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) and payload["cwd"] else os.getcwd()
    found = recall.recall(repo, cwd, prompt, now=now)
    if found.text:
        write(answer(agent, found.text, PROMPT_EVENT[agent]))
    for problem in found.problems:
        log_line(env, "user-prompt-submit", problem)


def write(answer: str) -> None:
    """Write one whole JSON answer to stdout, built first and written once."""
    out = sys.stdout.buffer
    out.write(answer.encode("ascii") + b"\n")
    out.flush()


def answer(agent: str, text: str, event: str = "SessionStart") -> str:
    """The answer to `event` (SessionStart, or the prompt's event) in the shape `agent` reads (see ANSWER),
    as json.dumps writes it."""
    if ANSWER.get(agent) == "hookSpecificOutput":
        return (f'{{"hookSpecificOutput": {{"hookEventName": {quickjson.quote(event)}, '
                f'"additionalContext": {quickjson.quote(text)}}}}}')
    raise HookError(f"no {event} answer for agent {agent!r}")


def parse_payload(raw: bytes, agent: str = DEFAULT_AGENT) -> dict:
    """Return the hook's stdin as a dict.

    Raises:
        HookError: it is empty, not JSON, or not a JSON object.
    """
    if not raw.strip():
        raise HookError(f"empty hook input (stdin); {AGENTS.get(agent, agent)} sends a JSON object")
    try:
        payload = quickjson.loads(raw)
    except ValueError as e:
        raise HookError(f"the hook input is not JSON: {e}") from e
    if not isinstance(payload, dict):
        raise HookError(f"the hook input is a JSON {type(payload).__name__}, not an object")
    return payload


def _valid_session_id(value: object) -> bool:
    """The agents' session ids are UUIDs; anything else never reaches a command line."""
    return (isinstance(value, str) and 0 < len(value) <= 128 and value.isascii()
            and all(c.isalnum() or c in "-_" for c in value))


def _read_stdin() -> bytes:
    stream = sys.stdin
    if stream is None or stream.isatty():  # run by hand in a terminal: do not wait for input
        return b""
    return stream.buffer.read(MAX_INPUT)


def _settle_stdout() -> None:
    """Make sure exiting cannot fail on a closed stdout (Python would exit 120)."""
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass


# ---- where things are -------------------------------------------------------------------------


def _log_dir(env) -> str:
    """The repository's state dir, or ~/.cache/memgit when there is no repository (or no config)."""
    try:
        repo = repo_path(env)
    except Exception:  # noqa: BLE001 - a broken config is what is being logged
        repo = None
    if repo and os.path.isdir(os.path.join(repo, ".git")):
        return os.path.join(repo, ".git", "memgit")
    return os.path.join(xdg(env, "XDG_CACHE_HOME", ".cache"), "memgit")


# ---- logging ----------------------------------------------------------------------------------


def log_failure(env, event: str, error: BaseException) -> None:
    """Append why a hook gave up: the exception, its message and where it was raised."""
    tb, where = error.__traceback__, ""
    while tb is not None:
        where = f" [{os.path.basename(tb.tb_frame.f_code.co_filename)}:{tb.tb_lineno}]"
        tb = tb.tb_next
    message = " ".join(str(error).split())[:500]
    kind = type(error).__name__
    if type(error).__module__ != "builtins":
        kind = f"{type(error).__module__}.{kind}"  # zlib.error says more than error
    log_line(env, event, f"{kind}: {message}{where}")


def log_line(env, event: str, message: str) -> None:
    """Append one line to the hook log; when even that fails (a full disk), stderr gets it."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    line = f"{stamp} {event or '-'} pid {os.getpid()}: {_safe(message)}\n"
    path = env.get("MEMGIT_HOOK_LOG") or os.path.join(_log_dir(env), HOOK_LOG)
    try:
        _append(path, line.encode("utf-8", "replace"))
    except OSError:
        try:
            sys.stderr.write(line)  # Claude Code keeps a hook's stderr in its debug log
            sys.stderr.flush()
        except (OSError, ValueError):
            pass


def _safe(message: str) -> str:
    """The message as it may be written to disk: secrets redacted, control characters escaped."""
    try:
        from memgit.core.names import safe_text

        return safe_text(message)
    except Exception:  # noqa: BLE001 - whatever broke, the line is still written, without what it cannot vouch for
        return "(message withheld: it could not be checked for secrets)"


def _append(path: str, data: bytes) -> None:
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    try:
        if os.path.getsize(path) > LOG_LIMIT:
            os.replace(path, path + ".1")
    except OSError:
        pass  # no log yet, or a device such as /dev/full
    with open(path, "ab") as f:
        f.write(data)


# ---- the background sync ----------------------------------------------------------------------


def _started_lately(state_dir: str, now: float) -> bool:
    try:
        return now - os.stat(os.path.join(state_dir, SYNC_STAMP)).st_mtime < RESTART_AFTER
    except OSError:
        return False


def _touch(path: str) -> None:
    try:
        with open(path, "ab"):
            pass
        os.utime(path)
    except OSError:
        pass  # at worst the next session start starts another sync


def spawn_sync(args: list[str], repo: str, env, *, reason: str) -> int:
    """Start `memgit sync ARGS` detached (own session, no inherited pipes, lower priority); return its pid.

    Its output goes to `.git/memgit/hook-sync.log`; the hook never waits for it.
    """
    import subprocess

    log_dir = _log_dir(env)
    command = [sys.executable, "-m", "memgit.entry", "sync", *args]
    path = os.path.join(log_dir, SYNC_LOG)
    try:
        os.makedirs(log_dir, exist_ok=True)
        _append(path, b"")  # rotates a long log
        out = open(path, "ab")
    except OSError:
        out = None  # a full disk: the sync still runs, its output is lost
    try:
        child = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=out or subprocess.DEVNULL, stderr=subprocess.STDOUT,
            close_fds=True, start_new_session=True, cwd=log_dir if os.path.isdir(log_dir) else "/",
            env=_child_env(env),
        )
    finally:
        if out is not None:
            out.close()
    try:
        os.setpriority(os.PRIO_PROCESS, child.pid, 10)  # the user is starting to work: the sync can wait
    except OSError:
        pass  # it exited already, or the platform says no: it runs at normal priority
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    try:  # the child prints nothing before its imports are done: this line comes first
        _append(path, f"{stamp} {reason}: started memgit sync {' '.join(args)} (pid {child.pid})\n".encode())
    except OSError:
        pass
    return child.pid


def _child_env(env) -> dict:
    """The hook's environment, able to import the very memgit that runs the hook."""
    child = dict(env)
    # sys.path[0] is the hook's own directory (or cwd with -m): the child, started elsewhere, lacks it.
    if _PACKAGE_ROOT not in sys.path[1:]:
        child["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, env.get("PYTHONPATH")]))
    return child
