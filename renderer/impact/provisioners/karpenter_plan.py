"""What Karpenter itself would launch for a pool's Pending pods, planned on its own view of each instance type.

The cluster autoscaler's estimate (``estimator.py``) packs the pods onto copies of a node as it will advertise itself;
Karpenter plans before any node exists, on what it *believes* an instance type offers (``karpenter.predict``). Where
the two differ, Karpenter launches another number of nodes than the nodes need, or none at all for a pod its view of
every type is too small for. The plan follows kubernetes-sigs/karpenter's provisioning scheduler
(pkg/controllers/provisioning/scheduling: ``queue.go`` ``byCPUAndMemoryDescending``; ``scheduler.go`` ``add``;
``nodeclaim.go`` ``Add`` with ``filterInstanceTypesByRequirements``):

1. the Pending pods in Karpenter's queue order: cpu request descending, then memory descending, then creation time
   (then the name: Karpenter's last key, the UID, is not in a snapshot);
2. each pod goes onto the first in-flight NodeClaim that still takes it, the NodeClaims tried fewest pods first
   (``sort.Slice`` by pod count; equal counts in creation order here, as Go's unstable sort gives no order); a
   NodeClaim takes it while at least one of its remaining instance types holds the NodeClaim's pods, this pod and
   the DaemonSet overhead within its predicted allocatable (cpu, memory, pods and every resource the pod asks that
   the type states), and keeps only those types;
3. otherwise a new NodeClaim with every instance type that holds the pod and the overhead; a pod no type holds is
   one Karpenter cannot place at all (it logs "incompatible with nodepool"; the pod stays Pending).

The instance types are those the pool's Karpenter nodes run (a NodePool may allow more: the plan is then what
Karpenter launches *of these types*, and a pod it cannot place might fit a larger type the NodePool allows).

Cost: O(pods × open NodeClaims × types) after an O(p log p) sort, the open NodeClaims being those that could still
take a pod left in the queue (a NodeClaim without room for the smallest cpu, memory or one more pod of the rest is
dropped from the scan): with pods that each fill a node, linear.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from renderer.impact.pods import SimPod
from renderer.impact.resources import CPU, MEMORY, PODS

__all__ = ["KarpenterPlan", "plan"]

_EXAMPLES = 5


@dataclass(frozen=True)
class KarpenterPlan:
    """Karpenter's plan for one pool: the NodeClaims it creates for ``pods`` Pending pods (the instance types each
    may still be), against ``nodes_needed`` — the cluster autoscaler's estimate on the nodes' real allocatable — and
    the pods it cannot place at all."""

    pool: str
    instance_types: tuple[str, ...]
    pods: int
    nodes: int
    nodes_needed: int | None
    cannot_place: tuple[str, ...] = ()
    #: Per NodeClaim, the instance types it may still be (Karpenter launches the cheapest of them).
    claims: tuple[tuple[str, ...], ...] = field(default=())

    @property
    def severity(self) -> str:
        """error: pods wait — Karpenter places none of some, or launches fewer nodes than they need; warning: it
        launches more than they need; info: it agrees with the nodes."""
        if self.cannot_place or (self.nodes_needed is not None and self.nodes < self.nodes_needed):
            return "error"
        return "warning" if self.nodes_needed is not None and self.nodes > self.nodes_needed else "info"

    @property
    def message(self) -> str:
        shown = ", ".join(self.instance_types)
        nodes = f"{self.nodes} node{'' if self.nodes == 1 else 's'}"
        pods = f"the {self.pods} Pending pod{'' if self.pods == 1 else 's'}"
        head = f"karpenter plans {nodes} of {shown} for {pods} of {self.pool}"
        if self.nodes_needed is not None and self.nodes_needed != self.nodes:
            head += f"; on what the nodes will advertise they need {self.nodes_needed}"
        if self.cannot_place:
            names = ", ".join(self.cannot_place[:_EXAMPLES])
            if len(self.cannot_place) > _EXAMPLES:
                names += f" and {len(self.cannot_place) - _EXAMPLES} more"
            head += f"; it cannot place {names}: its view of {shown} is too small"
        return head

    def as_dict(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "instanceTypes": list(self.instance_types),
            "pods": self.pods,
            "nodes": self.nodes,
            "nodesNeeded": self.nodes_needed,
            "severity": self.severity,
            "cannotPlace": list(self.cannot_place),
            "nodeClaims": [list(c) for c in self.claims],
        }


def _place(
    pod: SimPod,
    by_count: dict[int, list[_Claim]],
    types: Mapping[str, Mapping[str, int]],
    least: tuple[int, int],
    daemon_pods: int,
) -> bool:
    """The pod onto the first in-flight NodeClaim that takes it, fewest pods first (then the oldest)."""
    for count in sorted(by_count):
        bucket = by_count[count]
        j = 0
        while j < len(bucket):
            claim = bucket[j]
            if _spent(claim, types, least, daemon_pods):
                del bucket[j]
                continue
            if _add(claim, pod, types, daemon_pods):
                del bucket[j]
                insort(by_count.setdefault(count + 1, []), claim, key=lambda c: c.order)
                if not bucket:
                    del by_count[count]
                return True
            j += 1
        if not bucket:
            del by_count[count]
    return False


def _queue_key(pod: SimPod) -> tuple[int, int, str, str, str]:
    return (-pod.requests.get(CPU, 0), -pod.requests.get(MEMORY, 0), pod.created, pod.namespace, pod.name)


def _holds(allocatable: Mapping[str, int], used: Mapping[str, int], count: int) -> bool:
    """Whether a type's predicted ``allocatable`` holds ``used`` (with the DaemonSet overhead in it) and ``count``
    pods: cpu, memory and pods always (Karpenter states them for every type), any other resource the type states;
    a resource it does not state and a pod asks for: no (``resources.Fits`` against a missing entry is 0)."""
    if count > allocatable.get(PODS, 0):
        return False
    return all(amount <= allocatable.get(name, 0) for name, amount in used.items() if amount > 0 and name != PODS)


@dataclass
class _Claim:
    types: list[str]
    used: dict[str, int]
    pods: int
    order: int


def _add(claim: _Claim, pod: SimPod, types: Mapping[str, Mapping[str, int]], daemon_pods: int) -> bool:
    """NodeClaim.Add: the pod joins ``claim`` if a type of it still holds everything; the claim keeps those types."""
    used = dict(claim.used)
    for name, amount in pod.requests.items():
        used[name] = used.get(name, 0) + amount
    still = [t for t in claim.types if _holds(types[t], used, claim.pods + 1 + daemon_pods)]
    if still:
        claim.types, claim.used, claim.pods = still, used, claim.pods + 1
    return bool(still)


def _spent(claim: _Claim, types: Mapping[str, Mapping[str, int]], least: tuple[int, int], daemon_pods: int) -> bool:
    """True when no type of ``claim`` has room for the smallest cpu, the smallest memory or one more pod of what is
    left in the queue: no later pod can join it, so it leaves the scan (Karpenter would try it and fail)."""
    for t in claim.types:
        room = types[t]
        if (
            room.get(CPU, 0) - claim.used.get(CPU, 0) >= least[0]
            and room.get(MEMORY, 0) - claim.used.get(MEMORY, 0) >= least[1]
            and room.get(PODS, 0) - claim.pods - daemon_pods >= 1
        ):
            return False
    return True


def _suffix_least(queue: Sequence[SimPod]) -> list[tuple[int, int]]:
    """Per queue position, the smallest cpu and the smallest memory any pod from there on asks."""
    out = [(0, 0)] * len(queue)
    cpu = memory = 2**63
    for i in range(len(queue) - 1, -1, -1):
        cpu = min(cpu, queue[i].requests.get(CPU, 0))
        memory = min(memory, queue[i].requests.get(MEMORY, 0))
        out[i] = (cpu, memory)
    return out


def plan(
    pool: str,
    types: Mapping[str, Mapping[str, int]],
    pods: Sequence[SimPod],
    overhead: Mapping[str, int] | None = None,
    nodes_needed: int | None = None,
) -> KarpenterPlan:
    """Karpenter's plan for ``pods`` (the pool's Pending pods) on instance ``types`` (name → Karpenter's predicted
    allocatable), each NodeClaim carrying ``overhead`` (what the pool's DaemonSets take on a new node).

    The in-flight NodeClaims are kept by pod count (fewest first, then in creation order), so a pod scans them in
    Karpenter's order without sorting them all again; one that no pod left in the queue could join is dropped from
    the scan (``_spent``)."""
    daemon_pods = (overhead or {}).get(PODS, 0)
    overhead = {k: v for k, v in (overhead or {}).items() if k != PODS}
    names = sorted(types)
    claims: list[_Claim] = []
    by_count: dict[int, list[_Claim]] = {}
    cannot: list[str] = []
    queue = sorted(pods, key=_queue_key)
    least = _suffix_least(queue)
    for i, pod in enumerate(queue):
        if not _place(pod, by_count, types, least[i], daemon_pods):
            used = dict(overhead)
            for name, amount in pod.requests.items():
                used[name] = used.get(name, 0) + amount
            fitting = [t for t in names if _holds(types[t], used, 1 + daemon_pods)]
            if fitting:
                claim = _Claim(fitting, used, 1, len(claims))
                claims.append(claim)
                by_count.setdefault(1, []).append(claim)
            else:
                cannot.append(pod.key)
    return KarpenterPlan(
        pool,
        tuple(names),
        len(pods),
        len(claims),
        nodes_needed,
        tuple(sorted(cannot)),
        tuple(tuple(c.types) for c in claims),
    )
