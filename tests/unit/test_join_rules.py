"""memgit.core.join: what each path of a joined tree holds, and PROJECT.md with both identities."""

from __future__ import annotations

import pytest

from memgit.core import join, scopes

NOTE = "sessions/2026/11/2026-11-20-fix-tests-6f1c2e4a.md"
PINNED = "notes/2026-11-20-deploy.md"


@pytest.mark.parametrize("path, base, ours, theirs, held, conflict", [
    # unchanged, or the same on both sides (added on both: two repos created apart)
    (NOTE, "n1", "n1", "n1", "n1", False),
    ("README.md", None, "r1", "r1", "r1", False),
    # changed on one side only: that side, a deletion included
    (NOTE, None, None, "n2", "n2", False),
    (NOTE, None, "n1", None, "n1", False),
    (PINNED, "p1", "p1", "p2", "p2", False),
    (PINNED, "p1", "p2", "p1", "p2", False),
    (PINNED, "p1", "p1", None, None, False),
    (PINNED, "p1", None, "p1", None, False),
    # plain files changed differently on both sides: a conflict, whatever kind
    (NOTE, None, "n1", "n2", "n1", True),
    (PINNED, "p1", "p2", "p3", "p2", True),
    (PINNED, "p1", "p2", None, "p2", True),
    ("imported/claude-code/memory/MEMORY.md", "i1", "i2", "i3", "i2", True),
    ("README.md", "r0", "r1", "r2", "r1", True),
    (".gitignore", None, "g1", "g2", "g1", True),
    # derived files changed on both sides: never a conflict, ours kept (consolidation regenerates them)
    ("MEMORY.md", "m0", "m1", "m2", "m1", False),
    ("memory_summary.md", None, "s1", "s2", "s1", False),
    ("skills/run-tests/SKILL.md", "k0", "k1", None, "k1", False),
    # PROJECT.md deleted on one side, changed on the other: nothing to join it with
    ("PROJECT.md", "j0", None, "j1", None, True),
])
def test_each_path_is_decided(path, base, ours, theirs, held, conflict):
    def tree(blob):
        return {path: blob} if blob else {}

    found = join.join_trees(tree(base), tree(ours), tree(theirs))
    assert found.files.get(path) == held
    assert (path in found.conflicts) is conflict
    assert (path in found.taken) is (not conflict and held != ours)


def test_project_md_changed_on_both_sides_is_joined_not_conflicted():
    found = join.join_trees({}, {"PROJECT.md": "a"}, {"PROJECT.md": "b"})
    assert found.project and not found.conflicts and found.files["PROJECT.md"] == "a"


def md(name: str, remotes: list[str], paths: list[str], body: str = "", **extra) -> str:
    return scopes.render_project_md(scopes.Project("projects/x", name, remotes, paths, body, extra))


def test_project_md_unites_identities_ours_first_with_our_name():
    ours = md("pinion", ["git@github.com:acme/pinion.git"], ["/home/ana/dev/pinion"], "Ours.", owner="ana")
    theirs = md("pinion-b", ["https://github.com/acme/pinion", "github.com/acme/pinion-docs"],
                ["/Users/bo/src/pinion", "~/dev/pinion"], "Theirs.", team="core")
    joined = scopes.parse_project_md(join.join_project_md(None, ours, theirs, "projects/x"), "projects/x")
    assert joined.name == "pinion"
    # the same remote spelled another way is one remote; a path from ~ is the same path
    assert joined.remotes == ("git@github.com:acme/pinion.git", "github.com/acme/pinion-docs")
    assert joined.paths == ("/home/ana/dev/pinion", "/Users/bo/src/pinion")
    assert joined.body == "Ours."
    assert joined.extra == {"team": "core", "owner": "ana"}


def test_project_md_body_follows_theirs_when_only_theirs_changed_it():
    base = md("p", [], ["/a"], "Old words.")
    ours = md("p", [], ["/a", "/b"], "Old words.")
    theirs = md("p", [], ["/a", "/c"], "New words.")
    joined = scopes.parse_project_md(join.join_project_md(base, ours, theirs, "projects/x"), "projects/x")
    assert joined.body == "New words." and joined.paths == ("/a", "/b", "/c")


def test_a_broken_project_md_raises():
    with pytest.raises(ValueError):
        join.join_project_md(None, "---\nname: [\n---\n", md("p", [], ["/a"]), "projects/x")


def test_identities_overlap_by_remote_or_path():
    a = scopes.Project("projects/a", "a", ["git@github.com:Acme/Pinion.git"], ["/x"])
    assert join.overlaps(a, scopes.Project("projects/b", "b", ["https://github.com/acme/pinion"], []))
    assert join.overlaps(a, scopes.Project("projects/b", "b", [], ["/x/"]))
    assert not join.overlaps(a, scopes.Project("projects/b", "b", ["github.com/acme/other"], ["/y"]))
    assert not join.has_identity(scopes.Project("projects/b", "b", [" "], []))


def test_free_branch_skips_taken_slugs_case_insensitively():
    assert scopes.free_branch("pinion", ["main", "projects/pinion", "projects/Pinion-2"]) == "projects/pinion-3"
    assert scopes.free_branch("cog", ["projects/pinion"]) == "projects/cog"
