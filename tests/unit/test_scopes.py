"""Project identity, branch naming and PROJECT.md: the pure part of memgit.core.scopes."""

from __future__ import annotations

import pytest

from memgit.core.scopes import (
    Identity,
    Project,
    identity_from_path,
    new_project,
    normalise_remote,
    parse_project_md,
    project_slug,
    render_project_md,
    resolve,
    with_identity,
)
from memgit.sources.workspace import git_config_value


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Org/Repo.git", "github.com/org/repo"),
        ("https://github.com/Org/Repo", "github.com/org/repo"),
        ("ssh://git@github.com/Org/Repo.git", "github.com/org/repo"),
        ("https://user:token@github.com/Org/Repo.git/", "github.com/org/repo"),
        ("https://x-access-token:ghp_abc@GitHub.com/Org/Repo", "github.com/org/repo"),
        ("ssh://git@github.com:22/Org/Repo.git", "github.com/org/repo"),
        ("ssh://git@ssh.github.com:443/Org/Repo.git", "github.com/org/repo"),
        ("git://github.com/Org/Repo.git", "github.com/org/repo"),
        ("git+ssh://git@github.com/Org/Repo", "github.com/org/repo"),
        ("github.com:Org/Repo.git", "github.com/org/repo"),
        ("https://github.com/Org/Repo.git?ref=x#frag", "github.com/org/repo"),
        ("  git@github.com:Org/Repo.git\n", "github.com/org/repo"),
        ("github.com/org/repo", "github.com/org/repo"),  # already normalised: idempotent
        ("git@gitlab.com:Group/Sub/Proj.git", "gitlab.com/group/sub/proj"),
        # elsewhere the path keeps its case (a plain ssh host may be case-sensitive), ports go
        ("ssh://git@Git.Corp.example:2222/Team/Tool.git", "git.corp.example/Team/Tool"),
        ("https://git.corp.example:8443/Team/Tool/", "git.corp.example/Team/Tool"),
        ("git@git.corp.example:/srv/Tool.git", "git.corp.example/srv/Tool"),
        ("ssh://git.corp.example/srv/Tool.git", "git.corp.example/srv/Tool"),
        ("/srv/git/repo.git", "/srv/git/repo"),
        ("file:///srv/git/repo.git/", "/srv/git/repo"),
    ],
)
def test_normalise_remote(url, expected):
    assert normalise_remote(url) == expected
    assert normalise_remote(expected) == expected


def test_normalise_remote_rejects_empty():
    with pytest.raises(ValueError):
        normalise_remote("  ")


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ('[remote "origin"]\n\turl = git@github.com:Org/Repo.git\n', "git@github.com:Org/Repo.git"),
        ('[Remote "origin"]\n\tURL="https://x/y" ; comment\n', "https://x/y"),
        ('[remote "upstream"]\n\turl = a\n[remote "origin"]\n\turl = b # c\n\turl = d\n', "b"),
        ("[remote.origin]\n\turl = old-syntax\n", "old-syntax"),
        ('[remote "origin"] url = same-line\n', "same-line"),
        ('[remote "origin"]\n\turl = "with \\"quote\\"" \\\n  tail\n', 'with "quote"   tail'),
        ('[core]\n\tbare = false\n[remote "origin"]\n\tfetch = +refs/*:refs/*\n', None),
        ('[remote "Origin"]\n\turl = subsections-are-case-sensitive\n', None),
        ("garbage [ \n[remote \"origin\"\n url = x\n", None),
    ],
)
def test_git_config_origin_url(config, expected):
    assert git_config_value(config, "remote", "origin", "url") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Repo", "repo"),
        ("my_cool.Project!!", "my-cool-project"),
        ("--a  b--", "a-b"),
        ("Café Übersicht", "cafe-ubersicht"),
        ("", "project"),
        ("日本語", "project"),
        ("x" * 50, "x" * 40),
        ("a" * 39 + "-b", "a" * 39),  # no dash left dangling by the cut
    ],
)
def test_project_slug(text, expected):
    assert project_slug(text) == expected


def _identity(key: str, path: str | None = None, remote: str | None = None) -> Identity:
    return Identity(key=key, remote=remote, path=path or key, name=key.rsplit("/", 1)[-1])


