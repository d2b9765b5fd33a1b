"""How the default scheduler ranks feasible nodes, and how many it looks at.

Score plugins of the default profile and their weights (kubernetes/kubernetes
pkg/scheduler/apis/config/v1/default_plugins.go): TaintToleration 3, NodeAffinity 2, PodTopologySpread 2,
InterPodAffinity 2, NodeResourcesFit 1, NodeResourcesBalancedAllocation 1, ImageLocality 1. The simulation computes
the four that depend on what it models (TaintToleration, NodeAffinity, NodeResourcesFit, BalancedAllocation); the
others are not simulated. The highest total wins; the scheduler breaks ties at random, the simulation by node order.

NodeResourcesFit, strategy ``LeastAllocated`` (the default) or ``MostAllocated``, int64 arithmetic throughout
(plugins/noderesources least_allocated.go, most_allocated.go, resource_allocation.go; vectors in
tests/impact/fixtures/least_allocated_cases.yaml):

- per resource, with ``requested`` = the scoring requests of the node's pods + the pod's (100m/200Mi for a container
  without a request): LeastAllocated ``(allocatable - requested) * 100 / allocatable``, 0 when requested exceeds it;
  MostAllocated ``requested * 100 / allocatable`` with requested capped at allocatable;
- a resource the node does not advertise (allocatable 0) is skipped, and so is an extended resource the pod does
  not request; node score ``Σ score × weight / Σ weight`` (0 when nothing is left).

BalancedAllocation (balanced_allocation.go ``balancedResourceScorer``): with the pods' *actual* requests, the fraction
``requested / allocatable`` per resource (capped at 1, skipped when allocatable is 0); two fractions give
``std = |f1 - f2| / 2``, more the population standard deviation; score ``int64((1 - std) * 100)``.

How many nodes are scored (pkg/scheduler/schedule_one.go ``numFeasibleNodesToFind``): all of them below 100 nodes;
else ``percentageOfNodesToScore`` percent (0 = adaptive: ``50 - nodes/125``, at least 5), at least 100. The search for
feasible nodes stops once that many are found and the next pod's search starts after the last node examined.

Cost: O(resources) per (pod, node).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Final, Literal

from renderer.impact.resources import CPU, MEMORY, is_scalar

__all__ = [
    "DEFAULT_RESOURCES",
    "PLUGIN_WEIGHTS",
    "balanced_allocation",
    "least_allocated",
    "most_allocated",
    "num_feasible_nodes_to_find",
    "resource_score",
]

MAX_NODE_SCORE: Final = 100
MIN_FEASIBLE_NODES: Final = 100
MIN_FEASIBLE_PERCENT: Final = 5
#: The default profile's score plugin weights (the ones the simulation computes).
PLUGIN_WEIGHTS: Final[dict[str, int]] = {
    "TaintToleration": 3,
    "NodeAffinity": 2,
    "NodeResourcesFit": 1,
    "NodeResourcesBalancedAllocation": 1,
    "InterPodAffinity": 2,
    "PodTopologySpread": 2,
}
DEFAULT_RESOURCES: Final[tuple[tuple[str, int], ...]] = ((CPU, 1), (MEMORY, 1))
Strategy = Literal["LeastAllocated", "MostAllocated"]


def least_allocated(requested: int, allocatable: int) -> int:
    """One resource's LeastAllocated score."""
    if allocatable == 0 or requested > allocatable:
        return 0
    return (allocatable - requested) * MAX_NODE_SCORE // allocatable


def most_allocated(requested: int, allocatable: int) -> int:
    """One resource's MostAllocated score."""
    if allocatable == 0:
        return 0
    return min(requested, allocatable) * MAX_NODE_SCORE // allocatable


def resource_score(
    allocatable: Mapping[str, int],
    requested: Mapping[str, int],
    pod_requests: Mapping[str, int],
    resources: Sequence[tuple[str, int]] = DEFAULT_RESOURCES,
    strategy: Strategy = "LeastAllocated",
) -> int:
    """The NodeResourcesFit score of a node: ``requested`` already includes the incoming pod; ``pod_requests`` tells
    which extended resources it asks for."""
    per = least_allocated if strategy == "LeastAllocated" else most_allocated
    total = weights = 0
    for name, weight in resources:
        if is_scalar(name) and not pod_requests.get(name, 0):
            continue
        alloc = allocatable.get(name, 0)
        if alloc == 0:
            continue
        total += per(requested.get(name, 0), alloc) * weight
        weights += weight
    return total // weights if weights else 0


def balanced_allocation(fractions: Sequence[float]) -> int:
    """The BalancedAllocation score from the per-resource fractions (already capped at 1)."""
    if len(fractions) == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif len(fractions) > 2:
        mean = sum(fractions) / len(fractions)
        std = math.sqrt(sum((f - mean) * (f - mean) for f in fractions) / len(fractions))
    else:
        std = 0.0
    return int((1 - std) * MAX_NODE_SCORE)


def fraction(requested: int, allocatable: int) -> float:
    """``requested / allocatable`` as float64, capped at 1."""
    f = requested / allocatable
    return 1.0 if f > 1 else f


def num_feasible_nodes_to_find(nodes: int, percentage: int = 0) -> int:
    """How many feasible nodes the scheduler collects before it scores (see the module docstring)."""
    if nodes < MIN_FEASIBLE_NODES or percentage >= 100:
        return nodes
    if percentage <= 0:
        percentage = max(50 - nodes // 125, MIN_FEASIBLE_PERCENT)
    return max(nodes * percentage // 100, MIN_FEASIBLE_NODES)
