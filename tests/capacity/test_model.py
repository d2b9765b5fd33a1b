from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conftest import POLICIES, run_cli
from renderer.capacity.model import commit_value, eviction_reservation
from renderer.capacity.pools import build
from renderer.pipeline import load
from renderer.quantity import Quantity
from support.factory import Document, commit_class, node_pool, node_selector, reservation_policy, write_repo

Q = Quantity.parse


def _model(repo: Path):  # type: ignore[no-untyped-def]
    result = load([repo])
    assert result.ok, [f.message for f in result.findings]
    return build(result.policies)


def _pool(
    name: str, tier: str, *, cpu: str, memory: str, count: int, capacity: dict[str, str] | None = None
) -> Document:
    """A pool of ``count`` nodes labelled tier=<tier> with 100Gi of ephemeral storage besides ``capacity``."""
    storage = {"ephemeral-storage": "100Gi", **(capacity or {})}
    return node_pool(name, tier=None, labels={"tier": tier}, cpu=cpu, memory=memory, count=count, capacity=storage)


def _policy(name: str, tier: str, **spec: Any) -> Document:
    return reservation_policy(name, selector=node_selector("tier", [tier]), **spec)


def _class(name: str, tier: str, percents: dict[str, int]) -> Document:
    return commit_class(name, percents=percents, selector=node_selector("tier", [tier]))


def test_openshift_documentation_example(repo: Path) -> None:
    # capacity 32Gi, kube-reserved 2Gi, system-reserved 1Gi, hard eviction 100Mi -> allocatable 28.9Gi
    write_repo(
        repo,
        {
            "pool.yaml": _pool("a", "x", cpu="8", memory="32Gi", count=1),
            "rp.yaml": _policy(
                "p",
                "x",
                kubeReserved={"memory": "2Gi"},
                systemReserved={"memory": "1Gi"},
                evictionHard={"memory.available": "100Mi"},
            ),
        },
    )
    (pc,) = _model(repo).pools
    assert pc.allocatable["memory"] == Q("29596Mi")
    assert pc.allocatable["memory"].value / Decimal(1024**3) > Decimal("28.9")
    # evictionHard given without nodefs.available: nothing is kept free on disk
    assert pc.allocatable["ephemeral-storage"] == Q("100Gi")


def test_proposal_over_commit_example(repo: Path) -> None:
    # "2 of 24 reserved cores at 1000% become 20 of 240": committed = 240 - 20 = 220 cores
    write_repo(
        repo,
        {
            "pool.yaml": _pool("a", "x", cpu="24", memory="64Gi", count=3),
            "rp.yaml": _policy("p", "x", systemReserved={"cpu": "1"}, kubeReserved={"cpu": "1"}),
            "cc.yaml": _class("c", "x", {"cpu": 1000}),
        },
    )
    model = _model(repo)
    (pc,) = model.pools
    assert pc.committed["cpu"] == Q("220")
    assert pc.commit_rule["cpu"] == "scaled"
    assert pc.committed["memory"] == pc.allocatable["memory"]
    assert model.totals()["committedAllocatable"]["cpu"] == "660"


def test_under_commit_rule_is_a_repo_setting(repo: Path) -> None:
    files = {
        "pool.yaml": _pool("a", "x", cpu="10", memory="64Gi", count=1),
        "rp.yaml": _policy("p", "x", systemReserved={"cpu": "1"}),
        "cc.yaml": _class("c", "x", {"cpu": 50}),
    }
    write_repo(repo, files)
    (scaled,) = _model(repo).pools
    assert scaled.commit_rule["cpu"] == "scaled"
    assert scaled.committed["cpu"] == Q("4500m")  # (10 - 1) x 50%
    write_repo(repo, {".allocatable.yaml": "commit: {underCommitScalesReserved: false}\n"})
    (unscaled,) = _model(repo).pools
    assert unscaled.commit_rule["cpu"] == "unscaled"
    assert unscaled.committed["cpu"] == Q("4")  # 10 x 50% - 1
    out = run_cli("explain", str(repo))
    assert "reserved slices do not scale" in out.stdout


def test_default_eviction_and_hugepages(repo: Path) -> None:
    write_repo(
        repo,
        {"pool.yaml": _pool("a", "x", cpu="4", memory="16Gi", count=1, capacity={"hugepages-2Mi": "2Gi"})},
    )
    (pc,) = _model(repo).pools
    assert pc.eviction_source == "kubelet default"
    assert pc.eviction_reserved["memory"] == Q("100Mi")
    # nodefs.available 10% of 100Gi as the kubelet's float32 fraction resolves it (160 bytes above a tenth)
    assert pc.eviction_reserved["ephemeral-storage"] == Q("10737418400")
    assert pc.allocatable["memory"] == Q("16Gi") - Q("100Mi") - Q("2Gi")
    assert pc.allocatable["cpu"] == Q("4")


