"""Re-packing scenarios small enough to work out by hand; the reasoning is written beside each expectation."""

from __future__ import annotations

from impact_builders import GI, node, pin, pod

from renderer.impact.repack import ImpactOptions, simulate
from renderer.impact.result import ImpactResult, PoolImpact


def _pool(result: ImpactResult, name: str) -> PoolImpact:
    return next(p for p in result.pools if p.pool == name)


def test_the_youngest_pod_is_displaced_and_scoring_picks_its_new_node() -> None:
    # Pool "general", four 4-cpu/16Gi nodes; the change lowers allocatable cpu to 3000m.
    nodes = [node(f"n{i}", "general") for i in (1, 2, 3, 4)]
    pods = [
        pod("a", "2000m", "4Gi", "n1", created="2025-01-01T00:00:00Z"),
        pod("b", "1500m", "4Gi", "n1", created="2025-01-02T00:00:00Z"),  # younger: the kubelet admits a first
        pod("c", "1000m", "2Gi", "n2"),
        pod("d", "3000m", "8Gi", "n3"),  # exactly 3000m: still fits (the fit check is request > free)
        pod("e", "500m", "12Gi", "n4"),
    ]
    result = simulate(nodes, pods, {"general": {"cpu": 3000}})
    # n1 re-admits a (2000m), then b: 2000 + 1500 = 3500m > 3000m: b is displaced.
    assert [(d.pod, d.node) for d in result.displaced] == [("default/b", "n1")]
    (short,) = result.displaced[0].shortfall
    assert (short.resource, short.requested, short.used, short.allocatable) == ("cpu", 1500, 2000, 3000)
    # b (1500m, 4Gi) fits n2 (1000 + 1500 = 2500m) and n4 (500 + 1500 = 2000m; memory 12 + 4 = 16Gi, exactly full).
    # n2: LeastAllocated cpu (3000-2500)*100/3000 = 16, memory (16-6)*100/16 = 62 -> (16+62)/2 = 39;
    #     BalancedAllocation fractions 0.833, 0.375 -> std 0.229 -> 77.    Total 3*100 + 39 + 77 = 416.
    # n4: cpu (3000-2000)*100/3000 = 33, memory 0 -> 16; balance 0.667, 1.0 -> std 0.167 -> 83. Total 300+16+83 = 399.
    assert result.displaced[0].to_node == "n2"
    assert result.pending == () and result.overcommitted_before == 0
    general = _pool(result, "general")
    assert (general.displaced, general.new_pending, general.nodes_to_add) == (1, 0, 0)


def test_pods_of_a_dedicated_pool_go_pending_and_the_autoscaler_adds_one_node() -> None:
    taint = [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]
    nodes = [
        node("b1", "batch", cpu="8", memory="32Gi", taints=taint),
        node("b2", "batch", cpu="8", memory="32Gi", taints=taint),
        node("g1", "general", cpu="8", memory="32Gi"),
    ]
    batch = {
        "nodeSelector": {"pool": "batch"},
        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "batch", "effect": "NoSchedule"}],
    }
    pods = [
        pod(f"{n}-{k}", "2500m", "8Gi", n, created=f"2025-01-0{k}T00:00:00Z", **batch)
        for n in ("b1", "b2")
        for k in (1, 2, 3)
    ]
    result = simulate(nodes, pods, {"batch": {"cpu": 7000}})
    # Each batch node admits two pods (5000m); the third (7500m > 7000m) is displaced: b1-3 and b2-3.
    assert sorted(d.pod for d in result.displaced) == ["default/b1-3", "default/b2-3"]
    # They may only use batch nodes (nodeSelector), where 5000 + 2500 > 7000: both stay Pending.
    assert all(d.to_node is None for d in result.displaced)
    assert [p.pod for p in result.pending] == ["default/b1-3", "default/b2-3"]
    # The scheduler's message: 2 batch nodes lack cpu, the general node does not match the selector.
    assert result.pending[0].diagnosis.message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient cpu."
    )
    batch_pool = _pool(result, "batch")
    # A new batch node (7000m, no DaemonSets) takes both (5000m): the autoscaler adds 1; lower bound
    # ceil(5000 / 7000) = 1.
    assert (batch_pool.after.pending, batch_pool.after.scale_up.nodes, batch_pool.after.scale_up.lower_bound) == (
        2,
        1,
        1,
    )
    assert (batch_pool.before.pending, batch_pool.nodes_to_add) == (0, 1)
    # The empty general node is removable before and after (utilization 0 < 0.5): no change there.
    general = _pool(result, "general")
    assert (general.before.removable, general.after.removable, general.nodes_freed) == (1, 1, 0)


