"""`memgit search` with the `semantic` extra: a query that shares no word with a note still finds it.

Runs only where `pip install 'memgit[semantic]'` was done (numpy, tokenizers and the wordllama
wheel, whose 16 MB of weights ship inside it); the pure fusion is tested in tests/unit/test_fusion.py.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from memgit.store import embedding
from tests.conftest import fsck

pytestmark = pytest.mark.skipif(embedding.missing() is not None,
                                reason=f"the semantic extra is not installed ({embedding.missing()})")

DNS = "The VM's DNS resolver points to [::1]:53; write nameserver 8.8.8.8 to /etc/resolv.conf"
FRIDAY = "Deploys happen on Fridays after the standup"
QUERY = "name resolution is broken on the virtual machine"  # not one word (but stop words) in common with DNS


def texts(result) -> list[str]:
    assert result.exit_code == 0, result.output
    return [hit["text"] for hit in json.loads(result.stdout)["hits"]]


@pytest.fixture
def notes(memgit_cli, memory_path, monkeypatch):
    monkeypatch.delenv("MEMGIT_SEMANTIC")  # conftest turns it off for every other test
    assert memgit_cli("init").exit_code == 0
    for text in (DNS, FRIDAY):
        assert memgit_cli("remember", text, "--global").exit_code == 0
    return memory_path


def test_a_paraphrase_is_found_with_the_embeddings_and_not_by_words_alone(memgit_cli, notes):
    assert texts(memgit_cli("search", QUERY, "--no-semantic", "--json")) == []
    fused = texts(memgit_cli("search", QUERY, "--json"))
    assert fused and "DNS resolver" in fused[0]
    assert FRIDAY not in fused  # nearest neighbours below the cosine floor are no match
    words = texts(memgit_cli("search", "Fridays", "--json"))
    assert words[0] == FRIDAY  # what BM25 finds stays first
    fsck(notes)


def test_the_cache_is_derived_deleting_it_changes_nothing(memgit_cli, notes):
    before = memgit_cli("search", QUERY, "--json").stdout
    cache = notes / ".git" / "memgit" / "semantic.sqlite"
    assert cache.is_file()
    cache.unlink()
    assert memgit_cli("search", QUERY, "--json").stdout == before
    assert cache.is_file()
    (notes / ".git" / "memgit" / "search.sqlite").unlink()  # rebuilt with new row ids, the same heads
    assert memgit_cli("search", QUERY, "--json").stdout == before


def test_only_new_texts_are_embedded_after_a_commit(memgit_cli, notes):
    memgit_cli("search", QUERY, "--json")
    cache = notes / ".git" / "memgit" / "semantic.sqlite"
    with sqlite3.connect(cache) as db:
        old = dict(db.execute("SELECT hash, v FROM vec"))
    assert memgit_cli("remember", "Staging is read-only on Mondays", "--global").exit_code == 0
    assert "Staging is read-only on Mondays" in texts(memgit_cli("search", "when can I not write to staging",
                                                                 "--json"))
    with sqlite3.connect(cache) as db:
        new = dict(db.execute("SELECT hash, v FROM vec"))
    assert len(new) == len(old) + 1 and all(new[h] == v for h, v in old.items())


def test_the_config_key_and_the_variable_turn_it_off(memgit_cli, notes, hermetic_env, monkeypatch):
    monkeypatch.setenv("MEMGIT_SEMANTIC", "0")
    assert texts(memgit_cli("search", QUERY, "--json")) == []
    monkeypatch.delenv("MEMGIT_SEMANTIC")
    config = hermetic_env / ".config" / "memgit" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("[search]\nsemantic = false\n")
    assert texts(memgit_cli("search", QUERY, "--json")) == []
    assert texts(memgit_cli("search", QUERY, "--semantic", "--json"))  # asked for: on all the same
    config.write_text('[search]\nsemantic = "no"\n')
    bad = memgit_cli("search", QUERY, "--json")
    assert bad.exit_code != 0 and "[search] semantic" in bad.output
