"""How the impact report reads (issue 34 item 9, issue 35 item 5): every figure says what it is (a change in nodes
beside the totals), a controller's near-identical Pending pods share a line, what only JSON said before (pods the
snapshot over-fills under the base, Pending pods the change lets schedule) is said in text and Markdown, and a
provisioner line shows both figures in one unit.

Each scenario is small enough to work out by hand; the reasoning is written beside each expectation.
"""

from __future__ import annotations

import io

from impact_builders import node, pod

from renderer.impact.provisioners.gaps import ProvisionerGap
from renderer.impact.repack import ImpactOptions, simulate
from renderer.impact.report import ImpactReport
from renderer.impact.result import ImpactResult
from renderer.reporters.impact import markdown, text
from renderer.reporters.impact._common import headline, pending_lines, pool_line
from renderer.reporters.impact.github import workflow_annotations

MIB = 2**20
NO_SCALE_DOWN = ImpactOptions(scale_down=None)


def _report(result: ImpactResult, **kw: object) -> ImpactReport:
    return ImpactReport("diff", "main", "working tree", result, shapes={"batch": "c6i.xlarge"}, **kw)  # type: ignore[arg-type]


def _text(report: ImpactReport) -> str:
    out = io.StringIO()
    text.write(report, out)
    return out.getvalue()


def _markdown(report: ImpactReport) -> str:
    out = io.StringIO()
    markdown.write(report, out)
    return out.getvalue()


def _batch() -> ImpactResult:
    """Two batch nodes of 4 cores. Each runs svc (2500m, the older) and late (600m, the younger): 3100m. A Job etl
    has 6 Pending pods of 1600m that fit no node before (900m free).

    Before (4000m): a new batch node takes two etl pods (3200m <= 4000m, a third makes 4800m): 3 nodes for 6, and the
    total requests need ceil(9600 / 4000) = 3.
    After (3000m): each node admits svc (2500m), then late: 3100m > 3000m, so late is displaced on both nodes, and
    neither has 600m left (500m): both newly Pending, a new batch node takes them. A new node holds one etl pod
    (3200m > 3000m): 6 nodes; the two late pods fit beside etl pods (1600 + 600 + 600 = 2800m), still 6. Total
    requests: 9600 + 1200 = 10800m, ceil(10800 / 3000) = 4.
    """
    nodes = [node(f"b{i}", "batch") for i in (1, 2)]
    pods = []
    for i in (1, 2):
        pods.append(
            pod(f"svc-{i}", "2500m", "1Gi", f"b{i}", created="2025-01-01T00:00:00Z", owner=("ReplicaSet", "svc"))
        )
        pods.append(
            pod(f"late-{i}", "600m", "1Gi", f"b{i}", created="2025-01-02T00:00:00Z", owner=("ReplicaSet", "late"))
        )
    pods += [pod(f"etl-{k}", "1600m", "1Gi", owner=("Job", "etl")) for k in range(1, 7)]
    return simulate(nodes, pods, {"batch": {"cpu": 3000}})


def test_a_change_in_nodes_is_said_beside_the_totals() -> None:
    result = _batch()
    (batch,) = result.pools
    assert (batch.before.scale_up.nodes, batch.after.scale_up.nodes, batch.after.scale_up.lower_bound) == (3, 6, 4)
    report = _report(result)
    # Not "would add 3 × c6i.xlarge (at least 4)": 3 is the change, 6 and 3 the totals, 4 the total's lower bound.
    assert headline(report) == (
        "this change leaves 2 more pods Pending on batch; the autoscaler would add 3 more × c6i.xlarge (6 in all, up "
        "from 3; their requests alone need at least 4)"
    )
    # The table: Pending 6 -> 8 (the 2 late pods), the autoscaler's total 3 -> 6 with the bound after.
    assert pool_line(report, batch) == ["batch", "c6i.xlarge", "2", "2", "6 → 8", "3 → 6 (≥ 4)", "0"]


def test_near_identical_pending_pods_share_a_line_newly_pending_first() -> None:
    report = _report(_batch())
    assert pending_lines(report) == [
        # Newly Pending (what the change does) before the pods that were Pending already; one line per controller.
        "2 pods of ReplicaSet default/late (default/late-1, default/late-2): cpu 0.6, memory 1Gi each; 0/2 nodes are "
        "available: 2 Insufficient cpu. (new batch node)",
        "6 pods of Job default/etl (default/etl-1, default/etl-2 and 4 more), Pending before the change too: cpu 1.6, "
        "memory 1Gi each; 0/2 nodes are available: 2 Insufficient cpu. (new batch node)",
    ]
    shown = _text(report)
    assert "pending (8 pods):\n  2 pods of ReplicaSet default/late" in shown
    assert "<summary>Pending pods (8 pods)</summary>" in _markdown(report)


