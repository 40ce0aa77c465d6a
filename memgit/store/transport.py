"""Reaching a remote: a dulwich client for its URL, credentials from git's helpers, errors in words.

The transport is whatever `dulwich.client.get_transport_and_path` picks for the URL: a local path
or file:// (dulwich reads the other repository directly), git:// (TCP), ssh:// and `host:path`
(the system `ssh`, so ~/.ssh/config and the agent apply), http(s):// (urllib3). HTTPS passwords
are never stored by memgit: on a 401 it asks git's credential helpers, as `git push` would.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import shutil
import socket
import subprocess
from collections.abc import Callable, Iterator
from urllib.parse import urlsplit, urlunsplit

from dulwich import client as dulwich_client
from dulwich.errors import GitProtocolError, HangupException, NotGitRepository
from dulwich.pack import REF_DELTA, pack_object_chunks
from dulwich.repo import Repo

from memgit.errors import RemoteError

SCHEMES = ("", "file", "git", "ssh", "git+ssh", "http", "https")
CREDENTIAL_ADVICE = "configure a git credential helper (git config --global credential.helper store) or use ssh"

# dulwich's default already; set so a change of default there cannot swap the system ssh out.
dulwich_client.get_ssh_vendor = dulwich_client.SubprocessSSHVendor


def describe_url(url: str) -> str:
    """The URL as it may be shown or logged: any password in it replaced by `***`."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username}:***@{host}"))


def holds_password(url: str) -> bool:
    return urlsplit(url).password is not None


def is_local_path(url: str) -> bool:
    """Tell a filesystem path from a URL (scheme://…) and from scp-like `host:path`."""
    if "://" in url:
        return False
    head = url.split("/", 1)[0]
    return ":" not in head


def connect(url: str, config, *, push: bool) -> tuple[dulwich_client.GitClient, str]:
    """A dulwich client for `url` and the path to pass it; `config` is the repository's config stack
    (url.<base>.insteadOf, core.sshCommand, http.* apply as git applies them).

    Raises:
        RemoteError: the URL names no transport memgit knows.
    """
    url = dulwich_client.apply_instead_of(config, url, push=push)
    scheme = urlsplit(url).scheme if "://" in url else ""
    try:
        if scheme not in SCHEMES:  # dulwich would read `gopher://h/x` as the ssh host `gopher`
            raise ValueError(f"unknown scheme {scheme!r}")
        if scheme in ("http", "https"):
            return HttpClient.for_url(url, config), urlsplit(url).path
        # GIT_SSH_COMMAND as git reads it (dulwich leaves the environment to its porcelain).
        return dulwich_client.get_transport_and_path(url, config=config, operation="push" if push else "pull",
                                                     ssh_command=os.environ.get("GIT_SSH_COMMAND") or None)
    except ValueError as e:
        raise RemoteError(f"cannot use remote URL {describe_url(url)}: {e}; use a path, file://, git://, "
                          "ssh:// (or host:path) or https:// URL") from e


@contextlib.contextmanager
def reaching(url: str, client: dulwich_client.GitClient) -> Iterator[None]:
    """Turn what goes wrong on the way to a remote into a RemoteError saying what to do; close the client."""
    shown = describe_url(url)
    try:
        yield
    except dulwich_client.HTTPUnauthorized as e:
        raise RemoteError(f"authentication failed for {shown}: {CREDENTIAL_ADVICE}") from e
    except dulwich_client.HTTPProxyUnauthorized as e:
        raise RemoteError(f"the HTTP proxy refused to carry memgit to {shown}: set the proxy's credentials in "
                          "http.proxy (or https_proxy) as git reads them") from e
    except dulwich_client.StrangeHostname as e:
        raise RemoteError(f"cannot use remote URL {shown}: the host name starts with '-'") from e
    except NotGitRepository as e:
        raise RemoteError(f"{shown} is not a git repository: check the URL, or create it there with "
                          "`git init --bare`") from e
    except HangupException as e:
        said = "; ".join(line.decode("utf-8", "replace").strip() for line in e.stderr_lines or () if line.strip())
        raise RemoteError(f"{shown} hung up{': ' + said if said else ''}; check the URL and your access to it "
                          "(`ssh` to the host, or `git ls-remote` the URL)") from e
    except (GitProtocolError, OSError) as e:
        raise RemoteError(f"cannot reach {shown}: {_reason(e)}; check the URL, the network and that the "
                          "server is running") from e
    finally:
        client.close()


def checked_out_there(client: dulwich_client.GitClient, path: str) -> str | None:
    """The branch checked out in a non-bare repository on this machine (git's receive-pack refuses
    to move it; dulwich's local transport would, leaving that worktree behind its branch)."""
    if not isinstance(client, dulwich_client.LocalGitClient):
        return None
    try:
        with contextlib.closing(Repo(path)) as there:
            if there.bare:
                return None
            target = there.refs.get_symrefs().get(b"HEAD", b"")
    except (NotGitRepository, OSError):
        return None  # the push says what is wrong with the path
    return target.decode()[len("refs/heads/"):] if target.startswith(b"refs/heads/") else None


def _reason(e: BaseException) -> str:
    if isinstance(e, socket.gaierror):
        return "unknown host"
    if isinstance(e, FileNotFoundError) and e.filename:
        return f"{e.filename} not found"  # the ssh command, or a local path
    text = " ".join((str(e).strip() or type(e).__name__).split())
    # urllib3 wraps the cause in a paragraph; the errno's words are what a person needs
    cause = re.search(r"\[Errno -?\d+\] ([^'\")]+)", text)
    return cause.group(1).strip() if cause else text[:300]


