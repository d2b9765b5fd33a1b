"""In-place pod resize: the requests the scheduler counts for a bound pod (``PodRequests`` with
``UseStatusResources``) and the kubelet's (its allocation read as the spec). Every expected value is copied from
Kubernetes' own tests, kubernetes/kubernetes@0085214e staging/src/k8s.io/component-helpers/resource/helpers_test.go,
the test and case named beside each; or worked by hand, the reasoning beside it.

``TestPodResourceRequests`` runs with ``InPlacePodLevelResourcesVerticalScalingEnabled`` off, so the pod-level
status its helper ``populatePodStatusResourcesForTest`` fills is not read there: those cases carry container
statuses only (which is what a pod without pod-level resources reports). The pod-level cases are
``TestPodRequestsAndLimitsVerticalScalingWrappers``, run with it on."""

from __future__ import annotations

from typing import Any

import pytest

from renderer.quantity import Quantity
from renderer.verify.pods import PodError, pod_requests
from renderer.verify.podstatus import (
    INFEASIBLE_EMPTY,
    LEGACY_RESIZE,
    NO_ALLOCATION,
    RESIZE_INFEASIBLE,
    UNKNOWN_REASON,
    resize_notes,
    status_is_plain,
)

Q = Quantity.parse
INFEASIBLE = [{"type": "PodResizePending", "status": "True", "reason": "Infeasible"}]


def c(name: str, restart: str | None = None, **requests: str) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": name,
        "resources": {"requests": {k.replace("_", "-"): v for k, v in requests.items()}},
    }
    if restart:
        out["restartPolicy"] = restart
    return out


