"""Issue 21, class 10: render never writes a configuration the kubelet refuses, whichever target carries it.

The example repository's five ReservationPolicies each feed one delivery (KubeletConfiguration files for EKS,
Karpenter's EC2NodeClass, Cluster API's kubelet flags, nodeadm's NodeConfig, OpenShift's KubeletConfig). Each value
the kubelet refuses (the reported six and their siblings), appended to every one of them, must stop lint and render
with one located AL326 error per policy — nothing written — and every value AL326 accepts must also pass the
project's own schemas/kubeletconfiguration.json (and every value the schema refuses must be an AL326 error), so the
lint-time check and the schema cannot drift apart.

The CLI runs in this process (``support.hardening.in_process``): these are bad-input checks (exit code, located
lines, no traceback, nothing written), which do not depend on running as a process of its own.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderer.models.kubelet_validation import ELSEWHERE, KIND, problems
from support.hardening import REPO_ROOT, assert_no_crash, in_process, shown, snapshot

#: (field, YAML value, where it goes): the issue's six, then siblings.
BAD = [
    ("maxPods", "99999999999", "spec"),
    ("podPidsLimit", "100000000000000000000000", "spec"),
    ("eventBurst", "3000000000", "kubelet"),
    ("registryBurst", "-5", "kubelet"),
    ("cpuCFSQuotaPeriod", "'-5s'", "kubelet"),
    ("serializeImagePulls", "'yes'", "kubelet"),
    ("kubeAPIQPS", "-1", "kubelet"),
    ("oomScoreAdj", "1001", "kubelet"),
    ("maxOpenFiles", "1e23", "kubelet"),
    ("shutdownGracePeriod", "'999ms'", "kubelet"),
    ("containerLogMaxFiles", "1", "kubelet"),
    ("failSwapOn", "'false'", "kubelet"),
]


def _example(tmp_path: Path) -> Path:
    shutil.copytree(REPO_ROOT / "policies", tmp_path / "policies")
    return tmp_path / "policies"


def _inject(text: str, field: str, value: str, where: str) -> str:
    """Append ``field: value`` to the policy's spec (or spec.kubelet, created when missing)."""
    if where == "spec":
        text = re.sub(rf"^  {field}: .*\n", "", text, flags=re.M)
        return text.rstrip("\n") + f"\n  {field}: {value}\n"
    if re.search(r"^  kubelet:\n", text, re.M):
        text = re.sub(rf"^    {field}: .*\n", "", text, flags=re.M)
        return re.sub(r"^  kubelet:\n", f"  kubelet:\n    {field}: {value}\n", text, count=1, flags=re.M)
    return text.rstrip("\n") + f"\n  kubelet:\n    {field}: {value}\n"


@pytest.mark.parametrize(("field", "value", "where"), BAD, ids=[b[0] for b in BAD])
def test_a_value_the_kubelet_refuses_stops_every_target(tmp_path: Path, field: str, value: str, where: str) -> None:
    policies = _example(tmp_path)
    files = sorted((policies / "reservations").glob("*.yaml"))
    assert len(files) == 3  # eks-static, karpenter-gke-tiers, nodeadm-eks: three deliveries of one EKS cluster
    for f in files:
        f.write_text(_inject(f.read_text(), field, value, where))
    before = snapshot(tmp_path)
    res = in_process("render", "policies", "-o", "out", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 1, shown(res)
    errors = [ln for ln in res.stdout.splitlines() if "[AL326]" in ln]
    assert sorted(ln.split(":")[0] for ln in errors) == sorted(f"policies/reservations/{f.name}" for f in files), shown(
        res
    )
    for line in errors:
        assert re.match(r"^policies/reservations/[\w-]+\.yaml:\d+:\d+: error: ", line), line
        assert field in line, line
    assert snapshot(tmp_path) == before  # nothing written
    lint = in_process("lint", "policies", cwd=tmp_path)
    assert lint.returncode == 1 and len([ln for ln in lint.stdout.splitlines() if "[AL326]" in ln]) == len(files)


def test_the_schema_holds_the_cross_field_rule_too() -> None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(SCHEMA)
    base = {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration"}
    assert not validator.is_valid({**base, "maxParallelImagePulls": 4})
    assert validator.is_valid({**base, "maxParallelImagePulls": 4, "serializeImagePulls": False})
    assert problems({"maxParallelImagePulls": 4}) and not problems(
        {"maxParallelImagePulls": 4, "serializeImagePulls": False}
    )


def test_the_example_repository_passes(tmp_path: Path) -> None:
    _example(tmp_path)
    res = in_process("lint", "policies", cwd=tmp_path)
    assert "[AL326]" not in res.stdout, shown(res)


# --- AL326 and the schema agree -------------------------------------------------------------------------------

SCHEMA = json.loads((REPO_ROOT / "schemas" / "kubeletconfiguration.json").read_text(encoding="utf-8"))
CHECKED = sorted(name for name, kind in KIND.items() if kind in ("bool", "int32", "int64") and name not in ELSEWHERE)
VALUES = st.one_of(
    st.integers(min_value=-(1 << 64), max_value=1 << 64),
    st.sampled_from(
        [0, 1, -1, 31, 32, 65535, 65536, 1000, -1000, 1001, (1 << 31) - 1, 1 << 31, (1 << 63) - 1, 1 << 63]
    ),
    st.booleans(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=5),
)


def _schema_accepts(name: str, value: Any) -> bool:
    import jsonschema

    prop = SCHEMA["properties"][name]
    return jsonschema.Draft202012Validator(prop).is_valid(value)


BOUNDARIES = [
    0,
    1,
    -1,
    -2,
    2,
    31,
    32,
    100,
    101,
    65535,
    65536,
    1000,
    -1000,
    1001,
    -1001,
    (1 << 31) - 1,
    1 << 31,
    -(1 << 31),
    -(1 << 31) - 1,
    (1 << 63) - 1,
    1 << 63,
    -(1 << 63),
    -(1 << 63) - 1,
    True,
    False,
    1.5,
    -0.5,
    "1",
    "true",
    "",
    None,
]


def _rule_finds(name: str, value: Any) -> bool:
    """AL326's verdict, and AL317's for the negative pod limits it leaves to that rule."""
    if name in ("maxPods", "podsPerCore") and type(value) is int and value < 0:
        return True
    # maxParallelImagePulls > 1 alone is refused for serializeImagePulls' default; the schema says so in allOf.
    return any(p.field == name and "unless serializeImagePulls" not in p.message for p in problems({name: value}))


def _check(name: str, value: Any) -> None:
    found = _rule_finds(name, value)
    # The schema is a JSON Schema: an integer-valued float (1.0) is an integer to it, never to Go's decoder.
    if isinstance(value, float) and value.is_integer() and KIND[name] != "bool":
        assert found
        return
    assert _schema_accepts(name, value) == (not found), (name, value, found)


@pytest.mark.parametrize("name", CHECKED)
def test_al326_and_the_schema_agree_at_every_boundary(name: str) -> None:
    for value in BOUNDARIES:
        if value is not None:
            _check(name, value)


@given(name=st.sampled_from(CHECKED), value=VALUES)
def test_al326_and_the_schema_agree_on_any_value(name: str, value: Any) -> None:
    _check(name, value)
