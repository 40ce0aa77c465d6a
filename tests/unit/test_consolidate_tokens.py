"""Token counts from the real cl100k_base tokenizer, offline, without importing litellm."""

import subprocess
import sys

import pytest

from memgit.core import tokens


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
            "from memgit.core import tokens\n"
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
        assert tokens.count("x" * 64) == tokens.estimate("x" * 64) == 20  # 64 characters / 3.2
    finally:
        tokens._encoding.cache_clear()


@pytest.fixture
def private_pieces(tmp_path, monkeypatch):
    """count_often with its own piece cache (never the user's)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(tokens._Pieces, "_instance", None)
    yield tmp_path
    tokens._Pieces._instance.dirty = False  # nothing to write at exit


def test_counts_summed_over_cached_pieces_equal_the_encoding(private_pieces):
    import random

    rnd = random.Random(7)
    alphabet = "aé漢字 \n\t\r'sSllveRE123456!?.,;:-_/\\\"😀🏳️‍🌈\u200b\u00a0ß`#*"
    texts = ["Tests run with `uv run pytest -x tests/`.\n\n## Gotchas\n- [gotcha] don't    do that's it\r\n"]
    texts += ["".join(rnd.choice(alphabet) for _ in range(rnd.randint(1, 120))) for _ in range(2000)]
    enc = tokens._encoding()
    for text in texts * 2:  # counted, then from the cache
        assert tokens.count_often(text) == len(enc.encode_ordinary(text)), repr(text)


def test_a_later_process_counts_known_pieces_without_building_the_encoding(tmp_path):
    code = ("from memgit.core import tokens\n"
            "n = tokens.count_often('The summary says how to build and test: `make test`, 3 times.')\n"
            "print(n, tokens._encoding.cache_info().misses)")
    env = {"PATH": "/usr/bin:/bin", "XDG_CACHE_HOME": str(tmp_path)}
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    count, built = first.stdout.split()
    assert built == "1" and int(count) == tokens.count('The summary says how to build and test: `make test`, 3 times.')
    assert second.stdout.split() == [count, "0"]  # the same count, and no encoding built