def cs(name: str, allocated: dict[str, str] | None = None, actual: dict[str, str] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if allocated is not None:
        out["allocatedResources"] = allocated
    if actual is not None:
        out["resources"] = {"requests": actual}
    return out


#: (test, case) → (spec, status or None for UseStatusResources off, the requests expected)
CASES: dict[tuple[str, str], tuple[dict[str, Any], dict[str, Any] | None, dict[str, str]]] = {
    ("TestPodResourceRequests", "resized, infeasible"): (
        {"containers": [c("container-1", cpu="4")]},
        {"conditions": INFEASIBLE, "containerStatuses": [cs("container-1", actual={"cpu": "2"})]},
        {"cpu": "2"},
    ),
    ("TestPodResourceRequests", "resized, infeasible & in-progress"): (
        {"containers": [c("container-1", cpu="6")]},
        {"conditions": INFEASIBLE, "containerStatuses": [cs("container-1", {"cpu": "4"}, {"cpu": "2"})]},
        {"cpu": "4"},
    ),
    ("TestPodResourceRequests", "resized, no resize status"): (
        {"containers": [c("container-1", cpu="4")]},
        {"containerStatuses": [cs("container-1", actual={"cpu": "2"})]},
        {"cpu": "4"},
    ),
    ("TestPodResourceRequests", "resized: per-resource 3-way maximum"): (
        {"containers": [c("container-1", cpu="30m", memory="20M", ephemeral_storage="10G")]},
        {
            "containerStatuses": [
                cs(
                    "container-1",
                    {"cpu": "20m", "memory": "10M", "ephemeral-storage": "30G"},
                    {"cpu": "10m", "memory": "30M", "ephemeral-storage": "20G"},
                )
            ]
        },
        {"cpu": "30m", "memory": "30M", "ephemeral-storage": "30G"},
    ),
    ("TestPodResourceRequests", "resized, infeasible, but don't use status"): (
        {"containers": [c("container-1", cpu="4")]},
        None,
        {"cpu": "4"},
    ),
    ("TestPodResourceRequests", "resized, restartable init container, infeasible"): (
        {"initContainers": [c("restartable-init-1", "Always", cpu="4")]},
        {"conditions": INFEASIBLE, "initContainerStatuses": [cs("restartable-init-1", actual={"cpu": "2"})]},
        {"cpu": "2"},
    ),
    ("TestPodResourceRequests", "resized, restartable init container, no resize status"): (
        {"initContainers": [c("restartable-init-1", "Always", cpu="4")]},
        {"initContainerStatuses": [cs("restartable-init-1", actual={"cpu": "2"})]},
        {"cpu": "4"},
    ),
    ("TestPodResourceRequests", "aggregate request resolves max of sums instead of sum of maxes"): (
        {"containers": [c("c1", cpu="1"), c("c2", cpu="2")]},
        {"containerStatuses": [cs("c1", {"cpu": "2"}), cs("c2", {"cpu": "1"})]},
        {"cpu": "3"},
    ),
    (
        "TestPodRequestsAndLimitsVerticalScalingWrappers",
        "pod level requests/limits with PLR vertical scaling enabled and status populated",
    ): (
        {"resources": {"requests": {"cpu": "2"}}, "containers": [c("c1", cpu="1")]},
        {"allocatedResources": {"cpu": "3"}, "resources": {"requests": {"cpu": "3.5"}}},
        {"cpu": "3.5"},
    ),
    (
        "TestPodRequestsAndLimitsVerticalScalingWrappers",
        "pod level requests/limits with PLR vertical scaling enabled, status.resources nil, "
        "status.allocatedResources set",
    ): (
        {"resources": {"requests": {"cpu": "2"}}, "containers": [c("c1", cpu="1")]},
        {"allocatedResources": {"cpu": "3"}},
        {"cpu": "3"},
    ),
    (
        "TestPodRequestsAndLimitsVerticalScalingWrappers",
        "pod level requests/limits with PLR vertical scaling enabled and infeasible resize",
    ): (
        {"resources": {"requests": {"cpu": "10"}}, "containers": [c("c1", cpu="1")]},
        {"conditions": INFEASIBLE, "allocatedResources": {"cpu": "3"}, "resources": {"requests": {"cpu": "4"}}},
        {"cpu": "4"},
    ),
    (
        "TestPodRequestsAndLimitsVerticalScalingWrappers",
        "pod level requests/limits with PLR vertical scaling enabled, overhead set, and status populated",
    ): (
        {
            "overhead": {"cpu": "1", "memory": "500Mi"},
            "resources": {"requests": {"cpu": "2", "memory": "2Gi"}},
        },
        {
            "allocatedResources": {"cpu": "3", "memory": "2.5Gi"},
            "resources": {"requests": {"cpu": "3", "memory": "2.5Gi"}},
        },
        {"cpu": "3", "memory": "2.5Gi"},
    ),
    # a container with limits only, an infeasible resize, status limits only: nothing is requested
    ("TestPodRequestsAndLimitsVerticalScalingWrappers", "container limits aggregation with infeasible resize"): (
        {"containers": [{"name": "c1", "resources": {"limits": {"cpu": "10"}}}]},
        {"conditions": INFEASIBLE, "containerStatuses": [{"name": "c1", "resources": {"limits": {"cpu": "6"}}}]},
        {},
    ),
}


@pytest.mark.parametrize("key", CASES, ids=[f"{t}: {n}" for t, n in CASES])
def test_upstream_resize_requests(key: tuple[str, str]) -> None:
    spec, status, expected = CASES[key]
    got = pod_requests(spec, status=status)
    assert got == {k: Q(v) for k, v in expected.items()}


def test_the_kubelet_admits_on_its_allocation() -> None:
    """Worked by hand: a resize up from 2 to 4 cpu the kubelet has deferred (``PodResizePending``/``Deferred``):
    allocated and running at 2. The scheduler counts max(spec 4, actuated 2, allocated 2) = 4; the kubelet reads its
    allocation (2) as the spec (``UpdatePodFromAllocation``): max(2, 2, 2) = 2. Without status both count the spec."""
    spec = {"containers": [c("app", cpu="4", memory="1Gi")]}
    status = {
        "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}],
        "containerStatuses": [cs("app", {"cpu": "2", "memory": "1Gi"}, {"cpu": "2", "memory": "1Gi"})],
    }
    assert pod_requests(spec, status=status) == {"cpu": Q("4"), "memory": Q("1Gi")}
    assert pod_requests(spec, status=status, kubelet=True) == {"cpu": Q("2"), "memory": Q("1Gi")}
    assert resize_notes(spec, status) == ()  # Deferred is a known reason: nothing to say


def test_snapshots_of_other_versions_are_read_without_guesses() -> None:
    """Worked by hand, one pod per kind of status, each counted as the scheduler of its version counts it and said:

    - no status fields (before 1.33): the spec, 4;
    - a reason this project does not know: not Infeasible (``IsPodResizeInfeasible`` reads only that), so the
      three-way maximum, max(4, 2) = 4, and said (and that no allocation is reported);
    - the 1.27–1.32 ``status.resize: Infeasible``: read as the condition, the status 2, and said;
    - Infeasible with no container status at all: the container counts nothing (upstream's nil), and said."""
    spec = {"containers": [c("app", cpu="4")]}
    assert status_is_plain(spec, {"phase": "Running", "containerStatuses": [{"name": "app"}]})
    assert pod_requests(spec, status={"phase": "Running"}) == {"cpu": Q("4")}
    new_reason = {
        "conditions": [{"type": "PodResizePending", "reason": "SomethingNewer"}],
        "containerStatuses": [cs("app", actual={"cpu": "2"})],
    }
    assert pod_requests(spec, status=new_reason) == {"cpu": Q("4")}
    assert resize_notes(spec, new_reason) == (UNKNOWN_REASON, NO_ALLOCATION)
    # a Deferred resize whose kubelet reports the running resources but no allocation: max(4, 2) = 4, and said
    deferred = {**new_reason, "conditions": [{"type": "PodResizePending", "reason": "Deferred"}]}
    assert pod_requests(spec, status=deferred) == {"cpu": Q("4")}
    assert resize_notes(spec, deferred) == (NO_ALLOCATION,)
    legacy = {"resize": "Infeasible", "containerStatuses": [cs("app", actual={"cpu": "2"})]}
    assert pod_requests(spec, status=legacy) == {"cpu": Q("2")}
    assert resize_notes(spec, legacy) == (LEGACY_RESIZE, RESIZE_INFEASIBLE)
    bare = {"conditions": INFEASIBLE}
    assert pod_requests(spec, status=bare) == {}
    assert resize_notes(spec, bare) == (RESIZE_INFEASIBLE, INFEASIBLE_EMPTY)


@pytest.mark.parametrize(
    ("status", "where"),
    [
        ({"conditions": {"type": "PodResizePending"}}, "status.conditions"),
        ({"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": "lots"}}]}, "allocatedResources.cpu"),
        ({"containerStatuses": [{"name": "app", "resources": []}]}, "status.containerStatuses[0].resources"),
        ({"allocatedResources": ["cpu"]}, "status.allocatedResources"),
    ],
)
def test_a_status_that_cannot_be_read_names_its_field(status: dict[str, Any], where: str) -> None:
    spec = {"containers": [c("app", cpu="4")]}
    assert not status_is_plain(spec, status)
    with pytest.raises(PodError, match=where.replace("[", r"\[").replace("]", r"\]")):
        pod_requests(spec, status=status)


