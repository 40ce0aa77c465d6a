"""The secret gate every commit passes: its files, their names, its message and its branch name.

One place decides what the gate sees of a commit, so no part of a commit can slip past it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence

from memgit.core.names import safe_text

Gate = Callable[[Mapping[str, bytes]], None]
MESSAGE_KEY = "<commit message>"  # how the gate sees the commit message
REF_KEY = "<branch name>"  # and the branch the commit goes to
PATHS_KEY = "<file names>"  # and the names of the files it writes


def redact_gate(blobs: Mapping[str, bytes], extra_patterns: Sequence[str]) -> None:
    """Raise SecretFound if any blob holds a secret (the default gate)."""
    from memgit.core import redact

    redact.gate(blobs, extra_patterns)


def gate_commit(
    gate: Gate, files: Mapping[str, bytes], message: str, branch: str, extra_patterns: Sequence[str]
) -> str:
    """Make the message safe, let the gate see the whole commit, and return the message to write.

    The message is made safe first (secrets redacted, control characters escaped) and ends with
    a newline; then the gate refuses a file, a file name, the message or the branch name that
    still holds a secret.

    Raises:
        SecretFound: the gate refused something; nothing has been written yet.
    """
    message = safe_text(message if message.endswith("\n") else message + "\n", extra_patterns)
    gate({**files, MESSAGE_KEY: message.encode(), REF_KEY: branch.encode(),
          PATHS_KEY: "\n".join(files).encode("utf-8", "surrogateescape")})
    return message


def refused(changes: Mapping[bytes, tuple[int, bytes] | None], extra_patterns: Sequence[str]) -> dict[str, str]:
    """The changed files whose name or content holds a secret: {path: what was found, where}."""
    from memgit.core import redact

    found_in = {}
    for raw, change in changes.items():
        path = os.fsdecode(raw)
        found = [("the file name", f) for f in redact.find_secrets(path, extra_patterns)]
        if change is not None:
            text = change[1].decode("utf-8", "replace")
            found += [(f"line {f.line}", f) for f in redact.find_secrets(text, extra_patterns)]
        if found:
            found_in[path] = ", ".join(f"{f.kind} in {where}" for where, f in found[:3])
    return found_in
