"""A planted fleet: raw series as kube-prometheus-stack would scrape them, whose daily statistics are known by
construction (the reasoning is written beside each number), for ``recommend``'s tests and its worked example
(docs/examples/recommend/, exported from a real Prometheus holding these series: tests/recommend/test_live.py).

Eight days, 2025-11-01 to 2025-11-08 (UTC). Memory gauges are sampled every 5 minutes from 00:01, cpu counters every
150 s (so a ``rate(...[5m])`` window always holds two samples). Every planted gauge peak sits at 12:01; at every
other sample a gauge is at 70 % of its day's peak, so the daily maximum is the planted value exactly. No gauge is
sampled at midnight: a range query's day is (t - 1d, t], so a sample at exactly midnight would count for the day
before.

Pool ``general`` (nodes gp-1, gp-2, gp-3; systemd layout: kubelet.service and containerd.service under
/system.slice):

- running pods of node n on day d (d = 0..7): ``pods = 12 + 6n + 2(d mod 4)`` → 18..36 (gp-3 on days 3 and 7: 36).
- kubelet.service working set: ``120Mi + 3Mi × pods``; containerd.service: ``60Mi + 1Mi × pods``; so kube memory is
  exactly ``180Mi + 4Mi × pods`` on every node-day (slope 4Mi, base 180Mi, R² 1).
- /system.slice holds both services plus 150Mi of other daemons, 400Mi on gp-2 on day 5 (2025-11-06).
- cpu (cores, a plateau 11:30–12:30, a tenth of it otherwise): kubelet 0.12, containerd 0.05, other daemons 0.03
  (0.20 on gp-1 on day 3, 2025-11-04).
- pods (/kubepods.slice): memory peak 14Gi (70 % of it otherwise) against 20Gi of memory requests; cpu 1.5 cores
  08:00–20:00 (gp-3: 1.8), 0.5 otherwise, and one 5-minute spike of 5 cores at 12:00–12:05, against 6 cores of
  requests.

- MemoryPressure (kube-state-metrics' node condition): gp-2 on day 5, the day its daemons peaked at 400Mi.

- MemoryPressure (kube-state-metrics' node condition): gp-2 on day 5, the day its daemons peaked at 400Mi.

Pool ``batch``: node bt-1, only the last 3 days (2025-11-06 to 08): too little data. Node stray-1: running pods only,
in no pool.
"""

from __future__ import annotations

from collections.abc import Iterator

MI = 1 << 20
GI = 1 << 30
DAY = 86400
#: 2025-11-01T00:00:00Z
START = 1761955200
DAYS = 8
END = START + DAYS * DAY  # 2025-11-09T00:00:00Z: the last evaluation of an 8-day window at daily steps

CADVISOR = {"job": "kubelet", "metrics_path": "/metrics/cadvisor"}
KUBELET = {"job": "kubelet", "metrics_path": "/metrics"}
KSM = {"job": "kube-state-metrics", "namespace": "all", "pod": "all", "container": "all"}

GENERAL = ("gp-1", "gp-2", "gp-3")


def pods(n: int, d: int) -> int:
    return 12 + 6 * n + 2 * (d % 4)


def other_memory(node: str, d: int) -> int:
    return 400 * MI if (node, d) == ("gp-2", 5) else 150 * MI


def other_cpu(node: str, d: int) -> float:
    return 0.20 if (node, d) == ("gp-1", 3) else 0.03


def _gauge(peaks: dict[int, float], days: range) -> list[tuple[int, float]]:
    """Every 5 minutes of ``days`` from 00:01: the day's peak at 12:01, 70 % of it otherwise."""
    out = []
    for d in days:
        for k in range(288):
            t = START + d * DAY + k * 300 + 60
            out.append((t, peaks[d] if k == 144 else round(peaks[d] * 0.7)))
    return out


def _counter(rate_at: object, days: range) -> list[tuple[int, float]]:
    """A cpu-seconds counter sampled every 150 s whose slope over [t, t+150) is ``rate_at(d, seconds of day)``."""
    out = []
    value = 1000.0
    for d in days:
        for k in range(576):
            s = k * 150
            out.append((START + d * DAY + s, round(value, 6)))
            value += rate_at(d, s) * 150  # type: ignore[operator]
    return out


