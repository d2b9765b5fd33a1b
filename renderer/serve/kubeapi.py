"""In-cluster reading: ``GET /api/v1/nodes`` (and pods) through the pod's service account, page by page.

Plain HTTP (``http.client`` and ``ssl`` of the standard library), not the ``kubernetes`` client: serve makes one
kind of request — a paged ``list`` with a bearer token, checked against the cluster's CA — and needs the response as
bytes, bounded while it is read, for the same reader every ``--nodes`` dump goes through
(``renderer.verify.snapshot``). The client would deserialise every Node into its own model objects first, add
urllib3, google-auth and their imports to the image and to every start, and its value (kubeconfig, exec credential
plugins, proxies) is what kubectl already gives serve outside a cluster (``renderer.verify.kubectl``). See
docs/serve.md, "Why plain HTTP".

Where, as the client libraries and client-go's ``rest.InClusterConfig`` find it: ``KUBERNETES_SERVICE_HOST`` and
``KUBERNETES_SERVICE_PORT``, the token ``/var/run/secrets/kubernetes.io/serviceaccount/token`` (read again for every
list: bound service-account tokens are rotated) and the CA ``.../ca.crt``.

Paging as ``kubectl get`` pages (``limit=500`` and the ``continue`` token of each page's ``metadata``); an expired
token (410 Gone) starts the list again once. Errors the server may get over (429, 500, 502, 503, 504, a refused or
reset connection, a timeout) are retried with a doubling backoff (``Retry-After`` honoured up to 30 s), stopped at once
by ``stop``; 401 and 403 are not retried. Every response is bounded (``max_bytes`` a page, 64 KiB of an error's body,
at most ``MAX_PAGES`` pages, a ``continue`` token at most 4 KiB and never the same twice). A problem is one line,
``ApiError``, that never holds the token.

Cost: one connection per list; memory O(one page).
"""

from __future__ import annotations

import http.client
import json
import os
import ssl
import threading
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from renderer.errors import UserError
from renderer.escaping import plain

__all__ = ["CA_FILE", "MAX_PAGES", "SERVICE_ACCOUNT", "TOKEN_FILE", "ApiError", "Endpoint", "get_one", "list_pages"]

SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_FILE = f"{SERVICE_ACCOUNT}/token"
CA_FILE = f"{SERVICE_ACCOUNT}/ca.crt"
#: Pages of one list at most (500 objects a page: five million objects).
MAX_PAGES = 10_000
_ERROR_BYTES = 64 << 10
_TOKEN_BYTES = 64 << 10
_CONTINUE_BYTES = 4096
_RETRIED = frozenset({429, 500, 502, 503, 504})
_RETRY_AFTER_CAP = 30.0


class ApiError(UserError):
    """A list that failed: one line saying what and what to do (never the token)."""


@dataclass(frozen=True)
class Endpoint:
    """The API server and how to authenticate to it."""

    #: ``https://HOST:PORT`` (``http://`` only for a loopback test server).
    base: str
    token_file: str | None = TOKEN_FILE
    ca_file: str | None = CA_FILE
    #: Seconds a request may wait for the connection or a read.
    timeout: float = 30.0
    page_size: int = 500
    #: The most bytes of one page.
    max_bytes: int = 256 << 20
    #: Tries of a request the server may get over (the first included).
    attempts: int = 4
    #: Seconds before the first retry; doubled for each next one.
    backoff: float = 1.0

    @classmethod
    def in_cluster(cls, environ: dict[str, str] | None = None, **options: Any) -> Endpoint:
        """The API server of the cluster this pod runs in; ``ApiError`` when not in a pod."""
        env = os.environ if environ is None else environ
        host, port = env.get("KUBERNETES_SERVICE_HOST", ""), env.get("KUBERNETES_SERVICE_PORT", "")
        if not host or not port:
            raise ApiError(
                "not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set): "
                "read the nodes with --live (kubectl) or --nodes FILE"
            )
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"  # an IPv6 service address
        return cls(base=f"https://{host}:{port}", **options)


