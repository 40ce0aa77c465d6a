"""Planted secrets of every category never reach a blob of the memory repository."""

import subprocess

from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age, git

A36 = "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36]


def planted() -> dict[str, tuple[str, str]]:
    """kind -> (text carrying the secret, the secret value that must never be committed)."""
    jwt = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6Ik1lbWdpdCJ9"
           ".Qk3xP8vR2mT6yW9zA1cE4fH7jL0nS5uX8bD3gK6")
    key_body = "MIIEowIBAAKCAQEAx7Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7VzXcPq9Wr2Ty6Ui0Op4As8Df2Gh6Jk0Lm"
    cases = {
        "aws_access_key": "AKIAQ7ZP3XK9M2WV5RTB",
        "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ8mNkLp2T",
        "github_ghp": "ghp_" + A36, "github_gho": "gho_" + A36, "github_ghs": "ghs_" + A36,
        "github_ghu": "ghu_" + A36,
        "github_pat": "github_pat_11ABCDEFG0" + "aB3dE5gH7jK9mN1pQ3sT5vX7zA" * 3,
        "gitlab": "glpat-" + "Xy7Kp2Qr9Ws4Ev6Tn1Bm",
        "slack": "xoxb-2048118239-5928374650123-" + "AbCdEfGhIjKlMnOpQrStUvWx",
        "stripe": "sk_live_" + "51HqLyB2eZvKYlo2C8xPq3Wm7Rt",
        "openai": "sk-" + "Tq8Wm3Xr7Yp2Zk5Vn9Bc4Df6Gh1Jk0Lm3Nq8Rs2Tu5Vw",
        "openai_proj": "sk-proj-" + "Hj4Kl7Mn2Pq5Rs8Tu1Vw4Xy7Za0Bc3De6Fg9Hi2Jk5Lm8No",
        "anthropic": "sk-ant-api03-" + "Wq3Er6Ty9Ui2Op5As8Df1Gh4Jk7Lz0Xc3Vb6Nm9Qw2Er5Ty8Ui1Op4As7Df0Gh3Jk6Lz9Xc2Vb5Nm8-AbCdEfAA",
        "google": "AIza" + "SyD3fG7hJ1kL5mN9pQ2rS6tU0vW4xY8zA3b",
        "huggingface": "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi",
        "npm": "npm_" + A36,
        "pypi": "pypi-AgEIcHlwaS5vcmc" + "CJGM0YjVhZjM1LTI4NmMtNDYyZi1hN2NjLTQ4MjM0NzU0YjEyMgACKlsz",
        "jwt": jwt,
        "bearer": "Zq8Xw3Cv7Bn2Mk5Lp9Oi4Uy6Tr1Ed0Ws",
        "private_key": key_body,
        "postgres": "pg-S3cretPassw0rd",
        "mysql": "my-Sup3rS3cret!",
        "mongodb": "mongoPassW0rd99",
        "redis": "r3disPassW0rdXY",
        "amqp": "amqpPassW0rd77",
        "https": "httpsPassW0rd55",
        "env_password": "hunter2-Correct-Horse",
        "json_secret": "jsonSecretValue-8842",
        "yaml_token": "yamlTokenValue-5521",
        "shell_api_key": "shellApiKeyValue-7781",
    }
    texts = {
        "aws_access_key": f"export AWS_ACCESS_KEY_ID={cases['aws_access_key']}",
        "aws_secret": f"aws_secret_access_key = {cases['aws_secret']}",
        "bearer": f'curl -H "Authorization: Bearer {cases["bearer"]}" https://api.example.com/v1/items',
        "private_key": f"-----BEGIN RSA PRIVATE KEY-----\n{cases['private_key']}\n-----END RSA PRIVATE KEY-----",
        "postgres": f"postgres://admin:{cases['postgres']}@db.example.com:5432/app",
        "mysql": f"mysql://root:{cases['mysql']}@127.0.0.1/shop",
        "mongodb": f"mongodb+srv://app:{cases['mongodb']}@cluster0.example.mongodb.net/test",
        "redis": f"redis://default:{cases['redis']}@cache.example.com:6379/0",
        "amqp": f"amqp://guest:{cases['amqp']}@mq.example.com:5672/",
        "https": f"https://deploy:{cases['https']}@git.example.com/org/repo.git",
        "env_password": f"DB_PASSWORD={cases['env_password']}",
        "json_secret": f'{{"client_secret": "{cases["json_secret"]}"}}',
        "yaml_token": f"auth_token: {cases['yaml_token']}",
        "shell_api_key": f"deploy --api-key={cases['shell_api_key']}",
    }
    return {kind: (texts.get(kind, f"the key is {value}"), value) for kind, value in cases.items()}


def write_planted_sessions(projects, secrets: dict[str, tuple[str, str]], prefix: str) -> None:
    """One idle session per secret, carrying it in user text, tool input and tool output."""
    for i, (kind, (text, _value)) in enumerate(secrets.items()):
        w = SessionWriter(session_id(f"{prefix}-{kind}"), "/home/demo/dev/vault")
        # user text: a stated preference, so the extractor wants to keep the sentence
        w.user(f"Always deploy with this: {text} — never anything else.")
        # tool input: a successful test command carrying it
        w.bash(f"{text} uv run pytest -x tests/", "12 passed in 0.8s")
        # tool output: a failing command whose error shows it, then the fix
        w.bash("uv run pytest -x tests/", f"E   ConnectionError: could not connect with {text}", error=True)
        w.bash("uv run pytest -x tests/", "12 passed in 0.9s")
        age(w.write(projects), 7200 - i)


def test_planted_secrets_appear_in_no_object(claude_projects, memory_path, memgit_cli):
    secrets = planted()
    write_planted_sessions(claude_projects, secrets, "secret")
    result = memgit_cli("sync")
    assert result.exit_code == 0, result.stderr
    assert "extracted 0" not in result.stdout
    objects = subprocess.run(["git", "-C", str(memory_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    assert "REDACTED" in objects  # the redaction did happen and the notes were kept
    leaked = [kind for kind, (_text, value) in secrets.items() if value in objects]
    assert leaked == []
    cache = "".join(p.read_text(errors="replace") for p in (memory_path / ".git" / "memgit").glob("*.json"))
    assert not [kind for kind, (_t, value) in secrets.items() if value in cache]


def test_a_secret_a_person_writes_into_the_worktree_is_left_out_and_reported(claude_projects, memory_path, memgit_cli):
    memgit_cli("init")
    token = "ghp_" + A36
    (memory_path / "notes").mkdir()
    (memory_path / "notes" / "deploy.md").write_text(f"Deploy token: {token}\n")
    w = SessionWriter(session_id("gate"), "/home/demo/dev/vault").user("Always run the linter first.")
    age(w.write(claude_projects))
    result = memgit_cli("sync")
    assert result.exit_code == 0, result.output  # never a silent block: the sessions go on
    assert "not committed: notes/deploy.md holds what looks like a secret (github_token in line 1)" in result.output
    assert token not in result.output
    assert "extract(vault)" in git(memory_path, "log", "--all", "--format=%s")
    objects = subprocess.run(["git", "-C", str(memory_path), "cat-file", "--batch-all-objects", "--batch"],
                             capture_output=True, check=True).stdout.decode("utf-8", "replace")
    assert token not in objects
    assert token in (memory_path / "notes" / "deploy.md").read_text()  # the person's file is left as it was
    assert "notes/" in git(memory_path, "status", "--porcelain")