def test_new_project_takes_a_free_slug():
    ident = _identity("github.com/org/repo", "/home/u/repo", "github.com/org/repo")
    first = new_project(ident, [])
    assert first == Project("projects/repo", "repo", ("github.com/org/repo",), ("/home/u/repo",))
    other = _identity("github.com/fork/repo", "/home/u/fork/repo", "github.com/fork/repo")
    second = new_project(other, [first])
    assert second.branch == "projects/repo-2"
    third = new_project(_identity("/tmp/Repo"), [first, second])
    assert third.branch == "projects/repo-3"
    assert third.remotes == () and third.paths == ("/tmp/Repo",)


def test_new_project_suffix_stays_within_the_limit():
    long = _identity("/x/" + "a" * 60)
    first = new_project(long, [])
    second = new_project(long, [first])
    assert first.branch == "projects/" + "a" * 40
    assert second.branch == "projects/" + "a" * 38 + "-2"


def test_new_project_slug_collision_ignores_case():
    taken = Project("projects/Repo", "Repo", (), ("/a/Repo",))
    assert new_project(_identity("/b/repo"), [taken]).branch == "projects/repo-2"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/nonexistent/foo/.worktrees/x/src", "/nonexistent/foo"),
        ("/home/u/repo/.worktrees/feat", "/home/u/repo"),
        ("/home/u/repo/.claude/worktrees/agent-1/pkg/sub", "/home/u/repo"),
        ("/home/u/repo-worktrees/feat", "/home/u/repo"),
        ("/home/u/repo-worktrees/feat/deep/er", "/home/u/repo"),
        ("/home/u/repo/.worktrees/a/.worktrees/b", "/home/u/repo"),  # the outermost layout wins
        ("/home/u/repo-worktrees", "/home/u/repo-worktrees"),  # no worktree name: not a layout
        ("/home/u/repo/.claude/worktrees", "/home/u/repo/.claude/worktrees"),
        ("/home/u/repo/.claude/settings", "/home/u/repo/.claude/settings"),
        ("/home/u/plain/", "/home/u/plain"),
        ("/home/u/a/../b", "/home/u/b"),
    ],
)
def test_identity_from_path_worktree_layouts(path, expected):
    ident = identity_from_path(path)
    assert ident == Identity(key=expected, remote=None, path=expected, name=expected.rsplit("/", 1)[1])


REPO = Project("projects/repo", "repo", ("git@github.com:Org/Repo.git",), ("/home/u/repo",))
FOO = Project("projects/foo", "foo", (), ("/a/foo",))
FOO_SRC = Project("projects/foo-src", "foo-src", (), ("/a/foo/src",))
PROJECTS = [REPO, FOO, FOO_SRC]


def test_resolve_by_remote_written_in_any_spelling():
    ident = Identity("github.com/org/repo", "github.com/org/repo", "/elsewhere/repo", "repo", True)
    assert resolve(ident, PROJECTS) is REPO


def test_resolve_by_path_when_a_remote_appears_later():
    ident = Identity("github.com/org/new", "github.com/org/new", "/home/u/repo", "new", True)
    assert resolve(ident, PROJECTS) is REPO


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/a/foo", FOO),
        ("/a/foo/", FOO),
        ("/a/foo/lib/x", FOO),
        ("/a/foo/src/deep", FOO_SRC),  # the longest known prefix wins
        ("/a/foobar", None),  # whole components only
        ("/a/foobar/src", None),
        ("/a", None),
    ],
)
def test_resolve_by_known_path_prefix(path, expected):
    assert resolve(identity_from_path(path), PROJECTS) == expected


def test_resolve_prefix_also_tries_the_cwd():
    ident = identity_from_path("/b/elsewhere")
    assert resolve(ident, PROJECTS, cwd="/a/foo/src/x") is FOO_SRC


def test_resolve_never_puts_a_git_repo_inside_an_enclosing_project():
    nested = Identity("/a/foo/vendor/lib", None, "/a/foo/vendor/lib", "lib", in_repo=True)
    assert resolve(nested, PROJECTS) is None
    with_remote = Identity("github.com/x/lib", "github.com/x/lib", "/a/foo/lib", "lib", True)
    assert resolve(with_remote, PROJECTS) is None


