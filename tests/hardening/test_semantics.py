"""Issue 21, classes 11 and 12: answers that were wrong without an error.

- 11: ``matchFields`` is the scheduler's: one field, ``metadata.name``, compared with a Node's name. A NodePool's node
  names are unknown, so such a term never selects a NodePool (it used to be matched against the pool's own name and
  applied to all its nodes) and AL108 says it cannot be evaluated; an exported Node is still matched by its name.
- 12: ``sizing`` refuses machines below its units (a fraction of a byte or of a millicore, a bare number that is
  bytes); ``verify`` says what is missing instead of "reported None" or "item 1 is a List".

The CLI runs in this process (``support.hardening.in_process``): these are bad-input checks (exit code, located
lines, no traceback, nothing written), which do not depend on running as a process of its own.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.hardening import REPO_ROOT, assert_no_crash, in_process, pool, shown, write

# Text: AL108 is expected at line 7 of it (the matchFields term), as the user wrote it.
_CLASS = """\
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: {name}
spec:
  selector:
    - {term}
  resources:
    - {{name: cpu, percent: 150}}
"""
_BY_NAME = "matchFields: [{{key: metadata.name, operator: {op}, values: [{value}]}}]"
_BY_LABEL = "matchExpressions: [{key: example.com/tier, operator: In, values: [general]}]"


def _lint_json(root: Path) -> list[dict[str, object]]:
    res = in_process("lint", "policies", "-o", "json", cwd=root)
    assert_no_crash(res)
    return json.loads(res.stdout)["findings"]  # type: ignore[no-any-return]


def _explain(root: Path) -> dict[str, object]:
    res = in_process("explain", "policies", "-o", "json", cwd=root)
    assert res.returncode == 0, shown(res)
    return json.loads(res.stdout)  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "term",
    [
        _BY_NAME.format(op="In", value="web"),
        _BY_NAME.format(op="NotIn", value="web"),
        _BY_NAME.format(op="NotIn", value="some-node"),
        "{" + _BY_LABEL + ", " + _BY_NAME.format(op="In", value="web") + "}",
        "{" + _BY_LABEL + ", " + _BY_NAME.format(op="NotIn", value="ip-10-0-0-1") + "}",
    ],
    ids=["in-pool-name", "notin-pool-name", "notin-other", "with-labels-in", "with-labels-notin"],
)
def test_match_fields_never_selects_a_nodepool(tmp_path: Path, term: str) -> None:
    write(
        tmp_path / "policies",
        {"pools/web.yaml": pool(name="web"), "classes/by-name.yaml": _CLASS.format(name="by-name", term=term)},
    )
    findings = _lint_json(tmp_path)
    assert [f["code"] for f in findings if f["code"] == "AL108"] == ["AL108"], findings
    al108 = next(f for f in findings if f["code"] == "AL108")
    assert al108["path"] == "policies/classes/by-name.yaml" and al108["line"] == 7, al108
    assert "it selects none of the 1 NodePool" in str(al108["message"])
    explained = json.dumps(_explain(tmp_path))
    assert "CommitClass/by-name" not in explained or '"commitClass": null' in explained


def test_match_fields_no_longer_makes_a_conflict_with_a_label_selector(tmp_path: Path) -> None:
    """Before: the class naming the pool and the class selecting its label both 'selected' it (AL101)."""
    write(
        tmp_path / "policies",
        {
            "pools/web.yaml": pool(name="web"),
            "classes/by-name.yaml": _CLASS.format(name="by-name", term=_BY_NAME.format(op="In", value="web")),
            "classes/by-label.yaml": _CLASS.format(name="by-label", term=_BY_LABEL),
        },
    )
    codes = [f["code"] for f in _lint_json(tmp_path)]
    assert "AL101" not in codes and "AL108" in codes, codes


def test_match_fields_still_selects_an_exported_node_by_its_name(tmp_path: Path) -> None:
    node = (REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text()
    name = "ip-172-31-40-111.us-east-2.compute.internal"
    write(
        tmp_path / "policies",
        {
            "inventory/node.yaml": node,
            "classes/by-name.yaml": _CLASS.format(name="by-name", term=_BY_NAME.format(op="In", value=name)),
        },
    )
    codes = [f["code"] for f in _lint_json(tmp_path)]
    assert "AL108" not in codes and "AL104" not in codes, codes


# --- class 12: sizing -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("memory", "cpus", "fragment"),
    [
        ("1n", "2", "is not a whole number of bytes (0.000000001 bytes)"),
        ("16", "2", "--memory 16 has no unit, so it is 16 bytes"),
        ("0.5", "2", "is not a whole number of bytes (0.5 bytes)"),
        ("1500m", "2", "is not a whole number of bytes (1.5 bytes)"),
        ("1000m", "2", "is 1 byte, less than a mebibyte"),
        ("1Ki", "2", "is 1024 bytes, less than a mebibyte"),
        ("16Gi", "0.0001", "is not a whole number of millicores"),
        ("16Gi", "2.0005", "is not a whole number of millicores"),
    ],
)
def test_sizing_refuses_a_machine_below_its_units(tmp_path: Path, memory: str, cpus: str, fragment: str) -> None:
    res = in_process("sizing", "--formula", "eks", "--memory", memory, "--cpus", cpus, cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2 and res.stdout == "", shown(res)
    assert res.stderr.count("\n") == 1 and fragment in res.stderr, shown(res)


@pytest.mark.parametrize(("memory", "cpus"), [("16Gi", "2"), ("1048576", "1"), ("1Mi", "0.25"), ("64G", "3.5")])
def test_sizing_takes_real_machines(tmp_path: Path, memory: str, cpus: str) -> None:
    res = in_process("sizing", "--formula", "eks", "--memory", memory, "--cpus", cpus, cwd=tmp_path)
    assert res.returncode == 0, shown(res)


# --- class 12: verify's messages ----------------------------------------------------------------------------------


def _node() -> dict[str, object]:
    import yaml

    return yaml.safe_load((REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text())  # type: ignore[no-any-return]


@pytest.mark.parametrize("fmt", ["text", "markdown", "github", "json"])
@pytest.mark.parametrize("missing", ["all", "cpu", "memory"])
def test_verify_says_what_a_node_does_not_report(tmp_path: Path, fmt: str, missing: str) -> None:
    write(tmp_path / "policies", {"pools/web.yaml": pool(name="web")})
    node = _node()
    status = node["status"]
    assert isinstance(status, dict)
    if missing == "all":
        del status["allocatable"]
    else:
        del status["allocatable"][missing]
    (tmp_path / "nodes.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [node]}))
    res = in_process("verify", "--nodes=nodes.json", "-o", fmt, "policies", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 1, shown(res)
    if fmt == "json":
        doc = json.loads(res.stdout)
        explained = [d["explanation"] for n in doc["nodes"] for d in n["differences"]]
        assert explained, doc
    else:
        assert "None" not in res.stdout, res.stdout
    want = (
        "the node has no status.allocatable" if missing == "all" else f"the node's status.allocatable has no {missing}"
    )
    assert want in res.stdout, shown(res)


@pytest.mark.parametrize(
    "dump",
    [
        {"apiVersion": "v1", "kind": "List", "items": None},
        {"apiVersion": "v1", "kind": "List"},
        {"apiVersion": "v1", "kind": "List", "items": {}},
        {"apiVersion": "v1", "kind": "List", "items": "nodes"},
        {"apiVersion": "v1", "kind": "List", "items": 0},
    ],
    ids=["null", "absent", "mapping", "string", "number"],
)
@pytest.mark.parametrize("option", ["--nodes", "--pods"])
def test_verify_says_a_list_has_no_items(tmp_path: Path, dump: dict[str, object], option: str) -> None:
    write(tmp_path / "policies", {"pools/web.yaml": pool(name="web")})
    (tmp_path / "node.yaml").write_text((REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text())
    (tmp_path / "dump.json").write_text(json.dumps(dump))
    extra = ["--nodes=node.yaml"] if option == "--pods" else []
    res = in_process("verify", *extra, f"{option}=dump.json", "policies", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    assert "is a List" not in res.stderr, shown(res)
    assert "the List has no items (items is missing or null)" in res.stderr or "items" in res.stderr, shown(res)
