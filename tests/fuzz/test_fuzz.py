"""Property-based fuzzing across the pipeline (issue: performance and robustness).

Examples per deep run (``ALLOCATABLE_FUZZ=deep``, as .ci/run sets; a plain pytest runs a tenth), on top of the
property tests in tests/capacity and tests/test_quantity.py: loader 3,000 + quantity 3,000 + formulas 2,000 +
selectors 1,500 + render 500 = 10,000.
Every property asks the same of its stage: no unexpected exception type, and outputs that stay valid.
"""

from __future__ import annotations

import json
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO_ROOT, examples
from renderer.capacity.formulas import FormulaError, MachineShape, compute
from renderer.capacity.pools import build
from renderer.capacity.selectors import Requirement, Term, selector_matches, unsatisfiable_reason
from renderer.loading.documents import parse_text
from renderer.pipeline import load
from renderer.platforms import formula_names
from renderer.quantity import Quantity, QuantityError
from renderer.render import engine
from renderer.reporters.findings.text import format_finding

FORMULA_NAMES = formula_names()

pytestmark = pytest.mark.slow


def fast(n: int) -> settings:
    return settings(max_examples=examples(n), deadline=None, suppress_health_check=[HealthCheck.too_slow])


VALID_POOL = """apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: web
spec:
  labels: {tier: web, zone: a}
  capacity: {cpu: "8", memory: 32Gi, pods: "110"}
  count: 3
---
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata: {name: burst}
spec:
  selector:
  - matchExpressions:
    - {key: tier, operator: In, values: [web]}
  resources:
  - {name: cpu, percent: 150}
"""
YAML_ALPHABET = st.sampled_from([*"abc:-{}[],'\"\n #&*!|>%@`\t0129.%", "---\n", "\n  ", ": ", "- "])


# --- loader ------------------------------------------------------------------------------------------------------


def _check_findings(findings: list[Any]) -> None:
    for f in findings:
        assert f.line >= 1 and f.column >= 1, f
        assert f.code.startswith("AL") and f.message
        assert "\n" not in format_finding(f)  # one finding, one line


@fast(1500)
@given(st.lists(YAML_ALPHABET, max_size=120).map("".join))
def test_parser_never_raises_on_garbage(text: str) -> None:
    docs, findings = parse_text(text, "x.yaml")
    assert not (docs and findings)
    _check_findings(findings)


@fast(1500)
@given(st.data())
def test_loader_survives_mutations_of_a_valid_repo(data: st.DataObject) -> None:
    """Delete, duplicate or replace a slice of a valid file: load reports located findings or objects, nothing else."""
    text = VALID_POOL
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start, min(len(text), start + 12)))
    insert = data.draw(st.lists(YAML_ALPHABET, max_size=4).map("".join))
    mutated = text[:start] + insert + text[end:]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "p.yaml").write_text(mutated, encoding="utf-8")
        result = load([Path(tmp)])
        result.finish(result.findings)
        _check_findings(result.findings)
        if result.ok:
            build(result.policies)  # whatever validates must also go through the capacity model


# --- quantity ----------------------------------------------------------------------------------------------------


@fast(3000)
@given(
    st.one_of(
        st.text(max_size=24),
        st.from_regex(r"[+-]?[0-9]{0,6}(\.[0-9]{0,4})?([eE][+-]?[0-9]{1,3}|[KMGTPE]i|[numkMGTPE])?", fullmatch=True),
    )
)
def test_quantity_parse_total(text: str) -> None:
    try:
        q = Quantity.parse(text)
    except QuantityError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert Quantity.parse(str(q)) == q


# --- formulas ----------------------------------------------------------------------------------------------------


@fast(2000)
@given(
    st.sampled_from(FORMULA_NAMES),
    st.decimals(min_value=Decimal("0.001"), max_value=Decimal(1024), places=3),
    st.integers(min_value=1, max_value=2**42),
    st.one_of(st.none(), st.integers(min_value=1, max_value=5000)),
)
def test_formulas_total_and_well_formed(formula: str, cpus: Decimal, memory: int, max_pods: int | None) -> None:
    try:
        result = compute(formula, MachineShape(cpus=cpus, memory_bytes=memory, max_pods=max_pods))
    except FormulaError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    for values in (result.system_reserved, result.kube_reserved):
        for value in values.values():
            assert not Quantity.parse(value).is_negative()
    assert result.fills in ("systemReserved", "kubeReserved")


# --- selectors ---------------------------------------------------------------------------------------------------

KEYS = st.sampled_from(["a", "b", "example.com/c"])
VALUES = st.sampled_from(["x", "y", "1", "7", "-3", "010", ""])
REQUIREMENTS = st.builds(
    Requirement,
    KEYS,
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    st.lists(VALUES, max_size=3).map(tuple),
)
TERMS = st.builds(Term, st.lists(REQUIREMENTS, max_size=4).map(tuple))


