"""Find secrets in text, replace them with `[REDACTED:<kind>]`, and refuse commits that still hold one.

Pure: text in, text or findings out. A finding never carries the secret's value, only its kind and
where it is. The patterns aim at precision as much as recall: transcripts are full of SHAs, UUIDs,
digests, paths and talk *about* tokens, and redacting those would make memory useless.

Speed: Python's `re` skips quickly to a literal that starts a pattern, but scans slowly for a set of
them. So each rule starts with a literal and runs over the UTF-8 bytes (the case-insensitive ones
over an ASCII-lowercased copy, so offsets stay aligned); a short text, the common case, is first
checked for any rule's leading literal in one pass and only the rules it names run.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Callable, Mapping, Sequence

from .errors import ConfigError, SecretFound
from .model import Learning, Note, Transcript

MAX_LISTED = 5  # findings named in a SecretFound message
_GATED_BELOW = 512  # bytes; longer texts hold some lead anyway and the check only costs


@dataclass(frozen=True, slots=True)
class Finding:
    kind: str
    start: int  # offsets into the scanned text; the value itself is never stored or reported
    end: int
    line: int  # 1-based


Span = tuple[int, int]
Locate = Callable[["re.Match[bytes]", bytes], "Span | None"]  # the span to redact, or None: no secret


@dataclass(slots=True)
class _Rule:
    kind: str
    leads: tuple[bytes, ...]  # lowercase literals every match starts with; none may start another
    source: bytes  # compiled on first use: a sync with nothing to read never needs the patterns
    locate: Locate
    fold: bool  # match the lowercased text; the pattern is written in lowercase
    bounded: bool  # a match must not continue a word on its left: xghp_..., task-... (checked
    # in Python: a leading \b or lookbehind would stop `re` skipping ahead to the literal)
    compiled: re.Pattern[bytes] | None = None

    @property
    def pattern(self) -> re.Pattern[bytes]:
        if self.compiled is None:
            self.compiled = re.compile(self.source)
        return self.compiled


# ---- judging what a pattern found ---------------------------------------------------------

# Values that stand for a secret rather than being one: documentation, templates, test fixtures.
_PLACEHOLDER_WORDS = frozenset(
    "password passwd pass secret token changeme none null nil undefined true false string str "
    "required optional hidden dummy test sample".split()
)
_PLACEHOLDER_PARTS = ("your", "example", "placeholder", "changeme", "redacted", "xxxx")
_PLACEHOLDER_START = ("<", "{", "%", "[", "!", "/", "~/", "./", "../", "${", "$(")
_ENV_REF = re.compile(r"\$[A-Za-z_]\w*")  # $DB_PASSWORD
_DOTTED_REF = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")  # self.token, process.env.KEY
_NUMERIC = re.compile(r"[\d.,:_+-]+")  # 4096, 1,200, 12:30
_RANDOMISH = re.compile(r"[\d!@#$%^&*+=/~?|:;]")  # a digit or a symbol: plain words are not credentials
_NAME_TAIL = re.compile(rb"[\w.-]{0,64}\Z")
_KEY_HEAD = re.compile(r"(?:api|access|private|secret)[_-]?\Z", re.IGNORECASE)  # what makes a *key* secret


def _is_placeholder(value: str) -> bool:
    low = value.lower()
    return (
        low in _PLACEHOLDER_WORDS
        or any(part in low for part in _PLACEHOLDER_PARTS)
        or value.startswith(_PLACEHOLDER_START)
        or bool(_ENV_REF.fullmatch(value))
        or "://" in value
        or set(low) <= set("x*.#_-")  # ****, xxx, ...
        or (len(value) > 2 and value[1] == ":" and value[2] in "\\/")  # C:\path
    )


def _looks_secret(value: str) -> bool:
    """Judge a value given to a secret-sounding name: long enough, random-ish, not a stand-in."""
    return (
        len(value) >= 6
        and bool(_RANDOMISH.search(value))
        and not _NUMERIC.fullmatch(value)
        and not _DOTTED_REF.fullmatch(value)
        and not _is_placeholder(value)
    )


def _continues_word(raw: bytes, start: int) -> bool:
    return start > 0 and (raw[start - 1 : start].isalnum() or raw[start - 1 : start] in (b"_", b"-"))


def _text(raw: bytes, start: int, end: int) -> str:
    return raw[start:end].decode("utf-8", "surrogatepass")


def _span(m: re.Match[bytes] | re.Match[str], raw: bytes = b"") -> Span | None:
    """The `secret` group if the pattern has one, else the whole match."""
    return m.span("secret") if "secret" in m.re.groupindex else m.span()


def _stripe(m: re.Match[bytes], raw: bytes) -> Span | None:
    start = m.start() - 1  # the s of sk_ or r of rk_, left out of the pattern (see its rule)
    if start < 0 or raw[start : start + 1] not in (b"s", b"r") or _continues_word(raw, start):
        return None
    return start, m.end()


def _real_group(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The `secret` group unless it is a stand-in: user:password@host, Bearer REDACTED_TOKEN."""
    return None if _is_placeholder(_text(raw, *m.span("secret"))) else m.span("secret")