def _plateau(peak: float) -> object:
    return lambda d, s: peak if 11.5 * 3600 <= s < 12.5 * 3600 else peak / 10


def series() -> Iterator[tuple[str, dict[str, str], list[tuple[int, float]]]]:
    every = range(DAYS)
    for n, node in enumerate(GENERAL, start=1):
        c = {**CADVISOR, "node": node}
        kubelet = {d: 120 * MI + 3 * MI * pods(n, d) for d in every}
        runtime = {d: 60 * MI + 1 * MI * pods(n, d) for d in every}
        system = {d: kubelet[d] + runtime[d] + other_memory(node, d) for d in every}
        yield "container_memory_working_set_bytes", {**c, "id": "/system.slice/kubelet.service"}, _gauge(kubelet, every)
        yield (
            "container_memory_working_set_bytes",
            {**c, "id": "/system.slice/containerd.service"},
            _gauge(runtime, every),
        )
        yield "container_memory_working_set_bytes", {**c, "id": "/system.slice"}, _gauge(system, every)
        yield (
            "container_memory_working_set_bytes",
            {**c, "id": "/kubepods.slice"},
            _gauge({d: 14 * GI for d in every}, every),
        )
        yield "kubelet_running_pods", {**KUBELET, "node": node}, _gauge({d: pods(n, d) for d in every}, every)
        yield (
            "container_cpu_usage_seconds_total",
            {**c, "id": "/system.slice/kubelet.service"},
            _counter(_plateau(0.12), every),
        )
        yield (
            "container_cpu_usage_seconds_total",
            {**c, "id": "/system.slice/containerd.service"},
            _counter(_plateau(0.05), every),
        )

        def system_rate(d: int, s: int, node: str = node) -> float:
            p = 11.5 * 3600 <= s < 12.5 * 3600
            return (0.12 + 0.05 + other_cpu(node, d)) if p else (0.12 + 0.05 + other_cpu(node, d)) / 10

        yield "container_cpu_usage_seconds_total", {**c, "id": "/system.slice"}, _counter(system_rate, every)
        plateau = 1.8 if node == "gp-3" else 1.5

        def pods_rate(d: int, s: int, plateau: float = plateau) -> float:
            if 12 * 3600 <= s < 12 * 3600 + 300:
                return 5.0
            return plateau if 8 * 3600 <= s < 20 * 3600 else 0.5

        yield "container_cpu_usage_seconds_total", {**c, "id": "/kubepods.slice"}, _counter(pods_rate, every)
        pressure = {d: 1 if (node, d) == ("gp-2", 5) else 0 for d in every}
        yield (
            "kube_node_status_condition",
            {"job": "kube-state-metrics", "node": node, "condition": "MemoryPressure", "status": "true"},
            _gauge(pressure, every),
        )
        yield (
            "kube_pod_container_resource_requests",
            {**KSM, "node": node, "resource": "cpu", "unit": "core"},
            [(t, 6.0) for t, _ in _gauge({d: 1 for d in every}, every)],
        )
        yield (
            "kube_pod_container_resource_requests",
            {**KSM, "node": node, "resource": "memory", "unit": "byte"},
            [(t, float(20 * GI)) for t, _ in _gauge({d: 1 for d in every}, every)],
        )
    late = range(DAYS - 3, DAYS)
    c = {**CADVISOR, "node": "bt-1"}
    yield "container_memory_working_set_bytes", {**c, "id": "/system.slice"}, _gauge({d: 500 * MI for d in late}, late)
    yield (
        "container_memory_working_set_bytes",
        {**c, "id": "/system.slice/kubelet.service"},
        _gauge({d: 200 * MI for d in late}, late),
    )
    yield (
        "container_memory_working_set_bytes",
        {**c, "id": "/system.slice/containerd.service"},
        _gauge({d: 100 * MI for d in late}, late),
    )
    yield "kubelet_running_pods", {**KUBELET, "node": "stray-1"}, _gauge({d: 5 for d in every}, every)


TYPES = {"container_cpu_usage_seconds_total": "counter"}