def test_a_bare_pod_keeps_its_own_line() -> None:
    # Two bare pods with the same requests and message: no controller joins them.
    nodes = [node("n1", "general", cpu="1")]
    pods = [pod(name, "2", "1Gi", owner=None) for name in ("a", "b")]
    lines = pending_lines(_report(simulate(nodes, pods, {})))
    assert [line.split(":")[0] for line in lines] == [
        "default/a (Pending before the change too)",
        "default/b (Pending before the change too)",
    ]


def _overfilled_and_freed() -> ImpactResult:
    """Two general nodes of 4 cores. g1 holds old (2500m) and young (2000m): 4500m, more than it has — the snapshot
    over-fills it. g2 holds 1000m. A bare pod wait (3500m) is Pending.

    Before (4000m): g1 re-admits old, rejects young (4500 > 4000): one pod over-filled under the base; young moves
    to g2 (3000m free, then 1000m), and wait fits neither (1500m, 1000m): Pending.
    After (6000m): g1 admits both (4500m), g2 has 5000m free: wait is placed. The change lets 1 Pending pod schedule
    and displaces nothing.
    """
    nodes = [node("g1", "general"), node("g2", "general")]
    pods = [
        pod("old", "2500m", "1Gi", "g1", created="2025-01-01T00:00:00Z"),
        pod("young", "2000m", "1Gi", "g1", created="2025-01-02T00:00:00Z"),
        pod("busy", "1000m", "1Gi", "g2"),
        pod("wait", "3500m", "1Gi", owner=None),
    ]
    return simulate(nodes, pods, {"general": {"cpu": 6000}})


def test_what_only_json_said_is_said_in_text_and_markdown() -> None:
    result = _overfilled_and_freed()
    assert (result.overcommitted_before, result.scheduled, result.pending, result.displaced) == (
        1,
        ("default/wait",),
        (),
        (),
    )
    report = _report(result)
    # Before, a new general node (4000m) would have taken wait (3500m): one node; after, none is needed.
    assert headline(report) == (
        "on general, the autoscaler would add 1 fewer × general (none in all, down from 1); this change lets 1 "
        "Pending pod schedule"
    )
    overfilled = (
        "before the change, 1 pod already does not fit the node it runs on (main): the snapshot over-fills its "
        "nodes; the simulation places them again in both runs and does not charge them to the change"
    )
    shown = _text(report)
    assert overfilled in shown
    assert "now scheduled: Pending before the change, placed after it (1):\n  default/wait\n" in shown
    md = _markdown(report)
    assert f"> {overfilled}" in md
    assert "<summary>Pending before the change, placed after it (1)</summary>" in md
    assert report.as_dict()["nowScheduled"] == ["default/wait"]


def test_a_newly_pending_pod_no_pool_takes_is_not_said_to_find_room() -> None:
    # Issue 35 item 5. n1 (4 cores) runs big (3900m); n2 is empty. The change lowers cpu to 3800m: n1 rejects big
    # (3900 > 3800), n2 has 3800m, and a new general node (a copy of a node, 3800m, no DaemonSets) neither: big is
    # newly Pending and no pool's new node takes it. The headline used to say every displaced pod finds room.
    nodes = [node("n1", "general"), node("n2", "general")]
    # (Scale-down is left out: n1 empties, and "could remove 1 more node" would be said first.)
    result = simulate(nodes, [pod("big", "3900m", "1Gi", "n1")], {"general": {"cpu": 3800}}, NO_SCALE_DOWN)
    assert [(d.pod, d.to_node) for d in result.displaced] == [("default/big", None)]
    assert [(p.pod, p.pool, p.new) for p in result.pending] == [("default/big", None, True)]
    assert headline(_report(result)) == (
        "this change leaves 1 more pod Pending that no pool's new node takes: no autoscaler helps"
    )


