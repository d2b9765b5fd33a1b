"""In-place pod resize in the simulation: the scheduler's count (``PodRequests`` with ``UseStatusResources``) for
placement, the kubelet's allocation for re-admission, and what was read said on the "read" line. Each scenario is
worked by hand beside it; the request rule itself is proven on the upstream cases in tests/verify/test_pod_resize.py.
"""

from __future__ import annotations

import copy
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, run_cli
from renderer.impact.admission import readmit
from renderer.impact.pods import pod_from_object

EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"


def _pod(name: str, created: str, spec_cpu: str, status: dict[str, Any]) -> dict[str, Any]:
    return {
        "metadata": {"name": name, "namespace": "default", "creationTimestamp": created},
        "spec": {"nodeName": "n1", "containers": [{"name": "app", "resources": {"requests": {"cpu": spec_cpu}}}]},
        "status": {"phase": "Running", **status},
    }


def test_readmission_counts_the_kubelets_allocation() -> None:
    """A node of 6500m. ``up`` (the older pod) asks 3500m in its spec, but its resize up from 2500m is Deferred: the
    kubelet's allocation (and what runs) is 2500m. ``other`` asks 4000m. The kubelet admits ``up`` at 2500m, then
    ``other``: 2500 + 4000 = 6500 ≤ 6500, both stay. Counting the spec (3500 + 4000 = 7500) would reject ``other``.
    The scheduler still counts ``up`` at 3500m (max of spec, allocated, actuated) for placement."""
    up = pod_from_object(
        _pod(
            "up",
            "2025-01-01T00:00:00Z",
            "3500m",
            {
                "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}],
                "containerStatuses": [
                    {"name": "app", "allocatedResources": {"cpu": "2500m"}, "resources": {"requests": {"cpu": "2500m"}}}
                ],
            },
        )
    )
    other = pod_from_object(_pod("other", "2025-01-02T00:00:00Z", "4", {}))
    assert up.requests == {"cpu": 3500} and up.kubelet_requests == {"cpu": 2500}
    admitted, rejected = readmit([up, other], {"cpu": 6500, "pods": 110})
    assert [p.name for p in admitted] == ["up", "other"] and rejected == []


def test_readmission_without_allocated_resources_counts_what_runs() -> None:
    """The case above from a kubelet that does not report ``allocatedResources`` (alpha-gated since 1.33): the resize
    up from 2500m is Deferred, so the kubelet's checkpointed allocation is still the 2500m that runs. Re-admitted at
    2500m, ``other`` (4000m) fits beside it on 6500m: 6500 ≤ 6500; counting the spec (7500) would reject it."""
    up = pod_from_object(
        _pod(
            "up",
            "2025-01-01T00:00:00Z",
            "3500m",
            {
                "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred"}],
                "containerStatuses": [{"name": "app", "resources": {"requests": {"cpu": "2500m"}}}],
            },
        )
    )
    other = pod_from_object(_pod("other", "2025-01-02T00:00:00Z", "4", {}))
    assert up.requests == {"cpu": 3500} and up.kubelet_requests == {"cpu": 2500}
    admitted, rejected = readmit([up, other], {"cpu": 6500, "pods": 110})
    assert [p.name for p in admitted] == ["up", "other"] and rejected == []


