"""Extended resources (``nvidia.com/gpu``, any ``<domain>/<name>`` outside kubernetes.io): accepted in a NodePool's
capacity, read from a real Node, and carried through explain (json, text, ``-o wide``), verify and the impact
simulation (issue 34 item 7).

Expected values:
- which names are extended: the test tables of Kubernetes' own rule (``IsExtendedResourceName``) as
  kubernetes/kube-state-metrics internal/store/utils_test.go ``TestIsExtendedResourceName`` holds them (copied with
  the helper from k8s.io/kubernetes pkg/apis/core/v1/helper), k8s.io/component-helpers scheduling/corev1
  helpers_test.go (``example.com/foo`` yes, ``requests.nvidia.com/gpu`` no) and kubernetes-sigs/kueue's dra tests
  (``nvidia.com/gpu``, ``example.com/gpu`` yes; ``custom-resource``, ``hugepages-2Mi``, cpu, memory,
  ephemeral-storage no);
- a real GPU node: tests/real-nodes/eks/mng-al2023-g4dn-xlarge-gpu-1-34.yaml (published ``kubectl describe node``
  of an EKS g4dn.xlarge with the NVIDIA device plugin: capacity and allocatable ``nvidia.com/gpu: "1"``; source in
  its header);
- the rest worked by hand beside each assertion.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO_ROOT, run_cli
from renderer.loading.files import display_path
from renderer.resourcenames import is_extended
from support.factory import write_repo

GPU_NODE = REPO_ROOT / "tests/real-nodes/eks/mng-al2023-g4dn-xlarge-gpu-1-34.yaml"

NAMES = [
    # kube-state-metrics internal/store/utils_test.go TestIsExtendedResourceName
    ("pod.alpha.kubernetes.io/opaque-int-resource-foo", False),
    ("kubernetes.io/resource-foo", False),
    ("foo", False),
    ("requests.foobar", False),
    ("c/d/", False),
    ("", False),
    # component-helpers scheduling/corev1 helpers_test.go TestIsExtendedResourceName
    ("example.com/foo", True),
    ("requests.nvidia.com/gpu", False),
    # kueue pkg/dra tests TestIsExtendedResourceName
    ("cpu", False),
    ("memory", False),
    ("ephemeral-storage", False),
    ("nvidia.com/gpu", True),
    ("example.com/gpu", True),
    ("custom-resource", False),
    ("hugepages-2Mi", False),
]


@pytest.mark.parametrize(("name", "extended"), NAMES)
def test_which_names_are_extended_resources(name: str, extended: bool) -> None:
    assert is_extended(name) is extended


def _pool(capacity: str, count: int = 3) -> str:
    return f"""
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: gpu
spec:
  labels: {{example.com/tier: gpu}}
  capacity: {{cpu: "8", memory: 32Gi, ephemeral-storage: 100Gi, pods: "58", {capacity}}}
  count: {count}
  platform: eks
