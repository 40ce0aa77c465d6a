"""Gitleaks' rule set, vendored as data (`gitleaks.toml`, MIT; see NOTICE.md), turned into `Rule`s.

Each rule is honoured as gitleaks runs it: its keywords gate it, its secret is the `secretGroup`
or the first non-empty group, a secret at or under its `entropy` is dropped, and so is one that its
allowlists or the global allowlist allow (regexes against the secret, the match or the line;
stopwords in the secret). What needs a file path (path-only rules, allowlists by path or commit)
cannot apply to transcript text and is left out; a rule whose pattern `re2.translate` cannot carry
over faithfully is left out too (none in the vendored file; a test checks it).

The semi-generic rules start with `[\\w.-]{0,50}?`, the name around their keyword. That lazy
prefix decides nothing but where the match starts, and it would make `re` try fifty widths at
every byte; it is dropped from the pattern and the name is read back from the text when an
allowlist needs the whole match.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache

from memgit.core.secret_rules.judge import is_placeholder, shannon_entropy
from memgit.core.secret_rules.re2 import scoped, translate
from memgit.core.secret_rules.rule import Rule, Span

GENERIC = "generic-api-key"  # the catch-all: it runs after memgit's own assignment rules
_NAME_PREFIX = re.compile(r"^((?:\(\?i\)|\(\?i:)*)\[\\w\.-\]\{0,50\}\?")
_NAME_CHARS = re.compile(rb"[\w.-]{0,100}\Z")


@dataclass(frozen=True, slots=True)
class Allowlist:
    target: str  # "secret", "match" or "line": what the regexes are tried on
    source: str  # all its regexes joined, like gitleaks does ("" for none); compiled on first use
    stopwords: tuple[str, ...]  # lowercase; a secret holding one is allowed

    @property
    def regexes(self) -> re.Pattern[bytes] | None:
        return _compiled(self.source) if self.source else None

    def allows(self, secret: bytes, match: bytes, line: bytes) -> bool:
        target = {"secret": secret, "match": match, "line": line}[self.target]
        if self.source and _compiled(self.source).search(target):
            return True
        low = secret.decode("utf-8", "replace").lower()
        return _holds_stopword(self.stopwords, low)


@lru_cache(maxsize=None)
def _compiled(source: str) -> re.Pattern[bytes]:
    return re.compile(source.encode())


@lru_cache(maxsize=None)
def _stopword_pattern(stopwords: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(re.escape(w) for w in sorted(stopwords, key=len, reverse=True)))


def _holds_stopword(stopwords: tuple[str, ...], low: str) -> bool:
    return bool(stopwords) and _stopword_pattern(stopwords).search(low) is not None


def _allowlist(entry: dict) -> Allowlist | None:
    """An allowlist as data, or None when it depends on paths or commits (memgit has neither)."""
    needs_path = bool(entry.get("paths") or entry.get("commits"))
    if needs_path and (entry.get("condition") == "AND" or not (entry.get("regexes") or entry.get("stopwords"))):
        return None
    joined = "|".join(scoped(translate(r)) for r in entry.get("regexes", ()))
    return Allowlist(entry.get("regexTarget", "secret"), joined, tuple(w.lower() for w in entry.get("stopwords", ())))


def _judge(rule: dict, allowlists: tuple[Allowlist, ...], name_prefix: bool):
    """The function that turns a match of this rule into the span of its secret, or None."""
    group = rule.get("secretGroup", 0)
    entropy = float(rule.get("entropy", 0.0))

    def judge(m: re.Match[bytes], raw: bytes) -> Span | None:
        if group and m.re.groups >= group:
            span = m.span(group)
        else:
            span = next((m.span(i) for i in range(1, m.re.groups + 1) if m.start(i) < m.end(i)), m.span())
        if span[0] < 0 or span[0] >= span[1]:
            return None
        secret = raw[span[0] : span[1]]
        text = secret.decode("utf-8", "replace")
        if entropy and shannon_entropy(text) <= entropy:
            return None
        if is_placeholder(text):
            return None
        start, end = m.span()
        if name_prefix:
            start -= len(_NAME_CHARS.search(raw, max(0, start - 100), start).group())  # type: ignore[union-attr]
        newline = raw.find(b"\n", end)
        match = raw[start:end]
        line = raw[raw.rfind(b"\n", 0, start) + 1 : len(raw) if newline < 0 else newline]
        for allowlist in (*_global_allowlists(), *allowlists):
            if allowlist.allows(secret, match, line):
                return None
        return span

    return judge


VENDORED = os.path.join(os.path.dirname(__file__), "gitleaks.toml")


@lru_cache(maxsize=1)
def _config() -> dict:
    import tomllib  # here, not at import: a sync with nothing to redact never reads the rules

    with open(VENDORED, "rb") as f:
        return tomllib.load(f)


@lru_cache(maxsize=1)
def _global_allowlists() -> tuple[Allowlist, ...]:
    entry = _allowlist(_config().get("allowlist", {}))
    return (entry,) if entry else ()


@lru_cache(maxsize=None)
def _allowlists_of(rule_id: str) -> tuple[Allowlist, ...]:
    [entry] = [e for e in _config()["rules"] if e["id"] == rule_id]
    return tuple(a for a in map(_allowlist, entry.get("allowlists", ())) if a)


def allows(rule_id: str, secret: bytes) -> bool:
    """Whether gitleaks' allowlists (the rule's and the global one) allow `secret` for `rule_id`.

    For memgit's own rules that cover the same ground as a gitleaks rule: the same known public
    sample keys and stand-ins are kept.
    """
    return any(a.allows(secret, secret, secret) for a in (*_global_allowlists(), *_allowlists_of(rule_id)))


@lru_cache(maxsize=1)
def name_allowlist() -> re.Pattern[bytes]:
    """Gitleaks' list of names that hold no secret (`public_token`, `csrf-token`, `key_length`, ...),
    tried on a whole `name = value` match, as its generic-api-key rule does."""
    [names] = [a for a in _allowlists_of(GENERIC) if a.target == "match" and a.regexes is not None]
    return names.regexes  # type: ignore[return-value]


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    """The generic rule's stopwords: words and known published values that are no one's secret."""
    return frozenset(w for a in _allowlists_of(GENERIC) for w in a.stopwords)


# Most vendor rules end a secret at a quote, a space, a semicolon or the end of the text. In prose
# (what a person or an agent writes, and memgit's notes), in a quoted command or a JSON string, it
# also ends a sentence: "the key is <value>." must be found as "the key is <value>" is. Where a
# rule's pattern ends with a group that accepts the end of the text, closing punctuation followed
# by what ends a value is accepted there too (Go syntax: before translation).
_CLOSING = r"""[.,:;!?)]+(?:[\s"'\x60}\],;]|\\[nrt]|$)|['"\x60]+(?:\r?\n|\\[nr]|$)"""


def prose_end(pattern: str) -> str:
    """`pattern` whose final group, if one of its alternatives is the end of the text, also accepts
    closing punctuation (see _CLOSING); else `pattern` unchanged."""
    group = _final_group(pattern)
    if group is None:
        return pattern
    start, end = group  # the group's text is pattern[start:end], "(?:" ... ")"
    inner = pattern[start + 3 : end - 1]
    if not pattern.startswith("(?:", start) or not {"$", "\\z"} & set(_alternatives(inner)):
        return pattern
    return pattern[:start] + "(?:" + inner + "|" + _CLOSING + ")" + pattern[end:]


def _syntax(pattern: str):
    """(index, character) of each character of `pattern` that is regex syntax: not escaped, not
    inside a character class (where a leading `]` is a member: `[]…]`, `[^]…]`)."""
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if pattern.startswith(("[]", "[^]"), i):
                i += 2 if pattern[i + 1] == "]" else 3
                continue
        else:
            yield i, c
        i += 1


def _final_group(pattern: str) -> tuple[int, int] | None:
    """(start, end) of the parenthesised group that ends `pattern`, if one does."""
    stack: list[int] = []
    last = None
    for i, c in _syntax(pattern):
        if c == "(":
            stack.append(i)
        elif c == ")" and stack:
            last = (stack.pop(), i + 1)
    return last if last and last[1] == len(pattern) else None


def _alternatives(inner: str) -> list[str]:
    """The top-level alternatives of a group's content."""
    cuts, depth = [-1], 0
    for i, c in _syntax(inner):
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            cuts.append(i)
    cuts.append(len(inner))
    return [inner[a + 1 : b] for a, b in zip(cuts, cuts[1:])]


# Where memgit runs a vendored rule differently, and why (Python syntax; see NOTICE.md).
_OVERRIDES = {
    # Gitleaks also takes any 40-hex string in a text that names Sourcegraph: in transcripts, that
    # is every git SHA of a `git log` run in a Sourcegraph checkout. The bare form stays only where
    # it is given to a sourcegraph name, the way gitleaks' other vendor rules read.
    "sourcegraph-access-token":
        r"(?i)\b(sgp_(?:[a-f0-9]{16}|local)_[a-f0-9]{40}|sgp_[a-f0-9]{40})\b"
        r"|sourcegraph[ \t\w.-]{0,20}[\s'\"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\x60'\"\s=]{0,5}([a-f0-9]{40})"
        r"(?:[\x60'\"\s;]|\\[nr]|\Z)",
}


def _rule(entry: dict) -> Rule | None:
    """One gitleaks rule as a `Rule`, or None if it cannot run on text without a path."""
    if "regex" not in entry:
        return None  # path-only: flags a file by its name
    try:
        source = _OVERRIDES.get(entry["id"]) or translate(prose_end(entry["regex"]))
        allowlists = tuple(a for a in map(_allowlist, entry.get("allowlists", ())) if a)
    except ValueError:
        return None
    prefixed = _NAME_PREFIX.search(source)
    if prefixed:
        source = prefixed.group(1) + source[prefixed.end():]
        source = _NAME_PREFIX.sub(lambda p: p.group(1), source, count=1)  # the inner one of a (?i:...) rule
    keywords = tuple(dict.fromkeys(k.lower() for k in entry.get("keywords", ())))
    return Rule(entry["id"].replace("-", "_"), keywords, source, _judge(entry, allowlists, bool(prefixed)))


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """Every gitleaks rule that applies to text, in the vendored file's order, the generic one last."""
    entries = sorted(_config()["rules"], key=lambda e: e["id"] == GENERIC)
    return tuple(r for r in map(_rule, entries) if r is not None)


def skipped() -> list[str]:
    """The ids of the vendored rules that do not run on transcript text (path-only or untranslatable)."""
    return [e["id"] for e in _config()["rules"] if _rule(e) is None]
