"""Judging what a pattern found: a credential, or a stand-in, a name in code, a number, a word.

Transcripts are full of talk *about* secrets: `password = getpass()`, `token: ${GITHUB_TOKEN}`,
`api_key: str`, `process.env.API_TOKEN`. These functions tell those apart from values.
"""

from __future__ import annotations

import math
import re
from collections import Counter

# Values that stand for a secret rather than being one: documentation, templates, test fixtures.
_PLACEHOLDER_WORDS = frozenset(
    "password passwd pass secret token changeme none null nil undefined true false string str "
    "required optional hidden dummy test sample masked omitted unset empty".split()
)
_PLACEHOLDER_PARTS = ("your", "example", "placeholder", "changeme", "redacted", "xxxx")
# sk_abcdefghijklmnop...: a made-up value (the case must agree: AbCdEfGhIj... may be random)
_ALPHABET_RUNS = ("abcdefghij", "ABCDEFGHIJ")
_PLACEHOLDER_START = ("<", "{", "[", "/", "~/", "./", "../", "${", "$(")
# %(password)s, %DB_PASSWORD%, %s; YAML tags (!vault, !Ref DbPassword): a value's stand-in, not one
_TEMPLATE = re.compile(r"%\(?\w+\)?[sdr]?%?|![A-Za-z]\w*")
_ENV_REF = re.compile(r"\$[A-Za-z_]\w*")  # $DB_PASSWORD
_DOTTED_REF = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")  # self.token, process.env.KEY
_NUMERIC = re.compile(r"[\d.,:_+-]+")  # 4096, 1,200, 12:30
_RANDOMISH = re.compile(r"[\d!@#$%^&*+=/~?|:;]")  # a digit or a symbol: plain words are not credentials
_IDENTIFIER = re.compile(r"[a-z]+(?:_[a-z0-9]+)+|[a-z]+(?:[A-Z][a-z0-9]+)+")  # db_password, userPassword
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_VERSION = re.compile(r"v?\d+(?:\.\d+)+(?:[-+.][\w.]+)?", re.IGNORECASE)  # v1.2.3, 2.0.0-rc1
_KEBAB = re.compile(r"[a-z]+(?:[-_][a-z]+)+")  # 'proxy-handled': words, not a key (a password may be one)
_SAYS_NONE = frozenset("not no none unset required optional needed handled empty disabled".split())
# What a type annotation's name holds (`api_key: SecretStr`, `token: AccessToken`); a random value rarely does.
_TYPE_WORDS = ("str", "secret", "token", "key", "password", "bytes", "type", "field", "optional", "credential")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_WORDS = re.compile(r"[A-Za-z][a-z]*(?:[ '-][A-Za-z][a-z]*){0,7}")  # letters-only, maybe spaced: a passphrase


def shannon_entropy(value: str) -> float:
    """Bits per character of `value` (gitleaks' measure)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def is_placeholder(value: str) -> bool:
    """Whether `value` stands for a secret (`<token>`, `${PW}`, `changeme`, `****`) rather than being one."""
    low = value.lower()
    return (
        low.rstrip(":=,;.") in _PLACEHOLDER_WORDS  # PASS, (prose) or token: (a key, not a value)
        or any(part in low for part in _PLACEHOLDER_PARTS)
        or any(run in value for run in _ALPHABET_RUNS)
        or low.endswith("here")  # token_here, RANDOMSTRINGHERE
        or low.endswith(("...", "…"))  # eyJhbGciOi...: shown cut short, on purpose
        or (value.startswith(_PLACEHOLDER_START) and not _random_blob(value))
        or bool(_TEMPLATE.fullmatch(value))
        or bool(_ENV_REF.fullmatch(value))
        or "://" in value
        or set(low) <= set("x*.#_-")  # ****, xxx, ...
        or (len(value) > 2 and value[1] == ":" and value[2] in "\\/")  # C:\path
    )


def _random_blob(value: str) -> bool:
    """A long random run that happens to start with `/`, `%` or `!` (an AWS session token, a Django
    key): not a path or a template. Paths and templates repeat their letters: entropy stays lower."""
    if len(value) < 40 or any(c.isspace() for c in value):
        return False
    entropy = shannon_entropy(value)
    return entropy >= 4.9 or (entropy >= 4.6 and bool(_BASE64.fullmatch(value)))


def _random_segment(segment: str) -> bool:
    """A part of a dotted value that is a token's body, not a name: long and digit-bearing or high-entropy."""
    return len(segment) >= 12 and (
        sum(ch.isdigit() for ch in segment) >= 2 or (len(segment) >= 20 and shannon_entropy(segment) >= 4.0)
    )


def is_code_reference(value: str) -> bool:
    """`self.token`, `process.env.API_TOKEN`: a dotted name, unless a part of it reads as a token (`SG.x.y`)."""
    return bool(_DOTTED_REF.fullmatch(value)) and not any(map(_random_segment, value.split(".")))


def looks_secret(value: str, *, min_entropy: float = 0.0) -> bool:
    """Judge a value given to a secret-sounding name: long enough, random-ish, not a stand-in."""
    return (
        len(value) >= 6
        and bool(_RANDOMISH.search(value.rstrip("=:;,.")))  # not sharedaccesskey= (a name and its =)
        and not _NUMERIC.fullmatch(value)
        and not is_code_reference(value)
        and not is_placeholder(value)
        and shannon_entropy(value) > min_entropy
    )


def looks_passphrase(value: str) -> bool:
    """A letters-only password (`letmein`, `correct horse battery staple`): only for a value clearly
    given to a password name; names in code (`db_password`, `userPassword`) and stand-ins are not."""
    return (
        6 <= len(value) <= 64
        and bool(_WORDS.fullmatch(value))
        and not _IDENTIFIER.fullmatch(value)
        and not is_placeholder(value)
        and value.lower() not in _NOT_PASSWORDS
    )


# Single words a password name is often given in code and docs, which no one uses as a password.
_NOT_PASSWORDS = frozenset(
    "secret secrets password passwords passphrase default defaults hidden prompt ask input stdin "
    "keyring keychain vault environment variable variables blank random generated redacted sensitive "
    "private confidential provided invalid incorrect wrong correct valid missing length strength "
    "policy reset change changed expired field value values string text type bool boolean integer "
    "number object array list dict mapping optional required nullable disabled enabled false true "
    "allow deny block skip ignore fail warn error next none".split()
)


def looks_literal(value: str, *, password: bool) -> bool:
    """A value written literally where a credential goes (an env file's line, a quoted string, a YAML
    field): a credential whatever its entropy, unless it is a stand-in, a number, a version, a name in
    code or a word such fields are given in docs (`hidden`, `required`)."""
    low = value.lower()
    return (
        len(value) >= (4 if password else 8)
        and len(set(value)) >= 4  # aaaaaaaa1, ****: a stand-in
        and Counter(value).most_common(1)[0][1] * 2 <= len(value)  # AIzaaaaaaaaa…, glc_1111…
        and not is_placeholder(value)
        and not _NUMERIC.fullmatch(value)
        and not _VERSION.fullmatch(value)
        and not is_code_reference(value)
        and low not in _NOT_PASSWORDS
        and (password or not _IDENTIFIER.fullmatch(value))  # "token": "authorization_code"
        and not (_KEBAB.fullmatch(value) and (not password or _SAYS_NONE.intersection(re.split("[-_]", low))))
        and not _ENV_NAME.fullmatch(value)  # the API key is `OPENAI_API_KEY`: a variable's name
        and not (value[0].isupper() and value.isalnum() and any(w in low for w in _TYPE_WORDS))  # SecretStr
    )