def _token_like(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The `secret` group if it reads as a token rather than a word: 16+ chars with a digit."""
    return _real_group(m, raw) if len(m["secret"]) >= 16 and re.search(rb"\d", m["secret"]) else None


def _authorization(m: re.Match[bytes], raw: bytes) -> Span | None:
    return _real_group(m, raw) if m["scheme"] else _token_like(m, raw)  # no Bearer/Basic: a bare token


def _assignment(m: re.Match[bytes], raw: bytes) -> Span | None:
    """Accept `name = value` when the name ends in a secret word and the value looks like a credential."""
    start = m.start("kw")
    prefix = _NAME_TAIL.search(raw, max(0, start - 64), start).group().decode()  # type: ignore[union-attr]
    word = _text(raw, start, m.end("kw"))
    if word.lower() == "key":  # only api_key, apiKey, access_key, private_key, secret_key
        head = _KEY_HEAD.search(prefix)
        if head is None:
            return None
        prefix, word = prefix[: head.start()], prefix[head.start() :] + word
    if not m["sep"].strip() and not prefix.startswith("-"):
        return None  # `token abc`: only a --flag is separated from its value by a space
    bare = prefix.lstrip("-")
    if word.lower() == "pass" and not bare.endswith(("_", "-", ".")):
        return None  # bypass, compass, `--- PASS: TestFoo`; DB_PASS is fine
    if not (
        not bare
        or bare.endswith(("_", "-", "."))
        or (word[0].isupper() and bare[-1].isalnum())  # dbPassword, accessToken, clientSecret
        or (bare + word).isupper()  # PGPASSWORD
    ):
        return None  # the secret word ends another word: mytoken
    name = "quoted" if m["quoted"] is not None else "bare"
    s, e = m.span(name)
    if name == "bare" and raw[e : e + 1] in (b"(", b"["):
        return None  # a call or subscript: getpass(), os.environ["KEY"]
    return (s, e) if _looks_secret(_text(raw, s, e)) else None


# ---- the rules, most specific first: where two overlap, the earlier one wins --------------


def _rule(kind: str, leads: str, pattern: str, locate: Locate = _span, *, fold: bool = False,
          bounded: bool = True) -> _Rule:
    return _Rule(kind, tuple(x.encode() for x in leads.split()), pattern.encode(), locate, fold, bounded)


_BREAK = r"(?:\\+[rn]|\r?\n)"  # a line break, raw or JSON-escaped once or twice
_Q = r"""\\{0,3}["']?"""  # an optional quote, raw or JSON-escaped
_PEM_END = r"-----END[ A-Z0-9]{0,20}PRIVATE KEY(?: BLOCK)?-----"
_ASSIGNED = (  # after a secret word: the end of the name, a separator, a quoted or bare value
    rf"(?!\w){_Q}(?P<sep>[ \t]*(?:=>|:=|[:=])[ \t]*|[ \t]+)"
    r"""(?:\\{0,3}(?P<q>["'`])(?P<quoted>[^"'`\s\\]{1,512})\\{0,3}(?P=q)"""
    r"""|(?P<bare>[^\s"'`,;(){}\[\]<>\\]{1,512}))"""
)

_RULES: tuple[_Rule, ...] = (
    # PEM/OpenSSH/PGP private key: BEGIN, optional headers, a body, then END or, when the END was
    # cut off, as far as the base64 lines go. A BEGIN line with no body is code, not a key.
    _rule("private_key", "-----begin",
          rf"-----BEGIN[ A-Z0-9]{{0,20}}PRIVATE KEY(?: BLOCK)?-----(?:{_BREAK}|[ \t])*"
          rf"(?:[A-Za-z-]{{2,20}}:[^\r\n\\]*{_BREAK}(?:{_BREAK}|[ \t])*)*"
          rf"[A-Za-z0-9+/=]{{16}}(?:[\s\S]{{0,20000}}?{_PEM_END}|(?:[A-Za-z0-9+/=]|{_BREAK})*)",
          bounded=False),
    # AWS access key id (AKIA long-term, ASIA temporary).
    _rule("aws_access_key", "akia asia", r"(?:AKIA|ASIA)[A-Z0-9]{16}\b"),
    # AWS secret access key: 40 base64-ish chars, recognisable only next to its name
    # (aws_secret_access_key, AWS_SECRET_ACCESS_KEY, "SecretAccessKey", aws_secret_key).
    _rule("aws_secret_key", "secret",
          rf"secret_?(?:access_?)?key{_Q}[ \t]*[:=][ \t]*{_Q}(?P<secret>[a-z0-9/+]{{40}})(?![a-z0-9/+=])",
          fold=True, bounded=False),
    # GitHub personal, OAuth, server, user and refresh tokens; fine-grained PATs.
    _rule("github_token", "ghp_ gho_ ghs_ ghu_ ghr_ github_pat_",
          r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_\w{22,255})\b"),
    # GitLab personal access token.
    _rule("gitlab_token", "glpat-", r"glpat-[\w-]{20,}"),
    # Slack bot/user/app tokens: the digits after the prefix keep out `xoxb-your-token`.
    _rule("slack_token", "xox xapp-", r"(?:xox[abposr]-\d+-[A-Za-z0-9-]{8,}|xapp-\d-[A-Za-z0-9-]{10,})"),
    # Slack incoming webhook: the path is the secret; the host stays readable.
    _rule("slack_webhook", "hooks.slack.com",
          r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[\w/-]{20,})", bounded=False),
    # Stripe secret and restricted keys; pk_live_/pk_test_ are publishable, made to ship in web
    # pages. Led by `k_`: a leading [sr] would make `re` try every s and r. _stripe adds it back.
    _rule("stripe_key", "k_live_ k_test_", r"k_(?:live|test)_[A-Za-z0-9]{10,}\b", _stripe, bounded=False),
    # Anthropic API keys, before OpenAI's looser sk- shape.
    _rule("anthropic_key", "sk-", r"sk-ant-(?=[\w-]*\d)[\w-]{20,}"),
    # OpenAI keys: legacy ones are one alphanumeric run, project/service/admin ones are named. A
    # digit and 20+ chars keep out sk-learn; no hyphen in the legacy run keeps out URL slugs.
    _rule("openai_key", "sk-",
          r"sk-(?:(?:proj|svcacct|admin)-(?=[\w-]*\d)[\w-]{20,}|(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{20,}\b)"),
    # Google API key.
    _rule("google_api_key", "aiza", r"AIza[\w-]{35}(?![\w-])"),
    # Hugging Face user access token.
    _rule("huggingface_token", "hf_", r"hf_[A-Za-z0-9]{30,}\b"),
    # npm access token.
    _rule("npm_token", "npm_", r"npm_[A-Za-z0-9]{36}\b"),
    # PyPI and TestPyPI API tokens: a macaroon whose prefix encodes the index's name.
    _rule("pypi_token", "pypi-", r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,}"),
    # JSON Web Token: base64url header and claims, both JSON objects, then a signature.
    _rule("jwt", "eyj", r"eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]*"),
    # Authorization or Proxy-Authorization in HTTP, curl, JSON or code; the names stay.
    _rule("authorization", "authorization",
          rf"authorization{_Q}[ \t]*[:=][ \t]*{_Q}"
          r"(?:(?P<scheme>bearer|basic|token|digest)[ \t]+)?(?P<secret>[\w.~+/=-]{8,})",
          _authorization, fold=True, bounded=False),
    # A bearer token outside a header, if it reads as a token: prose about bearers passes.
    _rule("authorization", "bearer", r"bearer[ \t]+(?P<secret>[\w.~+/=-]{16,})", _token_like, fold=True),
    # Credentials in a URL (postgres://, redis://, https://...): only the password goes.
    _rule("url_credentials", "://",
          r"""://[^\s:/@"'<>\[\]\\]{0,256}:(?P<secret>[^\s/@"'<>\[\]\\]{1,256})@(?=[\w.-])""",
          _real_group, bounded=False),
    # `name = value` in env files, shell, JSON, YAML, code and --flags, for names ending in a
    # secret word; led by that word, the rest of the name is judged in _assignment.
    _rule("password_assignment", "pass", rf"(?P<kw>pass(?:word|wd|phrase)?){_ASSIGNED}",
          _assignment, fold=True, bounded=False),
    _rule("password_assignment", "secret", rf"(?P<kw>secret(?:[_-]?key[_-]?base)?){_ASSIGNED}",  # client_secret
          _assignment, fold=True, bounded=False),
    _rule("password_assignment", "token", rf"(?P<kw>token){_ASSIGNED}", _assignment, fold=True, bounded=False),
    _rule("password_assignment", "key", rf"(?P<kw>key){_ASSIGNED}",  # api_key, access_key, private_key
          _assignment, fold=True, bounded=False),
)

@lru_cache(maxsize=1)
def _leads() -> re.Pattern[bytes]:
    """All leads in one pattern: one pass over a short text tells which rules can match at all."""
    return re.compile(b"|".join(re.escape(lead) for r in _RULES for lead in r.leads))


def _leads_in(lowered: bytes) -> set[bytes]:
    """Return the leads occurring in `lowered`, overlapping ones too (ask-ant-... holds sk-)."""
    leads = _leads()
    found, m = set(), leads.search(lowered)
    while m:
        found.add(m.group())
        m = leads.search(lowered, m.start() + 1)
    return found


@lru_cache(maxsize=32)
def _custom_patterns(patterns: tuple[str, ...]) -> tuple[re.Pattern[str], ...]:
    """Compile the user's `[redact] extra_patterns` once."""
    compiled = []
    for source in patterns:
        try:
            compiled.append(re.compile(source))
        except re.error as e:
            raise ConfigError(f"bad regex in [redact] extra_patterns: {source!r}: {e}; fix or remove it") from e
    return tuple(compiled)


def _claim(taken: list[Span], span: Span) -> bool:
    """Add `span` to the sorted, non-overlapping `taken` unless it overlaps one already there."""
    i = bisect.bisect_left(taken, span)
    if (i > 0 and taken[i - 1][1] > span[0]) or (i < len(taken) and taken[i][0] < span[1]):
        return False
    taken.insert(i, span)
    return True


def _builtin_spans(raw: bytes) -> list[tuple[Span, str]]:
    """The built-in rules' findings in order: spans of bytes, with their kinds."""
    lowered = raw.lower()  # ASCII only, so offsets stay aligned with `raw`
    leads = _leads_in(lowered) if len(raw) < _GATED_BELOW else None
    taken: list[Span] = []
    kinds: dict[Span, str] = {}
    for rule in _RULES:
        if leads is not None and leads.isdisjoint(rule.leads):
            continue
        for m in rule.pattern.finditer(lowered if rule.fold else raw):
            if rule.bounded and _continues_word(raw, m.start()):
                continue
            span = rule.locate(m, raw)
            if span and span[0] < span[1] and _claim(taken, span):
                kinds[span] = rule.kind
    return [(span, kinds[span]) for span in taken]


def _char_spans(text: str, raw: bytes, spans: list[Span]) -> list[Span]:
    """Turn sorted spans of UTF-8 bytes into spans of characters."""
    if text.isascii():
        return spans
    chars, done, out = 0, 0, []  # byte offset `done` is character offset `chars`
    for start, end in spans:
        first = chars + len(_text(raw, done, start))
        chars, done = first + len(_text(raw, start, end)), end
        out.append((first, chars))
    return out


# ---- the public functions -----------------------------------------------------------------


def find_secrets(text: str, extra_patterns: Sequence[str] = ()) -> list[Finding]:
    """Return the secrets in `text`, in order, without overlaps."""
    raw = text.encode("utf-8", "surrogatepass")
    builtin = _builtin_spans(raw)
    taken = _char_spans(text, raw, [span for span, _ in builtin])
    kinds = {span: kind for span, (_, kind) in zip(taken, builtin)}
    for pattern in _custom_patterns(tuple(extra_patterns)):
        for m in pattern.finditer(text):
            span = _span(m)
            if span[0] < span[1] and _claim(taken, span):
                kinds[span] = "custom"
    findings, line, counted = [], 1, 0
    for start, end in taken:
        line += text.count("\n", counted, start)
        counted = start
        findings.append(Finding(kinds[(start, end)], start, end, line))
    return findings


def redact_count(text: str, extra_patterns: Sequence[str] = ()) -> tuple[str, int]:
    """Replace each secret with `[REDACTED:<kind>]`; return the text and how many were replaced."""
    findings = find_secrets(text, extra_patterns)
    if not findings:
        return text, 0
    parts, pos = [], 0
    for f in findings:
        parts += (text[pos : f.start], f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), len(findings)


def redact(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """Replace each secret in `text` with `[REDACTED:<kind>]`."""
    return redact_count(text, extra_patterns)[0]


def gate(blobs: Mapping[str, bytes], extra_patterns: Sequence[str] = ()) -> None:
    """Refuse a commit whose files hold a secret.

    Args:
        blobs: path -> content of every file about to be committed.
        extra_patterns: the user's `[redact] extra_patterns`.

    Raises:
        SecretFound: naming the kind and `path:line` of each finding (never the value).
        ConfigError: an extra pattern is not a valid regex.
    """
    found = [
        (path, f)
        for path, blob in blobs.items()
        for f in find_secrets(blob.decode("utf-8", errors="replace"), extra_patterns)
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


def redact_transcript(t: Transcript, extra: tuple[str, ...]) -> Transcript:
    """Replace secrets in every text a transcript carries, before any extractor sees it."""
    def keyed(key, value):
        # {"password": "hunter22"}: the key is the context that makes the value a secret.
        if isinstance(value, str) and isinstance(key, str):
            text = redact(f"{key}={value}", extra)
            return text[len(key) + 1:] if text.startswith(f"{key}=") else redact(value, extra)
        return clean(value)

    def clean(value):
        if isinstance(value, str):
            return redact(value, extra)
        if isinstance(value, dict):
            return {k: keyed(k, v) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    turns = [
        replace(
            turn,
            text=clean(turn.text),
            tool_calls=[replace(c, input=clean(c.input), output=clean(c.output)) for c in turn.tool_calls],
        )
        for turn in t.turns
    ]
    return replace(t, turns=turns, cwd=clean(t.cwd), title=clean(t.title))


def redact_note(note: Note, extra: tuple[str, ...]) -> Note:
    """Redact an extractor's output again: it may have stitched a secret together."""
    r = lambda text: redact(text, extra) if text else text  # noqa: E731
    return replace(
        note,
        title=r(note.title),
        summary=r(note.summary),
        learnings=[Learning(item.type, r(item.text)) for item in note.learnings],
        keywords=[r(k) for k in note.keywords],
    )
