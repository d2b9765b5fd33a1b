"""The placement engine: the same choices as a plain walk over every node, with far less work.

The reference below is the scheduling cycle written the slow, obvious way (every filter on every node, from the
rotating start, stop at numFeasibleNodesToFind, score, bind); the engine adds a static-filter index and drops nodes it
found full for pods of the same shape. Both must place every pod on the same node; the operation counters show the
engine does not walk the cluster for every pod."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from impact_builders import node, pod

from renderer.impact.cluster import ClusterState
from renderer.impact.nodes import SimNode
from renderer.impact.pods import SimPod
from renderer.impact.scheduler import Scheduler
from renderer.impact.scoring import num_feasible_nodes_to_find
from renderer.impact.taints import first_untolerated, tolerates_unschedulable


def _reference(nodes: list[SimNode], pods: list[SimPod]) -> list[str | None]:
    state = ClusterState.build(nodes)
    engine = Scheduler(state)  # only its scoring is used
    start = 0
    out: list[str | None] = []
    total = len(state)
    want = num_feasible_nodes_to_find(total)
    for p in pods:
        found: list[int] = []
        last = -1
        for k in range(total):
            i = (start + k) % total
            n = state.nodes[i]
            if n.unschedulable and not tolerates_unschedulable(p.scheduling_tolerations()):
                continue
            if first_untolerated(n.taints, p.scheduling_tolerations()) is not None:
                continue
            if not p.affinity.matches(n.labels, n.name):
                continue
            if engine.feasible(p, i):
                found.append(i)
                if len(found) >= want:
                    last = i
                    break
        if last >= 0:
            start = (last + 1) % total
        if not found:
            out.append(None)
            continue
        chosen = engine.score(p, found)
        state.bind(p, chosen)
        out.append(state.nodes[chosen].name)
    return out


def _engine(nodes: list[SimNode], pods: list[SimPod]) -> tuple[list[str | None], Scheduler]:
    state = ClusterState.build(nodes)
    engine = Scheduler(state)
    out = []
    for p in pods:
        i = engine.place(p)
        out.append(None if i is None else state.nodes[i].name)
    return out, engine


def _pods(specs: list[tuple[str, str, str | None, bool]]) -> list[SimPod]:
    """Pods of (cpu, memory, the pool their nodeSelector names or None, whether they tolerate the taint ``t``)."""
    pods = []
    for k, (cpu, memory, selector, tolerant) in enumerate(specs):
        spec: dict[str, object] = {}
        if selector:
            spec["nodeSelector"] = {"pool": selector}
        if tolerant:
            spec["tolerations"] = [{"key": "t", "operator": "Exists"}]
        pods.append(pod(f"p{k}", cpu, memory, **spec))
    return pods


SIZES = st.sampled_from(["250m", "500m", "1000m", "1500m", "2500m"])


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["1", "2", "4"]), st.booleans(), st.booleans()),
        min_size=1,
        max_size=140,
    ),
    st.lists(
        st.tuples(SIZES, st.sampled_from(["1Gi", "3Gi"]), st.sampled_from([None, "a", "b"]), st.booleans()), max_size=60
    ),
)
def test_engine_places_every_pod_where_the_plain_walk_does(
    node_specs: list[tuple[str, str, bool, bool]], pod_specs: list[tuple[str, str, str | None, bool]]
) -> None:
    nodes = [
        node(
            f"n{i:03d}",
            pool,
            cpu=cpu,
            memory="8Gi",
            pods="5",
            labels={"topology.kubernetes.io/zone": "z1" if i % 3 else "z2"},
            taints=[{"key": "t", "value": "x", "effect": "NoSchedule"}] if tainted else None,
            unschedulable=cordoned,
        )
        for i, (pool, cpu, tainted, cordoned) in enumerate(node_specs)
    ]
    pods = _pods(pod_specs)
    got, _ = _engine(nodes, pods)
    assert got == _reference(nodes, pods)


def test_a_pod_pinned_to_a_small_pool_never_looks_at_the_rest() -> None:
    # 10 nodes in pool "small", 990 elsewhere; 100 pods select "small" and all fit. Every search walks the 10
    # small nodes at most: at most 100 x 10 examinations, where a walk over the cluster would make 100 x 1000.
    nodes = [node(f"s{i}", "small", cpu="16", pods="20") for i in range(10)]
    nodes += [node(f"b{i:03d}", "big") for i in range(990)]
    pods = [pod(f"p{k}", "100m", "100Mi", nodeSelector={"pool": "small"}) for k in range(100)]
    placed, engine = _engine(nodes, pods)
    assert all(name is not None and name.startswith("s") for name in placed)
    assert engine.examined <= 100 * 10
    assert engine.eligibility.evaluations == 1  # one shape: the static filters ran once


def test_full_nodes_are_not_examined_again_for_pods_of_the_same_shape() -> None:
    # 1000 nodes of which 990 are full (pods: 1 of 1 used); 10 have room for 5 pods each. 50 identical pods.
    # The first search examines every node and learns the 990 full ones; later searches see only the 10 others:
    # at most 1000 + 50 x 10 examinations, where a plain walk would make about 50 x 1000.
    nodes = [node(f"f{i:03d}", "p", pods="0") for i in range(990)]
    nodes += [node(f"r{i}", "p", pods="5") for i in range(10)]
    pods = [pod(f"p{k}", "100m", "100Mi") for k in range(50)]
    placed, engine = _engine(nodes, pods)
    assert all(name is not None and name.startswith("r") for name in placed)
    assert engine.examined <= 1000 + 50 * 10


@settings(deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["2", "4"])), min_size=2, max_size=60),
    st.lists(st.tuples(SIZES, st.integers(0, 59), st.booleans(), st.booleans()), max_size=120),
    st.sampled_from([0.5, 0.8]),
)
def test_scale_down_removes_the_same_nodes_with_and_without_pruning(
    node_specs: list[tuple[str, str]], pod_specs: list[tuple[str, int, bool, bool]], threshold: float
) -> None:
    _same_scale_down(node_specs, pod_specs, threshold)


@settings(deadline=None, max_examples=20)
@given(
    st.lists(st.tuples(st.sampled_from(["a", "b"]), st.sampled_from(["2", "4"])), min_size=140, max_size=200),
    st.lists(st.tuples(SIZES, st.integers(0, 199), st.booleans(), st.booleans()), max_size=300),
    st.sampled_from([0.5, 0.8]),
)
def test_scale_down_with_feasibility_trees_removes_what_the_walk_removes(
    node_specs: list[tuple[str, str]], pod_specs: list[tuple[str, int, bool, bool]], threshold: float
) -> None:
    # 140-200 nodes: shapes have more than TREE_MIN_NODES nodes, so the first fits of scale-down's trials come from
    # feasibility trees (updated through the trials' binds and their undoing); the walk without pruning is the
    # reference.
    _same_scale_down(node_specs, pod_specs, threshold)


def _same_scale_down(
    node_specs: list[tuple[str, str]], pod_specs: list[tuple[str, int, bool, bool]], threshold: float
) -> None:
    from renderer.impact.scaledown import ScaleDownOptions, scale_down

    nodes = [node(f"n{i:03d}", pool, cpu=cpu, memory="8Gi", pods="6") for i, (pool, cpu) in enumerate(node_specs)]
    pods = []
    for k, (cpu, where, selector, bare) in enumerate(pod_specs):
        target = nodes[where % len(nodes)]
        spec = {"nodeSelector": {"pool": target.pool}} if selector else {}
        pods.append(pod(f"p{k}", cpu, "512Mi", target.name, owner=None if bare else ("ReplicaSet", "rs"), **spec))
    results = []
    for prune in (True, False):
        state = ClusterState.build(nodes)
        engine = Scheduler(state, prune=prune)
        where_ = state.position()
        for p in pods:
            i = where_[p.node or ""]
            if engine.feasible(p, i):
                state.bind(p, i)
        outcome = scale_down(engine, ScaleDownOptions(utilization_threshold=threshold))
        placement = sorted((p.key, state.nodes[i].name) for i, on in enumerate(state.pods) for p in on)
        results.append((outcome.removed, outcome.kept, placement))
    assert results[0] == results[1]


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["0", "1", "2", "4"]), st.sampled_from(["0", "1Gi", "8Gi"]), st.integers(0, 2)),
        min_size=2,
        max_size=12,
    ),
    st.lists(st.tuples(SIZES, st.sampled_from(["0", "1Gi", "3Gi"]), st.integers(0, 11)), max_size=30),
    SIZES,
    st.booleans(),
)
def test_inlined_scores_equal_the_plugins(
    node_specs: list[tuple[str, str, int]],
    pod_specs: list[tuple[str, str, int]],
    cpu: str,
    prefers: bool,
) -> None:
    """Scheduler.totals (the hot loop) against scoring.py and taints.py, the functions the upstream vectors prove."""
    from renderer.impact.affinity import preferred_score
    from renderer.impact.scoring import balanced_allocation, fraction, resource_score
    from renderer.impact.taints import prefer_no_schedule_count, taint_scores

    nodes = [
        node(
            f"n{i}",
            "p",
            cpu=c,
            memory=m,
            labels={"disk": "ssd"} if i % 2 else {},
            taints=[{"key": f"t{j}", "effect": "PreferNoSchedule"} for j in range(t)],
        )
        for i, (c, m, t) in enumerate(node_specs)
    ]
    state = ClusterState.build(nodes)
    for k, (c, m, where) in enumerate(pod_specs):
        state.bind(pod(f"e{k}", c, m), where % len(nodes))
    spec: dict[str, object] = {"tolerations": [{"key": "t0", "operator": "Exists", "effect": "PreferNoSchedule"}]}
    if prefers:
        preference = {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}
        spec["affinity"] = {
            "nodeAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 7, "preference": preference}]
            }
        }
    incoming = pod("new", cpu, "2Gi", **spec)
    engine = Scheduler(state)
    candidates = list(range(len(nodes)))
    taint = taint_scores(
        {str(i): prefer_no_schedule_count(state.nodes[i].taints, incoming.tolerations) for i in candidates}
    )
    pref = [preferred_score(incoming.affinity, state.nodes[i].labels, state.nodes[i].name) for i in candidates]
    want = []
    for i in candidates:
        alloc = state.allocatable[i]
        requested = {
            "cpu": state.score_cpu[i] + incoming.score_cpu,
            "memory": state.score_memory[i] + incoming.score_memory,
        }
        fit_score = resource_score(alloc, requested, incoming.requests)
        fractions = [
            fraction(state.used[i].get(r, 0) + incoming.requests.get(r, 0), alloc[r])
            for r in ("cpu", "memory")
            if alloc.get(r, 0)
        ]
        pref_score = 0 if max(pref) == 0 else pref[i] * 100 // max(pref)
        want.append(3 * taint[str(i)] + 2 * pref_score + fit_score + balanced_allocation(fractions))
    assert engine.totals(incoming, candidates) == want


@settings(deadline=None, max_examples=25)
@given(
    st.integers(150, 400),
    st.lists(
        st.tuples(SIZES, st.sampled_from(["512Mi", "1Gi", "3Gi"]), st.sampled_from([None, "a"]), st.booleans()),
        min_size=1,
        max_size=80,
    ),
    st.integers(0, 2**16),
)
def test_score_trees_choose_what_the_plain_walk_chooses(
    size: int, pod_specs: list[tuple[str, str, str | None, bool]], seed: int
) -> None:
    # Clusters of 150-400 nodes: the scheduler collects 100 of them (numFeasibleNodesToFind) and the shapes have
    # more than TREE_MIN_NODES nodes, so the trees answer, with windows that wrap around the node list; some nodes
    # are already partly used, some tainted or cordoned, so feasibility and scores differ from node to node.
    import random

    rng = random.Random(seed)
    nodes = [
        node(
            f"n{i:03d}",
            rng.choice(["a", "b"]),
            cpu=rng.choice(["2", "4", "8"]),
            memory=rng.choice(["4Gi", "8Gi"]),
            pods=rng.choice(["3", "6", "20"]),
            labels={"topology.kubernetes.io/zone": f"z{i % 3}"},
            taints=[{"key": "t", "value": "x", "effect": "NoSchedule"}] if rng.random() < 0.1 else None,
            unschedulable=rng.random() < 0.05,
        )
        for i in range(size)
    ]
    pods = _pods(pod_specs)
    got, engine = _engine(nodes, pods)
    assert got == _reference(nodes, pods)
    from renderer.impact.scheduler import TREE_MIN_NODES

    if any(len(engine.eligible(p)) >= TREE_MIN_NODES for p in pods):
        trees = [tree for tree, _ in engine._rooms.values()] + list(engine._trees.values())
        assert any(tree is not None for tree in trees)


def _long_run(nodes: int, pods: int, distinct: bool) -> Scheduler:
    engine = Scheduler(ClusterState.build([node(f"n{i:05d}", "p", cpu="64", memory="256Gi") for i in range(nodes)]))
    for k in range(pods):
        # distinct: every pod's cpu request 1m apart (issue 30 item 1: a shape per pod)
        placed = engine.place(pod(f"p{k}", f"{100 + k}m" if distinct else "100m", "100Mi"))
        assert placed is not None
    return engine


def test_a_long_run_of_pods_costs_log_nodes_each_not_a_window_of_nodes() -> None:
    # 2,000 roomy nodes, 500 pods: numFeasibleNodesToFind is 680 (34 %), so a walk scores 680 nodes per pod (340,000
    # in all), and a tree per pod shape would read 2,000 nodes per shape. The class's room tree reads each node once,
    # then one node per bind; each cycle reaches a few leaves (the ends of the window, the winner) and scores a few.
    for distinct in (False, True):
        engine = _long_run(2000, 500, distinct)
        assert engine.examined <= 2000 + 500 + 500 * 2 * 11  # 11 = log2(2,000), rounded up
        assert engine.scored <= 500 * 4
        assert len(engine._rooms) == 1 and not engine._trees


def test_a_cycle_costs_no_more_on_ten_times_the_nodes() -> None:
    # The same 300 pods (distinct requests) on 1,600 and 16,000 nodes: the descents' work per pod grows with
    # log(nodes), far below x10 (a walk's window grows x10 / 2: 544 -> 800 nodes; a tree per shape x10).
    small, large = _long_run(1600, 300, True), _long_run(16000, 300, True)
    assert large.visited <= 2 * small.visited
    assert large.scored <= 2 * small.scored
