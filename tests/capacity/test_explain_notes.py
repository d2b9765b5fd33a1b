"""``explain``'s notes describe the values its table shows: where a policy states a reserved value itself, the
formula's steps for that value are replaced by one note naming the field and the formula's figure it replaces —
for built-in formulas (one map), custom formulas (both maps, notes then name the map), a formula's own notes
(AKS's table row), input notes, and Karpenter's rounding.

Expected figures, worked out by hand from the formulas' published definitions (docs/platforms.md):
- eks, 58 pods: memory 255 MiB + 11 MiB x 58 = 893Mi; cpu 6% + 1% + 0.5% x 2 + 0.25% x 4 of 8 cores = 90m;
- openshift (4.21+), 8 cpus: 0.06 + 0.012 x 7 = 0.144, below the 0.5 floor -> 0.5;
- aks, 8 cores: the AKS table row 8 -> 180m;
- custom (below), 32Gi and 110 pods: systemReserved 5% x (32 - 8) GiB = 1228.8 MiB, truncated -> 1228Mi;
  kubeReserved 255 MiB + 11 MiB x 110 = 1465Mi.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from support import factory
from support.factory import Content, node_pool, node_selector, reservation_policy, write_repo

#: A custom formula ``r``: system memory 5% above 8Gi; kube memory 255Mi + 11Mi a pod, cpu 100m.
CUSTOM = {
    "custom": {
        "systemReserved": {"memory": {"tiers": [{"upTo": "8Gi", "fraction": 0}, {"fraction": 0.05}]}},
        "kubeReserved": {"memory": {"perPod": "11Mi", "base": "255Mi"}, "cpu": {"base": "100m"}},
    }
}


def _explain(
    tmp_path: Path,
    platform: str,
    policy: dict[str, Any],
    *,
    pods: str = "58",
    pool: dict[str, Any] | None = None,
    **settings: Any,
) -> Any:
    """Explain pool p (an m5.2xlarge: 8 cpu, 32Gi, 100Gi) on ``platform`` with the ``pool`` spec fields, under a
    ReservationPolicy of ``policy``; ``settings`` for .allocatable.yaml."""
    labels = {"tier": "p", "node.kubernetes.io/instance-type": "m5.2xlarge"}
    capacity = {"ephemeral-storage": "100Gi", "pods": pods}
    files: dict[str, Content] = {
        "pool.yaml": node_pool(
            "p", tier=None, labels=labels, capacity=capacity, count=2, platform=platform, **(pool or {})
        ),
        "rp.yaml": reservation_policy("r", selector=node_selector("tier", ["p"]), **policy),
    }
    if settings:
        files[".allocatable.yaml"] = factory.settings(**settings)
    write_repo(tmp_path / "policies", files)
    text = run_cli("explain", "policies", cwd=tmp_path)
    assert text.exit_code == 0, text.stderr
    (got,) = json.loads(run_cli("explain", "policies", "-o", "json", cwd=tmp_path).stdout)["pools"]
    text_notes = [ln.removeprefix("  note: ") for ln in text.stdout.splitlines() if ln.startswith("  note: ")]
    assert text_notes == got["notes"], "text and JSON carry the same notes"
    return got


def _replaced(pool: Any, part: str, resource: str, formula: str, computed: str) -> None:
    """The table's value is the policy's; one note says so, and none still shows the formula's steps for it."""
    shown = pool[part][resource]
    assert pool["reservedSources"][part][resource] == "explicit"
    note = f"{part} {resource}: {shown} from spec.{part}.{resource} replaces the {formula} formula's {computed}"
    assert pool["notes"].count(note) == 1, pool["notes"]
    others = [n for n in pool["notes"] if n != note]
    assert not [n for n in others if computed in n], others


def test_a_built_in_formula_value_replaced_by_an_explicit_one(tmp_path: Path) -> None:
    pool = _explain(tmp_path, "eks", {"autoSizing": {"formula": "eks"}, "kubeReserved": {"memory": "1Gi"}})
    assert pool["kubeReserved"] == {"cpu": "90m", "memory": "1Gi", "ephemeral-storage": "1Gi"}
    _replaced(pool, "kubeReserved", "memory", "eks", "893Mi")
    assert "cpu: 6% x 1000m + 1% x 1000m + 0.5% x 2000m + 0.25% x 4000m = 90m" in pool["notes"], "cpu stays"


def test_the_other_map_and_a_floor(tmp_path: Path) -> None:
    policy = {"autoSizing": {"formula": "openshift"}, "systemReserved": {"cpu": "1"}}
    pool = _explain(tmp_path, "openshift", policy, pool={"machineConfigPool": "worker"})
    _replaced(pool, "systemReserved", "cpu", "openshift", "0.5")
    assert not [n for n in pool["notes"] if n.startswith("cpu:")], pool["notes"]
    assert "memory: 1 + 6% x 24 (GiB) = 2.44, rounded half up -> 2Gi" in pool["notes"], "memory stays"


def test_a_formulas_own_note_goes_with_its_value(tmp_path: Path) -> None:
    policy = {"autoSizing": {"formula": "aks"}, "kubeReserved": {"cpu": "200m"}}
    pool = _explain(tmp_path, "aks", policy, pool={"machineMemory": "32Gi"})
    _replaced(pool, "kubeReserved", "cpu", "aks", "180m")
    assert not [n for n in pool["notes"] if "AKS table" in n], pool["notes"]


def test_a_custom_formula_names_the_map_in_its_notes(tmp_path: Path) -> None:
    pool = _explain(tmp_path, "generic", {"autoSizing": CUSTOM}, pods="110")
    assert "systemReserved memory: 5% x 24576 MiB = 1228.8 MiB, truncated -> 1228Mi" in pool["notes"]
    assert "kubeReserved memory: 255 MiB + 11 MiB x 110 pods = 1465 MiB -> 1465Mi" in pool["notes"]
    both = {"autoSizing": CUSTOM, "systemReserved": {"memory": "300Mi"}, "kubeReserved": {"memory": "512Mi"}}
    pool = _explain(tmp_path, "generic", both, pods="110")
    _replaced(pool, "systemReserved", "memory", "custom:r", "1228Mi")
    _replaced(pool, "kubeReserved", "memory", "custom:r", "1465Mi")
    # every memory value is the policy's: the note about the formula's memory input no longer applies
    assert not [n for n in pool["notes"] if n.startswith("memory:")], pool["notes"]
    assert "kubeReserved cpu: fixed 100m" in pool["notes"]


@pytest.mark.parametrize("explicit", [False, True])
def test_karpenter_rounding_only_for_the_values_it_rounds(tmp_path: Path, explicit: bool) -> None:
    # Karpenter rounds a CEL result up to 16Mi for memory (renderer/capacity/karpenter.py: rounded_up): 893Mi is
    # not a multiple of 16Mi (55.8 x 16), so without an explicit value a rounding note names it.
    policy: dict[str, Any] = {"autoSizing": {"formula": "eks"}}
    if explicit:
        policy["kubeReserved"] = {"memory": "1Gi"}
    delivery = {"karpenter": {"ec2NodeClass": "general"}}
    pool = _explain(tmp_path, "eks", policy, pool={"delivery": delivery}, render={"karpenter": {"expressions": True}})
    rounding = [n for n in pool["notes"] if "893Mi" in n and "Karpenter" in n]
    if explicit:
        _replaced(pool, "kubeReserved", "memory", "eks", "893Mi")
        assert pool["kubeReserved"]["memory"] == "1Gi"
    else:
        assert rounding, pool["notes"]
