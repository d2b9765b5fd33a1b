"""GKE: kube-reserved from the machine type's memory and cpu, the boot disk, shared-core E2, detection.

Expected values: GKE "Plan node sizes" and real published nodes (tests/real-nodes/gke), cited per case."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest

from renderer.capacity.formulas import MachineShape, compute
from renderer.capacity.pools import build
from renderer.pipeline import load
from renderer.platforms import gce_machine_memory_mib
from renderer.quantity import Quantity
from support.factory import Document, write_repo
from support.factory import settings as settings_doc

Q = Quantity.parse


@pytest.mark.parametrize(
    ("machine_type", "mib"),
    [
        # Compute Engine machineTypes API memoryMb, as published in the machine-type list
        # (gist.github.com/jeffgodwyll/01149892acbb4d7d9f4ec64533b6a0f1): 0.9 GB per vCPU is rounded to MiB
        ("n1-highcpu-2", 1843),
        ("n1-highcpu-16", 14746),
        ("n1-highcpu-32", 29491),
        ("f1-micro", 614),
        ("g1-small", 1740),
        # GB = GiB in Compute Engine's tables: n1-standard 3.75 GB, n2-highmem 8 GB, e2-medium 4 GB
        ("n1-standard-2", 7680),
        ("n2-highmem-4", 32768),
        ("e2-medium", 4096),
        ("c3-standard-4-lssd", 16384),
        ("n2-custom-8-16384", 16384),
        ("custom-4-5120-ext", 5120),
        ("n2-highmem-5", None),  # not a predefined size
        ("m5.2xlarge", None),
    ],
)
def test_compute_engine_table(machine_type: str, mib: int | None) -> None:
    assert gce_machine_memory_mib(machine_type) == mib


@pytest.mark.parametrize(
    ("machine_type", "cpus", "memory", "cpu"),
    [
        # issue 11: "On a real n2-highmem-4 the reservation is 3606Mi" (32 GB machine, MemTotal would give 3566Mi)
        ("n2-highmem-4", 4, "3606Mi", "80m"),
        # an n1-standard-2 GKE node's kubelet-config.yaml: kubeReserved cpu 70m, memory 1736Mi
        ("n1-standard-2", 2, "1736Mi", "70m"),
        # shared-core E2: GKE reserves a flat 1060m ("Plan node sizes"), so an e2-medium allocates 940m of 2
        ("e2-medium", 2, "1019Mi", "1060m"),
    ],
)
def test_gke_from_the_machine_type(machine_type: str, cpus: int, memory: str, cpu: str) -> None:
    mib = gce_machine_memory_mib(machine_type)
    assert mib is not None
    result = compute("gke", MachineShape(Decimal(cpus), mib * 1024 * 1024, machine_type=machine_type))
    assert result.kube_reserved["memory"] == memory
    assert result.kube_reserved["cpu"] == cpu


def _gke_node(itype: str, memory: str) -> Document:
    """A GKE n2 node as exported, with capacity only (no status.allocatable): what the model computes is the test."""
    labels = {
        "cloud.google.com/gke-nodepool": "default-pool",
        "cloud.google.com/gke-os-distribution": "cos",
        "node.kubernetes.io/instance-type": itype,
    }
    capacity = {"cpu": "4", "memory": memory, "ephemeral-storage": "98831908Ki", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "gke-n2", "labels": labels},
        "status": {"capacity": capacity},
    }


def _pool(repo: Path, itype: str, memory: str, settings: Document | None = None):  # type: ignore[no-untyped-def]
    files = {"node.yaml": _gke_node(itype, memory)}
    if settings is not None:
        files[".allocatable.yaml"] = settings
    write_repo(repo, files)
    result = load([repo])
    assert result.ok, [f.message for f in result.findings]
    (pc,) = build(result.policies).pools
    return pc


def test_a_gke_node_without_policy_gets_gke_defaults_from_its_machine_type(repo: Path) -> None:
    pc = _pool(repo, "n2-highmem-4", "32880584Ki")
    assert pc.platform_default is not None and pc.platform_default.source == "platform-default:gke"
    assert pc.kube_reserved["memory"].quantity == Q("3606Mi")
    assert pc.kube_reserved["memory"].source == "platform-default:gke"
    # GKE "Plan node sizes": on a 100 GB boot disk (98831908Ki of filesystem) 41Gi + the float32 10% leave
    # 47060071478 bytes allocatable, as the page's sample node reports
    assert pc.allocatable["ephemeral-storage"] == Q("47060071478")
    assert pc.eviction_source == "platform-default:gke"


def test_unknown_machine_type_uses_capacity_with_a_note(repo: Path) -> None:
    pc = _pool(repo, "x9-giant-4", "32880584Ki")
    assert any("the reservation may be low" in n for n in pc.notes)
    configured = _pool(repo, "x9-giant-4", "32880584Ki", settings_doc(machineTypes={"x9-giant-4": {"memory": "32Gi"}}))
    assert configured.kube_reserved["memory"].quantity == Q("3606Mi")


def test_node_pool_machine_memory_wins(repo: Path) -> None:
    pool = """
    apiVersion: policy.allocatable.dev/v1alpha1
    kind: NodePool
    metadata: {name: p}
    spec:
      labels: {node.kubernetes.io/instance-type: n2-highmem-4}
      capacity: {cpu: "4", memory: 32880584Ki}
      count: 1
      platform: gke
      machineMemory: 16Gi
    """
    write_repo(repo, {"pool.yaml": pool})
    (pc,) = build(load([repo]).policies).pools
    assert pc.kube_reserved["memory"].quantity == Q("2623Mi")  # the gke tiers of 16384 MiB


@pytest.mark.parametrize("distribution", ["cos", "ubuntu"])
def test_boot_disk_inference_inverts_the_autoscaler_estimate(distribution: str) -> None:
    from dataclasses import replace

    from renderer.findings import SourceRef
    from renderer.models.inventory import Pool
    from renderer.platforms.gke import _os_reserved, boot_disk

    base = Pool(
        "n", "Node", {"cloud.google.com/gke-os-distribution": distribution}, {}, 1, "gke", None, None, SourceRef("x")
    )
    gib = 1024**3
    for disk in (10, 20, 32, 50, 64, 100, 128, 200, 256, 375, 500, 1000, 2000, 65536):
        cap = disk * gib - _os_reserved(disk * gib, distribution, False)
        got, ssd, _ = boot_disk(replace(base, capacity={"ephemeral-storage": Quantity.from_value(cap)}))
        assert (got, ssd) == (disk * gib, None)


def test_detection() -> None:
    from platform_support import node

    by_label = node(labels={"cloud.google.com/gke-nodepool": "default-pool"})
    assert by_label.platform == "gke" and "gke-nodepool" in by_label.evidence
    # a label-trimmed node still names GKE in its kubelet build (v1.31.4-gke.1256000)
    assert node(kubeletVersion="v1.31.4-gke.1256000").platform == "gke"
    # OpenShift on GCP carries GKE's topology labels but is OpenShift (detected first)
    assert (
        node(labels={"cloud.google.com/gke-nodepool": "x", "node.openshift.io/os_id": "rhcos"}).platform == "openshift"
    )


def test_autopilot_is_documented_as_unpublished_and_modelled_as_standard() -> None:
    from renderer import platforms

    gke = platforms.get("gke")
    (autopilot,) = [r for r in gke.history if "Autopilot" in r.releases]
    assert autopilot.default == "gke" and "no node reservation published" in autopilot.note
    assert "autopilot-resource-requests" in autopilot.source
