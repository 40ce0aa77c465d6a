"""Find secrets in text, replace them with `[REDACTED:<kind>]`, and refuse commits that still hold one.

Pure: text in, text or findings out. A finding never carries the secret's value, only its kind and
where it is. The rules (`core/secret_rules`: memgit's own and gitleaks' vendored set) aim at
precision as much as recall: transcripts are full of SHAs, UUIDs, digests, paths and talk *about*
tokens, and redacting those would make memory useless.

Speed: every rule has keywords and runs only where one occurs (gitleaks' prefilter). One pass
finds all keywords in the lowercased bytes; then a rule whose matches start with a keyword is tried
at those offsets alone, one whose matches contain one is searched in a window around them, and only
the few others scan the whole text (see `core/secret_rules/anchors.py`). Short texts, the common
case, cost one automaton pass and a few anchored tries. Rules run over UTF-8 bytes (case-insensitive
ones over the ASCII-lowercased copy, so offsets stay aligned).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Iterator, Mapping, Sequence

from memgit.core.secret_rules import Rule, Span, keyword_scan, rules, rules_by_keyword
from memgit.core.secret_rules.own import continues_word
from memgit.errors import ConfigError, SecretFound
from memgit.core.model import Learning, Note, Transcript

MAX_LISTED = 5  # findings named in a SecretFound message
_PLACEHOLDER = re.compile(rb"\[REDACTED:[a-z0-9_]{1,64}\]")  # what an earlier redaction left: never a secret


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    start: int  # offsets into the scanned text; the value itself is never stored or reported
    end: int
    line: int  # 1-based


def _matches(rule: Rule, raw: bytes, lowered: bytes, offsets: list[int]) -> Iterator[re.Match[bytes]]:
    """The rule's matches, tried only where its keywords (or anchors) put them (see the module doc)."""
    pattern, placement = rule.pattern, rule.placement
    target = lowered if rule.fold else raw
    if placement.anchors:
        offsets = [m.start() for m in _anchor_pattern(placement.anchors).finditer(lowered)]
    if placement.mode == "at":
        after = -1
        for offset in offsets:
            if offset >= after:
                m = pattern.match(target, offset)
                if m:
                    after = m.end()
                    yield m
    elif placement.mode == "near":
        n, reach = len(target), placement.reach
        for lo, hi in _windows(offsets, reach, n):
            for m in pattern.finditer(target, lo, hi):
                if m.end() < hi or hi == n:
                    yield m
                else:  # cut short by the window's end (\b, $ hold there): as the whole text reads it
                    whole = pattern.match(target, m.start())
                    if whole:
                        yield whole
    elif all(literal in lowered for literal in placement.required):  # e.g. ://, contribsys
        yield from pattern.finditer(target)


@lru_cache(maxsize=64)
def _anchor_pattern(anchors: tuple[bytes, ...]) -> re.Pattern[bytes]:
    return re.compile(b"|".join(re.escape(a) for a in anchors))


def _windows(offsets: list[int], reach: int, n: int) -> list[Span]:
    """Merge [offset - reach, offset + reach] around each offset into disjoint, sorted windows."""
    windows: list[list[int]] = []
    for offset in offsets:
        lo, hi = max(0, offset - reach), min(n, offset + reach)
        if windows and lo <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], hi)
        else:
            windows.append([lo, hi])
    return [(lo, hi) for lo, hi in windows]


@lru_cache(maxsize=32)
def _compiled(patterns: tuple[str, ...], key: str) -> tuple[re.Pattern[str], ...]:
    """Compile the user's `[redact] extra_patterns` or `allow` once."""
    compiled = []
    for source in patterns:
        try:
            compiled.append(re.compile(source))
        except re.error as e:
            raise ConfigError(f"bad regex in [redact] {key}: {source!r}: {e}; fix or remove it") from e
    return tuple(compiled)


def _allowed(value: str, allow: tuple[re.Pattern[str], ...]) -> bool:
    return any(p.fullmatch(value) for p in allow)


def _claim(taken: list[Span], span: Span) -> bool:
    """Add `span` to the sorted, non-overlapping `taken` unless it overlaps one already there."""
    i = bisect.bisect_left(taken, span)
    if (i > 0 and taken[i - 1][1] > span[0]) or (i < len(taken) and taken[i][0] < span[1]):
        return False
    taken.insert(i, span)
    return True


