"""Where a session goes and what PROJECT.md learns from it (memgit.core.placing): pure rules."""

from __future__ import annotations

import itertools

import pytest

from memgit.core.placing import laid_out, place, same_repository, with_evidence
from memgit.core.scopes import Identity, Project, identity_from_path, new_project

R = "github.com/clustercockpit/cc-backend"


def gone(path: str) -> Identity:
    """The identity of a directory that is no checkout on this disk, as sync writes it."""
    return identity_from_path(path)


def live(path: str, remote: str | None = R) -> Identity:
    return Identity(key=remote or path, remote=remote, path=path, name=path.rsplit("/", 1)[1], in_repo=True)


def p(branch: str, remotes=(), paths=()) -> Project:
    return Project(branch=f"projects/{branch}", name=branch, remotes=tuple(remotes), paths=tuple(paths))


def test_a_path_found_through_its_remote_is_listed():
    known = [p("cc-backend", [R], ["~/prg/cc-backend"])]
    placed = place(with_evidence(gone("~/tmp/cc-backend"), R, known), known)
    assert placed.project.branch == "projects/cc-backend"
    assert [u.paths for u in placed.updates] == [("~/prg/cc-backend", "~/tmp/cc-backend")]


def test_a_path_only_project_learns_the_remote_its_session_names():
    known = [p("cc-backend", [], ["~/prg/cc-backend"])]
    placed = place(with_evidence(gone("~/prg/cc-backend"), R, known), known)
    assert placed.project.branch == "projects/cc-backend"
    assert [u.remotes for u in placed.updates] == [(R,)]


def test_the_same_path_under_users_and_home_is_one_path():
    known = [p("cc-backend", [], ["~/prg/cc-backend"])]
    for cwd in ("/Users/jan/prg/cc-backend", "/home/jan/prg/cc-backend"):
        assert place(gone(cwd), known).project.branch == "projects/cc-backend"


def test_a_path_only_project_and_the_remote_project_come_to_share_the_remote():
    known = [p("cc-backend", [], ["~/prg/cc-backend"]), p("cc-backend-2", [R], ["~/tmp/cc-backend"])]
    placed = place(with_evidence(gone("~/prg/cc-backend"), R, known), known)
    assert placed.project.branch == "projects/cc-backend-2"  # filed where the remote is
    (grown,) = placed.updates
    assert grown.branch == "projects/cc-backend" and grown.remotes == (R,)  # joined after the run
    assert same_repository([grown, known[1]]) == [("projects/cc-backend", ("projects/cc-backend-2",))]


def test_a_path_known_as_another_repository_keeps_it():
    known = [p("cc-backend", ["github.com/ana/other"], ["~/prg/cc-backend"])]
    identity = with_evidence(gone("~/prg/cc-backend"), R, known)
    assert identity.remote is None  # the evidence is not taken
    placed = place(identity, known)
    assert placed.project.branch == "projects/cc-backend" and placed.updates == ()


def test_a_live_checkout_keeps_its_own_remote():
    identity = live("/srv/cc-backend", "github.com/ana/cc-backend")
    assert with_evidence(identity, R, []) is identity


def test_a_project_with_a_remote_never_gets_a_second_one_and_a_path_is_never_listed_twice():
    known = [p("a", ["github.com/x/a"], ["~/a"]), p("b", [R], ["~/b"])]
    placed = place(live("~/a", R), known)  # ~/a is now a checkout of R: filed on R's project, nothing listed
    assert placed.project.branch == "projects/b" and placed.updates == ()


def test_evidence_makes_a_repository_root_never_matched_into_an_enclosing_project_by_prefix():
    known = [p("prg", [], ["~/prg"])]
    assert place(gone("~/prg/cc-backend"), known).project.branch == "projects/prg"
    assert place(with_evidence(gone("~/prg/cc-backend"), R, known), known).project is None
    assert new_project(with_evidence(gone("~/prg/cc-backend"), R, known), known).remotes == (R,)


def test_projects_sharing_a_remote_join_into_the_shortest_name_transitively():
    projects = [p("x-2", ["github.com/a/x"]), p("x", ["github.com/a/x", "github.com/b/x"]),
                p("x-3", ["github.com/b/x"]), p("y", ["github.com/a/y"]), p("z", [], ["~/z"])]
    for order in itertools.permutations(projects):
        assert same_repository(list(order)) == [("projects/x", ("projects/x-2", "projects/x-3"))]


@pytest.mark.parametrize("remote", ["git@github.com:ClusterCockpit/cc-backend.git", R])
def test_remotes_a_person_pasted_verbatim_are_compared_normalised(remote):
    assert same_repository([p("a", [remote]), p("b", [R])]) == [("projects/a", ("projects/b",))]


def test_a_path_laid_out_as_owner_and_repository_spells_the_remote():
    known = [p("cc-backend", [R], ["~/prg/cc-backend"]), p("cli", ["github.com/entireio/cli"])]
    assert laid_out("/Users/ana/ghq/github.com/Foo/Bar", []) == "github.com/foo/bar"  # ghq, GOPATH: the host too
    assert laid_out("/home/ana/src/ClusterCockpit/cc-backend", known) == R  # owner and name of a known remote
    assert laid_out("/Users/jo/Documents/entire/devenv/entireio/cli", known) == "github.com/entireio/cli"
    assert laid_out("/home/ana/src/ana/cc-backend", known) is None  # a fork under another owner is another repository
    assert laid_out("/home/ana/src/cc-backend", known) is None  # the name alone says nothing
    assert laid_out("/home/ana/src/ClusterCockpit/cc-backend", []) is None  # no known remote: no host to name
    twins = [*known, p("mirror", ["gitlab.com/clustercockpit/cc-backend"])]
    assert laid_out("/home/ana/src/ClusterCockpit/cc-backend", twins) is None  # two hosts: which one is unsure
