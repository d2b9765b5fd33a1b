"""In-cluster reading (renderer/serve/kubeapi.py, sources.ApiSource) against recorded API responses.

No Kubernetes API server can run here: every test starts a loopback HTTP server (127.0.0.1, a free port) that replays
NodeList pages made of the published nodes of tests/real-nodes/ (EKS and GKE nodes that verify reproduces exactly),
laid out as the API server sends a list — ``kind``, ``apiVersion`` and ``metadata`` (``continue``,
``remainingItemCount``) before ``items``, and items without their own ``kind``/``apiVersion`` — and the errors it
answers with (a ``Status`` body).
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import yaml
from serve_support import TOKEN, Answer, Replay, replay_server, status

from conftest import REPO_ROOT
from renderer.serve.kubeapi import ApiError, Endpoint, list_pages
from renderer.serve.service import Service
from renderer.serve.sources import ApiSource, SourceError

FILES = sorted((REPO_ROOT / "tests/real-nodes/eks").glob("*.yaml")) + [
    REPO_ROOT / f"tests/real-nodes/gke/{name}.yaml"
    for name in ("c2-standard-16-1-31", "e2-medium-1-23", "e2-small-1-29", "n1-standard-2-1-35", "n2-standard-8-1-16")
]


def _nodes() -> list[dict[str, Any]]:
    out = []
    for path in FILES:
        node = yaml.safe_load(path.read_text(encoding="utf-8"))
        del node["apiVersion"], node["kind"]  # a list's items carry no type of their own
        out.append(node)
    return out


def page(items: list[dict[str, Any]], token: str = "", remaining: int | None = None) -> bytes:
    meta: dict[str, Any] = {"resourceVersion": "123456"}
    if token:
        meta["continue"] = token
    if remaining is not None:
        meta["remainingItemCount"] = remaining
    return json.dumps({"kind": "NodeList", "apiVersion": "v1", "metadata": meta, "items": items}).encode()


@pytest.fixture
def api() -> Iterator[tuple[Replay, Callable[[Callable[[dict[str, str]], Answer]], str]]]:
    with replay_server() as got:
        yield got


def endpoint(base: str, tmp_path: Path, **options: Any) -> Endpoint:
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n", encoding="utf-8")
    options.setdefault("backoff", 0.01)
    options.setdefault("timeout", 10.0)
    return Endpoint(base=base, token_file=str(token), ca_file=None, **options)


def paged(nodes: list[dict[str, Any]], size: int) -> Callable[[dict[str, str]], Answer]:
    """The list in pages of ``size``; the continue token is the next item's index."""

    def answer(query: dict[str, str]) -> Answer:
        start = int(query.get("continue", "0"))
        end = start + size
        rest = len(nodes) - end
        token = str(end) if rest > 0 else ""
        return 200, page(nodes[start:end], token, rest if rest > 0 else None), {}

    return answer