def test_a_newly_pending_pod_no_pool_takes_gets_its_annotation() -> None:
    # The same scenario in -o github: no pool's sentence holds big, so its own annotation fails the run (1 > 0).
    nodes = [node("n1", "general"), node("n2", "general")]
    result = simulate(nodes, [pod("big", "3900m", "1Gi", "n1")], {"general": {"cpu": 3800}}, NO_SCALE_DOWN)
    annotations = workflow_annotations(_report(result))
    # The pool's warning said "no longer fit their node and move" before: big does not move.
    assert annotations[:2] == [
        (
            "warning",
            "::warning title=allocatable impact::general: 1 pod no longer fits its node, 1 of them newly Pending",
        ),
        (
            "error",
            "::error title=allocatable impact::1 pod newly Pending that no pool's new node takes: no autoscaler helps",
        ),
    ]
    assert [level for level, _ in annotations] == ["warning", "error", "notice"]


def test_displaced_pods_that_all_move_still_read_so() -> None:
    # n1 runs a (2000m, older) and b (1500m); the change lowers cpu to 3000m: b is displaced (3500 > 3000) and fits
    # the empty n2. Nothing is Pending: "every one finds room elsewhere" is true here.
    nodes = [node("n1", "general"), node("n2", "general")]
    pods = [
        pod("a", "2000m", "1Gi", "n1", created="2025-01-01T00:00:00Z"),
        pod("b", "1500m", "1Gi", "n1", created="2025-01-02T00:00:00Z"),
    ]
    result = simulate(nodes, pods, {"general": {"cpu": 3000}}, NO_SCALE_DOWN)
    assert [(d.pod, d.to_node) for d in result.displaced] == [("default/b", "n2")]
    assert headline(_report(result)) == "1 pod no longer fits its node, and finds room elsewhere"
    assert workflow_annotations(_report(result))[0] == (
        "warning",
        "::warning title=allocatable impact::general: 1 pod no longer fits its node and moves",
    )


def test_a_provisioner_line_shows_both_figures_in_one_unit() -> None:
    # Karpenter's view 7680Mi (7.5Gi) against nodes offering 7134Mi: 7134 / 1024 = 6.966… -> 6.97Gi. Before, the
    # line printed each quantity in its own canonical form (7680Mi beside 7305217Ki for a Ki-only value).
    gap = ProvisionerGap("karpenter", "batch", "m5.large", "memory", 7680 * MIB, 7134 * MIB, ())
    assert gap.message == "karpenter believes m5.large in batch offers memory 7.50Gi; its nodes will offer 6.97Gi"
    odd = ProvisionerGap("karpenter", "batch", "m5.large", "memory", 7680 * MIB, 7305217 * 1024, ())
    assert odd.message.endswith("offers memory 7.50Gi; its nodes will offer 6.97Gi")
    cpu = ProvisionerGap("karpenter", "batch", "c6i.4xlarge", "cpu", 7910, 13800, ())
    assert (
        cpu.message == "karpenter believes c6i.4xlarge in batch offers cpu 7.91 cores; its nodes will offer 13.8 cores"
    )


def test_a_karpenter_pool_is_said_with_its_plan_beside_what_the_pods_need() -> None:
    """The batch scenario above, its pool provisioned by Karpenter. The plans are given (their arithmetic is
    tests/impact/test_impact_karpenter_plan.py's): 3 NodeClaims for the 6 etl pods Pending before, 4 for the 8 Pending
    after, one pod it cannot place. The sentence says what Karpenter launches — 1 more (4 in all, up from 3) — then
    that the pods need 6 (the autoscaler's estimate above, on what the nodes advertise) and the pod it cannot
    place; the table's cell gives both before → after."""
    from renderer.impact.provisioners.karpenter_plan import KarpenterPlan

    result = _batch()
    before = KarpenterPlan("batch", ("c6i.xlarge",), pods=6, nodes=3, nodes_needed=3)
    after = KarpenterPlan("batch", ("c6i.xlarge",), pods=8, nodes=4, nodes_needed=6, cannot_place=("default/etl-6",))
    report = _report(result, karpenter_plans=(after,), karpenter_before=(before,))
    assert headline(report) == (
        "this change leaves 2 more pods Pending on batch; karpenter would launch 1 more × c6i.xlarge (4 in all, up "
        "from 3; the pods need 6; it cannot place 1 pod)"
    )
    (batch,) = result.pools
    assert pool_line(report, batch)[5] == "3 → 4 by karpenter (pods need 3 → 6)"
    # Pending after, none before: no before plan, Karpenter launched nothing for the pool then.
    report = _report(result, karpenter_plans=(after,))
    assert "karpenter would launch 4 × c6i.xlarge (the pods need 6; it cannot place 1 pod)" in headline(report)
