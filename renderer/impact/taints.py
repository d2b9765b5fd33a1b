"""Taints and tolerations: the TaintToleration and NodeUnschedulable filters, the TaintToleration score, and the
tolerations the DaemonSet controller gives its pods.

Rules (k8s.io/api core/v1 toleration.go ``ToleratesTaint``; kube-scheduler plugins tainttoleration and
nodeunschedulable):

- a toleration matches a taint when its effect is empty or equal, its key is empty (only with ``Exists``: every key)
  or equal, and its operator ``Exists`` ignores the value while ``Equal`` or empty needs equal values; ``Gt``/``Lt``
  (TaintTolerationComparisonOperators, 1.35+) compare both values as int64 (taint value greater/less than the
  toleration's; a value that is not an integer never matches); any other operator never matches;
  ``tolerationSeconds`` does not matter to the scheduler;
- the TaintToleration filter looks only at ``NoSchedule`` and ``NoExecute`` taints; the first one no toleration
  matches fails the node ("node(s) had untolerated taint {key: value}");
- NodeUnschedulable: a node with ``spec.unschedulable`` rejects a pod unless a toleration matches the taint
  ``node.kubernetes.io/unschedulable`` with an empty value and effect ``NoSchedule``;
- the score counts ``PreferNoSchedule`` taints not matched by a toleration whose effect is empty or
  ``PreferNoSchedule``; normalised so the node with the fewest gets 100: ``100 - count * 100 / max`` (integer).

Cost: O(taints) per (pod, node) through a :class:`TolerationIndex` of the pod's tolerations (built once per
distinct tuple of tolerations, O(tolerations)); callers cache the answer per distinct (tolerations, taints).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from renderer.labels import parse_int64

__all__ = [
    "DAEMONSET_TOLERATIONS",
    "HOST_NETWORK_TOLERATION",
    "UNSCHEDULABLE_TAINT",
    "Taint",
    "Toleration",
    "TolerationIndex",
    "daemonset_tolerations",
    "first_untolerated",
    "parse_taints",
    "parse_tolerations",
    "prefer_no_schedule_count",
    "taint_scores",
    "tolerates",
    "tolerates_unschedulable",
]

NO_SCHEDULE: Final = "NoSchedule"
NO_EXECUTE: Final = "NoExecute"
PREFER_NO_SCHEDULE: Final = "PreferNoSchedule"
FILTERED_EFFECTS: Final = (NO_SCHEDULE, NO_EXECUTE)


@dataclass(frozen=True, slots=True)
class Taint:
    key: str
    value: str = ""
    effect: str = ""

    def __str__(self) -> str:
        # The scheduler's own wording: "{key: value}".
        return f"{{{self.key}: {self.value}}}"


@dataclass(frozen=True, slots=True)
class Toleration:
    key: str = ""
    operator: str = ""  # "" means Equal
    value: str = ""
    effect: str = ""


UNSCHEDULABLE_TAINT: Final = Taint("node.kubernetes.io/unschedulable", "", NO_SCHEDULE)


def _exists(key: str, effect: str) -> Toleration:
    return Toleration(key=key, operator="Exists", effect=effect)


#: What ``AddOrUpdateDaemonPodTolerations`` adds to every DaemonSet pod (kubernetes/kubernetes
#: pkg/controller/daemon/util/daemonset_util.go), so DaemonSet pods ignore cordon and node conditions.
DAEMONSET_TOLERATIONS: Final = (
    _exists("node.kubernetes.io/not-ready", NO_EXECUTE),
    _exists("node.kubernetes.io/unreachable", NO_EXECUTE),
    _exists("node.kubernetes.io/disk-pressure", NO_SCHEDULE),
    _exists("node.kubernetes.io/memory-pressure", NO_SCHEDULE),
    _exists("node.kubernetes.io/pid-pressure", NO_SCHEDULE),
    _exists("node.kubernetes.io/unschedulable", NO_SCHEDULE),
)
#: Added as well when the pod uses the host network.
HOST_NETWORK_TOLERATION: Final = _exists("node.kubernetes.io/network-unavailable", NO_SCHEDULE)


_DAEMON_TOLERATIONS: dict[tuple[int, bool], tuple[Sequence[Toleration], tuple[Toleration, ...]]] = {}


def daemonset_tolerations(own: Sequence[Toleration], host_network: bool) -> tuple[Toleration, ...]:
    """``own`` plus the DaemonSet controller's defaults that are not already there. Kept per ``own`` object (pods
    share one tuple per distinct list of tolerations, so the scheduler's many calls for one pod build it once; the
    table is bounded like the pods' shared values)."""
    key = (id(own), host_network)
    got = _DAEMON_TOLERATIONS.get(key)
    if got is not None and got[0] is own:
        return got[1]
    extra = (*DAEMONSET_TOLERATIONS, HOST_NETWORK_TOLERATION) if host_network else DAEMONSET_TOLERATIONS
    seen = set(own)
    out = (*own, *(t for t in extra if t not in seen))
    if len(_DAEMON_TOLERATIONS) >= 65536:
        _DAEMON_TOLERATIONS.clear()
    _DAEMON_TOLERATIONS[key] = (own, out)
    return out


