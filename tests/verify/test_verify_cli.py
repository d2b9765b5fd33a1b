"""``allocatable verify`` end to end: formats, exit codes, stdin, explanations, pods, --base, input errors.

The node is a published real one: worker-0 of an OpenShift 4.7 lab cluster, from the Insights Operator's sample
archive (https://github.com/openshift/insights-operator/blob/8494b69b8075fd1e8eac49db77bcda7588078155/docs/
insights-archive-sample/config/node/worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com.json), transcribed.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import KOORDINATOR_ON, CliResult, run_cli
from support.factory import node_selector, reservation_policy, write_repo

NAME = "worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com"
CAPACITY = {
    "cpu": "4",
    "ephemeral-storage": "41407468Ki",
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    "memory": "8153256Ki",
    "pods": "250",
}
ALLOCATABLE = {
    "cpu": "3500m",
    "ephemeral-storage": "37087380622",
    "hugepages-1Gi": "0",
    "hugepages-2Mi": "0",
    "memory": "7002280Ki",
    "pods": "250",
}


def node(**annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": NAME,
            "labels": {
                "kubernetes.io/hostname": NAME,
                "kubernetes.io/os": "linux",
                "node-role.kubernetes.io/worker": "",
                "node.openshift.io/os_id": "rhcos",
            },
            "annotations": {"machineconfiguration.openshift.io/state": "Done", **annotations},
        },
        "status": {
            "capacity": dict(CAPACITY),
            "allocatable": dict(ALLOCATABLE),
            "nodeInfo": {
                "kubeletVersion": "v1.20.0+2817867",
                "osImage": "Red Hat Enterprise Linux CoreOS 47.83.202106032343-0 (Ootpa)",
            },
            "images": [{"names": ["quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:0"], "sizeBytes": 1}],
        },
    }


def node_list(*nodes: dict[str, Any]) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(nodes), "metadata": {}}, indent=2)


# OpenShift 4.7's static reservation, as its kubelet.conf says (openshift/machine-config-operator release-4.7:
# templates/worker/01-worker-kubelet/_base/files/kubelet.yaml), written as a policy.
SYSTEM_RESERVED = {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"}


def workers(**system: str) -> dict[str, Any]:
    """OpenShift's static reservation for the worker nodes, with ``system`` changed in its systemReserved."""
    spec = {"systemReserved": {**SYSTEM_RESERVED, **system}, "maxPods": 250}
    return reservation_policy("workers", selector=node_selector("node-role.kubernetes.io/worker"), **spec)


def stdin_cli(monkeypatch: pytest.MonkeyPatch, data: str, *args: str) -> CliResult:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))
    return run_cli(*args)


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    path = tmp_path / "nodes.json"
    path.write_text(node_list(node()), encoding="utf-8")
    return path


def test_platform_default_matches_from_stdin(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # No policy: OpenShift 4.7's own static reservation applies, and reproduces the node exactly.
    res = stdin_cli(monkeypatch, node_list(node()), "verify", str(repo), "--nodes", "-", "--all")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert res.stdout.startswith(f"<stdin>:5:5: Node/{NAME} (openshift) matches: cpu 3.5 cores, memory 6.68Gi")
    # Without --all a matching node is counted on stderr, not listed.
    quiet = stdin_cli(monkeypatch, node_list(node()), "verify", str(repo), "--nodes", "-")
    assert (quiet.exit_code, quiet.stdout) == (0, "")
    assert quiet.stderr == "verify: 1 node: 1 match, 0 differ\n"
    assert res.stderr == "verify: 1 node: 1 match, 0 differ\n"


def test_json_shape(repo: Path, dump: Path) -> None:
    write_repo(repo, {"rp.yaml": workers()})
    res = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "json")
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) == {"version", "nodes", "pods"} and out["version"] == 1 and out["pods"] == []
    (n,) = out["nodes"]
    assert set(n) == {"name", "platform", "predicted", "reported", "match", "differences"}
    assert n["predicted"] == n["reported"] == ALLOCATABLE
    assert (n["name"], n["platform"], n["match"], n["differences"]) == (NAME, "openshift", True, [])


def test_a_reservation_not_rolled_out_is_named(repo: Path, dump: Path) -> None:
    write_repo(repo, {"rp.yaml": workers(memory="2Gi")})
    res = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "json")
    assert res.exit_code == 1
    (n,) = json.loads(res.stdout)["nodes"]
    (d,) = n["differences"]
    assert (d["resource"], d["predicted"], d["reported"], d["delta"]) == (
        "memory",
        "6002280Ki"[:0] + "5953704Ki",
        "7002280Ki",
        "1Gi",
    )
    assert d["explanation"].startswith("memory is 1Gi higher than predicted: the node reports what it had without ")
    assert "ReservationPolicy/workers (the platform-default:openshift-static reservation)" in d["explanation"]


