"""A policy's own formula (``autoSizing.custom``): the arithmetic, every bad input as one located error, and the same
formula through explain, sizing, verify, lint, render and Karpenter's CEL (evaluated, as the built-ins are).

Expected values are worked by hand next to each case."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conftest import run_cli
from renderer.capacity.formulas import MIB, MachineShape, compute
from renderer.capacity.karpenter import cel_form, expressible
from renderer.capacity.pools import build
from renderer.models.custom_formula import formula_of
from renderer.pipeline import load
from renderer.quantity import Quantity
from support.factory import Content, Document, node_pool, write_repo
from support.factory import settings as settings_doc
from support.karpenter_cel import context, evaluate

Q = Quantity.parse


def _pool(cpu: str = "16", memory: str = "64Gi", **spec: Any) -> Document:
    return node_pool(
        "general",
        tier=None,
        labels={"pool": "general", "node.kubernetes.io/instance-type": "m5.4xlarge"},
        cpu=cpu,
        memory=memory,
        capacity={"ephemeral-storage": "100Gi", "pods": "110"},
        **spec,
    )


POOL = _pool()
# Text: test_sizing_computes_a_policy_file's expected policy.yaml:12:35 points into it; the tests that vary the formula
# load it and change the data (_with).
CUSTOM = """\
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata: {name: sized}
spec:
  selector:
  - matchExpressions: [{key: pool, operator: Exists}]
  autoSizing:
    custom:
      kubeReserved:
        cpu:
          tiers:
          - {upTo: "1", fraction: 0.06}
          - {upTo: "2", fraction: 0.01}
          - {upTo: "4", fraction: 0.005}
          - {fraction: 0.0025}
        memory: {perPod: 11Mi, base: 255Mi}
      systemReserved:
        memory:
          of: machineMemory
          tiers: [{upTo: 16Gi, fraction: 0.05}, {fraction: 0.02}]
          min: 500Mi
          max: 4Gi
        ephemeral-storage: {base: 1Gi}
