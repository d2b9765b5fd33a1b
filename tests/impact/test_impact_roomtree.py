"""The shared room tree against the plain walk: for random clusters and pods with many distinct requests, one
scheduling cycle (``choose``) and the first fit (``first``) give what the kube-scheduler's filter-then-score over
every node gives.

The reference is written here from the plugins' definitions, not from the tree's code: NodeResourcesFit's filter on
cpu, memory, ephemeral-storage and the pod count (fit.go ``fitsRequest``), the walk from the rotating start that stops
at numFeasibleNodesToFind (schedule_one.go), LeastAllocated and BalancedAllocation per node from ``scoring.py``'s
plugin functions (themselves held to the upstream vectors in tests/impact/test_impact_scoring.py), the first of
equals winning. Clusters mix node sizes (so the score bounds are loose), nodes without memory or ephemeral-storage,
over-committed and removed nodes; pods mix requests of 1m steps, none at all, and ephemeral-storage."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.impact.cluster import ClusterState
from renderer.impact.nodes import SimNode
from renderer.impact.pods import SimPod
from renderer.impact.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from renderer.impact.roomtree import RoomTree, Want
from renderer.impact.scheduler import resource_scores
from renderer.impact.scoring import balanced_allocation, fraction, least_allocated

GI = 2**30


def _cluster(rng: random.Random, n: int) -> ClusterState:
    nodes = []
    for i in range(n):
        alloc = {CPU: rng.choice([2000, 4000, 8000, 16000]), PODS: rng.choice([0, 3, 10, 110])}
        if rng.random() < 0.9:
            alloc[MEMORY] = rng.choice([4, 8, 32]) * GI
        if rng.random() < 0.5:
            alloc[EPHEMERAL_STORAGE] = rng.choice([10, 100]) * GI
        nodes.append(SimNode(f"n{i:03d}", "p", {}, alloc))
    state = ClusterState.build(nodes)
    for i in range(n):
        for _ in range(rng.randrange(4)):  # usage, over-committing some nodes
            used = {CPU: rng.randrange(0, 6000), MEMORY: rng.randrange(0, 12) * GI // 2}
            state.bind(_pod(used, f"u{i}-{_}"), i)
        if rng.random() < 0.05:
            state.remove_node(i)
    state.changes = []
    return state


def _pod(requests: dict[str, int], name: str = "p") -> SimPod:
    requests = {k: v for k, v in requests.items() if v}
    # the scoring requests: 100m / 200Mi for a resource the pod does not request (non-zero defaults)
    return SimPod(
        "default",
        name,
        None,
        "Pending",
        requests,
        score_cpu=requests.get(CPU, 100),
        score_memory=requests.get(MEMORY, 200 * 2**20),
    )


def _feasible(state: ClusterState, i: int, pod: SimPod) -> bool:
    alloc, used = state.allocatable[i], state.used[i]
    if state.removed[i] or state.count[i] + 1 > alloc.get(PODS, 0):
        return False
    return all(want <= alloc.get(name, 0) - used.get(name, 0) for name, want in pod.requests.items() if want > 0)


def _score(state: ClusterState, i: int, pod: SimPod) -> int:
    alloc = state.allocatable[i]
    fit_parts, fractions = [], []
    for name, scoring, real, used in (
        (CPU, pod.score_cpu + state.score_cpu[i], pod.requests.get(CPU, 0), state.used_cpu[i]),
        (MEMORY, pod.score_memory + state.score_memory[i], pod.requests.get(MEMORY, 0), state.used_mem[i]),
    ):
        if alloc.get(name, 0):
            fit_parts.append(least_allocated(scoring, alloc[name]))
            fractions.append(fraction(used + real, alloc[name]))
    fit = sum(fit_parts) // len(fit_parts) if fit_parts else 0
    return fit + balanced_allocation(fractions)


def _walk(state: ClusterState, positions: list[int], start: int, want: int, pod: SimPod) -> tuple[int, int]:
    n = len(positions)
    s = next((k for k, p in enumerate(positions) if p >= start), 0)
    found: list[int] = []
    last = -1
    for k in range(n):
        p = positions[(s + k) % n]
        if _feasible(state, p, pod):
            found.append(p)
            if len(found) == want:
                last = p
                break
    if not found:
        return -1, last
    scores = [_score(state, p, pod) for p in found]
    return found[scores.index(max(scores))], last


REQUEST = st.tuples(st.integers(0, 5000), st.integers(0, 8 * 4), st.sampled_from([0, 0, GI, 50 * GI]))


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 140), st.lists(REQUEST, min_size=1, max_size=25), st.data())
def test_a_cycle_chooses_what_the_plain_walk_chooses(
    seed: int, n: int, requests: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    rng = random.Random(seed)
    state = _cluster(rng, n)
    positions = sorted(rng.sample(range(n), rng.randint(1, n)))  # a static-filter class
    tree = RoomTree(positions, state, 0)
    for cpu, mem_halves, eph in requests:
        pod = _pod({CPU: cpu, MEMORY: mem_halves * GI // 2, EPHEMERAL_STORAGE: eph})
        start = data.draw(st.integers(0, n - 1))
        want = data.draw(st.integers(1, n))
        w = Want(pod.requests.get(CPU, 0), pod.requests.get(MEMORY, 0), eph, pod.score_cpu, pod.score_memory)
        chosen, last, _ = tree.choose(start, want, w, _scorer(state))
        assert (chosen, last) == _walk(state, positions, start, want, pod)
        exclude = data.draw(st.sampled_from(positions))
        s = _index(positions, start)
        walk = positions[s:] + positions[:s]
        expected = next((p for p in walk if p != exclude and _feasible(state, p, pod)), -1)
        assert tree.first(start, exclude, w) == expected
        if chosen >= 0:  # bind, as the scheduler does, and let the tree re-read the node
            state.bind(pod, chosen)
            tree.refresh(state.changes or [])


def _index(positions: list[int], start: int) -> int:
    return next((k for k, p in enumerate(positions) if p >= start), len(positions))


def _scorer(state: ClusterState) -> Callable[[int, Want], int]:
    return lambda i, w: resource_scores(state, i, w.score_cpu, w.score_mem, w.cpu, w.mem)
