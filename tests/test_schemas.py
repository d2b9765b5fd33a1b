from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from conftest import POLICIES, REPO_ROOT, run_cli
from renderer.pipeline import schemas as generate

SCHEMAS = REPO_ROOT / "schemas"
KIND_SCHEMA = {
    "CommitClass": "commitclass.json",
    "RuntimeClass": "runtimeclass.json",
    "NodePool": "nodepool.json",
    "ReservationPolicy": "reservationpolicy.json",
    "Settings": "settings.json",
}


def test_committed_schemas_are_current() -> None:
    generated = generate()
    for name, text in generated.items():
        assert (SCHEMAS / name).read_text(encoding="utf-8") == text, f"schemas/{name} is stale: run allocatable schema"
    assert run_cli("schema", "--check", "-o", str(SCHEMAS)).exit_code == 0


def test_schema_check_detects_drift(tmp_path: Path) -> None:
    assert run_cli("schema", "-o", str(tmp_path)).exit_code == 0
    (tmp_path / "nodepool.json").write_text("{}\n")
    res = run_cli("schema", "--check", "-o", str(tmp_path))
    assert res.exit_code == 1
    assert "nodepool.json: out of date" in res.stdout


def _policy_documents() -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in sorted([*POLICIES.rglob("*.yaml"), *POLICIES.rglob("*.yml")]):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") in KIND_SCHEMA:
                out.append((f"{path.relative_to(POLICIES)}:{doc['kind']}", doc))
    return out


@pytest.mark.parametrize(("where", "doc"), _policy_documents(), ids=lambda v: v if isinstance(v, str) else "")
def test_policies_valid_against_committed_schemas(where: str, doc: dict[str, Any]) -> None:
    schema = json.loads((SCHEMAS / KIND_SCHEMA[doc["kind"]]).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)


def test_every_kind_is_exercised_by_policies() -> None:
    kinds = {doc["kind"] for _, doc in _policy_documents()}
    assert kinds == set(KIND_SCHEMA)


def test_schema_rejects_what_the_model_rejects() -> None:
    schema = json.loads((SCHEMAS / "commitclass.json").read_text(encoding="utf-8"))
    bad = {
        "apiVersion": "node.k8s.io/v1alpha1",
        "kind": "CommitClass",
        "metadata": {"name": "x"},
        "spec": {
            "selector": [{"matchExpressions": [{"key": "a", "operator": "In", "values": ["b"]}], "operator": "In"}]
        },
    }
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(bad))
    assert errors
