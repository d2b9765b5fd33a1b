"""AL103's candidate search: equal to comparing every pair, without comparing every pair."""

from __future__ import annotations

import random
from typing import Any

import pytest

import renderer.lint.selectorchecks as sc
from renderer.capacity.selectors import Term
from renderer.models.schema.common import NodeSelectorTerm
from support.overlap import Loaded, Meta, Model, Spec, brute_force


def _policy(name: str, terms: list[list[dict[str, Any]]]) -> Loaded:
    selector = [NodeSelectorTerm.model_validate({"matchExpressions": t}) for t in terms]
    return Loaded(Model(Meta(name), Spec(selector)), ref=f"CommitClass/{name}")


def _random_term(rng: random.Random) -> list[dict[str, Any]]:
    out = []
    for key in rng.sample(["a", "b", "c", "d"], rng.randint(1, 3)):
        op = rng.choice(["In", "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"])
        if op in ("In", "NotIn"):
            out.append({"key": key, "operator": op, "values": rng.sample(["x", "y", "z", "1", "5"], rng.randint(1, 2))})
        elif op in ("Gt", "Lt"):
            out.append({"key": key, "operator": op, "values": [str(rng.randint(0, 6))]})
        else:
            out.append({"key": key, "operator": op})
    return out


@pytest.mark.parametrize("seed", range(25))
def test_candidates_find_exactly_what_all_pairs_find(seed: int) -> None:
    rng = random.Random(seed)
    policies = [_policy(f"p{i}", [_random_term(rng) for _ in range(rng.randint(1, 2))]) for i in range(30)]
    got = {(o.first.ref, o.second.ref) for o in sc.overlapping_pairs(policies, set())}  # type: ignore[arg-type]
    assert got == brute_force(policies)


def test_distinct_values_on_a_shared_key_cost_no_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real = sc.overlap_witness

    def counting(a: Term, b: Term) -> dict[str, str] | None:
        nonlocal calls
        calls += 1
        return real(a, b)

    monkeypatch.setattr(sc, "overlap_witness", counting)
    common = [
        {"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]},
        {"key": "kubernetes.io/arch", "operator": "NotIn", "values": ["arm64"]},
    ]
    policies = [
        _policy(f"c{i}", [[{"key": "example.com/tier", "operator": "In", "values": [f"t{i}"]}, *common]])
        for i in range(1500)
    ]
    assert list(sc.overlapping_pairs(policies, set())) == []  # type: ignore[arg-type]
    assert calls == 0
    # One class keyed on another label that shares a value with one tier: exactly one comparison, one overlap.
    policies.append(
        _policy(
            "ops",
            [
                [
                    {"key": "example.com/tier", "operator": "In", "values": ["t7", "gpu"]},
                    {"key": "owner", "operator": "In", "values": ["ops"]},
                ]
            ],
        )
    )
    found = list(sc.overlapping_pairs(policies, set()))  # type: ignore[arg-type]
    assert [(o.first.ref, o.second.ref) for o in found] == [("CommitClass/c7", "CommitClass/ops")]
    assert calls == 1


def _ranged_term(rng: random.Random) -> list[dict[str, Any]]:
    """Terms that mostly bound integer labels (two keys, Gt and Lt), sometimes with an In on a shared key."""
    out: list[dict[str, Any]] = []
    if rng.random() < 0.7:
        out.append({"key": "team", "operator": "In", "values": rng.sample(["a", "b"], rng.randint(1, 2))})
    for key in rng.sample(["slot", "cpu"], rng.randint(1, 2)):
        low = rng.randint(0, 20)
        if rng.random() < 0.8:
            out.append({"key": key, "operator": "Gt", "values": [str(low)]})
        if rng.random() < 0.8:
            out.append({"key": key, "operator": "Lt", "values": [str(low + rng.randint(0, 6))]})
    if not out:
        out.append({"key": "slot", "operator": "Exists"})
    return out


@pytest.mark.parametrize("seed", range(25))
def test_range_buckets_find_exactly_what_all_pairs_find(seed: int) -> None:
    rng = random.Random(1000 + seed)
    policies = [_policy(f"p{i}", [_ranged_term(rng) for _ in range(rng.randint(1, 3))]) for i in range(30)]
    got = {(o.first.ref, o.second.ref) for o in sc.overlapping_pairs(policies, set())}  # type: ignore[arg-type]
    assert got == brute_force(policies)


def test_disjoint_ranges_cost_no_comparison(monkeypatch: pytest.MonkeyPatch) -> None:
    """2,000 classes on one team, each covering its own range of a slot label (3 terms each): no candidate."""
    calls = 0
    real = sc.overlap_witness

    def counting(a: Term, b: Term) -> dict[str, str] | None:
        nonlocal calls
        calls += 1
        return real(a, b)

    monkeypatch.setattr(sc, "overlap_witness", counting)

    def ranged(i: int, extra: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {"key": "example.com/team", "operator": "In", "values": ["data"]},
            {"key": "example.com/slot", "operator": "Gt", "values": [str(1000 + 10 * i - 1)]},
            {"key": "example.com/slot", "operator": "Lt", "values": [str(1000 + 10 * i + 10)]},
            extra,
        ]

    cpu = "karpenter.k8s.aws/instance-cpu"
    policies = [
        _policy(
            f"c{i}",
            [
                ranged(i, {"key": cpu, "operator": "Lt", "values": ["17"]}),
                ranged(i, {"key": cpu, "operator": "Gt", "values": ["16"]}),
                ranged(i, {"key": "example.com/gen", "operator": "Gt", "values": ["5"]}),
            ],
        )
        for i in range(2000)
    ]
    assert list(sc.overlapping_pairs(policies, set())) == []  # type: ignore[arg-type]
    assert calls == 0
    # A class whose range straddles two others overlaps exactly those two.
    wide = [
        {"key": "example.com/team", "operator": "In", "values": ["data"]},
        {"key": "example.com/slot", "operator": "Gt", "values": ["1004"]},
        {"key": "example.com/slot", "operator": "Lt", "values": ["1015"]},
    ]
    policies.append(_policy("wide", [wide]))
    found = {(o.first.ref, o.second.ref) for o in sc.overlapping_pairs(policies, set())}  # type: ignore[arg-type]
    assert found == {("CommitClass/c0", "CommitClass/wide"), ("CommitClass/c1", "CommitClass/wide")}
