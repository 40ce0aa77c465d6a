"""Git servers on 127.0.0.1 for remote tests: bare repositories, `git daemon`, git's smart HTTP.

Each server is a context manager on an ephemeral port, stopped on exit however the test ends, and
a pytest fixture around it that skips with the reason when git lacks the program. A test module
uses the fixtures by importing them (`from tests.servers import git_daemon, http_server`).

    with GitDaemon(root) as daemon:          # git://127.0.0.1:<port>/<name>
        url = daemon.url("mem.git")
    with HttpBackend(root, auth=("u", "p")) as http:   # http://127.0.0.1:<port>/<name>, Basic auth
        url = http.url("mem.git")
"""

from __future__ import annotations

import base64
import os
import shutil
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest


def git_program(name: str) -> Path | None:
    """A git helper program (git-daemon, git-http-backend) from `git --exec-path`, or None."""
    if not shutil.which("git"):
        return None
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip()
    program = Path(exec_path) / name
    return program if program.is_file() and os.access(program, os.X_OK) else None


def bare_repo(path: Path) -> Path:
    """A fresh `git init --bare` at path (the empty remote a person would create)."""
    subprocess.run(["git", "init", "-q", "--bare", str(path)], check=True)
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (connections are refused at once)."""
    return free_port()


class GitDaemon:
    """`git daemon` serving every repository under root, receive-pack enabled, on an ephemeral port."""

    def __init__(self, root: Path):
        self.root = Path(root)
        self.port = 0
        self._proc: subprocess.Popen | None = None

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def __enter__(self) -> GitDaemon:
        for _ in range(5):  # the port is picked free, then bound by git: another process may win it
            self.port = free_port()
            self._proc = subprocess.Popen(
                ["git", "daemon", "--export-all", "--enable=receive-pack", f"--base-path={self.root}",
                 "--listen=127.0.0.1", f"--port={self.port}", "--reuseaddr", "--informative-errors",
                 str(self.root)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if self._wait_listening():
                return self
            self._stop()
        raise RuntimeError("git daemon did not start listening")

    def _wait_listening(self) -> bool:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                return False
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return True
            except OSError:
                time.sleep(0.05)
        return False

    def _stop(self) -> None:
        if self._proc and self._proc.poll() is None:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()

    def __exit__(self, *exc: object) -> None:
        self._stop()


class HttpBackend:
    """git's smart HTTP (`git http-backend` as CGI) behind a threaded server on 127.0.0.1.

    With `auth=(user, password)` every request needs that HTTP Basic authorization, else 401.
    Pushes are allowed (REMOTE_USER is set). Chunked request bodies are decoded here; a gzip'd body
    is passed on with its Content-Encoding, which http-backend inflates itself. `requests` records
    (method, path, authorized) for each request.
    """

    def __init__(self, root: Path, *, auth: tuple[str, str] | None = None):
        self.root = Path(root)
        self.auth = auth
        self.requests: list[tuple[str, str, bool]] = []
        self._program = git_program("git-http-backend")
        if self._program is None:
            raise RuntimeError("git-http-backend is not installed")
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/{name}"

    def __enter__(self) -> HttpBackend:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def authorized(self, header: str | None) -> bool:
        if self.auth is None:
            return True
        expected = "Basic " + base64.b64encode(f"{self.auth[0]}:{self.auth[1]}".encode()).decode()
        return header == expected


def _handler(backend: HttpBackend) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:  # keep the test output quiet
            pass

        def do_GET(self) -> None:
            self._cgi()

        def do_POST(self) -> None:
            self._cgi()

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return b"".join(chunks)
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _cgi(self) -> None:
            body = self._body() if self.command == "POST" else b""
            authorized = backend.authorized(self.headers.get("Authorization"))
            backend.requests.append((self.command, self.path, authorized))
            if not authorized:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="memgit test"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            path, _, query = self.path.partition("?")
            env = {
                "PATH": os.environ.get("PATH", ""), "GIT_PROJECT_ROOT": str(backend.root),
                "GIT_HTTP_EXPORT_ALL": "1", "REMOTE_USER": backend.auth[0] if backend.auth else "tester",
                "REMOTE_ADDR": "127.0.0.1", "REQUEST_METHOD": self.command, "PATH_INFO": path,
                "QUERY_STRING": query, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                "CONTENT_LENGTH": str(len(body)), "GIT_CONFIG_NOSYSTEM": "1",
                "HOME": os.environ.get("HOME", "/nonexistent"),
            }
            if self.headers.get("Content-Encoding"):
                env["HTTP_CONTENT_ENCODING"] = self.headers["Content-Encoding"]
            if self.headers.get("Git-Protocol"):
                env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
            out = subprocess.run([str(backend._program)], input=body, capture_output=True, env=env).stdout
            head, _, payload = out.partition(b"\r\n\r\n")
            status, headers = 200, []
            for line in head.split(b"\r\n"):
                name, _, value = line.decode("latin-1").partition(":")
                if name.lower() == "status":
                    status = int(value.strip().split()[0])
                elif name:
                    headers.append((name, value.strip()))
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


# -- fixtures -------------------------------------------------------------------------------------


def _served(tmp_path: Path, program: str, what: str) -> Path:
    """tmp_path/"served", the folder a server exports; the test is skipped when git lacks the program."""
    if git_program(program) is None:
        pytest.skip(f"`{what}` is not available ({program} not under `git --exec-path`)")
    root = tmp_path / "served"
    root.mkdir(exist_ok=True)
    return root


@pytest.fixture
def git_daemon(tmp_path):
    """A running `git daemon` over tmp_path/"served" (skipped when git has no daemon)."""
    with GitDaemon(_served(tmp_path, "git-daemon", "git daemon")) as daemon:
        yield daemon


@pytest.fixture
def http_server(tmp_path):
    """git's smart HTTP over tmp_path/"served", no authentication (skipped without git-http-backend)."""
    with HttpBackend(_served(tmp_path, "git-http-backend", "git http-backend")) as server:
        yield server


@pytest.fixture
def http_auth_server(tmp_path):
    """git's smart HTTP over tmp_path/"served" requiring Basic auth as ("memgit", "s3cret-pass")."""
    with HttpBackend(_served(tmp_path, "git-http-backend", "git http-backend"), auth=("memgit", "s3cret-pass")) as server:
        yield server
