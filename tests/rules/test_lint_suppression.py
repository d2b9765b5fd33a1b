"""allocatable.dev/ignore: grammar, what a suppression covers, and the findings about suppressions."""

from __future__ import annotations

import copy
from pathlib import Path

from lint_support import lint_json

from conftest import KOORDINATOR_ON
from renderer.lint.suppression import parse
from support.factory import node_pool, write_repo

POOL = node_pool(
    "batch", tier="batch", labels={"node.kubernetes.io/instance-type": "c5.4xlarge"}, cpu="16", memory="32Gi", count=2
)


# Text: test_without_reason_is_a_finding_and_suppresses_nothing's AL901 at (6, 29) points into it (the annotation).
def _class(
    name: str, annotation: str | None, key: str = "example.com/tier", value: str = "batch", cpu: int = 1000
) -> str:
    note = f'\n  annotations:\n    allocatable.dev/ignore: "{annotation}"' if annotation is not None else ""
    return f"""
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: {name}{note}
spec:
  selector:
  - matchExpressions:
    - {{key: {key}, operator: In, values: [{value}]}}
  resources:
  - {{name: cpu, percent: {cpu}}}
  - {{name: memory, percent: 90}}
"""


def _codes(findings: list[dict[str, object]]) -> list[str]:
    return sorted(str(f["code"]) for f in findings)


def test_parse_reasons_with_commas_several_codes_and_shared_reasons() -> None:
    assert parse("AL203: batch-only pool, measured p99 cpu use 8%") == [
        ("AL203", "batch-only pool, measured p99 cpu use 8%", "AL203: batch-only pool, measured p99 cpu use 8%")
    ]
    assert [(c, r) for c, r, _ in parse("AL203: a, b,AL204: c")] == [("AL203", "a, b"), ("AL204", "c")]
    assert [(c, r) for c, r, _ in parse("AL203, AL204: one reason")] == [
        ("AL203", "one reason"),
        ("AL204", "one reason"),
    ]
    assert [(c, r) for c, r, _ in parse("AL203")] == [("AL203", None)]
    assert [(c, r) for c, r, _ in parse("AL203:   ")] == [("AL203", None)]
    assert [(c, r) for c, r, _ in parse("al203: lower case")] == [("AL203", "lower case")]
    assert [(c, r) for c, r, _ in parse("ceiling: batch")] == [("ceiling: batch", None)]


def test_suppression_with_reason_silences_only_its_code(tmp_path: Path) -> None:
    write_repo(
        tmp_path / "policies",
        {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class("batch", "AL203: batch-only pool")},
    )
    res, findings = lint_json(tmp_path)
    assert _codes(findings) == ["AL204", "AL209"]
    assert res.exit_code == 1  # AL209 is an error and was not suppressed


def test_several_codes_in_one_annotation(tmp_path: Path) -> None:
    note = "AL203: batch-only pool, AL209: delivered by the CommitClass API, AL204: headroom intended"
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class("batch", note)})
    res, findings = lint_json(tmp_path)
    assert findings == []
    assert res.exit_code == 0


def test_shared_reason_for_a_list_of_codes(tmp_path: Path) -> None:
    note = "AL203, AL204, AL209: batch pool on a cluster with the CommitClass API"
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class("batch", note)})
    _, findings = lint_json(tmp_path)
    assert findings == []


def test_without_reason_is_a_finding_and_suppresses_nothing(tmp_path: Path) -> None:
    write_repo(
        tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class("batch", "AL203, AL209: why")}
    )
    _, findings = lint_json(tmp_path)
    assert _codes(findings) == ["AL204"]
    write_repo(tmp_path / "policies", {"cc.yaml": _class("batch", "AL203")})
    _, findings = lint_json(tmp_path)
    assert "AL203" in _codes(findings)
    (meta,) = [f for f in findings if f["code"] == "AL901"]
    assert meta["object"] == "CommitClass/batch"
    assert (meta["line"], meta["column"]) == (6, 29)


def test_unused_suppression_is_reported_at_the_annotation(tmp_path: Path) -> None:
    note = "AL203: batch-only pool, AL201: memory is fine"
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class("batch", note, cpu=300)})
    _, findings = lint_json(tmp_path)
    unused = [f for f in findings if f["code"] == "AL902"]
    assert sorted(str(f["message"]).split(" suppresses ")[1][:5] for f in unused) == ["AL201", "AL203"]
    assert all(f["severity"] == "warning" for f in unused)
    strict = lint_json(tmp_path, "--strict")[0]
    assert strict.exit_code == 1


def test_suppression_on_a_class_covers_the_conflict_reported_on_the_pool(tmp_path: Path) -> None:
    files = {
        **KOORDINATOR_ON,
        "pool.yaml": POOL,
        "a.yaml": _class("a", None, cpu=200),
        "b.yaml": _class("b", None, key="node.kubernetes.io/instance-type", value="c5.4xlarge", cpu=200),
    }
    write_repo(tmp_path / "policies", files)
    _, findings = lint_json(tmp_path)
    (conflict,) = [f for f in findings if f["code"] == "AL101"]
    assert conflict["object"] == "NodePool/batch"
    files["b.yaml"] = _class(
        "b",
        "AL101: replaces a, which is deleted next",
        key="node.kubernetes.io/instance-type",
        value="c5.4xlarge",
        cpu=200,
    )
    write_repo(tmp_path / "policies", files)
    _, findings = lint_json(tmp_path)
    assert "AL101" not in _codes(findings)
    assert "AL902" not in _codes(findings)


def test_suppression_on_a_pool(tmp_path: Path) -> None:
    pool = copy.deepcopy(POOL)
    pool["metadata"]["annotations"] = {"allocatable.dev/ignore": "AL101: merge in OPS-1"}
    files = {
        **KOORDINATOR_ON,
        "pool.yaml": pool,
        "a.yaml": _class("a", None, cpu=200),
        "b.yaml": _class("b", None, key="node.kubernetes.io/instance-type", value="c5.4xlarge", cpu=200),
    }
    write_repo(tmp_path / "policies", files)
    _, findings = lint_json(tmp_path)
    assert "AL101" not in _codes(findings) and "AL902" not in _codes(findings)
