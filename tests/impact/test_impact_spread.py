"""PodTopologySpread's filter against kube-scheduler's own tables: fixtures/podtopologyspread_filter_cases.yaml
(pkg/scheduler/framework/plugins/podtopologyspread/filtering_test.go, TestSingleConstraint and
TestMultipleConstraints; each case names its test). The upstream harness runs the plugin alone, so these tests ask
``podfilters`` alone for each node's verdict; the scheduler-level tests below are worked by hand."""

from __future__ import annotations

from typing import Any

import pytest
from impact_builders import node
from impact_vectors import case_id, load

from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.nodes import node_from_object
from renderer.impact.podfilters import SPREAD_MISSING_LABEL_REASON, SPREAD_REASON, PodFilters
from renderer.impact.pods import SimPod, pod_from_object
from renderer.impact.repack import simulate
from renderer.impact.scheduler import Scheduler

CASES = load("podtopologyspread_filter_cases.yaml")["cases"]
_STATUS = {None: "Success", SPREAD_REASON: "Unschedulable", SPREAD_MISSING_LABEL_REASON: "UnschedulableAndUnresolvable"}


def _pod(
    name: str,
    labels: dict[str, str],
    node_name: str | None = None,
    namespace: str = "default",
    cpu: str = "100m",
    **spec: Any,
) -> SimPod:
    body: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "100Mi"}}}]}
    body.update(spec)
    if node_name is not None:
        body["nodeName"] = node_name
    meta = {
        "name": name,
        "namespace": namespace,
        "labels": labels,
        "creationTimestamp": "2025-01-01T00:00:00Z",
        "ownerReferences": [{"kind": "ReplicaSet", "name": labels.get("app", "app"), "controller": True}],
    }
    return pod_from_object({"metadata": meta, "spec": body, "status": {"phase": "Running" if node_name else "Pending"}})


def _state(case: dict[str, Any]) -> tuple[ClusterState, PodFilters]:
    nodes = [
        node_from_object(
            {
                "metadata": {"name": n["name"], "labels": n["labels"]},
                "spec": {"taints": n.get("taints", [])},
                "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
            }
        )
        for n in case["nodes"]
    ]
    state = ClusterState.build(nodes)
    where = state.position()
    for p in case["existing_pods"]:
        state.bind(_pod(p["name"], p["labels"], p["node"], p.get("namespace", "default")), where[p["node"]])
    return state, PodFilters(state, Eligibility(state.nodes))


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_spread_filter_matches_kube_scheduler(case: dict[str, Any]) -> None:
    state, filters = _state(case)
    incoming = _pod("p", case["pod"]["labels"], **case["pod"]["spec"])
    restriction = filters.restrict(incoming)
    got = {n.name: _STATUS[restriction.failure(n.labels)] for n in state.nodes}
    assert got == case["want_status"]


def _zones(count: int, per_zone: int, cpu: str = "4") -> list[Any]:
    return [
        node(
            f"{z}-{k}",
            "p",
            cpu=cpu,
            labels={"topology.kubernetes.io/zone": z, "kubernetes.io/hostname": f"{z}-{k}"},
        )
        for z in ("a", "b", "c")[:count]
        for k in range(per_zone)
    ]


ZONE_SPREAD = {
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
}


@pytest.mark.parametrize("per_zone", [1, 40])  # 40 × 3 nodes: the shared room tree answers, with a NotIn class
def test_zone_spread_places_replicas_round_the_zones(per_zone: int) -> None:
    # By hand: maxSkew 1 over three zones. Replica k may go only where its zone count stays within 1 of the least
    # loaded zone, so six replicas end 2/2/2 whatever the scores prefer.
    nodes = _zones(3, per_zone)
    state = ClusterState.build(nodes)
    scheduler = Scheduler(state)
    placed = []
    for k in range(6):
        i = scheduler.place(_pod(f"web-{k}", {"app": "web"}, **ZONE_SPREAD))
        assert i is not None
        placed.append(state.nodes[i].labels["topology.kubernetes.io/zone"])
    assert sorted(placed) == ["a", "a", "b", "b", "c", "c"]
    assert scheduler.constrained == 6


@pytest.mark.parametrize("per_zone", [2, 40])
def test_hostname_anti_affinity_and_spread_exclude_the_nodes_already_holding_a_replica(per_zone: int) -> None:
    # By hand: hostname spread with maxSkew 1 over n nodes, every node empty: the first n replicas each take a node
    # of their own (a node holding one while another holds none has skew 2 > 1).
    nodes = _zones(2, per_zone)
    state = ClusterState.build(nodes)
    scheduler = Scheduler(state)
    spread = {
        "topologySpreadConstraints": [
            {
                "maxSkew": 1,
                "topologyKey": "kubernetes.io/hostname",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "api"}},
            }
        ]
    }
    chosen = [scheduler.place(_pod(f"api-{k}", {"app": "api"}, **spread)) for k in range(len(nodes))]
    assert None not in chosen
    assert len(set(chosen)) == len(nodes)


