"""The cluster autoscaler's binpacking estimator against its own tests (fixtures/ca_binpacking_cases.yaml, transcribed
from kubernetes/autoscaler cluster-autoscaler-release-1.36 @ ea47d9bb: estimator/binpacking_estimator_test.go
TestBinpackingEstimate, decreasing_pod_orderer_test.go TestPodPriorityProcessor, sng_capacity_threshold_test.go,
cluster_capacity_threshold_test.go), plus hand-worked cases for the lower bound and DaemonSet overhead."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from impact_vectors import case_id, load, pod_object

from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.estimator import (
    Template,
    cluster_capacity_threshold,
    estimate,
    lower_bound,
    node_limit,
    order_groups,
    similar_groups_threshold,
)
from renderer.impact.nodes import node_from_object
from renderer.impact.podfilters import PodFilters
from renderer.impact.pods import SimPod, pod_from_object
from renderer.impact.resources import from_quantities
from renderer.quantity import Quantity

DATA = load("ca_binpacking_cases.yaml")
# Cases whose answer comes from PodTopologySpread, counted over the cluster's nodes (oldnode) and the added ones.
TOPOLOGY = [c for c in DATA["estimate_cases"] if "topologySpreadConstraints" in c["pod_groups"][0]["pod"]]
MODELLED = [c for c in DATA["estimate_cases"] if c not in TOPOLOGY]
# "... with a large scaleup handles scheduling pods retroactively": upstream's retroactive step may put pods on any
# node but the last, the cluster's oldnode included (100m cpu: room for five 20m pods, 0 of them placed there by the
# reading of this project); here the step tries the added nodes only (the cluster's nodes refused the pod in
# placement), which needs more nodes: left out, and said in docs/impact.md.
RETROACTIVE = "hostname topology spreading with maxSkew=1 with a large scaleup handles scheduling pods retroactively"


def _template(raw: dict[str, Any]) -> Template:
    alloc = raw.get("allocatable") or raw["capacity"]
    return Template(
        "pool",
        "template",
        raw.get("labels") or {},
        (),
        from_quantities({k: Quantity.parse(str(v)) for k, v in alloc.items()}),
    )


def _pods(groups: list[dict[str, Any]]) -> tuple[list[SimPod], dict[int, str]]:
    pods: list[SimPod] = []
    group_of: dict[int, str] = {}
    for g, group in enumerate(groups):
        for k in range(group["count"]):
            raw = pod_object(group["pod"], f"g{g}-{k}")
            # Each group comes from its own controller, as the test's pods do.
            raw["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": f"rs-{g}", "controller": True}]
            pod = pod_from_object(raw)
            pods.append(pod)
            group_of[id(pod)] = group.get("id", f"g{g}")
    return pods, group_of


@pytest.mark.parametrize("case", MODELLED, ids=case_id)
def test_binpacking_estimate_matches_the_autoscaler(case: dict[str, Any]) -> None:
    pods, group_of = _pods(case["pod_groups"])
    got = estimate(pods, _template(case["template_node"]), max_nodes=case["max_nodes"])
    assert got.nodes == case["expect"]["node_count"]
    assert len(got.scheduled) == case["expect"]["scheduled_pod_count"]
    if case["name"] == "decreasing ordered pods are processed first":
        assert {group_of[id(p)] for p in got.scheduled} == {"highResourcePodGroup"}


def _cluster(raw_nodes: list[dict[str, Any]]) -> PodFilters:
    nodes = [
        node_from_object(
            {"metadata": {"name": n["name"], "labels": n["labels"]}, "status": {"allocatable": n["allocatable"]}}
        )
        for n in raw_nodes
    ]
    state = ClusterState.build(nodes)
    return PodFilters(state, Eligibility(state.nodes))


@pytest.mark.parametrize("case", [c for c in TOPOLOGY if c["name"] != RETROACTIVE], ids=case_id)
def test_spread_binpacking_matches_the_autoscaler(case: dict[str, Any]) -> None:
    pods, _ = _pods(case["pod_groups"])
    template = _template(case["template_node"])
    got = estimate(pods, template, case["max_nodes"], filters=_cluster(case["existing_cluster_nodes"]))
    assert got.nodes == case["expect"]["node_count"]
    assert len(got.scheduled) == case["expect"]["scheduled_pod_count"]
    # before the filters were modelled, resources alone: 8 × 200m on 1000m nodes = 2 nodes (the "says 2")
    if case["name"].startswith("hostname topology spreading with maxSkew=2"):
        plain = [
            pod_from_object(pod_object({"requests": case["pod_groups"][0]["pod"]["requests"]}, f"p{k}"))
            for k in range(8)
        ]
        assert estimate(plain, template).nodes == 2


def test_the_topology_cases_are_all_there() -> None:
    assert len(MODELLED) == 5 and len(TOPOLOGY) == 3
    assert RETROACTIVE in {c["name"] for c in TOPOLOGY}


@pytest.mark.parametrize("case", DATA["pod_orderer_cases"], ids=case_id)
def test_group_order_matches_the_decreasing_orderer(case: dict[str, Any]) -> None:
    template = _template(case["template_node"])
    groups = []
    for name in case["input_order"]:
        pod = pod_from_object(pod_object({"requests": case["groups"][name]}, name))
        groups.append([pod])
    assert [g[0].name for g in order_groups(groups, template.allocatable)] == case["expect_order"]


@pytest.mark.parametrize(
    "case", [c for c in DATA["threshold_cases"] if c["test"] == "TestSngCapacityThreshold"], ids=case_id
)
def test_similar_node_group_threshold(case: dict[str, Any]) -> None:
    current = (case["current_node_group"]["max"], case["current_node_group"]["target"])
    similar = [(g["max"], g["target"]) for g in case["similar_node_groups"]]
    assert similar_groups_threshold(current, similar) == case["expect_node_limit"]


@pytest.mark.parametrize(
    "case", [c for c in DATA["threshold_cases"] if c["test"] == "TestNewClusterCapacityThreshold"], ids=case_id
)
def test_cluster_capacity_threshold(case: dict[str, Any]) -> None:
    assert (
        cluster_capacity_threshold(case["cluster_max_nodes"], case["current_node_count"]) == case["expect_node_limit"]
    )


@pytest.mark.parametrize(
    "case",
    # TestThresholdBasedLimiter cases with static node limits and no time limit in play.
    [
        c
        for c in DATA["limiter_cases"]
        if all("static" in t for t in c["thresholds"])
        and c["start_offset"] is None
        and "reset" not in c["operations"]
        and all(t["static"][1] in ("0s", "60m") for t in c["thresholds"])
    ],
    ids=case_id,
)
def test_limiter_node_limit(case: dict[str, Any]) -> None:
    limit = node_limit([t["static"][0] for t in case["thresholds"]])
    allowed = 0
    for op in case["operations"]:
        ok = limit >= 0 and (limit == 0 or allowed < limit)
        assert ("allow" if ok else "deny") == op
        allowed += ok
    assert allowed == case["expect_node_count"]


def _pod(name: str, cpu: str, memory: str) -> SimPod:
    raw = pod_object({"requests": {"cpu": cpu, "memory": memory}}, name)
    raw["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": name, "controller": True}]
    return pod_from_object(raw)


def test_daemonset_overhead_and_lower_bound_by_hand() -> None:
    # Template 4000m / 16Gi / 110 pods, DaemonSets already take 500m and 1Gi (2 pods): room 3500m / 15Gi / 108.
    # Six pods of 1500m / 1Gi: two fit a node by cpu (3000m <= 3500m, a third would need 4500m), so first-fit
    # decreasing needs 3 nodes; the lower bound is ceil(9000m / 3500m) = 3 as well.
    template = Template(
        "pool", "t", {}, (), {"cpu": 4000, "memory": 16 * 2**30, "pods": 110}, {"cpu": 500, "memory": 2**30}, 2
    )
    pods = [_pod(f"a{i}", "1500m", "1Gi") for i in range(6)]
    assert estimate(pods, template).nodes == 3
    assert lower_bound(pods, template) == 3
    # Three pods of 2000m: one per node (two would need 4000m > 3500m) -> 3 nodes, while the lower bound
    # ceil(6000 / 3500) = 2 shows the fragmentation.
    pods = [_pod(f"b{i}", "2000m", "1Gi") for i in range(3)]
    assert estimate(pods, template).nodes == 3
    assert lower_bound(pods, template) == 2


def test_a_pod_larger_than_the_template_stops_without_adding_empty_nodes() -> None:
    # 5000m does not fit a 4000m node: the estimator adds one node, finds it empty, and stops: 0 nodes counted.
    template = Template("pool", "t", {}, (), {"cpu": 4000, "memory": 2**34, "pods": 110})
    got = estimate([_pod("big-0", "5000m", "1Gi"), _pod("big-1", "5000m", "1Gi")], template)
    assert got.nodes == 0 and len(got.unscheduled) == 2


@given(
    st.lists(st.tuples(st.integers(1, 4000), st.integers(1, 16)), min_size=1, max_size=40),
    st.integers(1000, 8000),
)
def test_estimate_is_never_below_the_lower_bound(sizes: list[tuple[int, int]], node_cpu: int) -> None:
    template = Template("pool", "t", {}, (), {"cpu": node_cpu, "memory": 16 * 2**30, "pods": 20})
    pods = [_pod(f"p{i}", f"{cpu}m", f"{gib}Gi") for i, (cpu, gib) in enumerate(sizes)]
    fitting = [p for p in pods if p.requests["cpu"] <= node_cpu]
    got = estimate(fitting, template)
    assert got.nodes >= lower_bound(fitting, template)
    assert len(got.scheduled) == len(fitting)
    assert got.nodes <= len(fitting)


def _anti_pods(count: int, key: str) -> list[SimPod]:
    term = {"labelSelector": {"matchLabels": {"app": "solo"}}, "topologyKey": key}
    raw = {"requests": {"cpu": "100m", "memory": "100Mi"}, "namespace": "universe", "labels": {"app": "solo"}}
    pods = []
    for k in range(count):
        obj = pod_object(raw, f"solo-{k}")
        obj["spec"]["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}
        obj["metadata"]["ownerReferences"] = [{"kind": "ReplicaSet", "name": "solo", "controller": True}]
        pods.append(pod_from_object(obj))
    return pods


def test_hostname_anti_affinity_takes_a_new_node_per_pod() -> None:
    # By hand: five 100m pods that may not share a host: one 1000m template node holds all five by resources, the
    # anti-affinity puts each on its own new node (each new node has its own hostname): 5 nodes.
    template = _template({"allocatable": {"cpu": "1000m", "memory": "5000Mi", "pods": "10"}, "labels": {}})
    assert estimate(_anti_pods(5, "kubernetes.io/hostname"), template).nodes == 5


def test_zonal_anti_affinity_stops_at_one_pod_per_zone() -> None:
    # By hand: every new node is in the template's zone: the first pod takes one, the second is refused by the zone
    # (anti-affinity) and by the next new node alike (same zone), which stays empty: 1 node, 1 pod, 2 unscheduled.
    raw = {
        "allocatable": {"cpu": "1000m", "memory": "5000Mi", "pods": "10"},
        "labels": {"topology.kubernetes.io/zone": "mars"},
    }
    got = estimate(_anti_pods(3, "topology.kubernetes.io/zone"), _template(raw))
    assert (got.nodes, len(got.scheduled), len(got.unscheduled)) == (1, 1, 2)
