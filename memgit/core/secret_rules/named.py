"""Judges for a value given to a name that says it is a secret: `DB_PASSWORD=…`, `"secret": "…"`,
`passphrase: a few words`, and prose ("the Postgres password is …").

The name decides whether a value is looked at; the value (judge.py) whether it is a credential:
written literally (an env line, a quoted string, a YAML field) a password's or a secret's value is
one whatever it looks like, a token's or a key's when it looks random; a stand-in never.
"""

from __future__ import annotations

import re

from memgit.core.secret_rules import gitleaks
from memgit.core.secret_rules.judge import looks_literal, looks_passphrase, looks_secret
from memgit.core.secret_rules.rule import Span


def text(raw: bytes, start: int, end: int) -> str:
    return raw[start:end].decode("utf-8", "surrogatepass")


_NAME_TAIL = re.compile(rb"[\w.-]{0,64}\Z")
# what makes a *key* secret: api_key, access_key, private_key, secret_key, RAILS_MASTER_KEY
_KEY_HEAD = re.compile(r"(?:api|access|private|secret|master|encryption|signing|client|account|license|app|application)"
                       r"[_-]?\Z", re.IGNORECASE)
_PASSWORD_WORDS = ("pass", "passwd", "password", "passphrase")
_PROSE_STOP = frozenset("the a an your my our his her their for to of and or is be must should enter "
                        "use new old user here with not no this that it".split())


def secret_name(m: re.Match[bytes], raw: bytes) -> tuple[str, str] | None:
    """The secret word of `name = value` and what precedes it in the name, if the name is a secret's."""
    start = m.start("kw")
    prefix = _NAME_TAIL.search(raw, max(0, start - 64), start).group().decode()  # type: ignore[union-attr]
    word = text(raw, start, m.end("kw"))
    if word.lower() == "key":  # only api_key, apiKey, access_key, private_key, secret_key, ...
        head = _KEY_HEAD.search(prefix)
        if head is None:
            return None
        prefix, word = prefix[: head.start()], prefix[head.start() :] + word
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
    return prefix, word


_WORDY = re.compile(r"[A-Za-z]+(?:[-_][A-Za-z0-9]+)+")  # my_secret_key, my-client-secret


def assignment(m: re.Match[bytes], raw: bytes) -> Span | None:
    """Accept `name = value` when the name ends in a secret word and the value looks like a credential."""
    named = secret_name(m, raw)
    if named is None:
        return None
    prefix, word = named
    if not m["sep"].strip() and not prefix.startswith("-"):
        return None  # `token abc`: only a --flag is separated from its value by a space
    group = "quoted" if m["quoted"] is not None else "bare"
    s, e = m.span(group)
    name_start = m.start("kw") - len(prefix)
    if group == "bare" and raw[name_start - 1 : name_start] in (b"?", b"&"):
        cut = re.search(rb"[&#]", raw[s:e])  # a URL's query: ?token=abc&page=2
        e = s + cut.start() if cut else e
    if group == "bare" and raw[e : e + 1] in (b"(", b"["):
        return None  # a call or subscript: getpass(), os.environ["KEY"]
    value = text(raw, s, e)
    if gitleaks.name_allowlist().search(raw, name_start, e) or value.lower() in gitleaks.stopwords():
        return None  # public_token, csrf-token, ...; values gitleaks knows are public
    password = word.lower().endswith(_PASSWORD_WORDS)
    if looks_secret(value, min_entropy=0.0 if password else 2.5):
        return s, e
    # Written literally (quoted; an env or YAML line's value; NAME=value before a command): a
    # credential whatever its entropy, unless a stand-in (judge.looks_literal). Bare values in code
    # (`password = pw`) are names, and keep the entropy gate above.
    sep, upper = m["sep"], (prefix + word).isupper()
    at_line_end = raw[e : e + 1] in (b"", b"\n", b"\r") or raw[e : e + 2] == b"\\n"
    literal = group == "quoted" or (at_line_end and (sep.strip() == b":" or upper)) or (sep == b"=" and upper)
    if not literal:
        return None
    if password or word.lower().endswith("secret"):
        if _WORDY.fullmatch(value) and word.lower() in value.lower():
            return None  # client_secret="my-client-secret": the name again, a stand-in
        return (s, e) if looks_literal(value, password=True) else None
    # A token's or key's name is also given words in code ("input_token": "NextMarker", api_key="anything"):
    # a value of letters alone is taken only for a password's or a secret's name.
    return (s, e) if looks_secret(value) and looks_literal(value, password=False) else None


# Words that describe a field rather than being its value (a passphrase is made of other words).
_DESCRIBES = frozenset("password passwords passphrase secret key token optional required the user users "
                       "default see vault keychain env environment variable set none".split())


_PHRASE_END = _PROSE_STOP | frozenset("as in on at so then which from by if when after before".split())


def phrase_field(m: re.Match[bytes], raw: bytes) -> Span | None:
    """`passphrase: orchid ember harbor thistle`: the words given to a password's name, up to the line's
    end, a quote or a word of the sentence around it ("… as you asked"); 3 words at least when the
    sentence goes on, 2 when the line or the quote ends there."""
    s, e = m.span("secret")
    words = raw[s:e].decode("utf-8", "surrogatepass").split(" ")
    cut = next((i for i, w in enumerate(words) if w.lower() in _PHRASE_END), len(words))
    ends_line = cut == len(words) and raw[e : e + 1] in (b"", b"\r", b"\n", b'"', b"'", b"`", b".", b",", b";", b")")
    words = words[:cut]
    if len(words) < (2 if ends_line else 3) or _DESCRIBES.intersection(w.lower() for w in words):
        return None
    value = " ".join(words)
    if secret_name(m, raw) is None or not looks_passphrase(value):
        return None
    return s, s + len(value.encode())


def spaced_password(m: re.Match[bytes], raw: bytes) -> Span | None:
    """`PASSWORD="correct horse battery staple"`: a quoted passphrase given to a password name."""
    if secret_name(m, raw) is None:
        return None
    value = text(raw, *m.span("secret"))
    words = value.lower().split()
    if len(words) < 2 or _PROSE_STOP.intersection(words) or not looks_passphrase(value):
        return None
    if _DESCRIBES.intersection(words):
        return None  # `password: Optional password` (a docstring), `passphrase: see vault`
    return m.span("secret")


_CALL = re.compile(r"[A-Za-z_][\w.]*\([\w.,=]*\)")  # makeToken(), getenv(KEY)


def prose(m: re.Match[bytes], raw: bytes) -> Span | None:
    """"the Postgres password is X", "my API key was `X`", "the database password (a passphrase)
    is `a few plain words`": X when it reads as a credential."""
    password = m["kw"].lower().startswith(b"pass")
    if m["quoted"] is not None:  # quoted or in backticks: written as the value itself
        s, e = m.span("quoted")
        value = text(raw, s, e)
        if " " in value.strip():
            words = value.lower().split()
            return (s, e) if password and not _PROSE_STOP.intersection(words) and looks_passphrase(value) else None
        return (s, e) if looks_secret(value) or looks_literal(value, password=password) else None
    s, e = m.span("bare")
    while e > s and raw[e - 1 : e] in b".,;:!?":
        e -= 1
    if raw[e - 1 : e] == b")" and raw.count(b"(", s, e) < raw.count(b")", s, e):
        e -= 1  # "(the key is X)": the parenthesis closes the sentence, not the value
    value = text(raw, s, e)
    if _CALL.fullmatch(value):
        return None  # a call: "the token is makeToken()"
    return (s, e) if looks_secret(value, min_entropy=0.0 if password else 3.5) else None
