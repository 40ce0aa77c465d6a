"""memgit's own rules: what transcripts show that gitleaks' rule set does not cover, or covers worse.

Gitleaks scans source files; transcripts also hold shell commands (`mysql -pPASS`, `sshpass -p`),
credential files printed by `cat` (.netrc, .pgpass, docker's config.json, kubeconfig), keys whose
BEGIN line scrolled away, JSON-escaped text, and people saying "the password is X". Each rule is
led by a literal (its keywords) that starts or sits inside every match; `SPECIFIC` rules run before
gitleaks' and keep memgit's established kinds, `GENERIC` ones (names given a value) after them.
"""

from __future__ import annotations

import re

from memgit.core.secret_rules import gitleaks
from memgit.core.secret_rules.judge import is_placeholder, looks_literal, looks_secret, shannon_entropy
from memgit.core.secret_rules.named import assignment, phrase_field, prose, spaced_password
from memgit.core.secret_rules.named import text as _text
from memgit.core.secret_rules.rule import Judge, Rule, Span

_WORD_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def continues_word(raw: bytes, start: int) -> bool:
    """Whether the byte before `start` is part of a word (xghp_..., task-...)."""
    return start > 0 and raw[start - 1] in _WORD_CHARS


def _span(m: re.Match[bytes], raw: bytes = b"") -> Span | None:
    """The `secret` group if the pattern has one, else the whole match."""
    return m.span("secret") if "secret" in m.re.groupindex else m.span()


