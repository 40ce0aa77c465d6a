"""Remotes over every transport memgit uses: a bare repository by path and by file:// URL, `git daemon`
(git://) and git's smart HTTP (`git http-backend`), with and without a password; each checked with
the git CLI on the remote side (`git log`, `git fsck --strict`)."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memgit.errors import RemoteError, SecretFound
from memgit.store import remote
from memgit.store.repo import MemoryRepo
from tests.conftest import fsck, git
from tests.integration.test_scan import TOKEN, person_commits
from tests.servers import bare_repo, closed_port, git_daemon, http_auth_server, http_server  # noqa: F401

AUTHOR = "memgit test <memgit-test@localhost>"
SKELETON = {"README.md": b"# Memory\n", "MEMORY.md": b"# Topics\n", "memory_summary.md": b"summary\n"}
TRANSPORTS = ["path", "file", "git", "http"]


@pytest.fixture(params=TRANSPORTS)
def served(request, tmp_path):
    """(url, bare repository path) of an empty remote reached the param's way."""
    root = tmp_path / "served"
    root.mkdir(exist_ok=True)
    bare = bare_repo(root / "mem.git")
    kind = request.param
    if kind == "path":
        return str(bare), bare
    if kind == "file":
        return bare.as_uri(), bare
    server = request.getfixturevalue("git_daemon" if kind == "git" else "http_server")
    return server.url("mem.git"), bare


def make_repo(path: Path) -> MemoryRepo:
    """A memgit repository with commits on main and on projects/x."""
    repo = MemoryRepo.init(path, SKELETON, author=AUTHOR)
    repo.commit("main", {"notes/2026-11-20-pinned.md": b"pinned\n"}, "remember(main): pinned")
    repo.commit("projects/x", {"PROJECT.md": b"---\nname: x\n---\n"}, "init(x): project x", create_from="main")
    repo.commit("projects/x", {"sessions/2026/11/a.md": b"# a\n\nlearned a\n"}, "extract(x): a")
    return repo


@pytest.fixture
def mem(tmp_path):
    with make_repo(tmp_path / "mem") as repo:
        yield repo


@pytest.fixture
def other(tmp_path):
    with MemoryRepo.init(tmp_path / "other", SKELETON, author=AUTHOR) as repo:
        yield repo


def remote_refs(bare: Path) -> dict[str, str]:
    out = git(bare, "for-each-ref", "--format=%(refname) %(objectname)")
    return dict(line.split(" ") for line in out.splitlines())


def new_objects(repo: MemoryRepo, old: str, new: str) -> int:
    """How many objects `new` has that `old` lacks, counted by git."""
    return len(git(repo.path, "rev-list", "--objects", new, f"^{old}").splitlines())


def within(seconds: float, call):
    """Run call() in a thread; fail the test if it has not finished in `seconds` (it must not hang)."""
    box: dict = {}

    def run():
        try:
            box["value"] = call()
        except BaseException as e:  # handed to the test below
            box["error"] = e

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if "error" in box:
        raise box["error"]
    return box["value"]


# -- each transport ---------------------------------------------------------------------------------


def test_push_then_fetch_carries_every_memgit_branch(served, mem, other):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    pushed = remote.push(mem, "origin", mem.branches())
    assert pushed.updated == {b: (None, sha) for b, sha in mem.branches().items()}
    assert pushed.objects == len(git(mem.path, "rev-list", "--objects", "--all").splitlines())
    assert remote_refs(bare) == {f"refs/heads/{b}": sha for b, sha in mem.branches().items()}
    assert "extract(x): a" in git(bare, "log", "--all", "--format=%s")
    fsck(bare)
    assert remote.remote_heads(mem, "origin") == mem.branches()  # tracking refs follow the push

    own_main = other.head("main")
    remote.add_remote(other, "origin", url)
    assert remote.ls_remote(other, "origin") == mem.branches()
    fetched = remote.fetch(other, "origin")
    assert fetched.heads == mem.branches() and fetched.removed == [] and fetched.objects > 0
    assert remote.remote_heads(other, "origin") == mem.branches()
    assert other.branches() == {"main": own_main}  # local branches untouched
    assert other.read(mem.head("projects/x"), "sessions/2026/11/a.md") == b"# a\n\nlearned a\n"
    fsck(other.path)
    assert remote.fetch(other, "origin").objects == 0  # nothing new: nothing sent


