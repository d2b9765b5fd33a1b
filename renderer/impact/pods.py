"""A pod as the simulation keeps it: a handful of integers and selectors, read from one pruned Pod object.

What counts (kubernetes/kubernetes: pkg/scheduler/framework/plugins/noderesources/fit.go, the kubelet's admission in
pkg/kubelet/lifecycle/predicate.go, and k8s.io/component-helpers resource.PodRequests):

- requests: ``renderer.verify.pods.pod_requests`` — containers summed, the init-container max rule with sidecars
  (restartable init containers), pod-level requests, plus ``spec.overhead``, and an in-place resize counted from the
  pod's status as the scheduler counts it (``UseStatusResources``) — converted to the scheduler's integers
  (``resources.py``); only non-zero requests are kept. The kubelet admits on its allocation
  (``SimPod.kubelet_requests``); a status that says nothing the spec does not is not read twice;
- scoring requests: the same with 100m cpu / 200Mi memory for a container that states no request
  (``NonMissingContainerRequests``; an explicit 0 stays 0);
- a pod holds room on a node when ``spec.nodeName`` is set and its phase is neither Succeeded nor Failed (the
  scheduler's informer field selector); every such pod also counts against the node's pod limit;
- a DaemonSet pod is one whose controlling owner reference is a DaemonSet; a mirror pod carries the
  ``kubernetes.io/config.mirror`` annotation, or a ``kubernetes.io/config.source`` other than ``api`` (a static pod of
  the kubelet: ``types.IsStaticPod``).

What the simulation does not model is recorded per pod (:data:`NOT_SIMULATED`), so a result can say which placements
may be wrong: the scores of inter-pod (anti-)affinity and topology spread, volumes bound to a zone or node, scheduling
gates, another scheduler, resource claims (DRA), a node nominated by preemption.

Cost: O(containers + tolerations + affinity requirements) per pod.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from sys import intern
from typing import Any, Final, TypeVar

from renderer.impact.affinity import ANY_NODE, NodeAffinity, parse_node_affinity
from renderer.impact.ports import HostPort, host_ports
from renderer.impact.resources import CPU, MEMORY, from_quantities
from renderer.impact.taints import Toleration, daemonset_tolerations, parse_tolerations
from renderer.impact.topology import (
    NO_POD_AFFINITY,
    PodAffinity,
    SpreadConstraint,
    parse_pod_affinity,
    parse_spread,
)
from renderer.loading.prune import KeepSpec
from renderer.quantity import Quantity
from renderer.verify.podrequests import spec_list
from renderer.verify.pods import POD_KEEP, STATUS_KEEP, TERMINAL_PHASES, NodeTotals, PodError, Requests, pod_requests
from renderer.verify.podstatus import resize_notes, status_is_plain

__all__ = [
    "DEFAULT_CPU_REQUEST_MILLI",
    "DEFAULT_MEMORY_REQUEST",
    "IMPACT_POD_KEEP",
    "NOT_SIMULATED",
    "PodError",
    "SimPod",
    "narrow_labels",
    "pod_from_object",
]

#: schedutil.DefaultMilliCPURequest / DefaultMemoryRequest: what scoring counts for a container without a request.
DEFAULT_CPU_REQUEST_MILLI: Final = 100
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024
_T = TypeVar("_T")
_NON_MISSING: Final = {CPU: Quantity.parse("100m"), MEMORY: Quantity.parse("200Mi")}
SYSTEM_CRITICAL_PRIORITY: Final = 2_000_000_000  # scheduling.SystemCriticalPriority
MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"
SOURCE_ANNOTATION: Final = "kubernetes.io/config.source"  # "file" or "http" for a static pod, "api" otherwise
SAFE_TO_EVICT_ANNOTATION: Final = "cluster-autoscaler.kubernetes.io/safe-to-evict"
DEFAULT_SCHEDULER: Final = "default-scheduler"

#: Scheduling features the simulation does not model, by the name results use, with what it means for a result.
NOT_SIMULATED: Final[dict[str, str]] = {
    "inter-pod affinity symmetry": "the pod's preferred podAffinity/podAntiAffinity terms are scored for its own "
    "placement, not for the pods placed after it that they select (InterPodAffinity's symmetric score): the "
    "scheduler may put those pods nearer to it or farther from it than the simulation",
    "namespace selector": "a pod affinity term's namespaceSelector selects namespaces by their labels, which a pods "
    "dump does not carry: the term is read with its listed namespaces only",
    "volumes": "persistent volumes (VolumeBinding, VolumeZone, NodeVolumeLimits) are not evaluated: a pod bound to "
    "a zonal or local volume may not fit where the simulation puts it",
    "scheduling gates": "the pod has schedulingGates: the scheduler does not place it until they are removed",
    "other scheduler": "the pod names another schedulerName: the default scheduler's rules may not apply",
    "preemption": "preemption (DefaultPreemption) is not simulated: a higher-priority pending pod could evict "
    "lower-priority pods instead of staying Pending",
    "pod disruption budgets": "PodDisruptionBudgets are not read: evictions and scale-down may be slower or blocked",
    "resource claims": "the pod has resourceClaims (dynamic resource allocation): the devices they need, and the "
    "DynamicResources filter, are not evaluated: such a pod may not fit where the simulation puts it",
    "nominated node": "the pod has status.nominatedNodeName (preemption made room for it there): the scheduler "
    "counts it on that node for pods of lower priority, the simulation places it like any Pending pod",
}

_CONTAINER: KeepSpec = {
    "name": True,
    "resources": {"requests": True},
    "restartPolicy": True,
    "ports": {"hostPort": True, "hostIP": True, "protocol": True},
}
#: The fields of a Pod the simulation reads (a superset of verify's ``POD_KEEP``); everything else is skipped while a
#: dump is read.
IMPACT_POD_KEEP: Final[KeepSpec] = {
    **POD_KEEP,
    "metadata": {
        "name": True,
        "namespace": True,
        "creationTimestamp": True,
        "labels": True,
        "ownerReferences": {"kind": True, "name": True, "controller": True},
        "annotations": {MIRROR_ANNOTATION: True, SOURCE_ANNOTATION: True, SAFE_TO_EVICT_ANNOTATION: True},
    },
    "spec": {
        "nodeName": True,
        "containers": _CONTAINER,
        "initContainers": _CONTAINER,
        "overhead": True,
        "resources": {"requests": True},
        "nodeSelector": True,
        "affinity": True,
        "tolerations": True,
        "priority": True,
        "hostNetwork": True,
        "schedulerName": True,
        "schedulingGates": True,
        "topologySpreadConstraints": True,
        "volumes": {"persistentVolumeClaim": True, "emptyDir": True, "hostPath": True, "ephemeral": True},
        "resourceClaims": {"name": True},
    },
    "status": {**STATUS_KEEP, "nominatedNodeName": True},
}


@dataclass(eq=False, slots=True)
class SimPod:
    """One pod. ``requests`` holds its non-zero requests in the scheduler's integers (``resources.py``), a dict
    shared by pods with the same requests (never change it); ``score_cpu``/``score_memory`` what scoring counts."""

    namespace: str
    name: str
    node: str | None
    phase: str
    requests: dict[str, int]
    score_cpu: int = 0
    score_memory: int = 0
    affinity: NodeAffinity = ANY_NODE
    tolerations: tuple[Toleration, ...] = ()
    host_ports: tuple[HostPort, ...] = ()
    priority: int = 0
    created: str = ""
    owner_kind: str = ""
    owner_name: str = ""
    mirror: bool = False
    host_network: bool = False
    safe_to_evict: bool | None = None
    local_storage: bool = False
    not_simulated: frozenset[str] = field(default_factory=frozenset)
    #: The pod's labels, sorted (what other pods' selectors match).
    labels: tuple[tuple[str, str], ...] = ()
    #: Its ``DoNotSchedule`` topology spread constraints (``topology.py``).
    spread: tuple[SpreadConstraint, ...] = ()
    #: Its ``ScheduleAnyway`` topology spread constraints (they only score: ``podscores.py``).
    soft_spread: tuple[SpreadConstraint, ...] = ()
    #: Its required inter-pod affinity and anti-affinity terms (``topology.py``).
    pod_affinity: PodAffinity = NO_POD_AFFINITY
    #: What the kubelet admits the pod with (its allocation, ``renderer.verify.pods``); None: ``requests``.
    admit: dict[str, int] | None = None
    #: How the pod was read, when worth saying (``renderer.verify.podstatus`` notes).
    notes: tuple[str, ...] = ()

    @property
    def kubelet_requests(self) -> dict[str, int]:
        """The requests the kubelet admits the pod with: its allocation where an in-place resize has not been
        applied yet, else ``requests``."""
        return self.requests if self.admit is None else self.admit

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    @property
    def holds_room(self) -> bool:
        """Bound to a node and not terminated: counts against that node's room and pod limit."""
        return self.node is not None and self.phase not in TERMINAL_PHASES

    @property
    def pending(self) -> bool:
        """Not bound and not terminated: waiting for the scheduler."""
        return self.node is None and self.phase not in TERMINAL_PHASES

    @property
    def daemonset(self) -> bool:
        return self.owner_kind == "DaemonSet"

    @property
    def critical(self) -> bool:
        """What the kubelet treats as critical: a static (mirror) pod or priority >= system-critical."""
        return self.mirror or self.priority >= SYSTEM_CRITICAL_PRIORITY

    @property
    def owner(self) -> tuple[str, str, str] | None:
        """The controlling owner (namespace, kind, name), None for a bare pod."""
        return (self.namespace, self.owner_kind, self.owner_name) if self.owner_kind else None

    def scheduling_tolerations(self) -> tuple[Toleration, ...]:
        """The tolerations the scheduler sees: a DaemonSet pod's include the controller's defaults (the controller
        writes them into every pod it creates; a pod read from a cluster already has them, a synthesised one not)."""
        if self.daemonset:
            return daemonset_tolerations(self.tolerations, self.host_network)
        return self.tolerations


