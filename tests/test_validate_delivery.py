"""NodePool.spec.delivery: one way per pool, Karpenter and nodeadm only on EKS pools, none on OpenShift pools; each
mistake is one AL004 line at the delivery field."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli, write_repo

POOL = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata: {{name: p}}
spec:
  capacity: {{cpu: "2", memory: 8Gi}}
  count: 1
  platform: {platform}
  delivery:
{delivery}
"""


def _validate(tmp_path: Path, platform: str, delivery: str) -> tuple[int, str]:
    write_repo(tmp_path, {"p.yaml": POOL.format(platform=platform, delivery=delivery)})
    res = run_cli("validate", str(tmp_path))
    return res.exit_code, res.stdout


@pytest.mark.parametrize(
    ("platform", "delivery"),
    [
        ("eks", "    karpenter: {ec2NodeClass: general}"),
        ("eks", "    nodeadm: true"),
        ("generic", "    clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet-prod}"),
        ("aks", "    clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet, machineDeployments: [md-0, md-1]}"),
    ],
)
def test_valid_delivery(tmp_path: Path, platform: str, delivery: str) -> None:
    code, out = _validate(tmp_path, platform, delivery)
    assert code == 0, out


@pytest.mark.parametrize(
    ("platform", "delivery", "message"),
    [
        ("eks", "    karpenter: {ec2NodeClass: general}\n    nodeadm: true", "karpenter and nodeadm"),
        ("eks", "    nodeadm: false", "names no way"),
        ("generic", "    karpenter: {ec2NodeClass: general}", "set platform: eks"),
        ("gke", "    nodeadm: true", "set platform: eks"),
        ("openshift", "    clusterAPI: {kubeadmConfigTemplate: md-0, namespace: x}", "machineConfigPool"),
        ("eks", "    karpenter: {ec2NodeClass: General}", "not a valid name"),
        ("eks", "    karpenter: {ec2NodeClass: general, userData: x}", "userData"),
        ("generic", "    clusterAPI: {kubeadmConfigTemplate: md-0}", "namespace"),
        ("generic", f"    clusterAPI: {{kubeadmConfigTemplate: {'a' * 243}, namespace: x}}", "242"),
    ],
)
def test_invalid_delivery_is_one_line_at_the_field(tmp_path: Path, platform: str, delivery: str, message: str) -> None:
    code, out = _validate(tmp_path, platform, delivery)
    assert code == 2, out
    (line,) = [ln for ln in out.splitlines() if ": error: " in ln]
    assert "[AL004]" in line and message in line, line
    assert line.startswith(f"{tmp_path}/p.yaml:")
    row = int(line.split(":")[1])
    assert row >= 8, f"the finding points into spec.delivery (line 8 on): {line}"
