"""The scores that look at the pods around a node, against kube-scheduler's own tables: InterPodAffinity for a pod's
own preferred terms (fixtures/interpodaffinity_score_cases.yaml: interpodaffinity/scoring_test.go,
TestPreferredAffinity) and PodTopologySpread for ScheduleAnyway constraints (fixtures/podtopologyspread_score_cases.yaml:
podtopologyspread/scoring_test.go, TestPodTopologySpreadScore); each case names itself. The upstream harnesses run
PreScore, Score and NormalizeScore over the candidate nodes, so these tests ask ``podscores`` for them; the placement
tests below are worked by hand."""

from __future__ import annotations

from typing import Any

import pytest
from impact_builders import node
from impact_vectors import case_id, load

from renderer.impact.cluster import ClusterState
from renderer.impact.nodes import node_from_object
from renderer.impact.pods import SimPod, narrow_labels, pod_from_object
from renderer.impact.podscores import interpod_raw, min_max, spread_scores
from renderer.impact.scheduler import Scheduler

CASES = load("interpodaffinity_score_cases.yaml")["cases"]
HOST = "kubernetes.io/hostname"


def _pod(name: str, labels: dict[str, str], node_name: str | None = None, cpu: str = "100m", **spec: Any) -> SimPod:
    body: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}],
        **spec,
    }
    if node_name:
        body["nodeName"] = node_name
    meta = {"name": name, "namespace": "default", "labels": labels}
    return pod_from_object({"metadata": meta, "spec": body, "status": {"phase": "Running" if node_name else "Pending"}})


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_preferred_affinity_score_matches_kube_scheduler(case: dict[str, Any]) -> None:
    alloc = {"cpu": "64", "memory": "256Gi", "pods": "110"}
    nodes = [node_from_object({"metadata": n, "spec": {}, "status": {"allocatable": alloc}}) for n in case["nodes"]]
    state = ClusterState.build(nodes)
    where = state.position()
    for k, raw in enumerate(case["existing_pods"]):
        state.bind(_pod(f"e{k}", raw["labels"], raw["node"]), where[raw["node"]])
    incoming = _pod("p", case["pod"]["labels"], affinity=case["pod"]["affinity"])
    counts = Scheduler(state).filters.counts  # made from the bound pods
    scores = min_max(interpod_raw(incoming, state, counts, range(len(nodes))))
    assert dict(zip((n.name for n in nodes), scores, strict=True)) == case["want"]


def _anti_web(weight: int, key: str = HOST) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": key}
    return {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": weight, "podAffinityTerm": term}]
        }
    }


def _two_nodes() -> Scheduler:
    """By hand: a-0 and b-0, 4 cpu and 16Gi each. web-0 (app=web, 100m, 100Mi) runs on a-0, a 1-cpu 4Gi filler on
    b-0. For a 100m/100Mi pod the resource scores are (scoring.py's formulas):
    a-0: LeastAllocated cpu (4000-200)*100//4000 = 95, memory (16384-200)*100//16384 = 98 -> 96; Balanced
    1 - |0.05 - 0.0122|/2 -> 98; total 194.
    b-0: cpu (4000-1100)*100//4000 = 72, memory (16384-4196)*100//16384 = 74 -> 73; Balanced
    1 - |0.275 - 0.2561|/2 -> 99; total 172.
    TaintToleration gives both 100 (x3), NodeAffinity both 0: a-0 wins by 22 points on resources alone."""
    nodes = [
        node("a-0", "p", labels={HOST: "a-0"}),
        node("b-0", "p", labels={HOST: "b-0"}),
    ]
    state = ClusterState.build(nodes)
    state.bind(_pod("web-0", {"app": "web"}, "a-0"), 0)
    filler = pod_from_object(
        {
            "metadata": {"name": "filler", "namespace": "default", "labels": {"app": "filler"}},
            "spec": {
                "nodeName": "b-0",
                "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "4Gi"}}}],
            },
            "status": {"phase": "Running"},
        }
    )
    state.bind(filler, 1)
    return Scheduler(state)


def test_without_preferences_the_resource_scores_decide() -> None:
    scheduler = _two_nodes()
    assert scheduler.place(_pod("web-1", {"app": "web"})) == 0


@pytest.mark.parametrize("weight", [1, 100])
def test_preferred_hostname_anti_affinity_moves_the_replica_to_the_other_node(weight: int) -> None:
    # By hand: the term counts web-0 on a-0: raw a-0 = -weight, b-0 = 0; normalised a-0 0, b-0 100; InterPodAffinity
    # weight 2 adds 200 to b-0: 172 + 200 = 372 > 194. Any weight gives the same: normalisation is min-max.
    scheduler = _two_nodes()
    assert scheduler.place(_pod("web-1", {"app": "web"}, affinity=_anti_web(weight))) == 1