_SHARED: dict[object, object] = {}
_SHARED_LIMIT: Final = 65536


def _shared(value: _T) -> _T:
    """One instance per distinct value: pods of one controller share their selectors, tolerations and strings, so
    200,000 pods keep a few thousand of each, not 200,000 (bounded: the table is dropped when it grows past
    65,536 entries)."""
    try:
        got = _SHARED.get(value)
    except TypeError:
        return value
    if got is None:
        if len(_SHARED) >= _SHARED_LIMIT:
            _SHARED.clear()
        _SHARED[value] = value
        return value
    return got  # type: ignore[return-value]


_REQUESTS: dict[tuple[tuple[str, int], ...], dict[str, int]] = {}


def _shared_requests(requests: dict[str, int]) -> dict[str, int]:
    """One (read-only) dict per distinct request vector, like :func:`_shared`."""
    key = tuple(requests.items())
    got = _REQUESTS.get(key)
    if got is None:
        if len(_REQUESTS) >= _SHARED_LIMIT:
            _REQUESTS.clear()
        _REQUESTS[key] = got = requests
    return got


def narrow_labels(pods: Iterable[SimPod]) -> None:
    """Keep of each pod's labels only the keys some pod's spread constraint or affinity term (required or preferred)
    selects on (no pod has one: none): a dump's labels are mostly hashes and names unique to a pod, which nothing here
    reads. Cost: O(pods × labels)."""
    pods = list(pods)
    keys: set[str] = set()
    for pod in pods:
        selectors = [c.selector for c in (*pod.spread, *pod.soft_spread)]
        selectors += [t.selector for t in (*pod.pod_affinity.affinity, *pod.pod_affinity.anti_affinity)]
        selectors += [t.selector for _, t in pod.pod_affinity.preferred]
        for selector in selectors:
            if selector is not None:
                keys.update(r.key for r in selector.requirements)
    for pod in pods:
        if pod.labels:
            pod.labels = _shared(tuple(pair for pair in pod.labels if pair[0] in keys))


