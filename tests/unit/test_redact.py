"""Redaction: every kind of secret is found where it shows up in transcripts, and nothing else is.

Secrets are built at runtime from repeated fragments, so this file does not itself look like a
leak to secret scanners; they still have the real prefixes, lengths and alphabets.
"""

from __future__ import annotations

import dataclasses

import pytest

from memgit.core import redact as redact_mod
from memgit.errors import ConfigError, SecretFound
from memgit.core.redact import Finding, find_secrets, gate, redact, redact_count


def fake(n: int, alphabet: str = "A1b2C3d4E5f6") -> str:
    """A format-valid stand-in for a random token: `n` chars cycling through `alphabet`."""
    return (alphabet * (n // len(alphabet) + 1))[:n]


AKIA = "AKIA" + fake(16, "QWERTY2345")
ASIA = "ASIA" + fake(16, "ZXCVB6789")
AWS_SECRET = fake(40, "wJalrXUtnFEMI/K7MDENG+bPxRfiCY")
GHP = "ghp_" + fake(36)
GITHUB_PAT = "github_pat_" + fake(22) + "_" + fake(59, "Zy9Xw8Vu7")
GLPAT = "glpat-" + fake(20, "xY1-zW2_")
XOXB = "xoxb-" + "123456789012-1234567890123-" + fake(24)
XAPP = "xapp-1-A0" + fake(9, "B1C2") + "-1234567890-" + fake(64, "abc123")
SLACK_HOOK_PATH = "T0" + fake(8, "A1") + "/B0" + fake(8, "C2") + "/" + fake(24)
STRIPE = "sk_live_" + fake(24)
OPENAI = "sk-" + fake(48)
OPENAI_PROJ = "sk-proj-" + fake(74, "Ab3_Cd-4Ef")
ANTHROPIC = "sk-ant-api03-" + fake(93, "Xy7-Zw_8") + "AA"
GOOGLE = "AIza" + fake(35, "Sy1B_c-2")
HF = "hf_" + fake(34, "aBcD1eFg")
NPM = "npm_" + fake(36)
PYPI = "pypi-AgEIcHlwaS5vcmc" + fake(120, "CJGFiY2Rl-ZjEy_LTM0")
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9." + "eyJzdWIiOiIxMjM0NTY3ODkwIn0." + fake(43, "dozjgN_rP4-J3")
KEY_BODY = [fake(64, "MIIEowIBAAKCAQEA1b2"), fake(64, "c3D4e5F6g7+/"), fake(20, "H8i9J0==")]


def pem(kind: str, newline: str = "\n", end: bool = True) -> str:
    lines = [f"-----BEGIN {kind}-----", *KEY_BODY] + ([f"-----END {kind}-----"] if end else [])
    return newline.join(lines)


# (id, text, the secret that must disappear, kind, text that must stay)
POSITIVES = [
    ("aws-key-env", f"export AWS_ACCESS_KEY_ID={AKIA}", AKIA, "aws_access_key", "export AWS_ACCESS_KEY_ID="),
    ("aws-sts-key-json", f'{{"AccessKeyId": "{ASIA}", "Expiration": "soon"}}', ASIA, "aws_access_key",
     '"AccessKeyId": "'),
    ("aws-secret-ini", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "aws_secret_key",
     "aws_secret_access_key = "),
    ("aws-secret-yaml", f"  AWS_SECRET_ACCESS_KEY: {AWS_SECRET}\n", AWS_SECRET, "aws_secret_key",
     "AWS_SECRET_ACCESS_KEY: "),
    ("aws-secret-json", f'{{"SecretAccessKey": "{AWS_SECRET}"}}', AWS_SECRET, "aws_secret_key", '"SecretAccessKey": "'),
    ("github-prose", f"use {GHP} for the API", GHP, "github_token", "use "),
    ("github-oauth", "token " + "gho_" + fake(36), "gho_" + fake(36), "github_token", "token "),
    ("github-server", "ghs_" + fake(36), "ghs_" + fake(36), "github_token", ""),
    ("github-user", "GH=" + "ghu_" + fake(36), "ghu_" + fake(36), "github_token", "GH="),
    ("github-refresh", "ghr_" + fake(40), "ghr_" + fake(40), "github_token", ""),
    ("github-remote", f"git remote add o https://x-access-token:{GHP}@github.com/o/r.git", GHP, "github_token",
     "@github.com/o/r.git"),
    ("github-fine-grained", f"GITHUB_TOKEN={GITHUB_PAT}", GITHUB_PAT, "github_token", "GITHUB_TOKEN="),
    ("gitlab", f"glab auth login --token {GLPAT}", GLPAT, "gitlab_token", "glab auth login --token "),
    ("slack-bot", f"SLACK_BOT_TOKEN={XOXB}", XOXB, "slack_token", "SLACK_BOT_TOKEN="),
    ("slack-user", "xoxp-" + "1234-5678-" + fake(32, "abcd9"), "xoxp-" + "1234-5678-" + fake(32, "abcd9"),
     "slack_token", ""),
    ("slack-app", f"app token: {XAPP}", XAPP, "slack_token", "app token: "),
    ("slack-webhook", f"curl -X POST https://hooks.slack.com/services/{SLACK_HOOK_PATH} -d @msg.json",
     SLACK_HOOK_PATH, "slack_webhook", "https://hooks.slack.com/services/"),
    ("stripe-live", f"stripe.api_key = '{STRIPE}'", STRIPE, "stripe_key", "stripe.api_key = '"),
    ("stripe-test", "sk_test_" + fake(24), "sk_test_" + fake(24), "stripe_key", ""),
    ("stripe-restricted", "key rk_live_" + fake(24), "rk_live_" + fake(24), "stripe_key", "key "),
    ("openai-legacy", f"OPENAI_API_KEY={OPENAI}", OPENAI, "openai_key", "OPENAI_API_KEY="),
    ("openai-project", f'client = OpenAI(api_key="{OPENAI_PROJ}")', OPENAI_PROJ, "openai_key", 'OpenAI(api_key="'),
    ("anthropic", f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC, "anthropic_key", "ANTHROPIC_API_KEY="),
    ("anthropic-header", f"-H 'x-api-key: {ANTHROPIC}'", ANTHROPIC, "anthropic_key", "x-api-key: "),
    ("google", f"https://maps.googleapis.com/api?key={GOOGLE}&q=1", GOOGLE, "google_api_key", "&q=1"),
    ("huggingface", f"huggingface-cli login --token {HF}", HF, "huggingface_token", "huggingface-cli login"),
    ("npm", f"//registry.npmjs.org/:_authToken={NPM}", NPM, "npm_token", "//registry.npmjs.org/:_authToken="),
    ("pypi", f"[pypi]\nusername = __token__\npassword = {PYPI}\n", PYPI, "pypi_token", "username = __token__"),
    ("jwt", f"the cookie was session={JWT}; Path=/", JWT, "jwt", "; Path=/"),
    ("bearer-curl", 'curl -H "Authorization: Bearer ' + fake(32, "zyx987") + '" https://api',
     fake(32, "zyx987"), "authorization", 'curl -H "Authorization: Bearer '),
    ("basic-auth", "Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpwYXNzd29yZA==", "authorization",
     "Authorization: Basic "),
    ("token-auth-json", '{"headers": {"authorization": "token ' + fake(40, "0a1b") + '"}}', fake(40, "0a1b"),
     "authorization", '"authorization": "token '),
    ("proxy-authorization", "Proxy-Authorization: Basic " + fake(24, "QWxh"), fake(24, "QWxh"), "authorization",
     "Proxy-Authorization: Basic "),
    ("bearer-log", "sending Bearer " + fake(40, "Tk9l") + " to upstream", fake(40, "Tk9l"), "authorization",
     " to upstream"),
    ("rsa-key", f"before\n{pem('RSA PRIVATE KEY')}\nafter", KEY_BODY[0], "private_key", "before\n"),
    ("openssh-key", f"$ cat ~/.ssh/id_ed25519\n{pem('OPENSSH PRIVATE KEY')}\n$ ls", KEY_BODY[1], "private_key",
     "$ cat ~/.ssh/id_ed25519"),
    ("ec-key", pem("EC PRIVATE KEY"), KEY_BODY[2], "private_key", ""),
    ("pkcs8-key", pem("PRIVATE KEY") + "\nok", KEY_BODY[0], "private_key", "\nok"),
    ("pgp-key", pem("PGP PRIVATE KEY BLOCK").replace("\n", "\nVersion: GnuPG v2\n\n", 1), KEY_BODY[0],
     "private_key", ""),
    ("encrypted-key", pem("RSA PRIVATE KEY").replace("\n", "\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,AB12\n\n", 1),
     KEY_BODY[1], "private_key", ""),
    ("key-json-escaped", '{"content": "' + pem("RSA PRIVATE KEY", newline="\\n") + '"}', KEY_BODY[1], "private_key",
     '{"content": "'),
    ("key-cut-off", f"here it is:\n{pem('OPENSSH PRIVATE KEY', end=False)}", KEY_BODY[2], "private_key",
     "here it is:"),
    ("postgres", "DATABASE_URL=postgres://app:s3cr3t-Pw@db.internal:5432/app", "s3cr3t-Pw", "url_credentials",
     "postgres://app:"),
    ("postgresql", "postgresql://admin:Hunter2x@10.0.0.5/prod", "Hunter2x", "url_credentials", "@10.0.0.5/prod"),
    ("mysql", "mysql://root:r00tpass@localhost:3306/db", "r00tpass", "url_credentials", "mysql://root:"),
    ("mongodb", "mongodb://user:pa55word@mongo:27017", "pa55word", "url_credentials", "@mongo:27017"),
    ("mongodb-srv", "mongodb+srv://admin:S3cret!x@cluster0.ab1cd.mongodb.net/db", "S3cret!x", "url_credentials",
     "mongodb+srv://admin:"),
    ("redis", "REDIS_URL=redis://:p4ssw0rd@cache:6379/0", "p4ssw0rd", "url_credentials", "redis://:"),
    ("rediss", "rediss://default:AbC123xyz@redis.cloud:6380", "AbC123xyz", "url_credentials", "@redis.cloud:6380"),
    ("amqp", "amqp://svc:q8w7e6r5@rabbit/vhost", "q8w7e6r5", "url_credentials", "amqp://svc:"),
    ("amqps", "amqps://svc:q8w7e6r5@rabbit/vhost", "q8w7e6r5", "url_credentials", "@rabbit/vhost"),
    ("https-creds", "pip install --index-url https://deploy:tok3n-Value@pypi.corp/simple pkg", "tok3n-Value",
     "url_credentials", "https://deploy:"),
    ("http-creds", "http://admin:Adm1n!23@192.168.1.1/", "Adm1n!23", "url_credentials", "@192.168.1.1/"),
    ("env-password", "PASSWORD=hunter22", "hunter22", "password_assignment", "PASSWORD="),
    ("env-export-quoted", 'export API_KEY="abc123def456ghi"', "abc123def456ghi", "password_assignment",
     'export API_KEY="'),
    ("env-db-pass", "DB_PASS=hunter22\nDB_HOST=db", "hunter22", "password_assignment", "DB_HOST=db"),
    ("env-pgpassword", "PGPASSWORD=Xy12zz psql -h db", "Xy12zz", "password_assignment", " psql -h db"),
    ("json-password", '{"user": "bob", "password": "Tr0ub4dor&3"}', "Tr0ub4dor&3", "password_assignment",
     '"password": "'),
    ("json-escaped", '{"command": "echo {\\"password\\": \\"hunter22\\"}"}', "hunter22", "password_assignment",
     '\\"password\\": \\"'),
    ("yaml-password", "database:\n  password: hunter22\n  host: db\n", "hunter22", "password_assignment",
     "  password: "),
    ("yaml-secret-key-base", "production:\n  secret_key_base: " + fake(64, "2f1c0a9e") + "\n", fake(64, "2f1c0a9e"),
     "password_assignment", "secret_key_base: "),
    ("flag-equals", "mysql --password=hunter22 -u root", "hunter22", "password_assignment", "--password="),
    ("flag-space", "gh auth login --token abc123xyz789", "abc123xyz789", "password_assignment", "--token "),
    ("flag-api-key", "tool --api-key 9f8e7d6c5b4a", "9f8e7d6c5b4a", "password_assignment", "tool --api-key "),
    ("python-api-key", 'api_key = "9f8e7d6c5b4a3928"', "9f8e7d6c5b4a3928", "password_assignment", "api_key = "),
    ("python-kwarg", 'login(username="bob", password="s3cr3t!")', "s3cr3t!", "password_assignment",
     'username="bob"'),
    ("js-camel", "const config = { apiKey: 'x9Y8z7W6v5' }", "x9Y8z7W6v5", "password_assignment", "apiKey: '"),
    ("js-access-token", 'accessToken: "at-77f3e2d1c0"', "at-77f3e2d1c0", "password_assignment", "accessToken: "),
    ("client-secret", "client_secret = 'Zx9-aB7_qR4tT2'", "Zx9-aB7_qR4tT2", "password_assignment", "client_secret"),
    ("private-key-name", 'private_key = "a1b2c3d4e5f6a7b8"', "a1b2c3d4e5f6a7b8", "password_assignment",
     "private_key = "),
    ("access-key-name", "ACCESS_KEY: k3y-v4lu3-123", "k3y-v4lu3-123", "password_assignment", "ACCESS_KEY: "),
    ("http-header-key", "X-Api-Key: 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706", "password_assignment",
     "X-Api-Key: "),
    ("ruby-hash", ':password => "p@ssw0rd1"', "p@ssw0rd1", "password_assignment", ":password => "),
]


@pytest.mark.parametrize(("text", "secret", "kind", "keep"), [c[1:] for c in POSITIVES], ids=[c[0] for c in POSITIVES])
def test_finds_and_redacts_each_kind(text, secret, kind, keep):
    assert [f.kind for f in find_secrets(text)] == [kind]
    out = redact(text)
    assert secret not in out
    assert f"[REDACTED:{kind}]" in out
    assert keep in out


@pytest.mark.parametrize("text", [c[1] for c in POSITIVES], ids=[c[0] for c in POSITIVES])
def test_redaction_is_idempotent(text):
    once = redact(text)
    assert redact(once) == once
    assert find_secrets(once) == []


NEGATIVES = [
    ("git-sha", "commit 3f786850e387550fdab836ed7e6dc881de23001b (HEAD -> main)"),
    ("short-sha", "fixed in a1b2c3d, see also 9e8f7a6"),
    ("uuid", "session 123e4567-e89b-12d3-a456-426614174000 started"),
    ("ssh-path", "ssh -i /Users/x/.ssh/id_rsa host && chmod 600 ~/.ssh/id_ed25519"),
    ("private-key-path", "private_key: ~/.ssh/id_ed25519"),
    ("image-placeholder", "here is the screenshot [image] and [image #2]"),
    ("identifiers", "test_password_reset_flow passwordless_login tokenizer token_count secret_key_base"),
    ("css-and-packages", 'class="btn-primary sk-spinner" import Anthropic from "@anthropic-ai/sdk"'),
    ("scikit-learn", "pip install scikit-learn sk-learn; from sklearn import svm"),
    ("slug-url", "https://medium.com/p/sk-building-interactive-tools-2024"),
    ("sha256-digest", "image@sha256:3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c"),
    ("lockfile-integrity", 'integrity: sha512-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789+/abcdefghijklmnopq=='),
    ("env-reference", "password: ${DB_PASSWORD}\ntoken: $GITHUB_TOKEN"),
    ("os-environ", 'api_key=os.environ["OPENAI_API_KEY"]\nkey = os.getenv("KEY")'),
    ("angle-placeholder", "token: <your-token>\nAPI_KEY=<api-key>"),
    ("empty", "PASSWORD=\nAPI_KEY=\n"),
    ("getpass", "password = getpass()\npassword = getpass.getpass('pw: ')"),
    ("json-schema", '{"password": "string", "token": "str", "api_key": {"type": "string"}}'),
    ("changeme", 'password: changeme\n"password": "changeme1"\npassword=your_password_here'),
    ("stars", "password: ********\nAPI_KEY=xxxxxxxxxxxxxxxx"),
    ("prose", "the token is stored in the keychain; pass the secret key through the env"),
    ("token-counts", "max_tokens: 4096\ntokens: 1200\ntoken_count=5\nToken: 1,200"),
    ("trailer", "Memgit-Tokens: 1234\nMemgit-Session: abc"),
    ("secret-key-base-name", "set secret_key_base:\n  in credentials.yml.enc"),
    ("code-references", "token = self.token\npassword = password\nconnect(password=db_password)\n"
                        "env.apiKey = process.env.CODEMIE_API_KEY"),
    ("words-as-values", "apiKey: 'proxy-handled'\nenv.OPENAI_API_KEY = 'not-required'\ntoken: expired"),
    ("type-annotations", "api_key: SecretStr\npassword: str = Field(...)\ntoken: Optional[str] = None"),
    ("flag-variable", '--token "$GITHUB_TOKEN" --password=$PW'),
    ("f-string-bearer", 'headers = {"Authorization": f"Bearer {token}"}'),
    ("bearer-placeholder", "'authorization': 'Bearer REDACTED_TOKEN'"),
    ("bearer-prose", "Bearer tokens are sent in the Authorization header"),
    ("stripe-publishable", "Stripe('pk_live_" + fake(24) + "')"),
    ("slack-placeholder", "SLACK_TOKEN=xoxb-your-token-here"),
    ("openai-placeholder", "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("url-placeholder", "postgres://user:password@localhost/db and postgres://u:${PGPASSWORD}@h/db"),
    ("url-f-string", 'f"postgresql://{user}:{password}@{host}/db"'),
    ("urls-without-creds", "http://localhost:8080/a@b git@github.com:org/repo.git ssh://git@github.com:22/r"),
    ("pem-in-code", 'if line.startswith("-----BEGIN RSA PRIVATE KEY-----"):\n    kind = "rsa"'),
    ("go-test-output", "--- PASS: TestFoo123 (0.00s)\nPASS\nok  \tpkg\t0.01s"),
    ("bypass", "bypass=abc123 compass: n0rth"),
    ("sort-key", "sorted(items, key=len)\nmax(xs, key=lambda x: x[1])"),
    ("one-segment-base64-json", "payload eyJhbGciOiJIUzI1NiJ9 only"),
    ("aws-example-name", "aws_access_key_id = the id from the console"),
    ("next-page-token", '"next_page_token": null'),
    # (a token glued to a word, myghp_<36 chars>, is gitleaks' github-pat: redacted, see test_redact_rules)
    ("word-tails", "task-20240101abcdefghijkl0 xAKIA" + fake(16, "QWERTY2345") + " risk_live_" + fake(24)),
]


@pytest.mark.parametrize("text", [c[1] for c in NEGATIVES], ids=[c[0] for c in NEGATIVES])
def test_leaves_non_secrets_alone(text):
    assert find_secrets(text) == []
    assert redact(text) == text


@pytest.mark.parametrize("kind", sorted({c[3] for c in POSITIVES}))
def test_placeholder_is_never_a_secret(kind):
    placeholder = f"[REDACTED:{kind}]"
    contexts = [
        placeholder,
        f"password: {placeholder}",
        f'"password": "{placeholder}"',
        f"Authorization: Bearer {placeholder}",
        f"postgres://u:{placeholder}@h/db",
        f"{placeholder}{placeholder}",
    ]
    for text in contexts:
        assert find_secrets(text) == [], text


def test_finding_carries_kind_offsets_and_line_but_no_value():
    text = "line one\nline two\n  PASSWORD=hunter22\n"
    [f] = find_secrets(text)
    assert [field.name for field in dataclasses.fields(Finding)] == ["kind", "start", "end", "line"]
    assert (f.kind, f.line, text[f.start : f.end]) == ("password_assignment", 3, "hunter22")


def test_offsets_are_characters_in_non_ascii_text():
    text = f"héllo 🎉 wörld\n→ token: abc123xyz and {GHP} ✓"
    found = find_secrets(text)
    assert [text[f.start : f.end] for f in found] == ["abc123xyz", GHP]
    assert [f.line for f in found] == [2, 2]
    assert redact(text) == "héllo 🎉 wörld\n→ token: [REDACTED:password_assignment] and [REDACTED:github_token] ✓"


def test_lone_surrogates_do_not_break_scanning():
    text = "broken \ud83d emoji then " + GHP
    assert redact(text) == "broken \ud83d emoji then [REDACTED:github_token]"


def test_overlapping_patterns_report_the_most_specific_kind_once():
    text = f"Authorization: Bearer {ANTHROPIC}\nOPENAI_API_KEY={OPENAI}"
    assert [f.kind for f in find_secrets(text)] == ["anthropic_key", "openai_key"]


def test_redact_count_counts_replacements():
    text = f"{GHP} and {NPM}\nPASSWORD=hunter22"
    out, n = redact_count(text)
    assert n == 3
    assert out == "[REDACTED:github_token] and [REDACTED:npm_token]\nPASSWORD=[REDACTED:password_assignment]"
    assert redact_count("nothing here") == ("nothing here", 0)


def test_short_and_long_texts_agree():
    """Short texts are prefiltered by their leads, long ones are not: both must find the same."""
    short = f"x ask-ant-y {ANTHROPIC} z"
    long = short + " " + "lorem ipsum " * 100
    assert [f.kind for f in find_secrets(short)] == [f.kind for f in find_secrets(long)] == ["anthropic_key"]


# ---- extra patterns ---------------------------------------------------------------------


def test_extra_patterns_add_custom_findings():
    text = "ticket ACME-1234567 filed; internal id corp_s3cr3t_abcdef"
    found = find_secrets(text, [r"corp_s3cr3t_\w+"])
    assert [(f.kind, text[f.start : f.end]) for f in found] == [("custom", "corp_s3cr3t_abcdef")]
    assert redact(text, (r"corp_s3cr3t_\w+",)) == "ticket ACME-1234567 filed; internal id [REDACTED:custom]"


def test_extra_pattern_group_named_secret_limits_the_span():
    text = "employee badge=ZX-99812 issued"
    assert redact(text, [r"badge=(?P<secret>ZX-\d+)"]) == "employee badge=[REDACTED:custom] issued"


def test_builtin_findings_win_over_overlapping_extra_patterns():
    assert [f.kind for f in find_secrets(f"x {GHP} y", [r"ghp_\w+"])] == ["github_token"]


def test_bad_extra_pattern_is_a_config_error():
    with pytest.raises(ConfigError, match="extra_patterns"):
        find_secrets("text", ["(unclosed"])


# ---- the commit gate ------------------------------------------------------------------------


def test_gate_passes_clean_blobs():
    gate({"notes/a.md": b"# A note\n\nUse `git rebase -i` carefully.\n", "MEMORY.md": b"- commit 3f786850e3\n"})


def test_gate_names_path_line_and_kind_but_not_the_value():
    blobs = {
        "notes/clean.md": b"nothing to see\n",
        "notes/leak.md": f"# Title\n\nthe key was {GHP}\n".encode(),
    }
    with pytest.raises(SecretFound) as err:
        gate(blobs)
    message = err.value.message
    assert "notes/leak.md:3" in message
    assert "github_token" in message
    assert GHP not in message and GHP[4:20] not in message
    assert "notes/clean.md" not in message
    assert "nothing was committed" in message and "Remove" in message


def test_gate_lists_at_most_a_few_findings():
    blob = "\n".join(f"PASSWORD=hunter{i:03d}" for i in range(12)).encode()
    with pytest.raises(SecretFound) as err:
        gate({"notes/many.md": blob})
    message = err.value.message
    assert "notes/many.md:5" in message and "notes/many.md:6" not in message
    assert "and 7 more" in message
    assert "hunter" not in message


def test_gate_reads_invalid_utf8():
    with pytest.raises(SecretFound, match="bin.md:1"):
        gate({"bin.md": b"\xff\xfe " + GHP.encode()})


def test_gate_uses_extra_patterns():
    gate({"a.md": b"internal corp_s3cr3t_abcdef"})
    with pytest.raises(SecretFound, match=r"a\.md:1 \(custom\)"):
        gate({"a.md": b"internal corp_s3cr3t_abcdef"}, [r"corp_s3cr3t_\w+"])


def test_gate_has_the_secret_found_exit_code():
    assert SecretFound.exit_code == 6
    assert redact_mod.MAX_LISTED == 5


def test_secrets_in_each_text_are_what_each_text_alone_holds():
    """Many texts (a fetch's file names) are told apart by one keyword pass, then only those with a
    keyword are searched: the findings are each text's own, with or without the user's patterns."""
    import random

    from memgit.core.redact import secrets_in_each

    rng = random.Random(2)
    planted = [text for _, text, *_ in POSITIVES] + ["2026-01-02-fix-the-token-refresh-ad72d30c.md",
                                                     "passwords.md", "\ud83d broken", "PASSWORD=hunter22"]
    texts = [rng.choice(planted) if rng.random() < 0.2 else
             f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}-{'-'.join(rng.sample(NAME_WORDS, 4))}.md"
             for _ in range(3000)]
    expected = [find_secrets(text) for text in texts]
    assert secrets_in_each(texts) == expected and any(expected)
    assert secrets_in_each(texts, [r"hunter\d+"]) == [find_secrets(text, [r"hunter\d+"]) for text in texts]
    assert secrets_in_each([]) == [] and secrets_in_each([GHP]) == [find_secrets(GHP)]


NAME_WORDS = "fix the build endpoint returns when review empty add tests for token key pass api docker sk".split()
