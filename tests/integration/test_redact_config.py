"""`[redact] allow`: values a person declares are not secrets, honoured wherever redaction runs."""

from __future__ import annotations

import pytest

from memgit import config
from memgit.core import redact
from memgit.errors import ConfigError
from memgit.core.model import Transcript, Turn
from memgit.sources.claude_code.synthetic import SessionWriter, session_id
from tests.conftest import age

TOKEN = "ghp_" + "Zx9Qw3Er7Ty1Ui5Op2As6Df0Gh4Jk8Lm3Nb7V"[:36]  # built here, not a real token
CI_TOKEN = "ci-test-" + "0f1e2d3c4b5a6978" * 2 + "0f1e2d3c"  # a fixture value of a CI system


def load(tmp_path, text: str) -> config.Config:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return config.load(env={"HOME": str(tmp_path), "MEMGIT_CONFIG": str(path)})


def test_allow_is_read_and_rides_on_the_extra_patterns(tmp_path):
    cfg = load(tmp_path, '[redact]\nextra_patterns = ["ACME-[0-9]{6}"]\nallow = ["ghp_Zx9Q\\\\w+"]\n')
    assert cfg.redact_allow == ("ghp_Zx9Q\\w+",)
    assert tuple(cfg.extra_redact_patterns) == ("ACME-[0-9]{6}",)
    text = f"token {TOKEN} ticket ACME-123456"
    # every caller passes cfg.extra_redact_patterns; the allow list comes with it
    assert redact.redact(text, cfg.extra_redact_patterns) == f"token {TOKEN} ticket [REDACTED:custom]"
    assert redact.redact(text, ("ACME-[0-9]{6}",)) == "token [REDACTED:github_token] ticket [REDACTED:custom]"


def test_allow_must_match_the_whole_value():
    text = f"token {TOKEN}"
    assert redact.find_secrets(text, allow=["ghp_"]) != []  # a prefix is not the value
    assert redact.find_secrets(text, allow=["ghp_[A-Za-z0-9]{36}"]) == []


def test_allow_keeps_custom_findings_too():
    assert redact.find_secrets("id ACME-123456", ["ACME-[0-9]{6}"], allow=["ACME-123456"]) == []


@pytest.mark.parametrize(("toml", "message"), [
    ('[redact]\nallow = ["(unclosed"]\n', r"bad regex in \[redact\] allow: '\(unclosed'"),
    ('[redact]\nextra_patterns = ["[z-a]"]\n', r"bad regex in \[redact\] extra_patterns: '\[z-a\]'"),
    ('[redact]\nallow = "ci-.*"\n', r"\[redact\] allow .* must be a list of regex strings"),
])
def test_a_bad_pattern_is_a_config_error_naming_it(tmp_path, toml, message):
    with pytest.raises(ConfigError, match=message):
        load(tmp_path, toml)


def test_a_bad_allow_pattern_passed_directly_is_a_config_error():
    with pytest.raises(ConfigError, match=r"\[redact\] allow"):
        redact.find_secrets("text", allow=["(unclosed"])


def test_transcripts_and_gate_honour_allow(tmp_path):
    cfg = load(tmp_path, f'[redact]\nallow = ["{CI_TOKEN}"]\n')
    t = Transcript(session_id="s", agent="claude-code", source="s.jsonl", cwd="/p", turns=[
        Turn(role="user", text=f"CI_API_TOKEN={CI_TOKEN} and GH_TOKEN={TOKEN}")])
    [turn] = redact.redact_transcript(t, cfg.extra_redact_patterns).turns
    assert turn.text == f"CI_API_TOKEN={CI_TOKEN} and GH_TOKEN=[REDACTED:github_token]"
    redact.gate({"notes/ci.md": f"CI_API_TOKEN={CI_TOKEN}\n".encode()}, cfg.extra_redact_patterns)


def test_sync_commits_a_note_holding_an_allowed_value(tmp_path, claude_projects, memory_path, memgit_cli,
                                                     monkeypatch):
    cfg_file = tmp_path / "config.toml"
    cfg_file.write_text(f'[redact]\nallow = ["{TOKEN}"]\n')
    monkeypatch.setenv("MEMGIT_CONFIG", str(cfg_file))
    memgit_cli("init")
    (memory_path / "notes").mkdir()
    (memory_path / "notes" / "deploy.md").write_text(f"Deploy token for the fixture org: {TOKEN}\n")
    w = SessionWriter(session_id("allow"), "/home/demo/dev/vault").user("Always run the linter first.")
    age(w.write(claude_projects))
    result = memgit_cli("sync")
    assert result.exit_code == 0, result.stderr  # without the allow list the gate refuses it (test_secrets)
