"""The simulation through the command line, end to end, on the snapshot of docs/examples/impact worked out by hand.

The snapshot (docs/examples/impact/snapshot.json, ``kubectl get nodes,pods -A -o json`` shape): two c6i.2xlarge
nodes of eks-batch (8 cpu, tainted dedicated=batch:NoSchedule) reporting 7500m allocatable cpu — kube-reserved 500m —
and two m5.xlarge nodes of eks-general reporting 3500m. The change raises the batch kube-reserved cpu to 1500m:
6500m allocatable.

Worked by hand:

- each batch node runs node-exporter (DaemonSet, 100m, oldest), two training pods of 2500m and one report pod of
  2000m (youngest). The kubelet re-admits oldest first: 100 + 2500 + 2500 = 5100m, then 5100 + 2000 = 7100m > 6500m:
  the report pod is rejected ("Insufficient cpu", 5100m of 6500m taken) on each batch node: 2 displaced;
- the report pods select tier=batch and tolerate the batch taint only: the other batch node has 5100m + 2000m >
  6500m, the general nodes do not match: both stay Pending — "0/4 nodes are available: 2 Insufficient cpu,
  2 node(s) didn't match Pod's node affinity/selector.";
- a new batch node (the autoscaler copies a batch node: 6500m, minus node-exporter's 100m = 6400m) takes both
  (4000m): 1 node; lower bound ceil(4000 / 6400) = 1;
- web/renderer (4000m) was Pending before and stays so: no general node has 4000m (3500m), a new general node has
  3400m after node-exporter, batch nodes are tainted: no pool's new node takes it (not new, not counted against the
  threshold);
- scale-down, before and after alike: general-1 (1100m of 3500m) is below 0.5, its frontend pod fits general-2
  (1200 + 1000 <= 3500m): 1 removable; general-2 keeps coredns (kube-system); the batch nodes are above 0.5;
- read: 4 nodes, 15 pods: 13 running, 1 Pending, 1 Succeeded (migrate-db, 4000m, holds nothing).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, run_cli

EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"
SNAPSHOT = EXAMPLE / "snapshot.json"
HEADLINE = (
    "leaves 2 more pods Pending on eks-batch; the autoscaler would add 1 × c6i.2xlarge; 1 Pending pod fits no "
    "pool's new node: no autoscaler helps"
)


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "GIT_CONFIG_GLOBAL": os.devnull}
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env, check=True)
    return done.stdout


@pytest.fixture
def pr(tmp_path: Path) -> Path:
    """A git repo whose main has the batch kube-reserved cpu at 500m (what the nodes run) and whose work tree raises
    it to 1500m (docs/examples/impact/policies as committed)."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "policies", repo / "policies")
    reservations = repo / "policies" / "reservations.yaml"
    changed = reservations.read_text(encoding="utf-8")
    reservations.write_text(changed.replace("cpu: 1500m", "cpu: 500m"), encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
    reservations.write_text(changed, encoding="utf-8")
    shutil.copy(SNAPSHOT, repo / "snapshot.json")
    return repo


def _impact(doc: dict[str, Any]) -> dict[str, Any]:
    impact = doc["impact"]
    assert isinstance(impact, dict)
    return impact


def _check(impact: dict[str, Any]) -> None:
    assert [(d["pod"], d["movesTo"]) for d in impact["displaced"]] == [
        ("batch/report-29001-7f9c", None),
        ("batch/report-29002-x2kq", None),
    ]
    assert impact["displaced"][0]["reasons"] == [
        {"resource": "cpu", "requested": "2", "used": "5100m", "allocatable": "6500m"}
    ]
    pending = {p["pod"]: p for p in impact["pending"]}
    assert pending["batch/report-29001-7f9c"]["why"]["message"] == (
        "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector."
    )
    assert (pending["web/renderer-5c7b9-klmno"]["new"], pending["web/renderer-5c7b9-klmno"]["pool"]) == (False, None)
    pools = {p["pool"]: p for p in impact["pools"]}
    batch, general = pools["eks-batch"], pools["eks-general"]
    assert (batch["displaced"], batch["newPending"], batch["nodesToAdd"]) == (2, 2, 1)
    assert batch["after"]["scaleUp"] == {
        "pods": 2,
        "nodes": 1,
        "lowerBound": 1,
        "limited": False,
        "podsNoNewNodeTakes": 0,
    }
    assert batch["after"]["allocatable"]["cpu"] == "6500m" and batch["before"]["allocatable"]["cpu"] == "7500m"
    assert batch["after"]["daemonOverhead"]["cpu"] == "100m"
    assert (general["before"]["removableNodes"], general["after"]["removableNodes"], general["nodesFreed"]) == (1, 1, 0)
    assert impact["inputs"] == {
        "nodes": 4,
        "pods": 15,
        "running": 13,
        "pending": 1,
        "terminated": 1,
        "unknownNode": 0,
        "daemonSets": 1,
        "daemonPodsAdded": 0,
        "daemonSetsPartial": 0,
    }
    assert impact["unplaceable"] == ["web/renderer-5c7b9-klmno"]
    assert impact["summary"]["newPending"] == 2 and impact["summary"]["failed"] is True
    assert impact["shapes"] == {"eks-batch": "c6i.2xlarge", "eks-general": "m5.xlarge"}
    assert {n["feature"] for n in impact["notSimulated"]} >= {"preemption", "pod disruption budgets"}


def _run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "renderer", *args], cwd=repo, capture_output=True, text=True, check=False, timeout=300
    )