def test_resolve_is_deterministic_when_two_branches_claim_a_remote():
    a = Project("projects/a", "a", ("github.com/org/repo",), ())
    b = Project("projects/b", "b", ("github.com/org/repo",), ())
    ident = Identity("github.com/org/repo", "github.com/org/repo", "/x", "repo", True)
    assert resolve(ident, [b, a]) is a
    assert resolve(ident, [a, b]) is a


def test_hand_edited_project_md_joins_two_identities():
    api = Identity("github.com/org/api", "github.com/org/api", "/home/u/api", "api", True)
    web = Identity("github.com/org/web", "github.com/org/web", "/home/u/web", "web", True)
    scratch = identity_from_path("/home/u/scratch/notes")
    api_project = new_project(api, [])
    web_project = new_project(web, [api_project])
    assert resolve(web, [api_project, web_project]) is web_project
    # a person adds the web remote (as pasted from GitHub) and a loose folder to api's PROJECT.md
    edited = render_project_md(api_project).replace(
        "remotes:\n- github.com/org/api\n",
        "remotes:\n- github.com/org/api\n- git@github.com:Org/Web.git\n",
    ).replace("paths:\n- /home/u/api\n", "paths:\n- /home/u/api\n- /home/u/scratch\n")
    joined = parse_project_md(edited, api_project.branch)
    projects = [joined]  # and the person deleted web's own branch
    assert resolve(api, projects) is joined
    assert resolve(web, projects) is joined
    assert resolve(scratch, projects) is joined


def test_with_identity_adds_only_what_is_missing():
    ident = Identity("github.com/org/repo", "github.com/org/repo", "/mnt/repo", "repo", True)
    grown = with_identity(REPO, ident)
    assert grown.remotes == REPO.remotes  # the pasted URL already names this remote
    assert grown.paths == ("/home/u/repo", "/mnt/repo")
    assert with_identity(grown, ident) is grown


@pytest.mark.parametrize(
    "project",
    [
        Project("projects/repo", "repo", ("github.com/org/repo",), ("/home/u/repo",)),
        Project("projects/x", "x", (), (), body=""),
        Project("projects/odd", "007", ("yes",), ("/a: b", "/#c"), body="Free text.\n\n- a list"),
        Project("projects/n", "true", (), ("/p",), body="---\nnot front matter\n---", extra={"tags": ["a"], "since": "2024-01-01"}),
        Project("projects/u", "Café", ("codeberg.org/ü/x",), ("/home/ü",)),
    ],
)
def test_project_md_round_trip(project):
    text = render_project_md(project)
    assert text.startswith("---\nname: ")
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert parse_project_md(text, project.branch) == project


def test_render_project_md_layout():
    project = Project("projects/repo", "repo", ("github.com/org/repo",), ("/home/u/repo",), "Notes.")
    assert render_project_md(project) == (
        "---\nname: repo\nremotes:\n- github.com/org/repo\npaths:\n- /home/u/repo\n---\n\nNotes.\n"
    )


def test_parse_project_md_is_tolerant():
    assert parse_project_md("", "projects/bare") == Project("projects/bare", "bare", (), ())
    assert parse_project_md("Just text.\n", "projects/t") == Project("projects/t", "t", (), (), "Just text.")
    loose = parse_project_md("---\nname: Loose\nremotes: git@h.io:a/b\npaths:\n- /x\n-\n---\n", "projects/l")
    assert loose == Project("projects/l", "Loose", ("git@h.io:a/b",), ("/x",))


def test_parse_project_md_keeps_unknown_keys_in_order():
    text = "---\nname: r\nowner: me\nremotes: []\npaths: []\ntags: [a, b]\n---\nBody\n"
    project = parse_project_md(text, "projects/r")
    assert project.extra == {"owner": "me", "tags": ["a", "b"]}
    assert render_project_md(project) == (
        "---\nname: r\nremotes: []\npaths: []\nowner: me\ntags:\n- a\n- b\n---\n\nBody\n"
    )


@pytest.mark.parametrize(
    "text",
    ["---\nname: [unclosed\n---\n", "---\nname: a\n  bad: indent\n---\n", "---\npaths: {a: b}\n---\n"],
)
def test_parse_project_md_rejects_bad_front_matter(text):
    with pytest.raises(ValueError):
        parse_project_md(text, "projects/bad")
