"""How many nodes the cluster autoscaler could remove: its scale-down simulation, on a cluster state.

kubernetes/autoscaler cluster-autoscaler (release-1.36): a node is a candidate when its utilization — per resource,
the requests of its pods over its allocatable, the larger of cpu and memory (``utilization.Calculate``; DaemonSet and
mirror pods' requests are taken out of both sides when ``--ignore-daemonsets-utilization`` /
``--ignore-mirror-pods-utilization`` say so) — is below ``--scale-down-utilization-threshold`` (0.5), and it can go
when every pod on it that must move finds room elsewhere (the scheduler's filters, first fit). DaemonSet and mirror
pods go with the node. Pods that keep a node (the autoscaler's drain rules, defaults): the annotation
``cluster-autoscaler.kubernetes.io/safe-to-evict: "false"``; unless annotated ``"true"``: a pod without a controller,
a non-DaemonSet pod in kube-system (the autoscaler lets one go when a PodDisruptionBudget covers it; budgets are not
read here), a pod with local storage (emptyDir, hostPath). A node annotated
``cluster-autoscaler.kubernetes.io/scale-down-disabled: "true"``, and a pool at its minimum size, are kept.

Candidates are tried least utilized first (the autoscaler's own order depends on its processors and history); each
removal is committed before the next candidate is tried, so later candidates see the pods earlier ones moved.

Each candidate is a scheduler trial: room only shrinks between trials, so the scheduler's "too full for this shape"
marks stay true, except those a rejected trial made on the nodes it touched, which are undone with it.

Cost: O(candidates × pods to move) first-fit searches; a search skips the nodes its pod's shape already found too
full, so a shape that fits nowhere walks the cluster once, not once per candidate.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from renderer.impact.cluster import ClusterState
from renderer.impact.pods import SimPod
from renderer.impact.resources import CPU, MEMORY
from renderer.impact.scheduler import Scheduler

__all__ = ["ScaleDownOptions", "ScaleDownResult", "scale_down", "utilization"]


@dataclass(frozen=True)
class ScaleDownOptions:
    utilization_threshold: float = 0.5
    ignore_daemonsets_utilization: bool = False
    ignore_mirror_pods_utilization: bool = False
    skip_nodes_with_system_pods: bool = True
    skip_nodes_with_local_storage: bool = True
    min_size: Mapping[str, int] = field(default_factory=dict)


@dataclass
class ScaleDownResult:
    """Nodes the simulation removed, in order, and why the other candidates stayed (reason → nodes)."""

    removed: list[str] = field(default_factory=list)
    removed_by_pool: dict[str, int] = field(default_factory=dict)
    kept: dict[str, int] = field(default_factory=dict)


def utilization(state: ClusterState, i: int, options: ScaleDownOptions) -> float | None:
    """The node's utilization as the autoscaler computes it; None when cpu or memory allocatable is 0."""
    alloc = state.allocatable[i]
    worst = 0.0
    for name in (CPU, MEMORY):
        have = alloc.get(name, 0)
        excluded = requested = 0
        for pod in state.pods[i]:
            amount = pod.requests.get(name, 0)
            if (options.ignore_daemonsets_utilization and pod.daemonset) or (
                options.ignore_mirror_pods_utilization and pod.mirror
            ):
                excluded += amount
            else:
                requested += amount
        if have - excluded <= 0:
            return None
        worst = max(worst, requested / (have - excluded))
    return worst


def _blocker(pod: SimPod, options: ScaleDownOptions) -> str | None:
    if pod.safe_to_evict is False:
        return "a pod annotated safe-to-evict: false"
    if pod.safe_to_evict:
        return None
    if pod.owner is None:
        return "a pod without a controller"
    if options.skip_nodes_with_system_pods and pod.namespace == "kube-system":
        return "a kube-system pod (PodDisruptionBudgets are not read)"
    if options.skip_nodes_with_local_storage and pod.local_storage:
        return "a pod with local storage"
    return None


def _note(result: ScaleDownResult, reason: str) -> None:
    result.kept[reason] = result.kept.get(reason, 0) + 1


def scale_down(scheduler: Scheduler, options: ScaleDownOptions | None = None) -> ScaleDownResult:
    """Remove every node the autoscaler could, one after the other, on ``scheduler.state`` (which it changes)."""
    options = options or ScaleDownOptions()
    state = scheduler.state
    result = ScaleDownResult()
    pool_size: dict[str, int] = {}
    for i, node in enumerate(state.nodes):
        if not state.removed[i]:
            pool_size[node.pool] = pool_size.get(node.pool, 0) + 1
    candidates: list[tuple[float, int]] = []
    for i, node in enumerate(state.nodes):
        if state.removed[i]:
            continue
        if node.scale_down_disabled:
            _note(result, "scale-down disabled by annotation")
            continue
        value = utilization(state, i, options)
        if value is None:
            _note(result, "no cpu or memory allocatable")
        elif value >= options.utilization_threshold:
            _note(result, f"utilization at or above {options.utilization_threshold:g}")
        else:
            candidates.append((value, i))
    for _, i in sorted(candidates):
        node = state.nodes[i]
        if pool_size[node.pool] <= options.min_size.get(node.pool, 0):
            _note(result, "pool at its minimum size")
            continue
        movers = [p for p in state.pods[i] if not p.daemonset and not p.mirror]
        reason = next((r for p in movers if (r := _blocker(p, options)) is not None), None)
        if reason is not None:
            _note(result, reason)
            continue
        scheduler.begin_trial(i)
        state.remove_node(i)
        moved: list[tuple[SimPod, int]] = []
        for pod in movers:
            target = scheduler.first_fit(pod, exclude=i)
            if target is None:
                break
            scheduler.trial_bind(pod, target)
            moved.append((pod, target))
        if len(moved) < len(movers):
            for pod, target in moved:
                state.unbind(pod, target, fresh=False)
            state.restore_node(i, fresh=False)
            scheduler.end_trial(keep=False)
            _note(result, "its pods do not fit on other nodes")
            continue
        scheduler.end_trial(keep=True)
        for pod in list(state.pods[i]):
            state.unbind(pod, i, fresh=False)  # the node is gone: its room no longer matters
        result.removed.append(node.name)
        result.removed_by_pool[node.pool] = result.removed_by_pool.get(node.pool, 0) + 1
        pool_size[node.pool] -= 1
    return result