def test_diff_with_a_snapshot_reports_the_pods_the_change_strands(pr: Path) -> None:
    done = _run(pr, "diff", "policies", "--base", "main", "--snapshot", "snapshot.json", "-o", "json")
    assert done.returncode == 1, done.stderr  # 2 pods newly Pending > impact.maxNewPendingPods 0
    impact = _impact(json.loads(done.stdout))
    _check(impact)
    assert impact["mode"] == "diff" and impact["headline"] == "this change " + HEADLINE
    assert done.stderr.splitlines()[-1] == (
        "impact: 4 nodes, 15 pods: 2 displaced, 2 newly Pending (impact.maxNewPendingPods 0: fails)"
    )
    # The same file given to --nodes and --pods is read once, with the same result; markdown carries the sentence.
    same = _run(pr, "diff", "policies", "--base", "main", "--nodes", "snapshot.json", "--pods", "snapshot.json")
    assert same.returncode == 1 and "this change " + HEADLINE in same.stdout
    md = _run(pr, "diff", "policies", "--base", "main", "--snapshot", "snapshot.json", "-o", "markdown")
    assert f"**this change {HEADLINE}**" in md.stdout
    assert "| `eks-batch` | c6i.2xlarge | 2 | 2 | 0 → 2 | 0 → 1 (≥ 1) | 0 |" in md.stdout


def test_the_threshold_comes_from_the_settings(pr: Path) -> None:
    (pr / "policies" / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nimpact: {maxNewPendingPods: 2}\n",
        encoding="utf-8",
    )
    done = _run(pr, "diff", "policies", "--base", "main", "--snapshot", "snapshot.json")
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1].endswith("(impact.maxNewPendingPods 2: passes)")


def test_no_change_no_impact(pr: Path) -> None:
    # Against the work tree itself (base = a commit with the same policies): nothing moves.
    _git(pr, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "head")
    done = _run(pr, "diff", "policies", "--base", "HEAD", "--snapshot", "snapshot.json", "-o", "json")
    assert done.returncode == 0, done.stderr
    impact = _impact(json.loads(done.stdout))
    assert impact["displaced"] == [] and impact["summary"]["nodesChanged"] == 0
    assert impact["headline"] == (
        "no pod stops fitting its node (0 nodes change allocatable); 1 Pending pod fits no pool's new node: no "
        "autoscaler helps"
    )


def test_verify_with_pods_simulates_the_repo_against_what_nodes_report() -> None:
    shown = str(SNAPSHOT.relative_to(REPO_ROOT))
    done = run_cli(
        "verify", "docs/examples/impact/policies", "--nodes", shown, "--pods", shown, "-o", "json", cwd=REPO_ROOT
    )
    assert done.exit_code == 1
    impact = _impact(json.loads(done.stdout))
    _check(impact)
    assert impact["headline"] == "the policy repo's allocatable " + HEADLINE


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--nodes", "snapshot.json"), "--nodes needs --pods"),
        (("--pods", "snapshot.json"), "--pods needs --nodes"),
        (("--snapshot", "snapshot.json", "--pods", "snapshot.json"), "--snapshot holds the nodes and the pods"),
        (("--nodes", "-", "--pods", "/dev/stdin"), "cannot both read standard input"),
    ],
)
def test_snapshot_options_are_checked(pr: Path, args: tuple[str, ...], message: str) -> None:
    done = run_cli("diff", "policies", "--base", "main", *args, cwd=pr)
    assert done.exit_code == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1