def _daemon(name: str, node_name: str, cpu: str, created: str, priority: int = 0) -> dict[str, object]:
    return {
        "name": name,
        "cpu": cpu,
        "memory": "256Mi",
        "node": node_name,
        "created": created,
        "owner": ("DaemonSet", "agent"),
        "namespace": "monitoring",
        "affinity": pin(node_name),
        "priority": priority,
    }


def test_a_daemonset_pod_waits_on_its_node_and_one_is_added_where_it_was_missing() -> None:
    nodes = [node("n1", "p", cpu="2", memory="8Gi"), node("n2", "p", cpu="2", memory="8Gi")]
    pods = [
        pod("app", "1500m", "1Gi", "n1", created="2025-01-01T00:00:00Z"),
        pod(**_daemon("agent-x", "n1", "400m", "2025-01-02T00:00:00Z")),
    ]
    result = simulate(nodes, pods, {"p": {"cpu": 1800}})
    # n2 has no agent pod: the DaemonSet controller would create one there (400m fits).
    assert result.inputs.daemon_pods_added == 1
    # n1 admits app first (older), then the agent: 1500 + 400 = 1900m > 1800m: rejected, recreated on n1, Pending.
    assert [(d.pod, d.to_node, d.daemonset) for d in result.displaced] == [("monitoring/agent-x", None, True)]
    (waiting,) = result.pending
    assert (waiting.pod, waiting.pool, waiting.daemonset) == ("monitoring/agent-x", "p", True)
    p = _pool(result, "p")
    # The autoscaler does not add nodes for a DaemonSet pod (a new node brings its own).
    assert (p.after.daemonset_pending, p.after.scale_up.nodes) == (1, 0)
    assert result.unplaceable == ()


def test_a_critical_daemon_pod_keeps_its_place_and_the_app_finds_no_node() -> None:
    nodes = [node("n1", "p", cpu="2", memory="8Gi"), node("n2", "p", cpu="2", memory="8Gi")]
    pods = [
        pod("app", "1500m", "1Gi", "n1", created="2025-01-01T00:00:00Z"),
        pod(**_daemon("agent-x", "n1", "400m", "2025-01-02T00:00:00Z", priority=2000001000)),
    ]
    result = simulate(nodes, pods, {"p": {"cpu": 1800}})
    # system-node-critical: admitted before app although younger; app (1500m) no longer fits next to it (1900m).
    assert [d.pod for d in result.displaced] == ["default/app"]
    # n2 runs the added agent pod (400m): 400 + 1500 = 1900m > 1800m. app stays Pending.
    assert [p.pod for p in result.pending] == ["default/app"]
    # A new node of pool p: 1800m minus the agent's 400m leaves 1400m < 1500m: no new node would take app, so
    # the autoscaler cannot help (the pod is unplaceable, not attributed to the pool).
    assert result.unplaceable == ("default/app",)
    p = _pool(result, "p")
    assert p.after.daemon_overhead["cpu"] == 400 and p.after.scale_up.nodes == 0


def test_freeing_room_lets_the_autoscaler_remove_one_more_node() -> None:
    # Pool "web": four 4-cpu nodes; six 1000m pods: w1 and w2 two each, w3 and w4 one each.
    nodes = [node(f"w{i}", "web") for i in (1, 2, 3, 4)]
    pods = [pod(f"p{k}", "1000m", "1Gi", n) for k, n in enumerate(("w1", "w1", "w2", "w2", "w3", "w4"))]
    result = simulate(nodes, pods, {"web": {"cpu": 6000}})
    web = _pool(result, "web")
    # Before (4000m): w1 and w2 are at 0.5 (not below the 0.5 threshold); w3's pod moves to w1 (first fit), w4's to
    # w2: 2 nodes removable.
    assert web.before.removable == 2
    # After (6000m): every node is under 0.5. w3 -> w1 (3000m), w4 -> w2 (3000m), then w1's three pods all fit on
    # w2 (6000m exactly); w2's six pods have nowhere to go: 3 removable, one more than before.
    assert (web.after.removable, web.nodes_freed) == (3, 1)
    # Upper bound: 6000m of pods on 6000m nodes need 1 node: 4 - 1 = 3.
    assert web.after.removable_bound == 3
    assert result.displaced == () and result.pending == ()


def test_cordon_and_taints_are_respected_when_moving() -> None:
    nodes = [
        node("n1", "p", cpu="2"),
        node("n2", "p", cpu="4", unschedulable=True),  # cordoned: only pods tolerating it may land
        node("n3", "p", cpu="4", taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]),
        node("n4", "p", cpu="2"),
    ]
    pods = [
        pod("old", "1000m", "1Gi", "n1", created="2025-01-01T00:00:00Z"),
        pod("new", "1000m", "1Gi", "n1", created="2025-01-02T00:00:00Z"),
        pod("fill", "1500m", "1Gi", "n4"),
    ]
    result = simulate(nodes, pods, {"p": {"cpu": 1500}})
    # n1 keeps "old" (1000m), rejects "new"; n2 is cordoned, n3 tainted, n4 full (1500m): Pending.
    assert [d.pod for d in result.displaced] == ["default/new"]
    assert result.pending[0].diagnosis.message == (
        "0/4 nodes are available: 1 node(s) had untolerated taint {gpu: true}, 1 node(s) were unschedulable, "
        "2 Insufficient cpu."
    )


