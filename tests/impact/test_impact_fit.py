"""NodeResourcesFit against the kube-scheduler's own test tables (fixtures/fit_cases.yaml: TestEnoughRequests,
TestNotEnoughRequests, TestStorageRequests and TestRestartableInitContainers of
pkg/scheduler/framework/plugins/noderesources/fit_test.go, each case citing its file and commit)."""

from __future__ import annotations

from typing import Any

import pytest
from impact_vectors import case_id, load, pod_object

from renderer.impact.fit import FitArgs, fits, insufficient
from renderer.impact.pods import pod_from_object
from renderer.impact.resources import add_into, from_quantities
from renderer.quantity import Quantity

DATA = load("fit_cases.yaml")
# Cases for clusters with the SidecarContainers gate off (before 1.29) are left out: the simulation models a cluster
# where sidecars are on (GA in 1.33), as PodRequests does.
SIDECAR_ON = [c for c in DATA["sidecar_fit_cases"] if c["feature_gates"]["SidecarContainers"]]


def _node(case: dict[str, Any]) -> tuple[dict[str, int], dict[str, int], int]:
    allocatable = from_quantities(
        {k: Quantity.parse(str(v)) for k, v in case["node_allocatable"].items()}, keep_zero=True
    )
    used: dict[str, int] = {}
    for i, p in enumerate(case["existing_pods"]):
        add_into(used, pod_from_object(pod_object(p, f"existing-{i}", node="node")).requests)
    return allocatable, used, len(case["existing_pods"])


def _args(case: dict[str, Any]) -> FitArgs:
    args = case.get("plugin_args") or {}
    return FitArgs(frozenset(args.get("ignoredResources", ())), frozenset(args.get("ignoredResourceGroups", ())))


@pytest.mark.parametrize("case", DATA["fit_cases"] + SIDECAR_ON, ids=case_id)
def test_fit_matches_the_scheduler(case: dict[str, Any]) -> None:
    allocatable, used, count = _node(case)
    pod = pod_from_object(pod_object(case["pod"]))
    got = insufficient(pod.requests, allocatable, used, count, _args(case))
    expect = case["expect"]
    assert fits(pod.requests, allocatable, used, count, _args(case)) is expect["fits"]
    assert (not got) is expect["fits"]
    if "insufficient" in expect:
        want = [(i["resource"], i["requested"], i["used"], i["capacity"]) for i in expect["insufficient"]]
        assert [(i.resource, i.requested, i.used, i.allocatable) for i in got] == want
        unresolvable = [i["unresolvable_in_newer_versions"] for i in expect["insufficient"]]
        assert [i.unresolvable for i in got] == unresolvable
    if "reasons" in expect:
        assert [i.reason for i in got] == expect["reasons"]
    if "pod_request" in expect:
        for name, value in expect["pod_request"].items():
            assert pod.requests[name] == Quantity.parse(value).milli_value()


@pytest.mark.parametrize("case", DATA["pod_request_cases"], ids=case_id)
def test_pod_requests_match_component_helpers(case: dict[str, Any]) -> None:
    """component-helpers resource/helpers_test.go: the request formula (sidecars, init max, overhead, pod-level)."""
    options = case.get("options") or {}
    vector = dict(case["pod"])
    if options.get("ExcludeOverhead"):
        vector.pop("overhead", None)  # the option drops the overhead; the simulation always counts it
    pod = pod_from_object(pod_object(vector))
    want = from_quantities({k: Quantity.parse(str(v)) for k, v in case["expect_requests"].items()})
    assert pod.requests == want


def test_the_vectors_are_all_there() -> None:
    assert len(DATA["fit_cases"]) == 50
    assert len(SIDECAR_ON) == 4
    assert len(DATA["pod_request_cases"]) == 15
