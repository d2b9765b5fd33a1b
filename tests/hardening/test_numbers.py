"""Issue 12, class 5: numbers. ``--max-file-size`` and ``limits.maxFileBytes`` are bounded (1 byte … 1 GiB: a
policy file is read into memory whole), ``sizing`` refuses machines whose results Kubernetes cannot store (cpu in
millicores and bytes are int64; the kubelet's maxPods is an int32), and ``render.outputDir`` must be a path a file
system can hold. Every case: exit 2, one line, no traceback, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hardening_support import (
    SETTINGS,
    assert_no_crash,
    assert_not_checked,
    assert_one_finding,
    cli,
    good_repo,
    position_of,
    shown,
    snapshot,
)

BOUNDS = "must be a whole number of bytes from 1 to 1073741824 (1 GiB)"


@pytest.mark.parametrize(
    "value", ["0", "-5", "99999999999999999999", "9" * 5000, "1073741825", "1e9", "1_000", " 5", "0x10", "", "½"]
)
def test_max_file_size_out_of_bounds(tmp_path: Path, value: str) -> None:
    good_repo(tmp_path / "repo")
    for command in ("validate", "lint", "explain", "render"):
        res = cli(command, "repo", f"--max-file-size={value}", cwd=tmp_path, timeout=60)
        assert_no_crash(res)
        assert res.returncode == 2 and res.stdout == "", shown(res)
        assert res.stderr.count("\n") == 1 and BOUNDS in res.stderr, shown(res)
    assert not (tmp_path / "rendered").exists()


def test_max_file_size_edges_work(tmp_path: Path) -> None:
    repo = good_repo(tmp_path / "repo")
    size = (repo / "pools" / "web.yaml").stat().st_size
    ok = cli("validate", "repo", "--max-file-size", "1073741824", cwd=tmp_path)
    assert ok.returncode == 0, shown(ok)
    small = cli("validate", "repo", f"--max-file-size={size - 1}", cwd=tmp_path)
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
    res = cli("validate", "repo", cwd=tmp_path, timeout=60)
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
        res = cli(*command, "repo", cwd=tmp_path, timeout=60)
        line, col = position_of(settings, value)
        assert_one_finding(res, f"repo/.allocatable.yaml:{line}:{col}", "AL004", "render.outputDir: ", message)
    assert_not_checked(cli("render", "--check", "repo", cwd=tmp_path, timeout=60))  # validate reports it
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
    res = cli("sizing", "--formula", formula, *argv, cwd=tmp_path, timeout=60)
    assert_no_crash(res)
    assert res.returncode == 2 and res.stdout == "", shown(res)
    assert res.stderr.count("\n") == 1 and message in res.stderr, shown(res)


@pytest.mark.parametrize("formula", ["openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks"])
def test_sizing_at_the_limits_stays_within_int64(tmp_path: Path, formula: str) -> None:
    """The largest accepted machine: every value printed is a quantity Kubernetes stores."""
    res = cli(
        "sizing", "--formula", formula, "--cpus", "9223372036854775.807", "--memory", "8191Pi",
        "--max-pods", "2147483647", "-o", "json", cwd=tmp_path, timeout=60,
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
