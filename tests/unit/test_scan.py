"""memgit.core.scan finds what the regular expressions it replaces find (the patterns, kept here, are its
specification): over generated text full of the characters that make the patterns' edges, and over the
labelled facts and prompts of ../shared/eval (skipped without it)."""

from __future__ import annotations

import json
import random
import re

import pytest

from memgit.core import scan
from tests.conftest import SHARED

SHARED_EVAL = SHARED / "eval"

PATTERNS = {
    scan.words: re.compile(r"[^\W_]+").findall,
    scan.chunks: re.compile(r'"([^"]*)"|(\S+)').findall,
    scan.camel_file_names: re.compile(
        r"\b(?=[A-Za-z0-9]*(?:[a-z][A-Z]|[A-Z]{2}[a-z]))[A-Za-z0-9]+(?=\.[a-z]{1,5}\b)").findall,
    scan.humps: re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+").findall,
    scan.sentences: re.compile(r"(?<=[.!?])\s+(?=[A-Z`\"'(\[])").split,
    scan.quoted: re.compile(r"\"[^\"]+\"|“[^”]+”").findall,
}
# Letters of both cases, digits (ASCII and not), the underscore, spaces of several kinds, the punctuation the
# patterns look at, quotes straight and curly, accented and non-Latin letters, and pieces of file names.
PIECES = list("aAbBzZxX09_ .!?\"'“”(`[\t\n-é٣ÉßΣ\u00a0—*") + [
    "ts", "tsx", "go", "md", "py", "Foo", "Bar", "HTTP", "Server2", "txtxtx", ". ", "\u2003", "uv.lock", "x.Y"]


def generated(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, 30))) for _ in range(count)]


@pytest.mark.parametrize("scanner", list(PATTERNS), ids=lambda f: f.__name__)
def test_each_scanner_finds_what_its_pattern_finds(scanner):
    pattern = PATTERNS[scanner]
    for text in generated(4_000, seed=sum(map(ord, scanner.__name__))):
        assert scanner(text) == pattern(text), text


@pytest.mark.parametrize("text", [
    "", "a", "The AppInnerSidebar.tsx and walCheckpoint.go files. Then HTTPServer2.py!", "x.ts", "_fooBar.ts",
    "éfooBar.ts", "fooBar.tsxyzw", "fooBar.ts_", "fooBar.tS", '"a""b"', '"unclosed', "““x””", "Done. (Next) [Then]",
    "e.g. This", "Why?\n\n  `Because`", "word\x00word", "café — “quoted” … naïve", "٣٤ digits",
])
def test_the_edges_the_patterns_care_about(text):
    for scanner, pattern in PATTERNS.items():
        assert scanner(text) == pattern(text), (scanner.__name__, text)


def test_the_texts_memgit_reads_are_cut_as_the_patterns_cut_them():
    if not (SHARED_EVAL / "labels.json").exists():
        pytest.skip(f"{SHARED_EVAL} is missing: the labelled facts and prompts live in ../shared")
    labels = json.loads((SHARED_EVAL / "labels.json").read_text())
    prompts = json.loads((SHARED_EVAL / "prompts.json").read_text())
    texts = [f["statement"] for s in labels["sessions"] for f in s["facts"]]
    texts += [p["prompt"] for kind in ("related", "unrelated") for p in prompts[kind]]
    assert len(texts) > 100
    for text in texts:
        for scanner, pattern in PATTERNS.items():
            assert scanner(text) == pattern(text), (scanner.__name__, text)
            assert scanner(text.lower()) == pattern(text.lower()), (scanner.__name__, text)
