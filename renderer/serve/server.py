"""The HTTP side of serve: ``/metrics``, ``/healthz``, ``/readyz`` on the listen address, optionally over TLS.

- ``/metrics``: the status families (``renderer.serve.metrics.StatusCollector``, formatted now: a dozen samples and
  the process' own ``process_*``), then the bytes of the last good cycle as they were serialised then. A scrape never
  evaluates anything. Before the first good cycle only the status families are there.
- ``/healthz``: 200 while the loop is alive (a cycle started recently), else 503.
- ``/readyz``: 200 once a good cycle has been served, else 503 (the Service sends no scrape before).

GET and HEAD only; every other path is 404, every other method 405. Requests are bounded (the request line and
headers by ``http.server``, a connection idle 10 s is closed); nothing is logged per request (no client address,
no header: a bearer token a proxy forwards never reaches a log).

Cost: O(the kept bytes) a scrape.
"""

from __future__ import annotations

import ssl
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import CollectorRegistry

from renderer.serve.metrics import StatusCollector

if TYPE_CHECKING:
    from renderer.serve.service import Service

__all__ = ["MetricsServer", "parse_listen", "tls_context"]


def parse_listen(text: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT`` (every address) or ``[IPv6]:PORT``; ValueError with what is wrong."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isascii() or not port.isdigit() or len(port) > 5 or int(port) > 65535:
        raise ValueError(f"expected HOST:PORT, :PORT or [IPv6]:PORT with a port from 0 to 65535, got {text[:64]!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise ValueError(f"an IPv6 address goes in brackets: [{host}]:{port}")
    return host or "0.0.0.0", int(port)


class _Handler(BaseHTTPRequestHandler):
    server: MetricsServer
    timeout = 10
    protocol_version = "HTTP/1.1"
    server_version = "allocatable-serve"
    sys_version = ""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _answer(self, *, body: bool) -> None:
        path = self.path.split("?", 1)[0]
        service = self.server.service
        if path == "/metrics":
            self._send(HTTPStatus.OK, *self.server.scrape(), content_type=CONTENT_TYPE_LATEST, body=body)
        elif path == "/healthz":
            ok = service.healthy()
            status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
            self._send(status, b"ok\n" if ok else b"stalled\n", body=body)
        elif path == "/readyz":
            ok = service.ready
            status = HTTPStatus.OK if ok else HTTPStatus.SERVICE_UNAVAILABLE
            self._send(status, b"ok\n" if ok else b"no good cycle yet\n", body=body)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found: /metrics, /healthz, /readyz\n", body=body)

    def _send(self, status: HTTPStatus, *parts: bytes, content_type: str | None = None, body: bool = True) -> None:
        """The parts one after the other (the kept evaluation is written as it is: never copied per scrape)."""
        self.send_response(status)
        self.send_header("Content-Type", content_type or "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(sum(len(p) for p in parts)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        if body:
            for p in parts:
                self.wfile.write(p)

    def _refuse(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, b"method not allowed\n")

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def log_message(self, format: str, *args: Any) -> None:
        """Nothing per request (see the module's docstring)."""


class MetricsServer(ThreadingHTTPServer):
    """The listener; ``serve_forever`` in a thread of its own, ``shutdown`` from another."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], service: Service, tls: ssl.SSLContext | None = None) -> None:
        import socket

        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        if tls is not None:
            # The handshake happens in the request's own thread (on its first read), never in the accepting one.
            self.socket = tls.wrap_socket(self.socket, server_side=True, do_handshake_on_connect=False)
        self.service = service
        self.status = CollectorRegistry(auto_describe=False)
        self.status.register(StatusCollector(service))
        self.status.register(ProcessCollector(registry=None))
        self.thread: threading.Thread | None = None

    def scrape(self) -> tuple[bytes, ...]:
        """The status families, formatted now, then the last good cycle's bytes as they are."""
        evaluation = self.service.evaluation  # one reference: a cycle replacing it meanwhile does not tear it
        own = generate_latest(self.status)
        return (own, evaluation.text) if evaluation is not None else (own,)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        name = host.decode() if isinstance(host, bytes) else str(host)
        shown = f"[{name}]" if ":" in name else name
        return f"{'https' if isinstance(self.socket, ssl.SSLSocket) else 'http'}://{shown}:{port}"

    def start(self) -> None:
        self.thread = threading.Thread(target=self.serve_forever, name="allocatable-serve-http", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self.thread is not None:
            self.thread.join(timeout=10)


def tls_context(cert: str, key: str) -> ssl.SSLContext:
    """A server context for ``--tls-cert``/``--tls-key`` (TLS 1.2 or newer). Raises ``OSError``/``ssl.SSLError``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context
