"""Issue 12, class 5: numbers. ``--max-file-size`` and ``limits.maxFileBytes`` are bounded (1 byte … 1 GiB: a
policy file is read into memory whole), ``sizing`` refuses machines whose results Kubernetes cannot store (cpu in
millicores and bytes are int64; the kubelet's maxPods is an int32), and ``render.outputDir`` must be a path a file
system can hold. Every case: exit 2, one line, no traceback, nothing written.

The CLI runs in this process (``support.hardening.in_process``): these are bad-input checks (exit code, located
lines, no traceback, nothing written), which do not depend on running as a process of its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.factory import STATIC_RESERVATIONS, commit_class, reservation_policy
from support.hardening import (
    SETTINGS,
    assert_no_crash,
    assert_not_checked,
    assert_one_finding,
    good_repo,
    in_process,
    position_of,
    shown,
    snapshot,
    write,
)

BOUNDS = "must be a whole number of bytes from 1 to 1073741824 (1 GiB)"


@pytest.mark.parametrize(
    "value", ["0", "-5", "99999999999999999999", "9" * 5000, "1073741825", "1e9", "1_000", " 5", "0x10", "", "½"]
)
def test_max_file_size_out_of_bounds(tmp_path: Path, value: str) -> None:
    good_repo(tmp_path / "repo")
    for command in ("validate", "lint", "explain", "render"):
        res = in_process(command, "repo", f"--max-file-size={value}", cwd=tmp_path)
        assert_no_crash(res)
        assert res.returncode == 2 and res.stdout == "", shown(res)
        assert res.stderr.count("\n") == 1 and BOUNDS in res.stderr, shown(res)
    assert not (tmp_path / "rendered").exists()


def test_max_file_size_edges_work(tmp_path: Path) -> None:
    repo = good_repo(tmp_path / "repo")
    size = (repo / "pools" / "web.yaml").stat().st_size
    ok = in_process("validate", "repo", "--max-file-size", "1073741824", cwd=tmp_path)
    assert ok.returncode == 0, shown(ok)
    small = in_process("validate", "repo", f"--max-file-size={size - 1}", cwd=tmp_path)
    assert small.returncode == 2 and f"larger than the {size - 1} byte limit" in small.stdout, shown(small)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("99999999999999999999", "limits.maxFileBytes: must be ≤ 1073741824"),
        ("1073741825", "limits.maxFileBytes: must be ≤ 1073741824"),
        ("0", "limits.maxFileBytes: must be > 0"),
        ("-1", "limits.maxFileBytes: must be > 0"),
        ('"8Mi"', "limits.maxFileBytes: expected an integer"),
        ("1.5", "limits.maxFileBytes: expected an integer"),
        ("true", "limits.maxFileBytes: expected an integer"),
    ],
)
def test_max_file_bytes_setting_out_of_bounds(tmp_path: Path, value: str, message: str) -> None:
    settings = SETTINGS + f"limits:\n  maxFileBytes: {value}\n"
    good_repo(tmp_path / "repo")
    (tmp_path / "repo" / ".allocatable.yaml").write_text(settings)
    res = in_process("validate", "repo", cwd=tmp_path)
    line, col = position_of(settings, value)
    assert_one_finding(res, f"repo/.allocatable.yaml:{line}:{col}", "AL004", message)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"out\\0dir"', "contains a NUL character"),
        ('"out\\e[31mred"', "contains the control character U+001B"),
        ('"out\\ndir"', "contains the control character U+000A"),
        ('"out\\tdir"', "contains the control character U+0009"),
        ('"' + "d" * 256 + '"', "a directory name in the path is 256 bytes long"),
        ('"' + "/".join(["d" * 200] * 21) + '"', "the path is 4220 bytes long"),
        ('"/etc"', '"/etc" leaves the repository'),
        ('"../rendered"', '"../rendered" leaves the repository'),
        ('"out/../../x"', "leaves the repository"),
    ],
)
def test_output_dir_that_no_file_system_holds(tmp_path: Path, value: str, message: str) -> None:
    settings = SETTINGS + f"render:\n  outputDir: {value}\n"
    good_repo(tmp_path / "repo")
    (tmp_path / "repo" / ".allocatable.yaml").write_text(settings)
    before = snapshot(tmp_path)
    for command in (["validate"], ["render"]):
        res = in_process(*command, "repo", cwd=tmp_path)
        line, col = position_of(settings, value)
        assert_one_finding(res, f"repo/.allocatable.yaml:{line}:{col}", "AL004", "render.outputDir: ", message)
    assert_not_checked(in_process("render", "--check", "repo", cwd=tmp_path))  # validate reports it
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--cpus", "1e30"], '--cpus "1e30" is not a number'),
        (["--cpus", "1_0"], '--cpus "1_0" is not a number'),
        (["--cpus", "nan"], '--cpus "nan" is not a number'),
        (["--cpus", "Infinity"], '--cpus "Infinity" is not a number'),
        (["--cpus", "9223372036854775.808"], "more than a Kubernetes cpu quantity holds"),
        (["--cpus", "100000000000000000000000000"], "more than a Kubernetes cpu quantity holds"),
        (["--cpus", "0"], "--cpus must be a number greater than 0"),
        (["--max-pods", "2147483648"], "--max-pods must be from 1 to 2147483647"),
        (["--max-pods", "99999999999999999999"], "--max-pods must be from 1 to 2147483647"),
        (["--max-pods", "0"], "--max-pods must be from 1 to 2147483647"),
        (["--memory", "9Ei"], "exceeds 2^63-1"),
    ],
)
@pytest.mark.parametrize("formula", ["openshift", "gke", "aks", "eks"])
def test_sizing_refuses_machines_beyond_what_a_quantity_holds(
    tmp_path: Path, formula: str, args: list[str], message: str
) -> None:
    base = {"--cpus": "8", "--memory": "32Gi"}
    flags = dict(zip(args[::2], args[1::2], strict=True))
    argv = [x for k, v in {**base, **flags}.items() for x in (k, v)]
    res = in_process("sizing", "--formula", formula, *argv, cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2 and res.stdout == "", shown(res)
    assert res.stderr.count("\n") == 1 and message in res.stderr, shown(res)


@pytest.mark.parametrize("formula", ["openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks"])
def test_sizing_at_the_limits_stays_within_int64(tmp_path: Path, formula: str) -> None:
    """The largest accepted machine: every value printed is a quantity Kubernetes stores."""
    res = in_process(
        "sizing", "--formula", formula, "--cpus", "9223372036854775.807", "--memory", "8191Pi",
        "--max-pods", "2147483647", "-o", "json", cwd=tmp_path,
    )  # fmt: skip
    assert_no_crash(res)
    if res.returncode == 2:  # refused with the reason, never printed beyond range
        assert "more than a Kubernetes quantity holds" in res.stderr, shown(res)
        return
    doc = json.loads(res.stdout)
    for values in (doc["systemReserved"], doc["kubeReserved"]):
        for resource, text in values.items():
            from renderer.quantity import Quantity

            q = Quantity.parse(text)
            assert abs(q.milli_value() if resource == "cpu" else q.int_value()) <= 2**63 - 1, (resource, text)


# Text: each case expects its finding at the pool file's 1:1 and finds that file by the pool's name in its text.
def _big_pool(name: str, tier: str, capacity: str, count: int = 1) -> str:
    return (
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: NodePool\n"
        f"metadata:\n  name: {name}\nspec:\n  labels: {{example.com/tier: {tier}}}\n"
        f"  capacity: {{{capacity}}}\n  count: {count}\n"
    )


_NODE = 'cpu: "8", memory: 32Gi, ephemeral-storage: 100Gi, pods: "110"'
_KATA = (
    "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: kata\nhandler: kata\n"
    "overhead:\n  podFixed: {memory: 7Ei}\n"
)


# Each input is in range (every quantity ≤ 2^63-1, as Kubernetes stores it); what the model derives from it is not.
# (file, line of the pool named, commands that must stop with exit 2, fragments of the line). Before: "internal
# error: QuantityError ..." (exit 2, but a crash report) from explain, render and lint alike.
OUT_OF_RANGE = {
    # 100,000 nodes of 7Ei: the pool's cluster total (count × capacity) is past 2^63-1 bytes
    "count-times-capacity": (
        {"pools/huge.yaml": _big_pool("huge", "general", 'cpu: "8", memory: 7Ei', 100_000)},
        ("lint", "explain", "explain -o json", "render"),
        ("NodePool/huge", "100000 nodes of memory 7Ei"),
    ),
    # 10^18 cores at 1000%: the committed cpu is 10^19 cores
    "commit-percent": (
        {
            "pools/huge.yaml": _big_pool("huge", "general", 'cpu: "1e18", memory: 32Gi'),
            "commitclasses/burst.yaml": commit_class(percents={"cpu": 1000}),
        },
        ("lint", "explain", "explain -o json", "render"),
        ("NodePool/huge", "its capacity arithmetic", "1e18"),
    ),
    # two hugepage sizes of 5Ei: the memory they take together is 10Ei
    "hugepages-sum": (
        {"pools/huge.yaml": _big_pool("huge", "general", _NODE + ", hugepages-2Mi: 5Ei, hugepages-1Gi: 5Ei")},
        ("lint", "explain", "explain -o json", "render"),
        ("NodePool/huge", "its capacity arithmetic", "5Ei + 5Ei"),
    ),
    # a reservation of 4Ei on 32Gi nodes (allocatable 0, as the kubelet floors it) on 3 nodes: 12Ei reserved in all
    "reserved-times-count": (
        {
            "pools/huge.yaml": _big_pool("huge", "general", _NODE, 3),
            "reservations/static.yaml": reservation_policy(
                **{**STATIC_RESERVATIONS, "systemReserved": {"cpu": "100m", "memory": "4Ei"}}
            ),
        },
        ("lint", "explain", "explain -o html", "render"),
        ("NodePool/huge", "3 nodes of systemReserved memory 4Ei"),
    ),
    # maxPods (110) pods of 7Ei overhead each: only explain's overhead figures multiply them (lint has AL212)
    "overhead-times-max-pods": (
        {"pools/huge.yaml": _big_pool("huge", "general", _NODE), "runtimeclasses/kata.yaml": _KATA},
        ("explain", "explain -o json"),
        ("NodePool/huge", "RuntimeClass kata: maxPods 110", "7Ei"),
    ),
    # two pools of 5Ei, each in range: their cluster total is not (named at the pool that passes it)
    "total-of-pools": (
        {
            "pools/a.yaml": _big_pool("big-a", "a", 'cpu: "8", memory: 5Ei'),
            "pools/b.yaml": _big_pool("big-b", "b", 'cpu: "8", memory: 5Ei'),
        },
        ("explain", "explain -o json", "explain -o html"),
        ("NodePool/big-b", "the cluster total of", "memory"),
    ),
}


@pytest.mark.parametrize("case", sorted(OUT_OF_RANGE))
def test_figures_past_the_quantity_range_are_an_input_error(tmp_path: Path, case: str) -> None:
    """Fix the class: every figure the model derives (committed, hugepages and reserved sums, count × value,
    maxPods × overhead, totals over pools) may leave Kubernetes' range although each input is in it. Each gives
    one line naming the object and its file:line:col, exit 2, nothing on stdout and nothing written."""
    files, commands, fragments = OUT_OF_RANGE[case]
    write(tmp_path / "repo", {".allocatable.yaml": SETTINGS, **files})
    path = next(name for name in files if name.startswith("pools/") and fragments[0].split("/")[1] in files[name])
    for command in commands:
        res = in_process(*command.split(), "repo", cwd=tmp_path)
        assert_no_crash(res)
        assert res.returncode == 2 and res.stdout == "", shown(res)
        assert res.stderr.count("\n") == 1, shown(res)
        assert f"repo/{path}:1:1: " in res.stderr and "leave" in res.stderr, shown(res)
        for fragment in fragments:
            assert fragment in res.stderr, shown(res)
    assert not (tmp_path / "rendered").exists()
