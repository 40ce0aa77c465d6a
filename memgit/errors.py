"""The errors memgit reports to a person: a message saying what happened and what to do next."""


class MemgitError(Exception):
    """An expected failure: shown as one `Error: ...` line and a non-zero exit."""

    exit_code = 1
    code = "error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class NotARepo(MemgitError):
    exit_code = 3
    code = "not_a_repo"


class ConfigError(MemgitError):
    exit_code = 4
    code = "config"


class TranscriptError(MemgitError):
    exit_code = 5
    code = "transcript"


class TranscriptGone(TranscriptError):
    """A transcript listed a moment ago is not there any more (deleted, or its symlink broken)."""


class SecretFound(MemgitError):
    exit_code = 6
    code = "secret_found"


class ConflictError(MemgitError):
    exit_code = 7
    code = "conflict"


class LLMError(MemgitError):
    exit_code = 8
    code = "llm"


class LockHeld(MemgitError):
    exit_code = 9
    code = "lock_held"
