"""DaemonSets read back from their pods: which nodes each one runs on, and the pod it would put on a node it lacks.

The DaemonSet controller decides where a daemon pod should exist without looking at resources (kubernetes/kubernetes
pkg/controller/daemon ``NodeShouldRunDaemonPod``): the template's nodeSelector and required node affinity must match
the node, and no ``NoSchedule``/``NoExecute`` taint of the node may be left untolerated by the template's tolerations
plus the controller's defaults (``taints.DAEMONSET_TOLERATIONS``). So after allocatable shrinks, a daemon pod is still
created for every eligible node — and may wait there, Pending. The cluster autoscaler likewise counts, on a new node
of a group, every DaemonSet pod that would run there.

A dump has pods, not DaemonSets: each DaemonSet is represented by its newest pod (the current revision, most likely),
with the controller's per-node pin (``matchFields metadata.name``) removed from its affinity.

DaemonSets whose templates the controller's predicate cannot tell apart (same node affinity, tolerations and host
network) form a :class:`DaemonSetGroup`: where one runs, all do, so a template node asks once per group.

Cost: collecting O(pods); grouping O(DaemonSets); where one DaemonSet should run O(nodes its selector can match)
through ``cluster.Eligibility`` (once per distinct selector and tolerations).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from renderer.capacity.selectors import NAME_FIELD, Requirement, Term
from renderer.impact.affinity import NodeAffinity, without_name_pin
from renderer.impact.pods import SimPod
from renderer.impact.ports import HostPort
from renderer.impact.taints import Taint, daemonset_tolerations, first_untolerated

__all__ = ["DaemonSet", "DaemonSetGroup", "collect", "group", "pinned_node", "pinned_to", "should_run"]


@dataclass
class DaemonSet:
    namespace: str
    name: str
    template: SimPod
    nodes: set[str] = field(default_factory=set)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


def collect(pods: Iterable[SimPod]) -> dict[tuple[str, str], DaemonSet]:
    """The DaemonSets that own any of ``pods`` (terminated pods only vouch for the DaemonSet, not for a node)."""
    found: dict[tuple[str, str], DaemonSet] = {}
    for pod in pods:
        if not pod.daemonset:
            continue
        key = (pod.namespace, pod.owner_name)
        ds = found.get(key)
        if ds is None:
            ds = found[key] = DaemonSet(pod.namespace, pod.owner_name, pod)
        elif (pod.created, pod.name) > (ds.template.created, ds.template.name):
            ds.template = pod  # the newest pod; made a template below, once per DaemonSet
        if pod.holds_room and pod.node is not None:
            ds.nodes.add(pod.node)
        elif pod.pending:
            target = pinned_node(pod.affinity)
            if target is not None:  # created for that node, waiting to be scheduled there
                ds.nodes.add(target)
    for ds in found.values():
        newest = ds.template
        ds.template = replace(newest, node=None, phase="Pending", affinity=without_name_pin(newest.affinity))
    return found


@dataclass
class DaemonSetGroup:
    """DaemonSets with the same affinity, tolerations and host network (``template`` is the first one's): their
    number and what their pods request and the host ports they take, summed."""

    template: SimPod
    count: int = 0
    requests: dict[str, int] = field(default_factory=dict)
    host_ports: set[HostPort] = field(default_factory=set)


def group(daemonsets: Iterable[DaemonSet]) -> list[DaemonSetGroup]:
    """``daemonsets`` grouped by what the controller's predicate reads, in the order each group first appears."""
    found: dict[tuple[object, ...], DaemonSetGroup] = {}
    for ds in daemonsets:
        t = ds.template
        key = (t.affinity, t.tolerations, t.host_network)
        g = found.get(key)
        if g is None:
            g = found[key] = DaemonSetGroup(t)
        g.count += 1
        for resource, amount in t.requests.items():
            g.requests[resource] = g.requests.get(resource, 0) + amount
        g.host_ports.update(t.host_ports)
    return list(found.values())


def pinned_node(affinity: NodeAffinity) -> str | None:
    """The node a DaemonSet pod is pinned to by its ``matchFields metadata.name In [node]``, if any."""
    for term in affinity.required or ():
        for req in term.fields:
            if req.key == NAME_FIELD and req.operator == "In" and len(req.values) == 1:
                return req.values[0]
    return None


def should_run(ds: DaemonSet | DaemonSetGroup, labels: Mapping[str, str], name: str, taints: Sequence[Taint]) -> bool:
    """The controller's predicate: selector and affinity match, no untolerated NoSchedule/NoExecute taint."""
    template = ds.template
    if not template.affinity.matches(labels, name):
        return False
    return first_untolerated(taints, daemonset_tolerations(template.tolerations, template.host_network)) is None


def pinned_to(ds: DaemonSet, node: str) -> SimPod:
    """The pod the controller would create for ``node``: the template pinned there by a required ``matchFields``
    term (added to each of the template's terms, as the controller does)."""
    pin = Requirement(NAME_FIELD, "In", (node,))
    affinity = ds.template.affinity
    if affinity.required is None:
        terms: tuple[Term, ...] = (Term((), (pin,)),)
    else:
        terms = tuple(Term(t.expressions, (pin,)) for t in affinity.required)
    pinned = NodeAffinity(affinity.node_selector, terms, affinity.preferred)
    return replace(ds.template, name=f"{ds.name}-{node}", affinity=pinned)
