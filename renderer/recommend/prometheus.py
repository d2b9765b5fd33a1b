"""A Prometheus-compatible HTTP API asked the recommend queries (Prometheus, Thanos, Mimir, VictoriaMetrics, ...).

Each query is ``GET /api/v1/query_range`` at a step of one day over the window (the aggregation runs on the
server: a few numbers per node and day come back), read by the same streaming reader as an exported file; a query
with a subquery is asked one day at a time (the same evaluations: ``queries.one_day_at_a_time`` says why). Up to
``PARALLEL`` requests are in flight at once (the server evaluates each query on one core: with idle cores, a few at
once take about the longest one's time instead of the sum), each answer read into its own
:class:`~renderer.recommend.usage.Usage`, merged in the queries' order: the same result, and the same error when
several fail, as asking them one after another. Auth: a bearer token read from a file (re-read for every run, as
Kubernetes service-account tokens rotate), or basic auth (the password from a file or the environment variable
``ALLOCATABLE_PROMETHEUS_PASSWORD``, else the URL's own ``user:password@``; the URL's query parameters go with every
request); TLS with the system's CA bundle, a CA file, or no verification at all (``--insecure-skip-tls-verify``). Credentials are never printed: messages name the server by scheme, host and path
only.

Errors are one line: HTTP 401/403 (say which credential to check), an error JSON answer (the server's errorType and
error), a non-JSON answer (an HTML page from a proxy), a timeout. A timeout, a refused connection and HTTP 5xx/429
are retried (``retries`` times, waiting 1 s, 2 s, 4 s ...); a 4xx is not.

Cost: one request per query (per query and day for those with a subquery), ``PARALLEL`` at a time, each answer
streamed through the reader (memory as the reader's, one series at a time, per request in flight) into
O(nodes × cgroups × days). Measured (bench/recommend_live.py, docs/performance.md): the server's time is most of a
run's.
"""

from __future__ import annotations

import base64
import io
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from renderer.recommend.queries import DAY, Query, one_day_at_a_time
from renderer.recommend.source import UsageInputError, read_stream
from renderer.recommend.usage import Usage

__all__ = ["PARALLEL", "Server", "fetch"]

_T = TypeVar("_T")

#: Requests in flight at a time. The server evaluates each query on its own (one goroutine in Prometheus), so a few at
#: once use its cores instead of one; three keep the load a run puts on a shared server small (its default
#: --query.max-concurrency is 20).
PARALLEL = 3


@dataclass(frozen=True)
class Server:
    url: str
    bearer_token_file: str | None = None
    username: str | None = None
    password_file: str | None = None
    password: str | None = None
    ca_file: str | None = None
    insecure: bool = False
    timeout: float = 60.0
    retries: int = 2

    @property
    def has_userinfo(self) -> bool:
        """Whether the URL carries a user (and password): they are sent, never shown."""
        return urllib.parse.urlsplit(self.url).username is not None

    @property
    def shown(self) -> str:
        """The URL without credentials or query string."""
        parts = urllib.parse.urlsplit(self.url)
        host = parts.hostname or ""
        if parts.port:
            host += f":{parts.port}"
        return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def _read_secret(path: str, what: str) -> str:
    from renderer.safepath import FileProblem, read_regular

    try:
        return read_regular(path, 1 << 16).decode("utf-8").strip()
    except (FileProblem, UnicodeDecodeError) as exc:
        raise UsageInputError(f"{what} {path}: {exc}") from None


def _headers(server: Server) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": "allocatable-recommend"}
    if server.bearer_token_file:
        headers["Authorization"] = "Bearer " + _read_secret(server.bearer_token_file, "--bearer-token-file")
    elif server.username is not None:
        password = server.password or ""
        if server.password_file:
            password = _read_secret(server.password_file, "--password-file")
        token = base64.b64encode(f"{server.username}:{password}".encode()).decode("ascii")
        headers["Authorization"] = "Basic " + token
    elif (userinfo := _userinfo(server)) is not None:
        # the URL's own user and password (percent-decoded), as Go's net/http sends them, so promtool and curl take
        # the same URL; the flags above win, as an Authorization header set before wins there
        headers["Authorization"] = "Basic " + base64.b64encode(":".join(userinfo).encode()).decode("ascii")
    return headers


def _userinfo(server: Server) -> tuple[str, str] | None:
    parts = urllib.parse.urlsplit(server.url)
    if parts.username is None:
        return None
    return urllib.parse.unquote(parts.username), urllib.parse.unquote(parts.password or "")


def _check(server: Server) -> str:
    """What a 401 or 403 asks the user to check: the credential that went out."""
    if server.bearer_token_file:
        return "--bearer-token-file"
    if server.username is None and _userinfo(server) is not None:
        return "the user and password in the --prometheus URL"
    return "--username/--password-file"


def _context(server: Server) -> ssl.SSLContext | None:
    if not server.url.startswith("https:"):
        return None
    if server.insecure:
        ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return ctx
    try:
        return ssl.create_default_context(cafile=server.ca_file)
    except (OSError, ssl.SSLError) as exc:
        raise UsageInputError(f"--certificate-authority {server.ca_file}: {exc}") from None


def _base(server: Server) -> str:
    parts = urllib.parse.urlsplit(server.url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageInputError(
            f"--prometheus must be an http(s) URL such as http://prometheus:9090, got {server.shown!r}"
        )
    netloc = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    if parts.port:
        netloc += f":{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", ""))


def _get(server: Server, url: str, what: str, consume: Callable[[Callable[[int], bytes]], None]) -> None:
    """GET ``url`` and hand its body to ``consume`` as a reader, streamed (an error document, at most 1 MiB, too).
    A retry after a failure mid-body reads the answer again: the daily maxima it books are the same."""
    headers = _headers(server)
    context = _context(server)
    delay = 1.0
    for attempt in range(server.retries + 1):
        last = attempt == server.retries
        try:
            request = urllib.request.Request(url, headers=headers)
            with urllib.request.urlopen(request, timeout=server.timeout, context=context) as resp:
                consume(resp.read)
                return
        except urllib.error.HTTPError as exc:
            body = exc.read(1 << 20) if exc.fp is not None else b""
            if exc.code in (401, 403):
                check = _check(server)
                raise UsageInputError(
                    f"{server.shown}: {what}: HTTP {exc.code} {'unauthorized' if exc.code == 401 else 'forbidden'}; "
                    f"check {check}"
                ) from None
            if (exc.code >= 500 or exc.code == 429) and not last:
                time.sleep(delay)
                delay *= 2
                continue
            if body.lstrip().startswith(b"{"):
                consume(io.BytesIO(body).read)  # the API's error document: the reader says what it holds
                return
            raise UsageInputError(f"{server.shown}: {what}: HTTP {exc.code} {exc.reason}") from None
        except (TimeoutError, urllib.error.URLError, ConnectionError) as exc:
            reason = getattr(exc, "reason", exc)
            if not last:
                time.sleep(delay)
                delay *= 2
                continue
            kind = "timed out" if isinstance(reason, TimeoutError) or "timed out" in str(reason) else str(reason)
            raise UsageInputError(
                f"{server.shown}: {what}: {kind} after {server.retries + 1} attempt(s) (--timeout {server.timeout:g}s)"
            ) from None
    raise AssertionError("unreachable")


def _in_order(work: Callable[[_T], Usage], items: list[_T], width: int) -> Iterator[Usage]:
    """``work(item)`` for every item, ``width`` at a time on daemon threads, yielded in the items' order; the first
    failure in that order is raised. Daemon threads, not ``concurrent.futures``: after a failure or an interrupt
    (Ctrl-C, SIGTERM: raised in this, the main thread) nothing more is asked and the process ends at once instead of
    waiting for the requests in flight to time out."""
    results: list[tuple[Usage | None, BaseException | None]] = [(None, None)] * len(items)
    finished = [threading.Event() for _ in items]
    lock = threading.Lock()
    taken = [0]
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            with lock:
                i = taken[0]
                taken[0] += 1
            if i >= len(items):
                return
            try:
                results[i] = (work(items[i]), None)
            except BaseException as exc:  # handed to the main thread, raised there in order
                results[i] = (None, exc)
                stop.set()  # every request before this one is taken already: the first failure in order is known
            finished[i].set()

    for _ in range(max(1, min(width, len(items)))):
        threading.Thread(target=worker, name="recommend-query", daemon=True).start()
    try:
        for i in range(len(items)):
            finished[i].wait()
            part, exc = results[i]
            if exc is not None:
                raise exc
            assert part is not None
            yield part
    finally:
        stop.set()


def fetch(server: Server, queries: tuple[Query, ...], start: int, end: int, max_bytes: int) -> Usage:
    """Every query over [start, end] (Unix seconds, one-day steps) into one Usage. A query with a subquery is asked
    one day at a time (``one_day_at_a_time``: the same evaluations, a bounded peak on the server), the others over
    the whole window. At most ``PARALLEL`` requests are in flight; each answer is read into its own Usage, merged in
    the queries' (and days') order, so the result, and the error said when several fail, are those of asking them
    one after another."""
    base = _base(server)
    # the URL's own query parameters (a tenant, an access token a managed service takes there) go with every
    # request, never shown
    extra = urllib.parse.parse_qsl(urllib.parse.urlsplit(server.url).query, keep_blank_values=True)
    requests = [
        (q, first, last)
        for q in queries
        for first, last in ([(t, t) for t in range(start, end + 1, DAY)] if one_day_at_a_time(q) else [(start, end)])
    ]

    def one(request: tuple[Query, int, int]) -> Usage:
        q, first, last = request
        part = Usage()
        params = urllib.parse.urlencode([*extra, ("query", q.promql), ("start", first), ("end", last), ("step", DAY)])
        shown = f"{server.shown} ({q.name})"

        def consume(read: Callable[[int], bytes]) -> None:
            read_stream(part, shown, q, read, max_bytes)

        _get(server, f"{base}/api/v1/query_range?{params}", q.name, consume)
        return part

    usage = Usage()
    for part in _in_order(one, requests, PARALLEL):
        usage.merge(part)
    return usage