def test_a_second_push_sends_only_the_new_objects(served, mem, other):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    remote.push(mem, "origin", mem.branches())
    old = mem.head("projects/x")
    new = mem.commit("projects/x", {"sessions/2026/11/b.md": b"# b\n", "MEMORY.md": b"# Topics\n\n- b\n"},
                     "extract(x): b")
    expected = new_objects(mem, old, new)
    assert expected == 7  # 2 blobs; the trees /, sessions/, sessions/2026/, sessions/2026/11/; the commit

    pushed = remote.push(mem, "origin", mem.branches())
    assert pushed.updated == {"projects/x": (old, new)}
    assert pushed.objects == expected and 0 < pushed.bytes < 2000
    assert git(bare, "rev-parse", "refs/heads/projects/x").strip() == new
    fsck(bare)

    remote.add_remote(other, "origin", url)
    remote.fetch(other, "origin")
    mem.commit("projects/x", {"sessions/2026/11/c.md": b"# c\n"}, "extract(x): c")
    remote.push(mem, "origin", mem.branches())
    fetched = remote.fetch(other, "origin")
    assert fetched.heads["projects/x"] == mem.head("projects/x")
    assert fetched.objects == new_objects(mem, new, mem.head("projects/x"))  # 5: the fetch offered its haves


def test_a_push_walks_back_only_to_the_remote_heads_and_a_new_branch_arrives_whole(served, mem, monkeypatch):
    """The objects to send are found from the remote's heads, not from all of their ancestors (at
    10,000 commits that walk was most of a push): a fast-forward sends exactly what it adds; a
    branch new to the remote, forked from history the remote holds, arrives complete."""
    from dulwich.objects import Commit

    url, bare = served
    remote.add_remote(mem, "origin", url)
    for i in range(40):
        mem.commit("projects/x", {f"sessions/2026/11/s{i}.md": f"# {i}\n".encode()}, f"extract(x): s{i}")
    remote.push(mem, "origin", mem.branches())
    old = mem.head("projects/x")
    new = mem.commit("projects/x", {"sessions/2026/11/last.md": b"# last\n"}, "extract(x): last")
    read: list[bytes] = []
    store = type(mem._repo.object_store)
    real = store.__getitem__
    monkeypatch.setattr(store, "__getitem__",
                        lambda self, sha: (o := real(self, sha), isinstance(o, Commit) and read.append(sha))[0])
    pushed = remote.push(mem, "origin", mem.branches())
    monkeypatch.undo()
    assert pushed.objects == new_objects(mem, old, new)
    assert len(set(read)) < 10  # the commits of what is sent and the remote's heads, not the 40 behind them
    forked = mem.commit("projects/y", {"PROJECT.md": b"# y\n"}, "init(y): project y", create_from=old)
    pushed = remote.push(mem, "origin", mem.branches())
    assert pushed.updated == {"projects/y": (None, forked)}
    fsck(bare)
    assert git(bare, "rev-parse", "refs/heads/projects/y").strip() == forked


def test_a_non_fast_forward_push_is_refused_and_nothing_changes(served, mem):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    forked = mem.head("main")
    remote.push(mem, "origin", {"main": forked})
    ahead = mem.commit("main", {"notes/b.md": b"b\n"}, "remember(main): b")
    remote.push(mem, "origin", {"main": ahead})
    before = remote_refs(bare)
    aside = mem.commit("projects/y", {"notes/c.md": b"c\n"}, "remember(y): c", create_from=forked)

    with pytest.raises(RemoteError, match=r"commits that are not here on main; nothing was pushed: run `memgit pull`"):
        remote.push(mem, "origin", {"main": aside, "projects/y": aside})
    assert remote_refs(bare) == before  # not even projects/y: all or nothing
    assert remote.remote_heads(mem, "origin") == {"main": ahead}