"""


def _with(auto_sizing: str) -> Document:
    """CUSTOM with its ``autoSizing`` replaced by ``auto_sizing`` (YAML flow text, as a user writes the term)."""
    doc: Document = yaml.safe_load(CUSTOM)
    doc["spec"]["autoSizing"] = yaml.safe_load(auto_sizing)
    return doc


def _repo(repo: Path, policy: Content = CUSTOM, pool: Document = POOL, settings: Document | None = None) -> Path:
    files: dict[str, Content] = {"pool.yaml": pool, "policy.yaml": policy}
    if settings is not None:
        files[".allocatable.yaml"] = settings
    return write_repo(repo, files)


def test_the_arithmetic(repo: Path) -> None:
    (pc,) = build(load([_repo(repo)]).policies).pools
    # cpu: 60 + 10 + 10 + 0.25% of 12000m = 30 -> 110m; memory: 11 x 110 + 255 = 1465Mi
    assert pc.kube_reserved["cpu"].quantity == Q("110m")
    assert pc.kube_reserved["memory"].quantity == Q("1465Mi")
    # system memory: 5% of 16Gi + 2% of 48Gi = 819.2 + 983.04 = 1802.24 -> 1802Mi (within 500Mi..4Gi)
    assert pc.system_reserved["memory"].quantity == Q("1802Mi")
    assert pc.system_reserved["ephemeral-storage"].quantity == Q("1Gi")
    assert {r.source for r in pc.kube_reserved.values()} == {"formula:custom:sized"}
    # explain shows the arithmetic
    assert any("5% x 16384 MiB + 2% x 49152 MiB = 1802.24 MiB, truncated -> 1802Mi" in n for n in pc.notes)
    assert pc.eviction_source == "kubelet default"  # a custom formula sets no eviction


@pytest.mark.parametrize(
    ("term", "where", "message"),
    [
        (
            "tiers: [{upTo: 8Gi, fraction: 0.1}, {upTo: 4Gi, fraction: 0.2}]",
            "custom.kubeReserved.memory.tiers",
            "out of order",
        ),
        (
            "tiers: [{upTo: 4Gi, fraction: 0.1}, {upTo: 4Gi, fraction: 0.2}]",
            "custom.kubeReserved.memory.tiers",
            "tiers overlap",
        ),
        (
            "tiers: [{fraction: 0.1}, {upTo: 4Gi, fraction: 0.2}]",
            "custom.kubeReserved.memory.tiers",
            "only the last tier may be unbounded",
        ),
        ("tiers: [{upTo: 4Gi, fraction: 1.5}]", "custom.kubeReserved.memory.tiers[0].fraction", "outside [0, 1]"),
        ("tiers: [{upTo: 4Gi, fraction: -0.1}]", "custom.kubeReserved.memory.tiers[0].fraction", "outside [0, 1]"),
        ("{base: 1Gi, min: 2Gi, max: 1Gi}", "custom.kubeReserved.memory", "min 2Gi is above max 1Gi"),
        ("{base: 1Gi, max: 250%}", "custom.kubeReserved.memory", "from 0% to 100%"),
        (
            "fixed: [{upTo: 2Gi, value: 512Mi}, {upTo: 4Gi, value: 256Mi}]",
            "custom.kubeReserved.memory",
            "not monotonic",
        ),
        (
            "fixed: [{upTo: 8Gi, value: 2Gi}]\n          tiers: [{fraction: 0.01}]",
            "custom.kubeReserved",
            "not monotonic",
        ),
        ("{base: 100Ti}", "custom", "implausible"),
        ("{of: cpu, base: 1Gi}", "custom.kubeReserved", "of cpu is not an input for memory"),
    ],
)
def test_a_bad_formula_is_one_located_error(repo: Path, term: str, where: str, message: str) -> None:
    body = term if term.startswith("{") else "\n      " + term.replace("\n          ", "\n      ")
    _repo(repo, _with(f"custom:\n  kubeReserved:\n    memory: {body}\n"))
    res = run_cli("validate", str(repo))
    assert res.exit_code == 2, res.stdout
    (line,) = [ln for ln in res.stdout.splitlines() if ": error: " in ln]
    path, row, col = line.split(":")[:3]
    assert path.endswith("policy.yaml") and int(row) >= 7 and int(col) >= 1, line
    assert f"spec.autoSizing.{where}: " in line, line
    assert message in line, line


def test_per_pod_cpu_that_no_machine_has_is_implausible(repo: Path) -> None:
    # 1 core per pod x 737 pods on a 448-vCPU machine
    _repo(repo, _with("{custom: {kubeReserved: {cpu: {perPod: 1}}}}"))
    res = run_cli("validate", str(repo))
    assert res.exit_code == 2 and "implausible: cpu reserves kubeReserved 737" in res.stdout


@pytest.mark.parametrize(
    ("auto", "message"),
    [
        ("{formula: eks, custom: {kubeReserved: {memory: {base: 1Gi}}}}", "both a formula and custom"),
        ("{fallback: {cpu: 1}}", "needs a formula"),
        ("{custom: {}}", "needs systemReserved or kubeReserved"),
        ("{formula: gke-autopilot}", 'unknown formula "gke-autopilot"'),
    ],
)
def test_auto_sizing_needs_one_formula(repo: Path, auto: str, message: str) -> None:
    _repo(repo, _with(auto))
    res = run_cli("validate", str(repo))
    assert res.exit_code == 2 and message in res.stdout, res.stdout


def test_sizing_computes_a_policy_file(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(CUSTOM, encoding="utf-8")
    res = run_cli(
        "sizing", "--policy", str(policy), "--cpus", "16", "--memory", "64Gi", "--max-pods", "110", "-o", "json"
    )
    assert res.exit_code == 0, res.stderr
    doc = json.loads(res.stdout)
    assert doc["formula"] == "custom:sized"
    assert doc["kubeReserved"] == {"cpu": "110m", "memory": "1465Mi"}
    assert doc["systemReserved"] == {"memory": "1802Mi", "ephemeral-storage": "1Gi"}
    policy.write_text(CUSTOM.replace("fraction: 0.06", "fraction: 6"), encoding="utf-8")
    bad = run_cli("sizing", "--policy", str(policy), "--cpus", "16", "--memory", "64Gi")
    assert (
        bad.exit_code == 2
        and "policy.yaml:12:35: error: spec.autoSizing.custom.kubeReserved.cpu.tiers[0].fraction" in bad.stdout
        and "outside [0, 1]" in bad.stdout
    )


def test_verify_lint_and_render_use_it(repo: Path, tmp_path: Path) -> None:
    _repo(repo)
    # a node of the pool that runs the formula: verify matches it exactly
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1", "labels": {"pool": "general", "node.kubernetes.io/instance-type": "m5.4xlarge"}},
        "status": {
            "capacity": {"cpu": "16", "memory": "64Gi", "pods": "110"},
            # 64Gi - 1465Mi - 1802Mi - 100Mi = 62169Mi; 16 - 0.11 = 15890m
            "allocatable": {"cpu": "15890m", "memory": "62169Mi", "pods": "110"},
        },
    }
    dump = tmp_path / "nodes.yaml"
    dump.write_text(yaml.safe_dump(node), encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "json")
    assert res.exit_code == 0, res.stdout
    # AL206: the same formula on a 1-CPU, 1 GiB pool reserves more memory than it has (500Mi min + 1465Mi)
    _repo(repo, pool=_pool(cpu="1", memory="1Gi"))
    lint = run_cli("lint", str(repo), "-o", "json")
    codes = {f["code"] for f in json.loads(lint.stdout)["findings"]}
    assert "AL206" in codes
    # AL207: on EKS the eks formula recommends more than a custom formula reserving 100m / 100Mi
    low = _with("{custom: {kubeReserved: {cpu: {base: 10m}, memory: {base: 100Mi}}}}")
    _repo(repo, low, _pool(platform="eks"))
    lint = json.loads(run_cli("lint", str(repo), "-o", "json").stdout)
    found = [f for f in lint["findings"] if f["code"] == "AL207"]
    assert found and "the eks formula recommends" in found[0]["message"]
    # render: the kubelet target writes the values computed for the pool
    _repo(repo)
    out = tmp_path / "rendered"
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    kubelet = yaml.safe_load((out / "kubelet" / "general.yaml").read_text(encoding="utf-8"))
    assert kubelet["kubeReserved"] == {"cpu": "110m", "memory": "1465Mi"}
    assert kubelet["systemReserved"] == {"memory": "1802Mi", "ephemeral-storage": "1Gi"}


def test_karpenter_renders_it_as_cel(repo: Path, tmp_path: Path) -> None:
    pool = _pool(platform="eks", delivery={"karpenter": {"ec2NodeClass": "general"}})
    _repo(repo, pool=pool, settings=settings_doc(render={"karpenter": {"expressions": True}}))
    out = tmp_path / "rendered"
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    doc = yaml.safe_load((out / "karpenter" / "general.yaml").read_text(encoding="utf-8"))
    kubelet = doc["spec"]["kubelet"]
    # m5.4xlarge: 16 vCPUs, 65536 MiB, 234 pods: the expressions give what the model gives for that size
    ctx = context(16, 65536, 234)
    assert evaluate(kubelet["kubeReserved"]["cpu"], ctx) == 110
    assert evaluate(kubelet["kubeReserved"]["memory"], ctx) == 11 * 234 + 255
    assert evaluate(kubelet["systemReserved"]["memory"], ctx) == 1802
    assert kubelet["systemReserved"]["ephemeral-storage"] == "1Gi"


# ---------------------------------------------------------------------------------------------------------------
# every custom formula Karpenter can express evaluates to the model's value (as the built-ins, test_karpenter_cel.py)


def _q(text: str) -> Any:
    return Quantity.parse(text)


def _term(**fields: Any) -> SimpleNamespace:
    base = {
        "of": None,
        "whole": None,
        "fixed": None,
        "tiers": None,
        "eachTier": False,
        "base": None,
        "perPod": None,
        "pods": "maxPods",
        "min": None,
        "max": None,
        "round": "down",
        "to": None,
    }
    return SimpleNamespace(**{**base, **fields})


@st.composite
def _terms(draw: st.DrawFn, resource: str) -> SimpleNamespace:
    unit = "" if resource == "cpu" else "Mi"
    scale = [1, 2, 4, 8, 16] if resource == "cpu" else [1000, 1024, 4096, 16384, 131072]
    bounds = sorted(set(draw(st.lists(st.sampled_from(scale), min_size=0, max_size=4))))
    fractions = st.decimals(min_value=Decimal(0), max_value=Decimal("0.3"), places=4)
    tiers = [SimpleNamespace(upTo=_q(f"{b}{unit}"), fraction=draw(fractions)) for b in bounds]
    if draw(st.booleans()):
        tiers.append(SimpleNamespace(upTo=None, fraction=draw(fractions)))
    amount = st.integers(min_value=0, max_value=500).map(lambda n: f"{n}{'m' if resource == 'cpu' else 'Mi'}")
    fields: dict[str, Any] = {"tiers": tiers or None, "eachTier": draw(st.booleans())}
    if draw(st.booleans()):
        fields["base"] = _q(draw(amount))
    if draw(st.booleans()):
        fields["perPod"] = _q("1m" if resource == "cpu" else draw(st.sampled_from(["11Mi", "20Mi", "1Mi"])))
        fields["pods"] = draw(st.sampled_from(["maxPods", "eniMaxPods"]))
    if draw(st.booleans()):
        fields["min"] = _q(draw(amount))
    if draw(st.booleans()):
        fields["max"] = draw(
            st.sampled_from(["25%", "5%"] + (["2", "900m"] if resource == "cpu" else ["4Gi", "900Mi"]))
        )
    fields["round"] = draw(st.sampled_from(["down", "up", "half-up"]))
    fields["to"] = _q(draw(st.sampled_from(["1m", "10m"] if resource == "cpu" else ["1Mi", "16Mi"])))
    if resource == "memory":
        fields["of"] = "machineMemory"
    return _term(**fields)


@given(cpu=_terms("cpu"), memory=_terms("memory"))
def test_every_expressible_custom_formula_evaluates_to_the_model(cpu: SimpleNamespace, memory: SimpleNamespace) -> None:
    formula = formula_of(SimpleNamespace(systemReserved=None, kubeReserved={"cpu": cpu, "memory": memory}), "custom:x")
    if not expressible(formula):  # pragma: no cover - every drawn formula is expressible
        pytest.fail(f"not expressible: {formula}")
    form = cel_form(formula)
    for vcpus, memory_mib, pods in ((1, 1024, 11), (2, 8192, 29), (16, 65536, 234), (96, 393216, 737), (5, 1001, 110)):
        shape = MachineShape(
            cpus=Decimal(vcpus),
            memory_bytes=memory_mib * MIB,
            max_pods=pods,
            machine_memory_bytes=memory_mib * MIB,
            eni_max_pods=58,
        )
        want = compute(formula, shape).kube_reserved
        ctx = context(vcpus, memory_mib, pods)
        for resource, unit in (("cpu", Decimal("0.001")), ("memory", Decimal(MIB))):
            text = form.parts["kubeReserved"][resource]
            got = Decimal(evaluate(text, ctx)) * unit if form.expression("kubeReserved", resource) else _q(text).value
            assert got == _q(want[resource]).value, (resource, vcpus, memory_mib, pods, text, want[resource])


def test_a_memtotal_formula_has_no_cel_form_and_says_why() -> None:
    term = _term(of="memory", tiers=[SimpleNamespace(upTo=None, fraction=Decimal("0.1"))])
    formula = formula_of(SimpleNamespace(systemReserved=None, kubeReserved={"memory": term}), "custom:m")
    with pytest.raises(ValueError, match="MemTotal"):
        cel_form(formula)
