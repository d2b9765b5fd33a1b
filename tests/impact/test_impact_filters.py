"""NodeAffinity, TaintToleration and NodeUnschedulable against upstream test tables:
fixtures/nodeaffinity_cases.yaml (component-helpers nodeaffinity_test.go TestPodMatchesNodeSelectorAndAffinityTerms),
fixtures/tainttoleration_cases.yaml (taint_toleration_test.go TestTaintTolerationFilter/Score, k8s.io/api
toleration_test.go TestTolerationToleratesTaint), fixtures/nodeunschedulable_cases.yaml (node_unschedulable_test.go
TestNodeUnschedulable; cases marked ``source: derived`` are worked out from the rule, not copied)."""

from __future__ import annotations

from typing import Any

import pytest
from impact_vectors import case_id, load

from renderer.impact.affinity import parse_node_affinity, preferred_score, without_name_pin
from renderer.impact.taints import (
    DAEMONSET_TOLERATIONS,
    Taint,
    Toleration,
    daemonset_tolerations,
    first_untolerated,
    parse_taints,
    parse_tolerations,
    prefer_no_schedule_count,
    taint_scores,
    tolerates,
    tolerates_unschedulable,
)

AFFINITY = load("nodeaffinity_cases.yaml")["cases"]
TAINTS = load("tainttoleration_cases.yaml")
UNSCHEDULABLE = load("nodeunschedulable_cases.yaml")["cases"]


@pytest.mark.parametrize("case", AFFINITY, ids=case_id)
def test_node_affinity_matches_component_helpers(case: dict[str, Any]) -> None:
    affinity = parse_node_affinity(case["pod"])
    node = case["node"]
    assert affinity.matches(node.get("labels") or {}, node.get("name") or "") is case["expect_match"]


def _taint(raw: dict[str, Any]) -> Taint:
    return parse_taints([raw])[0]


def _toleration(raw: dict[str, Any]) -> Toleration:
    return parse_tolerations([raw])[0]


@pytest.mark.parametrize("case", TAINTS["toleration_cases"], ids=case_id)
def test_toleration_rule_matches_k8s_api(case: dict[str, Any]) -> None:
    assert tolerates(_toleration(case["toleration"]), _taint(case["taint"])) is case["expect_tolerated"]


@pytest.mark.parametrize("case", TAINTS["filter_cases"], ids=case_id)
def test_taint_filter_matches_the_plugin(case: dict[str, Any]) -> None:
    failed = first_untolerated(parse_taints(case["node_taints"]), parse_tolerations(case["pod_tolerations"]))
    assert (failed is None) is case["expect_fits"]
    if failed is not None:
        assert f"node(s) had untolerated taint {failed}" == case["expect_reason"]


@pytest.mark.parametrize("case", TAINTS["score_cases"], ids=case_id)
def test_taint_score_matches_the_plugin(case: dict[str, Any]) -> None:
    tolerations = parse_tolerations(case["pod_tolerations"])
    counts = {n["name"]: prefer_no_schedule_count(parse_taints(n["taints"]), tolerations) for n in case["nodes"]}
    assert taint_scores(counts) == case["expect_normalized_scores"]


@pytest.mark.parametrize("case", UNSCHEDULABLE, ids=case_id)
def test_node_unschedulable_matches_the_plugin(case: dict[str, Any]) -> None:
    tolerations = parse_tolerations(case["pod_tolerations"])
    fits = not case["node_unschedulable"] or tolerates_unschedulable(tolerations)
    assert fits is case["expect_fits"]


def test_daemonset_pods_tolerate_cordon_and_conditions_but_not_custom_taints() -> None:
    # daemonset_util.go AddOrUpdateDaemonPodTolerations: six tolerations, a seventh with hostNetwork.
    assert len(daemonset_tolerations((), host_network=False)) == 6
    with_host = daemonset_tolerations((), host_network=True)
    assert Toleration("node.kubernetes.io/network-unavailable", "Exists", "", "NoSchedule") in with_host
    assert tolerates_unschedulable(DAEMONSET_TOLERATIONS)
    assert first_untolerated((Taint("dedicated", "gpu", "NoSchedule"),), DAEMONSET_TOLERATIONS) == Taint(
        "dedicated", "gpu", "NoSchedule"
    )
    own = (Toleration("dedicated", "Equal", "gpu", "NoSchedule"),)
    assert first_untolerated((Taint("dedicated", "gpu", "NoSchedule"),), daemonset_tolerations(own, False)) is None


def test_daemonset_name_pin_is_removed() -> None:
    # The controller replaces every term's matchFields with metadata.name In [node]; without the pin, a template with
    # no node affinity of its own has none, and one with expressions keeps them.
    pinned_only = parse_node_affinity(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}
                        ]
                    }
                }
            }
        }
    )
    assert pinned_only.matches({}, "n1") and not pinned_only.matches({}, "n2")
    assert not without_name_pin(pinned_only).constrains
    with_expr = parse_node_affinity(
        {
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [{"key": "gpu", "operator": "Exists"}],
                                "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}],
                            }
                        ]
                    }
                }
            }
        }
    )
    template = without_name_pin(with_expr)
    assert template.matches({"gpu": "a100"}, "n2") and not template.matches({}, "n2")


def test_preferred_terms_sum_their_weights() -> None:
    # Two preferred terms, weights 3 and 5: a node matching both scores 8, one matching the second 5.
    affinity = parse_node_affinity(
        {
            "affinity": {
                "nodeAffinity": {
                    "preferredDuringSchedulingIgnoredDuringExecution": [
                        {"weight": 3, "preference": {"matchExpressions": [{"key": "a", "operator": "Exists"}]}},
                        {"weight": 5, "preference": {"matchExpressions": [{"key": "b", "operator": "Exists"}]}},
                    ]
                }
            }
        }
    )
    assert not affinity.constrains
    assert preferred_score(affinity, {"a": "", "b": ""}, "n") == 8
    assert preferred_score(affinity, {"b": "x"}, "n") == 5
    assert preferred_score(affinity, {}, "n") == 0
