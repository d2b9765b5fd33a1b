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
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.impact.cluster import ClusterState
from renderer.impact.nodes import SimNode
from renderer.impact.pods import SimPod
from renderer.impact.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from renderer.impact.roomtree import SKYLINE_CORNERS, RoomTree, Want, skyline
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


def _front(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The Pareto front of free (cpu, memory) points, by definition: those no other point covers in both."""
    unique = set(points)
    return sorted(
        (p for p in unique if not any(q != p and q[0] >= p[0] and q[1] >= p[1] for q in unique)), reverse=True
    )


def _check_skylines(tree: RoomTree, state: ClusterState) -> None:
    """Every subtree's skyline against its leaves, from the definition: each leaf with a pod slot lies under a corner
    (so "no corner covers the request" proves that no leaf fits), corners run cpu strictly down and memory strictly
    up, at most ``SKYLINE_CORNERS`` of them, and they are exactly the leaves' Pareto front whenever that front, and
    the front of every subtree below, is no longer than the cap (a merged corner below may stay in the front above)."""
    size = len(tree.mn_p) // 2
    exact = [True] * (2 * size)
    for x in range(2 * size - 1, 0, -1):
        lo, hi = x, x + 1
        while lo < size:
            lo, hi = 2 * lo, 2 * hi
        points = []
        for k in range(lo - size, min(hi - size, len(tree.positions))):
            p = tree.positions[k]
            if not state.removed[p] and state.allocatable[p].get(PODS, 0) - state.count[p] >= 1:
                points.append((state.alloc_cpu[p] - state.used_cpu[p], state.alloc_mem[p] - state.used_mem[p]))
        corners = list(zip(tree.sky_c[x], tree.sky_m[x], strict=True))
        assert len(corners) <= SKYLINE_CORNERS
        assert all(a[0] > b[0] and a[1] < b[1] for a, b in pairwise(corners))
        assert all(any(c >= pc and m >= pm for c, m in corners) for pc, pm in points)
        if x < size:  # up to date: what its children's corners merge to, however the changes came
            a, b = 2 * x, 2 * x + 1
            assert (tree.sky_c[x], tree.sky_m[x]) == skyline(tree.sky_c[a], tree.sky_m[a], tree.sky_c[b], tree.sky_m[b])
        front = _front(points)
        exact[x] = len(front) <= SKYLINE_CORNERS and (x >= size or (exact[2 * x] and exact[2 * x + 1]))
        if exact[x]:
            assert corners == front


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 200), st.lists(REQUEST, min_size=1, max_size=30), st.data())
def test_first_fit_through_skylines_as_room_comes_and_goes(
    seed: int, n: int, requests: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    """Scale-down's pattern: pods bound by first fit, then some taken off again, nodes removed and restored (room
    grows back); after each change the skylines hold their definition and the first fit is the plain walk's."""
    rng = random.Random(seed)
    state = _cluster(rng, n)
    positions = sorted(rng.sample(range(n), rng.randint(1, n)))
    tree = RoomTree(positions, state, 0)
    _check_skylines(tree, state)
    bound: list[tuple[SimPod, int]] = []
    for step, (cpu, mem_halves, eph) in enumerate(requests):
        pod = _pod({CPU: cpu, MEMORY: mem_halves * GI // 2, EPHEMERAL_STORAGE: eph}, f"q{step}")
        w = Want(pod.requests.get(CPU, 0), pod.requests.get(MEMORY, 0), eph, pod.score_cpu, pod.score_memory)
        start = data.draw(st.integers(0, n - 1))
        exclude = data.draw(st.sampled_from(positions))
        s = _index(positions, start)
        walk = positions[s:] + positions[:s]
        expected = next((p for p in walk if p != exclude and _feasible(state, p, pod)), -1)
        assert tree.first(start, exclude, w) == expected
        if expected >= 0:
            state.bind(pod, expected)
            bound.append((pod, expected))
        action = data.draw(st.sampled_from(["none", "unbind", "remove", "restore"]))
        if action == "unbind" and bound:
            gone, at = bound.pop(rng.randrange(len(bound)))
            state.unbind(gone, at, fresh=False)
        elif action == "remove":
            state.remove_node(rng.choice(positions))
        elif action == "restore":
            state.restore_node(rng.choice(positions), fresh=False)
        tree.refresh(state.changes or [])
        _check_skylines(tree, state)


def test_a_subtree_with_room_for_each_resource_on_a_different_node_is_skipped() -> None:
    """Worked by hand: node a has 3,000m and 1 GiB free, node b 500m and 6 GiB. Each resource's largest free amount
    (3,000m, 6 GiB) covers a pod of 1,000m and 2 GiB, but neither node has both, so their subtree's skyline
    ((3,000m, 1 GiB), (500m, 6 GiB)) proves no fit and the search stops at the root; a pod of 400m and 2 GiB fits b."""
    nodes = [SimNode(name, "p", {}, {CPU: 4000, MEMORY: 8 * GI, PODS: 110}) for name in ("a", "b")]
    state = ClusterState.build(nodes)
    state.bind(_pod({CPU: 1000, MEMORY: 7 * GI}), 0)
    state.bind(_pod({CPU: 3500, MEMORY: 2 * GI}), 1)
    tree = RoomTree([0, 1], state, 0)
    assert (tree.sky_c[1], tree.sky_m[1]) == ((3000, 500), (GI, 6 * GI))
    tree.visited = 0
    assert tree.first(0, -1, Want(1000, 2 * GI, 0, 1000, 2 * GI)) == -1
    assert tree.visited == 1
    assert tree.first(0, -1, Want(400, 2 * GI, 0, 400, 2 * GI)) == 1


def test_skyline_merge_worked_by_hand() -> None:
    """Corners of two subtrees merged, by hand: (8, 1), (4, 3), (2, 5) with (6, 2), (4, 4), (1, 9): (4, 3) is under
    (4, 4), so the front is (8, 1), (6, 2), (4, 4), (2, 5), (1, 9). Past the cap, the neighbours whose merge adds the
    least area go first: cut to 4 corners, (8, 1)+(6, 2) adds (8-6)×(2-1) = 2, (6, 2)+(4, 4) adds 4, (4, 4)+(2, 5)
    adds 2, (2, 5)+(1, 9) adds 4 — the first least, (8, 1)+(6, 2), becomes (8, 2)."""
    a, b = ((8, 4, 2), (1, 3, 5)), ((6, 4, 1), (2, 4, 9))
    assert skyline(*a, *b) == ((8, 6, 4, 2, 1), (1, 2, 4, 5, 9))
    assert skyline(*a, (), ()) == a
    assert skyline(*a, *b, corners=4) == ((8, 4, 2, 1), (2, 4, 5, 9))


@settings(max_examples=120, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 140), st.lists(REQUEST, min_size=1, max_size=20), st.data())
def test_excluded_nodes_are_skipped_as_another_filter_rejects_them(
    seed: int, n: int, requests: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    # PodTopologySpread / InterPodAffinity rejecting a few nodes: the cycle and the first fit give what the walk
    # over the other nodes gives (an excluded node counts neither as feasible for the window nor as a candidate);
    # excluded positions outside the tree's class are ignored.
    rng = random.Random(seed)
    state = _cluster(rng, n)
    positions = sorted(rng.sample(range(n), rng.randint(1, n)))
    tree = RoomTree(positions, state, 0)
    for cpu, mem_halves, eph in requests:
        pod = _pod({CPU: cpu, MEMORY: mem_halves * GI // 2, EPHEMERAL_STORAGE: eph})
        excluded = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=max(1, n // 3))))
        kept = [p for p in positions if p not in set(excluded)]
        start = data.draw(st.integers(0, n - 1))
        want = data.draw(st.integers(1, n))
        w = Want(pod.requests.get(CPU, 0), pod.requests.get(MEMORY, 0), eph, pod.score_cpu, pod.score_memory)
        chosen, last, _ = tree.choose(start, want, w, _scorer(state), excluded)
        assert (chosen, last) == (_walk(state, kept, start, want, pod) if kept else (-1, -1))
        s = _index(kept, start)
        walk = kept[s:] + kept[:s]
        expected = next((p for p in walk if _feasible(state, p, pod)), -1)
        assert tree.first(start, -1, w, excluded) == expected
        if chosen >= 0:
            state.bind(pod, chosen)
            tree.refresh(state.changes or [])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.integers(1, 140), st.lists(REQUEST, min_size=1, max_size=15), st.data())
def test_banned_zones_and_excluded_nodes_are_skipped_alike(
    seed: int, n: int, requests: list[tuple[int, int, int]], data: st.DataObject
) -> None:
    # A zone PodTopologySpread forbids (banned: counted per subtree) with a few hostnames excluded besides, some of
    # them in the banned zone: the same answers as the walk over the nodes left.
    rng = random.Random(seed)
    state = _cluster(rng, n)
    for node in state.nodes:
        if rng.random() < 0.9:  # a few nodes without the key: never banned
            node.labels["zone"] = f"z{rng.randrange(4)}"
    positions = sorted(rng.sample(range(n), rng.randint(1, n)))
    tree = RoomTree(positions, state, 0)
    for cpu, mem_halves, eph in requests:
        pod = _pod({CPU: cpu, MEMORY: mem_halves * GI // 2, EPHEMERAL_STORAGE: eph})
        banned = frozenset(data.draw(st.sets(st.sampled_from(["z0", "z1", "z2", "z3", "z9"]), max_size=3)))
        excluded = sorted(data.draw(st.sets(st.integers(0, n - 1), max_size=max(1, n // 4))))
        kept = [p for p in positions if p not in set(excluded) and state.nodes[p].labels.get("zone") not in banned]
        start = data.draw(st.integers(0, n - 1))
        want = data.draw(st.integers(1, n))
        w = Want(pod.requests.get(CPU, 0), pod.requests.get(MEMORY, 0), eph, pod.score_cpu, pod.score_memory)
        chosen, last, _ = tree.choose(start, want, w, _scorer(state), excluded, ("zone", banned))
        assert (chosen, last) == (_walk(state, kept, start, want, pod) if kept else (-1, -1))
        s = _index(kept, start)
        walk = kept[s:] + kept[:s]
        assert tree.first(start, -1, w, excluded, ("zone", banned)) == next(
            (p for p in walk if _feasible(state, p, pod)), -1
        )
        if chosen >= 0:
            state.bind(pod, chosen)
            tree.refresh(state.changes or [])
