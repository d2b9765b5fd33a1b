"""Which running pods stop fitting the node they run on, once its allocatable changes.

The scheduler never moves a running pod; the node's kubelet decides, when it restarts with the new reservations and
admits its pods again. It admits them one at a time, oldest first (pkg/kubelet/kubelet.go ``HandlePodAdditions``
sorts by creation time), each against the pods admitted before it, with the scheduler's own fit rules
(``fit.py``: requests + overhead, pod count). A pod that no longer fits is rejected (OutOfcpu, OutOfmemory,
OutOfpods...) and its controller recreates it elsewhere; a DaemonSet's pod is recreated on the same node and waits
there.

Critical pods (static pods and priority >= system-node-critical) are admitted before the others here: the kubelet
admits them by evicting other pods (its critical pod admission handler), so they keep their place whatever their age.
Which of the other pods such an eviction picks (by QoS class) is not modelled: they are displaced youngest first.

Cost: O(pods on the node × resources they request) per node, after an O(p log p) sort.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from renderer.impact.fit import DEFAULT_ARGS, FitArgs, Insufficient, fits, insufficient
from renderer.impact.pods import SimPod

__all__ = ["Rejected", "admission_order", "readmit"]


@dataclass(frozen=True, slots=True)
class Rejected:
    """A pod the kubelet would no longer admit, with the checks it fails against the pods admitted before it."""

    pod: SimPod
    reasons: tuple[Insufficient, ...]


def admission_order(pod: SimPod) -> tuple[int, str, str, str]:
    """Sort key: critical pods first, then by creation time (then namespace and name, for equal times)."""
    return (0 if pod.critical else 1, pod.created, pod.namespace, pod.name)


def readmit(
    pods: Sequence[SimPod], allocatable: Mapping[str, int], fit_args: FitArgs = DEFAULT_ARGS
) -> tuple[list[SimPod], list[Rejected]]:
    """(admitted, rejected) when a node with ``allocatable`` admits ``pods`` again in the kubelet's order."""
    admitted: list[SimPod] = []
    rejected: list[Rejected] = []
    used: dict[str, int] = {}
    for pod in sorted(pods, key=admission_order):
        requests = pod.kubelet_requests
        if fits(requests, allocatable, used, len(admitted), fit_args):
            admitted.append(pod)
            for name, amount in requests.items():
                used[name] = used.get(name, 0) + amount
        else:
            reasons = insufficient(requests, allocatable, used, len(admitted), fit_args)
            rejected.append(Rejected(pod, tuple(reasons)))
    return admitted, rejected
