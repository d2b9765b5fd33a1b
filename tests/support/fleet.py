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
- OOM kills (cAdvisor's ``container_oom_events_total``, counted on the killed process' cgroup; every general node
  has a zero counter for kubelet.service): on gp-2 one kill in ``/system.slice/systemd-journald.service`` at 12:31
  on day 5 (2025-11-06, the day its daemons exceeded the reservation); on gp-3 a pod's container killed at 09:00
  and 15:00 on day 2 (2025-11-03), then the kubelet restarts at 06:00 on day 6 (cAdvisor's count starts again at
  0: a counter reset) and the container is killed once more at 10:00 (2025-11-07). node-exporter's
  ``node_vmstat_oom_kill`` on gp-3 counts the same three kills (from 17 since boot; it has no reset).
- Memory PSI (seconds counters sampled every 150 s): gp-1 and gp-2 from the kubelet's cAdvisor (root cgroup
  ``id="/"``), gp-3 from node-exporter only (its kubelet without KubeletPSI), joined to its node through
  ``kube_pod_info`` (pod ``monitoring/node-exporter-x7k2p``; its ``instance`` is the node name, as kube-prometheus
  relabels it). Stalled shares "some"/"full": 0.01/0.002 all the time, but 12:00–12:30 of gp-2's day 5 0.72/0.41,
  of gp-3's day 3 (2025-11-04) 0.65/0.20, and of gp-1's day 1 (2025-11-02) 0.55/0.30 (under systemd-oomd's 60 %).

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


#: node-exporter as kube-prometheus-stack scrapes it: the namespace and pod of its target, instance relabeled to the
#: node name
NODE_EXPORTER = {"job": "node-exporter", "namespace": "monitoring", "pod": "node-exporter-x7k2p", "instance": "gp-3"}


def _steps(value_at: object, days: range) -> list[tuple[int, float]]:
    """A counter sampled as the gauges are (every 5 minutes from 00:01) whose value is ``value_at(d, seconds)``."""
    return [(START + d * DAY + k * 300 + 60, float(value_at(d, k * 300 + 60))) for d in days for k in range(288)]  # type: ignore[operator]


def journald_kills(d: int, s: int) -> int:
    return 1 if (d, s) >= (5, 12 * 3600 + 1860) else 0


def pod_kills(d: int, s: int) -> int:
    """gp-3's container: killed at 09:00 and 15:00 on day 2; the kubelet restarts at 06:00 on day 6 (count 0 again),
    killed at 10:00 that day."""
    if d > 6 or (d == 6 and s >= 6 * 3600):
        return 1 if (d, s) >= (6, 10 * 3600) else 0
    return sum(1 for t in ((2, 9 * 3600), (2, 15 * 3600)) if (d, s) >= t)


def vmstat_kills(d: int, s: int) -> int:
    return 17 + sum(1 for t in ((2, 9 * 3600), (2, 15 * 3600), (6, 10 * 3600)) if (d, s) >= t)


#: (node, day) → the PSI "some" and "full" shares 12:00–12:30 (0.01 and 0.002 at any other time)
STALLS = {("gp-2", 5): (0.72, 0.41), ("gp-3", 3): (0.65, 0.20), ("gp-1", 1): (0.55, 0.30)}


def _stall(node: str, kind: int) -> object:
    def rate(d: int, s: int) -> float:
        if 12 * 3600 <= s < 12.5 * 3600 and (node, d) in STALLS:
            return STALLS[(node, d)][kind]
        return (0.01, 0.002)[kind]

    return rate


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
        yield "container_oom_events_total", {**c, "id": "/system.slice/kubelet.service"}, _steps(lambda d, s: 0, every)
        if node == "gp-2":
            journald = {**c, "id": "/system.slice/systemd-journald.service"}
            yield "container_oom_events_total", journald, _steps(journald_kills, every)
        if node == "gp-3":
            scope = (
                "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod3f1c.slice/cri-containerd-9a7e.scope"
            )
            yield "container_oom_events_total", {**c, "id": scope}, _steps(pod_kills, every)
            yield "node_vmstat_oom_kill", NODE_EXPORTER, _steps(vmstat_kills, every)
            for kind, psi in ((0, "waiting"), (1, "stalled")):
                yield f"node_pressure_memory_{psi}_seconds_total", NODE_EXPORTER, _counter(_stall(node, kind), every)
            pod_info = {
                "job": "kube-state-metrics",
                "namespace": "monitoring",
                "pod": "node-exporter-x7k2p",
                "node": "gp-3",
                "host_ip": "10.0.3.7",
                "uid": "5b0c2a8e-2f8d-4a43-9d0e-0d1c6f7a9b21",
            }
            yield "kube_pod_info", pod_info, _gauge({d: 1 for d in every}, every)
        else:
            for kind, psi in ((0, "waiting"), (1, "stalled")):
                yield (
                    f"container_pressure_memory_{psi}_seconds_total",
                    {**c, "id": "/"},
                    _counter(_stall(node, kind), every),
                )
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


TYPES = {
    "container_cpu_usage_seconds_total": "counter",
    "container_oom_events_total": "counter",
    "container_pressure_memory_waiting_seconds_total": "counter",
    "container_pressure_memory_stalled_seconds_total": "counter",
    "node_pressure_memory_waiting_seconds_total": "counter",
    "node_pressure_memory_stalled_seconds_total": "counter",
}