def test_a_pending_pod_says_the_spread_filter_rejected_the_nodes() -> None:
    # By hand: two zones of one 1-cpu node each; three replicas of 300m already run in zone a, none in zone b, whose
    # node has no room (a 980m pod of another app). The next replica: zone a would make 4 vs 0 > maxSkew 1, zone b
    # lacks cpu. The scheduler's message counts each node under the first filter it fails.
    nodes = [
        node("a-0", "p", cpu="1", labels={"topology.kubernetes.io/zone": "a"}),
        node("b-0", "p", cpu="1", labels={"topology.kubernetes.io/zone": "b"}),
    ]
    pods = [_pod(f"web-{k}", {"app": "web"}, "a-0", cpu="300m", **ZONE_SPREAD) for k in range(3)]
    pods.append(_pod("batch", {"app": "batch"}, "b-0", cpu="980m"))
    pods.append(_pod("web-3", {"app": "web"}, cpu="50m", **ZONE_SPREAD))
    result = simulate(nodes, pods, {})
    (pending,) = result.pending
    assert pending.pod == "default/web-3"
    assert pending.diagnosis.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match pod topology spread constraints."
    )


def test_the_room_tree_and_the_plain_walk_place_constrained_pods_alike() -> None:
    # The same filters through both placement paths (the shared room tree with excluded leaves and NotIn classes,
    # and the walk with prune=False): 150 nodes of mixed sizes in three zones, 120 pods of four Deployments with zone
    # spread, hostname spread, hostname anti-affinity and none, sizes varied, in one queue: every choice the same.
    import random

    rng = random.Random(7)
    nodes = [
        node(
            f"n{i:03d}",
            "p",
            cpu=str(rng.choice([2, 4, 8])),
            labels={"topology.kubernetes.io/zone": "abc"[i % 3], "kubernetes.io/hostname": f"n{i:03d}"},
        )
        for i in range(150)
    ]

    def spread(app: str, key: str) -> dict[str, Any]:
        c = {"maxSkew": 1, "topologyKey": key, "whenUnsatisfiable": "DoNotSchedule"}
        return {"topologySpreadConstraints": [{**c, "labelSelector": {"matchLabels": {"app": app}}}]}

    anti = {
        "affinity": {
            "podAntiAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": [
                    {"labelSelector": {"matchLabels": {"app": "solo"}}, "topologyKey": "kubernetes.io/hostname"}
                ]
            }
        }
    }
    kinds = [
        ("zonal", spread("zonal", "topology.kubernetes.io/zone")),
        ("hosts", spread("hosts", "kubernetes.io/hostname")),
        ("solo", anti),
        ("plain", {}),
    ]
    queue = []
    for k in range(120):
        app, spec = kinds[k % 4]
        queue.append(_pod(f"{app}-{k}", {"app": app}, cpu=f"{rng.randrange(100, 1500)}m", **spec))
    runs = []
    for prune in (True, False):
        state = ClusterState.build(nodes)
        scheduler = Scheduler(state, prune=prune)
        runs.append([scheduler.place(p) for p in queue])
    assert runs[0] == runs[1]
    assert sum(1 for c in runs[0] if c is not None) > 100


@pytest.mark.parametrize(("constrained", "removable"), [(False, 1), (True, 0)])
def test_scale_down_keeps_a_node_whose_pod_the_spread_holds_there(constrained: bool, removable: int) -> None:
    # By hand: two nearly empty nodes, one api replica on each. Scale-down could empty either into the other (100m
    # each) — unless hostname spread with maxSkew 1 holds them apart: the node being emptied stays a domain, its pod
    # taken off (as the autoscaler unschedules it before re-placing it), so the other node would hold 2 against 0.
    spec = (
        {
            "topologySpreadConstraints": [
                {
                    "maxSkew": 1,
                    "topologyKey": "kubernetes.io/hostname",
                    "whenUnsatisfiable": "DoNotSchedule",
                    "labelSelector": {"matchLabels": {"app": "api"}},
                }
            ]
        }
        if constrained
        else {}
    )
    nodes = [node(n, "p", labels={"kubernetes.io/hostname": n}) for n in ("a-0", "b-0")]
    pods = [_pod(f"api-{n}", {"app": "api"}, n, **spec) for n in ("a-0", "b-0")]
    result = simulate(nodes, pods, {})
    (pool,) = result.pools
    assert pool.after.removable == removable
