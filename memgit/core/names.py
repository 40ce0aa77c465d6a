"""Names and text from the outside world, made fit to be written into git.

A transcript's file name, its folder, a session's cwd or a git branch come from disk and from the
agent, not from memgit: they may hold a secret (a token pasted into a folder name), bytes that are
not UTF-8 (a file name is bytes on POSIX), control characters (a NUL makes `git fsck` reject a
commit), or whitespace that a trailer would collapse (so the ledger would no longer match the
file). Pure: strings in, strings out.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from functools import lru_cache

# C0 and C1 controls (tab and newline aside), DEL, line/paragraph separators, lone surrogates
# (how Python carries a file name's undecodable bytes).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff]")
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
MAX_NAME = 200
_SEPARATORS = "-./ "  # what separates the parts of a path, a branch or an encoded folder name
STAND_IN = "h-"  # a name replaced by its hash reads h-<16 hex>


def printable(text: str) -> str:
    """`text` with every control character and lone surrogate written as an escape (\\x00, \\udc80);
    tabs and newlines stay."""
    if text.isprintable() or not _CONTROL.search(text):
        return text
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)


def plain(name: str, extra_patterns: Sequence[str] = (), allow: Sequence[str] = ()) -> bool:
    """True when `name` can be written as it is: printable UTF-8, single inner spaces, no
    surrounding whitespace, not too long, and no secret in it."""
    if _UUID.fullmatch(name):  # how agents name their session files: nothing to look for
        return True
    from memgit.core import redact

    if not (name and len(name) <= MAX_NAME and name.isprintable() and name == name.strip() and "  " not in name):
        return False
    # Claude Code turns every other character of a cwd into '-': a token in a folder name follows
    # a dash, where a rule that wants a word boundary would not look. Each part is checked alone too.
    starts = [0] + [i + 1 for i, c in enumerate(name) if c in _SEPARATORS and i + 1 < len(name)]
    return not any(redact.find_secrets(name[i:], extra_patterns, allow=allow) for i in starts)


def safe_name(name: str, extra_patterns: Sequence[str] = ()) -> str:
    """`name` when it is plain, else a stand-in derived from its bytes: stable from run to run (the
    ledger finds the session again), never the original (a secret is not written by another name)."""
    allow = tuple(getattr(extra_patterns, "allow", ()))  # [redact] allow rides on the patterns (config.RedactPatterns)
    return _safe_name(name, tuple(extra_patterns), allow)


@lru_cache(maxsize=8192)  # a sync names each of a thousand sessions several times
def _safe_name(name: str, extra_patterns: tuple[str, ...], allow: tuple[str, ...]) -> str:
    return name if plain(name, extra_patterns, allow) else stand_in(name)


def stand_in(name: str) -> str:
    """The stand-in `safe_name` gives a name that is not plain (cheap: the hook matches with it)."""
    return STAND_IN + hashlib.sha256(name.encode("utf-8", "surrogateescape")).hexdigest()[:16]


def safe_label(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """A short one-line label from outside (a cwd, a git branch) made safe: as safe_text, and a
    secret that starts a path part (`feature/<token>`, `-home-u-<token>`) is found there too."""
    from memgit.core import redact

    text = printable(text)
    allow = tuple(getattr(extra_patterns, "allow", ()))
    spans: list[tuple[int, int, str]] = []
    for i in [0] + [i + 1 for i, c in enumerate(text) if c in _SEPARATORS and i + 1 < len(text)]:
        for f in redact.find_secrets(text[i:], extra_patterns, allow=allow):
            start, end = i + f.start, i + f.end
            if not any(s < end and start < e for s, e, _ in spans):
                spans.append((start, end, f.kind))
    for start, end, kind in sorted(spans, reverse=True):
        text = f"{text[:start]}[REDACTED:{kind}]{text[end:]}"
    return text


def safe_text(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """Free text to be written (a commit message, a reason, a cwd): secrets redacted, control
    characters escaped."""
    from memgit.core import redact

    return redact.redact(printable(text), extra_patterns)