# -- HTTPS credentials ---------------------------------------------------------------------------


class Credentials:
    """The username and password for one HTTP(S) remote, asked of git's credential helpers on a 401.

    `git credential fill` runs with GIT_TERMINAL_PROMPT=0, so a host no helper knows fails at once
    instead of waiting on a terminal; without git, ~/.git-credentials is read as the `store` helper
    writes it. The password is kept in memory only, never logged.
    """

    def __init__(self, url: str):
        parts = urlsplit(url)
        self.fields = {"protocol": parts.scheme, "host": parts.netloc.rsplit("@", 1)[-1],
                       "path": parts.path.lstrip("/")}
        if parts.username:
            self.fields["username"] = parts.username
        self.found: dict[str, str] | None = None
        self.tried = False

    def ask(self) -> dict[str, str] | None:
        """Ask once; later calls return the same answer (None: nobody knows the host)."""
        if not self.tried:
            self.tried = True
            self.found = self._fill()
        return self.found

    def header(self) -> str | None:
        if not self.found:
            return None
        pair = f"{self.found['username']}:{self.found.get('password', '')}".encode()
        return "Basic " + base64.b64encode(pair).decode("ascii")

    def settle(self, *, worked: bool) -> None:
        """Tell the helpers whether the credentials they gave worked (they store or forget them)."""
        if self.found and shutil.which("git"):
            self._git("approve" if worked else "reject", {**self.fields, **self.found})
        if not worked:
            self.found = None

    def _fill(self) -> dict[str, str] | None:
        if not shutil.which("git"):
            user = self.fields.get("username")
            for name, password in dulwich_client.get_credentials_from_store(
                    self.fields["protocol"], self.fields["host"].split(":")[0], user):
                return {"username": name, "password": password}
            return None
        out = self._git("fill", self.fields)
        if out is None:
            return None
        answer = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
        if "username" not in answer or "password" not in answer:
            return None
        return {"username": answer["username"], "password": answer["password"]}

    @staticmethod
    def _git(action: str, fields: dict[str, str]) -> str | None:
        text = "".join(f"{k}={v}\n" for k, v in fields.items()) + "\n"
        env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
        try:
            done = subprocess.run(["git", "credential", action], input=text, capture_output=True, text=True,
                                  env=env, check=False, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return None
        return done.stdout if done.returncode == 0 else None


class HttpClient(dulwich_client.Urllib3HttpGitClient):
    """dulwich's HTTP client, asking git's credential helpers on a 401 and, once they answered,
    sending the credentials with every later request to the same origin (so a streamed pack body
    is never the request a 401 interrupts)."""

    credentials: Credentials

    @classmethod
    def for_url(cls, url: str, config) -> HttpClient:
        parts = urlsplit(url)
        base = urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[-1], path="/", query="", fragment=""))
        credentials = Credentials(url)

        def on_401(_url: str, _www_authenticate: str, attempt: int) -> dict[str, str] | None:
            if attempt > 1 or credentials.tried:  # what the helpers gave was refused
                credentials.settle(worked=False)
                return None
            return credentials.ask()

        self = cls(base, config=config, auth_callback=on_401)
        self.credentials = credentials
        return self

    def _http_request(self, url, headers=None, data=None, raise_for_status=True):
        header = self.credentials.header()
        if header and _origin(url) == _origin(self._base_url):
            headers = {**(headers or {}), "authorization": header}
        return super()._http_request(url, headers, data, raise_for_status)


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme, parts.netloc.rsplit("@", 1)[-1]


def settle_credentials(client: dulwich_client.GitClient) -> None:
    """After a successful exchange: let git's helpers store the credentials that worked."""
    if isinstance(client, HttpClient):
        client.credentials.settle(worked=True)


# -- what a push sends -----------------------------------------------------------------------------


class PackMeter:
    """Counts the objects and bytes of the pack a push sends.

    Each record is compressed here, once, and handed on with its compressed chunks, which dulwich's
    pack writer reuses as they are: the count is of the bytes written, not an estimate. A delta
    whose base dulwich did not compress is written as a REF_DELTA (valid wherever its base is).
    """

    HEADER_AND_CHECKSUM = 12 + 20

    def __init__(self, object_format):
        self.object_format = object_format
        self.objects = 0
        self.bytes = 0

    def wrap(self, generate: Callable) -> Callable:
        def generate_pack_data(have, want, *, ofs_delta: bool = True, progress=None):
            count, records = generate(set(have), set(want), ofs_delta=ofs_delta, progress=progress)
            self.objects = count
            return count, self._measured(records)

        return generate_pack_data

    def _measured(self, records):
        self.bytes = self.HEADER_AND_CHECKSUM
        for unpacked in records:
            if unpacked.comp_chunks is None:
                if unpacked.delta_base is not None:
                    kind, raw = REF_DELTA, (unpacked.delta_base, unpacked.decomp_chunks)
                else:
                    kind, raw = unpacked.pack_type_num, unpacked.decomp_chunks
                unpacked.comp_chunks = list(pack_object_chunks(kind, raw, object_format=self.object_format))
            self.bytes += sum(map(len, unpacked.comp_chunks))
            yield unpacked