def test_an_infeasible_resize_counts_what_the_node_runs(tmp_path: Path) -> None:
    """The worked example (docs/impact.md) with batch/train-a-1 (2500m in its spec, on ip-10-0-1-10) resized in place
    to 1500m, then asked back up to 2500m, which the node found Infeasible: the scheduler and the kubelet count the
    1500m it runs with. With the new 6500m the kubelet admits node-exporter 100m, train-a-0 2500m, train-a-1 1500m
    (4100m), then report-29001 2000m: 6100m ≤ 6500m, it stays. On ip-10-0-2-11 nothing changed: report-29002 is
    displaced as before. So 1 displaced (not 2), and the read line says how train-a-1 was counted."""
    doc = json.loads((EXAMPLE / "snapshot.json").read_text(encoding="utf-8"))
    train = copy.deepcopy(doc["items"][9])
    assert train["metadata"]["name"] == "train-a-1"
    train["status"]["conditions"] = [
        *train["status"].get("conditions", []),
        {"type": "PodResizePending", "status": "True", "reason": "Infeasible", "message": "Node didn't have enough"},
    ]
    train["status"]["containerStatuses"] = [
        {
            "name": train["spec"]["containers"][0]["name"],
            "allocatedResources": {"cpu": "1500m", "memory": "2Gi"},
            "resources": {"requests": {"cpu": "1500m", "memory": "2Gi"}},
        }
    ]
    doc["items"][9] = train
    shutil.copytree(EXAMPLE / "policies", tmp_path / "policies")
    (tmp_path / "snap.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    done = run_cli("verify", "policies", "--nodes", "snap.json", "--pods", "snap.json", "-o", "json", cwd=tmp_path)
    impact = json.loads(done.stdout)["impact"]
    assert [d["pod"] for d in impact["displaced"]] == ["batch/report-29002-x2kq"]
    assert impact["counted"] == {"in-place resize Infeasible: counted at the resources the node runs it with": 1}
    text = run_cli("verify", "policies", "--nodes", "snap.json", "--pods", "snap.json", cwd=tmp_path).stdout
    assert "1 pod: in-place resize Infeasible: counted at the resources the node runs it with" in text
    # verify's own pod check counts the same: ip-10-0-1-10 (6.1 of 6.5 cores) is no longer over, ip-10-0-2-11 is
    assert "Node/ip-10-0-1-10.ec2.internal: cpu" not in text
    assert "Node/ip-10-0-2-11.ec2.internal: cpu 7.1 of 6.5 cores" in text


def _with_status(status: dict[str, Any]) -> dict[str, Any]:
    doc = json.loads((EXAMPLE / "snapshot.json").read_text(encoding="utf-8"))
    doc["items"][9]["status"] = {"phase": "Running", **status}  # batch/train-a-1, container "main" (2500m)
    return doc


@pytest.mark.parametrize(
    ("status", "field"),
    [
        (
            {"containerStatuses": [{"name": "main", "allocatedResources": {"cpu": "lots"}}]},
            "status.containerStatuses[0].allocatedResources.cpu: ",
        ),
        (
            {"containerStatuses": [{"name": "main", "resources": {"requests": ["cpu"]}}]},
            "status.containerStatuses[0].resources.requests: must be a mapping",
        ),
        ({"conditions": "PodResizePending"}, "status.conditions: must be a list"),
        ({"allocatedResources": {"cpu": "2", "memory": "1e400"}}, "status.allocatedResources.memory: "),
        # a status sum past 2^63-1 is refused where it is, as a spec sum is (tests/hardening/test_request_sums.py)
        (
            {
                "initContainerStatuses": [{"name": "side", "resources": {"requests": {"cpu": "9223372036854775807"}}}],
                "containerStatuses": [{"name": "main", "resources": {"requests": {"cpu": "1"}}}],
            },
            "status.initContainerStatuses[0].resources.requests: the pod's cpu requests add up past 2^63-1",
        ),
    ],
)
def test_a_status_that_cannot_be_read_is_one_located_line(tmp_path: Path, status: dict[str, Any], field: str) -> None:
    doc = _with_status(status)
    if "initContainerStatuses" in status:
        doc["items"][9]["spec"]["initContainers"] = [
            {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "10m"}}}
        ]
    shutil.copytree(EXAMPLE / "policies", tmp_path / "policies")
    (tmp_path / "snap.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    pods_only = {**doc, "items": [i for i in doc["items"] if i["kind"] == "Pod"]}  # train-a-1 is item 6 there
    (tmp_path / "pods.json").write_text(json.dumps(pods_only, indent=2), encoding="utf-8")
    # the simulation's reader (each dump once, for verify and the simulation), and verify's own (pods alone)
    for args, shown in (
        (("verify", "policies", "--nodes", "snap.json", "--pods", "snap.json"), r"snap\.json:\d+:\d+: .*\(item 10\)"),
        (("verify", "policies", "--pods", "pods.json"), r"pods\.json:\d+:\d+: .*\(item 6\)"),
    ):
        done = run_cli(*args, cwd=tmp_path)
        assert done.exit_code == 2 and done.stdout == "", (done.stdout, done.stderr)
        assert done.stderr.count("\n") == 1 and "internal error" not in done.stderr, done.stderr
        assert re.match(r"allocatable: error: " + shown, done.stderr), done.stderr
        assert "Pod batch/train-a-1 (item " in done.stderr and field in done.stderr, done.stderr
