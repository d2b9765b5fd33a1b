"""``recommend --prometheus`` when the server (or what stands in front of it) misbehaves.

The answers are replayed by a small HTTP server on 127.0.0.1 (no Prometheus needed for a 401): the status codes and
bodies are those of the Prometheus HTTP API documentation (an error is ``{"status": "error", "errorType",
"error"}``) and of a reverse proxy (an HTML 502 page). Credentials go out in headers and never come back in a message.
"""

from __future__ import annotations

import base64
import http.server
import json
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli
from renderer.recommend.prometheus import PARALLEL
from renderer.recommend.queries import QUERIES

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"
EMPTY = json.dumps({"status": "success", "data": {"resultType": "matrix", "result": []}}).encode()


class Stub:
    def __init__(self) -> None:
        self.answers: list[tuple[int, bytes, float]] = []
        self.seen: list[tuple[str, str | None]] = []
        #: (a part of the request path, seconds): such requests answer the default, that late
        self.slow: tuple[str, float] | None = None


@pytest.fixture
def stub() -> Iterator[tuple[Stub, str]]:
    state = Stub()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.seen.append((self.path, self.headers.get("Authorization")))
            if state.slow is not None and state.slow[0] in self.path:
                status, body, delay = 200, EMPTY, state.slow[1]
            else:
                status, body, delay = state.answers.pop(0) if state.answers else (200, EMPTY, 0.0)
            if delay:
                time.sleep(delay)
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json" if body.startswith(b"{") else "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def do_POST(self) -> None:  # promtool asks with POST (the form in the body): the same answers
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.do_GET()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _run(url: str, *extra: str) -> object:
    return run_cli(
        "recommend", str(EXAMPLE / "policies"), "--prometheus", url, "--end", "2025-11-09", "--retries", "0", *extra
    )


@pytest.mark.parametrize(
    ("status", "body", "words"),
    [
        (401, b"Unauthorized", "HTTP 401 unauthorized; check --bearer-token-file"),
        (403, b"Forbidden", "HTTP 403 forbidden; check --bearer-token-file"),
        (502, b"<html><body><h1>502 Bad Gateway</h1></body></html>", "HTTP 502 Bad Gateway"),
        (
            400,
            json.dumps({"status": "error", "errorType": "bad_data", "error": 'invalid parameter "query"'}).encode(),
            "Prometheus answered with an error: bad_data: invalid parameter",
        ),
        (200, b"<!doctype html><title>Sign in</title>", "an HTML page"),
    ],
)
def test_a_refusal_is_one_line_without_the_secret(
    stub: tuple[Stub, str], tmp_path: Path, status: int, body: bytes, words: str
) -> None:
    state, url = stub
    token = tmp_path / "token"
    token.write_text("s3cr3t-token\n", encoding="utf-8")
    state.answers.append((status, body, 0.0))
    done = _run(url, "--bearer-token-file", str(token))
    assert done.exit_code == 2  # type: ignore[attr-defined]
    assert words in done.stderr  # type: ignore[attr-defined]
    assert done.stderr.count("\n") == 1 and "s3cr3t" not in done.stderr  # type: ignore[attr-defined]
    assert state.seen[0][1] == "Bearer s3cr3t-token"


def test_basic_auth_and_a_url_with_credentials_never_show_them(stub: tuple[Stub, str], tmp_path: Path) -> None:
    state, url = stub
    password = tmp_path / "password"
    password.write_text("hunter2", encoding="utf-8")
    state.answers.append((401, b"no", 0.0))
    with_userinfo = url.replace("http://", "http://alice:hunter2@")
    done = _run(with_userinfo, "--username", "bob", "--password-file", str(password))
    assert done.exit_code == 2  # type: ignore[attr-defined]
    assert "hunter2" not in done.stderr and "alice" not in done.stderr  # type: ignore[attr-defined]
    assert state.seen[0][1] == "Basic " + base64.b64encode(b"bob:hunter2").decode()


def test_a_timeout_is_retried_then_said(stub: tuple[Stub, str]) -> None:
    state, url = stub
    # the first query's requests answer after 2 s (queries are asked a few at a time: the others answer at once)
    first = urllib.parse.urlencode({"query": QUERIES[0].promql})
    state.slow = (first, 2.0)
    done = run_cli(
        "recommend",
        str(EXAMPLE / "policies"),
        "--prometheus",
        url,
        "--end",
        "2025-11-09",
        "--timeout",
        "0.3",
        "--retries",
        "1",
    )
    assert done.exit_code == 2
    assert "reserved_memory: timed out after 2 attempt(s) (--timeout 0.3s)" in done.stderr
    assert done.stderr.count("\n") == 1
    assert sum(1 for path, _ in state.seen if first in path) == 2


def test_a_server_error_is_retried(stub: tuple[Stub, str]) -> None:
    state, url = stub
    state.answers.append((503, b"<html>unavailable</html>", 0.0))
    done = run_cli("recommend", str(EXAMPLE / "policies"), "--prometheus", url, "--end", "2025-11-09", "--retries", "1")
    assert done.exit_code == 0, done.stderr
    # eight queries over the default 14 days: the four without a subquery in one request each, the four with one
    # (reserved_cpu, pods_memory_ratio, pods_cpu_ratio, memory_stall) one day at a time (4 + 4 x 14 = 60 requests),
    # and the one that got the 503 asked again
    assert len(state.seen) == 61
    assert all(path.startswith("/api/v1/query_range?query=") and "step=86400" in path for path, _ in state.seen)


def test_nothing_listens(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = _run(f"http://127.0.0.1:{port}")
    assert done.exit_code == 2  # type: ignore[attr-defined]
    assert "after 1 attempt(s)" in done.stderr  # type: ignore[attr-defined]


@pytest.mark.parametrize("url", ["ftp://x", "prometheus:9090", "http://"])
def test_a_url_that_is_not_http_is_a_usage_error(url: str) -> None:
    done = _run(url)
    assert done.exit_code == 2  # type: ignore[attr-defined]
    assert "--prometheus must be an http(s) URL" in done.stderr  # type: ignore[attr-defined]


@pytest.fixture
def tls_stub(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The same stub behind TLS: a certificate for 127.0.0.1 made by openssl, signed by its own CA."""
    import ssl
    import subprocess

    from support import tools

    openssl = tools.find("openssl", how="apt-get install openssl (it makes the test's certificates)")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], cwd=tmp_path, check=True, capture_output=True, timeout=60)

    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=test CA",
    )
    (tmp_path / "san.cnf").write_text("subjectAltName=IP:127.0.0.1\n", encoding="utf-8")
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "srv.key", "-out", "srv.csr", "-subj", "/CN=127.0.0.1")
    run(
        "x509",
        "-req",
        "-in",
        "srv.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "srv.pem",
        "-days",
        "2",
        "-extfile",
        "san.cnf",
    )

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(EMPTY)))
            self.end_headers()
            self.wfile.write(EMPTY)

        def do_POST(self) -> None:  # promtool asks with POST (the form in the body): the same answers
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.do_GET()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "srv.pem", tmp_path / "srv.key")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}", tmp_path / "ca.pem"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.mark.external
def test_tls_with_the_servers_ca_or_without_verification(tls_stub: tuple[str, Path]) -> None:
    url, ca = tls_stub
    unknown = _run(url)
    assert unknown.exit_code == 2  # type: ignore[attr-defined]
    # the system's CA bundle does not know the test CA: one line naming the server and the query (the TLS library's
    # own words follow; not asserted)
    assert unknown.stderr.startswith(f"allocatable: error: {url}: reserved_memory: ")  # type: ignore[attr-defined]
    assert unknown.stderr.count("\n") == 1  # type: ignore[attr-defined]
    assert _run(url, "--certificate-authority", str(ca)).exit_code == 0  # type: ignore[attr-defined]
    assert _run(url, "--insecure-skip-tls-verify").exit_code == 0  # type: ignore[attr-defined]


def test_a_signal_ends_the_run_at_once_with_requests_in_flight(stub: tuple[Stub, str]) -> None:
    # every answer takes 20 s; PARALLEL (3) requests are in flight when SIGTERM comes: the run ends with 128 + 15 without
    # waiting for them (the bounded waits below are the test's guard against a hang, not a speed figure)
    import signal
    import subprocess
    import sys

    state, url = stub
    state.slow = ("/api/v1/query_range", 20.0)
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-m", "renderer", "recommend", str(EXAMPLE / "policies"), "--prometheus", url],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 15
        while len(state.seen) < PARALLEL and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # room for a fourth request, were one asked
        assert len(state.seen) == PARALLEL  # in flight, no more
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 128 + signal.SIGTERM, err
    assert len(state.seen) == PARALLEL


def test_a_url_with_credentials_and_no_flag_sends_them_and_never_shows_them(stub: tuple[Stub, str]) -> None:
    """``http://user:password@host`` alone: the user and password go out as basic auth, as Go's net/http sends a URL's
    userinfo (its client's ``send``: ``Authorization: Basic`` from ``req.URL.User`` when no Authorization header is
    set), so the URL promtool takes works here too. RFC 3986 percent-encoding is undone first: ``p%40ss`` is the
    password ``p@ss``; RFC 7617: the header is ``Basic`` and base64 of ``user:password``. Before, the userinfo was
    dropped without a word and the 401 said to check flags that were never given."""
    state, url = stub
    state.answers.append((401, b"no", 0.0))
    done = _run(url.replace("http://", "http://alice:p%40ss@"))
    assert done.exit_code == 2  # type: ignore[attr-defined]
    assert state.seen[0][1] == "Basic " + base64.b64encode(b"alice:p@ss").decode()
    assert "HTTP 401 unauthorized; check the user and password in the --prometheus URL" in done.stderr  # type: ignore[attr-defined]
    assert "alice" not in done.stderr and "p@ss" not in done.stderr and "p%40ss" not in done.stderr  # type: ignore[attr-defined]
    # a good answer: every query goes out with the same header
    state.seen.clear()
    done = _run(url.replace("http://", "http://alice:p%40ss@"))
    assert done.exit_code == 0, done.stderr  # type: ignore[attr-defined]
    assert {auth for _, auth in state.seen} == {"Basic YWxpY2U6cEBzcw=="}  # base64("alice:p@ss"), by RFC 4648's table


@pytest.mark.external
def test_the_printed_promtool_commands_carry_the_servers_credentials(stub: tuple[Stub, str], tmp_path: Path) -> None:
    """``--print-queries`` with ``--bearer-token-file``: each promtool command sends the token, read from the file
    when the script runs (``--header`` of ``promtool query range``; ``$(cat FILE)`` drops the file's last newline),
    never printed. Run with the real promtool against the stub: before, the commands went out without it (a 401 from
    a server that asks for one). With basic auth (a URL's userinfo, never printed) a comment says where to put it."""
    import subprocess

    from support.tools import find

    promtool = find("promtool", how="apt-get install prometheus")
    state, url = stub
    token = tmp_path / "the token"
    token.write_text("s3cr3t-token\n", encoding="utf-8")
    done = _run(url, "--print-queries", "--bearer-token-file", str(token))
    assert done.exit_code == 0, done.stderr  # type: ignore[attr-defined]
    assert "s3cr3t" not in done.stdout  # type: ignore[attr-defined]
    script = tmp_path / "export.sh"
    script.write_text(done.stdout.replace("promtool ", f"{promtool} "), encoding="utf-8")  # type: ignore[attr-defined]
    ran = subprocess.run(["sh", str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert ran.returncode == 0, ran.stderr
    assert len(state.seen) == len(QUERIES)
    assert {auth for _, auth in state.seen} == {"Bearer s3cr3t-token"}
    basic = _run(url.replace("http://", "http://alice:hunter2@"), "--print-queries")
    assert "alice" not in basic.stdout and "hunter2" not in basic.stdout  # type: ignore[attr-defined]
    assert basic.stdout.startswith("# the server takes basic auth, which is never printed")  # type: ignore[attr-defined]


@pytest.mark.external
def test_lint_reaches_the_server_recommend_reaches(tls_stub: tuple[str, Path], stub: tuple[Stub, str]) -> None:
    """``lint --prometheus`` (rule AL216) takes recommend's connection options: a server behind a private CA, basic
    auth, a timeout and retries. Before, lint had --bearer-token-file only, so such a server could not be linted
    against."""
    url, ca = tls_stub
    policies = str(EXAMPLE / "policies")
    assert run_cli("lint", policies, "--prometheus", url, "--retries", "0").exit_code == 2  # the CA is unknown
    done = run_cli("lint", policies, "--prometheus", url, "--certificate-authority", str(ca), "--end", "2025-11-09")
    assert done.exit_code == 0, done.stderr
    state, plain = stub
    password = ca.parent / "password"
    password.write_text("hunter2\n", encoding="utf-8")
    done = run_cli(
        "lint", policies, "--prometheus", plain, "--username", "bob", "--password-file", str(password), "--timeout", "5"
    )
    assert done.exit_code == 0, done.stderr
    assert {auth for _, auth in state.seen} == {"Basic " + base64.b64encode(b"bob:hunter2").decode()}
    assert "hunter2" not in done.stderr
    alone = run_cli("lint", policies, "--certificate-authority", str(ca))
    assert alone.exit_code == 2 and "go with --prometheus" in alone.stderr


def test_the_urls_query_parameters_go_with_every_request_and_are_never_shown(stub: tuple[Stub, str]) -> None:
    """``--prometheus 'https://host/prometheus?tenant=t1&access_token=tok'``: a managed service may take its tenant
    or token in the URL's query. Each request carries them before the query's own parameters; no message and no
    printed command shows them (before, they were dropped from the requests without a word)."""
    import urllib.parse

    state, url = stub
    state.answers.append((401, b"no", 0.0))
    done = _run(url + "/prom?tenant=t1&access_token=s3cr3t")
    assert done.exit_code == 2  # type: ignore[attr-defined]
    assert "s3cr3t" not in done.stderr and "t1" not in done.stderr  # type: ignore[attr-defined]
    path = state.seen[0][0]
    assert path.startswith("/prom/api/v1/query_range?tenant=t1&access_token=s3cr3t&query=")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(path).query)["step"] == ["86400"]
    printed = _run(url + "/prom?tenant=t1&access_token=s3cr3t", "--print-queries")
    assert "s3cr3t" not in printed.stdout and "tenant" not in printed.stdout.split("\n", 1)[1]  # type: ignore[attr-defined]
    assert printed.stdout.startswith("# the --prometheus URL's query parameters are never printed")  # type: ignore[attr-defined]