def _builtin_spans(raw: bytes, allow: tuple[re.Pattern[str], ...]) -> list[tuple[Span, str]]:
    """The built-in rules' findings in order: spans of bytes, with their kinds."""
    lowered = raw.lower()  # ASCII only, so offsets stay aligned with `raw`
    hits = keyword_scan().hits(lowered)
    taken: list[Span] = [m.span() for m in _PLACEHOLDER.finditer(raw)] if b"[REDACTED:" in raw else []
    kinds: dict[Span, str] = {}
    every, by_keyword = rules(), rules_by_keyword()
    for rule in map(every.__getitem__, sorted({i for k in hits for i in by_keyword[k]})):
        offsets = [o for k in rule.keywords for o in hits.get(k, ())]
        if len(rule.keywords) > 1:
            offsets.sort()
        for m in _matches(rule, raw, lowered, offsets):
            if rule.bounded and continues_word(raw, m.start()):
                continue
            span = rule.judge(m, raw)
            if not span or span[0] >= span[1]:
                continue
            if allow and _allowed(raw[span[0] : span[1]].decode("utf-8", "surrogatepass"), allow):
                continue
            if _claim(taken, span):
                kinds[span] = rule.kind
    return [(span, kinds[span]) for span in taken if span in kinds]


def _char_spans(text: str, raw: bytes, spans: list[Span]) -> list[Span]:
    """Turn sorted spans of UTF-8 bytes into spans of characters."""
    if text.isascii():
        return spans
    chars, done, out = 0, 0, []  # byte offset `done` is character offset `chars`
    for start, end in spans:
        first = chars + len(raw[done:start].decode("utf-8", "surrogatepass"))
        chars, done = first + len(raw[start:end].decode("utf-8", "surrogatepass")), end
        out.append((first, chars))
    return out


# ---- the public functions -----------------------------------------------------------------


def _user_patterns(extra_patterns: Sequence[str], allow: Sequence[str]) -> tuple[tuple[re.Pattern[str], ...], ...]:
    """The user's extra patterns and allow list, compiled; `allow` also rides on the extra patterns
    from the config (`config.RedactPatterns`), so every caller passing those honours it."""
    allowed = (*allow, *getattr(extra_patterns, "allow", ()))
    return _compiled(tuple(extra_patterns), "extra_patterns"), _compiled(tuple(allowed), "allow")


def find_secrets(text: str, extra_patterns: Sequence[str] = (), *, allow: Sequence[str] = ()) -> list[Finding]:
    """Return the secrets in `text`, in order, without overlaps.

    `extra_patterns` add findings of kind `custom` (a group named `secret` limits the span); a
    finding whose value fully matches one of the `allow` regexes is not one.
    """
    extra, allowed = _user_patterns(extra_patterns, allow)
    raw = text.encode("utf-8", "surrogatepass")
    builtin = _builtin_spans(raw, allowed)
    taken = _char_spans(text, raw, [span for span, _ in builtin])
    kinds = {span: kind for span, (_, kind) in zip(taken, builtin)}
    for pattern in extra:
        for m in pattern.finditer(text):
            span = m.span("secret") if "secret" in pattern.groupindex else m.span()
            if span[0] < span[1] and not _allowed(text[span[0] : span[1]], allowed) and _claim(taken, span):
                kinds[span] = "custom"
    findings, line, counted = [], 1, 0
    for start, end in taken:
        line += text.count("\n", counted, start)
        counted = start
        findings.append(Finding(kinds[(start, end)], start, end, line))
    return findings