def test_formula_fills_its_map(repo: Path) -> None:
    write_repo(
        repo,
        {
            "pool.yaml": _pool("a", "x", cpu="2", memory="8Gi", count=1, capacity={"pods": "29"}),
            "rp.yaml": _policy("p", "x", autoSizing={"formula": "eks"}, systemReserved={"cpu": "100m"}),
        },
    )
    (pc,) = _model(repo).pools
    assert pc.kube_reserved["memory"].quantity == Q("574Mi")
    assert pc.kube_reserved["memory"].source == "formula:eks"
    assert pc.kube_reserved["cpu"].quantity == Q("70m")
    assert pc.system_reserved["cpu"].source == "explicit"
    assert pc.eviction_source == "formula:eks"
    assert pc.allocatable["cpu"] == Q("1830m")


def test_conflicting_classes_are_all_kept_and_none_applied(repo: Path) -> None:
    write_repo(
        repo,
        {
            "pool.yaml": _pool("a", "x", cpu="4", memory="16Gi", count=1),
            "c1.yaml": _class("one", "x", {"cpu": 200}),
            "c2.yaml": _class("two", "x", {"cpu": 300}),
        },
    )
    (pc,) = _model(repo).pools
    assert [c.name for c in pc.commit_classes] == ["one", "two"]
    assert pc.commit_class is None
    assert pc.percent["cpu"] == 100
    assert any("2 CommitClasses select this pool" in n for n in pc.notes)


def test_runtime_class_overhead_figures(repo: Path) -> None:
    write_repo(
        repo,
        {
            "pool.yaml": _pool("a", "x", cpu="2", memory="4Gi", count=1, capacity={"pods": "10"}),
            "rp.yaml": _policy("p", "x", evictionHard={"memory.available": "0%"}),
            "rc.yaml": """
            apiVersion: node.k8s.io/v1
            kind: RuntimeClass
            metadata: {name: kata}
            handler: kata-qemu
            overhead: {podFixed: {cpu: 250m, memory: 512Mi}}
            scheduling: {nodeSelector: {tier: x}}
        """,
            "other.yaml": """
            apiVersion: node.k8s.io/v1
            kind: RuntimeClass
            metadata: {name: elsewhere}
            handler: runsc
            scheduling: {nodeSelector: {tier: y}}
        """,
        },
    )
    (pc,) = _model(repo).pools
    assert [o.runtime_class.name for o in pc.overhead] == ["kata"]
    (o,) = pc.overhead
    assert o.pods_fit == {"cpu": 8, "memory": 8}
    assert o.max_pods_share["cpu"] == Decimal("125.00")  # 10 x 250m of 2 cores
    assert o.max_pods_share["memory"] == Decimal("125.00")


def test_explain_json_shape() -> None:
    res = run_cli("explain", str(POLICIES), "-o", "json")
    assert res.exit_code == 0
    doc = json.loads(res.stdout)
    assert doc["version"] == 1
    pool = next(p for p in doc["pools"] if p["name"] == "eks-general-purpose")
    for key in (
        "name",
        "count",
        "commitClasses",
        "reservationPolicies",
        "capacity",
        "systemReserved",
        "kubeReserved",
        "evictionHard",
        "allocatable",
        "committedAllocatable",
        "runtimeClasses",
    ):
        assert key in pool
    assert pool["commitClasses"] == ["general-purpose-burst"]
    assert pool["committedAllocatable"]["cpu"] == "11685m"  # (8 - 210m) x 150%
    assert set(doc["totals"]) >= {"nodes", "capacity", "allocatable", "committedAllocatable"}
    assert run_cli("explain", str(POLICIES), "-o", "json").stdout == res.stdout


def test_explain_unknown_pool() -> None:
    res = run_cli("explain", str(POLICIES), "--pool", "nope")
    assert res.exit_code == 2
    assert "no pool named nope" in res.stderr


def test_explain_markdown_and_text() -> None:
    openshift = str(POLICIES.parent / "docs" / "examples" / "openshift-onprem")
    md = run_cli("explain", openshift, "-o", "markdown", "--pool", "ocp-worker").stdout
    assert md.startswith("## Node capacity")
    assert "| allocatable |" in md
    txt = run_cli("explain", openshift, "--pool", "ocp-worker").stdout
    assert "  reserved from:       systemReserved formula:openshift\n" in txt
    assert "commit rule:" not in txt  # 100% everywhere: no commit rule applies
    txt = run_cli("explain", str(POLICIES), "--pool", "eks-general-purpose").stdout
    assert "  commit rule:\n    cpu: 150%, reserved slices scale:" in txt