def list_pages(
    ep: Endpoint, path: str, query: dict[str, str] | None = None, stop: threading.Event | None = None
) -> Iterator[tuple[int, bytes]]:
    """Each page of the list at ``path`` (``/api/v1/nodes``), numbered from 1, as the server sent it. Raises
    ``ApiError``."""
    restarted = False
    while True:
        try:
            yield from _pages(ep, path, query or {}, stop)
            return
        except _Expired:
            if restarted:
                raise ApiError(
                    f"GET {path}: the list's continue token expired twice (410 Gone): the list changes faster than "
                    "it can be read; raise the page size or the interval"
                ) from None
            restarted = True


def get_one(ep: Endpoint, path: str, stop: threading.Event | None = None) -> bytes:
    """The body of one ``GET path`` (no paging: ``/api/v1/nodes/NAME/proxy/configz``), at most ``ep.max_bytes``,
    with ``ep.attempts`` tries and ``ep.timeout`` for the connection and each read. Raises ``ApiError``."""
    url = urllib.parse.urlsplit(ep.base)
    conn = _connection(ep, url)
    try:
        return _get(ep, conn, path, f"{url.path.rstrip('/')}{path}", stop, 0)
    finally:
        conn.close()


class _Expired(Exception):
    """410 Gone for a continue token: the list starts again."""


def _pages(ep: Endpoint, path: str, query: dict[str, str], stop: threading.Event | None) -> Iterator[tuple[int, bytes]]:
    url = urllib.parse.urlsplit(ep.base)
    conn = _connection(ep, url)
    token_seen: set[str] = set()
    token: str | None = None
    try:
        for page in range(1, MAX_PAGES + 1):
            params = {**query, "limit": str(ep.page_size)}
            if token:
                params["continue"] = token
            target = f"{url.path.rstrip('/')}{path}?{urllib.parse.urlencode(params)}"
            body = _get(ep, conn, path, target, stop, page)
            yield page, body
            token = _continue_token(body, path, page)
            if not token:
                return
            if token in token_seen:
                raise ApiError(f"GET {path}: page {page} repeats an earlier continue token: the server loops")
            token_seen.add(token)
        raise ApiError(f"GET {path}: more than {MAX_PAGES} pages: refusing to read on")
    finally:
        conn.close()


def _connection(ep: Endpoint, url: urllib.parse.SplitResult) -> http.client.HTTPConnection:
    host = url.hostname or ""
    if url.scheme == "https":
        try:
            context = ssl.create_default_context(cafile=ep.ca_file) if ep.ca_file else ssl.create_default_context()
        except (OSError, ssl.SSLError) as exc:  # an unmounted service account, a CA file that holds no certificate
            raise ApiError(
                f"cannot use the cluster CA {ep.ca_file}: {getattr(exc, 'strerror', None) or exc}; mount the service "
                "account (automountServiceAccountToken: true)"
            ) from None
        return http.client.HTTPSConnection(host, url.port or 443, timeout=ep.timeout, context=context)
    if url.scheme == "http":
        return http.client.HTTPConnection(host, url.port or 80, timeout=ep.timeout)
    raise ApiError(f"the API server address {plain(ep.base)!r} is not http(s)://HOST:PORT")


def _bearer(ep: Endpoint) -> str | None:
    if ep.token_file is None:
        return None
    try:
        with open(ep.token_file, "rb") as f:
            raw = f.read(_TOKEN_BYTES + 1)
    except OSError as exc:
        raise ApiError(
            f"cannot read the service account token {ep.token_file}: {exc.strerror or exc}; mount the service "
            "account token (automountServiceAccountToken: true)"
        ) from None
    token = raw.decode("ascii", "replace").strip()
    if not token or len(raw) > _TOKEN_BYTES or any(c in token for c in "\r\n\x00"):
        raise ApiError(f"the service account token {ep.token_file} is empty or not one line of text")
    return token