def tolerates(t: Toleration, taint: Taint) -> bool:
    """Whether ``t`` matches ``taint`` (see the module docstring)."""
    if t.effect and t.effect != taint.effect:
        return False
    if t.key and t.key != taint.key:
        return False
    op = t.operator or "Equal"
    if op == "Exists":
        return True
    if op == "Equal":
        return t.value == taint.value
    if op in ("Gt", "Lt"):
        mine, theirs = parse_int64(t.value), parse_int64(taint.value)
        if mine is None or theirs is None:
            return False
        return theirs > mine if op == "Gt" else theirs < mine
    return False


class TolerationIndex:
    """A pod's tolerations indexed so that a taint looks at the few that can match it: ``Equal`` (or empty)
    operators by (key, value), ``Exists`` by key, each with the set of effects they name ("" for all); tolerations
    with an empty key and ``Gt``/``Lt`` or unknown operators stay in short lists checked with :func:`tolerates`.
    Same answers as checking every toleration. Cost: building O(tolerations); a taint O(1) plus the ``Gt``/``Lt``
    tolerations of its key and those with an empty key."""

    __slots__ = ("_any", "_equal", "_exists", "_other")

    def __init__(self, tolerations: Iterable[Toleration]) -> None:
        self._equal: dict[tuple[str, str], set[str]] = {}
        self._exists: dict[str, set[str]] = {}
        self._other: dict[str, list[Toleration]] = {}
        self._any: list[Toleration] = []
        for t in tolerations:
            op = t.operator or "Equal"
            if not t.key:
                self._any.append(t)
            elif op == "Equal":
                self._equal.setdefault((t.key, t.value), set()).add(t.effect)
            elif op == "Exists":
                self._exists.setdefault(t.key, set()).add(t.effect)
            else:
                self._other.setdefault(t.key, []).append(t)

    def tolerated(self, taint: Taint) -> bool:
        """Whether any of the tolerations matches ``taint``."""
        for effects in (self._equal.get((taint.key, taint.value)), self._exists.get(taint.key)):
            if effects and ("" in effects or taint.effect in effects):
                return True
        others = self._other.get(taint.key)
        if others and any(tolerates(t, taint) for t in others):
            return True
        return any(tolerates(t, taint) for t in self._any)


#: Below this many tolerations a plain loop is cheaper than an index.
_INDEX_FROM = 8
_INDEXES: dict[int, tuple[Sequence[Toleration], TolerationIndex]] = {}


def _index(tolerations: Sequence[Toleration]) -> TolerationIndex:
    """The index of ``tolerations``, kept per tuple object (pods share one tuple per distinct list; bounded)."""
    got = _INDEXES.get(id(tolerations))
    if got is not None and got[0] is tolerations:
        return got[1]
    index = TolerationIndex(tolerations)
    if isinstance(tolerations, tuple):
        if len(_INDEXES) >= 4096:
            _INDEXES.clear()
        _INDEXES[id(tolerations)] = (tolerations, index)
    return index


def _tolerated(taint: Taint, tolerations: Iterable[Toleration]) -> bool:
    return any(tolerates(t, taint) for t in tolerations)


def first_untolerated(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> Taint | None:
    """The first ``NoSchedule``/``NoExecute`` taint no toleration matches (the filter's failure), or None."""
    if len(tolerations) < _INDEX_FROM:
        for taint in taints:
            if taint.effect in FILTERED_EFFECTS and not _tolerated(taint, tolerations):
                return taint
        return None
    index = _index(tolerations)
    for taint in taints:
        if taint.effect in FILTERED_EFFECTS and not index.tolerated(taint):
            return taint
    return None


def tolerates_unschedulable(tolerations: Sequence[Toleration]) -> bool:
    """Whether the pod may land on a cordoned node (NodeUnschedulable)."""
    return _tolerated(UNSCHEDULABLE_TAINT, tolerations)


def prefer_no_schedule_count(taints: Iterable[Taint], tolerations: Sequence[Toleration]) -> int:
    """``PreferNoSchedule`` taints not tolerated, counting only tolerations whose effect is empty or
    ``PreferNoSchedule`` (the TaintToleration score's raw value). A toleration of another effect never matches a
    ``PreferNoSchedule`` taint anyway, so the pod's whole index answers."""
    if len(tolerations) < _INDEX_FROM:
        return sum(1 for taint in taints if taint.effect == PREFER_NO_SCHEDULE and not _tolerated(taint, tolerations))
    index = _index(tolerations)
    return sum(1 for taint in taints if taint.effect == PREFER_NO_SCHEDULE and not index.tolerated(taint))


def taint_scores(counts: Mapping[str, int]) -> dict[str, int]:
    """Normalised TaintToleration scores from raw counts per node: ``100 - count * 100 / max`` (100 when no node
    has any intolerable taint)."""
    top = max(counts.values(), default=0)
    if top == 0:
        return dict.fromkeys(counts, 100)
    return {name: 100 - count * 100 // top for name, count in counts.items()}


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def parse_taints(raw: Any) -> tuple[Taint, ...]:
    """``spec.taints`` of a Node (entries that are not mappings are skipped: the API server never stores them)."""
    if not isinstance(raw, list):
        return ()
    return tuple(
        Taint(_text(t.get("key")), _text(t.get("value")), _text(t.get("effect"))) for t in raw if isinstance(t, dict)
    )


def parse_tolerations(raw: Any) -> tuple[Toleration, ...]:
    """``spec.tolerations`` of a Pod (entries that are not mappings are skipped)."""
    if not isinstance(raw, list):
        return ()
    return tuple(
        Toleration(_text(t.get("key")), _text(t.get("operator")), _text(t.get("value")), _text(t.get("effect")))
        for t in raw
        if isinstance(t, dict)
    )