def test_a_history_holding_a_secret_is_not_pushed(served, mem):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    person_commits(mem.path, "notes: deploy", {"notes/deploy.md": f"token: {TOKEN}\n"})
    person_commits(mem.path, "notes: drop it", delete=("notes/deploy.md",))
    with pytest.raises(SecretFound, match="refusing to push") as refused:
        remote.push(mem, "origin", mem.branches())
    assert TOKEN not in refused.value.message
    assert remote_refs(bare) == {}
    assert git(bare, "count-objects", "-v").splitlines()[0] == "count: 0"
    assert "in-pack: 0" in git(bare, "count-objects", "-v")


def test_deleting_a_remote_branch_prunes_it_on_the_next_fetch(served, mem, other):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    remote.push(mem, "origin", mem.branches())
    remote.add_remote(other, "origin", url)
    remote.fetch(other, "origin")

    pushed = remote.push(mem, "origin", {}, delete=["projects/x", "projects/never"])
    assert pushed.deleted == ["projects/x"] and pushed.objects == 0 and pushed.updated == {}
    assert "refs/heads/projects/x" not in remote_refs(bare)
    assert "projects/x" not in remote.remote_heads(mem, "origin")
    fetched = remote.fetch(other, "origin")
    assert fetched.removed == ["projects/x"] and fetched.heads == {"main": mem.head("main")}
    assert remote.remote_heads(other, "origin") == {"main": mem.head("main")}


def test_an_empty_remote_fetches_nothing(served, other):
    url, _ = served
    remote.add_remote(other, "origin", url)
    assert remote.fetch(other, "origin") == remote.Fetched("origin", {}, [], 0)
    assert remote.ls_remote(other, "origin") == {}


def test_a_remote_that_is_not_memgit_is_refused_and_leaves_no_object(served, other, tmp_path):
    url, bare = served
    work = tmp_path / "work"
    subprocess.run(["git", "init", "-q", "-b", "main", str(work)], check=True)
    foreign = person_commits(work, "initial import", {"src/app.py": "print('hello')\n"})
    git(work, "push", "-q", str(bare), "main")

    remote.add_remote(other, "origin", url)
    with pytest.raises(RemoteError, match="is not a memgit repository.*nothing was fetched"):
        remote.fetch(other, "origin")
    assert remote.remote_heads(other, "origin") == {}
    assert subprocess.run(["git", "-C", str(other.path), "cat-file", "-e", foreign]).returncode != 0
    assert not list((other.git_dir / "memgit").glob("incoming-*"))
    fsck(other.path)


# -- errors a person meets ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["git", "http", "path"])
def test_an_unreachable_remote_is_a_remote_error_at_once(kind, mem, tmp_path):
    url = {"git": f"git://127.0.0.1:{closed_port()}/mem.git", "http": f"http://127.0.0.1:{closed_port()}/mem.git",
           "path": str(tmp_path / "nowhere")}[kind]
    remote.add_remote(mem, "origin", url)
    started = time.monotonic()
    for attempt in (lambda: remote.push(mem, "origin", mem.branches()), lambda: remote.fetch(mem, "origin"),
                    lambda: remote.ls_remote(mem, "origin")):
        with pytest.raises(RemoteError) as failed:
            within(30, attempt)
        assert "\n" not in failed.value.message
        assert ("connection refused" in failed.value.message.lower() if kind != "path"
                else "is not a git repository" in failed.value.message)
    assert time.monotonic() - started < 10
    assert remote.remote_heads(mem, "origin") == {}