def _get(
    ep: Endpoint, conn: http.client.HTTPConnection, path: str, target: str, stop: threading.Event | None, page: int
) -> bytes:
    """One page, with retries for the errors the server may get over."""
    delay = ep.backoff
    for attempt in range(1, ep.attempts + 1):
        headers = {"Accept": "application/json", "User-Agent": "allocatable-serve"}
        bearer = _bearer(ep)
        if bearer is not None:
            headers["Authorization"] = f"Bearer {bearer}"
        failure: str
        wait = delay
        try:
            conn.request("GET", target, headers=headers)
            resp = conn.getresponse()
            status = resp.status
            if status == 200:
                return _body(resp, ep.max_bytes, path, page)
            detail = _error_detail(resp)
            if status == 410 and page > 1:
                raise _Expired
            if status not in _RETRIED:
                raise ApiError(_status_line(path, status, resp.reason, detail))
            failure = _status_line(path, status, resp.reason, detail)
            wait = _retry_after(resp.getheader("Retry-After"), delay)
        except (ConnectionError, TimeoutError, http.client.HTTPException, OSError) as exc:
            if isinstance(exc, ssl.SSLCertVerificationError):
                raise ApiError(
                    f"GET {path}: the API server's certificate does not verify against {ep.ca_file}: "
                    f"{plain(exc.verify_message or str(exc))}"
                ) from None
            conn.close()
            failure = f"GET {path}: {plain(type(exc).__name__)}: {plain(str(exc))[:200]}"
        if attempt == ep.attempts:
            raise ApiError(f"{failure} (after {ep.attempts} tries)")
        if stop is not None and stop.wait(wait):
            raise ApiError(f"{failure} (stopped while waiting to retry)")
        if stop is None:
            threading.Event().wait(wait)
        delay *= 2
    raise AssertionError("unreachable")  # pragma: no cover


def _retry_after(value: str | None, default: float) -> float:
    if value is not None and value.strip().isdigit():
        return min(float(value.strip()), _RETRY_AFTER_CAP)
    return default


def _body(resp: http.client.HTTPResponse, limit: int, path: str, page: int) -> bytes:
    what = f"page {page}" if page else "the response"  # page 0: one GET, no list
    length = resp.getheader("Content-Length")
    if length is not None and length.strip().isdigit() and int(length) > limit:
        resp.close()
        raise ApiError(f"GET {path}: {what} is {int(length)} bytes, more than the {limit} allowed")
    chunks: list[bytes] = []
    kept = 0
    while True:
        chunk = resp.read(1 << 20)
        if not chunk:
            return b"".join(chunks)
        kept += len(chunk)
        if kept > limit:
            resp.close()
            raise ApiError(f"GET {path}: {what} is more than the {limit} bytes allowed")
        chunks.append(chunk)


def _error_detail(resp: http.client.HTTPResponse) -> str:
    """The ``message`` of a ``Status`` body (or the start of the body), one line, at most 300 characters."""
    raw = resp.read(_ERROR_BYTES)
    resp.close()
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        text = data["message"]
    return plain(" ".join(text.split()))[:300]


def _status_line(path: str, status: int, reason: str, detail: str) -> str:
    head = f"GET {path}: {status} {plain(reason)[:60]}" + (f": {detail}" if detail else "")
    if status == 401:
        return f"{head}; the service account token was refused: is it expired, or for another cluster?"
    if status == 403 and "/proxy/" in path:
        return (
            f"{head}; the service account may not get nodes/proxy: render the monitoring target with "
            "render.monitoring.configz: true (docs/serve.md#kubelet-configuration-configz)"
        )
    if status == 403:
        return (
            f"{head}; the service account may not list this: bind it to the read-only ClusterRole "
            "(`allocatable render --target monitoring`, docs/serve.md#rbac)"
        )
    return head


def _continue_token(page: bytes, path: str, number: int) -> str | None:
    """``metadata.continue`` of a List page. The API server writes ``kind``, ``apiVersion`` and ``metadata`` before
    ``items``, so only what comes before ``"items"`` is decoded; a page laid out otherwise is decoded whole."""
    meta: Any = None
    cut = page.find(b'"items"')
    if cut > 0:
        head = page[:cut].rstrip().rstrip(b",") + b"}"
        try:
            meta = json.loads(head).get("metadata")
        except (ValueError, AttributeError):
            meta = None
    if meta is None:
        try:
            whole = json.loads(page)
        except ValueError:
            return None  # not JSON: the reader reports where
        meta = whole.get("metadata") if isinstance(whole, dict) else None
    token = meta.get("continue") if isinstance(meta, dict) else None
    if token is None or token == "":
        return None
    if not isinstance(token, str) or len(token) > _CONTINUE_BYTES:
        raise ApiError(f"GET {path}: page {number} has a metadata.continue that is not a token of at most 4 KiB")
    return token
