"""Where secrets show up in coding sessions, family by family; and what only looks like one.

Every secret is drawn at test time (a seeded generator over a regex of its format), so this file
holds no value that reads as a real key. Each case checks that the secret is gone from the
redacted text and that the words around it stay.
"""

from __future__ import annotations

import base64
import random
import uuid

import pytest

from memgit.core.redact import find_secrets, redact
from tests.planted_kinds import look_alikes as wide_look_alikes
from tests.planted_kinds import wide
from tests.sample_regex import draw

RNG = random.Random("memgit/test_redact_families")


def gen(regex: str) -> str:
    """A random value of the format `regex`, with at least one digit and one letter (as real keys have)."""
    while True:
        value = draw(regex, RNG)
        if any(c.isdigit() for c in value) and any(c.isalpha() for c in value):
            return value


B64 = "[A-Za-z0-9+/]"
PASSWORD = gen(r"[A-Za-z0-9!#%^*_+=-]{14}")
TOKEN = gen(r"[A-Za-z0-9]{32}")
HEX32 = gen("[a-f0-9]{32}")
AWS_SECRET = gen(B64 + "{40}")


def b64(n: int) -> str:
    return base64.b64encode(RNG.randbytes(n)).decode()


def key_lines(n: int = 4, width: int = 64) -> list[str]:
    body = b64(n * width)
    return [body[i : i + width] for i in range(0, n * width, width)]


NPM_AUTH, DOCKER_AUTH, CLIENT_KEY = b64(24), b64(30), b64(90)
KEY = key_lines()
PUBLIC, [PRIVATE] = key_lines(2), key_lines(1, 44)