def test_a_directory_that_is_not_a_repository(mem, tmp_path):
    (tmp_path / "plain").mkdir()
    remote.add_remote(mem, "origin", str(tmp_path / "plain"))
    with pytest.raises(RemoteError, match=r"is not a git repository: check the URL, or create it there"):
        remote.push(mem, "origin", mem.branches())


def test_a_git_daemon_path_that_does_not_exist(git_daemon, mem):
    remote.add_remote(mem, "origin", git_daemon.url("missing.git"))
    with pytest.raises(RemoteError, match="hung up|not a git repository|cannot reach") as failed:
        remote.fetch(mem, "origin")
    assert "Traceback" not in failed.value.message


# -- HTTP with a password -------------------------------------------------------------------------


def test_https_credentials_come_from_git_credential_helpers(http_auth_server, mem, hermetic_env):
    bare_repo(http_auth_server.root / "mem.git")
    url = http_auth_server.url("mem.git")
    (hermetic_env / ".gitconfig").write_text("[credential]\n\thelper = store\n")
    (hermetic_env / ".git-credentials").write_text(url.replace("http://", "http://memgit:s3cret-pass@") + "\n")
    git(mem.path, "config", "http.postBuffer", "1024")  # a bigger pack is streamed: it must not meet a 401
    remote.add_remote(mem, "origin", url)

    pushed = within(60, lambda: remote.push(mem, "origin", mem.branches()))
    assert pushed.updated.keys() == {"main", "projects/x"} and pushed.bytes > 1024
    assert remote_refs(http_auth_server.root / "mem.git") == {f"refs/heads/{b}": s for b, s in mem.branches().items()}
    fsck(http_auth_server.root / "mem.git")
    posts = [r for r in http_auth_server.requests if r[0] == "POST"]
    assert posts and all(authorized for _, _, authorized in posts)  # sent with the pack, not after a 401
    assert within(60, lambda: remote.ls_remote(mem, "origin")) == mem.branches()


def test_without_credentials_an_http_push_fails_cleanly_and_does_not_wait(http_auth_server, mem, hermetic_env):
    bare = bare_repo(http_auth_server.root / "mem.git")
    url = http_auth_server.url("mem.git")
    remote.add_remote(mem, "origin", url)
    with pytest.raises(RemoteError) as failed:
        within(30, lambda: remote.push(mem, "origin", mem.branches()))
    assert failed.value.message == (f"authentication failed for {url}: configure a git credential helper "
                                    "(git config --global credential.helper store) or use ssh")
    assert remote_refs(bare) == {}


def test_a_wrong_stored_password_is_refused_and_forgotten(http_auth_server, mem, hermetic_env):
    bare = bare_repo(http_auth_server.root / "mem.git")
    url = http_auth_server.url("mem.git")
    (hermetic_env / ".gitconfig").write_text("[credential]\n\thelper = store\n")
    (hermetic_env / ".git-credentials").write_text(url.replace("http://", "http://memgit:wrong@") + "\n")
    remote.add_remote(mem, "origin", url)
    with pytest.raises(RemoteError, match="authentication failed"):
        within(30, lambda: remote.push(mem, "origin", mem.branches()))
    assert "wrong" not in (hermetic_env / ".git-credentials").read_text()  # `git credential reject` erased it
    assert remote_refs(bare) == {}


# -- configuration --------------------------------------------------------------------------------


