"""The rules that find secrets: memgit's own and gitleaks' vendored set, most specific first.

Order decides which kind is reported where two rules find the same secret: memgit's specific
rules (the kinds memgit always reported), then gitleaks' (its generic-api-key aside), then
memgit's `name = value` rules, then gitleaks' generic-api-key.

    rule.py      one Rule: keywords, pattern, judge        own.py      memgit's rules
    gitleaks.py  the vendored gitleaks.toml as Rules        re2.py      Go RE2 -> Python re
    judge.py     stand-ins, names in code, entropy          anchors.py  where matches lie vs keywords
    keywords.py  every keyword's offsets in one pass         named.py    values given to a secret's name
"""

from __future__ import annotations

from functools import lru_cache

from memgit.core.secret_rules import gitleaks, own
from memgit.core.secret_rules.keywords import KeywordScan
from memgit.core.secret_rules.rule import Rule, Span

__all__ = ["KeywordScan", "Rule", "Span", "keyword_scan", "rules", "rules_by_keyword"]


@lru_cache(maxsize=1)
def rules() -> tuple[Rule, ...]:
    """Every rule, in the order they claim text."""
    vendored = gitleaks.rules()
    generic = tuple(r for r in vendored if r.kind == gitleaks.GENERIC.replace("-", "_"))
    specific = tuple(r for r in vendored if r not in generic)
    return own.SPECIFIC + specific + own.GENERIC + generic


@lru_cache(maxsize=1)
def keyword_scan() -> KeywordScan:
    """One scanner for every rule's keywords."""
    return KeywordScan(k for rule in rules() for k in rule.keywords)


@lru_cache(maxsize=1)
def rules_by_keyword() -> dict[str, tuple[int, ...]]:
    """Map each keyword to the positions in `rules()` of the rules it lets run."""
    index: dict[str, list[int]] = {}
    for i, rule in enumerate(rules()):
        for keyword in rule.keywords:
            index.setdefault(keyword, []).append(i)
    return {k: tuple(v) for k, v in index.items()}
