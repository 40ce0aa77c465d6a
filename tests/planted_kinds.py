"""The secret families the wide planted set found leaking (issue 18), drawn fresh at test time.

Each kind is written as a person or an agent would write it: an env file's line, a YAML or JSON
field, a header in a curl command, prose that names the credential and gives its value. Values are
drawn from a seeded generator over each format, so this file holds no value that reads as a real key.
"""

from __future__ import annotations

import base64
import random
import string

from tests.sample_regex import draw

WORDS = ("marble orchid tundra lantern copper meadow violet harbor saddle quiver ember falcon "
         "juniper pebble thistle canyon walrus velvet hollow prism").split()


def wide(rng: random.Random) -> dict[str, tuple[str, str]]:
    """kind -> (a text holding the secret, the secret itself)."""
    def gen(regex: str) -> str:
        while True:
            value = draw(regex, rng)
            if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
                return value

    def letters(n: int) -> str:  # a letters-only password: no digit, no symbol, any entropy
        return "".join(rng.choice(string.ascii_letters) for _ in range(n))

    def phrase(n: int = 4) -> str:
        return " ".join(rng.sample(WORDS, n))

    hexa = lambda n: "".join(rng.choice("0123456789abcdef") for _ in range(n))  # noqa: E731
    digits = lambda n: "".join(rng.choice(string.digits) for _ in range(n))  # noqa: E731
    pw, phrase1, phrase2 = gen(r"[A-Za-z0-9!#%^*_+=-]{16}"), phrase(), phrase(5)
    env_letters, json_letters, yaml_letters = letters(14), letters(12).lower(), letters(11)
    django = gen(r"[a-z0-9!@#%^&*(=+)_-]{50}")
    pg, dsn, proxy = gen("[A-Za-z0-9]{14}"), letters(12), gen("[a-z0-9]{12}")
    basic = base64.b64encode(f"deploy:{gen('[A-Za-z0-9]{14}')}".encode()).decode()
    bearer, said = gen("[A-Za-z0-9]{32}"), gen("[A-Za-z0-9_-]{40}")
    session = base64.b64encode(rng.randbytes(240)).decode()
    sas = base64.b64encode(rng.randbytes(32)).decode().replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    dd_app, dd_env = hexa(40), hexa(40)
    webhook = f"T{gen('[A-Z0-9]{8}')}/B{gen('[A-Z0-9]{10}')}/{gen('[A-Za-z0-9]{24}')}"
    asana = f"2/{digits(16)}/{digits(16)}:{hexa(32)}"
    asana_old = f"1/{digits(16)}:{hexa(32)}"
    return {
        "passphrase_prose": (f"the database password (a passphrase) is `{phrase1}`", phrase1),
        "passphrase_field": (f"passphrase: {phrase2}", phrase2),
        "env_password_letters": (f"ORDERS_DB_PASSWORD={env_letters}", env_letters),
        "yaml_password_letters": (f"  db_password: {yaml_letters}\n  pool: 5", yaml_letters),
        "json_secret_letters": (f'{{"name": "web", "secret": "{json_letters}"}}', json_letters),
        "django_prose": (f"The Django SECRET_KEY is {django} (from settings.py).", django),
        "pgpass_prose": (f"psql read `db.internal:5432:orders:app_user:{pg}` from ~/.pgpass and failed", pg),
        "go_dsn": (f'dsn := "admin:{dsn}@tcp(db.internal:3306)/shop?parseTime=true"', dsn),
        "proxy_userinfo": (f"export HTTPS_PROXY=ops:{proxy}@proxy.corp.internal:3128", proxy),
        "auth_basic": (f'curl -H "Authorization: Basic {basic}" https://ci.example.com/api/builds', basic),
        "auth_bearer": (f"curl -H 'Authorization: Bearer {bearer}' https://api.example.com/v2/me", bearer),
        "token_said": (f"Your API token is `{said}`; I put it in the request header.", said),
        "aws_session_token": (f"aws_session_token = {session}", session),
        "aws_session_json": (f'{{"Credentials": {{"SessionToken": "{session[:200]}"}}}}', session[:200]),
        "azure_sas": (f"https://acct.blob.core.windows.net/backups/db.tar?sv=2022-11-02&ss=b&srt=o&sp=r"
                      f"&se=2026-12-01T00:00:00Z&spr=https&sig={sas}", sas),
        "datadog_app_header": (f'curl -H "DD-API-KEY: ${{DD_API_KEY}}" -H "DD-APPLICATION-KEY: {dd_app}" '
                               "https://api.datadoghq.com/api/v1/monitor", dd_app),
        "datadog_app_env": (f"DD_APP_KEY={dd_env}", dd_env),
        "slack_webhook": (f'SLACK_URL = "https://hooks.slack.com/services/{webhook}"', webhook),
        "asana_pat_command": (f'curl -H "Authorization: Bearer {asana}" https://app.asana.com/api/1.0/users/me',
                              asana),
        "asana_pat_env": (f"export ASANA_ACCESS_TOKEN={asana_old}", asana_old),
        "password_bare_quoted": (f"password = '{pw}'", pw),
    }


def look_alikes() -> list[str]:
    """Ten texts that read like the families above and hold no secret."""
    return [
        "the database password (a passphrase) is stored in the keychain, not in the repo",
        "passphrase: see the team vault",
        "ORDERS_DB_PASSWORD=${ORDERS_DB_PASSWORD}",
        "The Django SECRET_KEY is read from the environment (settings.py).",
        "src/orders/db.py:42:13: error: Incompatible types in assignment",
        "00:1a:2b:3c:4d:5e and 12:30:45:123:4567 are a MAC address and a timestamp",
        "Ann <ann@example.com> wrote: see npm:left-pad@1.3.0 and python:3.11@sha256",
        "Authorization: Bearer <token>",
        '{"name": "web", "secret": "hidden"}',
        "The build passed: token count 4096, key: value pairs, primary key is user_id.",
    ]
