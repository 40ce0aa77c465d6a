"""Checking a consolidator's output before it is committed, and the repairs that are safe."""

import pytest

from memgit.consolidate import _validate
from memgit.consolidate.heuristic.skills import MARKER
from memgit.core.model import Consolidation

MEMORY = "# Memory: pinion\n\n## Gotchas\n\n- [gotcha] Redis first. — 1 session: [x](sessions/2026/01/a.md)\n"
SKILL = "---\nname: pinion-run-tests\ndescription: Run the tests of pinion; use before committing.\n---\n# Run\n"


def good(**kw) -> Consolidation:
    base = dict(memory_md=MEMORY, summary_md="# pinion\n\nShort.\n", skills={"pinion-run-tests": SKILL},
                consolidator="openai/gpt-test")
    return Consolidation(**{**base, **kw})


def test_a_good_consolidation_has_no_problems():
    assert _validate.problems(good(), budget_tokens=2500) == []


@pytest.mark.parametrize("change,problem", [
    (dict(summary_md=""), "memory_summary.md is empty"),
    (dict(summary_md="w\n" * 2600), "tokens (budget 2500)"),
    (dict(summary_md="x" * 9500), "characters (at most"),
    (dict(memory_md="Just prose, no sections.\n"), "no `## ` topic section"),
    (dict(skills={"Run Tests": SKILL}), "kebab-case"),
    (dict(skills={"pinion-run-tests": "# no front matter\n"}), "one-line `description`"),
    (dict(skills={"other-name": SKILL}), "differs from the directory"),
    (dict(summary_md="# p\n\nkey: AKIAIOSFODNN7EXAMPLQ\n"), "looks like a secret"),
])
def test_problems_are_named(change, problem):
    found = _validate.problems(good(**change), budget_tokens=2500)
    assert any(problem in p for p in found), found


def test_repair_unlinks_targets_that_do_not_exist_and_marks_skills():
    c = good(memory_md=MEMORY + "- [fact] Made up. — 1 session: [y](sessions/2026/01/gone.md)\n",
             skills={"pinion-run-tests": SKILL + "[a](../../sessions/2026/01/a.md) [b](../../sessions/nope.md)\n"})
    fixed = _validate.repair(c, {"sessions/2026/01/a.md"})
    assert "[x](sessions/2026/01/a.md)" in fixed.memory_md and "gone.md" not in fixed.memory_md
    assert "1 session: y" in fixed.memory_md
    skill = fixed.skills["pinion-run-tests"]
    assert "[a](../../sessions/2026/01/a.md)" in skill and "nope" not in skill
    assert skill.index(MARKER) > skill.index("description:") and _validate.mark_skill(skill) == skill
