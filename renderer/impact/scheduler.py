"""Placing one pod the way the default kube-scheduler would, on a :class:`~renderer.impact.cluster.ClusterState`.

One scheduling cycle (pkg/scheduler/schedule_one.go):

1. filters, in the default order: NodeUnschedulable, TaintToleration, NodeAffinity (static: ``cluster.Eligibility``),
   NodePorts, NodeResourcesFit (``ports.py``, ``fit.py``);
2. the search walks the nodes from where the previous cycle stopped and stops once it has found
   ``numFeasibleNodesToFind`` feasible nodes (``scoring.num_feasible_nodes_to_find``); the next cycle starts after the
   last node examined;
3. the feasible nodes are scored — TaintToleration ×3, NodeAffinity ×2, NodeResourcesFit (LeastAllocated) ×1,
   BalancedAllocation ×1, for a pod with preferred podAffinity/podAntiAffinity terms InterPodAffinity ×2 and for
   one with ``ScheduleAnyway`` spread constraints PodTopologySpread ×2 (``podscores.py``), each normalised over the
   feasible set as the plugins do — and the highest total wins (ties: the first in node order, where the scheduler
   picks one at random).

PodTopologySpread and InterPodAffinity (``podfilters.py``) filter after NodeResourcesFit: a pod they restrict is
placed as if its node affinity carried their node requirements (``key NotIn [forbidden domains]``, ``key In
[allowed]``, ``key Exists``: a derived static-filter class, with its own room tree), and the few nodes of forbidden
hostname-like domains are excluded leaves the descents skip (``view``); a pod they cannot restrict keeps its path.
Not simulated: PodTopologySpread's default constraints, InterPodAffinity's symmetric score (bound pods' terms
toward the incoming pod), volume plugins, ImageLocality, preemption (``pods.NOT_SIMULATED``).

Keeping it linear: nodes a pod may use at all come from the static index, so a pod pinned to a pool walks that pool
only. While pods are only added (room only shrinks), a node found too full or with a port taken for a pod of some
shape stays so for every later pod of the same shape (same static filters, requests and host ports): such nodes are
dropped from that shape's list, so a long run of pods of one shape never re-examines a node it already found full. Any
freed room (``ClusterState.epoch``) resets those lists. Counters (``examined``, ``scored``) record the work done.

Shared room trees: the nodes of one static-filter class (node affinity and tolerations) with more than
``TREE_MIN_NODES`` nodes get one ``roomtree.RoomTree``, shared by every pod of the class whatever its requests: a
cycle is a count descent to the end of the window and a branch-and-bound descent to its first best node, the first fit
scale-down asks for one descent (same choices as the walk; tests/impact/test_impact_roomtree.py holds the tree to a
plain walk, tests/impact/test_impact_scheduler.py the scheduler). The tree answers pods that request only cpu, memory
and ephemeral-storage and use no host port; their scores must depend on each node alone (no preferred node or pod
affinity, no ScheduleAnyway spread, no PreferNoSchedule taint the pod does not tolerate on its nodes) for a cycle,
not for a first fit. Other pods of a class with enough nodes get a ``scoretree.ScoreTree`` of their own shape (a
leaf per node: its score or -1), the rest are walked. Pods pinned to one node by name (DaemonSet pods) look at that
node only.

Cost per pod: with a room tree O(log nodes) descents plus the mixed and the not-outscored subtrees of the window
(``roomtree.py``), plus O(log nodes) per node whose usage changed since the class's last cycle; a class's tree costs
O(its nodes) once, whatever the number of distinct requests. With a shape's score tree the same, but O(its nodes)
per shape. Walked: O(examined nodes), at most ``numFeasibleNodesToFind`` of them scored, the dropping keeping the
examined nodes of one shape at O(its eligible nodes + pods) over a whole run.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field, replace

from renderer.capacity.selectors import Term
from renderer.impact.affinity import NodeAffinity, PreferredScorer, only_node
from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.fit import DEFAULT_ARGS, FitArgs, fits
from renderer.impact.podfilters import PodFilters
from renderer.impact.pods import SimPod
from renderer.impact.podscores import interpod_raw, min_max, spread_scores
from renderer.impact.ports import conflicts
from renderer.impact.resources import CPU, EPHEMERAL_STORAGE, MEMORY
from renderer.impact.roomtree import RoomTree, Want
from renderer.impact.scoretree import ScoreTree
from renderer.impact.scoring import PLUGIN_WEIGHTS, num_feasible_nodes_to_find
from renderer.impact.taints import Toleration, prefer_no_schedule_count

__all__ = ["TREE_MIN_NODES", "Scheduler", "Shape"]

#: Shapes with fewer eligible nodes are walked (a walk over a few nodes costs what the tree's descents cost).
TREE_MIN_NODES = 64

#: What the room trees compare (``roomtree.py``); a pod requesting anything else uses a tree of its own shape.
_ROOM_RESOURCES = frozenset({CPU, MEMORY, EPHEMERAL_STORAGE})

_W_TAINT = PLUGIN_WEIGHTS["TaintToleration"]
_W_AFFINITY = PLUGIN_WEIGHTS["NodeAffinity"]
_W_FIT = PLUGIN_WEIGHTS["NodeResourcesFit"]
_W_BALANCED = PLUGIN_WEIGHTS["NodeResourcesBalancedAllocation"]
_W_INTERPOD = PLUGIN_WEIGHTS["InterPodAffinity"]
_W_SPREAD = PLUGIN_WEIGHTS["PodTopologySpread"]


@dataclass
class Skip:
    """The nodes PodTopologySpread and InterPodAffinity reject besides the node requirements they add: positions
    (sorted) and the banned values of one key."""

    excluded: list[int] = field(default_factory=list)
    banned: tuple[str, frozenset[str]] | None = None
    excluded_set: frozenset[int] = field(init=False)

    def __post_init__(self) -> None:
        self.excluded_set = frozenset(self.excluded)

    def __bool__(self) -> bool:
        return bool(self.excluded) or self.banned is not None


_NO_SKIP = Skip()


@dataclass
class Shape:
    """Pods that are interchangeable for the filters: the nodes still worth examining for them."""

    eligible: list[int]
    alive: list[int]
    epoch: int
    stale: set[int] = field(default_factory=set)


def _shape_key(pod: SimPod) -> tuple[object, ...]:
    return (pod.affinity, pod.scheduling_tolerations(), tuple(sorted(pod.requests.items())), pod.host_ports)


def resource_scores(st: ClusterState, i: int, pod_cpu: int, pod_mem: int, real_cpu: int, real_mem: int) -> int:
    """NodeResourcesFit (LeastAllocated on cpu and memory, with the scoring requests ``pod_cpu``/``pod_mem``) and
    BalancedAllocation (on the actual requests ``real_cpu``/``real_mem``) of node ``i``, weighted: ``scoring.py``'s
    arithmetic, inlined (the hot loop of placement). Resources with allocatable 0 are skipped."""
    a_cpu, a_mem = st.alloc_cpu[i], st.alloc_mem[i]
    parts = weights = 0
    f: list[float] = []
    if a_cpu:
        r = st.score_cpu[i] + pod_cpu
        parts += 0 if r > a_cpu else (a_cpu - r) * 100 // a_cpu
        weights += 1
        x = (st.used_cpu[i] + real_cpu) / a_cpu
        f.append(1.0 if x > 1 else x)
    if a_mem:
        r = st.score_memory[i] + pod_mem
        parts += 0 if r > a_mem else (a_mem - r) * 100 // a_mem
        weights += 1
        x = (st.used_mem[i] + real_mem) / a_mem
        f.append(1.0 if x > 1 else x)
    fit_score = parts // weights if weights else 0
    balanced = int((1 - abs((f[0] - f[1]) / 2)) * 100) if len(f) == 2 else 100
    return _W_FIT * fit_score + _W_BALANCED * balanced


class Scheduler:
    """The default scheduler's filter/score cycle over a cluster state (see the module docstring).

    ``prune=False`` turns the per-shape dropping of full nodes off (every search walks all eligible nodes): the
    reference the tests hold the pruned engine to."""

    def __init__(
        self,
        state: ClusterState,
        fit_args: FitArgs = DEFAULT_ARGS,
        percentage_of_nodes_to_score: int = 0,
        prune: bool = True,
        eligibility: Eligibility | None = None,
    ) -> None:
        self.state = state
        self.fit_args = fit_args
        self.percentage = percentage_of_nodes_to_score
        self.prune = prune
        #: The static filters: ``eligibility`` when given (another run over the same nodes in the same order).
        self.eligibility = eligibility if eligibility is not None else Eligibility(state.nodes)
        #: PodTopologySpread and InterPodAffinity (``podfilters.py``).
        self.filters = PodFilters(state, self.eligibility)
        self._shapes: dict[tuple[object, ...], Shape] = {}
        self._next_start = 0
        self._prefer_counts: dict[tuple[object, ...], int] = {}
        self._scorers: dict[tuple[tuple[int, Term], ...], PreferredScorer] = {}
        self._trees: dict[tuple[object, ...], ScoreTree | None] = {}
        self._rooms: dict[tuple[NodeAffinity, tuple[Toleration, ...]], tuple[RoomTree | None, bool]] = {}
        # A trial (scale-down tries to empty a node and may undo it): nodes whose room the trial changed, and the
        # "too full" marks made on them, undone if the trial is.
        self._trial: list[tuple[set[int], int]] | None = None
        self._trial_nodes: set[int] = set()
        self.examined = 0
        self.scored = 0
        #: Tree nodes the room trees' descents visited (each is O(1) work, like a node examined).
        self.visited = 0
        #: Pods the spread and inter-pod filters restricted.
        self.constrained = 0

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

    def _scan(self, pod: SimPod, want: int, exclude: int = -1, skip: Skip | None = None) -> tuple[list[int], int]:
        """Walk the nodes ``pod`` may use from the rotating start until ``want`` feasible ones are found:
        (found, the node the walk stopped at or -1 when it went all the way round). ``excluded``: nodes another
        filter rejects (not marked as too full: that can change)."""
        rejects = skip if skip else None
        shape = self._shape(pod)
        alive = shape.alive
        n = len(alive)
        found: list[int] = []
        if n == 0:
            return found, -1
        stale = shape.stale
        trial, trial_nodes = self._trial, self._trial_nodes
        prune = self.prune
        start = bisect_left(alive, self._next_start)
        for k in range(n):
            i = alive[(start + k) % n]
            if i == exclude or i in stale or (rejects is not None and self._rejects(rejects, i)):
                continue
            self.examined += 1
            if self.feasible(pod, i):
                found.append(i)
                if len(found) >= want:
                    return found, i
            elif prune:
                stale.add(i)
                if trial is not None and i in trial_nodes:
                    trial.append((stale, i))
        if trial is None and len(stale) > 8 and len(stale) * 4 > n:
            shape.alive = [i for i in alive if i not in stale]
            stale.clear()
        return found, -1

    # -- one cycle -----------------------------------------------------------------------------------------------

    def find(self, pod: SimPod, skip: Skip | None = None) -> list[int]:
        """The feasible nodes one scheduling cycle collects for ``pod`` (at most numFeasibleNodesToFind), advancing
        the start of the next search as the scheduler does."""
        want = num_feasible_nodes_to_find(len(self.state) - self.state.removed_count, self.percentage)
        found, last = self._scan(pod, want, skip=skip)
        if last >= 0:
            self._next_start = (last + 1) % len(self.state)
        return found

    def totals(self, pod: SimPod, candidates: list[int], source: SimPod | None = None) -> list[int]:
        """The weighted score total of each candidate: TaintToleration and NodeAffinity normalised over the
        candidates, NodeResourcesFit (LeastAllocated on cpu and memory) and BalancedAllocation per node. The
        arithmetic is ``scoring.py``'s, inlined (this is the hot loop of placement)."""
        st = self.state
        nodes = st.nodes
        n = len(candidates)
        tolerations = pod.scheduling_tolerations()
        counts = self._prefer_counts
        taint_raw = [0] * n
        for k, i in enumerate(candidates):
            taints = nodes[i].taints
            if taints:
                key = (tolerations, taints)
                count = counts.get(key)
                if count is None:
                    count = counts[key] = prefer_no_schedule_count(taints, tolerations)
                taint_raw[k] = count
        taint_max = max(taint_raw)
        affinity = pod.affinity
        pref_raw = [0] * n
        if affinity.preferred:
            scorer = self._scorers.get(affinity.preferred)
            if scorer is None:
                if len(self._scorers) >= 256:  # bounded: one memo per distinct list of terms
                    self._scorers.clear()
                scorer = self._scorers[affinity.preferred] = PreferredScorer(affinity.preferred)
            pref_raw = [scorer.score(nodes[i].labels, nodes[i].name) for i in candidates]
        pref_max = max(pref_raw)
        interpod = (
            min_max(interpod_raw(pod, st, self.filters.counts, candidates)) if pod.pod_affinity.preferred else None
        )
        # PodTopologySpread's node inclusion policy reads the pod's own node affinity, not the filters' view of it
        spread = spread_scores(source or pod, st, self.filters.counts, candidates) if pod.soft_spread else None
        pod_cpu, pod_mem = pod.score_cpu, pod.score_memory
        real_cpu, real_mem = pod.requests.get(CPU, 0), pod.requests.get(MEMORY, 0)
        out = []
        for k, i in enumerate(candidates):
            taint_score = 100 if taint_max == 0 else 100 - taint_raw[k] * 100 // taint_max
            pref_score = 0 if pref_max == 0 else pref_raw[k] * 100 // pref_max
            resources = resource_scores(st, i, pod_cpu, pod_mem, real_cpu, real_mem)
            total = _W_TAINT * taint_score + _W_AFFINITY * pref_score + resources
            if interpod is not None:
                total += _W_INTERPOD * interpod[k]
            if spread is not None:
                total += _W_SPREAD * spread[k]
            out.append(total)
        self.scored += n
        return out

    def score(self, pod: SimPod, candidates: list[int], source: SimPod | None = None) -> int:
        """The candidate the default score plugins rank highest (the first of equals); ``source``: the pod as read,
        where ``pod`` is the filters' view of it."""
        if len(candidates) == 1:
            return candidates[0]
        totals = self.totals(pod, candidates, source)
        return candidates[totals.index(max(totals))]

    def _tree(self, pod: SimPod, scores: bool = True) -> ScoreTree | None:
        """The shape's score tree, up to date; None where scores depend on the candidate set or the shape has few
        nodes (see the module docstring). ``scores=False``: a tree of feasibility alone (every leaf 0 or -1), for
        the first fit, which any shape with enough nodes gets."""
        if not self.prune or (
            scores
            and (self._trial is not None or pod.affinity.preferred or pod.pod_affinity.preferred or pod.soft_spread)
        ):
            return None
        key = (_shape_key(pod), pod.score_cpu, pod.score_memory) if scores else ("fit", _shape_key(pod))
        if key in self._trees:
            tree = self._trees[key]
        else:
            tree = self._trees[key] = self._new_tree(pod, scores)
        if tree is not None and self.state.changes is not None:
            before = tree.computed
            tree.refresh(self.state.changes)
            self.examined += tree.computed - before
            self.scored += tree.computed - before
        return tree

    def _prefers_against(self, eligible: list[int], tolerations: tuple[Toleration, ...]) -> bool:
        """Whether some eligible node has a PreferNoSchedule taint the tolerations leave (TaintToleration then scores
        nodes apart, which the trees do not model), counted once per (tolerations, taints) as ``totals`` does."""
        counts = self._prefer_counts
        for taints in {self.state.nodes[i].taints for i in eligible}:
            if taints:
                key = (tolerations, taints)
                count = counts.get(key)
                if count is None:
                    count = counts[key] = prefer_no_schedule_count(taints, tolerations)
                if count:
                    return True
        return False

    def _new_tree(self, pod: SimPod, scores: bool) -> ScoreTree | None:
        tolerations = pod.scheduling_tolerations()
        eligible = self.eligibility.eligible(pod.affinity, tolerations)
        if len(eligible) < TREE_MIN_NODES:
            return None
        if scores and self._prefers_against(eligible, tolerations):
            return None
        st, args = self.state, self.fit_args
        requests, host_ports = pod.requests, pod.host_ports
        pod_cpu, pod_mem = pod.score_cpu, pod.score_memory
        real_cpu, real_mem = requests.get(CPU, 0), requests.get(MEMORY, 0)

        def value(i: int) -> int:
            if st.removed[i] or (host_ports and conflicts(host_ports, st.ports[i])):
                return -1
            if not fits(requests, st.allocatable[i], st.used[i], st.count[i], args):
                return -1
            return resource_scores(st, i, pod_cpu, pod_mem, real_cpu, real_mem) if scores else 0

        if st.changes is None:
            st.changes = []
        tree = ScoreTree(eligible, value, len(st.changes))
        self.examined += len(eligible)
        self.scored += len(eligible)
        return tree

    # -- the shared room trees ---------------------------------------------------------------------------------------

    def _room(self, pod: SimPod, scores: bool = True) -> tuple[RoomTree, Want] | None:
        """The room tree of ``pod``'s static-filter class, up to date, and what the pod asks of it; None where the
        tree cannot answer (see the module docstring): host ports, a request beyond cpu, memory and
        ephemeral-storage, fewer than ``TREE_MIN_NODES`` nodes, or (``scores``) scores that depend on the candidate
        set (preferred node affinity, a PreferNoSchedule taint the pod does not tolerate on its nodes)."""
        if not self.prune or pod.host_ports or not _ROOM_RESOURCES.issuperset(pod.requests):
            return None
        tolerations = pod.scheduling_tolerations()
        key = (pod.affinity, tolerations)
        entry = self._rooms.get(key)
        if entry is None:
            entry = self._rooms[key] = self._new_room(pod.affinity, tolerations)
        tree, plain_scores = entry
        dependent = pod.affinity.preferred or pod.pod_affinity.preferred or pod.soft_spread or not plain_scores
        if tree is None or (scores and dependent):
            return None
        changes = self.state.changes
        if changes is not None and tree.log_at < len(changes):
            before = tree.computed
            tree.refresh(changes)
            self.examined += tree.computed - before
        requests = pod.requests
        want = Want(
            requests.get(CPU, 0),
            requests.get(MEMORY, 0),
            requests.get(EPHEMERAL_STORAGE, 0),
            pod.score_cpu,
            pod.score_memory,
        )
        return tree, want

    def _new_room(self, affinity: NodeAffinity, tolerations: tuple[Toleration, ...]) -> tuple[RoomTree | None, bool]:
        eligible = self.eligibility.eligible(affinity, tolerations)
        if len(eligible) < TREE_MIN_NODES:
            return None, False
        plain = not self._prefers_against(eligible, tolerations)
        st = self.state
        if st.changes is None:
            st.changes = []
        self.examined += len(eligible)
        return RoomTree(eligible, st, len(st.changes)), plain

    def _resource_score(self, i: int, w: Want) -> int:
        self.scored += 1
        return resource_scores(self.state, i, w.score_cpu, w.score_mem, w.cpu, w.mem)

    def view(self, pod: SimPod) -> tuple[SimPod, Skip] | None:
        """``pod`` as placement sees it under PodTopologySpread and InterPodAffinity (``podfilters.py``): the pod with
        their node requirements added to its node affinity, and the nodes they reject besides (positions, sorted,
        and a key's banned values); None when no node passes them. A pod they cannot restrict is itself, at the cost
        of one look-up."""
        filters = self.filters
        if not filters.applies(pod):
            return pod, _NO_SKIP
        restriction = filters.restrict(pod)
        if restriction.impossible_reason:
            return None
        self.constrained += 1
        placement = filters.placement(pod, restriction)
        affinity = placement.affinity
        seen = pod if affinity is pod.affinity else replace(pod, affinity=affinity)
        return seen, Skip(placement.excluded, placement.banned)

    def place(self, pod: SimPod) -> int | None:
        """Run one scheduling cycle: bind ``pod`` to the chosen node and return its position, or None (Pending)."""
        seen = self.view(pod)
        if seen is None:
            return None
        chosen = self._cycle(*seen, pod)
        if chosen is not None:
            self.state.bind(pod, chosen)
        return chosen

    def _rejects(self, skip: Skip, i: int) -> bool:
        """Whether the spread and inter-pod filters reject node ``i`` (``skip``: their excluded and banned nodes)."""
        if skip.banned is not None and self.state.nodes[i].labels.get(skip.banned[0]) in skip.banned[1]:
            return True
        return i in skip.excluded_set

    def _cycle(self, pod: SimPod, skip: Skip, source: SimPod | None = None) -> int | None:
        """One scheduling cycle's choice for ``pod`` (its node affinity already the filters' view; ``source``: the pod
        as read), not bound."""
        if only_node(pod.affinity) is not None:
            # Pinned to one node (a DaemonSet's pod): that node or none, no shape kept. The walk would go all the way
            # round (one feasible node is fewer than numFeasibleNodesToFind but in a one-node cluster, where the
            # next start is 0 either way), so the next start does not move.
            for i in self.eligibility.eligible(pod.affinity, pod.scheduling_tolerations()):
                self.examined += 1
                if not self._rejects(skip, i) and self.feasible(pod, i):
                    return i
            return None
        room = self._room(pod)
        if room is not None:
            shared, asks = room
            want = num_feasible_nodes_to_find(len(self.state) - self.state.removed_count, self.percentage)
            leaves, visited = shared.leaves, shared.visited
            chosen, last, _ = shared.choose(
                self._next_start, want, asks, self._resource_score, skip.excluded, skip.banned
            )
            self.examined += shared.leaves - leaves
            self.visited += shared.visited - visited
            if last >= 0:
                self._next_start = (last + 1) % len(self.state)
            return chosen if chosen >= 0 else None
        tree = self._tree(pod) if not skip else None
        if tree is not None:
            want = num_feasible_nodes_to_find(len(self.state) - self.state.removed_count, self.percentage)
            chosen, last, _ = tree.choose(self._next_start, want)
            if last >= 0:
                self._next_start = (last + 1) % len(self.state)
            return chosen if chosen >= 0 else None
        candidates = self.find(pod, skip)
        if not candidates:
            return None
        return self.score(pod, candidates, source)

    def first_fit(self, pod: SimPod, exclude: int = -1) -> int | None:
        """The first node (in node order from the rotating start) where ``pod`` passes every filter, without scoring:
        how the cluster autoscaler's simulator re-places pods (``FitsAnyNodeMatching``). Not bound. A pod of a class
        with more than ``TREE_MIN_NODES`` nodes asks the class's room tree, or its shape's feasibility tree (O(log
        nodes)); others are walked."""
        seen = self.view(pod)
        if seen is None:
            return None
        pod, skip = seen
        room = self._room(pod, scores=False)
        if room is not None:
            shared, asks = room
            leaves, visited = shared.leaves, shared.visited
            found = shared.first(self._next_start, exclude, asks, skip.excluded, skip.banned)
            self.examined += shared.leaves - leaves
            self.visited += shared.visited - visited
            if found < 0:
                return None
            self._next_start = (found + 1) % len(self.state)
            return found
        tree = self._tree(pod, scores=False) if not skip else None
        if tree is not None:
            found = tree.first(self._next_start, exclude)
            if found < 0:
                return None
            self._next_start = (found + 1) % len(self.state)
            return found
        _, last = self._scan(pod, 1, exclude, skip)
        if last < 0:
            return None
        self._next_start = (last + 1) % len(self.state)
        return last

    def release(self) -> None:
        """Drop the per-node state and the per-shape caches once this run's results are taken (see
        ``ClusterState.release``)."""
        self.state.release()
        self._shapes.clear()
        self._trees.clear()
        self._rooms.clear()
        self._scorers.clear()

    # -- trials --------------------------------------------------------------------------------------------------

    def begin_trial(self, node: int) -> None:
        """Start trying to empty ``node``: room changes from here on may be undone."""
        self._trial = []
        self._trial_nodes = {node}

    def trial_bind(self, pod: SimPod, node: int) -> None:
        """Bind ``pod`` as part of the trial."""
        self._trial_nodes.add(node)
        self.state.bind(pod, node)

    def end_trial(self, keep: bool) -> None:
        """Keep the trial's changes, or forget the "too full" marks it made on the nodes it changed (the caller undoes
        the bindings and restores the node)."""
        if not keep and self._trial is not None:
            for stale, i in self._trial:
                stale.discard(i)
        self._trial = None
        self._trial_nodes = set()