def test_pages_are_followed_and_the_fleet_verified(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server replays the published nodes in pages of 4."""
    replay, start = api
    nodes = _nodes()
    base = start(paged(nodes, 4))
    source = ApiSource(endpoint(base, tmp_path, page_size=4), None, None, None)
    service = Service.of(repo, source, 60.0)
    service.log = io.StringIO()
    assert service.cycle(), service.last_error
    assert service.evaluation is not None
    assert service.evaluation.tally.nodes == len(FILES) == 12  # 7 EKS (the g4dn GPU node among them) + 5 GKE
    assert service.evaluation.tally.drift == 0  # every one of them is reproduced exactly (tests/real-nodes)
    assert [(path, q.get("continue")) for path, q, _ in replay.requests] == [
        ("/api/v1/nodes", None),
        ("/api/v1/nodes", "4"),
        ("/api/v1/nodes", "8"),
    ]
    assert all(q["limit"] == "4" for _, q, _ in replay.requests)
    assert {auth for _, _, auth in replay.requests} == {f"Bearer {TOKEN}"}


@pytest.mark.parametrize(
    ("code", "says"),
    [(401, "the service account token was refused"), (403, "bind it to the read-only ClusterRole")],
)
def test_401_and_403_are_not_retried_and_never_show_the_token(api: Any, tmp_path: Path, code: int, says: str) -> None:
    """No API server can run here: a loopback server answers with the Status the API server sends."""
    replay, start = api
    message = 'nodes is forbidden: User "system:serviceaccount:monitoring:allocatable" cannot list resource "nodes"'
    base = start(lambda q: (code, status(code, "Forbidden", message), {}))
    with pytest.raises(ApiError) as caught:
        list(list_pages(endpoint(base, tmp_path), "/api/v1/nodes"))
    text = str(caught.value)
    assert f"GET /api/v1/nodes: {code} " in text and says in text and "cannot list resource" in text
    assert TOKEN not in text and "Bearer" not in text
    assert len(replay.requests) == 1


def test_server_errors_are_retried_with_backoff(api: Any, tmp_path: Path) -> None:
    """No API server can run here: a loopback server fails twice (500, then 429 with Retry-After), then answers."""
    replay, start = api
    answers = iter(
        [
            (500, status(500, "InternalError", "etcdserver: request timed out"), {}),
            (429, status(429, "TooManyRequests", "too many requests"), {"Retry-After": "0"}),
        ]
    )
    nodes = _nodes()
    base = start(lambda q: next(answers, (200, page(nodes), {})))
    pages = list(list_pages(endpoint(base, tmp_path), "/api/v1/nodes"))
    assert len(pages) == 1 and len(replay.requests) == 3


def test_a_server_that_keeps_failing_fails_the_cycle_after_the_tries(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server answers 503 to everything."""
    replay, start = api
    base = start(lambda q: (503, b"upstream connect error", {"Content-Type": "text/plain"}))
    source = ApiSource(endpoint(base, tmp_path, attempts=3), None, None, None)
    with pytest.raises(SourceError, match=r"GET /api/v1/nodes: 503 .*upstream connect error \(after 3 tries\)"):
        source.read(threading.Event())
    assert len(replay.requests) == 3


def test_a_stop_during_the_backoff_ends_the_list_at_once(api: Any, tmp_path: Path) -> None:
    """No API server can run here: a loopback server answers 500; the stop is set before the first retry."""
    _, start = api
    base = start(lambda q: (500, b"", {}))
    stop = threading.Event()
    stop.set()
    with pytest.raises(ApiError, match="stopped while waiting to retry"):
        list(list_pages(endpoint(base, tmp_path, backoff=3600), "/api/v1/nodes", stop=stop))


def test_an_expired_continue_token_starts_the_list_again_once(api: Any, tmp_path: Path) -> None:
    """No API server can run here: a loopback server answers 410 Gone to the first continue token it gets."""
    replay, start = api
    nodes = _nodes()
    inner = paged(nodes, 6)
    expired = {"done": False}

    def answer(query: dict[str, str]) -> Answer:
        if "continue" in query and not expired["done"]:
            expired["done"] = True
            return 410, status(410, "Expired", "The provided continue parameter is too old"), {}
        return inner(query)

    base = start(answer)
    got = list(list_pages(endpoint(base, tmp_path, page_size=6), "/api/v1/nodes"))
    assert [n for n, _ in got] == [1, 1, 2]  # page 1, (410), page 1 again, page 2
    assert len(replay.requests) == 4


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ((200, b"x" * 2048, {}), "page 1 is 2048 bytes, more than the 1024 allowed"),
        ((200, b"{" + b" " * 2000, {"Content-Length": "10"}), None),  # a lying length: read stops at it
        ((200, page([], "t" * 5000), {}), "not a token of at most 4 KiB"),
    ],
)
def test_hostile_pages_are_bounded(api: Any, tmp_path: Path, answer: Answer, says: str | None) -> None:
    """No API server can run here: a loopback server sends an oversized page, a lying length, a huge token."""
    _, start = api
    base = start(lambda q: answer)
    if says is None:
        with pytest.raises((ApiError, SourceError)):
            ApiSource(endpoint(base, tmp_path, max_bytes=1024), None, None, None).read(threading.Event())
        return
    with pytest.raises(ApiError, match=says):
        list(list_pages(endpoint(base, tmp_path, max_bytes=1024 if "bytes" in says else 256 << 20), "/api/v1/nodes"))


def test_a_server_that_repeats_its_continue_token_is_stopped(api: Any, tmp_path: Path) -> None:
    """No API server can run here: a loopback server sends the same continue token for ever."""
    replay, start = api
    base = start(lambda q: (200, page([], "same"), {}))
    with pytest.raises(ApiError, match="repeats an earlier continue token"):
        list(list_pages(endpoint(base, tmp_path), "/api/v1/nodes"))
    assert len(replay.requests) == 2


@pytest.mark.parametrize(
    ("body", "where"),
    [
        (b"<html>502 Bad Gateway</html>", "GET /api/v1/nodes (page 1):1:1: "),
        (page([1]), "GET /api/v1/nodes (page 1):1:"),  # type: ignore[list-item]
        (page([{"metadata": {"name": "n"}}]), "GET /api/v1/nodes (page 1):1:"),
    ],
)
def test_a_bad_page_is_one_located_line(api: Any, tmp_path: Path, body: bytes, where: str) -> None:
    """No API server can run here: a loopback server sends text that is not a NodeList of Nodes."""
    _, start = api
    base = start(lambda q: (200, body, {}))
    with pytest.raises(SourceError) as caught:
        ApiSource(endpoint(base, tmp_path), None, None, None).read(threading.Event())
    assert str(caught.value).startswith(where), str(caught.value)
    assert "\n" not in str(caught.value)