# (id, text, the secrets that must disappear, text that must stay)
CASES = [
    # name = value: env, YAML, JSON, URLs; gated by entropy for token/key/secret names
    ("env-api-key", f"SERVICE_API_KEY={TOKEN}", [TOKEN], "SERVICE_API_KEY="),
    ("env-auth-token", f"export AUTH_TOKEN='{TOKEN}'", [TOKEN], "export AUTH_TOKEN="),
    ("yaml-token", f"deploy:\n  api_token: {TOKEN}\n  region: eu", [TOKEN], "region: eu"),
    ("json-client-secret", f'{{"client_id": "web", "client_secret": "{TOKEN}"}}', [TOKEN], '"client_id": "web"'),
    ("url-query-token", f"GET https://api.example.com/v1/items?access_token={TOKEN}&page=2", [TOKEN], "&page=2"),
    ("env-password", f"DB_PASSWORD={PASSWORD}", [PASSWORD], "DB_PASSWORD="),
    ("rails-master-key", f"RAILS_MASTER_KEY={HEX32}", [HEX32], "RAILS_MASTER_KEY="),
    # command-line passwords
    ("mysql-attached", f"mysql -h db -u root -p{PASSWORD} shop < dump.sql", [PASSWORD], "shop < dump.sql"),
    ("mysql-long-flag", f"mysqldump --user=root --password {PASSWORD} shop", [PASSWORD], " shop"),
    ("curl-user", f"curl -u deploy:{PASSWORD} https://ci.example.com/api", [PASSWORD], "https://ci.example.com"),
    ("sshpass", f"sshpass -p '{PASSWORD}' ssh deploy@10.0.0.7 uptime", [PASSWORD], "ssh deploy@10.0.0.7"),
    ("docker-login", f"docker login -u bot -p {PASSWORD} registry.example.com", [PASSWORD], "registry.example.com"),
    ("aws-configure", f"aws configure set aws_secret_access_key {AWS_SECRET}", [AWS_SECRET], "aws configure set"),
    ("vault-login", f"vault login {TOKEN}", [TOKEN], "vault login "),
    ("redis-cli", f"redis-cli -h cache -a {PASSWORD} ping", [PASSWORD], " ping"),
    # credential files, as `cat` shows them
    ("netrc", f"$ cat ~/.netrc\nmachine api.example.com\n  login deploy\n  password {PASSWORD}\n",
     [PASSWORD], "login deploy"),
    ("pgpass", f"$ cat ~/.pgpass\ndb.internal:5432:app:app_user:{PASSWORD}\n", [PASSWORD], "db.internal:5432:app:"),
    ("npmrc-token", f"//registry.npmjs.org/:_authToken={TOKEN}", [TOKEN], "//registry.npmjs.org/"),
    ("npmrc-auth", f"_auth={NPM_AUTH}\nalways-auth=true", [NPM_AUTH], "always-auth=true"),
    ("docker-config", f'{{"auths": {{"ghcr.io": {{"auth": "{DOCKER_AUTH}"}}}}}}', [DOCKER_AUTH], '"ghcr.io"'),
    ("kubeconfig", f"users:\n- name: admin\n  user:\n    client-key-data: {CLIENT_KEY}\n    token: {TOKEN}\n",
     [CLIENT_KEY, TOKEN], "- name: admin"),
    ("gcp-credentials-json", '{"type": "service_account", "private_key": "-----BEGIN PRIVATE KEY-----\\n'
     + "\\n".join(KEY) + '\\n-----END PRIVATE KEY-----\\n", "client_email": "x@p.iam"}',
     KEY, '"client_email": "x@p.iam"'),
    # key blocks: PEM, PGP, PuTTY, a body whose BEGIN line scrolled away
    ("id-rsa", "$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(KEY)
     + "\n-----END OPENSSH PRIVATE KEY-----\n$ ls", KEY, "$ ls"),
    ("pgp", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n" + "\n".join(KEY) + "\n=x8Qn\n"
     "-----END PGP PRIVATE KEY BLOCK-----", KEY, ""),
    ("putty", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
     + "\n".join(PUBLIC) + "\nPrivate-Lines: 1\n" + PRIVATE + "\nPrivate-MAC: " + HEX32 * 2,
     [PRIVATE], "Comment: deploy"),
    ("pem-begin-cut-off", "…output truncated…\n" + "\n".join(KEY) + "\n-----END RSA PRIVATE KEY-----\nDone.",
     KEY, "Done."),
    # values named in prose
    ("prose-password", f"OK, the Postgres password is {PASSWORD}. Use it for the migration.", [PASSWORD],
     "the Postgres password is"),
    ("prose-api-key", f"my API key was {TOKEN}, I rotated it since", [TOKEN], "I rotated it since"),
    ("prose-token-colon", f"Use this one, token: {TOKEN}", [TOKEN], "Use this one"),
    # passwords of letters alone or with spaces, where plainly given to a password name
    ("passphrase-env", 'PASSWORD="correct horse battery staple"', ["correct horse battery staple"], "PASSWORD="),
    ("letters-yaml", "db:\n  password: sunshinerainbow\n", ["sunshinerainbow"], "password: "),
    ("letters-json", '{"user": "ann", "password": "letmeinplease"}', ["letmeinplease"], '"user": "ann"'),
]


