"""Placing one pod the way the default kube-scheduler would, on a :class:`~renderer.impact.cluster.ClusterState`.

One scheduling cycle (pkg/scheduler/schedule_one.go):

1. filters, in the default order: NodeUnschedulable, TaintToleration, NodeAffinity (static: ``cluster.Eligibility``),
   NodePorts, NodeResourcesFit (``ports.py``, ``fit.py``);
2. the search walks the nodes from where the previous cycle stopped and stops once it has found
   ``numFeasibleNodesToFind`` feasible nodes (``scoring.num_feasible_nodes_to_find``); the next cycle starts after the
   last node examined;
3. the feasible nodes are scored — TaintToleration ×3, NodeAffinity ×2, NodeResourcesFit (LeastAllocated) ×1,
   BalancedAllocation ×1, each normalised over the feasible set as the plugins do — and the highest total wins
   (ties: the first in node order, where the scheduler picks one at random).

Not simulated: PodTopologySpread, InterPodAffinity, volume plugins, ImageLocality, preemption (``pods.NOT_SIMULATED``).

Keeping it linear: nodes a pod may use at all come from the static index, so a pod pinned to a pool walks that pool
only. While pods are only added (room only shrinks), a node found too full or with a port taken for a pod of some
shape stays so for every later pod of the same shape (same static filters, requests and host ports): such nodes are
dropped from that shape's list, so a long run of pods of one shape never re-examines a node it already found full. Any
freed room (``ClusterState.epoch``) resets those lists. Counters (``examined``, ``scored``) record the work done.

Cost per pod: O(examined nodes) for the search, at most ``numFeasibleNodesToFind`` of them scored; the dropping keeps
the examined nodes of one shape at O(its eligible nodes + pods) over a whole run.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field

from renderer.impact.affinity import preferred_score
from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.fit import DEFAULT_ARGS, FitArgs, fits
from renderer.impact.pods import SimPod
from renderer.impact.ports import conflicts
from renderer.impact.resources import CPU, MEMORY
from renderer.impact.scoring import (
    PLUGIN_WEIGHTS,
    balanced_allocation,
    fraction,
    least_allocated,
    num_feasible_nodes_to_find,
)
from renderer.impact.taints import prefer_no_schedule_count

__all__ = ["Scheduler", "Shape"]

_W_TAINT = PLUGIN_WEIGHTS["TaintToleration"]
_W_AFFINITY = PLUGIN_WEIGHTS["NodeAffinity"]
_W_FIT = PLUGIN_WEIGHTS["NodeResourcesFit"]
_W_BALANCED = PLUGIN_WEIGHTS["NodeResourcesBalancedAllocation"]


@dataclass
class Shape:
    """Pods that are interchangeable for the filters: the nodes still worth examining for them."""

    eligible: list[int]
    alive: list[int]
    epoch: int
    stale: set[int] = field(default_factory=set)


def _shape_key(pod: SimPod) -> tuple[object, ...]:
    return (pod.affinity, pod.scheduling_tolerations(), tuple(sorted(pod.requests.items())), pod.host_ports)


class Scheduler:
    """The default scheduler's filter/score cycle over a cluster state (see the module docstring)."""

    def __init__(
        self, state: ClusterState, fit_args: FitArgs = DEFAULT_ARGS, percentage_of_nodes_to_score: int = 0
    ) -> None:
        self.state = state
        self.fit_args = fit_args
        self.percentage = percentage_of_nodes_to_score
        self.eligibility = Eligibility(state.nodes)
        self._shapes: dict[tuple[object, ...], Shape] = {}
        self._next_start = 0
        self._prefer_counts: dict[tuple[object, ...], int] = {}
        self.examined = 0
        self.scored = 0

    # -- filters -------------------------------------------------------------------------------------------------

    def _shape(self, pod: SimPod) -> Shape:
        key = _shape_key(pod)
        shape = self._shapes.get(key)
        if shape is None:
            eligible = self.eligibility.eligible(pod.affinity, pod.scheduling_tolerations())
            shape = Shape(eligible, list(eligible), self.state.epoch)
            self._shapes[key] = shape
        elif shape.epoch != self.state.epoch:
            shape.alive = list(shape.eligible)
            shape.stale.clear()
            shape.epoch = self.state.epoch
        return shape

    def feasible(self, pod: SimPod, i: int) -> bool:
        """NodePorts and NodeResourcesFit on node ``i`` (the static filters are the caller's)."""
        st = self.state
        if st.removed[i]:
            return False
        if pod.host_ports and conflicts(pod.host_ports, st.ports[i]):
            return False
        return fits(pod.requests, st.allocatable[i], st.used[i], st.count[i], self.fit_args)

    def eligible(self, pod: SimPod) -> list[int]:
        """Nodes the static filters allow for ``pod``."""
        return self.eligibility.eligible(pod.affinity, pod.scheduling_tolerations())

    # -- one cycle -----------------------------------------------------------------------------------------------

    def find(self, pod: SimPod) -> list[int]:
        """The feasible nodes one scheduling cycle collects for ``pod`` (at most numFeasibleNodesToFind), advancing
        the start of the next search as the scheduler does."""
        shape = self._shape(pod)
        alive = shape.alive
        n = len(alive)
        if n == 0:
            return []
        total = len(self.state)
        want = num_feasible_nodes_to_find(total - self.state.removed_count, self.percentage)
        start = bisect_left(alive, self._next_start)
        found: list[int] = []
        stale = shape.stale
        last = -1
        k = 0
        while k < n:
            i = alive[(start + k) % n]
            k += 1
            if i in stale:
                continue
            self.examined += 1
            if self.feasible(pod, i):
                found.append(i)
                if len(found) >= want:
                    last = i
                    break
            else:
                stale.add(i)
        if last >= 0:
            self._next_start = (last + 1) % total
        if len(stale) > 8 and len(stale) * 4 > n:
            shape.alive = [i for i in alive if i not in stale]
            stale.clear()
        return found

    def score(self, pod: SimPod, candidates: list[int]) -> int:
        """The candidate the default score plugins rank highest (the first of equals)."""
        if len(candidates) == 1:
            return candidates[0]
        st = self.state
        nodes = st.nodes
        tolerations = pod.scheduling_tolerations()
        counts = self._prefer_counts
        taint_raw = []
        for i in candidates:
            taints = nodes[i].taints
            if not taints:
                taint_raw.append(0)
                continue
            key = (tolerations, taints)
            count = counts.get(key)
            if count is None:
                count = counts[key] = prefer_no_schedule_count(taints, tolerations)
            taint_raw.append(count)
        taint_max = max(taint_raw)
        affinity = pod.affinity
        if affinity.preferred:
            pref_raw = [preferred_score(affinity, nodes[i].labels, nodes[i].name) for i in candidates]
        else:
            pref_raw = [0] * len(candidates)
        pref_max = max(pref_raw)
        pod_cpu, pod_mem = pod.score_cpu, pod.score_memory
        real_cpu, real_mem = pod.requests.get(CPU, 0), pod.requests.get(MEMORY, 0)
        best = -1
        best_total = -1
        for k, i in enumerate(candidates):
            alloc = st.allocatable[i]
            a_cpu, a_mem = alloc.get(CPU, 0), alloc.get(MEMORY, 0)
            parts = weights = 0
            if a_cpu:
                parts += least_allocated(st.score_cpu[i] + pod_cpu, a_cpu)
                weights += 1
            if a_mem:
                parts += least_allocated(st.score_memory[i] + pod_mem, a_mem)
                weights += 1
            fit_score = parts // weights if weights else 0
            used = st.used[i]
            fractions = []
            if a_cpu:
                fractions.append(fraction(used.get(CPU, 0) + real_cpu, a_cpu))
            if a_mem:
                fractions.append(fraction(used.get(MEMORY, 0) + real_mem, a_mem))
            balanced = balanced_allocation(fractions)
            taint_score = 100 if taint_max == 0 else 100 - taint_raw[k] * 100 // taint_max
            pref_score = 0 if pref_max == 0 else pref_raw[k] * 100 // pref_max
            total = _W_TAINT * taint_score + _W_AFFINITY * pref_score + _W_FIT * fit_score + _W_BALANCED * balanced
            if total > best_total:
                best, best_total = i, total
        self.scored += len(candidates)
        return best

    def place(self, pod: SimPod) -> int | None:
        """Run one scheduling cycle: bind ``pod`` to the chosen node and return its position, or None (Pending)."""
        candidates = self.find(pod)
        if not candidates:
            return None
        i = self.score(pod, candidates)
        self.state.bind(pod, i)
        return i

    def first_fit(self, pod: SimPod, exclude: int = -1) -> int | None:
        """The first node (in node order from the rotating start) where ``pod`` passes every filter, without scoring:
        how the cluster autoscaler's simulator re-places pods (``FitsAnyNodeMatching``). Not bound."""
        eligible = self.eligible(pod)
        n = len(eligible)
        if n == 0:
            return None
        start = bisect_left(eligible, self._next_start)
        for k in range(n):
            i = eligible[(start + k) % n]
            if i == exclude:
                continue
            self.examined += 1
            if self.feasible(pod, i):
                self._next_start = (i + 1) % len(self.state)
                return i
        return None