def test_an_eviction_threshold_from_elsewhere_is_named(repo: Path, dump: Path) -> None:
    policy = workers()
    policy["spec"]["evictionHard"] = {"memory.available": "500Mi", "nodefs.available": "10%"}
    write_repo(repo, {"rp.yaml": policy})
    res = run_cli("verify", str(repo), "--nodes", str(dump))
    assert res.exit_code == 1
    # one unit for both, and each exactly as the kubelet writes it: 6592680Ki = 6.287 GiB, 7002280Ki = 6.678 GiB
    assert (
        "memory: predicted 6.29Gi (6592680Ki), reported 6.68Gi (7002280Ki): memory is 400Mi higher than predicted: "
        in res.stdout
    )
    assert (
        "the node's hard eviction is memory.available<100Mi (the kubelet's default), not 500Mi (explicit)" in res.stdout
    )


def test_formats(repo: Path, dump: Path) -> None:
    write_repo(repo, {"rp.yaml": workers(cpu="600m")})
    gh = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "github")
    assert gh.exit_code == 1
    first = gh.stdout.splitlines()[0]
    assert first.startswith(
        f"::warning file={dump},line=5,title=allocatable verify::Node/{NAME} differs: cpu: cpu is 0.1 cores higher"
    )
    md = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "markdown")
    assert "| node | resource | predicted | reported | Δ | why |" in md.stdout
    assert f"| `{NAME}` | cpu | 3.4 cores | 3.5 cores | 0.1 cores |" in md.stdout


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web", "namespace": "shop"},
    "spec": {"nodeName": NAME, "containers": [{"name": "c", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}}]},
    "status": {"phase": "Running"},
}


def _pods(tmp_path: Path, *pods: dict[str, Any]) -> Path:
    path = tmp_path / "pods.yaml"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(pods)}), encoding="utf-8")
    return path


def test_pods_fit_and_do_not_fit(repo: Path, dump: Path, tmp_path: Path) -> None:
    done = {**POD, "metadata": {"name": "job", "namespace": "shop"}, "status": {"phase": "Succeeded"}}
    ok = run_cli("verify", str(repo), "--nodes", str(dump), "--pods", str(_pods(tmp_path, POD, done)), "-o", "json")
    assert ok.exit_code == 0, ok.stdout
    (fit,) = json.loads(ok.stdout)["pods"]
    assert fit == {
        "node": NAME,
        "requested": {"cpu": "3", "memory": "1Gi"},
        "allocatable": {**{k: v for k, v in ALLOCATABLE.items() if k != "pods"}},
        "pods": 1,
        "maxPods": 250,
        "fits": True,
    }
    second = {**POD, "metadata": {"name": "web-2", "namespace": "shop"}}
    bad = run_cli("verify", str(repo), "--nodes", str(dump), "--pods", str(_pods(tmp_path, POD, second)))
    assert bad.exit_code == 1
    # one unit per resource (docs/cli.md#units): 3500m = 3.5 cores, 7002280Ki = 6.678 GiB
    assert f"Node/{NAME}: cpu 6 of 3.5 cores, memory 2Gi of 6.68Gi, 2 of 250 pods: does not fit (cpu)" in bad.stdout
    assert "pods: 1 node over" in bad.stderr


def test_base_says_which_nodes_the_change_pushes_over(tmp_path: Path, dump: Path) -> None:
    root = tmp_path / "git"
    repo = root / "policies"
    write_repo(repo, {"rp.yaml": workers()})
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    write_repo(repo, {"rp.yaml": workers(cpu="1500m")})
    res = run_cli(
        "verify", "policies", "--nodes", str(dump), "--pods", str(_pods(tmp_path, POD)), "--base", "main", cwd=root
    )
    assert res.exit_code == 1
    assert "does not fit (cpu); fits at the base revision: this change pushes it over" in res.stdout
    assert "(1 pushed over by the change against main at its merge-base with HEAD, " in res.stderr
    # The node reports 3500m, what main predicts (systemReserved 500m of 4 cores); the change predicts 2500m: the
    # node is not drift, it awaits the change under review.
    assert f"Node/{NAME} (openshift) awaits the change under review" in res.stdout
    assert "the node matches the prediction at main" in res.stdout
    assert "verify: 1 node: 0 match, 0 differ, 1 awaits the change (they match the base)" in res.stderr
    # Pods: the 3-core pod fits 3500m but not 2500m; with one node the simulation leaves it Pending: exit 1 above.
    doc = json.loads(
        run_cli("verify", "policies", "--nodes", str(dump), "--base", "main", "-o", "json", cwd=root).stdout
    )
    assert [n["matchesBase"] for n in doc["nodes"]] == [True]
    # Without pods nothing fails: the node runs what main says, the change has not rolled out yet.
    assert run_cli("verify", "policies", "--nodes", str(dump), "--base", "main", cwd=root).exit_code == 0
    assert run_cli("verify", "policies", "--nodes", str(dump), cwd=root).exit_code == 1  # no base: plain drift


def _renamed(name: str) -> dict[str, Any]:
    n = node()
    n["metadata"] = {**n["metadata"], "name": name}
    n["metadata"]["labels"] = {**n["metadata"]["labels"], "kubernetes.io/hostname": name}
    return n


