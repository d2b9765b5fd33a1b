"""What ``/metrics`` says: the families of one evaluation, serialised once per cycle, and serve's own status.

Names follow Prometheus' conventions (``allocatable_`` prefix, base units: cores, bytes, seconds; ``_total`` for
counters; ``_info`` for an identity); labels are bounded: per node × resource × named cause (``cause`` is one of the
verify cause names, a fixed set), per pool × slice, never per pod. ``resource`` and ``unit`` are written as
kube-state-metrics writes them in ``kube_node_status_allocatable`` (``ephemeral_storage``, ``hugepages_2Mi``;
``core``, ``byte``, ``integer``), so a rule can join the two ``on(node, resource)``. Label values are escaped as
the text format says (``renderer.serve.exposition``, byte for byte what ``prometheus_client`` writes: a hostile node
name stays one label value). docs/serve.md lists every metric.

Cost: O(nodes × resources) per cycle, serialised once; a scrape writes the bytes of the last good cycle as they are
and formats about ten status samples.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily, Metric
from prometheus_client.registry import Collector

from renderer.serve.exposition import Family, text

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.quantity import Quantity
    from renderer.serve.configz import Outcome
    from renderer.serve.policy import Policy
    from renderer.verify.result import VerifyResult

__all__ = ["Evaluation", "StatusCollector", "Tally", "evaluate", "resource_label", "unit_of"]

_NOT_LABEL = re.compile(r"[^a-zA-Z0-9_]")
#: Node states (``allocatable_pool_nodes{state}``).
STATES = ("match", "drift", "awaiting-rollout")


def resource_label(resource: str) -> str:
    """``ephemeral-storage`` → ``ephemeral_storage``, as kube-state-metrics sanitises a resource name."""
    return _NOT_LABEL.sub("_", resource)


def unit_of(resource: str) -> str:
    """kube-state-metrics' unit of a resource: ``core`` for cpu, ``byte`` for memory, storage and huge pages,
    ``integer`` for the rest (pods, devices)."""
    if resource == "cpu":
        return "core"
    if resource in ("memory", "ephemeral-storage", "storage") or resource.startswith("hugepages-"):
        return "byte"
    return "integer"


def _base(q: Quantity) -> float:
    return float(q.value)


@dataclass
class Tally:
    """The small figures of one evaluation, for the log line and ``--once``."""

    nodes: int = 0
    drift: int = 0
    awaiting: int = 0
    pods_not_fitting: int = 0
    #: With ``--configz``: nodes whose kubelet configuration differs from the fields the repo renders.
    config_drift: int = 0


@dataclass(frozen=True)
class Evaluation:
    """One good cycle: the exposition text of its families and its figures."""

    text: bytes
    tally: Tally
    #: Seconds since the epoch when the cycle finished.
    at: float


def evaluate(
    result: VerifyResult, nodes: list[Pool], policy: Policy, at: float, configz: Outcome | None = None
) -> Evaluation:
    """The families of one verify result (``nodes``: the pools of one it read, for each node's pool) and, with
    ``--configz``, of the kubelet configurations compared, as the exposition text a scrape sends
    (``renderer.serve.exposition``)."""
    from renderer.impact.report import PoolIndex, pool_of

    index = PoolIndex(policy.nodepools)
    pool_of_node = {n.name: pool_of(n.labels, index) for n in nodes}
    predicted = Family(
        "allocatable_node_predicted_allocatable",
        "The allocatable the policy repo predicts for the node (compare kube_node_status_allocatable).",
        "gauge",
        ["node", "resource", "unit"],
    )
    drift = Family(
        "allocatable_node_drift",
        "What the node reports minus what the repo predicts, for each resource that differs, with verify's named "
        "cause (a missing figure counts as 0).",
        "gauge",
        ["node", "pool", "resource", "unit", "cause"],
    )
    info = Family(
        "allocatable_node",
        "The repo's pool of each node (a NodePool whose labels it carries, else its node group or instance type): "
        "join per-pool series to nodes with `* on (pool) group_left ()`.",
        "info",
        ["node", "pool"],
    )
    counts: dict[tuple[str, str], int] = {}
    tally = Tally(nodes=len(result.nodes))
    # (resource label, unit) per resource name: a fleet names a handful of resources.
    names: dict[str, tuple[str, str]] = {}
    for n in result.nodes:
        pool = pool_of_node.get(n.name, "(inventory)")
        state = "match" if n.match else ("awaiting-rollout" if n.at_base else "drift")
        counts[(pool, state)] = counts.get((pool, state), 0) + 1
        info.add([n.name, pool])
        for r, q in n.check.predicted.items():
            label_unit = names.get(r) or names.setdefault(r, (resource_label(r), unit_of(r)))
            predicted.add([n.name, *label_unit], _base(q))
        # The kubelet's figures against status.allocatable (Koordinator's amplified ones included, cause
        # koordinator); the raw-allocatable annotation's own check is verify's to show, not a second series.
        for d in n.check.differences:
            reported = d.reported.value if d.reported is not None else 0
            wanted = d.predicted.value if d.predicted is not None else 0
            drift.add(  # the difference exact in decimal, rounded once
                [n.name, pool, resource_label(d.resource), unit_of(d.resource), d.cause], float(reported - wanted)
            )
    tally.drift = len(result.drift)
    tally.awaiting = len(result.awaiting)
    pool_nodes = Family(
        "allocatable_pool_nodes",
        "Nodes per pool that match the repo's prediction, drift from it, or await the rollout of the policy change "
        "(they match the policy evaluated before).",
        "gauge",
        ["pool", "state"],
    )
    _by_pool_and_state(pool_nodes, counts, STATES)
    families: list[Family] = [info, predicted, drift, pool_nodes, *_reserved(policy)]
    if result.pods is not None:
        families.extend(_pods(result, pool_of_node, tally))
    if configz is not None:
        families.extend(_configz(configz, pool_of_node, tally))
    return Evaluation(text(families), tally, at)


def _by_pool_and_state(family: Family, counts: dict[tuple[str, str], int], states: tuple[str, ...]) -> None:
    """Per pool with a node, one sample per state (0 where none is in it), pools in order."""
    for pool in sorted({p for p, _ in counts}):
        for state in states:
            family.add([pool, state], counts.get((pool, state), 0))


#: Node states of ``allocatable_pool_config_nodes{state}``.
CONFIG_STATES = ("match", "drift", "unread")


def _configz(outcome: Outcome, pool_of_node: dict[str, str], tally: Tally) -> Iterator[Family]:
    """``--configz``: per differing field of a node, 1; per pool, the nodes compared by state; the failed reads."""
    drift = Family(
        "allocatable_node_config_drift",
        "1 for each KubeletConfiguration field the repo renders for the node that the kubelet's /configz holds with "
        "another value (or not at all); absent for the fields that match.",
        "gauge",
        ["node", "pool", "field"],
    )
    for d in sorted(outcome.drift, key=lambda d: (d.node, d.field)):
        drift.add([d.node, pool_of_node.get(d.node, "(inventory)"), d.field], 1.0)
    nodes = Family(
        "allocatable_pool_config_nodes",
        "Nodes per pool whose kubelet configuration (/configz) matches the fields the repo renders, differs, or "
        "could not be read this cycle.",
        "gauge",
        ["pool", "state"],
    )
    counts: dict[tuple[str, str], int] = {}
    for node, state in outcome.state.items():
        key = (pool_of_node.get(node, "(inventory)"), state)
        counts[key] = counts.get(key, 0) + 1
    _by_pool_and_state(nodes, counts, CONFIG_STATES)
    errors = Family(
        "allocatable_configz_fetch_errors",
        "Nodes whose /configz could not be read (or was no KubeletConfiguration) in the last cycle; serve's log "
        "names the first and why.",
        "gauge",
        [],
    )
    errors.add([], float(len(outcome.errors)))
    tally.config_drift = sum(1 for s in outcome.state.values() if s == "drift")
    yield from (drift, nodes, errors)


def _reserved(policy: Policy) -> Iterator[Family]:
    cores = Family(
        "allocatable_pool_reserved_cpu_cores",
        "CPU the repo reserves per node of the pool, by slice: system (systemReserved), kube (kubeReserved).",
        "gauge",
        ["pool", "slice"],
    )
    memory = Family(
        "allocatable_pool_reserved_memory_bytes",
        "Memory the repo reserves per node of the pool, by slice: system, kube, eviction (the hard threshold).",
        "gauge",
        ["pool", "slice"],
    )
    storage = Family(
        "allocatable_pool_reserved_ephemeral_storage_bytes",
        "Ephemeral storage the repo reserves per node of the pool, by slice: system, kube, eviction.",
        "gauge",
        ["pool", "slice"],
    )
    by_resource = {"cpu": cores, "memory": memory, "ephemeral-storage": storage}
    for r in policy.reserved:
        family = by_resource.get(r.resource)
        if family is not None:
            family.add([r.pool, r.slice], r.value)
    yield from (cores, memory, storage)


def _pods(result: VerifyResult, pool_of_node: dict[str, str], tally: Tally) -> Iterator[Family]:
    nodes = Family(
        "allocatable_pool_nodes_pods_not_fitting",
        "Nodes per pool whose running pods request more than the repo's committed allocatable (or count more than "
        "its maxPods): the repo would push pods off them.",
        "gauge",
        ["pool"],
    )
    pods = Family(
        "allocatable_pool_pods_on_nodes_not_fitting",
        "Pods running on the nodes of allocatable_pool_nodes_pods_not_fitting.",
        "gauge",
        ["pool"],
    )
    per_pool: dict[str, list[int]] = {}
    for fit in result.pods or []:
        entry = per_pool.setdefault(pool_of_node.get(fit.node, "(inventory)"), [0, 0])
        if not fit.fits:
            entry[0] += 1
            entry[1] += fit.pods
            tally.pods_not_fitting += fit.pods
    for pool in sorted(per_pool):
        nodes.add([pool], per_pool[pool][0])
        pods.add([pool], per_pool[pool][1])
    yield from (nodes, pods)


class StatusCollector(Collector):
    """serve's own state, read at each scrape: cheap figures only (no evaluation happens here)."""

    def __init__(self, state: object) -> None:
        self.state = state

    def collect(self) -> Iterator[Metric]:
        import time

        s = self.state
        policy: Policy | None = getattr(s, "policy", None)
        info = InfoMetricFamily(
            "allocatable_policy",
            "The policy commit serve evaluates (commit: git, empty when the directory is no checkout; digest: of "
            "the loaded files).",
            labels=["commit", "digest"],
        )
        if policy is not None:
            info.add_metric([policy.commit, policy.digest], {})
        yield info
        yield GaugeMetricFamily(
            "allocatable_policy_change_timestamp_seconds",
            "When the evaluated policy changed: its commit's time, or when serve first saw it.",
            value=policy.changed_at if policy is not None else 0.0,
        )
        yield GaugeMetricFamily(
            "allocatable_policy_stale",
            "1 while the newest state of the policy directory fails to load and an older one is evaluated.",
            value=1.0 if getattr(s, "stale", False) else 0.0,
        )
        last = float(getattr(s, "last_success", 0.0))
        yield GaugeMetricFamily(
            "allocatable_last_success_timestamp_seconds",
            "When the last good cycle finished (0: none yet).",
            value=last,
        )
        yield (
            GaugeMetricFamily(
                "allocatable_data_age_seconds",
                "Seconds since the last good cycle finished: how old the figures served are (absent before the first).",
                value=time.time() - last,
            )
            if last
            else GaugeMetricFamily(
                "allocatable_data_age_seconds",
                "Seconds since the last good cycle finished: how old the figures served are (absent before the first).",
            )
        )
        yield GaugeMetricFamily(
            "allocatable_cycle_duration_seconds",
            "How long the last cycle took (reading, evaluating, serialising).",
            value=float(getattr(s, "last_duration", 0.0)),
        )
        cycles = CounterMetricFamily("allocatable_cycles", "Cycles started, good or not.")
        cycles.add_metric([], float(getattr(s, "cycles", 0)))
        yield cycles
        errors = CounterMetricFamily(
            "allocatable_cycle_errors",
            "Cycles that failed, by stage: policy (the newest policy does not load), nodes (reading the fleet), "
            "evaluate. The last good figures are served meanwhile.",
            labels=["stage"],
        )
        for stage, n in sorted(dict(getattr(s, "errors", {})).items()):
            errors.add_metric([stage], float(n))
        yield errors
