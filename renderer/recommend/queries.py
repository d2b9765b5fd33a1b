"""The PromQL queries `allocatable recommend` asks: one definition, no heavy imports. The series they read (label
matchers, cgroup ids, metric names: :class:`~renderer.promql.Selectors`) are ``renderer.promql``'s, which builds the
``ReservationExhausted`` alert of ``render --target monitoring`` from the same ones.

Every query returns a few numbers per node and day: the aggregation is pushed to the server (``max_over_time`` of a
gauge over a day, ``max_over_time``/``quantile_over_time`` of a ``rate`` subquery at ``SUBQUERY_STEP``), evaluated
as a range query at a step of one day, so a 1,000-node fortnight is 14 points per node and query (megabytes in all), never
the raw samples. The label conventions are kube-prometheus-stack's: cAdvisor series scraped through the kubelet
(``job="kubelet"``, ``metrics_path="/metrics/cadvisor"``) with a ``node`` label, the kubelet's own ``/metrics``,
kube-state-metrics' ``kube_pod_container_resource_requests`` (which carries ``node``).

The cgroup ``id`` label is kept on the reservation queries: with the systemd cgroup driver (and on cgroup v2 hosts)
``kubelet.service`` and the runtime's service are *children* of ``/system.slice``, and adding them to it would count
them twice; the reader decides per node whether they are (``renderer.recommend.usage``). Pods live under
``/kubepods.slice`` (systemd driver) or ``/kubepods`` (cgroupfs driver): both are matched, the driver is told by the
``id`` that answered.

The ``optional`` queries are evidence beside the statistics (MemoryPressure, OOM kills, memory PSI:
``renderer.recommend.evidence``); their series name the kind of their value in ``id`` (``system``/``pods``/``all``,
``some``/``full``), set after the aggregation. node-exporter's series get their node as ``renderer.promql`` says
(``NODE_EXPORTER_NODE``).

Each query has a ``name``: an offline export of it is a file named ``<name>.json`` (or ``<name>.<anything>.json``),
which is how ``--usage`` knows what a file holds (a Prometheus response does not carry its query).

Cost: nothing at import (no import but ``typing``'s ``NamedTuple``).
"""

from __future__ import annotations

from typing import NamedTuple

from renderer.promql import CADVISOR, Selectors, node_exporter_by_node, pods_series, reserved_series

__all__ = [
    "CADVISOR",
    "DAY",
    "QUERIES",
    "SUBQUERY_STEP",
    "Query",
    "Selectors",
    "by_name",
    "one_day_at_a_time",
    "promtool_command",
    "queries",
]

DAY = 86400
#: The resolution of the ``rate`` subqueries: five minutes, the default scrape interval of kube-prometheus-stack's
#: kubelet ServiceMonitor is 30s, and ``rate`` over 5m spans at least four scrapes (Prometheus' advice).
SUBQUERY_STEP = "5m"


class Query(NamedTuple):
    """One query: its name (and export file name), what it measures, the PromQL, the labels a series carries."""

    name: str
    what: str
    promql: str
    labels: tuple[str, ...]
    metrics: tuple[str, ...]
    #: evidence beside the statistics: its absence is said, never an error, and advises nothing less
    optional: bool = False


def queries(s: Selectors | None = None) -> tuple[Query, ...]:
    """The queries for selectors ``s`` (default: kube-prometheus-stack's), in the order they are asked and printed."""
    s = s or Selectors()
    pods_cpu = f"sum by (node) (rate({pods_series(s, 'container_cpu_usage_seconds_total')}[5m]))"
    pods_mem = f"sum by (node) ({pods_series(s, s.memory_metric)})"
    requests = 'sum by (node) (kube_pod_container_resource_requests{{{sel}, resource="{r}"}})'
    return (
        Query(
            "reserved_memory",
            f"daily peak {s.memory_metric} of /system.slice, kubelet.service and the runtime's service, per node and "
            "cgroup",
            f"max by (node, id) (max_over_time({reserved_series(s, s.memory_metric)}[1d]))",
            ("node", "id"),
            (s.memory_metric,),
        ),
        Query(
            "reserved_cpu",
            "daily peak cpu (cores, 5m rate) of /system.slice, kubelet.service and the runtime's service, per node "
            "and cgroup",
            f"max by (node, id) (max_over_time(rate({reserved_series(s, 'container_cpu_usage_seconds_total')}[5m])"
            f"[1d:{SUBQUERY_STEP}]))",
            ("node", "id"),
            ("container_cpu_usage_seconds_total",),
        ),
        Query(
            "running_pods",
            "daily peak of the pods the kubelet runs, per node",
            f"max by (node) (max_over_time(kubelet_running_pods{{{s.kubelet}}}[1d]) or "
            f"max_over_time(kubelet_running_pod_count{{{s.kubelet}}}[1d]))",
            ("node",),
            ("kubelet_running_pods", "kubelet_running_pod_count"),
        ),
        Query(
            "pods_memory_ratio",
            f"daily peak of the pods' {s.memory_metric} over their memory requests, per node",
            f"max_over_time(({pods_mem} / {requests.format(sel=s.kube_state_metrics, r='memory')})"
            f"[1d:{SUBQUERY_STEP}])",
            ("node",),
            (s.memory_metric, "kube_pod_container_resource_requests"),
        ),
        Query(
            "pods_cpu_ratio",
            f"daily {s.cpu_quantile} quantile of the pods' cpu usage (5m rate) over their cpu requests, per node",
            f"quantile_over_time({s.cpu_quantile}, ({pods_cpu} / "
            f"{requests.format(sel=s.kube_state_metrics, r='cpu')})[1d:{SUBQUERY_STEP}])",
            ("node",),
            ("container_cpu_usage_seconds_total", "kube_pod_container_resource_requests"),
        ),
        Query(
            "memory_pressure",
            "days a node reported the MemoryPressure condition (evidence, not a statistic: the kubelet was evicting)",
            f"max by (node) (max_over_time(kube_node_status_condition{{{s.kube_state_metrics}, "
            f'condition="MemoryPressure", status="true"}}[1d]))',
            ("node",),
            ("kube_node_status_condition",),
            True,
        ),
        Query(
            "oom_kills",
            "OOM kills per node and day, by the killed process' cgroup: the reserved slices (system) or the pods "
            "(pods), from cAdvisor; every kill on the node (all), from node-exporter",
            _oom_kills(s),
            ("node", "id"),
            ("container_oom_events_total", "node_vmstat_oom_kill"),
            True,
        ),
        Query(
            "memory_stall",
            "daily peak share of time (5m rate) some task waited for memory (PSI some) and all were stalled (PSI "
            "full), per node: the kubelet's cAdvisor root cgroup, else node-exporter",
            _memory_stall(s),
            ("node", "id"),
            (
                "container_pressure_memory_waiting_seconds_total",
                "container_pressure_memory_stalled_seconds_total",
                "node_pressure_memory_waiting_seconds_total",
                "node_pressure_memory_stalled_seconds_total",
            ),
            True,
        ),
    )


