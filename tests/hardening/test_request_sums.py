"""Issue 30, class 6: request sums past 2^63-1. The API server bounds each quantity (at most 2^63-1), not their sums,
so one tenant's pod can make its own requests, or a node's pods together, add up to more than any quantity holds.
Kubernetes adds the quantities without bound and then counts them in int64 (``framework.Resource``'s
``MilliValue``/``Value``), which leaves its range: what the scheduler and the kubelet make of such a pod is not a
resource amount. Decided (docs/security.md, docs/impact.md): the snapshot is refused with one line that names the pod
and its place in the dump, exit 2, nothing else printed — never ``internal error: QuantityError``.

Every sibling the issue lists goes through both readers: ``verify --nodes --pods`` (one dump read once for verify
and the simulation) and ``diff --snapshot``; the worked example's snapshot (docs/examples/impact/) with one hostile
pod changed, so the line and column are those of the pod's field whose addition leaves the range."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, run_cli

EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"
MAX = "9223372036854775807"  # 2^63-1: the largest quantity the API server accepts
SNAPSHOT: dict[str, Any] = json.loads((EXAMPLE / "snapshot.json").read_text(encoding="utf-8"))
TRAIN = 9  # batch/train-a-1 on ip-10-0-1-10, one container (2500m cpu)
LOCATED = re.compile(r"^allocatable: error: snap\.json:(?P<line>\d+):(?P<col>\d+): ")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sums") / "repo"
    shutil.copytree(EXAMPLE / "policies", root / "policies")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-q", "-m", "base")):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root, env=env, check=True
        )
    return root


def _container(name: str, **requests: str) -> dict[str, Any]:
    return {"name": name, "resources": {"requests": {k.replace("_", "-"): v for k, v in requests.items()}}}


def _pod(index: int, spec: dict[str, Any]) -> dict[str, Any]:
    pod = copy.deepcopy(SNAPSHOT["items"][index])
    pod["spec"] = {k: v for k, v in pod["spec"].items() if k not in ("containers", "initContainers")} | spec
    return pod


#: name → (the pods replacing items of the snapshot, by index; the pod the line names; the resource; where)
CASES: dict[str, tuple[dict[int, dict[str, Any]], str, str, str]] = {
    "overhead + a 100m container": (
        {TRAIN: _pod(TRAIN, {"containers": [_container("train", cpu="100m")], "overhead": {"cpu": MAX}})},
        "batch/train-a-1",
        "cpu",
        "spec.overhead.cpu",
    ),
    "two containers": (
        {TRAIN: _pod(TRAIN, {"containers": [_container("a", cpu=MAX), _container("b", cpu=MAX)]})},
        "batch/train-a-1",
        "cpu",
        "spec.containers[1]",
    ),
    "a sidecar and a container": (
        {
            TRAIN: _pod(
                TRAIN,
                {
                    "containers": [_container("train", memory=MAX)],
                    "initContainers": [{**_container("proxy", memory="1"), "restartPolicy": "Always"}],
                },
            )
        },
        "batch/train-a-1",
        "memory",
        "spec.initContainers[0]",  # the sidecar runs beside the containers: added to their sum
    ),
    "pod-level requests and overhead": (
        {
            TRAIN: _pod(
                TRAIN,
                {
                    "containers": [_container("train", cpu="1")],
                    "resources": {"requests": {"cpu": MAX}},
                    "overhead": {"cpu": "250m"},
                },
            )
        },
        "batch/train-a-1",
        "cpu",
        "spec.overhead.cpu",  # pod-level 2^63-1 replaces the containers' 1, then the overhead is added
    ),
    "ephemeral-storage": (
        {
            TRAIN: _pod(
                TRAIN,
                {"containers": [_container("a", ephemeral_storage=MAX), _container("b", ephemeral_storage="1Ki")]},
            )
        },
        "batch/train-a-1",
        "ephemeral-storage",
        "spec.containers[1]",
    ),
    "hugepages": (
        {
            TRAIN: _pod(
                TRAIN, {"containers": [_container("a", hugepages_2Mi=MAX), _container("b", hugepages_2Mi="2Mi")]}
            )
        },
        "batch/train-a-1",
        "hugepages-2Mi",
        "spec.containers[1]",
    ),
    # a regular init container runs with the sidecars started before it: 1 + (2^63-1) at that moment
    "an init container and the sidecar before it": (
        {
            TRAIN: _pod(
                TRAIN,
                {
                    "containers": [_container("train", cpu="1")],
                    "initContainers": [
                        {**_container("proxy", cpu="1"), "restartPolicy": "Always"},
                        _container("migrate", cpu=MAX),
                    ],
                },
            )
        },
        "batch/train-a-1",
        "cpu",
        "spec.initContainers[1]",
    ),
    # the scheduler's scores count 100m cpu for a container that states no cpu request: 2^63-1 + 100m (on the Pending
    # web/renderer, item 18: no node's total comes first)
    "a container without a cpu request, as the scheduler scores it": (
        {17: _pod(17, {"containers": [_container("a", cpu=MAX, memory="1Gi"), _container("b", memory="1Gi")]})},
        "web/renderer-5c7b9-klmno",
        "cpu",
        "spec.containers[1]",
    ),
    # each pod on its own is in range (2^63-1 cpu); node-exporter-ax9k2 (100m, item 5) is read first on that node,
    # so train-a-0 (item 9), the first of the two, is the one whose 2^63-1 makes the node's total leave the range
    "two such pods on one node": (
        {
            TRAIN - 1: _pod(TRAIN - 1, {"containers": [_container("train", cpu=MAX)]}),
            TRAIN: _pod(TRAIN, {"containers": [_container("train", cpu=MAX)]}),
        },
        "batch/train-a-0",
        "cpu",
        "spec.nodeName",
    ),
}


def _write(tmp_path: Path, changes: dict[int, dict[str, Any]]) -> tuple[Path, str]:
    doc = copy.deepcopy(SNAPSHOT)
    for index, pod in changes.items():
        doc["items"][index] = pod
    text = json.dumps(doc, indent=4)
    path = tmp_path / "snap.json"
    path.write_text(text, encoding="utf-8")
    return path, text


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
@pytest.mark.parametrize("command", ["verify", "diff"])
def test_a_sum_past_the_range_is_one_located_line_naming_the_pod(
    repo: Path, tmp_path: Path, case: str, command: str
) -> None:
    changes, pod, resource, field = CASES[case]
    path, text = _write(tmp_path, changes)
    shutil.copy(path, repo / "snap.json")
    if command == "verify":
        done = run_cli("verify", "policies", "--nodes", "snap.json", "--pods", "snap.json", cwd=repo)
    else:
        done = run_cli("diff", "policies", "--base", "main", "--snapshot", "snap.json", cwd=repo)
    assert done.exit_code == 2, (done.stdout, done.stderr)
    assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    m = LOCATED.match(done.stderr)
    assert m is not None, done.stderr
    item = next(i for i, p in enumerate(SNAPSHOT["items"]) if p["metadata"]["name"] == pod.split("/")[1]) + 1
    assert f"Pod {pod} (item {item}): {field}: " in done.stderr
    assert f"{resource} requests" in done.stderr and "past 2^63-1" in done.stderr
    # the place shown is in that pod's own item (the field whose addition leaves the range), not the List's start
    start = text.count("\n", 0, text.index(f'"name": "{pod.split("/")[1]}"')) + 1
    following = [p["metadata"]["name"] for p in SNAPSHOT["items"][item:]]
    end = text.count("\n", 0, text.index(f'"name": "{following[0]}"')) + 1
    assert start < int(m["line"]) < end, (start, m["line"], end)


def test_the_largest_sums_in_range_are_read(repo: Path, tmp_path: Path) -> None:
    """The edge, worked by hand: 2^63-1 as the sum of two containers (2^62 + 2^62-1) is in range. On the Pending
    web/renderer (item 18, no node: no node total) the pod is read, not refused, and shown with that request; it fits
    no node, as before."""
    pending = 17
    changes = {
        pending: _pod(pending, {"containers": [_container("a", cpu=str(2**62)), _container("b", cpu=str(2**62 - 1))]})
    }
    path, _ = _write(tmp_path, changes)
    shutil.copy(path, repo / "snap.json")
    for args in (
        ("verify", "policies", "--nodes", "snap.json", "--pods", "snap.json"),
        ("diff", "policies", "--base", "main", "--snapshot", "snap.json"),
    ):
        done = run_cli(*args, cwd=repo)
        assert done.exit_code in (0, 1) and "internal error" not in done.stderr, (done.stdout, done.stderr)
        assert f"web/renderer-5c7b9-klmno (Pending before the change too): cpu {MAX}" in done.stdout, done.stdout


def test_a_hostile_pod_or_resource_name_stays_on_the_one_line(repo: Path, tmp_path: Path) -> None:
    """The pod's name, its node's and a resource's come from the dump: shown escaped (``renderer.escaping.plain``),
    so the refusal is still one line that repaints nothing."""
    pod = _pod(TRAIN, {"containers": [_container("a", cpu="1")]})
    pod["metadata"]["name"] = "evil\x1b[31m\nname"
    pod["spec"]["overhead"] = {"example.com/x\ny": MAX}
    pod["spec"]["containers"][0]["resources"]["requests"]["example.com/x\ny"] = "1"
    path, _ = _write(tmp_path, {TRAIN: pod})
    shutil.copy(path, repo / "snap.json")
    for args in (
        ("verify", "policies", "--nodes", "snap.json", "--pods", "snap.json"),
        ("diff", "policies", "--base", "main", "--snapshot", "snap.json"),
    ):
        done = run_cli(*args, cwd=repo)
        assert done.exit_code == 2 and done.stdout == "", done.stderr
        assert done.stderr.count("\n") == 1 and "\x1b" not in done.stderr, done.stderr
        assert "Pod batch/evil\\x1b[31m\\nname (item 10): spec.overhead.example.com/x\\ny: " in done.stderr
