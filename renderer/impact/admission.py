"""Which running pods stop fitting the node they run on, once its allocatable changes.

The scheduler never moves a running pod; the node's kubelet decides, when it restarts with the new reservations and
admits its pods again. It admits them one at a time, oldest first (pkg/kubelet/kubelet.go ``HandlePodAdditions``
sorts by creation time), each against the pods admitted before it, with ``generalFilter``
(pkg/kubelet/lifecycle/predicate.go, which calls the scheduler's ``AdmissionCheck`` with every failure included):

- the scheduler's fit rules (``fit.py``: requests + overhead, pod count), on the kubelet's allocation
  (``SimPod.kubelet_requests``: an in-place resize it has not applied counts at what it allocated);
- required node affinity and nodeSelector: "node(s) didn't match Pod's node affinity/selector" (the labels may have
  changed since the pod was placed: the scheduler ignores that during execution, a restarted kubelet does not);
- host ports against the pods admitted before it: "node(s) didn't have free ports for the requested pod ports";
- a ``NoExecute`` taint the pod does not tolerate, for every pod but a static (mirror) pod: "node(s) had taints that
  the pod didn't tolerate" (the TaintToleration plugin's ``ErrReasonNotMatch``, as the kubelet reports it).

A pod that fails any of them is rejected (OutOfcpu, OutOfmemory, OutOfpods, NodeAffinity, ...) and its controller
recreates it elsewhere; a DaemonSet's pod is recreated on the same node and waits there. ``spec.nodeName`` always
names the node the pod is on, so the node-name check never fails here.

Critical pods (static pods and priority >= system-node-critical) are admitted before the others here: the kubelet
admits them by evicting other pods (its critical pod admission handler), so they keep their place whatever their age.
Which of the other pods such an eviction picks (by QoS class) is not modelled: they are displaced youngest first.

Cost: O(pods on the node × (resources + host ports + taints × tolerations)) per node, after an O(p log p) sort.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from renderer.impact.fit import DEFAULT_ARGS, FitArgs, Insufficient, fits, insufficient
from renderer.impact.nodes import SimNode
from renderer.impact.pods import SimPod
from renderer.impact.ports import HostPort, conflicts
from renderer.impact.taints import Taint, first_untolerated

__all__ = ["AFFINITY_REASON", "PORTS_REASON", "TAINT_REASON", "Rejected", "admission_order", "readmit"]

#: The kubelet's reasons (``AdmissionCheck``'s and ``generalFilter``'s), as the scheduler's plugins word them.
AFFINITY_REASON: Final = "node(s) didn't match Pod's node affinity/selector"
PORTS_REASON: Final = "node(s) didn't have free ports for the requested pod ports"
TAINT_REASON: Final = "node(s) had taints that the pod didn't tolerate"
_NO_EXECUTE: Final = "NoExecute"


@dataclass(frozen=True, slots=True)
class Rejected:
    """A pod the kubelet would no longer admit, with the checks it fails against the pods admitted before it:
    resources (``reasons``), and the others in the kubelet's words (``predicates``)."""

    pod: SimPod
    reasons: tuple[Insufficient, ...]
    predicates: tuple[str, ...] = ()


def admission_order(pod: SimPod) -> tuple[int, str, str, str]:
    """Sort key: critical pods first, then by creation time (then namespace and name, for equal times)."""
    return (0 if pod.critical else 1, pod.created, pod.namespace, pod.name)


def _predicates(pod: SimPod, node: SimNode, no_execute: tuple[Taint, ...], ports: set[HostPort]) -> tuple[str, ...]:
    """``generalFilter``'s checks other than resources, in its order."""
    out: list[str] = []
    if not pod.affinity.matches(node.labels, node.name):
        out.append(AFFINITY_REASON)
    if pod.host_ports and conflicts(pod.host_ports, ports):
        out.append(PORTS_REASON)
    if no_execute and not pod.mirror and first_untolerated(no_execute, pod.scheduling_tolerations()) is not None:
        out.append(TAINT_REASON)
    return tuple(out)


def readmit(
    pods: Sequence[SimPod],
    allocatable: Mapping[str, int],
    fit_args: FitArgs = DEFAULT_ARGS,
    node: SimNode | None = None,
) -> tuple[list[SimPod], list[Rejected]]:
    """(admitted, rejected) when a node with ``allocatable`` admits ``pods`` again in the kubelet's order; with
    ``node``, its labels, taints and the admitted pods' host ports are checked too."""
    admitted: list[SimPod] = []
    rejected: list[Rejected] = []
    used: dict[str, int] = {}
    ports: set[HostPort] = set()
    no_execute = tuple(t for t in node.taints if t.effect == _NO_EXECUTE) if node is not None else ()
    for pod in sorted(pods, key=admission_order):
        requests = pod.kubelet_requests
        predicates = _predicates(pod, node, no_execute, ports) if node is not None else ()
        if not predicates and fits(requests, allocatable, used, len(admitted), fit_args):
            admitted.append(pod)
            for name, amount in requests.items():
                used[name] = used.get(name, 0) + amount
            ports.update(pod.host_ports)
        else:
            reasons = insufficient(requests, allocatable, used, len(admitted), fit_args)
            rejected.append(Rejected(pod, tuple(reasons), predicates))
    return admitted, rejected