@fast(1500)
@given(st.lists(TERMS, max_size=3), st.dictionaries(KEYS, VALUES, max_size=3))
def test_selectors_total_and_unsatisfiable_terms_match_nothing(terms: list[Term], labels: dict[str, str]) -> None:
    matched = selector_matches(terms, labels, "node-1")
    if matched:
        assert any(unsatisfiable_reason(t) is None for t in terms)


# --- render ------------------------------------------------------------------------------------------------------

KUBELET_SCHEMA = json.loads((REPO_ROOT / "schemas" / "kubeletconfiguration.json").read_text(encoding="utf-8"))
LABEL_VALUES = st.sampled_from(["web", "batch", "a-b", "x.y", "1", "Z9"])
# Strings that try to break out of their place in the output.
NASTY = st.sampled_from(["a\nb: c", '"quoted"', "${HOME}", "{{ 7*7 }}", "---", "x: y", "#comment", "'"])


def _policy_repo(data: st.DataObject) -> dict[str, str]:
    tier = data.draw(LABEL_VALUES)
    cpu = data.draw(st.integers(1, 256))
    mem_gi = data.draw(st.integers(1, 2048))
    percent_cpu = data.draw(st.integers(100, 1000))
    percent_mem = data.draw(st.integers(100, 100))
    formula = data.draw(st.sampled_from([None, "eks", "gke", "aks", "aks-legacy"]))
    sys_mem = data.draw(st.integers(0, 512))
    evict = data.draw(st.sampled_from(["100Mi", "5%", "500Mi"]))
    note = data.draw(NASTY)
    overhead = data.draw(st.integers(1, 500))
    reservation = f"  autoSizing: {{formula: {formula}}}\n" if formula else ""
    return {
        "pool.yaml": json.dumps(
            {
                "apiVersion": "policy.allocatable.dev/v1alpha1",
                "kind": "NodePool",
                "metadata": {"name": "pool-a", "annotations": {"note": note}},
                "spec": {
                    "labels": {"tier": tier},
                    "capacity": {"cpu": str(cpu), "memory": f"{mem_gi}Gi"},
                    "count": 2,
                    "platform": "eks",
                },
            }
        ),
        "rp.yaml": (
            "apiVersion: policy.allocatable.dev/v1alpha1\nkind: ReservationPolicy\nmetadata: {name: rp}\nspec:\n"
            f"  selector:\n  - matchExpressions: [{{key: tier, operator: In, values: ['{tier}']}}]\n{reservation}"
            f"  systemReserved: {{memory: {sys_mem}Mi}}\n"
            f"  evictionHard: {{memory.available: '{evict}', nodefs.available: 10%}}\n"
            f"  kubelet: {{providerID: {json.dumps(note)}}}\n"
        ),
        "cc.yaml": (
            "apiVersion: node.k8s.io/v1alpha1\nkind: CommitClass\nmetadata: {name: cc}\nspec:\n"
            f"  selector:\n  - matchExpressions: [{{key: tier, operator: In, values: ['{tier}']}}]\n"
            f"  resources: [{{name: cpu, percent: {percent_cpu}}}, {{name: memory, percent: {percent_mem}}}]\n"
        ),
        "rc.yaml": (
            "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata-qemu\n"
            f"overhead: {{podFixed: {{cpu: {overhead}m, memory: 64Mi}}}}\nscheduling: {{nodeSelector: {{tier: '{tier}'}}}}\n"
        ),
    }


@fast(500)
@given(st.data())
def test_render_output_round_trips_and_stays_valid(data: st.DataObject) -> None:
    files = _policy_repo(data)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "policies"
        root.mkdir()
        for name, text in files.items():
            (root / name).write_text(text, encoding="utf-8")
        result = load([root])
        assert result.ok, [f.message for f in result.findings]
        rendered = engine.build(
            result, build(result.policies), ["kubelet", "runtimeclasses", "commitclasses", "kustomization"]
        )
        if not rendered.ok:
            return  # a policy the renderer refuses is reported as findings, never an exception
        assert rendered.files == engine.build(result, build(result.policies), rendered.targets).files  # stable
        out = Path(tmp) / "out"
        for rel, content in rendered.files.items():
            docs = [d for d in yaml.safe_load_all(content.decode("utf-8")) if d is not None]
            if rel.startswith("kubelet/"):
                for doc in docs:
                    jsonschema.validate(doc, KUBELET_SCHEMA)
                    assert doc["providerID"] == json.loads(files["rp.yaml"].split("providerID: ")[1].rstrip("}\n"))
            elif rel.startswith("manifests/"):
                target = out / rel
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
        if out.exists():
            again = load([out])  # RuntimeClass and CommitClass manifests go back through the loader unchanged
            assert again.ok, [f.message for f in again.findings]
            assert {c.name for c in again.policies.runtime_classes} == {"kata"}
            assert {c.name for c in again.policies.commit_classes} == {"cc"}