def _token(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The `secret` group (or the match) unless it is a stand-in: ghp_xxxx..., sk-...-your-key-here."""
    span = _span(m)
    return None if is_placeholder(_text(raw, *span)) else span


def _google(m: re.Match[bytes], raw: bytes) -> Span | None:
    """A Google API key, unless one of the public sample keys gitleaks knows, or a run of one letter."""
    span = _token(m, raw)
    if span is None or gitleaks.allows("gcp-api-key", raw[span[0] : span[1]]):
        return None
    return span if shannon_entropy(_text(raw, *span)) > 3.0 else None


def _real_group(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The `secret` group unless it is a stand-in: user:password@host, Bearer REDACTED_TOKEN."""
    return None if is_placeholder(_text(raw, *m.span("secret"))) else m.span("secret")


def _token_like(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The `secret` group if it reads as a token rather than a word: 16+ chars with a digit."""
    return _real_group(m, raw) if len(m["secret"]) >= 16 and re.search(rb"\d", m["secret"]) else None


def _random(min_entropy: float) -> Judge:
    """The `secret` group (or match) if it is not a stand-in and its entropy is above `min_entropy`."""

    def judge(m: re.Match[bytes], raw: bytes) -> Span | None:
        span = _span(m)
        value = _text(raw, *span)
        return span if shannon_entropy(value) > min_entropy and not is_placeholder(value) else None

    return judge


_random_3 = _random(3.0)


def _telegram(m: re.Match[bytes], raw: bytes) -> Span | None:
    """A Telegram bot token, alone or in an API URL (`/bot<token>/`), not the tail of a longer word."""
    start = m.start()
    if continues_word(raw, start) and raw[start - 3 : start].lower() != b"bot":
        return None
    return _random_3(m, raw)


def _curl_user(m: re.Match[bytes], raw: bytes) -> Span | None:
    """`curl -u user:password`: the password, unless a variable or a stand-in."""
    s, e = m.span("secret")
    while e > s and raw[e - 1 : e] in b"\"'":
        e -= 1
    while s < e and raw[s : s + 1] in b"\"'":
        s += 1
    colon = raw.find(b":", s, e)
    if colon < 0:
        return None  # `-u user` alone: curl prompts for the password
    value = _text(raw, colon + 1, e)
    if len(value) < 4 or value.startswith(("$", "%", "{")) or is_placeholder(_text(raw, s, e)):
        return None
    if gitleaks.allows("curl-auth-user", raw[s:e]):
        return None  # user:changeme, <user>:<password>, $(...):$(...): gitleaks' list of stand-ins
    return colon + 1, e


def _credential(m: re.Match[bytes], raw: bytes) -> Span | None:
    """A password given on a command line or in a credential file: the value, unless a stand-in."""
    s, e = m.span("secret")
    while e > s and raw[e - 1 : e] in b"\"'`":  # a quoted value: the quotes stay
        e -= 1
    while s < e and raw[s : s + 1] in b"\"'`":
        s += 1
    value = _text(raw, s, e)
    return (s, e) if len(value) >= 4 and not is_placeholder(value) and not value.startswith("$") else None


def _stripe(m: re.Match[bytes], raw: bytes) -> Span | None:
    start = m.start() - 1  # the s of sk_ or r of rk_, left out of the pattern (see its rule)
    if start < 0 or raw[start : start + 1] not in (b"s", b"r") or continues_word(raw, start):
        return None
    return start, m.end()


def _json_auth(m: re.Match[bytes], raw: bytes) -> Span | None:
    """`"auth": "<base64>"` of docker's config.json: the key must be a JSON key (a quote before it)."""
    return _real_group(m, raw) if raw[m.start() - 1 : m.start()] == b'"' else None


_HEX_PAIRS = re.compile(r"[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})+")
_DATE = re.compile(r"\d{4}-\d\d-\d\d")


def _pgpass_field(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The password field of a .pgpass line, unless a number (a MAC address, a time) or a stand-in."""
    value = _text(raw, *m.span("secret"))
    whole = _text(raw, *m.span())
    if _HEX_PAIRS.fullmatch(whole) or _DATE.match(whole):
        return None  # a key's fingerprint (1f:51:ae:…), a timestamp (2026-07-24T00:00:00Z…)
    return m.span("secret") if not is_placeholder(value) and not re.fullmatch(r"[\d.:,;()\[\]-]+", value) else None


# user:... before an @ that names no credential: mailto:ann@host, npm:left-pad@1.3.0, docker images.
_NOT_USERS = frozenset("mailto tel sip sips xmpp npm pkg pip docker python node go git github gitlab urn data file "
                       "cid mid about nix image version ref tag".split())


def _userinfo(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The password of `user:password@host` without a scheme, when the user is no scheme or registry."""
    if m["user"].decode().lower() in _NOT_USERS:
        return None
    value = _text(raw, *m.span("secret"))
    host = m["host"].decode()
    if re.fullmatch(r"v?\d+(?:\.\d+)+", host) or value.isdigit():
        return None  # name:tag@1.2.3, host:8080@...
    return m.span("secret") if looks_secret(value) or looks_literal(value, password=True) else None


def _query_value(m: re.Match[bytes], raw: bytes) -> Span | None:
    """The `secret` group when the match is a URL query parameter (after ? or &)."""
    return m.span("secret") if raw[m.start() - 1 : m.start()] in (b"?", b"&") else None


def _authorization(m: re.Match[bytes], raw: bytes) -> Span | None:
    return _real_group(m, raw) if m["scheme"] else _token_like(m, raw)  # no Bearer/Basic: a bare token


_B64_LINES_BEFORE = re.compile(rb"(?:[A-Za-z0-9+/=]{16,100}[ \t]*(?:\r?\n|\\+r?\\+n))+\Z")


def _key_body_before(m: re.Match[bytes], raw: bytes) -> Span | None:
    """A key's body whose BEGIN line was cut off: the base64 lines just before its END line."""
    lo = max(0, m.start() - 16384)
    body = _B64_LINES_BEFORE.search(raw, lo, m.start())
    return (body.start(), m.end()) if body and body.end() - body.start() >= 64 else None


def _rule(kind: str, keywords: str, pattern: str, judge: Judge = _token, *, fold: bool = False,
          bounded: bool = True, flags: int = 0) -> Rule:
    return Rule(kind, tuple(keywords.split()), pattern, judge, flags=flags, fold=fold, bounded=bounded)


_BREAK = r"(?:\\+[rn]|\r?\n)"  # a line break, raw or JSON-escaped once or twice
_Q = r"""\\{0,3}["']?"""  # an optional quote, raw or JSON-escaped
_PEM_END = r"-----END[ A-Z0-9]{0,20}PRIVATE KEY(?: BLOCK)?-----"
_ASSIGNED = (  # after a secret word: the end of the name, a separator, a quoted or bare value
    rf"(?!\w){_Q}(?P<sep>[ \t]*(?:=>|:=|[:=])[ \t]*|[ \t]+)"
    r"""(?:\\{0,3}(?P<q>["'`])(?P<quoted>[^"'`\s\\]{1,512})\\{0,3}(?P=q)"""
    r"""|(?P<bare>[^\s"'`,;(){}\[\]<>\\]{1,512}))"""
)
_ARG = r"""(?P<secret>"[^"\n]{1,256}"|'[^'\n]{1,256}'|[^\s"'|;&]{1,256})"""  # one shell argument
_OPTS = r"(?:[ \t][^\n|;&]{0,200}?)?"  # the command's other arguments before it, if any

# Most specific first: where two overlap, the earlier one wins.
SPECIFIC: tuple[Rule, ...] = (
    # PEM/OpenSSH/PGP private key: BEGIN, optional headers, a body, then END or, when the END was
    # cut off, as far as the base64 lines go. A BEGIN line with no body is code, not a key.
    _rule("private_key", "-----begin",
          rf"-----BEGIN[ A-Z0-9]{{0,20}}PRIVATE KEY(?: BLOCK)?-----(?:{_BREAK}|[ \t])*"
          rf"(?:[A-Za-z-]{{2,20}}:[^\r\n\\]*{_BREAK}(?:{_BREAK}|[ \t])*)*"
          rf"[A-Za-z0-9+/=]{{16}}(?:[\s\S]{{0,20000}}?{_PEM_END}|(?:[A-Za-z0-9+/=]|{_BREAK})*)",
          _span, bounded=False),
    # A key body whose BEGIN line is gone (a scrolled or truncated output): base64 lines, then END.
    _rule("private_key", "-----end", _PEM_END, _key_body_before, bounded=False),
    # PuTTY private key file: the lines after Private-Lines: are the key.
    _rule("private_key", "private-lines:",
          rf"private-lines:[ \t]*\d+{_BREAK}(?P<secret>(?:[a-z0-9+/=]{{4,80}}(?:{_BREAK}|$))+)",
          _span, fold=True, bounded=False),
    # AWS access key id (AKIA long-term, ASIA temporary); the documentation's example ends in EXAMPLE.
    _rule("aws_access_key", "akia asia", r"(?:AKIA|ASIA)[A-Z0-9]{16}\b(?<!EXAMPLE)"),
    # AWS secret access key: 40 base64-ish chars, recognisable only next to its name
    # (aws_secret_access_key, AWS_SECRET_ACCESS_KEY, "SecretAccessKey", aws_secret_key).
    _rule("aws_secret_key", "secret",
          rf"secret_?(?:access_?)?key{_Q}[ \t]*[:=][ \t]*{_Q}(?P<secret>[a-z0-9/+]{{40}})(?![a-z0-9/+=])",
          _real_group, fold=True, bounded=False),
    _rule("aws_secret_key", "aws",
          r"aws[ \t]+configure[ \t]+set[ \t]+(?:aws_secret_access_key|aws_session_token)[ \t]+" + _ARG,
          _credential, fold=True),
    # GitHub personal, OAuth, server, user and refresh tokens; fine-grained PATs.
    _rule("github_token", "ghp_ gho_ ghs_ ghu_ ghr_ github_pat_",
          r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_\w{22,255})\b"),
    # GitLab personal access token.
    _rule("gitlab_token", "glpat-", r"glpat-[\w-]{20,}"),
    # Slack bot/user/app tokens: the digits after the prefix keep out `xoxb-your-token`.
    _rule("slack_token", "xox xapp-",
          r"(?:xox[abposr]-\d+-(?=[A-Za-z0-9-]*[A-Za-z])[A-Za-z0-9-]{8,}|xapp-\d-[A-Za-z0-9-]{10,})"),
    # Slack incoming webhook: the path is the secret; the host stays readable.
    _rule("slack_webhook", "hooks.slack.com",
          r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[\w/-]{20,})", bounded=False),
    # Discord webhook: the token after the channel id.
    _rule("discord_webhook", "discord.com/api/webhooks discordapp.com/api/webhooks",
          r"discord(?:app)?\.com/api/webhooks/\d{5,25}/(?P<secret>[\w-]{40,100})", bounded=False),
    # Stripe secret and restricted keys; pk_live_/pk_test_ are publishable, made to ship in web
    # pages. Led by `k_`: a leading [sr] would make `re` try every s and r. _stripe adds it back.
    _rule("stripe_key", "k_live_ k_test_", r"k_(?:live|test)_[A-Za-z0-9]{10,}\b", _stripe, bounded=False),
    # Stripe (and Svix) webhook signing secret.
    _rule("webhook_secret", "whsec_", r"whsec_[A-Za-z0-9+/=]{24,}"),
    # Anthropic API keys, before OpenAI's looser sk- shape.
    _rule("anthropic_key", "sk-", r"sk-ant-(?=[\w-]*\d)[\w-]{20,}"),
    # OpenAI keys: legacy ones are one alphanumeric run, project/service/admin ones are named. A
    # digit and 20+ chars keep out sk-learn; no hyphen in the legacy run keeps out URL slugs.
    _rule("openai_key", "sk-",
          r"sk-(?:(?:proj|svcacct|admin)-(?=[\w-]*\d)[\w-]{20,}|(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{20,}\b)"),
    # Google API key (gitleaks' gcp-api-key allowlist: public sample keys); Google OAuth client secret.
    _rule("google_api_key", "aiza", r"AIza[\w-]{35}(?![\w-])", _google),
    _rule("google_oauth_secret", "gocspx-", r"GOCSPX-[\w-]{28}(?![\w-])"),
    # Firebase Cloud Messaging server key.
    _rule("firebase_key", ":apa91b", r"AAAA[\w-]{7}:APA91b[\w-]{100,}", _random(3.5)),
    # Hugging Face user access token (34 characters; a longer run is a name: hf_requiredCharacteristic...).
    _rule("huggingface_token", "hf_", r"hf_[A-Za-z0-9]{30,40}\b"),
    # npm access token.
    _rule("npm_token", "npm_", r"npm_[A-Za-z0-9]{36}\b"),
    # PyPI and TestPyPI API tokens: a macaroon whose prefix encodes the index's name.
    _rule("pypi_token", "pypi-", r"pypi-(?:AgEIcHlwaS5vcmc|AgENdGVzdC5weXBpLm9yZw)[\w-]{50,}"),
    # Docker Hub personal and organisation access tokens.
    _rule("docker_token", "dckr_pat_ dckr_oat_", r"dckr_(?:pat|oat)_[\w-]{20,}", _random(3.0)),
    # Replicate API token.
    _rule("replicate_token", "r8_", r"r8_[A-Za-z0-9]{37}\b", _random(3.0)),
    # Square OAuth secret (gitleaks has the access token).
    _rule("square_secret", "sq0csp-", r"sq0csp-[\w-]{43}\b", _random(3.0)),
    # PayPal through Braintree: access_token$production$<merchant>$<hex>.
    _rule("paypal_token", "access_token$",
          r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"),
    # Notion's older integration token (secret_ + 43 alphanumerics; the newer ntn_ is gitleaks').
    _rule("notion_token", "secret_", r"secret_[A-Za-z0-9]{43}\b", _random(3.5)),
    # Telegram bot token (the bot's id, a colon, 35 chars from AA).
    _rule("telegram_token", ":aa", r"\d{6,12}:AA[\w-]{33}(?![\w-])", _telegram, bounded=False),
    # Discord bot token: the bot id in base64, a timestamp, an HMAC; looked for where Discord is named.
    _rule("discord_token", "discord", r"[MNO][A-Za-z\d_-]{23,27}\.[\w-]{6,7}\.[\w-]{27,40}(?![\w-])",
          _random(3.5)),
    # Sentry DSN: the key before the @ of an ingest URL (the host and project stay).
    _rule("sentry_dsn", "sentry",
          r"://(?P<secret>[a-f0-9]{32})(?::[a-f0-9]{32})?@[\w.-]{0,100}sentry[\w.-]{0,100}/\d{1,12}",
          bounded=False),
    # Azure storage account key and Service Bus/Event Hub shared access key in connection strings.
    _rule("azure_key", "accountkey= sharedaccesskey=",
          r"(?:accountkey|sharedaccesskey)=(?P<secret>[a-z0-9+/]{40,90}={0,2})", _real_group, fold=True,
          bounded=False),
    # Azure SAS token: the signature of a shared-access URL (sv=...&sig=...).
    _rule("azure_sas", "sig=", r"sig=(?P<secret>[A-Za-z0-9%+/]{30,}(?:=|%3D){0,2})", _query_value,
          bounded=False),
    # JSON Web Token: base64url header and claims, both JSON objects, then a signature.
    _rule("jwt", "eyj", r"eyJ[\w-]{10,}\.eyJ[\w-]{10,}\.[\w-]*"),
    # Authorization or Proxy-Authorization in HTTP, curl, JSON or code; the names stay.
    _rule("authorization", "authorization",
          rf"authorization{_Q}[ \t]*[:=][ \t]*{_Q}"
          r"(?:(?P<scheme>bearer|basic|token|digest|ssws|bot|apikey)[ \t]+)?(?P<secret>[\w.~+/=-]{8,}(?::[\w.~+/=-]+)*)",
          _authorization, fold=True, bounded=False),
    # A bearer token outside a header, if it reads as a token: prose about bearers passes.
    _rule("authorization", "bearer", r"bearer[ \t]+(?P<secret>[\w.~+/=-]{16,}(?::[\w.~+/=-]+)*)", _token_like,
          fold=True),  # an Asana PAT holds a colon: 2/<ids>:<hex>
    # Credentials in a URL (postgres://, redis://, https://...): only the password goes.
    _rule("url_credentials", "://",
          r"""://[^\s:/@"'<>\[\]\\]{0,256}:(?P<secret>[^\s/@"'<>\[\]\\]{1,256})@(?=[\w.-])""",
          _real_group, bounded=False),
    # Passwords on command lines: mysql -pPASS, sshpass -p PASS, docker login -p PASS, redis-cli -a PASS,
    # vault login TOKEN.
    _rule("cli_password", "mysql mariadb", rf"(?:mysql|mariadb)[\w-]*{_OPTS}[ \t]-p{_ARG}", _credential),
    _rule("cli_password", "sshpass", rf"sshpass{_OPTS}[ \t]-p[ \t]*{_ARG}", _credential),
    _rule("cli_password", "docker podman",
          rf"(?:docker|podman)[ \t]+login\b{_OPTS}[ \t](?:-p|--password)(?:[ \t]+|=){_ARG}", _credential),
    _rule("cli_password", "curl", rf"curl{_OPTS}[ \t](?:-u|--user)(?:[ \t]+|=){_ARG}", _curl_user),
    _rule("cli_password", "redis-cli", rf"redis-cli\b{_OPTS}[ \t](?:-a|--pass)[ \t]+{_ARG}", _credential),
    _rule("cli_password", "vault", r"vault[ \t]+login[ \t]+(?:-[\w-]+(?:=\S*)?[ \t]+)*(?:token=)?"
          r"(?P<secret>[A-Za-z0-9._-]{16,256})(?![\w.-])", _token_like),
    # Credential files: .netrc (machine ... login ... password X), .pgpass (host:port:db:user:password),
    # .npmrc (_auth=base64), docker's config.json ("auth": base64), kubeconfig (client-key-data).
    _rule("netrc_password", "machine default",
          r"(?:machine[ \t]+\S{1,253}|default)(?:(?:\s|\\n){1,4}(?:login|account|port)[ \t]+\S{1,256}){1,3}"
          r"(?:\s|\\n){1,4}password[ \t]+" + _ARG, _credential),
    _rule("pgpass_password", "pgpass",
          r"(?m)^[ \t]*[^\s:#]{1,253}:(?:\d{1,5}|\*):[^\s:]{1,63}:[^\s:]{1,63}:(?P<secret>\S{1,256})[ \t]*$",
          _credential, bounded=False),
    # The same line wherever it is quoted (a gotcha's "Problem", a log): host:port:db:user:password.
    # Outside a file named .pgpass it is looked for at PostgreSQL's usual ports (or *): a rule run at
    # every colon would cost more than all the others together. Starts at a word's start:
    # `src/a.c:42:13: error` has spaces in its fields.
    _rule("pgpass_password", ":5432: :5433: :6432: :*:",
          r"""(?<![^\s`'"(=])[\w.*-]{1,253}:(?:\d{1,5}|\*):[^\s:/'"`]{1,63}:[^\s:/'"`]{1,63}:"""
          r"""(?P<secret>[^\s'"`]{4,256})(?![^\s'"`),;])""",
          _pgpass_field, bounded=False),
    # user:password@host without a scheme: Go's DSN (`admin:pw@tcp(db:3306)/shop`), a proxy setting.
    _rule("url_credentials", "@",
          r"""(?<![^\s`'"(=])(?P<user>[A-Za-z][\w.-]{0,63}):(?P<secret>[^\s:@/"'`]{4,128})@"""
          r"""(?P<host>(?:tcp|unix)\(|[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}|localhost\b)""",
          _userinfo, bounded=False),
    _rule("npmrc_auth", "_auth", r"_auth[ \t]*=[ \t]*(?P<secret>[A-Za-z0-9+/]{8,}={0,2})", _real_group,
          bounded=False),
    _rule("docker_auth", "auth identitytoken registrytoken",
          r"""(?:auth|identitytoken|registrytoken)\\{0,3}"[ \t]*:[ \t]*\\{0,3}"""
          r"""(?P<secret>[A-Za-z0-9+/._-]{8,}={0,2})""",
          _json_auth, bounded=False),
    _rule("kubeconfig_key", "client-key-data",
          r"client-key-data[ \t]*:[ \t]*\\{0,3}[\"']?(?P<secret>[A-Za-z0-9+/]{16,}={0,2})", _real_group),
    # Rails' master key as `cat config/master.key` prints it (as RAILS_MASTER_KEY it is an assignment).
    _rule("rails_master_key", "master.key",
          rf"master\.key[^\n]{{0,200}}?{_BREAK}(?P<secret>[a-f0-9]{{32}})(?![\w])", bounded=False),
)

GENERIC: tuple[Rule, ...] = (
    # `name = value` in env files, shell, JSON, YAML, code, URLs and --flags, for names ending in a
    # secret word; led by that word, the rest of the name is judged in assignment.
    _rule("password_assignment", "pass", rf"(?P<kw>pass(?:word|wd|phrase)?){_ASSIGNED}",
          assignment, fold=True, bounded=False),
    _rule("password_assignment", "secret", rf"(?P<kw>secret(?:[_-]?key[_-]?base)?){_ASSIGNED}",  # client_secret
          assignment, fold=True, bounded=False),
    _rule("password_assignment", "token", rf"(?P<kw>token){_ASSIGNED}", assignment, fold=True, bounded=False),
    _rule("password_assignment", "key", rf"(?P<kw>key){_ASSIGNED}",  # api_key, access_key, private_key
          assignment, fold=True, bounded=False),
    # A quoted passphrase with spaces given to a password name.
    _rule("password_assignment", "pass",
          rf"""(?P<kw>pass(?:word|wd|phrase)?)(?!\w){_Q}[ \t]*(?:=>|:=|[:=])[ \t]*\\{{0,3}}(?P<q>["'])"""
          r"""(?P<secret>[A-Za-z][A-Za-z' -]{4,62}[A-Za-z])\\{0,3}(?P=q)""",
          spaced_password, fold=True, bounded=False),
    # A value named in prose: "the Postgres password is X", "my API key was X" ("token: X" is an
    # assignment above).
    _rule("password_prose", "password passphrase passwd token secret api access private license",
          r"(?P<kw>password|passphrase|passwd|token|secret|(?:api|access|secret|private|license)[ _-]?key)"
          r"(?:[ \t]*\([^()\n]{1,40}\)|(?:[ \t]+(?!is\b|was\b)[\w./-]{1,24}){1,4}?)??"  # (a passphrase), for prod
          r"[ \t]+(?:is|was|would be|will be)[ \t]+(?:set to[ \t]+|now[ \t]+)?"
          r"""(?:(?P<q>["'`])(?P<quoted>[^"'`\n]{4,200})(?P=q)|[\"'`]?(?P<bare>[^\s\"'`]{6,256}))""",
          prose, fold=True),
    # A passphrase given to a password name, unquoted, to the end of its line: `passphrase: a few words`.
    _rule("password_assignment", "pass",
          r"(?P<kw>pass(?:word|wd|phrase))(?!\w)[ \t]*[:=][ \t]*"
          r"(?P<secret>[a-z][a-z-]*(?:[ ][a-z][a-z-]*){1,7})",
          phrase_field, fold=True, bounded=False),
)