def test_add_list_and_remove_remotes(mem, tmp_path, monkeypatch):
    assert remote.list_remotes(mem) == {}
    monkeypatch.chdir(tmp_path)
    bare_repo(tmp_path / "b.git")
    remote.add_remote(mem, "origin", "b.git")
    remote.add_remote(mem, "backup", "git@example.com:me/memory.git")
    assert remote.list_remotes(mem) == {"origin": str(tmp_path / "b.git"), "backup": "git@example.com:me/memory.git"}
    assert git(mem.path, "config", "remote.origin.fetch").strip() == "+refs/heads/*:refs/remotes/origin/*"
    git(mem.path, "fetch", "-q", "origin")  # git itself reads the configuration memgit wrote

    remote.push(mem, "origin", mem.branches())
    remote.remove_remote(mem, "origin")
    assert remote.list_remotes(mem) == {"backup": "git@example.com:me/memory.git"}
    assert not [r for r in mem.refs() if r.startswith("refs/remotes/origin")]
    assert "origin" not in git(mem.path, "remote")


@pytest.mark.parametrize("name", ["a/b", "", "..", "has space", "x.lock", "bad~name"])
def test_a_remote_name_must_be_one_ref_component(mem, name):
    with pytest.raises(RemoteError, match="is not a valid remote name"):
        remote.add_remote(mem, name, "/tmp/x.git")
    assert remote.list_remotes(mem) == {}


def test_remote_names_and_urls_are_checked(mem):
    remote.add_remote(mem, "origin", "/tmp/x.git")
    with pytest.raises(RemoteError, match="remote origin already exists"):
        remote.add_remote(mem, "origin", "/tmp/y.git")
    with pytest.raises(RemoteError, match="no remote named 'nope' \\(configured: origin\\)"):
        remote.remove_remote(mem, "nope")
    with pytest.raises(RemoteError, match="no remote named 'nope'"):
        remote.fetch(mem, "nope")
    with pytest.raises(RemoteError, match="cannot use remote URL"):
        remote.add_remote(mem, "odd", "gopher://example.com/x")
    assert remote.list_remotes(mem) == {"origin": "/tmp/x.git"}


def test_a_url_holding_a_password_is_refused_and_never_shown(mem):
    with pytest.raises(RemoteError, match="credential helper") as refused:
        remote.add_remote(mem, "origin", "https://me:hunter2@example.com/memory.git")
    assert "hunter2" not in refused.value.message and "me:***@example.com" in refused.value.message
    assert remote.list_remotes(mem) == {}
    assert "hunter2" not in (mem.git_dir / "config").read_text()
    assert remote.describe_url("https://me:hunter2@example.com:8443/m.git") == "https://me:***@example.com:8443/m.git"
    assert remote.describe_url("git@example.com:me/m.git") == "git@example.com:me/m.git"


def test_push_takes_only_memgit_branches_it_has(mem, tmp_path):
    remote.add_remote(mem, "origin", str(bare_repo(tmp_path / "b.git")))
    with pytest.raises(RemoteError, match="'scratch' is not a memgit branch"):
        remote.push(mem, "origin", {"scratch": mem.head("main")})
    with pytest.raises(RemoteError, match="commit 0123456789ab is not in this repository"):
        remote.push(mem, "origin", {"main": "0123456789ab" * 3 + "0123"})
    assert remote_refs(tmp_path / "b.git") == {}


# -- ssh and local repositories that are not bare --------------------------------------------------


def fake_ssh(tmp_path: Path, *, fail: str = "") -> str:
    """A stand-in for the system ssh (no sshd here): runs the remote command on this machine, or fails
    as ssh does. Returns its path, for GIT_SSH_COMMAND."""
    script = tmp_path / "fake-ssh"
    body = (f"sys.stderr.write({fail!r} + '\\n'); sys.exit(255)" if fail else
            "sys.exit(subprocess.call(sys.argv[-1], shell=True))")
    script.write_text(f"#!{sys.executable}\nimport subprocess, sys\n{body}\n")
    script.chmod(0o755)
    return str(script)


def test_ssh_runs_the_ssh_command_git_would(mem, other, tmp_path, monkeypatch):
    bare = bare_repo(tmp_path / "mem.git")
    monkeypatch.setenv("GIT_SSH_COMMAND", fake_ssh(tmp_path))
    remote.add_remote(mem, "origin", f"ssh://memgit@example.com{bare}")
    remote.push(mem, "origin", mem.branches())
    assert remote_refs(bare) == {f"refs/heads/{b}": s for b, s in mem.branches().items()}
    fsck(bare)
    remote.add_remote(other, "origin", f"example.com:{bare}")  # scp-like, as git takes it
    assert remote.fetch(other, "origin").heads == mem.branches()