def test_preferred_affinity_keeps_it_with_its_group() -> None:
    # By hand: a positive weight toward app=web by hostname: a-0 raw 5, b-0 0 -> a-0 gets 100 x 2 on top of winning.
    scheduler = _two_nodes()
    term = {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}
    near = {
        "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 5, "podAffinityTerm": term}]}
    }
    assert scheduler.place(_pod("web-1", {"app": "web"}, affinity=near)) == 0


def test_a_term_whose_key_no_node_carries_scores_nothing() -> None:
    # By hand: topology key "rack" is on no node: every raw score 0, normalised 0: the resources decide (a-0).
    scheduler = _two_nodes()
    assert scheduler.place(_pod("web-1", {"app": "web"}, affinity=_anti_web(100, "rack"))) == 0


@pytest.mark.parametrize("preferred", [True, False])
def test_replicas_with_preferred_anti_affinity_spread_over_a_room_tree_sized_class(preferred: bool) -> None:
    # By hand: 20 nodes of 64 cpu / 256Gi and 60 of 4 cpu / 16Gi (80: a class large enough for a room tree; pods with
    # preferred terms are walked). LeastAllocated puts a 100m/100Mi pod on a big node already holding one (cpu
    # (64000-200)*100//64000 = 99, memory 99) before an empty small node (cpu 97, memory 99 -> 98): without the
    # preference the 80 replicas share the big nodes. With it, a node without a replica scores 100 higher (x2) than
    # one with a replica, more than the resources differ: all 80 land on distinct nodes.
    big = [node(f"big-{k}", "p", cpu="64", memory="256Gi", labels={HOST: f"big-{k}"}) for k in range(20)]
    small = [node(f"small-{k}", "p", labels={HOST: f"small-{k}"}) for k in range(60)]
    scheduler = Scheduler(ClusterState.build(big + small))
    spec: dict[str, Any] = {"affinity": _anti_web(100)} if preferred else {}
    chosen = [scheduler.place(_pod(f"web-{k}", {"app": "web"}, **spec)) for k in range(80)]
    assert None not in chosen
    assert (len(set(chosen)) == 80) is preferred


def test_the_pod_is_no_longer_flagged_for_its_own_score_only_for_symmetry() -> None:
    pod = _pod("web-1", {"app": "web"}, affinity=_anti_web(10))
    assert pod.not_simulated == frozenset({"inter-pod affinity symmetry"})
    assert pod.pod_affinity.preferred[0][0] == -10


def test_narrowed_labels_keep_the_keys_preferred_terms_select_on() -> None:
    # The reader keeps of each pod's labels only the keys some selector reads: a preferred term's keys count too
    # (else the pods it prefers would count 0 and its score would vanish).
    web = _pod("web-0", {"app": "web", "pod-template-hash": "7c9d5"}, "a-0")
    other = _pod("x", {"team": "a"}, affinity=_anti_web(10))
    narrow_labels([web, other])
    assert web.labels == (("app", "web"),)
    assert other.labels == ()


SPREAD_CASES = load("podtopologyspread_score_cases.yaml")["cases"]


@pytest.mark.parametrize("case", SPREAD_CASES, ids=case_id)
def test_schedule_anyway_spread_score_matches_kube_scheduler(case: dict[str, Any]) -> None:
    alloc = {"cpu": "64", "memory": "256Gi", "pods": "110"}
    raw_nodes = case["nodes"] + case["failed_nodes"]
    nodes = [node_from_object({"metadata": n, "spec": {}, "status": {"allocatable": alloc}}) for n in raw_nodes]
    state = ClusterState.build(nodes)
    where = state.position()
    for k, raw in enumerate(case["existing_pods"]):
        state.bind(_pod(f"e{k}", raw["labels"], raw["node"]), where[raw["node"]])
    incoming = _pod("p", {"foo": ""}, topologySpreadConstraints=case["constraints"])
    counts = Scheduler(state).filters.counts
    candidates = [where[n["name"]] for n in case["nodes"]]
    scores = spread_scores(incoming, state, counts, candidates)
    assert dict(zip((n["name"] for n in case["nodes"]), scores, strict=True)) == case["want"]


def test_schedule_anyway_hostname_spread_moves_the_replica_to_the_other_node() -> None:
    # By hand: hostname ScheduleAnyway maxSkew 1 on app=web: two candidate hostnames, weight log(2 + 2) = 1.386;
    # a-0 holds web-0: round(1.386) = 1, b-0: 0; normalised 100 * (1 + 0 - raw) // 1: a-0 0, b-0 100; PodTopologySpread
    # weight 2 adds 200 to b-0: 172 + 200 = 372 > 194 (the resource totals of _two_nodes).
    scheduler = _two_nodes()
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": HOST,
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
    placed = _pod("web-1", {"app": "web"}, topologySpreadConstraints=spread)
    assert placed.not_simulated == frozenset()
    assert scheduler.place(placed) == 1
