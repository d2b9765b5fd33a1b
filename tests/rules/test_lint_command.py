"""`allocatable lint`: exit codes, --strict, validation errors, --base, and the example policy repo."""

from __future__ import annotations

from pathlib import Path

from lint_support import BATCH_POOL as POOL
from lint_support import git, lint_json

from conftest import KOORDINATOR_ON, POLICIES, REPO_ROOT, run_cli
from support.factory import write_repo


def _class(cpu: int, memory: int = 100) -> str:
    return f"""
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: batch
spec:
  selector:
  - matchExpressions:
    - {{key: example.com/tier, operator: In, values: [batch]}}
  resources:
  - {{name: cpu, percent: {cpu}}}
  - {{name: memory, percent: {memory}}}
"""


def test_clean_repo_exits_0(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class(200)})
    res = run_cli("lint", cwd=tmp_path)
    assert res.exit_code == 0
    assert (res.stdout, res.stderr) == ("", "lint: 2 objects in 2 files: no problems found\n")


def test_warnings_exit_0_unless_strict(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class(500)})
    assert run_cli("lint", cwd=tmp_path).exit_code == 0
    assert run_cli("lint", "--strict", cwd=tmp_path).exit_code == 1


def test_infos_do_not_fail_strict(tmp_path: Path) -> None:
    write_repo(
        tmp_path / "policies",
        {
            "pool.yaml": POOL,
            "cc.yaml": _class(100, memory=95),
            # the under-commit is delivered by a CommitClass implementation (no AL214), so only AL204's info remains
            ".allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n"
            "render: {koordinator: false, targets: [kubelet, commitclasses, kustomization]}\n",
        },
    )
    res = run_cli("lint", "--strict", cwd=tmp_path)
    assert res.exit_code == 0, res.stdout
    assert res.stderr == "lint: 2 objects in 2 files: 1 info\n"


def test_errors_exit_1(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class(200, memory=120)})
    res = run_cli("lint", cwd=tmp_path)
    assert res.exit_code == 1
    assert "[AL201]" in res.stdout


def test_validation_errors_exit_2_and_print_like_validate(tmp_path: Path) -> None:
    write_repo(
        tmp_path / "policies", {"pool.yaml": POOL, "cc.yaml": _class(200).replace("percent: 200", "percent: -5")}
    )
    lint = run_cli("lint", cwd=tmp_path)
    validate = run_cli("validate", cwd=tmp_path)
    assert lint.exit_code == 2 and validate.exit_code == 2
    assert lint.stdout == validate.stdout
    assert lint.stderr == validate.stderr.replace("validate: ", "lint: ")
    res, findings = lint_json(tmp_path)
    assert res.exit_code == 2 and [f["code"] for f in findings] == ["AL004"]


def test_missing_path_is_a_one_line_usage_error(tmp_path: Path) -> None:
    res = run_cli("lint", str(tmp_path / "nope"))
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr


def test_bad_base_ref_is_a_one_line_usage_error(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class(200)})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "x")
    res = run_cli("lint", "--base", "no-such-branch", cwd=tmp_path)
    assert res.exit_code == 2, res.stdout
    assert res.stdout == ""
    assert res.stderr.startswith("allocatable: error: ") and res.stderr.count("\n") == 1
    assert "no-such-branch" in res.stderr


def test_base_reports_a_lowered_percent_and_suppression_applies(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "-b", "main")
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": _class(300)})
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "base")
    write_repo(tmp_path / "policies", {"cc.yaml": _class(150)})
    res = run_cli("lint", "--base", "main", cwd=tmp_path)
    assert res.exit_code == 0
    assert "cpu commit lowered from 300% (at main) to 150%" in res.stdout and "[AL210]" in res.stdout
    assert run_cli("lint", "--base", "main", "--strict", cwd=tmp_path).exit_code == 1
    annotated = _class(150).replace(
        "  name: batch\n", '  name: batch\n  annotations:\n    allocatable.dev/ignore: "AL210: drained first"\n'
    )
    write_repo(tmp_path / "policies", {"cc.yaml": annotated})
    res = run_cli("lint", "--base", "main", "--strict", cwd=tmp_path)
    assert res.exit_code == 0, res.stdout


def test_example_policy_repo_lints_clean_and_shows_the_linter_at_work() -> None:
    assert POLICIES == REPO_ROOT / "policies"
    res, findings = lint_json(REPO_ROOT)
    assert res.exit_code == 0
    assert sorted((f["code"], f["severity"]) for f in findings) == [
        ("AL204", "info"),
        ("AL204", "info"),
    ]
    strict = run_cli("lint", "--strict", "policies", cwd=REPO_ROOT)
    assert strict.exit_code == 0
