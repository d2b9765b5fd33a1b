"""A path inside a policy repo is checked as part of that repo, the way ruff and pre-commit find their
configuration (issue 34, item 5).

The bundled ``policies/`` (its ``.allocatable.yaml`` at its root) is copied into a git repository; its known
findings are hand-checked from ``allocatable lint policies/`` on the whole repo: two AL204 infos, both in
``commitclasses/latency-critical-headroom.yaml``. Before, ``allocatable lint .`` in ``policies/pools`` linted that
directory alone (6 objects in 3 files, no settings, no cross-file rules: pools without their policies) and
``render --check`` there refused with six AL814 errors a whole-repo render does not have.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import POLICIES, REPO_ROOT, run_cli


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    top = tmp_path / "gitops"
    shutil.copytree(POLICIES, top / "policies")
    shutil.copytree(REPO_ROOT / "rendered", top / "rendered")
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    return top


def lint_json(*args: str, cwd: Path) -> tuple[int, dict[str, object], str]:
    r = run_cli("lint", *args, "-o", "json", cwd=cwd)
    return r.exit_code, json.loads(r.stdout), r.stderr


def test_a_subdirectory_is_linted_as_part_of_its_repo(repo: Path) -> None:
    whole = lint_json("policies", cwd=repo)
    assert whole[0] == 0 and [f["code"] for f in whole[1]["findings"]] == ["AL204", "AL204"]  # type: ignore[index]
    # from inside the subdirectory, as "." and as a path: the repo (17 objects, 12 files) is read
    for cwd, path in ((repo / "policies" / "pools", "."), (repo, "policies/pools")):
        code, report, stderr = lint_json(path, cwd=cwd)
        assert code == 0 and report["objects"] == 17 and report["files"] == 12, (cwd, path, report)
        assert report["findings"] == []  # the two infos are under commitclasses/, not under the path
        assert "findings under" in stderr and "2 more elsewhere in" in stderr
    # the directory holding the findings shows them, with the same paths as from the top
    code, report, _ = lint_json("policies/commitclasses", cwd=repo)
    assert [f["path"] for f in report["findings"]] == [  # type: ignore[index]
        "policies/commitclasses/latency-critical-headroom.yaml"
    ] * 2


def test_a_file_inside_a_repo_is_linted_as_part_of_it(repo: Path) -> None:
    target = repo / "policies" / "commitclasses" / "latency-critical-headroom.yaml"
    code, report, _ = lint_json(str(target.relative_to(repo)), cwd=repo)
    assert code == 0 and report["objects"] == 17 and len(report["findings"]) == 2  # type: ignore[arg-type]


def test_cross_file_rules_run_and_only_the_paths_findings_count(repo: Path) -> None:
    # A second ReservationPolicy selecting the same pool as reservations/eks.yaml's: AL102 on the pool (in pools/)
    # exists only when the two files are read together.
    extra = (repo / "policies" / "reservations" / "eks-static.yaml").read_text(encoding="utf-8")
    (repo / "policies" / "extra").mkdir()
    (repo / "policies" / "extra" / "twice.yaml").write_text(
        extra.replace("name: eks-static", "name: eks-static-twice"), encoding="utf-8"
    )
    code, report, _ = lint_json("policies", cwd=repo)
    pools_errors = [f for f in report["findings"] if "/pools/" in f["path"] and f["severity"] == "error"]  # type: ignore[index,union-attr]
    assert code == 1 and pools_errors
    pools = repo / "policies" / "pools"
    code, report, _ = lint_json(".", cwd=pools)
    shown = [f["path"] for f in report["findings"]]  # type: ignore[index]
    # relative to the working directory, through the repo root ("../pools/eks.yaml"): all of them in pools/
    assert code == 1 and shown and all((pools / path).resolve().parent == pools.resolve() for path in shown), shown
    code, report, _ = lint_json(".", cwd=repo / "policies" / "commitclasses")
    assert code == 0, "the errors are not under commitclasses/: this path is clean"


def test_validation_errors_elsewhere_stop_lint_and_are_shown(repo: Path) -> None:
    (repo / "policies" / "commitclasses" / "broken.yaml").write_text("kind: [\n", encoding="utf-8")
    r = run_cli("lint", ".", cwd=repo / "policies" / "pools")
    assert r.exit_code == 2 and "../commitclasses/broken.yaml:" in r.stdout


def test_render_check_from_a_subdirectory_reads_the_repo_and_prints_repo_relative_paths(repo: Path) -> None:
    sub = repo / "policies" / "pools"
    for args in ([], ["."]):
        r = run_cli("render", "--check", *args, cwd=sub)
        assert r.exit_code == 0, r.stdout + r.stderr
        assert r.stderr == "render --check: rendered is up to date (9 files)\n"
    (repo / "rendered" / "kubelet" / "eks-general-purpose.yaml").unlink()
    r = run_cli("render", "--check", cwd=sub)
    assert r.exit_code == 1 and r.stdout.splitlines()[0] == "rendered/kubelet/eks-general-purpose.yaml: missing"


def test_a_directory_without_settings_above_is_still_its_own_repo(tmp_path: Path) -> None:
    """No .allocatable.yaml at or above the path (up to the git top): the path is the repo, as before."""
    shutil.copytree(POLICIES / "pools", tmp_path / "pools")
    _, report, _ = lint_json("pools", cwd=tmp_path)
    assert report["objects"] == 6 and report["files"] == 3  # type: ignore[index]
