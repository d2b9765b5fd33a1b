"""Pod requests as the scheduler counts them. Every expected value is copied from Kubernetes' own tests:
kubernetes/kubernetes@0085214e:staging/src/k8s.io/component-helpers/resource/helpers_test.go
(TestPodRequestsAndLimits, TestPodRequestsAndLimitsWithoutOverhead, TestPodResourceRequests)."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.quantity import Quantity
from renderer.verify.pods import PodError, pod_record, pod_requests

Q = Quantity.parse


def c(name: str, restart: str | None = None, **requests: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "resources": {"requests": {k.replace("_", "-"): v for k, v in requests.items()}},
    }
    if restart:
        out["restartPolicy"] = restart
    return out


CASES: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    # TestPodRequestsAndLimits
    ("just-overhead", {"containers": [c("a")], "overhead": {"cpu": "5", "memory": "5"}}, {"cpu": "5", "memory": "5"}),
    (
        "req-and-overhead",
        {"containers": [c("a", cpu="1", memory="10")], "overhead": {"cpu": "5", "memory": "5"}},
        {"cpu": "6", "memory": "15"},
    ),
    # TestPodResourceRequests
    (
        "nil options, larger init container",
        {"initContainers": [c("i", cpu="4")], "containers": [c("a", cpu="1")]},
        {"cpu": "4"},
    ),
    (
        "nil options, larger containers",
        {"initContainers": [c("i", cpu="2")], "containers": [c("a", cpu="2"), c("b", cpu="3")]},
        {"cpu": "5"},
    ),
    (
        "pod overhead included",
        {
            "overhead": {"cpu": "1", "memory": "1Gi"},
            "initContainers": [c("i", cpu="2")],
            "containers": [c("a", cpu="2"), c("b", cpu="3")],
        },
        {"cpu": "6", "memory": "1Gi"},
    ),
    (
        "restartable init container",
        {"initContainers": [c("restartable-init-1", "Always", cpu="1")], "containers": [c("container-1", cpu="1")]},
        {"cpu": "2"},
    ),
    (
        "multiple restartable init containers",  # max(5, restartable init containers(3+2+1) + regular(1)) = 7
        {
            "initContainers": [
                c("init-1", cpu="5"),
                c("restartable-init-1", "Always", cpu="1"),
                c("restartable-init-2", "Always", cpu="2"),
                c("restartable-init-3", "Always", cpu="3"),
            ],
            "containers": [c("container-1", cpu="1")],
        },
        {"cpu": "7"},
    ),
    (
        "multiple restartable and regular init containers",  # init-2: 5 + the sidecars started before it (1+2)
        {
            "initContainers": [
                c("init-1", cpu="5"),
                c("restartable-init-1", "Always", cpu="1"),
                c("restartable-init-2", "Always", cpu="2"),
                c("init-2", cpu="5"),
                c("restartable-init-3", "Always", cpu="3"),
            ],
            "containers": [c("container-1", cpu="1")],
        },
        {"cpu": "8"},
    ),
    (
        "restartable-init, init and regular",
        {
            "initContainers": [c("restartable-init-1", "Always", cpu="10"), c("init-1", cpu="200")],
            "containers": [c("container-1", cpu="100")],
        },
        {"cpu": "210"},
    ),
]


@pytest.mark.parametrize(("name", "spec", "expected"), CASES, ids=[n for n, _, _ in CASES])
def test_upstream_pod_requests(name: str, spec: dict[str, Any], expected: dict[str, str]) -> None:
    got = pod_requests(spec)
    assert {k: v for k, v in got.items() if not v.is_zero() or k in expected} == {k: Q(v) for k, v in expected.items()}


def test_two_containers_without_overhead() -> None:
    # TestPodRequestsAndLimitsWithoutOverhead, "two container no overhead - should just be sum of containers"
    got = pod_requests({"containers": [c("foobar", cpu="1", memory="5"), c("foobar2", cpu="4", memory="12")]})
    assert got == {"cpu": Q("5"), "memory": Q("17")}


def test_massive_init_container_wins() -> None:
    # TestPodRequestsAndLimitsWithoutOverhead, "two container with overhead, massive init - should just be the largest
    # init": 40 cpu, 120 memory with the overhead excluded (here: the same pod without spec.overhead)
    spec = {
        "containers": [c("foobar", cpu="1", memory="5"), c("foobar2", cpu="4", memory="12")],
        "initContainers": [c("small-init", cpu="1", memory="5"), c("big-init", cpu="40", memory="120")],
    }
    assert pod_requests(spec) == {"cpu": Q("40"), "memory": Q("120")}


def test_pod_level_requests_replace_the_aggregate() -> None:
    # PodRequests: pod-level requests (PodLevelResources) replace the containers' sum for cpu, memory, hugepages-*
    spec = {"resources": {"requests": {"cpu": "2", "memory": "1Gi"}}, "containers": [c("a", cpu="500m", memory="2Gi")]}
    assert pod_requests(spec) == {"cpu": Q("2"), "memory": Q("1Gi")}


def test_terminal_pods_hold_nothing() -> None:
    for phase, holds in (("Running", True), ("Pending", True), ("Succeeded", False), ("Failed", False)):
        rec = pod_record(
            {"metadata": {"name": "p"}, "spec": {"nodeName": "n", "containers": []}, "status": {"phase": phase}}
        )
        assert rec.holds_resources is holds
    unscheduled = pod_record({"metadata": {"name": "p"}, "spec": {"containers": []}, "status": {"phase": "Pending"}})
    assert not unscheduled.holds_resources


def test_unreadable_quantity_names_the_field() -> None:
    with pytest.raises(PodError, match=r"spec.containers\[0\].resources.requests.cpu"):
        pod_requests({"containers": [c("a", cpu="lots")]})


def test_non_missing_requests_fill_only_absent_container_requests() -> None:
    """``NonMissingContainerRequests`` (component-helpers PodResourcesOptions), worked by hand: a container without
    a cpu request counts the given 100m, one with an explicit ``0`` keeps 0; the init container without requests
    counts 100m too, and the init max rule then compares it with the containers' 100m + 0m = 100m."""
    spec = {
        "initContainers": [c("init")],
        "containers": [c("a", memory="1Gi"), c("b", cpu="0", memory="1Gi")],
    }
    got = pod_requests(spec, {"cpu": Q("100m"), "memory": Q("200Mi")})
    assert got == {"cpu": Q("100m"), "memory": Q("2Gi")}
    assert pod_requests(spec) == {"cpu": Q("0"), "memory": Q("2Gi")}
