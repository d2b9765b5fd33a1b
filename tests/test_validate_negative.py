"""``validate`` rejects the negative quantities the kubelet rejects, in the kubelet's own words (issue 34, item 6).

Expected wording, from the kubelet's sources (kubernetes/kubernetes, read 2026-12-06):

- ``cmd/kubelet/app/server.go`` ``parseResourceList`` (systemReserved, kubeReserved):
  ``resource quantity for %q cannot be negative: %v``
- ``pkg/kubelet/eviction/helpers.go`` ``parseThresholdStatement`` (evictionHard, evictionSoft):
  ``eviction threshold %v must be positive: %s`` for a quantity, ``eviction percentage threshold %v must be >= 0%%: %s``
  for a percentage;
- ``pkg/kubelet/eviction/helpers.go`` ``parseMinimumReclaims`` (kubelet.evictionMinimumReclaim):
  ``negative eviction minimum reclaim specified for %v`` for a quantity (zero is allowed: ``quantity.Sign() < 0``),
  ``eviction percentage minimum reclaim %v must be positive: %s`` for a percentage (``percentage <= 0``: 0% too).

Siblings read and left alone, because the kubelet takes them: ``containerLogMaxSize`` (a negative size turns log
rotation off, pkg/kubelet/logs/container_log_manager.go), ``reservedMemory`` limits (validation_reserved_memory.go
refuses zero, duplicates and other resources, which rule AL325 covers, not a sign).

Before this, ``validate`` passed all of them (only ``lint`` said so, with a clause about CommitClasses), and the
JSON Schema of ReservationPolicy accepted them.
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from conftest import REPO_ROOT, run_cli
from support.factory import write_repo

HEAD = """\
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata:
  name: neg
spec:
  selector:
  - matchExpressions:
    - {key: a, operator: In, values: [b]}
"""

CASES = [
    # (spec lines, the kubelet's message, the line:col it is located at)
    ("  systemReserved: {memory: -1Gi}\n", 'resource quantity for "memory" cannot be negative: -1Gi', "9:3"),
    (
        "  kubeReserved:\n    cpu: 100m\n    ephemeral-storage: -1\n",
        'resource quantity for "ephemeral-storage" cannot be negative: -1',
        "9:3",
    ),
    (
        "  autoSizing:\n    formula: openshift\n    fallback: {ephemeral-storage: -1Gi}\n",
        'resource quantity for "ephemeral-storage" cannot be negative: -1Gi',
        "11:5",
    ),
    (
        "  evictionHard: {memory.available: -100Mi}\n",
        "eviction threshold memory.available must be positive: -100Mi",
        "9:3",
    ),
    (
        "  evictionSoft: {nodefs.available: '-5%'}\n  evictionSoftGracePeriod: {nodefs.available: 1m}\n",
        "eviction percentage threshold nodefs.available must be >= 0%: -5%",
        "9:3",
    ),
    # located at the signal's value: 4 spaces, "evictionMinimumReclaim" (22), ": {", "memory.available" (16), ": "
    # come first on line 10, 47 characters, so column 48; below, 6 spaces, "imagefs.available" (17), ": ": column 26
    (
        "  kubelet:\n    evictionMinimumReclaim: {memory.available: -1Gi}\n",
        "negative eviction minimum reclaim specified for memory.available",
        "10:48",
    ),
    (
        "  kubelet:\n    evictionMinimumReclaim:\n      nodefs.available: 500Mi\n      imagefs.available: '-5%'\n",
        "eviction percentage minimum reclaim imagefs.available must be positive: -5%",
        "12:26",
    ),
]


@pytest.mark.parametrize(("spec", "message", "at"), CASES, ids=[c[1].split(":")[0] for c in CASES])
def test_validate_rejects_a_negative_quantity_with_the_kubelets_words(
    tmp_path: Path, spec: str, message: str, at: str
) -> None:
    write_repo(tmp_path, {"rp.yaml": HEAD + spec})
    r = run_cli("validate", str(tmp_path), "-o", "json")
    assert r.exit_code == 2, r.stdout + r.stderr
    findings = json.loads(r.stdout)["findings"]
    assert [f"{f['line']}:{f['column']}" for f in findings] == [at]
    assert message in findings[0]["message"] and findings[0]["code"] == "AL004"


def test_zero_and_positive_values_still_validate(tmp_path: Path) -> None:
    spec = (
        "  systemReserved: {memory: '0', cpu: 100m}\n  kubeReserved: {memory: +1Gi}\n"
        "  evictionHard: {memory.available: 100Mi, nodefs.available: 0%, imagefs.available: 10%}\n"
        "  kubelet:\n    evictionMinimumReclaim: {memory.available: '0', nodefs.available: +500Mi, imagefs.available: 2%}\n"
    )
    write_repo(tmp_path, {"rp.yaml": HEAD + spec})
    r = run_cli("validate", str(tmp_path))
    assert r.exit_code == 0, r.stdout + r.stderr


def test_a_zero_percent_minimum_reclaim_is_refused_and_a_zero_quantity_is_not(tmp_path: Path) -> None:
    # parseMinimumReclaims: a percentage must be > 0 (float32(0) / 100 <= 0), a quantity only not negative.
    spec = "  kubelet:\n    evictionMinimumReclaim: {memory.available: '0', nodefs.available: '0%'}\n"
    write_repo(tmp_path, {"rp.yaml": HEAD + spec})
    r = run_cli("validate", str(tmp_path), "-o", "json")
    assert r.exit_code == 2, r.stdout + r.stderr
    (finding,) = json.loads(r.stdout)["findings"]
    assert "eviction percentage minimum reclaim nodefs.available must be positive: 0%" in finding["message"]
    schema = json.loads((REPO_ROOT / "schemas" / "reservationpolicy.json").read_text(encoding="utf-8"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(yaml.safe_load(HEAD + spec), schema)
    jsonschema.validate(yaml.safe_load(HEAD + spec.replace("'0%'", "'0.5%'")), schema)


@pytest.mark.parametrize("spec", [c[0] for c in CASES])
def test_the_json_schema_rejects_them_too(spec: str) -> None:
    """An editor using schemas/reservationpolicy.json flags the same values while typing."""
    schema = json.loads((REPO_ROOT / "schemas" / "reservationpolicy.json").read_text(encoding="utf-8"))
    document = yaml.safe_load(HEAD + spec)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(document, schema)
    positive = yaml.safe_load(HEAD + spec.replace("-", ""))
    jsonschema.validate(positive, schema)


def test_a_minimum_reclaim_the_kubelet_reads_validates(tmp_path: Path) -> None:
    # "0" is not negative (Sign() == 0), "5%" and ".5%" are above zero; "NaN%" is odd but Go's ParseFloat reads it and
    # NaN <= 0 is false: the kubelet starts, so validate does not claim otherwise.
    entries = "      memory.available: '0'\n      nodefs.available: 5%\n      imagefs.available: .5%\n"
    entries += "      nodefs.inodesFree: NaN%\n      imagefs.inodesFree: 1.5Gi\n"
    write_repo(tmp_path, {"rp.yaml": HEAD + "  kubelet:\n    evictionMinimumReclaim:\n" + entries})
    r = run_cli("validate", str(tmp_path))
    assert r.exit_code == 0, r.stdout + r.stderr