@pytest.mark.parametrize(("text", "secrets", "keep"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_family_is_redacted(text, secrets, keep):
    assert find_secrets(text), text
    out = redact(text)
    for secret in secrets:
        assert secret not in out
    assert keep in out


# Formats the brief names, each with a rule (memgit's or gitleaks'): (id, text with the secret).
FORMATS = [
    ("azure-storage", "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + b64(64)
     + ";EndpointSuffix=core.windows.net"),
    ("azure-sas", "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&se=2030-01-01&sig="
     + b64(32).replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")),
    ("azure-client-secret", "AZURE_CLIENT_SECRET=" + gen(r"[a-zA-Z0-9_~.]{3}\dQ~[a-zA-Z0-9_~.-]{34}")),
    ("sendgrid", "SENDGRID=" + gen(r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}")),
    ("heroku", "heroku auth: " + gen(r"HRKU-AA[0-9a-zA-Z_-]{58}")),
    ("heroku-uuid", f"HEROKU_API_KEY={uuid.UUID(int=RNG.getrandbits(128), version=4)}"),
    ("vault", "export VAULT_TOKEN=" + gen(r"hvs\.[\w-]{95}")),
    ("twilio", "twilio " + gen(r"SK[0-9a-f]{32}")),
    ("mailgun", "MAILGUN_API_KEY=" + gen(r"key-[a-f0-9]{32}")),
    ("shopify", "X-Shopify-Access-Token: " + gen(r"shpat_[a-f0-9]{32}")),
    ("shopify-shared-secret", "shopify secret " + gen(r"shpss_[a-f0-9]{32}")),
    ("discord-bot", "discord client.run('" + gen(r"M[A-Za-z\d]{25}\.[\w-]{6}\.[\w-]{38}") + "')"),
    ("discord-webhook", "https://discord.com/api/webhooks/1234567890123/" + gen(r"[\w-]{68}")),
    ("telegram", "https://api.telegram.org/bot" + gen(r"\d{10}:AA[\w-]{33}") + "/sendMessage"),
    ("linear", "lin " + gen(r"lin_api_[a-zA-Z0-9]{40}")),
    ("datadog", "DATADOG_APP_KEY=" + gen(r"[a-z0-9]{40}")),
    ("sentry-dsn", "SENTRY_DSN=https://" + gen("[a-f0-9]{32}") + "@o123456.ingest.sentry.io/4504"),
    ("docker-pat", "echo " + gen(r"dckr_pat_[\w-]{27}") + " | docker login -u me --password-stdin"),
    ("age", gen(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")),
    ("atlassian", "JIRA_TOKEN=" + gen(r"ATATT3[A-Za-z0-9_=-]{186}")),
    ("okta-ssws", "curl -H 'Authorization: SSWS " + gen(r"00[\w-]{40}") + "' https://x.okta.com/api/v1/users"),
    ("asana", "asana_client_secret = " + gen(r"[a-z0-9]{32}")),
    ("postman", "postman " + gen(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}")),
    ("paypal-braintree", gen(r"access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32}")),
    ("square", "square " + gen(r"EAAA[\w-]{60}")),
    ("square-oauth-secret", "square " + gen(r"sq0csp-[\w-]{43}")),
    ("whsec", "STRIPE_WEBHOOK=" + gen(r"whsec_[A-Za-z0-9]{32}")),
    ("replicate", "replicate " + gen(r"r8_[A-Za-z0-9]{37}")),
    ("notion", "notion " + gen(r"ntn_[0-9]{11}[A-Za-z0-9]{35}")),
    ("notion-legacy", "notion " + gen(r"secret_[A-Za-z0-9]{43}")),
    ("airtable", "AIRTABLE=" + gen(r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}")),
    ("firebase-fcm", "fcm " + gen(r"AAAA[\w-]{7}:APA91b[\w-]{134}")),
    ("google-oauth-secret", "client " + gen(r"GOCSPX-[\w-]{28}")),
    ("gitlab-runner", "gitlab-runner register --token " + gen(r"glrt-[0-9a-zA-Z_-]{20}")),
    ("terraform-cloud", "tfc " + gen(r"[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{64}")),
    ("doppler", "doppler " + gen(r"dp\.pt\.[a-zA-Z0-9]{43}")),
    ("digitalocean", "do " + gen(r"dop_v1_[a-f0-9]{64}")),
    ("fly", "fly " + gen(r"fo1_[\w-]{43}")),
    ("pulumi", "pulumi " + gen(r"pul-[a-f0-9]{40}")),
    ("rails-master-key-file", "$ cat config/master.key\n" + gen(r"[a-f0-9]{32}") + "\n$ "),
    ("dotted-token-assigned", "api_token = '" + gen(r"[A-Za-z0-9]{20}\.[A-Za-z0-9]{24}") + "'"),
]


@pytest.mark.parametrize("text", [f[1] for f in FORMATS], ids=[f[0] for f in FORMATS])
def test_named_format_has_a_rule(text):
    assert find_secrets(text), text
    assert "[REDACTED:" in redact(text)


# Things that look like secrets and are not: none of these ten may be taken for one.
def look_alikes() -> list[str]:
    sha = gen("[0-9a-f]{40}")
    return [
        f"commit {sha}\nAuthor: Ann <ann@example.com>\n\n    Fix the flaky sync test (reverts {sha[:7]})",
        f"session {uuid.UUID(int=RNG.getrandbits(128), version=4)} started; request id "
        f"{uuid.UUID(int=RNG.getrandbits(128), version=4)}",
        f"{gen('[0-9a-f]{64}')}  dist/memgit-0.1.0.tar.gz\nsha512: {gen('[0-9a-f]{128}')}",
        f'<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA{b64(600)}" alt="chart">',
        f'"node_modules/left-pad": {{"version": "1.3.0", "integrity": "sha512-{b64(64)}"}}',
        "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "pip install scikit-learn  # the sk-learn package; from sklearn.svm import SVC",
        '<div class="sk-circle-bounce-delay-12 css-1x9f2kq-MuiButtonBase-root-MuiButton-root">',
        "const token = process.env.API_TOKEN;\nheaders.Authorization = `Bearer ${token}`;",
        "password = getpass()\n    env:\n      token: ${GITHUB_TOKEN}",
    ]


def test_look_alikes_are_kept():
    texts = look_alikes()
    assert len(texts) == 10
    taken = [(t[:40], [(f.kind, t[f.start:f.end][:20]) for f in find_secrets(t)]) for t in texts]
    false_positives = [t for t in taken if t[1]]
    assert false_positives == []


@pytest.mark.parametrize("text", [
    "password = getpass()", "password: str", '"password": "The password of the admin user"',
    "password = userPassword", 'password = input("pw: ")', "PASSWORD=", "password: changeme",
    "token: v1.2.3", "api_key: aaaaaaaa1", "token = process.env.API_TOKEN", "self.secret_key = secret_key",
    "the password is stored in the keychain", "the token was 12 characters long", "primary key is user_id",
    "the cache key is v2:user:12345", "mysql -u root -p shop", "mysql -h db -P 3306 shop",
    "sshpass -e ssh host", "docker login --password-stdin ghcr.io", "vault login -method=github",
    "default: 5\ndefault password policy applies", "machine learning is fun",
    "AKIAIOSFODNN7EXAMPLE", "Authorization: Bearer ${TOKEN}", "curl -u $USER:$PASS https://x",
])
def test_innocent_text_is_kept(text):
    assert [(f.kind, text[f.start:f.end]) for f in find_secrets(text)] == []


# ---- the families issue 18 found leaking (tests/planted_kinds.py draws them at test time) ----

WIDE = wide(random.Random("memgit/test_redact_families/wide"))


@pytest.mark.parametrize("kind", sorted(WIDE))
def test_wide_family_is_redacted_and_its_words_stay(kind):
    text, secret = WIDE[kind]
    out = redact(text)
    assert secret not in out and "[REDACTED:" in out
    for word in secret.split():  # a passphrase: none of its words is left behind either
        assert f" {word} " not in f" {out} "
    assert out.split("[REDACTED:")[0] == text.split(secret)[0]  # what precedes the value is kept


def test_ten_wide_look_alikes_are_all_kept():
    texts = wide_look_alikes()
    assert len(texts) == 10
    assert [(t, [t[f.start:f.end] for f in find_secrets(t)]) for t in texts if find_secrets(t)] == []


@pytest.mark.parametrize("text", [
    "api_key: SecretStr", '"input_token": "NextMarker"', "client_secret='my-client-secret'",
    "password: Optional password", "on_pass: allow", 'verify_token="eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9..."',
    '"KeyFingerprint": "1f:51:ae:28:bf:89:e9:d8:1f:25"', "see [cfg.js](cci:1://file:///Users/a/cfg.js:0:0-0:0)",
    "the API key is `OPENAI_API_KEY`", "the token is makeToken()", "passphrase: see the team vault",
])
def test_code_and_docs_that_name_a_credential_are_kept(text):
    assert [(f.kind, text[f.start:f.end]) for f in find_secrets(text)] == []
