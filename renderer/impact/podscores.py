"""The scores that look at the pods around a node, for pods that ask for them: InterPodAffinity for a pod's own
preferred terms and PodTopologySpread for its ``ScheduleAnyway`` constraints, as kube-scheduler computes them
(pkg/scheduler/framework/plugins/interpodaffinity/scoring.go, podtopologyspread/scoring.go; their scoring_test.go
``TestPreferredAffinity`` and ``TestPodTopologySpreadScore`` cases are the test vectors in
tests/impact/fixtures/interpodaffinity_score_cases.yaml and podtopologyspread_score_cases.yaml).

InterPodAffinity:

PreScore: for each preferred term of the incoming pod (weight ``w``, negative for ``podAntiAffinity``) and each bound
pod the term selects (its namespaces and label selector) on a node carrying the term's topology key, ``w`` is added to
that key's value (the domain). Score: a node's raw score is the sum, over the keys, of its domain's total (a node
without the key gets nothing from it). NormalizeScore: min-max over the scored nodes, ``int(100 × (raw − min) /
(max − min))`` in floating point, all 0 when every raw score is equal.

PodTopologySpread, over the candidate (feasible) nodes: a candidate missing the key of any constraint is ignored
(scores 0, left out of the minimum and maximum); per constraint the domains are the key's values on the other
candidates and its weight ``log(domains + 2)`` (hostname: the candidates not ignored); a domain's count is the bound
pods of the pod's namespace its selector matches on every node of the cluster carrying all the keys, in a domain of
the candidates and passing the node inclusion policies (``nodeAffinityPolicy`` Honor: the pod's node affinity and
nodeSelector; ``nodeTaintsPolicy`` Honor: its tolerations); hostname counts the node's own pods. A candidate's raw
score is ``round(Σ count × weight + maxSkew − 1)``; NormalizeScore: ``100 × (max + min − raw) // max`` (fewer
matching pods score higher), all 100 when the maximum is 0. The scheduler's default constraints (zone maxSkew 5,
hostname maxSkew 3, for pods of a Service or controller without constraints of their own) are not simulated.

Not here: InterPodAffinity's symmetric part (bound pods' preferred terms, and their required affinity terms with
``hardPodAffinityWeight`` 1, scoring the incoming pod when they select it), named in docs/impact.md.

Cost per scored pod: O(nodes holding pods a term or constraint selects) per term or constraint, from the counters
``podcounts.py`` keeps (made once per distinct (namespaces, selector)), plus O(candidates × constraints).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from renderer.impact.cluster import ClusterState
from renderer.impact.podcounts import PodCounts
from renderer.impact.pods import SimPod
from renderer.impact.scoring import MAX_NODE_SCORE
from renderer.impact.taints import first_untolerated

__all__ = ["HOSTNAME", "interpod_raw", "min_max", "spread_scores"]

HOSTNAME = "kubernetes.io/hostname"


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


def spread_scores(pod: SimPod, state: ClusterState, counts: PodCounts, candidates: Sequence[int]) -> list[int]:
    """PodTopologySpread's normalised score of each candidate for ``pod``'s ``ScheduleAnyway`` constraints."""
    constraints = pod.soft_spread
    nodes, removed = state.nodes, state.removed
    keys = {c.topology_key for c in constraints}
    ignored = [not keys.issubset(nodes[i].labels) for i in candidates]
    scored = len(candidates) - sum(ignored)
    domains: list[dict[str, int]] = []
    weights: list[float] = []
    on_node: list[dict[int, int]] = []
    tolerations = pod.scheduling_tolerations()
    for c in constraints:
        key = c.topology_key
        per_node = (
            {} if c.selector is None else counts.counter(frozenset((pod.namespace,)), c.selector, state.pods).per_node
        )
        on_node.append(per_node)
        found: dict[str, int] = {}
        if key != HOSTNAME:
            for i, skip in zip(candidates, ignored, strict=True):
                if not skip:
                    found.setdefault(nodes[i].labels[key], 0)
            for i, n in per_node.items():
                labels = nodes[i].labels
                value = labels.get(key)
                if removed[i] or value not in found or not keys.issubset(labels):
                    continue
                if c.honor_affinity and not pod.affinity.matches(labels, nodes[i].name):
                    continue
                if c.honor_taints and first_untolerated(nodes[i].taints, tolerations) is not None:
                    continue
                found[value] += n
        domains.append(found)
        weights.append(math.log((scored if key == HOSTNAME else len(found)) + 2))
    raw: list[int] = []
    for i, skip in zip(candidates, ignored, strict=True):
        if skip:
            raw.append(-1)
            continue
        total = 0.0
        labels = nodes[i].labels
        for c, found, weight, per_node in zip(constraints, domains, weights, on_node, strict=True):
            key = c.topology_key
            n = per_node.get(i, 0) if key == HOSTNAME else found[labels[key]]
            total += n * weight + (c.max_skew - 1)
        raw.append(math.floor(total + 0.5))  # Go's math.Round: half away from zero (the total is not negative)
    valid = [r for r in raw if r >= 0]
    low, high = (min(valid), max(valid)) if valid else (0, 0)
    out = []
    for r in raw:
        if r < 0:
            out.append(0)
        elif high == 0:
            out.append(MAX_NODE_SCORE)
        else:
            out.append(MAX_NODE_SCORE * (high + low - r) // high)
    return out