def test_an_ssh_failure_says_what_ssh_said(mem, tmp_path, monkeypatch):
    said = "ssh: Could not resolve hostname nowhere.invalid: Name or service not known"
    monkeypatch.setenv("GIT_SSH_COMMAND", fake_ssh(tmp_path, fail=said))
    remote.add_remote(mem, "origin", "ssh://nowhere.invalid/mem.git")
    with pytest.raises(RemoteError) as failed:
        remote.push(mem, "origin", mem.branches())
    assert said in failed.value.message and "\n" not in failed.value.message


def test_a_branch_checked_out_in_a_local_repository_is_not_moved(mem, other):
    remote.add_remote(other, "laptop", str(mem.path))
    remote.fetch(other, "laptop")
    with pytest.raises(RemoteError, match="main is checked out in .*push to a bare repository"):
        remote.push(other, "laptop", {"main": other.head("main")})
    assert remote.push(other, "laptop", {"projects/x": mem.head("projects/x")}).updated == {}


def test_a_push_scans_what_it_sends_and_an_unreachable_secret_stays_home(served, mem):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    remote.push(mem, "origin", mem.branches())
    # a blob no commit holds (a rewrite's leftover): never sent, so no reason to refuse the push
    kept = subprocess.run(["git", "-C", str(mem.path), "hash-object", "-w", "--stdin"], input=f"token: {TOKEN}\n",
                          capture_output=True, text=True, check=True).stdout.strip()
    old = mem.head("main")
    head = mem.commit("main", {"notes/2026-11-21-more.md": b"more\n"}, "remember(main): more")
    pushed = remote.push(mem, "origin", mem.branches())
    assert pushed.updated == {"main": (old, head)} and pushed.objects == new_objects(mem, old, head) == 4
    assert subprocess.run(["git", "-C", str(bare), "cat-file", "-e", kept]).returncode != 0
    # a secret in the new commits: refused before anything is sent
    person_commits(mem.path, "notes: deploy", {"notes/deploy.md": f"token: {TOKEN}\n"})
    before = remote_refs(bare)
    with pytest.raises(SecretFound, match="github_token in file notes/deploy.md") as refused:
        remote.push(mem, "origin", mem.branches())
    assert TOKEN not in refused.value.message and remote_refs(bare) == before
    fsck(bare)


def test_a_fetch_refuses_a_history_holding_a_secret_and_takes_in_nothing(served, mem, other, tmp_path):
    url, bare = served
    remote.add_remote(mem, "origin", url)
    remote.push(mem, "origin", mem.branches())
    remote.add_remote(other, "origin", url)
    remote.fetch(other, "origin")
    # someone pushes a secret to the remote with plain git, past memgit's gate
    work = tmp_path / "by-hand"
    subprocess.run(["git", "clone", "-q", "-b", "main", str(bare), str(work)], check=True)
    person_commits(work, "notes: deploy", {"notes/deploy.md": f"token: {TOKEN}\n"})
    git(work, "push", "-q", "origin", "HEAD:main")
    tracked = remote.remote_heads(other, "origin")
    objects = git(other.path, "count-objects", "-v")
    with pytest.raises(SecretFound, match="refusing to take in .* github_token in file notes/deploy.md") as refused:
        remote.fetch(other, "origin")
    assert TOKEN not in refused.value.message
    assert remote.remote_heads(other, "origin") == tracked  # nothing moved
    assert git(other.path, "count-objects", "-v") == objects  # nothing joined the store
    assert not list((other.path / ".git" / "memgit").glob("incoming-*"))
    fsck(other.path)
