"""Shared by the serve tests: the published EKS node and a Service over files in a temporary directory.

The node is tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml (AhmadShaaban1/cloud-native-ecommerce@51cf73f): a
t3.small of the managed node group ``ecommerce-dev-node-group``, capacity cpu 2, memory 1959264Ki, pods 11; it reports
allocatable cpu 1930m, memory 1471840Ki, ephemeral-storage 18181869946, pods 11, which EKS's own reservation
reproduces exactly (tests/verify/test_real_nodes.py), so with no policy the node matches.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import select
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import yaml
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO_ROOT
from renderer.serve.service import Service
from renderer.serve.sources import FileSource
from support.factory import item_list, node_selector, reservation_policy

NODE_FILE = REPO_ROOT / "tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml"
NODE_NAME = "ip-10-0-10-170.ec2.internal"
POOL = "ecommerce-dev-node-group"

#: The policy of test_causes.py's "not rolled out" case: the node still runs EKS's defaults.
KUBE_RESERVED = reservation_policy(
    "eks", selector=node_selector("eks.amazonaws.com/nodegroup"), kubeReserved={"cpu": "500m", "memory": "1Gi"}
)


def real_node() -> dict[str, Any]:
    return yaml.safe_load(NODE_FILE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def write_nodes(path: Path, *nodes: dict[str, Any]) -> Path:
    """A List of ``nodes`` (the published EKS node without any) as JSON on one line: test_cycle locates a refused
    label value at ``nodes.json:1:<column>``."""
    path.write_text(json.dumps(item_list(*(nodes or (real_node(),)))), encoding="utf-8")
    return path


def service(policies: Path, nodes: Path, pods: Path | None = None) -> Service:
    s = Service.of(policies, FileSource(str(nodes), str(pods) if pods else None, None, None), 60.0)
    s.log = io.StringIO()
    return s


def samples(text: bytes | str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Sample name → (labels, value) of an exposition, parsed by prometheus_client's own parser."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    raw = text.decode("utf-8") if isinstance(text, bytes) else text
    for family in text_string_to_metric_families(raw):
        for s in family.samples:
            out.setdefault(s.name, []).append((dict(s.labels), s.value))
    return out


def value(found: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    """The one sample of ``name`` whose labels include ``labels``."""
    matching = [v for got, v in found.get(name, []) if all(got.get(k) == x for k, x in labels.items())]
    assert len(matching) == 1, (name, labels, found.get(name))
    return matching[0]


def start_serve(*args: str, timeout: float = 30.0) -> tuple[subprocess.Popen[bytes], str]:
    """``allocatable serve ARGS --listen 127.0.0.1:0`` in a process of its own; (the process, its base URL) once it
    says where it listens. The caller stops it (``stop_serve``)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "renderer", "serve", *args, "--listen", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={k: v for k, v in os.environ.items() if k != "KUBERNETES_SERVICE_HOST"},
    )
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    seen = b""
    while time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stderr], [], [], 0.2)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            found = re.search(rb"listening on (http://127\.0\.0\.1:\d+)", seen)
            if found:
                return proc, found.group(1).decode()
    proc.kill()
    proc.wait(timeout=10)
    raise AssertionError(f"serve did not start: {seen.decode(errors='replace')}")


def stop_serve(proc: subprocess.Popen[bytes], timeout: float = 20.0) -> tuple[int, str]:
    """SIGTERM, then the exit code and the rest of stderr (killed past ``timeout``: a failure)."""
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate(timeout=10)
        raise AssertionError("serve did not stop within the timeout after SIGTERM") from None
    return proc.returncode, err.decode(errors="replace")


def get(url: str, method: str = "GET", timeout: float = 10.0) -> tuple[int, bytes]:
    """Status and body of one request on loopback."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def wait_ready(base: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if get(base + "/readyz")[0] == 200:
            return
        time.sleep(0.1)
    raise AssertionError(f"{base}/readyz did not answer 200 within {timeout} s")


#: The service account token the replayed API server expects (never a real one).
TOKEN = "eyJhbGciOiJSUzI1NiJ9.not-a-real-token.signature"
Answer = tuple[int, bytes, dict[str, str]]


@dataclass
class Replay:
    """What the loopback API server answers: ``paths[path](query)`` for a path it names, else ``answer(query)``,
    each ``(status, body, headers)``; every request is recorded (path, query, Authorization header)."""

    answer: Callable[[dict[str, str]], Answer]
    requests: list[tuple[str, dict[str, str], str | None]] = field(default_factory=list)
    paths: dict[str, Callable[[dict[str, str]], Answer]] = field(default_factory=dict)


def status(code: int, reason: str, message: str) -> bytes:
    """A Kubernetes API ``Status`` failure body, as the API server answers an error."""
    return json.dumps(
        {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message, "reason": reason, "code": code}
    ).encode()


@contextlib.contextmanager
def replay_server() -> Iterator[tuple[Replay, Callable[[Callable[[dict[str, str]], Answer]], str]]]:
    """A loopback HTTP server (127.0.0.1, a free port) standing in for the Kubernetes API server, which cannot run
    here: it replays recorded responses. Yields the replay and ``start(answer) -> base URL``; stopped on exit."""
    replay = Replay(lambda q: (500, b"", {}))

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = {k: v[0] for k, v in parse_qs(parts.query).items()}
            replay.requests.append((parts.path, query, self.headers.get("Authorization")))
            code, body, headers = replay.paths.get(parts.path, replay.answer)(query)
            self.send_response(code)
            headers = {"Content-Type": "application/json", "Content-Length": str(len(body)), **headers}
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            with contextlib.suppress(OSError):  # the client stopped reading (a bound it keeps)
                self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def start(answer: Callable[[dict[str, str]], Answer]) -> str:
        replay.answer = answer
        return f"http://127.0.0.1:{server.server_address[1]}"

    try:
        yield replay, start
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
