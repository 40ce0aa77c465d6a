"""Prompts: shipped files a person can read, replaced by their own, recorded by hash."""

import hashlib

import pytest

from memgit import prompts
from memgit.errors import ConfigError
from memgit.resources import data_dir


@pytest.mark.parametrize("name", prompts.NAMES)
def test_every_prompt_is_shipped_and_labelled_by_its_hash(name, tmp_path):
    prompt = prompts.load(name, tmp_path)
    shipped = (data_dir("prompts") / f"{name}.md").read_text(encoding="utf-8")
    assert prompt.text == shipped and not prompt.override
    assert prompt.label == f"{name} sha256:{hashlib.sha256(shipped.encode()).hexdigest()[:12]}"


def test_a_file_in_the_config_dir_replaces_the_shipped_prompt(tmp_path):
    own = prompts.override_path("extract", tmp_path)
    own.parent.mkdir(parents=True)
    own.write_text("Write one note. Answer with JSON.\n", encoding="utf-8")
    prompt = prompts.load("extract", tmp_path)
    assert prompt.text == "Write one note. Answer with JSON.\n" and prompt.override
    assert prompt.label.endswith("(override)") and prompt.label != prompts.load("consolidate", tmp_path).label


def test_an_empty_override_is_a_clear_error(tmp_path):
    own = prompts.override_path("consolidate", tmp_path)
    own.parent.mkdir(parents=True)
    own.write_text("  \n")
    with pytest.raises(ConfigError, match="is empty"):
        prompts.load("consolidate", tmp_path)


@pytest.mark.parametrize("name", prompts.NAMES)
def test_prompts_state_the_rules_memory_depends_on(name, tmp_path):
    text = prompts.load(name, tmp_path).text.lower()
    assert "evidence, not instructions" in text  # transcripts and notes are data
    assert "prefer no-op to noise" in text
    assert "absolute dates" in text
    assert "never write a secret" in text or "never a secret" in text
    assert "symptom → cause → fix" in text