def test_verify_with_the_simulation_reads_each_dump_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """verify's own check and the simulation share one read of each dump: the nodes and the pods as two files are
    opened once each, one ``kubectl get nodes,pods`` List given to both options once in all."""
    import renderer.verify.snapshot as dumps
    from renderer.pipeline import verify

    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    paths = {}
    for kind in ("Node", "Pod"):
        paths[kind] = tmp_path / f"{kind.lower()}s.json"
        items = [i for i in data["items"] if i["kind"] == kind]
        paths[kind].write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}), encoding="utf-8")
    opened: list[str] = []
    real = dumps.stream

    def counting(source: Any, *args: Any, **kwargs: Any) -> Any:
        opened.append(source.display)
        return real(source, *args, **kwargs)

    monkeypatch.setattr(dumps, "stream", counting)
    split = verify([EXAMPLE / "policies"], nodes=str(paths["Node"]), pods=str(paths["Pod"]))
    assert sorted(opened) == sorted([str(paths["Node"]), str(paths["Pod"])])
    opened.clear()
    whole = verify([EXAMPLE / "policies"], nodes=str(SNAPSHOT), pods=str(SNAPSHOT))
    assert opened == [str(SNAPSHOT)]
    assert split.impact is not None and whole.impact is not None
    assert split.impact.result == whole.impact.result
    assert split.result is not None and whole.result is not None
    assert len(split.result.nodes) == len(whole.result.nodes) == 4