"""


def test_a_nodepool_declares_gpus_and_explain_carries_them(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "policies", {"pools.yaml": _pool('nvidia.com/gpu: "4", example.com/fpga: "2"')})
    assert run_cli("validate", str(repo)).exit_code == 0
    doc = json.loads(run_cli("explain", str(repo), "-o", "json").stdout)
    (pool,) = doc["pools"]
    # The kubelet reserves none of an extended resource and no CommitClass scales it: 4 per node everywhere.
    assert pool["capacity"]["nvidia.com/gpu"] == "4" and pool["capacity"]["example.com/fpga"] == "2"
    assert pool["allocatable"]["nvidia.com/gpu"] == "4"
    assert pool["committedAllocatable"]["nvidia.com/gpu"] == "4"
    # 3 nodes × 4 GPUs, 3 × 2 FPGAs
    assert doc["totals"]["committedAllocatable"]["nvidia.com/gpu"] == "12"
    assert doc["totals"]["capacity"]["example.com/fpga"] == "6"
    text = run_cli("explain", str(repo)).stdout
    assert "  more resources: example.com/fpga, nvidia.com/gpu (-o wide shows them)" in text
    wide = run_cli("explain", str(repo), "-o", "wide").stdout.splitlines()
    header = next(line for line in wide if "cpu (cores)" in line)
    assert header.split()[-2:] == ["example.com/fpga", "nvidia.com/gpu"]
    end = wide.index("Totals: 1 pool, 3 nodes")
    rows = {line.split()[0]: line.split() for line in wide[:end] if line.startswith("  ")}
    assert rows["capacity"][-2:] == ["2", "4"] and rows["committed"][-2:] == ["2", "4"]
    assert rows["cluster"][-2:] == ["6", "12"]  # "cluster (×3)"
    totals = wide[end:]
    assert totals[1].split()[-2:] == ["example.com/fpga", "nvidia.com/gpu"]
    assert totals[-1].split()[-2:] == ["6", "12"]  # committed


@pytest.mark.parametrize(
    ("capacity", "words"),
    [
        # apimachinery: an extended resource is an integer resource ("must be an integer")
        ('nvidia.com/gpu: "0.5"', "capacity nvidia.com/gpu: must be an integer"),
        ('nvidia.com/gpu: "1500m"', "capacity nvidia.com/gpu: must be an integer"),
        # in the kubernetes.io domain, or with the quota prefix: not an extended resource
        ('kubernetes.io/gpu: "1"', 'unknown capacity resource "kubernetes.io/gpu"'),
        ('requests.nvidia.com/gpu: "1"', 'unknown capacity resource "requests.nvidia.com/gpu"'),
        ('nvidia.com/: "1"', 'unknown capacity resource "nvidia.com/"'),
        ('Nvidia.COM/gpu: "1"', 'unknown capacity resource "Nvidia.COM/gpu"'),
    ],
)
def test_a_bad_extended_resource_is_one_located_error(tmp_path: Path, capacity: str, words: str) -> None:
    text = _pool(capacity)
    repo = write_repo(tmp_path / "policies", {"pools.yaml": text})
    res = run_cli("validate", str(repo))
    assert res.exit_code == 2, res.stdout + res.stderr
    (line,) = [ln for ln in (res.stdout + res.stderr).splitlines() if ": error: " in ln]
    # An unknown name points at its key; a value that is no integer at the capacity map (line 7 of the file).
    row = text.lstrip("\n").splitlines()[6]
    column = row.index(capacity.split(":")[0]) + 1 if "unknown" in words else row.index("capacity") + 1
    assert (
        line.startswith(f"{display_path(repo / 'pools.yaml')}:7:{column}: error: spec.capacity: ") and words in line
    ), line


def test_explain_wide_shows_the_gpu_of_a_real_gpu_node() -> None:
    wide = run_cli("explain", str(GPU_NODE), "-o", "wide").stdout.splitlines()
    header = next(line for line in wide if "cpu (cores)" in line)
    assert header.split()[-1] == "nvidia.com/gpu"
    rows = {line.split()[0]: line.split() for line in wide[: wide.index("Totals: 1 pool, 1 node")] if line[:2] == "  "}
    # published: capacity nvidia.com/gpu "1", allocatable "1"
    assert rows["capacity"][-1] == "1" and rows["allocatable"][-1] == "1" and rows["committed"][-1] == "1"
    assert wide[-1].split()[-1] == "1"  # the totals' committed row
    assert "more resources: hugepages-1Gi, hugepages-2Mi, nvidia.com/gpu" in run_cli("explain", str(GPU_NODE)).stdout


def test_explain_markdown_shows_the_gpu_where_a_pool_has_one(tmp_path: Path) -> None:
    # The published node: capacity, allocatable and committed nvidia.com/gpu 1 (nothing reserved, no CommitClass).
    md = run_cli("explain", str(GPU_NODE), "-o", "markdown").stdout.splitlines()
    assert md[md.index("|   | cpu (cores) | memory | ephemeral-storage | nvidia.com/gpu |") + 2] == (
        "| capacity | 4 | 15.42Gi | 19.93Gi | 1 |"
    )
    assert "|   | cpu (cores) | memory | ephemeral-storage | pods | nvidia.com/gpu |" in md  # the totals
    # beside a CPU-only pool, that pool's table keeps its three columns; the totals count 3 × 4 GPUs
    cpu = _pool('example.com/none: "0"').replace("name: gpu", "name: cpu").replace(', example.com/none: "0"', "")
    repo = write_repo(tmp_path / "policies", {"gpu.yaml": _pool('nvidia.com/gpu: "4"'), "cpu.yaml": cpu})
    md = run_cli("explain", str(repo), "-o", "markdown").stdout
    cpu_section = md.split("### `cpu`", 1)[1].split("###", 1)[0]
    assert "|   | cpu (cores) | memory | ephemeral-storage |\n" in cpu_section
    assert "| committed | " in md and md.rstrip().endswith("| 12 |")


def _dump(tmp_path: Path, node: dict[str, Any], *pods: dict[str, Any]) -> Path:
    path = tmp_path / "snapshot.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, *pods]}), encoding="utf-8")
    return path


def _node() -> dict[str, Any]:
    return yaml.safe_load(GPU_NODE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_verify_compares_the_gpus_a_node_reports(tmp_path: Path) -> None:
    empty = tmp_path / "policies"
    empty.mkdir()
    dump = _dump(tmp_path, _node())
    res = run_cli("verify", str(empty), "--nodes", str(dump), "-o", "json")
    assert res.exit_code == 0, res.stdout + res.stderr
    (node,) = json.loads(res.stdout)["nodes"]
    assert node["match"] is True
    assert node["predicted"]["nvidia.com/gpu"] == node["reported"]["nvidia.com/gpu"] == "1"


def test_a_gpu_the_device_plugin_reports_unhealthy_is_named(tmp_path: Path) -> None:
    # The published node with its one GPU reported unhealthy: the device manager advertises healthy devices only,
    # so allocatable nvidia.com/gpu goes 1 -> 0 while capacity stays 1; nothing else moves.
    node = _node()
    node["status"]["allocatable"]["nvidia.com/gpu"] = "0"
    empty = tmp_path / "policies"
    empty.mkdir()
    res = run_cli("verify", str(empty), "--nodes", str(_dump(tmp_path, node)))
    assert res.exit_code == 1
    assert (
        "  nvidia.com/gpu: predicted 1, reported 0: nvidia.com/gpu is 1 lower than predicted: the device plugin "
        "reports 1 of the node's 1 nvidia.com/gpu unhealthy: the kubelet advertises only healthy devices (it reserves "
        "none); not a reservation the repo could change"
    ) in res.stdout


def _pod(name: str, gpus: str, node: str | None = None) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "ml",
            "creationTimestamp": "2025-11-25T12:00:00Z",
            "ownerReferences": [{"kind": "Job", "name": name, "controller": True}],
        },
        "spec": {
            "containers": [
                {"name": "train", "resources": {"requests": {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": gpus}}}
            ]
        },
        "status": {"phase": "Running" if node else "Pending"},
    }
    if node:
        pod["spec"]["nodeName"] = node
    return pod


def test_the_simulation_counts_gpus(tmp_path: Path) -> None:
    # The published node has 1 GPU; train-a runs on it with 1, train-b waits for 1. NodeResourcesFit checks
    # nvidia.com/gpu like any scalar resource: 1 + 1 > 1, so train-b stays Pending with the scheduler's "Insufficient
    # nvidia.com/gpu", and a new node of the group (a copy of this one: 1 GPU, 3.42 cores free) takes it.
    name = _node()["metadata"]["name"]
    dump = _dump(tmp_path, _node(), _pod("train-a", "1", name), _pod("train-b", "1"))
    empty = tmp_path / "policies"
    empty.mkdir()
    res = run_cli("verify", str(empty), "--nodes", str(dump), "--pods", str(dump), "-o", "json")
    assert res.exit_code == 0, res.stdout + res.stderr  # Pending before too: not charged to the repo
    impact = json.loads(res.stdout)["impact"]
    (pending,) = impact["pending"]
    assert pending["pod"] == "ml/train-b" and pending["new"] is False
    assert pending["requests"]["nvidia.com/gpu"] == "1"
    assert pending["why"]["message"] == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    (pool,) = impact["pools"]
    assert pool["pool"] == "gpu-e2e-cluster-gpu-on-demand"
    assert pool["after"]["scaleUp"]["nodes"] == 1 and pool["after"]["allocatable"]["nvidia.com/gpu"] == "1"
