"""Counters of bound pods per node, one per distinct (namespaces, label selector) some pod's spread constraint or
affinity term asks about, and the required anti-affinity terms the bound pods hold, kept up to date as pods are bound
and unbound (``ClusterState.bind``/``unbind``).

Upstream the PreFilter of PodTopologySpread and InterPodAffinity counts the matching pods of every node each cycle;
here each distinct selector is counted once and kept: a bind looks up only the counters a pod can match — indexed by
the namespace and one ``key=value`` every selected pod carries (the selector's ``anchor``), selectors without one by
namespace alone — so a bind costs O(the pod's labels + the counters it matches), and a pod without labels or
constraints costs a dictionary look-up. A counter asked for before any pod was bound is filled as the pods are bound;
one asked for later reads the bound pods once (O(pods)).

Cost: memory O(distinct selectors + nodes holding matching pods).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from renderer.impact.pods import SimPod
from renderer.impact.topology import AffinityTerm, PodSelector

__all__ = ["Counter", "PodCounts", "conjunction"]

_ALL = "\x00*"  # the namespace slot of a counter over every namespace


@dataclass(eq=False)
class Counter:
    """Bound pods matching ``selector`` in ``namespaces`` (None: every namespace), per node position."""

    namespaces: frozenset[str] | None
    selector: PodSelector
    per_node: dict[int, int] = field(default_factory=dict)

    def selects(self, pod: SimPod) -> bool:
        if self.namespaces is not None and pod.namespace not in self.namespaces:
            return False
        return self.selector.matches(dict(pod.labels))


@dataclass(eq=False)
class Holders:
    """Bound pods holding the required anti-affinity ``term``, per node position."""

    term: AffinityTerm
    per_node: dict[int, int] = field(default_factory=dict)


def conjunction(terms: Sequence[AffinityTerm]) -> tuple[frozenset[str] | None, PodSelector | None]:
    """(namespaces, selector) of the pods matching every term (InterPodAffinity counts an existing pod for a pod's
    affinity only when it matches all of its terms); selector None: no pod can."""
    namespaces: frozenset[str] | None = None
    requirements: list[object] = []
    for t in terms:
        if t.selector is None:
            return None, None
        if t.namespaces is not None:
            namespaces = t.namespaces if namespaces is None else namespaces & t.namespaces
        requirements.extend(t.selector.requirements)
    if namespaces is not None and not namespaces:
        return namespaces, None
    return namespaces, PodSelector(tuple(requirements))  # type: ignore[arg-type]


def _slots(namespaces: frozenset[str] | None) -> Iterable[str]:
    return (_ALL,) if namespaces is None else sorted(namespaces)


class PodCounts:
    """The counters and anti-affinity holders of one cluster state (see the module docstring)."""

    def __init__(self) -> None:
        self._counters: dict[tuple[frozenset[str] | None, PodSelector], Counter] = {}
        self._anchored: dict[tuple[str, str, str], list[Counter]] = {}
        self._loose: dict[str, list[Counter]] = {}
        self._holders: dict[AffinityTerm, Holders] = {}
        self._anti_anchored: dict[tuple[str, str, str], list[Holders]] = {}
        self._anti_loose: dict[str, list[Holders]] = {}
        self.bound = False  # whether a pod was bound since the counters were made (late counters read the pods)
        # the namespace slots that have counters / holders: a pod of another namespace costs one set look-up
        self._slots: set[str] = set()
        self._anti_slots: set[str] = set()

    # -- counters ------------------------------------------------------------------------------------------------

    def register(self, pods: Iterable[SimPod]) -> None:
        """Make, before any pod is bound, the counters ``pods``' constraints and affinity terms (required and
        preferred) will ask for."""
        for pod in pods:
            for c in (*pod.spread, *pod.soft_spread):
                if c.selector is not None:
                    self._make(frozenset((pod.namespace,)), c.selector)
            pa = pod.pod_affinity
            if pa.affinity:
                namespaces, selector = conjunction(pa.affinity)
                if selector is not None:
                    self._make(namespaces, selector)
            for t in pa.anti_affinity:
                if t.selector is not None:
                    self._make(t.namespaces, t.selector)
            for _, t in pa.preferred:
                if t.selector is not None:
                    self._make(t.namespaces, t.selector)

    def _make(self, namespaces: frozenset[str] | None, selector: PodSelector) -> tuple[Counter, bool]:
        key = (namespaces, selector)
        got = self._counters.get(key)
        if got is not None:
            return got, False
        counter = self._counters[key] = Counter(namespaces, selector)
        anchor = selector.anchor()
        for ns in _slots(namespaces):
            self._slots.add(ns)
            if anchor is None:
                self._loose.setdefault(ns, []).append(counter)
            else:
                self._anchored.setdefault((ns, *anchor), []).append(counter)
        return counter, True

    def counter(
        self, namespaces: frozenset[str] | None, selector: PodSelector, pods: Sequence[Sequence[SimPod]]
    ) -> Counter:
        """The counter of (``namespaces``, ``selector``); made now from ``pods`` (per node position) when new."""
        counter, new = self._make(namespaces, selector)
        if new and self.bound:
            for i, on_node in enumerate(pods):
                n = sum(1 for p in on_node if counter.selects(p))
                if n:
                    counter.per_node[i] = n
        return counter

    # -- binding -------------------------------------------------------------------------------------------------

    def _candidates(self, pod: SimPod) -> list[Counter]:
        found: list[Counter] = []
        for slot in (pod.namespace, _ALL):
            if slot in self._slots:
                found.extend(self._loose.get(slot, ()))
                anchored = self._anchored
                for k, v in pod.labels:
                    got = anchored.get((slot, k, v))
                    if got:
                        found.extend(got)
        return found

    def update(self, pod: SimPod, i: int, delta: int) -> None:
        """``pod`` bound to (``delta`` 1) or taken off (-1) node position ``i``."""
        self.bound = True
        candidates = self._candidates(pod)
        if candidates:
            labels = dict(pod.labels)
            for c in candidates:
                if (c.namespaces is None or pod.namespace in c.namespaces) and c.selector.matches(labels):
                    n = c.per_node.get(i, 0) + delta
                    if n:
                        c.per_node[i] = n
                    else:
                        del c.per_node[i]
        for t in pod.pod_affinity.anti_affinity:
            if t.selector is None:
                continue
            holders = self._holders.get(t)
            if holders is None:
                holders = self._holders[t] = Holders(t)
                anchor = t.selector.anchor()
                for ns in _slots(t.namespaces):
                    self._anti_slots.add(ns)
                    if anchor is None:
                        self._anti_loose.setdefault(ns, []).append(holders)
                    else:
                        self._anti_anchored.setdefault((ns, *anchor), []).append(holders)
            n = holders.per_node.get(i, 0) + delta
            if n:
                holders.per_node[i] = n
            else:
                del holders.per_node[i]

    def anti_holders(self, pod: SimPod) -> list[Holders]:
        """The anti-affinity terms of bound pods that select ``pod`` (InterPodAffinity's existing-pods check), with
        the nodes holding them."""
        if not self._holders:
            return []
        slots = [slot for slot in (pod.namespace, _ALL) if slot in self._anti_slots]
        if not slots:
            return []
        labels = dict(pod.labels)
        out: list[Holders] = []
        seen: set[int] = set()
        for slot in slots:
            found = list(self._anti_loose.get(slot, ()))
            for k, v in pod.labels:
                found.extend(self._anti_anchored.get((slot, k, v), ()))
            for h in found:
                if id(h) not in seen and h.per_node and h.term.selects(pod.namespace, labels):
                    seen.add(id(h))
                    out.append(h)
        return out
