"""Issue 21, classes 6 and 7: what AL103's overlap search costs, held to a bound.

Each shape of ``bench/selector_shapes.py`` is a set of policies no two of which can select one node. Before, the
search built the product of In values (10^7 combinations for one CommitClass of seven In expressions of ten
values) or paired every two terms sharing a key (quadratic: 1,000 + 1,000 Exists/DoesNotExist classes took 14-18 s).
Here the search's own counters (``SearchStats``: term-key visits, pairs checked) must stay within a generous
multiple of n log n at two sizes, and the exact check is never called. Timing is measured in bench/ (shapes of the
same names), never asserted here.

The search must also stay exact: on random selectors mixing every operator, ``matchFields`` and ranges, it finds
exactly the pairs that comparing every two terms finds.
"""

from __future__ import annotations

import math
import random
from typing import Any

import pytest

import renderer.lint.selectorchecks as sc
from renderer.capacity.selectors import Term
from renderer.lint.overlapsearch import SearchStats
from support import module_at
from support.overlap import brute_force, loaded_policies

selector_shapes = module_at("bench/selector_shapes.py")


#: Work allowed per policy and per log2 of the count (the search does a few dozen term-key visits per policy and
#: level); pairs checked allowed per policy. Generous: a quadratic search exceeds them by orders of magnitude.
WORK_PER_N_LOG_N = 60
CHECKED_PER_N = 8


@pytest.mark.parametrize("shape", sorted(selector_shapes.SHAPES))
@pytest.mark.parametrize("n", [1000, 2000])
def test_a_shape_that_finds_nothing_costs_near_linear_work(shape: str, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    exact_calls = 0
    real = sc.overlap_witness

    def counting(a: Term, b: Term) -> dict[str, str] | None:
        nonlocal exact_calls
        exact_calls += 1
        return real(a, b)

    monkeypatch.setattr(sc, "overlap_witness", counting)
    policies = loaded_policies(selector_shapes.SHAPES[shape](n))
    stats = SearchStats()
    assert list(sc.overlapping_pairs(policies, set(), stats)) == []  # type: ignore[arg-type]
    bound = WORK_PER_N_LOG_N * n * math.log2(n)
    assert stats.work <= bound, (shape, n, stats)
    assert stats.checked <= CHECKED_PER_N * n, (shape, n, stats)
    assert stats.candidates == 0 and exact_calls == 0, (shape, n, stats)


def test_the_reported_class_with_seven_in_expressions_of_ten_values_is_cheap() -> None:
    """The reported CommitClass (and a second one sharing its six common keys): no product of values."""
    policies = loaded_policies(selector_shapes.in_product(2))
    stats = SearchStats()
    assert list(sc.overlapping_pairs(policies, set(), stats)) == []  # type: ignore[arg-type]
    assert stats.work < 200 and stats.checked <= 1, stats


def test_overlapping_copies_of_a_wide_class_are_found_once_without_a_product() -> None:
    """Two classes allowing the same 10 values on each of 7 keys overlap: 10^7 shared combinations, one finding,
    a handful of operations."""
    wide = selector_shapes.in_product(1)[0]
    policies = loaded_policies([wide, wide, selector_shapes.in_product(3)[2]])
    stats = SearchStats()
    found = list(sc.overlapping_pairs(policies, set(), stats))  # type: ignore[arg-type]
    assert [(o.first.ref, o.second.ref) for o in found] == [("CommitClass/p0", "CommitClass/p1")]
    assert stats.checked <= 3 and stats.work < 500, stats


# --- still exact -------------------------------------------------------------------------------------------------

_KEYS = ["a", "b", "c", "d", "e"]


def _random_expression(rng: random.Random, key: str) -> dict[str, Any]:
    op = rng.choice(["In", "In", "NotIn", "Exists", "DoesNotExist", "DoesNotExist", "Gt", "Lt"])
    if op in ("In", "NotIn"):
        return {"key": key, "operator": op, "values": rng.sample(["x", "y", "1", "3", "5", "7"], rng.randint(1, 3))}
    if op in ("Gt", "Lt"):
        return {"key": key, "operator": op, "values": [str(rng.randint(0, 8))]}
    return {"key": key, "operator": op}


def _random_selector(rng: random.Random) -> list[list[dict[str, Any]]]:
    terms = []
    for _ in range(rng.randint(1, 2)):
        keys = rng.sample(_KEYS, rng.randint(1, 4))
        terms.append([_random_expression(rng, k) for k in keys for _ in range(rng.choice((1, 1, 2)))])
    return terms


@pytest.mark.parametrize("seed", range(12))
def test_the_search_finds_exactly_what_comparing_all_pairs_finds(seed: int) -> None:
    rng = random.Random(seed)
    policies = loaded_policies([_random_selector(rng) for _ in range(rng.randint(40, 90))])
    got = {(o.first.ref, o.second.ref) for o in sc.overlapping_pairs(policies, set())}  # type: ignore[arg-type]
    assert got == brute_force(policies)


@pytest.mark.parametrize("seed", range(4))
def test_the_search_is_exact_on_large_sets_of_presence_only_terms(seed: int) -> None:
    """Exists/DoesNotExist on few keys: large tasks, split many times, against comparing all pairs."""
    rng = random.Random(seed)
    selectors = []
    for _ in range(150):
        keys = rng.sample(_KEYS, rng.randint(1, 5))
        selectors.append([[{"key": k, "operator": rng.choice(["Exists", "DoesNotExist"])} for k in keys]])
    policies = loaded_policies(selectors)
    got = {(o.first.ref, o.second.ref) for o in sc.overlapping_pairs(policies, set())}  # type: ignore[arg-type]
    assert got == brute_force(policies)
