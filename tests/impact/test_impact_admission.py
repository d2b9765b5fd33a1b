"""Kubelet re-admission beyond resources: ``generalFilter`` of pkg/kubelet/lifecycle/predicate.go. Every case is
``TestGeneralPredicates`` of kubernetes/kubernetes@00991fb96b40 pkg/kubelet/lifecycle/predicate_test.go, named as
there: its ``nodeInfo`` pods are the pods the kubelet admitted before (older), its pod the one being admitted, its
node the node the pods run on, and the expected reasons are upstream's, in upstream's order (resources, then node
affinity, host ports, NoExecute taints).

Not transcribed, and why: "host not match" (a pod of a snapshot is re-admitted by the node its ``spec.nodeName``
names, so the node-name check cannot fail); the cases with a cached and a freshly fetched node (the simulation has
one node object); the ``skipIgnorableChecks`` cases (the ``NotEvictPodOnKubeletRestart`` feature gate of the newest
kubelets, which skips the affinity and taint checks for pods already started: the simulation checks them, as
kubelets without the gate do — docs/impact.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from impact_builders import node as make_node

from conftest import REPO_ROOT, run_cli
from renderer.impact.admission import AFFINITY_REASON, PORTS_REASON, TAINT_REASON, readmit
from renderer.impact.pods import SimPod, pod_from_object

OLDER, NEWER = "2025-01-01T00:00:00Z", "2025-01-02T00:00:00Z"
STATIC = {"kubernetes.io/config.source": "file"}  # types.ConfigSourceAnnotationKey: types.FileSource
EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"
SNAPSHOT = EXAMPLE / "snapshot.json"
FOO_EXISTS = {
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [{"key": "foo", "operator": "Exists"}]}]
        }
    }
}


def _pod(name: str, created: str, requests: dict[str, str] | None = None, **spec: Any) -> SimPod:
    annotations = spec.pop("annotations", {})
    container: dict[str, Any] = {"name": "c", "resources": {"requests": requests or {}}}
    if "host_ports" in spec:
        container["ports"] = [{"hostPort": p} for p in spec.pop("host_ports")]
    body = {"nodeName": "machine1", "containers": [container], **spec}
    meta = {"name": name, "namespace": "default", "creationTimestamp": created, "annotations": annotations}
    return pod_from_object({"metadata": meta, "spec": body, "status": {"phase": "Running"}})


# makeAllocatableResources(10, 20, 32, 0, 0, 0): 10m cpu, 20 bytes memory, 32 pods
ALLOCATABLE = {"cpu": "10m", "memory": "20", "pods": "32"}

#: name → (node taints, the pods admitted before, the pod, the predicate reasons, the resource reasons)
CASES: dict[
    str, tuple[list[dict[str, str]], list[SimPod], SimPod, tuple[str, ...], list[tuple[str, int, int, int]]]
] = {
    "no resources/port/host requested always fits": (
        [],
        [_pod("existing", OLDER, {"cpu": "9m", "memory": "19"})],
        _pod("pod", NEWER),
        (),
        [],
    ),
    "not enough cpu and memory resource": (
        [],
        [_pod("existing", OLDER, {"cpu": "5m", "memory": "19"})],
        _pod("pod", NEWER, {"cpu": "8m", "memory": "10"}),
        (),
        [("cpu", 8, 5, 10), ("memory", 10, 19, 20)],
    ),
    "hostport conflict": (
        [],
        [_pod("existing", OLDER, host_ports=[123])],
        _pod("pod", NEWER, host_ports=[123]),
        (PORTS_REASON,),
        [],
    ),
    "taint/toleration match": (
        [{"key": "foo", "effect": "NoSchedule"}, {"key": "bar", "effect": "NoExecute"}],
        [],
        _pod("pod", NEWER, tolerations=[{"key": "foo"}, {"key": "bar"}]),
        (),
        [],
    ),
    "NoSchedule taint/toleration not match": ([{"key": "foo", "effect": "NoSchedule"}], [], _pod("pod", NEWER), (), []),
    "NoExecute taint/toleration not match": (
        [{"key": "bar", "effect": "NoExecute"}],
        [],
        _pod("pod", NEWER),
        (TAINT_REASON,),
        [],
    ),
    "PreferNoSchedule taint/toleration not match": (
        [{"key": "baz", "effect": "PreferNoSchedule"}],
        [],
        _pod("pod", NEWER),
        (),
        [],
    ),
    "static pods ignore taints": (
        [{"key": "foo", "effect": "NoSchedule"}, {"key": "bar", "effect": "NoExecute"}],
        [],
        _pod("pod", NEWER, annotations=STATIC),
        (),
        [],
    ),
    "node affinity failure": (
        [],
        [],
        _pod("pod", NEWER, annotations=STATIC, affinity=FOO_EXISTS),
        (AFFINITY_REASON,),
        [],
    ),
}


@pytest.mark.parametrize("name", CASES, ids=list(CASES))
def test_general_predicates(name: str) -> None:
    taints, before, pod, predicates, resources = CASES[name]
    node = make_node("machine1", "pool", cpu=ALLOCATABLE["cpu"], memory=ALLOCATABLE["memory"], taints=taints)
    node.allocatable["pods"] = 32
    admitted, rejected = readmit([*before, pod], node.allocatable, node=node)
    assert [p.name for p in admitted if p is not pod] == [p.name for p in before]
    if not predicates and not resources:
        assert rejected == [] and admitted[-1] is pod
        return
    (r,) = rejected
    assert r.pod is pod and r.predicates == predicates
    assert [(i.resource, i.requested, i.used, i.allocatable) for i in r.reasons] == resources


def test_the_reasons_reach_the_report() -> None:
    """Worked by hand: two nodes of 4 cores; on ``a`` (NoExecute ``gpu``) an old pod that does not tolerate it and
    binds host port 9100 — the same port as the older node-exporter there. The restarted kubelet admits
    node-exporter, then rejects the pod with both reasons, in upstream's order; the pod goes to ``b`` (untainted,
    port free). Nothing changes between before and after, so the rejection is counted as before the change
    (``overcommitted_before``), not as displaced by it."""
    from renderer.impact.repack import simulate

    a = make_node("a", "p", taints=[{"key": "gpu", "effect": "NoExecute"}])
    b = make_node("b", "p")
    exporter = _pod("node-exporter", OLDER, {"cpu": "100m"}, host_ports=[9100], tolerations=[{"operator": "Exists"}])
    exporter.node = "a"
    app = _pod("app", NEWER, {"cpu": "1"}, host_ports=[9100])
    app.node = "a"
    admitted, rejected = readmit([exporter, app], a.allocatable, node=a)
    assert [p.name for p in admitted] == ["node-exporter"]
    assert [r.predicates for r in rejected] == [(PORTS_REASON, TAINT_REASON)]
    result = simulate([a, b], [exporter, app], {})
    assert result.displaced == () and result.overcommitted_before == 1 and result.pending == ()
    # The rejected pod is named, with the kubelet's reasons and where the before run's scheduler put it (b).
    (before,) = result.rejected_before
    assert (before.pod, before.node, before.to_node) == ("default/app", "a", "b")
    assert [s.reason for s in before.shortfall] == [PORTS_REASON, TAINT_REASON]
    assert result.as_dict()["rejectedBefore"] == [
        {
            "pod": "default/app",
            "node": "a",
            "pool": "p",
            "reasons": [{"reason": PORTS_REASON}, {"reason": TAINT_REASON}],
            "movesTo": {"node": "b", "pool": "p"},
            "daemonSet": False,
        }
    ]


def test_a_pod_rejected_before_the_change_is_named_in_every_format(tmp_path: Path) -> None:
    """The documented example (docs/examples/impact) with one change to the snapshot: general node
    ip-10-0-1-20 carries a ``NoExecute`` taint ``maint=x``. Worked by hand: its pods are node-exporter (tolerates
    everything: ``operator: Exists``) and web/frontend-6d4f8-abcde (no toleration). Its kubelet, restarted, rejects
    the frontend whatever the reservations — "node(s) had taints that the pod didn't tolerate" — so it is not
    fitting before the change, not displaced by it. The scheduler puts it on the other general node, ip-10-0-2-21
    (3500m allocatable: node-exporter 100m + coredns 100m + the other frontend 1000m + this one 1000m = 2200m; the
    batch nodes are tainted ``dedicated=batch``). Before this, the reports said only "1 pod" (JSON: a count)."""
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    (node,) = [i for i in snapshot["items"] if i["metadata"]["name"] == "ip-10-0-1-20.ec2.internal"]
    node["spec"]["taints"] = [{"key": "maint", "value": "x", "effect": "NoExecute"}]
    exporter = [i for i in snapshot["items"] if i["metadata"]["name"] == "node-exporter-cx9k2"]
    assert exporter[0]["spec"]["tolerations"] == [{"operator": "Exists"}]  # the premise above
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps(snapshot), encoding="utf-8")
    args = ("verify", str(EXAMPLE / "policies"), "--nodes", str(path), "--pods", str(path))
    text, doc, md = (run_cli(*args, *extra) for extra in ((), ("-o", "json"), ("-o", "markdown")))
    line = (
        "web/frontend-6d4f8-abcde on ip-10-0-1-20.ec2.internal (eks-general): "
        f"{TAINT_REASON} → ip-10-0-2-21.ec2.internal (eks-general)"
    )
    assert f"not fitting their node before the change (1):\n  {line}\n" in text.stdout
    impact = json.loads(doc.stdout)["impact"]
    assert impact["overcommittedBefore"] == 1
    assert impact["rejectedBefore"] == [
        {
            "pod": "web/frontend-6d4f8-abcde",
            "node": "ip-10-0-1-20.ec2.internal",
            "pool": "eks-general",
            "reasons": [{"reason": TAINT_REASON}],
            "movesTo": {"node": "ip-10-0-2-21.ec2.internal", "pool": "eks-general"},
            "daemonSet": False,
        }
    ]
    # the displaced pods are the documented two, unchanged by the taint
    assert [d["pod"] for d in impact["displaced"]] == ["batch/report-29001-7f9c", "batch/report-29002-x2kq"]
    assert "Not fitting their node before the change" in md.stdout and "web/frontend-6d4f8-abcde" in md.stdout


def test_a_predicate_is_shown_in_the_kubelets_words() -> None:
    """A displaced pod's reasons: resources with their figures, the other checks as the kubelet words them."""
    from renderer.impact.result import Displaced, Shortfall
    from renderer.reporters.impact._common import displaced_line

    d = Displaced(
        "default/app",
        "a",
        "p",
        (Shortfall("cpu", 2000, 3000, 4000), Shortfall("", 0, 0, 0, predicate=TAINT_REASON)),
        None,
        None,
    )
    assert displaced_line(d) == (
        "default/app on a (p): Insufficient cpu: asks 2 cores, 3 of 4 cores taken; "
        "node(s) had taints that the pod didn't tolerate → Pending"
    )
    assert d.as_dict()["reasons"][1] == {"reason": TAINT_REASON}


