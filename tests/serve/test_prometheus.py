"""A real Prometheus scrapes ``allocatable serve`` on loopback; and serve's memory over many cycles.

Prometheus is the Debian package (``/usr/bin/prometheus``, installed by .ci/run); the test is skipped with the reason
where it is missing (failed where tools are required: tests/support/tools.py). Both processes listen on 127.0.0.1 only and are
stopped by the test.
"""

from __future__ import annotations

import copy
import json
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from serve_support import (
    KUBE_RESERVED,
    NODE_NAME,
    POOL,
    get,
    real_node,
    samples,
    start_serve,
    stop_serve,
    value,
    wait_ready,
    write_nodes,
)

from support.factory import write_repo
from support.prometheus import running  # tests/support: the real Prometheus helper recommend's tests use too


def _query(base: str, promql: str) -> list[dict[str, Any]]:
    status, body = get(f"{base}/api/v1/query?query={urllib.parse.quote(promql)}")
    assert status == 200, body
    data = json.loads(body)
    assert data["status"] == "success", data
    return data["data"]["result"]  # type: ignore[no-any-return]


def _scraping(target: str) -> str:
    """A Prometheus configuration that scrapes serve at ``target`` every second."""
    config = {
        "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
        "scrape_configs": [
            {"job_name": "allocatable", "static_configs": [{"targets": [target.removeprefix("http://")]}]}
        ],
    }
    return json.dumps(config)


def _until(base: str, promql: str, timeout: float = 90.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = _query(base, promql)
        if found:
            return found
        time.sleep(0.5)
    raise AssertionError(f"Prometheus returned nothing for {promql} within {timeout} s")


@pytest.mark.external
@pytest.mark.slow
def test_prometheus_scrapes_serve_and_answers_queries(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})
    serve, target = start_serve(str(repo), "--nodes", str(write_nodes(tmp_path / "nodes.json")), "--interval", "1s")
    try:
        wait_ready(target)
        with running(tmp_path, _scraping(target), "--storage.tsdb.retention.time=1h", ready=60) as base:
            up = _until(base, 'up{job="allocatable"} == 1')
            assert up[0]["value"][1] == "1"
            # the hand-worked drift of tests/serve/test_cycle.py: cpu +0.43 cores, named policy-not-rolled-out
            drift = _until(base, 'allocatable_node_drift{resource="cpu"}')
            (series,) = drift
            assert series["metric"]["node"] == NODE_NAME and series["metric"]["pool"] == POOL
            assert series["metric"]["cause"] == "policy-not-rolled-out"
            assert float(series["value"][1]) == pytest.approx(0.43)
            info = _until(base, "allocatable_policy_info")
            assert info[0]["metric"]["digest"].startswith("sha256:")
            assert _until(base, 'allocatable_pool_nodes{state="drift"} == 1')
            assert _until(base, "allocatable_cycle_errors_total") != []
    finally:
        code, err = stop_serve(serve)
    assert code == 0, err


@pytest.mark.external
@pytest.mark.slow
def test_prometheus_scrapes_the_kubelet_config_drift(repo: Path, tmp_path: Path) -> None:
    """serve --configz with a saved configz (tests/serve/configz: the published one, test_configz.py's docstring)
    for the published node, under a policy reserving kubeReserved cpu and memory, which that configz does not set:
    Prometheus sees the two fields differ, the pool's one node in state drift, and no fetch error."""
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})
    saved = tmp_path / "configz"
    saved.mkdir()
    (saved / f"{NODE_NAME}.json").write_bytes((Path(__file__).parent / "configz/published-kubeadm.json").read_bytes())
    nodes = write_nodes(tmp_path / "nodes.json")
    serve, target = start_serve(
        str(repo), "--nodes", str(nodes), "--configz", "--configz-dir", str(saved), "--interval", "1s"
    )
    try:
        wait_ready(target)
        with running(tmp_path, _scraping(target), "--storage.tsdb.retention.time=1h", ready=60) as base:
            drift = _until(base, "allocatable_node_config_drift == 1")
            assert sorted(s["metric"]["field"] for s in drift) == ["kubeReserved.cpu", "kubeReserved.memory"]
            assert {(s["metric"]["node"], s["metric"]["pool"]) for s in drift} == {(NODE_NAME, POOL)}
            assert _until(base, 'allocatable_pool_config_nodes{state="drift"} == 1')
            (errors,) = _until(base, "allocatable_configz_fetch_errors")
            assert errors["value"][1] == "0"
    finally:
        code, err = stop_serve(serve)
    assert code == 0, err


def _fleet(n: int) -> list[dict[str, Any]]:
    """``n`` copies of the published node under made-up names (the figures stay the published node's)."""
    base = real_node()
    out = []
    for i in range(n):
        node = copy.deepcopy(base)
        name = f"ip-10-0-{i // 250}-{i % 250}.ec2.internal"
        node["metadata"]["name"] = name
        node["metadata"]["labels"]["kubernetes.io/hostname"] = name
        out.append(node)
    return out


@pytest.mark.slow
def test_memory_stays_flat_over_many_cycles(repo: Path, tmp_path: Path) -> None:
    """100 cycles of a 50-node fleet in one serve process: the resident set after cycle 120 is within 8 MiB (and
    5 %) of what it was after cycle 20 (the first cycles warm caches: interned quantities, compiled validators)."""
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})  # every node drifts: the cause search runs for each, every cycle
    nodes = write_nodes(tmp_path / "nodes.json", *_fleet(50))
    proc, target = start_serve(str(repo), "--nodes", str(nodes), "--interval", "10ms")
    try:
        wait_ready(target)

        def at_cycle(n: int) -> float:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                found = samples(get(target + "/metrics")[1])
                if value(found, "allocatable_cycles_total") >= n:
                    assert value(found, "allocatable_pool_nodes", pool=POOL, state="drift") == 50
                    assert sum(v for _, v in found["allocatable_cycle_errors_total"]) == 0
                    return value(found, "process_resident_memory_bytes")
                time.sleep(0.05)
            raise AssertionError(f"serve did not reach cycle {n} in 300 s")

        warm = at_cycle(20)
        later = at_cycle(120)
    finally:
        code, err = stop_serve(proc)
    assert code == 0, err
    grown = later - warm
    print(f"RSS after cycle 20: {warm / 2**20:.1f} MiB, after cycle 120: {later / 2**20:.1f} MiB")
    assert grown <= max(8 << 20, 0.05 * warm), f"RSS grew by {grown / 2**20:.1f} MiB over 100 cycles"
