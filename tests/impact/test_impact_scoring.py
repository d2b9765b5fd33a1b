"""Scoring against least_allocated_test.go / fit_test.go TestFitScore (fixtures/least_allocated_cases.yaml), and
hand-worked BalancedAllocation and numFeasibleNodesToFind cases."""

from __future__ import annotations

from typing import Any

import pytest
from impact_vectors import case_id, load, pod_object

from renderer.impact.pods import pod_from_object
from renderer.impact.resources import CPU, MEMORY, from_quantities
from renderer.impact.scoring import balanced_allocation, fraction, num_feasible_nodes_to_find, resource_score
from renderer.quantity import Quantity

CASES = [c for c in load("least_allocated_cases.yaml")["cases"] if c["strategy"] in ("LeastAllocated", "MostAllocated")]


def _scoring(vector: dict[str, Any]) -> dict[str, int]:
    """What scoring counts of a vector pod: the non-zero cpu/memory plus its extended requests."""
    pod = pod_from_object(pod_object(vector))
    out = {k: v for k, v in pod.requests.items() if k not in (CPU, MEMORY)}
    out[CPU], out[MEMORY] = pod.score_cpu, pod.score_memory
    return out


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_resource_score_matches_the_plugin(case: dict[str, Any]) -> None:
    pod = _scoring(case["pod"])
    resources = [(r["name"], r["weight"]) for r in case["resources"]]
    got = {}
    for node in case["nodes"]:
        allocatable = from_quantities({k: Quantity.parse(str(v)) for k, v in node["allocatable"].items()})
        requested = dict(pod)
        for existing in case["existing_pods"]:
            if existing["node"] == node["name"]:
                for name, value in _scoring(existing).items():
                    requested[name] = requested.get(name, 0) + value
        got[node["name"]] = resource_score(allocatable, requested, pod, resources, case["strategy"])
    assert got == case["expect_scores"]


def test_containers_without_requests_score_as_100m_and_200mi() -> None:
    # NonMissingContainerRequests: a container with no requests counts 100m / 200Mi; one with an explicit 0 cpu
    # counts 0 cpu but 200Mi memory; an init container without requests counts as well, so the init max rule sees
    # 100m against the sidecar-free containers' 100m + 0m = 100m: the pod scores 100m cpu, 400Mi memory.
    pod = pod_from_object(
        {
            "metadata": {"name": "p"},
            "spec": {
                "initContainers": [{"name": "init"}],
                "containers": [{"name": "a"}, {"name": "b", "resources": {"requests": {"cpu": "0"}}}],
            },
        }
    )
    assert pod.requests == {}
    assert (pod.score_cpu, pod.score_memory) == (100, 400 * 1024 * 1024)


def test_balanced_allocation_by_hand() -> None:
    # cpu 3000m of 4000m (0.75), memory 5000 of 10000 (0.5): std = |0.75 - 0.5| / 2 = 0.125, score int(87.5) = 87.
    assert balanced_allocation([fraction(3000, 4000), fraction(5000, 10000)]) == 87
    # Equal fractions are perfectly balanced; a fraction above 1 is capped: (1, 0) -> std 0.5 -> 50.
    assert balanced_allocation([0.3, 0.3]) == 100
    assert balanced_allocation([fraction(5000, 4000), 0.0]) == 50
    # Three resources: (0.2, 0.5, 0.8) mean 0.5, variance (0.09 + 0 + 0.09) / 3 = 0.06, std 0.2449.. -> 75.
    assert balanced_allocation([0.2, 0.5, 0.8]) == 75
    assert balanced_allocation([0.4]) == 100


@pytest.mark.parametrize(
    ("nodes", "percentage", "expected"),
    [
        (50, 0, 50),  # under 100 nodes every node is examined
        (99, 0, 99),
        (100, 0, 100),  # 50 - 100/125 = 50 %: 50 nodes, raised to the minimum of 100
        (1000, 0, 420),  # 50 - 8 = 42 %
        (5000, 0, 500),  # 50 - 40 = 10 %
        (20000, 0, 1000),  # 50 - 160 < 5: 5 %
        (1000, 30, 300),  # percentageOfNodesToScore: 30
        (1000, 100, 1000),
    ],
)
def test_num_feasible_nodes_to_find(nodes: int, percentage: int, expected: int) -> None:
    assert num_feasible_nodes_to_find(nodes, percentage) == expected
