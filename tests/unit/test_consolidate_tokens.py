"""Token counts from the real cl100k_base tokenizer, offline, without importing litellm."""

import subprocess
import sys

from memgit import tokens


def test_counts_are_cl100k_base_counts():
    assert tokens.exact()
    assert tokens.count("hello world") == 2
    assert tokens.count("") == 0
    assert tokens.count("Tests run with `uv run pytest -x tests/`.") == 12


def test_special_token_text_is_counted_as_text():
    assert tokens.count("<|endoftext|>") > 1


def test_counting_imports_neither_litellm_nor_needs_the_network():
    code = ("import sys, socket\n"
            "def refuse(*a, **k): raise OSError('no network in this test')\n"
            "socket.socket.connect = refuse\n"
            "from memgit import tokens\n"
            "assert tokens.exact() and tokens.count('hello world') == 2\n"
            "print('litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PATH": "/usr/bin:/bin", "TIKTOKEN_CACHE_DIR": "/nonexistent"})
    assert out.stdout.strip() == "False"


def test_without_the_bundled_file_counts_fall_back_to_the_estimate(monkeypatch):
    monkeypatch.setattr(tokens, "_bundled_bpe_file", lambda: None)
    tokens._encoding.cache_clear()
    try:
        assert not tokens.exact()
        assert tokens.count("x" * 69) == tokens.estimate("x" * 69) == 20  # 69 characters / 3.45
    finally:
        tokens._encoding.cache_clear()
