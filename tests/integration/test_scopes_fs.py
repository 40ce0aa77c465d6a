"""identify() against repositories made by the real git CLI: roots, subfolders, worktrees, submodules."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from memgit.core.scopes import Identity, new_project, resolve
from memgit.sources.workspace import find_git, identify
from tests.conftest import git

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs the git CLI")

REMOTE = "github.com/org/repo"


def _repo(path: Path, remote: str | None = "git@github.com:Org/Repo.git") -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "init")
    if remote:
        git(path, "remote", "add", "origin", remote)
    (path / "src" / "pkg").mkdir(parents=True)
    return path


def test_repo_root_and_subfolder(tmp_path):
    repo = _repo(tmp_path / "Repo")
    expected = Identity(key=REMOTE, remote=REMOTE, path=str(repo), name="repo", in_repo=True)
    assert identify(str(repo)) == expected
    assert identify(str(repo / "src" / "pkg")) == expected
    assert identify(str(repo) + "/") == expected


def test_linked_worktree_has_the_main_repo_identity(tmp_path):
    repo = _repo(tmp_path / "repo")
    worktree = repo / ".worktrees" / "feat"
    git(repo, "worktree", "add", "-q", "-b", "feat", str(worktree))
    elsewhere = tmp_path / "elsewhere" / "wt"
    git(repo, "worktree", "add", "-q", "-b", "other", str(elsewhere))
    main = identify(str(repo))
    assert identify(str(worktree)) == main
    assert identify(str(worktree / "src" / "pkg")) == main
    assert identify(str(elsewhere)) == main
    location = find_git(worktree)
    assert location is not None
    assert location.worktree == worktree
    assert location.common_dir == repo / ".git"
    assert location.git_dir != location.common_dir


def test_repo_without_remote_is_its_main_worktree_path(tmp_path):
    repo = _repo(tmp_path / "local", remote=None)
    worktree = tmp_path / "local-worktrees" / "feat"
    git(repo, "worktree", "add", "-q", "-b", "feat", str(worktree))
    expected = Identity(key=str(repo), remote=None, path=str(repo), name="local", in_repo=True)
    assert identify(str(repo / "src")) == expected
    assert identify(str(worktree)) == expected


def test_gone_worktree_maps_back_to_its_repo(tmp_path):
    repo = _repo(tmp_path / "repo")
    gone = repo / ".claude" / "worktrees" / "agent-1" / "src"
    assert identify(str(gone)) == identify(str(repo))
    gone_beside = tmp_path / "repo-worktrees" / "feat" / "src"
    assert identify(str(gone_beside)) == identify(str(repo))


def test_nonexistent_cwd_is_its_path_after_layout_heuristics():
    ident = identify("/nonexistent/foo/.worktrees/x/src")
    assert ident == Identity(key="/nonexistent/foo", remote=None, path="/nonexistent/foo", name="foo")


def test_directory_outside_any_repo(tmp_path):
    plain = tmp_path / "plain" / "sub"
    plain.mkdir(parents=True)
    assert identify(str(plain)) == Identity(str(plain), None, str(plain), "sub")
    assert find_git(plain) is None


def test_submodule_gitfile(tmp_path):
    upstream = _repo(tmp_path / "upstream", remote=None)
    parent = _repo(tmp_path / "parent", remote="https://github.com/Org/Parent.git")
    git(parent, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(upstream), "libs/up")
    sub = parent / "libs" / "up"
    assert (sub / ".git").is_file()
    ident = identify(str(sub))
    # the submodule's own origin (the local path it was cloned from) is its identity
    assert ident.remote == str(upstream)
    assert ident.path == str(sub)
    assert ident.in_repo
    assert identify(str(parent / "libs")).remote == "github.com/org/parent"


def test_broken_gitfile_does_not_crash(tmp_path):
    orphan = tmp_path / "host" / ".worktrees" / "gone"
    orphan.mkdir(parents=True)
    (orphan / ".git").write_text("gitdir: /nonexistent/.git/worktrees/gone\n")
    assert find_git(orphan) is None
    assert identify(str(orphan)).key == str(tmp_path / "host")
    (orphan / ".git").write_text("garbage")
    assert identify(str(orphan)).key == str(tmp_path / "host")


def test_worktree_of_a_bare_repo(tmp_path):
    bare = tmp_path / "Tool.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    git(bare, "remote", "add", "origin", "ssh://git@git.corp.example:2222/Team/Tool.git")
    seed = _repo(tmp_path / "seed", remote=str(bare))
    git(seed, "push", "-q", "origin", "main")
    worktree = tmp_path / "wt"
    git(bare, "worktree", "add", "-q", str(worktree), "main")
    ident = identify(str(worktree))
    assert ident.key == "git.corp.example/Team/Tool"
    assert ident.path == str(bare)
    assert ident.name == "Tool"


def test_bare_dot_layout(tmp_path):
    """`<repo>/.bare` plus a `.git` file, worktrees beside it: one project at `<repo>`."""
    root = tmp_path / "proj"
    root.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(root / ".bare")], check=True)
    (root / ".git").write_text("gitdir: ./.bare\n")
    seed = _repo(tmp_path / "seed", remote=str(root / ".bare"))
    git(seed, "push", "-q", "origin", "main")
    git(root, "worktree", "add", "-q", str(root / "main"), "main")
    assert identify(str(root)).path == str(root)
    assert identify(str(root / "main")).path == str(root)
    assert identify(str(root / "main")).key == str(root)


def test_gone_subfolder_of_a_known_repo_resolves_to_its_project(tmp_path):
    repo = _repo(tmp_path / "repo")
    project = new_project(identify(str(repo)), [])
    gone = identify(str(repo / "build" / "tmp"))
    assert gone.key == str(repo / "build" / "tmp") and not gone.in_repo
    assert resolve(gone, [project]) is project


def test_a_relative_cwd_is_never_resolved_against_memgits_own_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-experiments" / "worktrees").mkdir(parents=True)
    identity = identify("-experiments/worktrees")
    assert identity.path == "-experiments/worktrees" and identity.key == "-experiments/worktrees"
    assert str(tmp_path) not in identity.key