def _map(value: Any, where: tuple[str | int, ...]) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PodError(where, "must be a mapping")
    return value


def _missing_cpu_or_memory(spec: Mapping[str, Any]) -> bool:
    for key in ("containers", "initContainers"):
        for c in spec_list(spec, key):
            req = ((c.get("resources") or {}).get("requests") or {}) if isinstance(c, dict) else {}
            if not isinstance(req, dict) or CPU not in req or MEMORY not in req:
                return True
    return False


def _controller(meta: Mapping[str, Any]) -> tuple[str, str]:
    refs = meta.get("ownerReferences")
    if not isinstance(refs, list):
        return "", ""
    fallback: tuple[str, str] = ("", "")
    for ref in refs:
        if not isinstance(ref, dict):
            continue
        kind, name = str(ref.get("kind") or ""), str(ref.get("name") or "")
        if ref.get("controller") is True:
            return kind, name
        if not fallback[0]:
            fallback = (kind, name)
    return fallback


def _not_simulated(spec: Mapping[str, Any], status: Mapping[str, Any], pod_affinity: PodAffinity) -> frozenset[str]:
    found: set[str] = set()
    if spec.get("resourceClaims"):
        found.add("resource claims")
    if status.get("nominatedNodeName"):
        found.add("nominated node")
    if pod_affinity.preferred:
        found.add("inter-pod affinity symmetry")
    if pod_affinity.partial:
        found.add("namespace selector")
    volumes = spec.get("volumes")
    if isinstance(volumes, list) and any(
        isinstance(v, dict) and (v.get("persistentVolumeClaim") or v.get("ephemeral")) for v in volumes
    ):
        found.add("volumes")
    if spec.get("schedulingGates"):
        found.add("scheduling gates")
    scheduler = spec.get("schedulerName")
    if scheduler and scheduler != DEFAULT_SCHEDULER:
        found.add("other scheduler")
    return frozenset(found)


