"""InterPodAffinity's score for a pod's own preferred terms, as kube-scheduler computes it
(pkg/scheduler/framework/plugins/interpodaffinity/scoring.go; its scoring_test.go ``TestPreferredAffinity`` cases are
the test vectors in tests/impact/fixtures/interpodaffinity_score_cases.yaml).

PreScore: for each preferred term of the incoming pod (weight ``w``, negative for ``podAntiAffinity``) and each bound
pod the term selects (its namespaces and label selector) on a node carrying the term's topology key, ``w`` is added to
that key's value (the domain). Score: a node's raw score is the sum, over the keys, of its domain's total (a node
without the key gets nothing from it). NormalizeScore: min-max over the scored nodes, ``int(100 × (raw − min) /
(max − min))`` in floating point, all 0 when every raw score is equal.

Not here: the symmetric part (bound pods' preferred terms, and their required affinity terms with
``hardPodAffinityWeight`` 1, scoring the incoming pod when they select it), named in docs/impact.md.

Cost per scored pod: O(nodes holding pods a term selects) per term, from the counters ``podcounts.py`` keeps (made
once per distinct (namespaces, selector)), plus O(candidates).
"""

from __future__ import annotations

from collections.abc import Sequence

from renderer.impact.cluster import ClusterState
from renderer.impact.podcounts import PodCounts
from renderer.impact.pods import SimPod
from renderer.impact.scoring import MAX_NODE_SCORE

__all__ = ["interpod_raw", "min_max"]


def interpod_raw(pod: SimPod, state: ClusterState, counts: PodCounts, candidates: Sequence[int]) -> list[int]:
    """The raw InterPodAffinity score of each candidate node position for ``pod``'s preferred terms."""
    nodes, removed = state.nodes, state.removed
    topology: dict[str, dict[str, int]] = {}
    for weight, term in pod.pod_affinity.preferred:
        if term.selector is None:
            continue
        key = term.topology_key
        per_value = topology.setdefault(key, {})
        for i, n in counts.counter(term.namespaces, term.selector, state.pods).per_node.items():
            if removed[i]:
                continue
            value = nodes[i].labels.get(key)
            if value is not None:
                per_value[value] = per_value.get(value, 0) + weight * n
    out = []
    for i in candidates:
        labels = nodes[i].labels
        total = 0
        for key, per_value in topology.items():
            value = labels.get(key)
            if value is not None:
                total += per_value.get(value, 0)
        out.append(total)
    return out


def min_max(raw: Sequence[int]) -> list[int]:
    """NormalizeScore: ``raw`` scaled to 0..100 between its minimum and maximum (all 0 when they are equal)."""
    low, high = min(raw), max(raw)
    spread = high - low
    if spread <= 0:
        return [0] * len(raw)
    return [int(float(MAX_NODE_SCORE) * ((r - low) / spread)) for r in raw]
