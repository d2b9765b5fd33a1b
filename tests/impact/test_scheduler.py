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
    pods = []
    for k, (cpu, memory, selector, tolerant) in enumerate(pod_specs):
        spec: dict[str, object] = {}
        if selector:
            spec["nodeSelector"] = {"pool": selector}
        if tolerant:
            spec["tolerations"] = [{"key": "t", "operator": "Exists"}]
        pods.append(pod(f"p{k}", cpu, memory, **spec))
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