def _local_storage(spec: Mapping[str, Any]) -> bool:
    volumes = spec.get("volumes")
    return isinstance(volumes, list) and any(
        isinstance(v, dict) and ("emptyDir" in v or "hostPath" in v) for v in volumes
    )


def _safe_to_evict(annotations: Mapping[str, Any]) -> bool | None:
    value = annotations.get(SAFE_TO_EVICT_ANNOTATION)
    if value is None:
        return None
    return str(value).lower() == "true"


def _requests(
    spec: Mapping[str, Any], status: Mapping[str, Any] | None, phase: Any, totals: NodeTotals | None
) -> tuple[dict[str, int], dict[str, int], dict[str, int] | None]:
    """(the scheduler's requests, its scoring requests, the kubelet's where they differ); ``status``: None when it
    says nothing the spec does not (``status_is_plain``)."""
    exact: Requests = pod_requests(spec, status=status)
    node = spec.get("nodeName")
    if totals is not None and node and phase not in TERMINAL_PHASES:
        totals.add(str(node), exact)
    requests = from_quantities(exact)
    if _missing_cpu_or_memory(spec):
        try:
            scoring = from_quantities(pod_requests(spec, _NON_MISSING, status), keep_zero=True)
        except PodError as exc:
            raise PodError(
                exc.field_path,
                f"as the scheduler scores it (100m cpu and 200Mi memory for a container that states none), {exc.reason}",
            ) from None
    else:
        scoring = requests
    admit = None
    if status is not None:
        kubelet = from_quantities(pod_requests(spec, status=status, kubelet=True))
        admit = kubelet if kubelet != requests else None
    return requests, scoring, admit


def pod_from_object(data: Mapping[str, Any], totals: NodeTotals | None = None) -> SimPod:
    """A pruned Pod object (``IMPACT_POD_KEEP``) → its :class:`SimPod`; ``PodError`` names a field that cannot be
    read. ``totals``: the requests of the pods on each node so far (a node whose pods add up past what a quantity
    holds is a ``PodError`` on the pod that crosses it)."""
    meta = _map(data.get("metadata"), ("metadata",))
    spec = _map(data.get("spec"), ("spec",))
    status = _map(data.get("status"), ("status",))
    plain = status_is_plain(spec, status)
    requests, scoring, admit = _requests(spec, None if plain else status, status.get("phase"), totals)
    annotations = _map(meta.get("annotations"), ("metadata", "annotations"))
    owner_kind, owner_name = _controller(meta)
    raw_labels = _map(meta.get("labels"), ("metadata", "labels"))
    # keys interned: a dump repeats a handful of label keys in every pod, the stream reader makes a string per pod
    labels = {intern(str(k)): "" if v is None else str(v) for k, v in raw_labels.items()}
    namespace = str(meta.get("namespace") or "")
    spread, soft_spread = parse_spread(spec.get("topologySpreadConstraints"), labels)
    pod_affinity = parse_pod_affinity(spec.get("affinity"), namespace, labels)
    priority = spec.get("priority")
    node = spec.get("nodeName")
    return SimPod(
        namespace=_shared(namespace),
        name=str(meta.get("name") or ""),
        node=_shared(str(node)) if node else None,
        phase=_shared(str(status.get("phase") or "")),
        requests=_shared_requests(requests),
        score_cpu=scoring.get(CPU, 0),
        score_memory=scoring.get(MEMORY, 0),
        affinity=_shared(parse_node_affinity(spec)),
        tolerations=_shared(parse_tolerations(spec.get("tolerations"))),
        host_ports=_shared(host_ports(spec.get("containers"))),
        priority=priority if isinstance(priority, int) and not isinstance(priority, bool) else 0,
        created=_shared(str(meta.get("creationTimestamp") or "")),
        owner_kind=_shared(owner_kind),
        owner_name=_shared(owner_name),
        mirror=MIRROR_ANNOTATION in annotations or annotations.get(SOURCE_ANNOTATION, "api") != "api",
        host_network=spec.get("hostNetwork") is True,
        safe_to_evict=_safe_to_evict(annotations),
        local_storage=_local_storage(spec),
        not_simulated=_shared(_not_simulated(spec, status, pod_affinity)),
        labels=_shared(tuple(sorted(labels.items()))),
        spread=_shared(spread),
        soft_spread=_shared(soft_spread),
        pod_affinity=_shared(pod_affinity),
        admit=None if admit is None else _shared_requests(admit),
        notes=() if plain else _shared(resize_notes(spec, status)),
    )
