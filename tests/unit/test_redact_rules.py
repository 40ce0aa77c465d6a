"""The vendored gitleaks rules: each one loads, and gitleaks' own samples pass through memgit.

Gitleaks keeps, for each rule, true positives the rule must find and false positives it must not
(tests/data/gitleaks/samples.json, generated from its sources). Through memgit every true positive
must be redacted (by any rule: memgit's own may report it under another kind) and every false
positive kept, by all of memgit's rules together. The few that cannot are listed in EXCUSED, each
with its reason.
"""

from __future__ import annotations

import base64
import json
import random
import re
import tomllib
from functools import lru_cache
from importlib import resources
from pathlib import Path

import pytest

from memgit.core.secret_rules import gitleaks, keyword_scan, rules
from memgit.core.secret_rules.keywords import KeywordScan
from memgit.core.secret_rules.re2 import translate
from memgit.core.redact import find_secrets, redact
from tests.sample_regex import draw

TABLE = json.loads((Path(__file__).parents[1] / "data" / "gitleaks" / "samples.json").read_text())

NAME_VALUE = ("memgit's name = value rule redacts a random value given to a name ending in token or key, "
              "whatever exact shape the vendor's rule expects")
ANTHROPIC = ("memgit's own anthropic_key rule redacts any sk-ant- key with a digit, whatever its length: "
             "a truncated or malformed key (or a newer kind, sk-ant-oat01-) is still worth hiding")
# rule id, "tps" or "fps", indexes in that list -> why memgit does not do what gitleaks' test expects
_EXCUSED = [
    ("pkcs12-file", "tps", [0, 1, 2], "a path-only rule (a .p12/.pfx file name): transcript text has no path"),
    ("aws-amazon-bedrock-api-key-long-lived", "tps", [0],
     "the sample is AWS's documentation key, full of EXAMPLE: memgit keeps documentation examples"),
    ("anthropic-api-key", "fps", [0, 1], ANTHROPIC),
    ("anthropic-admin-api-key", "fps", [0, 1], ANTHROPIC),
    ("telegram-bot-api-token", "fps", [0, 1, 5, 6, 7, 8, 9, 10], NAME_VALUE),
    ("settlemint-personal-access-token", "fps", [1], NAME_VALUE),
    ("settlemint-service-access-token", "fps", [0], NAME_VALUE),
    ("stripe-access-token", "fps", [0], NAME_VALUE),
    ("sumologic-access-token", "fps", [5], NAME_VALUE),
    ("mailchimp-api-key", "fps", [0], "a Mailchimp key given to `token:`: a credential, redacted by memgit's "
     "name = value rule; gitleaks' rule misses it only because the word mailchimp is too far from it"),
]
EXCUSED = {(rule, label, i): reason for rule, label, indexes, reason in _EXCUSED for i in indexes}


@lru_cache(maxsize=1)
def stopwords() -> tuple[str, ...]:
    """gitleaks' DefaultStopWords: what `newPlausibleSecret` keeps out of a drawn secret."""
    config = tomllib.loads(resources.files("memgit.core.secret_rules").joinpath("gitleaks.toml").read_text())
    [generic] = [r for r in config["rules"] if r["id"] == "generic-api-key"]
    return tuple(w for a in generic["allowlists"] for w in a.get("stopwords", ()))


def _plausible(regex: str, rng: random.Random) -> str:
    while True:
        value = draw(regex, rng)
        if re.search(r"[1-9]", value) and not any(w in value.lower() for w in stopwords()):
            return value


def texts(rule_id: str, label: str, index: int) -> tuple[list[str], str | None]:
    """The sample's text(s) (several for GenerateSampleSecrets) and the secret in them, when known."""
    entry = TABLE["rules"][rule_id][label][index]
    rng = random.Random(f"{rule_id}/{label}")  # one stream per list: a reused Go variable draws once
    drawn: dict[int, str] = {}
    for sample in TABLE["rules"][rule_id][label][: index + 1]:  # draws happen in the list's order
        for part in sample["parts"]:
            if "regex" in part and part["draw"] not in drawn:
                make = _plausible if part.get("plausible") else draw
                drawn[part["draw"]] = make(part["regex"], rng)
    value = "".join(base64.b64decode(p["text"]).decode() if "text" in p else drawn[p["draw"]]
                    for p in entry["parts"])
    if "samples" not in entry:
        return [value], None
    ident = entry["samples"]
    return [f.replace("{i}", ident).replace("{I}", ident.upper()).replace("{s}", value)
            for f in TABLE["sample_formats"]], value


def cases(label: str) -> list:
    out = []
    for rule_id, entry in TABLE["rules"].items():
        for index in range(len(entry[label])):
            reason = EXCUSED.get((rule_id, label, index))
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            out.append(pytest.param(rule_id, index, id=f"{rule_id}-{index}", marks=marks))
    return out


@pytest.mark.parametrize(("rule_id", "index"), cases("tps"))
def test_gitleaks_true_positive_is_redacted(rule_id, index):
    samples, secret = texts(rule_id, "tps", index)
    for text in samples:
        assert find_secrets(text), f"nothing found in {text!r}"
        if secret:
            assert secret not in redact(text), f"{secret!r} survived in {text!r}"