def _pod(name: str, node_name: str, cpu: str) -> dict[str, Any]:
    return {
        **POD,
        "metadata": {"name": name, "namespace": "shop"},
        "spec": {"nodeName": node_name, "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
    }


def test_pods_the_repo_pushes_to_another_node_pass(repo: Path, tmp_path: Path) -> None:
    """Worked by hand: two identical workers report 3500m; the repo (systemReserved cpu 1500m of 4 cores) predicts
    2500m. worker a runs pods of 2 and 1 cores (3000m): it no longer holds both, so its kubelet re-admits one of them
    and rejects the other; worker b is empty, and takes the rejected pod (2000m or 1000m ≤ 2500m). Nothing goes
    Pending: the pods section still says a does not fit, but the run passes. The nodes differ (3500m reported vs
    2500m), so the run fails for that, unless the base revision predicts what they report."""
    write_repo(repo, {"rp.yaml": workers(cpu="1500m")})
    nodes = tmp_path / "nodes.json"
    nodes.write_text(node_list(_renamed("a"), _renamed("b")), encoding="utf-8")
    pods = _pods(tmp_path, _pod("big", "a", "2"), _pod("small", "a", "1"))
    res = run_cli("verify", str(repo), "--nodes", str(nodes), "--pods", str(pods))
    assert "Node/a: cpu 3 of 2.5 cores" in res.stdout and "does not fit (cpu)" in res.stdout
    assert ", 0 newly Pending (impact.maxNewPendingPods 0: passes)" in res.stderr, res.stderr
    assert res.exit_code == 1  # the two nodes differ from the prediction: drift
    root = repo.parent
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    write_repo(repo, {"rp.yaml": workers()})
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    write_repo(repo, {"rp.yaml": workers(cpu="1500m")})
    pr = run_cli("verify", str(repo), "--nodes", str(nodes), "--pods", str(pods), "--base", "main", cwd=root)
    assert "2 await the change (they match the base)" in pr.stderr
    assert ", 0 newly Pending (impact.maxNewPendingPods 0: passes)" in pr.stderr
    assert pr.exit_code == 0, pr.stdout + pr.stderr


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            json.dumps({"apiVersion": "v1", "kind": "List", "items": [POD]}),
            ":1:48: item 1 is a Pod, not a v1 Node; --nodes takes",
        ),
        ('{"apiVersion": "v1", "kind": "List", "items": [\n{"kind": "Node",]}', ":2:17: invalid JSON"),
        (
            json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}, "status": {}}),
            ":1:1: Node a has no status.capacity cpu or memory",
        ),
    ],
)
def test_bad_dumps_are_one_located_line(repo: Path, tmp_path: Path, content: str, message: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(bad))
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr.startswith(f"allocatable: error: {bad}{message}"), res.stderr
    assert res.stderr.count("\n") == 1


def test_usage_errors(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    both = stdin_cli(monkeypatch, "", "verify", str(repo), "--nodes", "-", "--pods", "-")
    assert both.exit_code == 2 and "cannot both read standard input" in both.stderr
    none = run_cli("verify", str(repo))
    assert none.exit_code == 2 and "no nodes to verify" in none.stderr
    missing = run_cli("verify", str(repo), "--nodes", str(repo / "nope.json"))
    assert missing.exit_code == 2 and "cannot read" in missing.stderr


def test_koordinator_node_is_checked_twice(repo: Path, tmp_path: Path) -> None:
    # Koordinator's webhook keeps the kubelet's value in node.koordinator.sh/raw-allocatable and writes raw x ratio
    # (koordinator-sh/koordinator pkg/webhook/node/plugins/resourceamplification). The node's published kubelet
    # allocatable is the raw value; status.allocatable is set to 2 x 3500m = 7 cores, and the class asks for 200%.
    cc = """
    apiVersion: node.k8s.io/v1alpha1
    kind: CommitClass
    metadata: {name: double-cpu}
    spec:
      selector:
      - matchExpressions: [{key: node-role.kubernetes.io/worker, operator: Exists}]
      resources: [{name: cpu, percent: 200}]
    """
    write_repo(repo, {**KOORDINATOR_ON, "cc.yaml": cc})
    raw = json.dumps({"cpu": "3500m", "memory": "7002280Ki"})
    amplified = node(
        **{
            "node.koordinator.sh/raw-allocatable": raw,
            "node.koordinator.sh/resource-amplification-ratio": '{"cpu":2.00}',
        }
    )
    amplified["status"]["allocatable"]["cpu"] = "7"
    path = tmp_path / "n.json"
    path.write_text(node_list(amplified), encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(path), "-o", "json")
    assert res.exit_code == 0, res.stdout
    (n,) = json.loads(res.stdout)["nodes"]
    assert n["predicted"]["cpu"] == "7" and n["rawAllocatable"]["match"] is True
    assert n["rawAllocatable"]["predicted"] == {"cpu": "3500m", "memory": "7002280Ki"}
    # the same node without the webhook: it reports its kubelet allocatable
    path.write_text(node_list(node()), encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(path))
    assert res.exit_code == 1
    assert "the amplification ×2.00 of CommitClass/double-cpu has not reached it" in res.stdout
    assert "NodeMutatingWebhook, off by default" in res.stdout
