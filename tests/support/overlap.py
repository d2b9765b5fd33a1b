"""Just enough of ``validation.Loaded`` for AL103's overlap search (``renderer.lint.selectorchecks.overlapping_pairs``),
and the search's reference answer: every two policies compared (tests/rules/test_lint_overlap.py,
tests/rules/test_selector_cost.py, tests/fuzz/test_doors_fuzz.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from renderer.capacity.selectors import Requirement, Term, overlap_witness, unsatisfiable_reason
from renderer.models.schema.common import NodeSelectorTerm


@dataclass
class Meta:
    name: str


@dataclass
class Spec:
    selector: list[NodeSelectorTerm]


@dataclass
class Model:
    metadata: Meta
    spec: Spec


@dataclass
class Loaded:
    """Just enough of validation.Loaded for overlapping_pairs."""

    model: Model
    ref: str = ""
    source: Any = None
    extra: dict[str, Any] = field(default_factory=dict)


def loaded_policies(selectors: list[list[list[dict[str, Any]]]]) -> list[Loaded]:
    """CommitClasses ``p0``, ``p1``, ... selecting with the given terms (each term a list of matchExpressions)."""
    out = []
    for i, selector in enumerate(selectors):
        terms = [NodeSelectorTerm.model_validate({"matchExpressions": t}) for t in selector]
        out.append(Loaded(Model(Meta(f"p{i}"), Spec(terms)), ref=f"CommitClass/p{i}"))
    return out


def brute_force(loaded: list[Loaded]) -> set[tuple[str, str]]:
    """The refs of every two policies that can select one node, found by comparing every two terms."""
    found = set()
    for i, a in enumerate(loaded):
        for b in loaded[i + 1 :]:
            ta = [
                Term(tuple(Requirement(e.key, e.operator, tuple(e.values or ())) for e in t.matchExpressions or ()))
                for t in a.model.spec.selector
            ]
            tb = [
                Term(tuple(Requirement(e.key, e.operator, tuple(e.values or ())) for e in t.matchExpressions or ()))
                for t in b.model.spec.selector
            ]
            if any(
                unsatisfiable_reason(x) is None
                and unsatisfiable_reason(y) is None
                and overlap_witness(x, y) is not None
                for x in ta
                for y in tb
            ):
                found.add((a.ref, b.ref))
    return found