def found_by_gitleaks(text: str) -> bool:
    """Whether any of gitleaks' rules (all of them, as gitleaks runs) finds a secret in `text`.

    Gitleaks checks a false positive against its own rule alone; some are another rule's true
    positive (a Cloudflare global key is not an origin CA key). Those are not false positives of
    the rule set, and memgit, which runs every rule, rightly redacts them.
    """
    raw = text.encode()
    lowered = raw.lower()
    for rule in gitleaks.rules():
        if not any(k.encode() in lowered for k in rule.keywords):
            continue
        if any(rule.judge(m, raw) for m in rule.pattern.finditer(raw)):  # every match, no keyword windows
            return True
    return False


@pytest.mark.parametrize(("rule_id", "index"), cases("fps"))
def test_gitleaks_false_positive_is_kept(rule_id, index):
    [text], _ = texts(rule_id, "fps", index)
    if found_by_gitleaks(text):
        pytest.skip("another gitleaks rule's true positive")
    assert [(f.kind, text[f.start:f.end]) for f in find_secrets(text)] == []


def test_every_vendored_rule_runs_but_the_path_only_one():
    assert gitleaks.skipped() == ["pkcs12-file"]
    config = tomllib.loads(resources.files("memgit.core.secret_rules").joinpath("gitleaks.toml").read_text())
    assert len(gitleaks.rules()) == len(config["rules"]) - 1
    for rule in gitleaks.rules():
        assert rule.pattern.pattern  # compiles


def test_every_vendored_rule_has_samples_in_the_table():
    config = tomllib.loads(resources.files("memgit.core.secret_rules").joinpath("gitleaks.toml").read_text())
    ids = {r["id"] for r in config["rules"]}
    assert TABLE["source"]["commit"] in resources.files("memgit.core.secret_rules").joinpath("NOTICE.md").read_text()
    without = sorted(i for i in ids if not TABLE["rules"].get(i, {}).get("tps"))
    # gitleaks validates these without samples (dropbox) or builds them in loops (jwt-base64)
    assert without == ["dropbox-long-lived-api-token", "dropbox-short-lived-api-token", "jwt-base64"]


@pytest.mark.parametrize(("go", "python"), [
    (r"\b(p8e-(?i)[a-z0-9]{32})(?:x|$)", r"\b(p8e-(?i:[a-z0-9]{32}))(?:x|\Z)"),
    (r"a(?i)b|c", r"a(?i:b)|(?i:c)"),
    (r"(?i)abc$", r"(?i)abc\Z"),
    (r"(?m)^abc$", r"(?m)^abc$"),
    (r"\b(pat[[:alnum:]]{14})\b", r"\b(pat[a-zA-Z0-9]{14})\b"),
    (r"x(?:[^\w-]|\z)", r"x(?:[^\w-]|\Z)"),
    (r"[\w~.|]", r"[\w\~.\|]"),
    (r"[]a]", r"[\]a]"),
])
def test_re2_translation(go, python):
    assert translate(go) == python
    re.compile(python)


@pytest.mark.parametrize("go", [r"\p{Greek}", r"\Qa.b\E", r"[[:^alpha:]]", r"(?U)a+", "a)"])
def test_re2_translation_refuses_what_python_reads_differently(go):
    with pytest.raises(ValueError):
        translate(go)


def test_keyword_scan_without_the_automaton_finds_the_same():
    """The pure-`re` fallback (no ahocorasick_rs) reports the same keywords at the same offsets."""
    fallback = KeywordScan(keyword_scan().keywords, automaton=False)
    for rule_id in list(TABLE["rules"])[::3]:
        for label in ("tps", "fps"):
            for index in range(len(TABLE["rules"][rule_id][label])):
                for text in texts(rule_id, label, index)[0]:
                    lowered = text.encode().lower()
                    assert fallback.hits(lowered) == keyword_scan().hits(lowered), text


def test_trying_rules_at_their_keywords_finds_what_a_full_scan_finds():
    """The engine tries a rule only at, or near, its keywords; on gitleaks' samples that loses nothing."""
    from memgit.core.redact import _matches

    by_id = {r.kind: r for r in gitleaks.rules()}
    for rule_id, entry in TABLE["rules"].items():
        rule = by_id.get(rule_id.replace("-", "_"))
        if rule is None:
            continue
        for label in ("tps", "fps"):
            for index in range(len(entry[label])):
                for text in texts(rule_id, label, index)[0]:
                    raw = text.encode()
                    lowered = raw.lower()
                    hits = keyword_scan().hits(lowered)
                    offsets = sorted(o for k in rule.keywords for o in hits.get(k, ()))
                    if not offsets:
                        continue
                    target = lowered if rule.fold else raw
                    full = {rule.judge(m, raw) for m in rule.pattern.finditer(target)} - {None}
                    placed = {rule.judge(m, raw) for m in _matches(rule, raw, lowered, offsets)} - {None}
                    assert placed == full, (rule_id, rule.placement, text)


def test_rules_are_placed_by_their_keywords():
    """Most rules run only at their keywords' offsets: the speed of long texts depends on it."""
    modes = [r.placement.mode for r in rules()]
    assert modes.count("anywhere") <= 15, [r.kind for r in rules() if r.placement.mode == "anywhere"]
    assert modes.count("at") >= 0.85 * len(modes)