def test_claims_gates_and_nominations_are_flagged_with_the_pods_they_touch() -> None:
    """Worked by hand: one node of 1 core holding a 900m pod; three Pending pods of 500m, none fits. One has a
    resource claim (DRA), one a node nominated by preemption, one a scheduling gate. The first two stay Pending and
    are named under their feature; the gated one is left out of placement and named under "scheduling gates"."""
    from renderer.impact.repack import simulate

    n = make_node("n1", "p", cpu="1")
    full = _pod("full", OLDER, {"cpu": "900m"})
    full.node = "n1"

    def pending(name: str, spec: dict[str, Any], status: dict[str, Any] | None = None) -> SimPod:
        body = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}], **spec}
        meta = {"name": name, "namespace": "default", "creationTimestamp": NEWER}
        return pod_from_object({"metadata": meta, "spec": body, "status": {"phase": "Pending", **(status or {})}})

    claim = pending("claim", {"resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu-0"}]})
    nominated = pending("nominated", {}, {"nominatedNodeName": "n1"})
    gated = pending("gated", {"schedulingGates": [{"name": "example.com/quota"}]})
    result = simulate([n], [full, claim, nominated, gated], {})
    flagged = {f.feature: f.examples for f in result.not_simulated if f.pods}
    assert flagged == {
        "resource claims": ("default/claim",),
        "nominated node": ("default/nominated",),
        "scheduling gates": ("default/gated",),
    }
    assert result.gated == ("default/gated",)