def secrets_in_each(texts: Sequence[str], extra_patterns: Sequence[str] = (), *,
                    allow: Sequence[str] = ()) -> list[list[Finding]]:
    """`find_secrets` of each text. A rule runs only where one of its keywords occurs, so one pass of
    the keyword scan over them all tells which texts may hold a secret, and only those are searched:
    thousands of file names cost one pass. The user's patterns have no keywords: with some, every text
    is searched."""
    extra, _ = _user_patterns(extra_patterns, allow)
    scan = keyword_scan()
    if extra or len(texts) < 2 or any("\n" in k for k in scan.keywords):
        return [find_secrets(text, extra_patterns, allow=allow) for text in texts]
    encoded = [text.encode("utf-8", "surrogatepass") for text in texts]
    starts, at = [], 0
    for raw in encoded:
        starts.append(at)
        at += len(raw) + 1
    hit = {bisect.bisect_right(starts, offset) - 1 for offsets in scan.hits(b"\n".join(encoded).lower()).values()
           for offset in offsets}
    return [find_secrets(text, extra_patterns, allow=allow) if i in hit else [] for i, text in enumerate(texts)]


def redact_count(text: str, extra_patterns: Sequence[str] = (), *, allow: Sequence[str] = ()) -> tuple[str, int]:
    """Replace each secret with `[REDACTED:<kind>]`; return the text and how many were replaced."""
    findings = find_secrets(text, extra_patterns, allow=allow)
    if not findings:
        return text, 0
    parts, pos = [], 0
    for f in findings:
        parts += (text[pos : f.start], f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), len(findings)


def redact(text: str, extra_patterns: Sequence[str] = (), *, allow: Sequence[str] = ()) -> str:
    """Replace each secret in `text` with `[REDACTED:<kind>]`."""
    return redact_count(text, extra_patterns, allow=allow)[0]


def gate(blobs: Mapping[str, bytes], extra_patterns: Sequence[str] = (), *, allow: Sequence[str] = ()) -> None:
    """Refuse a commit whose files hold a secret.

    Args:
        blobs: path -> content of every file about to be committed.
        extra_patterns: the user's `[redact] extra_patterns`.
        allow: the user's `[redact] allow`: values that are not secrets.

    Raises:
        SecretFound: naming the kind and `path:line` of each finding (never the value).
        ConfigError: an extra or allow pattern is not a valid regex.
    """
    found = [
        (path, f)
        for path, blob in blobs.items()
        for f in find_secrets(blob.decode("utf-8", errors="replace"), extra_patterns, allow=allow)
    ]
    if not found:
        return
    listed = ", ".join(f"{path}:{f.line} ({f.kind})" for path, f in found[:MAX_LISTED])
    more = f" and {len(found) - MAX_LISTED} more" if len(found) > MAX_LISTED else ""
    raise SecretFound(
        f"refusing to commit: {len(found)} possible secret(s) at {listed}{more}; nothing was committed. "
        "Remove the value from that file (or reword it if it is not a secret) and run the command again"
    )


# ---- redaction of values: transcripts before extraction, notes after it --------------------


def redact_transcript(t: Transcript, extra: Sequence[str], *, allow: Sequence[str] = ()) -> Transcript:
    """Replace secrets in every text a transcript carries, before any extractor sees it."""
    def keyed(key, value):
        # {"password": "hunter22"}: the key is the context that makes the value a secret.
        if isinstance(value, str) and isinstance(key, str):
            text = redact(f"{key}={value}", extra, allow=allow)
            return text[len(key) + 1:] if text.startswith(f"{key}=") else redact(value, extra, allow=allow)
        return clean(value)

    def clean(value):
        if isinstance(value, str):
            return redact(value, extra, allow=allow) if value else value
        if isinstance(value, dict):
            return {k: keyed(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    turns = [
        replace(
            turn,
            text=clean(turn.text),
            tool_calls=[replace(c, input=clean(c.input), output=clean(c.output), harness=clean(c.harness),
                                declined=clean(c.declined)) for c in turn.tool_calls],
        )
        for turn in t.turns
    ]
    return replace(t, turns=turns, cwd=clean(t.cwd), title=clean(t.title), git_branch=clean(t.git_branch),
                   hooks=[(when, kind, clean(command)) for when, kind, command in t.hooks])


def redact_note(note: Note, extra: Sequence[str], *, allow: Sequence[str] = ()) -> Note:
    """Redact an extractor's output again: it may have stitched a secret together."""
    r = lambda text: redact(text, extra, allow=allow) if text else text  # noqa: E731
    return replace(
        note,
        title=r(note.title),
        summary=r(note.summary),
        learnings=[Learning(item.type, r(item.text)) for item in note.learnings],
        keywords=[r(k) for k in note.keywords],
    )
