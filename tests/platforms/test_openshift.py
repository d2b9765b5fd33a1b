"""OpenShift: the default of every release and pool, ROSA / OSD, and the auto-sizing script versions.

Release facts: openshift/machine-config-operator (MCO) and openshift/managed-cluster-config, cited in
renderer/platforms/openshift.py; the worked values below are the script's arithmetic done by hand, the reasoning beside
each row.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from platform_support import Q, default, model, node, reserved, settings

from renderer import platforms
from renderer.capacity.formulas import GIB, MachineShape, compute
from renderer.capacity.pools import build
from renderer.pipeline import load
from support.factory import write_repo

WORKER = {"node.openshift.io/os_id": "rhcos", "node-role.kubernetes.io/worker": ""}
MASTER = {"node.openshift.io/os_id": "rhcos", "node-role.kubernetes.io/master": ""}
CAP = {"cpu": "8", "memory": "32Gi", "ephemeral-storage": "120Gi", "pods": "250"}


def _rhcos(build: str) -> str:
    return f"Red Hat Enterprise Linux CoreOS {build} (Ootpa)"


@pytest.mark.parametrize(
    ("labels", "os_image", "kubelet", "name", "values"),
    [
        # 4.1/4.2: kubelet.yaml systemReserved cpu 500m, memory 500Mi (release-4.1 templates), no ephemeral-storage
        (WORKER, _rhcos("42.80.20191002.0"), "v1.14.6+c07e432", "openshift-4.2", {"cpu": "500m", "memory": "500Mi"}),
        # 4.3: ab2ee0cf was authored 2020-02-06 but merged into release-4.3 only on 2020-05-01 (9ddb8196, MCO
        # release-4.3 first-parent history): builds before it still 500Mi (the published 4.3.8 node, RHCOS
        # 43.81.202003191953.0, reserves 500m / 500Mi: tests/real-nodes/openshift/ocp43-aws-m4-4xlarge-worker.yaml);
        # builds after it 1Gi and ephemeral-storage 1Gi
        (WORKER, _rhcos("43.81.202001142154.0"), "v1.16.2", "openshift-4.2", {"cpu": "500m", "memory": "500Mi"}),
        (WORKER, _rhcos("43.81.202003111353.0"), "v1.16.2", "openshift-4.2", {"cpu": "500m", "memory": "500Mi"}),
        (WORKER, _rhcos("43.81.202003191953.0"), "v1.16.2", "openshift-4.2", {"cpu": "500m", "memory": "500Mi"}),
        (
            WORKER,
            _rhcos("43.81.202005200338.0"),
            "v1.16.2",
            "openshift-static",
            {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
        ),
        # 4.4 (kubelet 1.17): b8116160 reached master (4.4) on 2020-02-11, before 4.4 branched: 1Gi throughout
        (
            WORKER,
            _rhcos("44.81.202003062006-0"),
            "v1.17.1",
            "openshift-static",
            {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
        ),
        # 4.8: --system-reserved=cpu,memory from the env file replaces kubelet.conf's map: no ephemeral-storage
        (
            WORKER,
            _rhcos("48.84.202109100857-0"),
            "v1.21.1+9807387",
            "openshift-static",
            {"cpu": "500m", "memory": "1Gi"},
        ),
        # 4.11 built before 8bf71f78 (2022-10-21): still no ephemeral-storage; after it, 1Gi
        (WORKER, _rhcos("411.86.202210032347-0"), "v1.24.0", "openshift-static", {"cpu": "500m", "memory": "1Gi"}),
        (
            WORKER,
            _rhcos("411.86.202211012347-0"),
            "v1.24.0",
            "openshift-static",
            {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
        ),
        # 4.21 workers: auto node sizing (a2eed309): 32 GiB -> M=32 -> 1 + 0.06 x 24 = 2.44 -> 2Gi; 8 CPUs -> 0.5
        (
            WORKER,
            _rhcos("421.96.202601120000-0"),
            "v1.34.1",
            "openshift",
            {"cpu": "0.5", "memory": "2Gi", "ephemeral-storage": "1Gi"},
        ),
        # 4.21 control plane: forced off
        (
            MASTER,
            _rhcos("421.96.202601120000-0"),
            "v1.34.1",
            "openshift-static",
            {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
        ),
    ],
)
def test_the_release_decides(
    labels: dict[str, str], os_image: str, kubelet: str, name: str, values: dict[str, str]
) -> None:
    pool = node(labels=labels, capacity=CAP, osImage=os_image, kubeletVersion=kubelet)
    d = default(pool)
    assert d is not None and d.name == name, d
    pc = model(pool)
    assert reserved(pc, "systemReserved") == {k: Q(v) for k, v in values.items()}
    assert pc.kube_reserved == {}
    assert pc.eviction_source == "kubelet default"  # OpenShift sets no evictionHard


@pytest.mark.parametrize(("kubelet", "name"), [("v1.14.6+c07e432", "openshift-4.2"), ("v1.16.2", "openshift-4.2")])
def test_a_4_3_node_known_by_its_kubelet_alone_follows_4_1_to_4_2(kubelet: str, name: str) -> None:
    # kubelet 1.16 is OpenShift 4.3; without an RHCOS build date the node is taken as a 4.3.z of before the
    # 2020-05-01 merge (9ddb8196), the 4.1-4.2 values, as the published 4.3.8 node shows
    d = default(node(labels=WORKER, capacity=CAP, kubeletVersion=kubelet))
    assert d is not None and d.name == name, d
    assert "500m / 500Mi" in d.reason


def test_hypershift_workers_stay_static_until_4_23() -> None:
    # f65510fb / a2eed309: NODE_SIZING_ENABLED false where ControlPlaneTopology is External; 0431fe7f (4.23) turns it on
    labels = {**WORKER, "hypershift.openshift.io/nodePool": "np"}
    for kubelet, name in (("v1.35.0", "openshift-static"), ("v1.36.0", "openshift")):
        d = default(node(labels=labels, capacity=CAP, kubeletVersion=kubelet))
        assert d is not None and d.name == name, kubelet


@pytest.mark.parametrize(
    ("labels", "os_image", "name", "formula", "values"),
    [
        # ROSA / OSD 4.8: KubeletConfig systemReserved cpu 1000m, memory 1Gi on worker and master (pre-4.9); 4.8's flag
        # carries no ephemeral-storage
        (MASTER, _rhcos("48.84.202109100857-0"), "rosa-4.8", None, {"cpu": "1000m", "memory": "1Gi"}),
        # 4.10 master, built after the 4.10 ES backport (d09be517, 2022-11-10): auto sizing (91265a70) with the 4.8-4.11
        # script: memory M=32: 1 + 0.8 + 0.8 + 0.06 x 16 = 3.56, written unrounded; cpu version 1: 0.06 + 0.01 +
        # 0.005 x 2 + 0.0025 x 4 = 0.09
        (
            MASTER,
            _rhcos("410.84.202212011512-0"),
            "rosa",
            "openshift-4.11",
            {"cpu": "0.09", "memory": "3.56Gi", "ephemeral-storage": "1Gi"},
        ),
        # 4.12 worker: memory rounded half up (f14eff0b): 3.56 -> 4Gi
        (
            WORKER,
            _rhcos("412.86.202303011512-0"),
            "rosa",
            "openshift-4.15",
            {"cpu": "0.09", "memory": "4Gi", "ephemeral-storage": "1Gi"},
        ),
        # 4.12 infra pool: not an mco-built-in pool, keeps the static values
        (
            {
                "node.openshift.io/os_id": "rhcos",
                "node-role.kubernetes.io/infra": "",
                "node-role.kubernetes.io/worker": "",
            },
            _rhcos("412.86.202303011512-0"),
            "openshift-static",
            None,
            {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
        ),
    ],
)
def test_rosa_profile(
    labels: dict[str, str], os_image: str, name: str, formula: str | None, values: dict[str, str]
) -> None:
    s = settings(platformDefaults={"openshift": "rosa"})
    pool = node(labels=labels, capacity=CAP, osImage=os_image)
    d = default(pool, s)
    assert d is not None and d.name == name, d
    if formula is not None:
        assert d.formula is not None and d.formula.name == formula
    assert reserved(model(pool, s), "systemReserved") == {k: Q(v) for k, v in values.items()}


def _compute(name: str, cpus: int, gib: int) -> dict[str, str]:
    return compute(name, MachineShape(cpus=cpus, memory_bytes=gib * GIB)).system_reserved  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("formula", "cpus", "cpu"),
    [
        # version 1: 6% + 1% + 2 x 0.5% + 4 x 0.25% = 0.09 for 8 CPUs (awk print: 0.09); no floor before cee78ae5
        ("openshift-4.15", 8, "0.09"),
        ("openshift-4.11", 8, "0.09"),
        # version 1 with the floor (cee78ae5 on 4.16): 0.09 < 0.5 -> 0.5; 172 CPUs: 0.08 + 0.0025 x 168 = 0.5;
        # 173: 0.5025, printed as is
        ("openshift-4.16", 8, "0.5"),
        ("openshift-4.16", 173, "0.5025"),
        # version 2 without the floor (4d0502c8 before the 4.17-4.19 backports): 0.06 + 0.012 x 7 = 0.144 -> "0.14"
        ("openshift-4.17", 8, "0.14"),
        # version 2 with the floor (10f431d8): 0.5
        ("openshift-4.20", 8, "0.5"),
        # a 4.21+ node whose node-sizing-version.json says 1 (it ran auto sizing on 4.16 or earlier): version 1, floor
        ("openshift-cpu-v1", 8, "0.5"),
        ("openshift-cpu-v1", 200, "0.57"),
    ],
)
def test_cpu_script_versions(formula: str, cpus: int, cpu: str) -> None:
    assert _compute(formula, cpus, 32)["cpu"] == cpu


def test_memory_written_unrounded_before_4_12() -> None:
    # 16 GiB (free -g: 16): 25% of 4 + 20% of 4 + 10% of 8 = 1 + 0.8 + 0.8 = 2.6 -> "2.6Gi" (research: 4.8-4.11 write
    # values such as 2.6Gi); 4.12+ rounds half up -> 3Gi
    assert _compute("openshift-4.11", 4, 16)["memory"] == "2.6Gi"
    assert _compute("openshift-4.15", 4, 16)["memory"] == "3Gi"


def test_a_node_that_kept_cpu_version_1_is_explained() -> None:
    # A 4.21 worker that first ran auto sizing on 4.16: cpu version 1 (200 CPUs: 0.57) where version 2 gives 2.45.
    cap = {"cpu": "200", "memory": "64Gi", "ephemeral-storage": "120Gi", "pods": "250"}
    pool = node(labels=WORKER, capacity=cap, kubeletVersion="v1.34.1", osImage=_rhcos("421.96.202601120000-0"))
    sticky = next(d for d in platforms.get("openshift").alternatives(pool, settings()) if d.name == "openshift-cpu-v1")
    expected = model(pool, default=sticky).allocatable["cpu"]
    assert expected == Q("200") - Q("0.57")
    assert model(pool).allocatable["cpu"] == Q("200") - Q("2.45")


def test_nodepools_follow_platform_defaults(repo: Path) -> None:
    pool = """
    apiVersion: policy.allocatable.dev/v1alpha1
    kind: NodePool
    metadata: {name: w}
    spec:
      labels: {node.openshift.io/os_id: rhcos}
      capacity: {cpu: "8", memory: 32Gi, ephemeral-storage: 100Gi}
      count: 1
      platform: openshift
      machineConfigPool: worker
    """
    write_repo(repo, {"pool.yaml": pool, ".allocatable.yaml": "platformDefaults: {openshift: openshift-4.20}\n"})
    (pc,) = build(load([repo]).policies).pools
    assert pc.platform_default is not None and pc.platform_default.name == "openshift-4.20"
    assert pc.system_reserved["memory"].quantity == Q("4Gi")  # M=32: 2.6 + 0.06 x 16 = 3.56 -> 4Gi


def test_auto_sizing_passes_the_es_fallback_through(repo: Path) -> None:
    # openshift/machine-config-operator@7ff337a4:templates/common/_base/files/kubelet-auto-sizing.yaml: with
    # NODE_SIZING_ENABLED=true, dynamic_node_sizing computes cpu and memory and calls `set_es $2` with
    # SYSTEM_RESERVED_ES: a fallback of 10Gi is the reservation; the cpu and memory fallbacks are not used.
    pool = """
    apiVersion: policy.allocatable.dev/v1alpha1
    kind: NodePool
    metadata: {name: w}
    spec:
      labels: {node.openshift.io/os_id: rhcos}
      capacity: {cpu: "8", memory: 32Gi, ephemeral-storage: 100Gi}
      count: 1
      platform: openshift
      machineConfigPool: worker
    """
    policy = """
    apiVersion: policy.allocatable.dev/v1alpha1
    kind: ReservationPolicy
    metadata: {name: p}
    spec:
      selector:
      - matchExpressions: [{key: node.openshift.io/os_id, operator: Exists}]
      autoSizing:
        formula: openshift
        fallback: {cpu: 1, memory: 4Gi, ephemeral-storage: 10Gi}
    """
    write_repo(repo, {"pool.yaml": pool, "rp.yaml": policy})
    (pc,) = build(load([repo]).policies).pools
    assert pc.system_reserved["ephemeral-storage"].quantity == Q("10Gi")
    assert pc.system_reserved["memory"].quantity == Q("2Gi")  # the formula's, not the 4Gi fallback
    assert pc.system_reserved["cpu"].quantity == Q("0.5")
    assert any("fallback cpu, memory not used" in n for n in pc.notes)


def test_detection_and_pools() -> None:
    pool = node(
        labels={"node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/worker": ""},
        osImage=_rhcos("418.94.202410260038-0"),
    )
    assert pool.platform == "openshift" and pool.machine_config_pool == "infra"
    assert "CoreOS" in pool.evidence