def test_sizing_cli() -> None:
    res = run_cli("sizing", "--formula", "openshift", "--cpus", "8", "--memory", "32Gi", "-o", "json")
    doc = json.loads(res.stdout)
    assert doc["systemReserved"] == {"cpu": "0.5", "memory": "2Gi", "ephemeral-storage": "1Gi"}
    assert doc["kubeReserved"] == {}
    assert doc["formula"] == "openshift"
    eks = json.loads(
        run_cli("sizing", "--formula", "eks", "--cpus", "2", "--memory", "8Gi", "--max-pods", "29", "-o", "json").stdout
    )
    assert eks["kubeReserved"]["memory"] == "574Mi" and eks["kubeReserved"]["cpu"] == "70m"
    for args, needle in (
        (["--formula", "nope", "--cpus", "2", "--memory", "1Gi"], "invalid choice: 'nope'"),
        (["--formula", "gke", "--cpus", "0", "--memory", "1Gi"], "--cpus must be"),
        (["--formula", "gke", "--cpus=-2", "--memory", "1Gi"], "--cpus must be"),
        (["--formula", "gke", "--cpus", "2", "--memory=-1Gi"], "--memory must be"),
        (["--formula", "gke", "--cpus", "2", "--memory", "1Gb"], "--memory"),
        (["--formula", "eks", "--cpus", "2", "--memory", "1Gi", "--max-pods", "0"], "--max-pods"),
    ):
        res = run_cli("sizing", *args)
        assert res.exit_code == 2, args
        assert needle in res.stderr and res.stderr.count("\n") == 1 and res.stdout == ""


quantities = st.integers(min_value=0, max_value=2**40).map(lambda n: Quantity.from_value(n))


@given(cap=quantities, reserved=quantities, hp=quantities, percent=st.integers(1, 2000), scale=st.booleans())
def test_commit_never_negative_and_100_is_identity(
    cap: Quantity, reserved: Quantity, hp: Quantity, percent: int, scale: bool
) -> None:
    out = commit_value("memory", cap, reserved, hp, percent, scale)
    assert not out.is_negative()
    base = commit_value("memory", cap, reserved, hp, 100, scale)
    assert base <= cap
    assert base == (cap - reserved - hp).clamp_min_zero()
    if percent <= 100:
        assert out <= cap


@given(cap=quantities, r1=quantities, r2=quantities, percent=st.integers(1, 2000), scale=st.booleans())
def test_commit_monotone_in_reservation(cap: Quantity, r1: Quantity, r2: Quantity, percent: int, scale: bool) -> None:
    lo, hi = sorted([r1, r2])
    assert commit_value("cpu", cap, hi, Quantity.from_value(0), percent, scale) <= commit_value(
        "cpu", cap, lo, Quantity.from_value(0), percent, scale
    )


def test_eviction_reservation_percent_and_disabled() -> None:
    cap = Q("100Gi")
    # 10% is the float32 0.100000001490116…: 160 bytes more than a tenth of 100Gi (see tests/capacity/test_eviction.py)
    assert eviction_reservation("10%", cap) == Quantity.from_value(10737418240 + 160)
    assert eviction_reservation("0%", cap) == Q("0")
    assert eviction_reservation("100%", cap) == Q("0")
    assert eviction_reservation("500Mi", cap) == Q("500Mi")
    assert eviction_reservation("lots", cap) is None
    assert eviction_reservation("120%", cap) is None


def test_reserved_system_cpus_replace_the_cpu_reservations(repo: Path) -> None:
    # kubernetes/kubernetes@293a53f2:cmd/kubelet/app/server.go: "Option --reserved-cpus is specified, it will
    # overwrite the cpu setting in KubeReserved and SystemReserved": systemReserved cpu = the set's size, kubeReserved
    # cpu deleted. 0-1,4 and an overlapping 1 are 3 distinct CPUs.
    write_repo(
        repo,
        {
            "pool.yaml": _pool("a", "x", cpu="16", memory="64Gi", count=1),
            "rp.yaml": _policy(
                "p", "x", systemReserved={"cpu": "100m"}, kubeReserved={"cpu": "110m"}, reservedSystemCPUs="0-1,4,1"
            ),
        },
    )
    (pc,) = _model(repo).pools
    assert pc.allocatable["cpu"] == Q("13")
    # what the policy says is kept for rendering; only the arithmetic follows the kubelet's override
    assert pc.system_reserved["cpu"].quantity == Q("100m")
    assert pc.kube_reserved["cpu"].quantity == Q("110m")