def test_the_kubelet_reads_its_pod_level_allocation_as_the_spec() -> None:
    """Worked by hand, KEP-5419: pod-level cpu resized up from 2 to 4, Deferred; allocated and running at 2, with a
    250m overhead the status shows inside its figures (TestPodRequestsAndLimitsVerticalScalingWrappers takes the
    overhead out of them). The scheduler: max(spec 4, 2.25 - 0.25, 2.25 - 0.25) = 4, + 250m = 4250m. The kubelet
    reads its allocation (2) as the spec: max(2, 2, 2) = 2, + 250m = 2250m."""
    spec = {"overhead": {"cpu": "250m"}, "resources": {"requests": {"cpu": "4"}}, "containers": [c("app", cpu="1")]}
    status = {
        "conditions": [{"type": "PodResizePending", "reason": "Deferred"}],
        "allocatedResources": {"cpu": "2250m"},
        "resources": {"requests": {"cpu": "2250m"}},
    }
    assert pod_requests(spec, status=status) == {"cpu": Q("4250m")}
    assert pod_requests(spec, status=status, kubelet=True) == {"cpu": Q("2250m")}


def test_the_kubelet_without_allocated_resources_readmits_a_pending_resize_at_what_runs() -> None:
    """Worked by hand: a resize up from 2 to 4 cpu, not yet admitted, from a kubelet that does not report
    ``allocatedResources`` (an alpha-gated field since 1.33). The scheduler counts max(spec 4, actuated 2, allocated =
    spec 4) = 4 either way. The kubelet's checkpointed allocation is still 2 (a pending resize is not in it), which is
    what runs: it re-admits at 2. Once the kubelet has admitted the resize (1.27-1.32 ``InProgress``), its allocation
    is the spec: 4. Without any resize the spec too, even if the running value differs (nothing pending)."""
    spec = {"containers": [c("app", cpu="4")]}
    running = [cs("app", actual={"cpu": "2"})]
    for pending in (
        {"conditions": [{"type": "PodResizePending", "reason": "Deferred"}]},
        {"conditions": [{"type": "PodResizePending", "reason": "Infeasible"}]},
        {"resize": "Proposed"},
        {"resize": "Deferred"},
    ):
        status = {**pending, "containerStatuses": running}
        assert pod_requests(spec, status=status, kubelet=True) == {"cpu": Q("2")}, pending
    in_progress = {"resize": "InProgress", "containerStatuses": running}
    assert pod_requests(spec, status=in_progress, kubelet=True) == {"cpu": Q("4")}
    assert pod_requests(spec, status={"containerStatuses": running}, kubelet=True) == {"cpu": Q("4")}
    deferred = {"conditions": [{"type": "PodResizePending", "reason": "Deferred"}], "containerStatuses": running}
    assert pod_requests(spec, status=deferred) == {"cpu": Q("4")}
