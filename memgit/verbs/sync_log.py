"""sync.log: what a sync run logs (failed sessions' tracebacks, model calls, memgit's warnings), redacted."""

from __future__ import annotations

import logging
from pathlib import Path

from memgit.core.names import safe_text


class _SafeRecords(logging.Filter):
    """What reaches sync.log is redacted like everything else memgit writes (a traceback quotes the
    line that failed, an LLM error may quote the request)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = safe_text(record.getMessage()), ()
        if record.exc_info:
            record.exc_text = safe_text(logging.Formatter().formatException(record.exc_info))
            record.exc_info = None
        return True


def log_to_state_dir(state_dir: Path) -> None:
    """Send tracebacks of failed sessions, the LLM calls and every other memgit warning (a cache that
    cannot be written, say) to .git/memgit/sync.log (once per process), not to the terminal."""
    target = str((state_dir / "sync.log").absolute())
    loggers = (logging.getLogger("memgit"),)  # memgit.verbs.sync, memgit.llm, memgit.memory_cache... propagate to it
    for logger in loggers:
        for old in [h for h in logger.handlers if getattr(h, "_memgit", False)]:
            if old.baseFilename == target:
                return
            logger.removeHandler(old)  # a previous run in this process wrote to another repository
            old.close()
    state_dir.mkdir(parents=True, exist_ok=True)
    handler = _LogFile(target, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
    handler.addFilter(_SafeRecords())
    handler._memgit = True
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)


class _LogFile(logging.FileHandler):
    """sync.log: a full or read-only disk loses a log line, and says nothing (the run reports the
    failure itself); logging's default would print a traceback to stderr."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass
