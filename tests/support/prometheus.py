"""A real Prometheus server for tests: one holding the series a test writes (recommend's tests), or one scraping what
a test starts (serve's tests): ``running(tmp, config)``, shared by both.

``serve(series, tmp)`` writes the series as OpenMetrics text, turns them into TSDB blocks with ``promtool tsdb
create-blocks-from openmetrics FILE DIR`` (the Debian ``prometheus`` package ships both binaries), starts
``prometheus --storage.tsdb.path=DIR --web.listen-address=127.0.0.1:PORT`` with an empty scrape configuration on a
free loopback port, waits (bounded) for ``/-/ready``, and stops it when the test is done. The retention is set far
beyond the fixture's timestamps (blocks older than the retention would be deleted at once), and the timestamps must
lie in the past (promtool refuses samples from the future of the blocks it cuts? no: the server's head would).

Skipped with the reason (failed where tools are required: ``tests/support/tools.py``) when a binary is missing.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from support import tools

#: (metric name, labels, [(unix seconds, value), ...])
Series = tuple[str, dict[str, str], Sequence[tuple[int, float]]]


def openmetrics(series: Sequence[Series], types: dict[str, str] | None = None) -> str:
    """The OpenMetrics text of ``series`` (``types``: metric name → counter|gauge; gauge by default)."""
    lines: list[str] = []
    by_name: dict[str, list[Series]] = {}
    for s in series:
        by_name.setdefault(s[0], []).append(s)
    for name in sorted(by_name):
        kind = (types or {}).get(name, "gauge")
        family = name[: -len("_total")] if kind == "counter" and name.endswith("_total") else name
        lines.append(f"# TYPE {family} {kind}")
        for _, labels, samples in by_name[name]:
            text = ",".join(f'{k}="{v}"' for k, v in sorted(labels.items()))
            lines.extend(f"{name}{{{text}}} {value!r} {t}" for t, value in samples)
    lines.append("# EOF")
    return "\n".join(lines) + "\n"


def free_port() -> int:
    """A port free on 127.0.0.1 now (the server binds it next)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def running(tmp: Path, config: str, *flags: str, data: Path | None = None, ready: float = 30.0) -> Iterator[str]:
    """``prometheus`` with the configuration text ``config`` (YAML or JSON) and storage ``data`` (``tmp/tsdb``,
    created, by default) on a free loopback port, ``flags`` added; waits at most ``ready`` seconds for ``/-/ready``,
    yields its base URL and stops it (SIGTERM, then SIGKILL past 10 s) when the block ends. Its log is
    ``tmp/prometheus.log``, quoted when it does not get ready."""
    prometheus = tools.find("prometheus", how="apt-get install prometheus")
    if data is None:
        data = tmp / "tsdb"
        data.mkdir()
    path = tmp / "prometheus.yml"
    path.write_text(config, encoding="utf-8")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = (tmp / "prometheus.log").open("w")
    proc = subprocess.Popen(
        [
            prometheus,
            f"--config.file={path}",
            f"--storage.tsdb.path={data}",
            f"--web.listen-address=127.0.0.1:{port}",
            *flags,
        ],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + ready
        while True:
            try:
                with urllib.request.urlopen(url + "/-/ready", timeout=2) as resp:
                    if resp.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                raise AssertionError("prometheus did not get ready: " + (tmp / "prometheus.log").read_text()[-2000:])
            time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        log.close()


@contextmanager
def serve(series: Sequence[Series], tmp: Path, types: dict[str, str] | None = None) -> Iterator[str]:
    """A running server holding ``series`` (no scrapes); yields its base URL."""
    promtool = tools.find("promtool", how="apt-get install prometheus (it ships promtool)")
    source = tmp / "series.om"
    source.write_text(openmetrics(series, types), encoding="utf-8")
    data = tmp / "tsdb"
    data.mkdir()
    done = subprocess.run(
        [promtool, "tsdb", "create-blocks-from", "openmetrics", str(source), str(data)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    flags = ("--storage.tsdb.retention.time=100y", "--query.lookback-delta=5m")
    with running(tmp, "scrape_configs: []\n", *flags, data=data) as url:
        yield url


def query_range(url: str, query: str, start: int, end: int, step: int) -> bytes:
    """The server's own ``/api/v1/query_range`` response body (what an exported file holds)."""
    params = urllib.parse.urlencode({"query": query, "start": start, "end": end, "step": step})
    with urllib.request.urlopen(f"{url}/api/v1/query_range?{params}", timeout=30) as resp:
        body: bytes = resp.read()
    assert json.loads(body)["status"] == "success"
    return body
