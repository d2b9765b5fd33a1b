"""InterPodAffinity's filter against kube-scheduler's own table: fixtures/interpodaffinity_filter_cases.yaml
(pkg/scheduler/framework/plugins/interpodaffinity/filtering_test.go, TestRequiredAffinitySingleNode and
TestRequiredAffinityMultipleNodes; each case names itself). The upstream harness runs the plugin alone, so these tests ask ``podfilters`` alone for the node's verdict;
the placement tests below are worked by hand."""

from __future__ import annotations

from typing import Any

import pytest
from impact_builders import node
from impact_vectors import case_id, load

from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.nodes import node_from_object
from renderer.impact.podfilters import ANTI_AFFINITY_REASON, PodFilters
from renderer.impact.pods import SimPod, pod_from_object
from renderer.impact.repack import simulate
from renderer.impact.scheduler import Scheduler

CASES = load("interpodaffinity_filter_cases.yaml")["cases"]
HOST = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"


def _pod(raw: dict[str, Any], cpu: str = "100m") -> SimPod:
    body: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}]}
    body.update(raw.get("spec") or {})
    if raw.get("node"):
        body["nodeName"] = raw["node"]
    meta = {"name": raw["name"], "namespace": raw["namespace"], "labels": raw["labels"]}
    return pod_from_object(
        {"metadata": meta, "spec": body, "status": {"phase": "Running" if raw.get("node") else "Pending"}}
    )


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_interpod_affinity_filter_matches_kube_scheduler(case: dict[str, Any]) -> None:
    alloc = {"cpu": "64", "memory": "256Gi", "pods": "110"}
    nodes = [node_from_object({"metadata": n, "spec": {}, "status": {"allocatable": alloc}}) for n in case["nodes"]]
    state = ClusterState.build(nodes)
    where = state.position()
    for k, raw in enumerate(case["existing_pods"]):
        if raw["node"] in where:  # a pod on a node the snapshot does not hold is not counted (as upstream)
            state.bind(_pod({**raw, "name": f"e{k}"}), where[raw["node"]])
    restriction = PodFilters(state, Eligibility(state.nodes)).restrict(_pod({**case["pod"], "name": "p"}))
    assert {n.name: restriction.failure(n.labels) for n in state.nodes} == case["want"]


def _app(name: str, app: str, node_name: str | None = None, cpu: str = "100m", **affinity: Any) -> SimPod:
    raw = {"name": name, "namespace": "default", "labels": {"app": app}, "node": node_name}
    if affinity:
        raw["spec"] = {"affinity": affinity}
    return _pod(raw, cpu)


def _anti(app: str, key: str) -> dict[str, Any]:
    term = {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": key}
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}


def _nodes(per_zone: int) -> list[Any]:
    return [node(f"{z}-{k}", "p", labels={ZONE: z, HOST: f"{z}-{k}"}) for z in ("a", "b") for k in range(per_zone)]


@pytest.mark.parametrize("per_zone", [3, 40])  # 80 nodes: the shared room tree answers, skipping excluded leaves
def test_hostname_anti_affinity_puts_each_replica_on_its_own_node(per_zone: int) -> None:
    # By hand: required anti-affinity to its own app on the hostname key: no two replicas share a node, so as many
    # replicas as nodes all place, and one more finds no node.
    nodes = _nodes(per_zone)
    scheduler = Scheduler(ClusterState.build(nodes))
    chosen = [
        scheduler.place(_app(f"web-{k}", "web", podAntiAffinity=_anti("web", HOST)["podAntiAffinity"]))
        for k in range(len(nodes))
    ]
    assert None not in chosen and len(set(chosen)) == len(nodes)
    assert scheduler.place(_app("web-x", "web", podAntiAffinity=_anti("web", HOST)["podAntiAffinity"])) is None


def test_pod_affinity_follows_the_pods_it_selects_and_the_first_of_a_group_goes_anywhere() -> None:
    # By hand: cache pods require a db pod in their zone. The db runs in zone b: every cache pod lands in zone b. A
    # pod requiring its own app (the first of a group) may go to any node carrying the key.
    nodes = _nodes(3)
    state = ClusterState.build(nodes)
    scheduler = Scheduler(state)
    state.bind(_app("db-0", "db", "b-1"), state.position()["b-1"])
    near_db = {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": ZONE}
        ]
    }
    for k in range(4):
        i = scheduler.place(_app(f"cache-{k}", "cache", podAffinity=near_db))
        assert i is not None and state.nodes[i].labels[ZONE] == "b"
    own = {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "solo"}}, "topologyKey": ZONE}
        ]
    }
    assert scheduler.place(_app("solo-0", "solo", podAffinity=own)) is not None
    stranger = {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "nobody"}}, "topologyKey": ZONE}
        ]
    }
    assert scheduler.place(_app("lost", "lost", podAffinity=stranger)) is None


def test_existing_anti_affinity_keeps_other_pods_off_and_the_message_says_so() -> None:
    # By hand: one node per zone; a guard pod on a-0 repels app=noisy from zone a (its own anti-affinity), b-0 is
    # full. The noisy pod is Pending: 1 node for cpu, 1 for the existing pod's anti-affinity.
    nodes = [
        node("a-0", "p", cpu="1", labels={ZONE: "a", HOST: "a-0"}),
        node("b-0", "p", cpu="1", labels={ZONE: "b", HOST: "b-0"}),
    ]
    pods = [
        _app("guard", "guard", "a-0", **_anti("noisy", ZONE)),
        _app("filler", "filler", "b-0", cpu="950m"),
        _app("noisy", "noisy", cpu="100m"),
    ]
    result = simulate(nodes, pods, {})
    (pending,) = result.pending
    assert pending.diagnosis.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy existing pods anti-affinity rules."
    )


def test_anti_affinity_reason_in_the_pending_message() -> None:
    # By hand: a second replica with zone anti-affinity in a one-zone cluster has nowhere to go.
    nodes = [node("a-0", "p", labels={ZONE: "a", HOST: "a-0"}), node("a-1", "p", labels={ZONE: "a", HOST: "a-1"})]
    pods = [_app("web-0", "web", "a-0", **_anti("web", ZONE)), _app("web-1", "web", **_anti("web", ZONE))]
    (pending,) = simulate(nodes, pods, {}).pending
    assert pending.diagnosis.reasons == ((ANTI_AFFINITY_REASON, 2),)


def test_a_namespace_selector_by_labels_is_flagged_not_guessed() -> None:
    # Namespace labels are not in a pods dump: such a term is read with its listed namespaces and the pod is named
    # under "namespace selector"; namespaceSelector {} (every namespace) is exact and not flagged.
    by_labels = {
        "labelSelector": {"matchLabels": {"app": "db"}},
        "topologyKey": ZONE,
        "namespaceSelector": {"matchLabels": {"team": "a"}},
    }
    every = {**by_labels, "namespaceSelector": {}}
    flagged = _app("x", "x", podAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [by_labels]})
    exact = _app("y", "y", podAffinity={"requiredDuringSchedulingIgnoredDuringExecution": [every]})
    assert "namespace selector" in flagged.not_simulated
    assert "namespace selector" not in exact.not_simulated
    assert exact.pod_affinity.affinity[0].namespaces is None
