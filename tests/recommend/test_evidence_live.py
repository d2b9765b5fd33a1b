"""OOM kills and memory stalls (PSI) against a real Prometheus (the Debian 2.42 server, TSDB blocks made by ``promtool
tsdb create-blocks-from openmetrics``): the ``oom_kills`` and ``memory_stall`` queries' answers, worked out by hand.

How ``increase()`` answers (Prometheus' ``extrapolatedRate``, promql/functions.go): over a window the samples span
86100 s of (a 5-minute scrape from 00:01 to 23:56), it extrapolates the raw increase to the window's edges when the
gaps to them (60 s and 240 s) are under 1.1 × the average interval (330 s), but never further back than where the
counter would have been zero. So a raw increase ``k`` answers ``k × 86400 / 86100`` (≈ ``k × 1.00348``), or ``k ×
86340 / 86100`` (≈ ``k × 1.00279``) when the day's first sample is 0 (the 60 s before it are cut). A rate of a
counter growing linearly at ``r`` is ``r``, whatever the window.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli
from renderer.promql import Selectors
from renderer.recommend.queries import QUERIES, by_name, queries
from support import fleet, prometheus

pytestmark = pytest.mark.external

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"
FIRST = fleet.END - (fleet.DAYS - 1) * 86400
DAY = 86400
FULL = 86400 / 86100  # extrapolated to the whole day
FROM_ZERO = 86340 / 86100  # the first sample is 0: not extrapolated before it


def _answer(url: str, promql: str) -> dict[tuple[str, str], list[float]]:
    body = json.loads(prometheus.query_range(url, promql, FIRST, fleet.END, DAY))
    out = {}
    for r in body["data"]["result"]:
        m = r["metric"]
        # every day evaluated at its end: the value at FIRST + k days is day k (2025-11-01 + k)
        out[(m["node"], m["id"])] = [float(v) for _, v in r["values"]]
    return out


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with prometheus.serve(list(fleet.series()), tmp_path_factory.mktemp("prometheus"), fleet.TYPES) as url:
        yield url


def test_oom_kills_per_scope_and_day_with_a_counter_reset(server: str) -> None:
    got = _answer(server, by_name()["oom_kills"].promql)
    zero = [0.0] * fleet.DAYS
    # gp-2: journald killed once at 12:31 on day 5; its counter was 0 all day before: 1 × 86340/86100
    expected_gp2 = zero.copy()
    expected_gp2[5] = FROM_ZERO
    # gp-3's pods: killed at 09:00 and 15:00 on day 2 (counter 0 at 00:01: 2 × 86340/86100); day 6: the kubelet
    # restarts at 06:00 (the count falls from 2 to 0: a reset, which increase() counts as no kill), then one kill at
    # 10:00. Raw increase = last − first + the value before the reset = 1 − 2 + 2 = 1; the day starts at 2 (not 0),
    # so extrapolated over the whole day: 1 × 86400/86100. A max − min reading would have said 2.
    expected_pods = zero.copy()
    expected_pods[2], expected_pods[6] = 2 * FROM_ZERO, FULL
    # node-exporter's vmstat oom_kill on gp-3 counts the same kills from 17 (no reset, never 0): × 86400/86100
    expected_all = zero.copy()
    expected_all[2], expected_all[6] = 2 * FULL, FULL
    assert got.keys() == {
        ("gp-1", "system"),
        ("gp-2", "system"),
        ("gp-3", "system"),
        ("gp-3", "pods"),
        ("gp-3", "all"),
    }  # no pods series on gp-1/gp-2: no pod container counter there; kubelet.service's zero counter on each node
    assert got[("gp-2", "system")] == pytest.approx(expected_gp2, rel=1e-9)
    assert got[("gp-1", "system")] == zero
    assert got[("gp-3", "pods")] == pytest.approx(expected_pods, rel=1e-9)
    assert got[("gp-3", "all")] == pytest.approx(expected_all, rel=1e-9)


def test_memory_stall_from_cadvisor_and_node_exporter(server: str) -> None:
    got = _answer(server, by_name()["memory_stall"].promql)
    for node in fleet.GENERAL:  # gp-1, gp-2 from cAdvisor's root cgroup, gp-3 from node-exporter through kube_pod_info
        for k, kind in enumerate(("some", "full")):
            # the planted counters grow at 0.01 (some) and 0.002 (full) s/s, at the plateau's share 12:00-12:30 on
            # the planted days: a 5m rate inside the plateau is that share, the day's largest
            expected = [fleet.STALLS.get((node, d), (0.01, 0.002))[k] for d in range(fleet.DAYS)]
            assert got[(node, kind)] == pytest.approx(expected, abs=1e-9), (node, kind)


def test_node_exporter_by_instance_reads_the_same(server: str) -> None:
    # kube-prometheus relabels node-exporter's instance to the node name (the fixture's instance="gp-3"): the other
    # way to find the node gives the same answers for gp-3
    instance = {q.name: q for q in queries(Selectors(node_exporter_node="instance"))}
    by_pod = _answer(server, by_name()["memory_stall"].promql)
    by_instance = _answer(server, instance["memory_stall"].promql)
    assert by_instance == by_pod
    assert _answer(server, instance["oom_kills"].promql)[("gp-3", "all")] == pytest.approx(
        [0, 0, 2 * FULL, 0, 0, 0, FULL, 0]
    )


def test_cadvisor_wins_where_both_answer_and_absent_series_are_said(tmp_path: Path) -> None:
    # one node with PSI from both sources (cAdvisor 0.30, node-exporter 0.90 "some"): `or` keeps cAdvisor's; one
    # node whose node-exporter pod is in no kube_pod_info: no node to join to, nothing answered for it; no OOM
    # series at all
    day = fleet.START + DAY  # day 0's end

    def counter(rate: float) -> list[tuple[int, float]]:
        return [(fleet.START + k * 150, round(100 + rate * k * 150, 6)) for k in range(577)]

    ne = {"job": "node-exporter", "namespace": "monitoring"}
    series = [
        (
            "container_pressure_memory_waiting_seconds_total",
            {**fleet.CADVISOR, "node": "a-1", "id": "/"},
            counter(0.30),
        ),
        ("node_pressure_memory_waiting_seconds_total", {**ne, "pod": "ne-a", "instance": "a-1"}, counter(0.90)),
        ("node_pressure_memory_waiting_seconds_total", {**ne, "pod": "ne-b", "instance": "b-1"}, counter(0.90)),
        (
            "kube_pod_info",
            {"job": "kube-state-metrics", "namespace": "monitoring", "pod": "ne-a", "node": "a-1"},
            [(fleet.START + k * 300, 1.0) for k in range(289)],
        ),
    ]
    types = {name: "counter" for name, _, _ in series if name.endswith("_total")}
    with prometheus.serve(series, tmp_path, types) as url:
        stall = json.loads(prometheus.query_range(url, by_name()["memory_stall"].promql, day, day, DAY))
        kills = json.loads(prometheus.query_range(url, by_name()["oom_kills"].promql, day, day, DAY))
    got = {(r["metric"]["node"], r["metric"]["id"]): float(r["values"][0][1]) for r in stall["data"]["result"]}
    assert got == pytest.approx({("a-1", "some"): 0.30})
    assert kills["data"]["result"] == []


def test_without_the_evidence_series_the_report_says_absent_and_advises_the_same(tmp_path: Path) -> None:
    # the worked example without its oom_kills and memory_stall exports: the same advice, the absence said (in the
    # pool's coverage and as a note), exit 0
    usage = sorted(p for p in (EXAMPLE / "usage").glob("*.json") if p.stem not in ("oom_kills", "memory_stall"))
    common = [str(EXAMPLE / "policies"), "--nodes", str(EXAMPLE / "nodes.json"), "--usage"]
    full = run_cli("recommend", *common, *sorted(str(p) for p in (EXAMPLE / "usage").glob("*.json")), "-o", "json")
    part = run_cli("recommend", *common, *map(str, usage), "-o", "json")
    assert (full.exit_code, part.exit_code) == (0, 0), part.stderr
    a, b = json.loads(full.stdout), json.loads(part.stdout)
    general = next(p for p in b["pools"] if p["name"] == "general")
    assert general["oomKills"] == [] and general["memoryStall"] == []
    assert [x.split(":")[0] for x in general["coverage"]["absent"]] == ["oom_kills", "memory_stall"]
    for pa, pb in zip(a["pools"], b["pools"], strict=True):
        assert pa["reservations"] == pb["reservations"]
        assert [c["recommendedPercent"] for c in pa["commit"]] == [c["recommendedPercent"] for c in pb["commit"]]
        # the memory percent's reasoning names the pod kills only where they were read
        for ca, cb in zip(pa["commit"], pb["commit"], strict=True):
            assert ca["reasoning"].startswith(cb["reasoning"])
            assert ("OOM-killed on 2 node-day(s)" in ca["reasoning"]) == (ca["resource"] == "memory")
    assert "oom_kills (optional evidence): no export read" in part.stderr
    assert len(QUERIES) == 8