def _named(expr: str, name: str) -> str:
    """``expr`` (one series per node) with an ``id`` label set to ``name``: the kind of the series, not a cgroup.
    Set after the aggregation, so that two series of a node never become one label set; matched on ``node`` (any
    value), not on an empty source label, which not every PromQL engine takes."""
    return f'label_replace({expr}, "id", "{name}", "node", ".*")'


def _oom_kills(s: Selectors) -> str:
    """cAdvisor counts a kill on the killed task's own cgroup (``task_memcg`` of the kernel's oom-kill line:
    utils/oomparser, manager.watchForNewOoms), so a kill is counted once, in the leaf cgroup: the kills under the
    reserved cgroups and under the pods' are summed per node and day, each sum named by its scope. Counter resets (a
    kubelet restart restarts cAdvisor's count) are ``increase``'s to account for."""
    parts = []
    for scope, ids in (("system", s.reserved_ids), ("pods", s.pods_ids)):
        kills = f'increase(container_oom_events_total{{{s.cadvisor}, id=~"({ids})(/.*)?"}}[1d])'
        parts.append(_named(f"sum by (node) ({kills})", scope))
    node = node_exporter_by_node(s, f"increase(node_vmstat_oom_kill{{{s.node_exporter}}}[1d])")
    parts.append(_named(f"sum by (node) ({node})", "all"))
    return " or ".join(parts)


def _memory_stall(s: Selectors) -> str:
    """Per node and day, the largest 5-minute share of time stalled on memory, "some" and "full": the root cgroup's
    PSI from the kubelet's cAdvisor (KubeletPSI), where a node has none node-exporter's (``or`` keeps the first)."""
    parts = []
    for kind, psi in (("some", "waiting"), ("full", "stalled")):
        cadvisor = f'rate(container_pressure_memory_{psi}_seconds_total{{{s.cadvisor}, id="/"}}[5m])'
        parts.append(_named(f"max by (node) (max_over_time({cadvisor}[1d:{SUBQUERY_STEP}]))", kind))
    for kind, psi in (("some", "waiting"), ("full", "stalled")):
        exporter = f"rate(node_pressure_memory_{psi}_seconds_total{{{s.node_exporter}}}[5m])"
        daily = node_exporter_by_node(s, f"max_over_time({exporter}[1d:{SUBQUERY_STEP}])")
        parts.append(_named(f"max by (node) ({daily})", kind))
    return " or ".join(parts)


#: The default queries (kube-prometheus-stack conventions).
QUERIES = queries()


def one_day_at_a_time(q: Query) -> bool:
    """Whether the live mode asks ``q`` one evaluation (one day) per request: a query with a subquery. The server
    evaluates a subquery over the whole range asked at once and holds its points — every series it reads and every
    aggregate, at every 5-minute step — in memory together, so its peak grows with series × days: over 14 days
    4,033 points a series, and Prometheus refuses a query past ``--query.max-samples`` (50 million by default), i.e.
    past 12,400 series: ``pods_memory_ratio`` of 1,000 nodes with more than 10 containers with requests each
    (kube-state-metrics has a series per container; the pods' cgroups and the two sums add 2 a node; measured:
    bench/recommend_live.py). Asked one day at a time, 289 points a series."""
    return f":{SUBQUERY_STEP}]" in q.promql


def by_name(qs: tuple[Query, ...] = QUERIES) -> dict[str, Query]:
    return {q.name: q for q in qs}


def promtool_command(q: Query, start: str, end: str, url: str = "http://prometheus:9090") -> str:
    """The ``promtool query range`` command line that exports ``q`` over [start, end] (RFC 3339 or Unix seconds) at
    one-day steps (promtool takes a Go duration: ``24h``) into the file ``--usage`` reads, quoted for a POSIX shell."""
    promql = q.promql.replace("'", "'\\''")
    return f"promtool query range -o json --start={start} --end={end} --step=24h {url} '{promql}' > {q.name}.json"