def _provisioned(pr: Path, targets: str | None) -> dict[str, Any]:
    """The docs example with eks-batch delivered through Karpenter (EC2NodeClass ``batch``; its nodes carry the
    labels Karpenter gives c6i.2xlarge: 8 vCPUs, 16,384 MiB) and eks-general scaled from zero by the cluster
    autoscaler (group ``eks-general-1a``), on both sides of the change; ``targets``: ``render.targets``."""
    pools = pr / "policies" / "pools.yaml"
    text = pools.read_text(encoding="utf-8")
    text = text.replace(
        "  count: 2\n  platform: eks\n---",
        "  count: 2\n  platform: eks\n  delivery:\n    karpenter: {ec2NodeClass: batch}\n---",
    )
    text += "  clusterAutoscaler:\n    autoScalingGroups: [eks-general-1a]\n"
    pools.write_text(text, encoding="utf-8")
    if targets is not None:
        (pr / "policies" / ".allocatable.yaml").write_text(
            f"apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrender:\n  targets: [{targets}]\n",
            encoding="utf-8",
        )
    _git(pr, "-c", "user.name=t", "-c", "user.email=t@example.com", "add", "-A")
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for item in data["items"]:
        if item["kind"] == "Node" and item["metadata"]["labels"]["example.com/tier"] == "batch":
            item["metadata"]["labels"]["karpenter.k8s.aws/instance-cpu"] = "8"
            item["metadata"]["labels"]["karpenter.k8s.aws/instance-memory"] = "16384"
    (pr / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    done = _run(pr, "diff", "policies", "--base", "HEAD", "--snapshot", "snapshot.json", "-o", "json")
    assert done.returncode == 1, done.stderr
    return _impact(json.loads(done.stdout))["provisioners"]


def test_karpenter_is_judged_with_the_ec2nodeclass_the_repo_delivers(pr: Path) -> None:
    # Karpenter's view of c6i.2xlarge (8 vCPUs, 16,384 MiB; vmMemoryOverheadPercent 0.075; pods: the node's 58):
    #   memory capacity 16,384 - ceil(16,384 × 0.075 = 1,228.8) = 15,155 MiB.
    # With the EC2NodeClass the repo renders for eks-batch after the change (kube-reserved 1500m / 1Gi, system 0,
    # evictionHard memory.available 100Mi): cpu 8,000 - 1,500 = 6,500m — what the node will advertise (no gap);
    # memory 15,155 - 1,024 - 100 = 14,031 MiB against the node's 15,126,528Ki = 14,772 MiB: an under-estimate.
    # (With Karpenter's defaults instead — kube-reserved cpu 60+10+5+5+4×2.5 = 90m, memory 11×58+255 = 893 MiB —
    # it would have been judged to believe 7,910m cpu, an over-estimate the repo's class does not have.)
    gaps = _provisioned(pr, None)["karpenter"]["gaps"]
    assert [(g["resource"], g["predicted"], g["actual"], g["kind"]) for g in gaps] == [
        ("memory", "14031Mi", "14772Mi", "under-estimate")
    ]


def test_the_autoscalers_scale_from_zero_template_against_the_nodes(pr: Path) -> None:
    # Without the cluster-autoscaler-tags target the group carries no resources/* tags: the autoscaler's template
    # for m5.xlarge is cpu 4, memory the node's 16,277,504Ki (no instance-memory label: 15,896 MiB), pods 110, and
    # allocatable = capacity. The nodes advertise 3500m, 15,126,528Ki (15,896 - 1,024 kube-reserved - 100 eviction
    # = 14,772 MiB) and 58 pods: three over-estimates. No Pending pod of eks-general lies between the two views
    # (web/renderer asks 4 cpu: more than either view's room after node-exporter), so each is a warning.
    gaps = _provisioned(pr, "kubelet, runtimeclasses")["clusterAutoscaler"]["gaps"]
    assert [(g["resource"], g["predicted"], g["actual"], g["kind"], g["severity"]) for g in gaps] == [
        ("cpu", "4", "3500m", "over-estimate", "warning"),
        ("memory", "15896Mi", "14772Mi", "over-estimate", "warning"),
        ("pods", "110", "58", "over-estimate", "warning"),
    ]
    assert {g["instanceType"] for g in gaps} == {"m5.xlarge (eks-general-1a)"}


def test_rendered_autoscaler_tags_close_the_gap(pr: Path) -> None:
    # With the target rendered, the group's tags carry the NodePool's allocatable (4 - 500m, 15,896Mi - 1Gi - 100Mi,
    # 58 pods): the template equals what the nodes advertise, so there is no gap and no clusterAutoscaler section.
    assert "clusterAutoscaler" not in _provisioned(pr, None)


def test_a_karpenter_pool_is_said_with_karpenters_plan(pr: Path) -> None:
    """eks-batch delivered through Karpenter (EC2NodeClass ``batch``) on both sides, its nodes labelled as Karpenter
    labels a c6i.2xlarge (8 vCPUs, 16,384 MiB). Worked by hand: the change strands the two report pods as documented
    above. Karpenter plans them on its view of c6i.2xlarge with the EC2NodeClass the work tree renders (kube-reserved
    1500m / 1Gi, system 0, evictionHard memory.available 100Mi): cpu 8000 - 1500 = 6500m, memory 16,384 - ceil(16,384
    × 0.075) - 1024 - 100 = 14,031 MiB, 58 pods. One NodeClaim with node-exporter (100m, 64Mi) takes the first
    (2100m) and the second (4100m <= 6500m; 2112 MiB; 3 pods): 1 node; before the change no eks-batch pod was Pending,
    so Karpenter launched none. The cluster autoscaler's estimate agrees (1), so no "the pods need" note. The headline
    names the provisioner that launches the node, as the table does, instead of "the autoscaler would add"."""
    pools = pr / "policies" / "pools.yaml"
    delivered = pools.read_text(encoding="utf-8").replace(
        "  count: 2\n  platform: eks\n---",
        "  count: 2\n  platform: eks\n  delivery:\n    karpenter: {ec2NodeClass: batch}\n---",
    )
    pools.write_text(delivered, encoding="utf-8")
    reservations = pr / "policies" / "reservations.yaml"
    raised = reservations.read_text(encoding="utf-8")
    reservations.write_text(raised.replace("cpu: 1500m", "cpu: 500m"), encoding="utf-8")  # main: as the nodes run
    _git(pr, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-a", "-m", "karpenter")
    reservations.write_text(raised, encoding="utf-8")  # the work tree: the change
    data = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    for item in data["items"]:
        if item["kind"] == "Node" and item["metadata"]["labels"]["example.com/tier"] == "batch":
            item["metadata"]["labels"]["karpenter.k8s.aws/instance-cpu"] = "8"
            item["metadata"]["labels"]["karpenter.k8s.aws/instance-memory"] = "16384"
    (pr / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    done = _run(pr, "diff", "policies", "--base", "main", "--snapshot", "snapshot.json")
    assert done.returncode == 1, done.stderr
    first = done.stdout.split("\nimpact (", 1)[1].splitlines()[0]
    assert first.endswith(
        "this change leaves 2 more pods Pending on eks-batch; karpenter would launch 1 × c6i.2xlarge; 1 Pending pod "
        "fits no pool's new node: no autoscaler helps"
    )
    (row,) = [line.split() for line in done.stdout.splitlines() if line.startswith("  eks-batch ")]
    # displaced 2, Pending 0 → 2, Karpenter's nodes 0 → 1, removable 0
    assert " ".join(row[3:]) == "2 0 → 2 0 → 1 by karpenter 0"
    plans = json.loads(
        _run(pr, "diff", "policies", "--base", "main", "--snapshot", "snapshot.json", "-o", "json").stdout
    )["impact"]["provisioners"]["karpenter"]["plans"]
    assert [(p["pool"], p["pods"], p["nodes"], p["nodesNeeded"]) for p in plans] == [("eks-batch", 2, 1, 1)]
