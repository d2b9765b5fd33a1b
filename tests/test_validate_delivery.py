"""NodePool.spec.delivery: one way per pool, each only on the platforms whose nodes take it (Karpenter, nodeadm and
Bottlerocket on EKS, the GKE, AKS and Talos APIs on their own platform), none on OpenShift pools; clusterAutoscaler
only on pools in AWS Auto Scaling groups. Each mistake is one AL004 line at the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from renderer.loading.files import display_path
from support.factory import write_repo

# Text: a finding about the delivery must point into it (spec.delivery, line 8 on).
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
        ("aks-engine", "    clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet, machineDeployments: [md-0]}"),
        ("gke", "    gkeSystemConfig: {}"),
        ("gke", "    gkeSystemConfig: {format: rest}"),
        ("aks", "    aksKubeletConfig: {apiVersion: 2026-08-02-preview}"),
        ("aks", "    aksKubeletConfig: {apiVersion: '2026-06-01'}"),
        ("eks", "    bottlerocket: true"),
        ("generic", "    bottlerocket: true"),
        ("talos", "    talos: {}"),
        ("talos", "    talos: {document: KubeletConfig, image: 'ghcr.io/siderolabs/kubelet:v1.34.1'}"),
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
        # AKS and GKE node pools run no kubeadm: their kubelet takes settings through the platform's own API
        ("aks", "    clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet}", "use aksKubeletConfig"),
        ("gke", "    clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet}", "use gkeSystemConfig"),
        ("eks", "    gkeSystemConfig: {}", "set platform: gke"),
        ("gke", "    aksKubeletConfig: {apiVersion: 2026-08-02-preview}", "set platform: aks"),
        ("aks", "    aksKubeletConfig: {}", "apiVersion"),
        ("aks", "    aksKubeletConfig: {apiVersion: '2025-01-01'}", "2026-08-02-preview"),
        ("aks", "    aksKubeletConfig: {apiVersion: 2026-06-01}", "the date 2026-06-01"),  # YAML: quote it
        ("gke", "    gkeSystemConfig: {format: yaml}", "gcloud"),
        ("gke", "    gkeSystemConfig: {}\n    bottlerocket: true", "gkeSystemConfig and bottlerocket"),
        ("talos", "    talos: {document: KubeletConfig}", "needs image"),
        ("talos", "    talos: {image: 'ghcr.io/siderolabs/kubelet:v1.34.1'}", "set document: KubeletConfig"),
        ("talos", "    talos: {document: KubeletConfig, image: ghcr.io/siderolabs/kubelet}", "image"),
        ("openshift", "    talos: {}", "machineConfigPool"),
    ],
)
def test_invalid_delivery_is_one_line_at_the_field(tmp_path: Path, platform: str, delivery: str, message: str) -> None:
    code, out = _validate(tmp_path, platform, delivery)
    assert code == 2, out
    (line,) = [ln for ln in out.splitlines() if ": error: " in ln]
    assert "[AL004]" in line and message in line, line
    assert line.startswith(f"{display_path(tmp_path / 'p.yaml')}:")  # as the CLI shows it from the working directory
    row = int(line.split(":")[1])
    assert row >= 8, f"the finding points into spec.delivery (line 8 on): {line}"


# Text: a finding about the groups must point into it (spec.clusterAutoscaler, line 8 on).
CA_POOL = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata: {{name: p}}
spec:
  capacity: {{cpu: "2", memory: 8Gi}}
  count: 1
  platform: {platform}
  clusterAutoscaler:
{ca}
"""


@pytest.mark.parametrize(
    ("platform", "ca", "message"),
    [
        ("eks", "    autoScalingGroups: [a, b]", None),
        ("generic", "    autoScalingGroups: [kops-nodes-us-east-1a]", None),
        ("gke", "    autoScalingGroups: [a]", "Auto Scaling groups"),
        ("eks", "    autoScalingGroups: []", "at least 1"),
        ("eks", "    autoScalingGroups: [a, a]", "twice"),
        ("eks", f"    autoScalingGroups: [{'a' * 256}]", "255"),
    ],
)
def test_cluster_autoscaler_groups(tmp_path: Path, platform: str, ca: str, message: str | None) -> None:
    write_repo(tmp_path, {"p.yaml": CA_POOL.format(platform=platform, ca=ca)})
    res = run_cli("validate", str(tmp_path))
    if message is None:
        assert res.exit_code == 0, res.stdout
        return
    assert res.exit_code == 2, res.stdout
    (line,) = [ln for ln in res.stdout.splitlines() if ": error: " in ln]
    assert "[AL004]" in line and message in line, line
    assert int(line.split(":")[1]) >= 8, line