def test_pods_pending_before_the_change_are_not_new() -> None:
    nodes = [node("n1", "p", cpu="1")]
    pods = [pod("running", "800m", "1Gi", "n1"), pod("waiting", "500m", "1Gi")]
    result = simulate(nodes, pods, {"p": {"cpu": 900}})
    # "waiting" did not fit before (800 + 500 > 1000) and does not after: Pending, but not caused by the change.
    assert [(p.pod, p.new) for p in result.pending] == [("default/waiting", False)]
    assert result.new_pending == 0
    assert result.inputs.pending == 1 and result.inputs.running == 1


def test_gated_and_terminated_pods_are_left_out_and_counted() -> None:
    nodes = [node("n1", "p")]
    done = pod("done", "1", "1Gi", "n1")
    done.phase = "Succeeded"
    pods = [done, pod("gated", "1", "1Gi", schedulingGates=[{"name": "wait"}]), pod("lost", "1", "1Gi", "gone")]
    result = simulate(nodes, pods, {})
    assert result.gated == ("default/gated",)
    assert (result.inputs.terminated, result.inputs.unknown_node) == (1, 1)
    assert result.pending == ()


def test_not_simulated_features_are_named_with_the_pods_they_touch() -> None:
    nodes = [node("n1", "p", cpu="1")]
    term = {"labelSelector": {"matchLabels": {"app": "b"}}, "topologyKey": "zone"}
    preferred = {
        "affinity": {
            "podAntiAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "podAffinityTerm": term}]
            }
        }
    }
    pods = [pod("a", "600m", "1Gi", "n1", created="2025-01-01T00:00:00Z"), pod("b", "300m", "1Gi", "n1", **preferred)]
    result = simulate(nodes, pods, {"p": {"cpu": 800}})
    features = {n.feature: n for n in result.not_simulated}
    # the pod's own preferred terms score (podscores.py); what they do to the pods after it does not
    assert features["inter-pod affinity symmetry"].examples == ("default/b",)
    assert {"preemption", "pod disruption budgets"} <= set(features)
    assert "inter-pod affinity" not in features


def test_a_template_for_a_pool_without_nodes_is_used_for_the_estimate() -> None:
    from renderer.impact.templates import TemplateSpec

    nodes = [node("n1", "small", cpu="1")]
    pods = [pod("big", "3000m", "4Gi")]
    spec = TemplateSpec({"pool": "large"}, {"cpu": 8000, "memory": 32 * GI, "pods": 110})
    result = simulate(nodes, pods, {"large": {"cpu": 7500}}, ImpactOptions(templates={"large": spec}))
    # No node of "small" takes 3000m; the "large" pool (scale from zero, 7500m after the change) does: one node.
    large = _pool(result, "large")
    assert (large.nodes, large.after.pending, large.after.scale_up.nodes) == (0, 1, 1)
    assert large.after.allocatable["cpu"] == 7500


def test_a_daemon_pod_already_waiting_for_its_node_is_not_added_twice() -> None:
    nodes = [node("n1", "p", cpu="2"), node("n2", "p", cpu="1")]
    pods = [
        pod(**_daemon("agent-1", "n1", "400m", "2025-01-01T00:00:00Z")),
        # Created for n2 by the controller, still Pending there (n2 is full).
        pod(**{**_daemon("agent-2", "n2", "400m", "2025-01-01T00:00:00Z"), "node": None}),
        pod("filler", "900m", "1Gi", "n2"),
    ]
    result = simulate(nodes, pods, {})
    assert result.inputs.daemon_pods_added == 0
    assert [(p.pod, p.daemonset, p.new) for p in result.pending] == [("monitoring/agent-2", True, False)]


def test_a_change_can_name_single_nodes() -> None:
    # Pool-level change for p (cpu 3000m) and a node-level one for n2 only (cpu 1000m): n2's 1500m pod no longer fits.
    nodes = [node("n1", "p"), node("n2", "p")]
    pods = [pod("a", "1500m", "1Gi", "n1"), pod("b", "1500m", "1Gi", "n2")]
    result = simulate(nodes, pods, {"p": {"cpu": 3000}}, ImpactOptions(node_change={"n2": {"cpu": 1000}}))
    # b moves to n1: 1500 + 1500 = 3000m fits exactly.
    assert [(d.pod, d.node, d.to_node) for d in result.displaced] == [("default/b", "n2", "n1")]
