"""verify predicts an AL2023 EKS node from the kubelet's merge of nodeadm's config.json and the drop-in
40-nodeadm.conf (renderer.capacity.kubelet_dropins): every AL2023 EKS AMI boots with nodeadm, so the node shows
which files its kubelet read (status.nodeInfo.osImage), whatever delivered the policy.

The node's figures are worked out by hand (the same machine as tests/capacity/test_effective_kubelet.py):
8 cores, 32Gi = 33554432Ki, 100Gi = 104857600Ki, 58 pods; the policy states kubeReserved memory 1Gi and
evictionHard memory.available 500Mi, config.json keeps kubeReserved cpu 90m (6% x 1000m + 1% x 1000m + 0.5% x
2000m + 0.25% x 4000m), ephemeral-storage 1Gi and nodefs.available 10%:
- cpu 8000m - 90m = 7910m;
- memory 33554432Ki - 1048576Ki - 512000Ki = 31993856Ki;
- ephemeral-storage 107374182400 - 1073741824 - 10737418400 = 95563022176, where the kubelet's 10% threshold is
  107374182400 x float32(0.1) = 107374182400 x 0.100000001490116... = 10737418400 (the percentage is a float32 in
  pkg/kubelet/eviction/api ThresholdValue.Percentage).
An Amazon Linux 2 node (bootstrap.sh, one file) is predicted from the policy alone and differs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from support.factory import node_selector, reservation_policy, write_repo

POLICY = reservation_policy(
    "r",
    selector=node_selector("eks.amazonaws.com/nodegroup", ["ng"]),
    kubeReserved={"memory": "1Gi"},
    evictionHard={"memory.available": "500Mi"},
)


def node(os_image: str) -> dict[str, Any]:
    name = "ip-10-0-1-2.ec2.internal"
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {
                "eks.amazonaws.com/nodegroup": "ng",
                "kubernetes.io/os": "linux",
                "kubernetes.io/hostname": name,
            },
        },
        "status": {
            "capacity": {"cpu": "8", "memory": "33554432Ki", "ephemeral-storage": "104857600Ki", "pods": "58"},
            "allocatable": {"cpu": "7910m", "memory": "31993856Ki", "ephemeral-storage": "95563022176", "pods": "58"},
            "nodeInfo": {"kubeletVersion": "v1.33.1-eks-1234567", "osImage": os_image},
        },
    }


def verify(repo: Path, tmp_path: Path, os_image: str) -> dict[str, Any]:
    write_repo(repo, {"r.yaml": POLICY})
    dump = tmp_path / "nodes.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node(os_image)]}))
    res = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "json")
    result: dict[str, Any] = json.loads(res.stdout)["nodes"][0]
    return result


def test_al2023_node_matches_the_merged_configuration(repo: Path, tmp_path: Path) -> None:
    got = verify(repo, tmp_path, "Amazon Linux 2023.7.20250527")
    assert got["match"] is True, got["differences"]
    assert got["predicted"] == {"cpu": "7910m", "ephemeral-storage": "95563022176", "memory": "31244Mi", "pods": "58"}


def test_al2_node_reads_one_file(repo: Path, tmp_path: Path) -> None:
    got = verify(repo, tmp_path, "Amazon Linux 2")
    assert got["match"] is False
    assert got["predicted"]["cpu"] == "8"  # nothing but the policy's kubeReserved memory is counted
