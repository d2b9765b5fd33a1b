"""DaemonSets read back from a dump whose owners may look like anything: completed where the snapshot shows them on
most of their nodes, left as read otherwise, and never a pod per (DaemonSet, node) beyond the pods read.

Issue 30 item 10: a dump whose DaemonSet pods each name a DaemonSet of their own made the simulation add one pod per
(DaemonSet, node) — 2,000 nodes × thousands of DaemonSets. The work is counted here (pods added, static filter
lists built), never timed; bench/impact.py --distinct-daemonsets is the growth check at the issue's size."""

from __future__ import annotations

from impact_builders import node, pin, pod

from renderer.impact.repack import simulate


def _agent(name: str, ds: str, node_name: str, cpu: str = "100m") -> object:
    return pod(
        name,
        cpu,
        "64Mi",
        node_name,
        owner=("DaemonSet", ds),
        namespace="monitoring",
        affinity=pin(node_name),
    )


def test_a_daemonset_missing_on_one_of_three_nodes_gets_a_pod_there() -> None:
    nodes = [node(f"n{k}", "p") for k in range(3)]
    pods = [_agent("a-0", "agent", "n0"), _agent("a-1", "agent", "n1")]
    result = simulate(nodes, pods, {})
    # On 2 of the 3 nodes its template selects: the controller would create the third (n2 has room for 100m).
    assert (result.inputs.daemon_pods_added, result.inputs.daemonsets_partial) == (1, 0)
    assert result.pending == ()


def test_a_daemonset_on_fewer_than_half_its_nodes_is_left_as_read() -> None:
    nodes = [node(f"n{k}", "p") for k in range(3)]
    pods = [_agent("a-0", "agent", "n0")]
    result = simulate(nodes, pods, {})
    # On 1 of 3: something the dump does not show selects its nodes; nothing is added, the DaemonSet is counted.
    assert (result.inputs.daemon_pods_added, result.inputs.daemonsets_partial) == (0, 1)


def test_daemon_pods_naming_distinct_daemonsets_add_nothing_and_build_no_list_per_pod() -> None:
    nodes = [node(f"n{k:03d}", "p", cpu="64", memory="256Gi") for k in range(120)]
    pods = [_agent(f"a-{k}-{j}", f"agent-{k}-{j}", f"n{k:03d}") for k in range(120) for j in range(4)]
    result = simulate(nodes, pods, {"p": {"cpu": 100}})
    # 480 DaemonSets of one pod each on 120 selected nodes: before, 480 × 119 pods were added.
    assert (result.inputs.daemonsets, result.inputs.daemon_pods_added) == (480, 0)
    assert result.inputs.daemonsets_partial == 480
    # cpu 100m a node after the change: one 100m agent fits, the other three of each node are displaced and wait
    # on their own node (pinned), none elsewhere: 120 × 3.
    assert len(result.pending) == 360 and all(p.daemonset for p in result.pending)
    assert {p.pool for p in result.pending} == {"p"}
    # The static filters' lists: the templates share one (no affinity, the same tolerations), and the pinned pods
    # are answered from their node alone, so the count does not grow with the pods.
    assert result.counters["staticFilterEvaluations"] <= 2