def test_no_server_listening_is_an_error_after_the_tries(tmp_path: Path) -> None:
    """No API server can run here: a loopback port nobody listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ApiError, match=r"ConnectionRefusedError.*\(after 2 tries\)"):
        list(list_pages(endpoint(f"http://127.0.0.1:{port}", tmp_path, attempts=2), "/api/v1/nodes"))


def test_a_missing_token_says_where_it_was_looked_for(api: Any, tmp_path: Path) -> None:
    """No API server can run here: the loopback server is never reached."""
    replay, start = api
    base = start(lambda q: (200, page([]), {}))
    ep = Endpoint(base=base, token_file=str(tmp_path / "none"), ca_file=None)
    with pytest.raises(ApiError, match=r"cannot read the service account token .*automountServiceAccountToken"):
        list(list_pages(ep, "/api/v1/nodes"))
    assert replay.requests == []


@pytest.mark.parametrize("ca", ["none", "garbage.crt"])
def test_a_missing_or_unusable_ca_is_one_line(tmp_path: Path, ca: str) -> None:
    """No API server can run here, and none is reached: the CA is read before connecting. A pod whose service account
    is not mounted (``automountServiceAccountToken: false``) has neither the token nor ``ca.crt``; a CA file that holds
    no certificate is unusable too. Either is an ``ApiError`` (a failed cycle, counted, the process serving on), not
    an internal error that ends serve, as the missing file was."""
    token = tmp_path / "token"
    token.write_text("t0ken\n", encoding="utf-8")
    (tmp_path / "garbage.crt").write_text("not a certificate\n", encoding="utf-8")
    ep = Endpoint(base="https://127.0.0.1:1", token_file=str(token), ca_file=str(tmp_path / ca), attempts=1)
    with pytest.raises(ApiError, match=r"cannot use the cluster CA .*automountServiceAccountToken") as raised:
        list(list_pages(ep, "/api/v1/nodes"))
    assert "t0ken" not in str(raised.value)


def test_in_cluster_address_from_the_environment() -> None:
    """No API server can run here: only the address is checked."""
    assert Endpoint.in_cluster({"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}).base == (
        "https://10.96.0.1:443"
    )
    assert Endpoint.in_cluster({"KUBERNETES_SERVICE_HOST": "fd00::1", "KUBERNETES_SERVICE_PORT": "443"}).base == (
        "https://[fd00::1]:443"
    )
    with pytest.raises(ApiError, match="not running in a Kubernetes pod"):
        Endpoint.in_cluster({})


def test_pods_are_listed_with_the_running_field_selector(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server replays the published EKS node and a PodList."""
    replay, start = api
    nodes = _nodes()[:1]
    pod = {
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"nodeName": nodes[0]["metadata"]["name"], "containers": [{"name": "c"}]},
        "status": {"phase": "Running"},
    }

    def answer(query: dict[str, str]) -> Answer:
        if replay.requests[-1][0] == "/api/v1/pods":
            return 200, json.dumps({"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": [pod]}).encode(), {}
        return 200, page(nodes), {}

    base = start(answer)
    got_nodes, pods = ApiSource(endpoint(base, tmp_path), None, None, None, live_pods=True).read(threading.Event())
    assert len(got_nodes) == 1 and pods is not None and len(pods) == 1
    assert replay.requests[-1][1]["fieldSelector"] == "status.phase!=Succeeded,status.phase!=Failed"


def _cert(tmp_path: Path, name: str) -> tuple[Path, Path]:
    from support.tools import find

    openssl = find("openssl", how="apt-get install openssl")
    import subprocess

    cert, key = tmp_path / f"{name}.crt", tmp_path / f"{name}.key"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=kubernetes",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return cert, key


@pytest.mark.external
def test_https_with_the_cluster_ca_and_a_certificate_that_does_not_verify(tmp_path: Path) -> None:
    """No API server can run here: a loopback HTTPS server with a certificate made now (openssl) replays a page."""
    import ssl

    cert, key = _cert(tmp_path, "server")
    other, _ = _cert(tmp_path, "other")
    body = page(_nodes()[:2])

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"https://127.0.0.1:{server.server_address[1]}"
        token = tmp_path / "token"
        token.write_text(TOKEN, encoding="utf-8")
        good = Endpoint(base=base, token_file=str(token), ca_file=str(cert), timeout=10)
        assert [n for n, _ in list_pages(good, "/api/v1/nodes")] == [1]
        bad = Endpoint(base=base, token_file=str(token), ca_file=str(other), timeout=10, attempts=1)
        with pytest.raises(ApiError, match="certificate does not verify against"):
            list(list_pages(bad, "/api/v1/nodes"))
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
