"""Monorepos: paths that are not policies (a Helm chart, kustomize files) are left out with ``exclude:`` in
``.allocatable.yaml``, ``--exclude GLOB`` on the command line, or ``.gitignore`` (issue 34, item 3).

The scenario: a platform team's GitOps directory holds the policies next to a Helm chart (``Chart.yaml``,
``templates/`` with Go template syntax) and kustomize files — what the issue reproduced. Before, every command gave
hard errors with no way out. Patterns follow gitignore's rules (https://git-scm.com/docs/gitignore, as pathspec
implements them); what each pattern must match is worked out from those rules beside each case.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from renderer.loading.files import display_path
from support.factory import node_pool, write_file, write_repo

POOL = node_pool(
    "general",
    tier=None,
    labels={"node.kubernetes.io/instance-type": "m5.large"},
    cpu="2",
    memory="8Gi",
    capacity={"pods": "29"},
    count=3,
    platform="eks",
)
# Text: a test locates a bad pattern at its line in this file.
SETTINGS = "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n"
CHART = {
    "charts/metrics/Chart.yaml": "apiVersion: v2\nname: metrics\nversion: 0.1.0\n",
    "charts/metrics/values.yaml": "replicas: 2\n",
    "charts/metrics/templates/deployment.yaml": (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n"
        "spec:\n  replicas: {{ .Values.replicas }}\n"
    ),
}
KUSTOMIZE = {
    "kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n",
    "overlays/prod/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n",
}


def monorepo(root: Path, settings: str = SETTINGS) -> Path:
    return write_repo(root, {".allocatable.yaml": settings, "pools.yaml": POOL, **CHART, **KUSTOMIZE})


def findings(args: list[str]) -> tuple[int, list[dict[str, object]]]:
    r = run_cli(*args, "-o", "json")
    return r.exit_code, json.loads(r.stdout)["findings"] if r.stdout.strip() else []


def test_without_exclusions_a_foreign_kind_says_how_to_leave_it_out(tmp_path: Path) -> None:
    root = monorepo(tmp_path)
    r = run_cli("validate", str(root))
    assert r.exit_code == 2
    lines = {line.split(": ", 1)[0].rsplit("/", 1)[-1]: line for line in r.stdout.splitlines() if ": error: " in line}
    kustomization = next(
        line for line in r.stdout.splitlines() if line.startswith(f"{display_path(root / 'kustomization.yaml')}:")
    )
    assert 'unsupported kind "Kustomization"' in kustomization
    assert 'exclude: ["kustomization.yaml"]' in kustomization and "--exclude kustomization.yaml" in kustomization
    # a Helm chart's files: the hint names the chart's directory (Chart.yaml beside or above), not each file
    chart_lines = [line for line in r.stdout.splitlines() if line.startswith(f"{display_path(root / 'charts')}/")]
    assert chart_lines and all('exclude: ["charts/metrics/"]' in line for line in chart_lines), chart_lines
    assert lines


@pytest.mark.parametrize("command", ["validate", "lint", "explain"])
def test_exclude_in_settings_leaves_them_out(tmp_path: Path, command: str) -> None:
    # "charts/": a directory pattern, matching at any depth (no slash but the trailing one);
    # "kustomization.yaml": a name, matching at any depth — the root's and overlays/prod/'s.
    root = monorepo(tmp_path, SETTINGS + "exclude: [charts/, kustomization.yaml]\n")
    r = run_cli(command, str(root))
    assert r.exit_code == 0, r.stdout + r.stderr


@pytest.mark.parametrize("command", ["validate", "lint", "explain"])
def test_exclude_on_the_command_line_is_repeatable(tmp_path: Path, command: str) -> None:
    root = monorepo(tmp_path)
    r = run_cli(command, str(root), "--exclude", "charts/", "--exclude", "**/kustomization.yaml")
    assert r.exit_code == 0, r.stdout + r.stderr
    # one pattern left out: only the other's files are reported
    r = run_cli("validate", str(root), "--exclude", "charts/")
    assert r.exit_code == 2 and "charts/" not in r.stdout and "kustomization.yaml" in r.stdout


def test_render_check_and_render_honour_exclusions(tmp_path: Path) -> None:
    root = monorepo(tmp_path / "repo", SETTINGS + "exclude: [charts/, kustomization.yaml]\n")
    out = tmp_path / "out"
    assert run_cli("render", str(root), "-o", str(out)).exit_code == 0
    r = run_cli("render", "--check", str(root), "-o", str(out))
    assert r.exit_code == 0, r.stdout + r.stderr


def test_an_anchored_pattern_matches_at_the_root_only(tmp_path: Path) -> None:
    # "/kustomization.yaml" has a leading slash: relative to the policy repo root only, so overlays/prod/'s stays
    root = monorepo(tmp_path, SETTINGS + "exclude: [charts/, /kustomization.yaml]\n")
    code, found = findings(["validate", str(root)])
    assert code == 2 and {f["path"] for f in found} == {display_path(root / "overlays" / "prod" / "kustomization.yaml")}


def test_a_file_named_on_the_command_line_is_always_read(tmp_path: Path) -> None:
    root = monorepo(tmp_path, SETTINGS + "exclude: [charts/, kustomization.yaml]\n")
    r = run_cli("validate", str(root), str(root / "kustomization.yaml"))
    assert r.exit_code == 2 and 'unsupported kind "Kustomization"' in r.stdout


def test_gitignored_paths_are_left_out_inside_a_git_repository(tmp_path: Path) -> None:
    root = monorepo(tmp_path)
    (root / ".gitignore").write_text("# generated\ncharts/\n", encoding="utf-8")
    (root / "overlays" / ".gitignore").write_text("prod/\n", encoding="utf-8")
    # outside git, .gitignore means nothing (as for git and ruff): the chart is read
    code, found = findings(["validate", str(root), "--exclude", "/kustomization.yaml"])
    assert code == 2 and any("/charts/" in str(f["path"]) for f in found)
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert run_cli("validate", str(root), "--exclude", "/kustomization.yaml").exit_code == 0
    # a nested .gitignore applies below its own directory; a negation in a deeper one wins
    (root / "overlays" / ".gitignore").write_text("", encoding="utf-8")
    code, found = findings(["validate", str(root), "--exclude", "/kustomization.yaml"])
    assert {f["path"] for f in found} == {display_path(root / "overlays" / "prod" / "kustomization.yaml")}
    # .git/info/exclude counts too
    (tmp_path / ".git" / "info").mkdir(exist_ok=True)
    (tmp_path / ".git" / "info" / "exclude").write_text("overlays/\n", encoding="utf-8")
    assert run_cli("validate", str(root), "--exclude", "/kustomization.yaml").exit_code == 0
    # and the setting turns it off
    (root / ".allocatable.yaml").write_text(SETTINGS + "respectGitignore: false\n", encoding="utf-8")
    code, found = findings(["validate", str(root), "--exclude", "/kustomization.yaml"])
    assert code == 2 and any("/charts/" in str(f["path"]) for f in found)


def test_a_gitignore_above_the_policy_repo_applies(tmp_path: Path) -> None:
    """The repository's top-level .gitignore covers a policy repo in a subdirectory, as git reads it."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("platform/charts/\nkustomization.yaml\n", encoding="utf-8")
    root = monorepo(tmp_path / "platform")
    assert run_cli("validate", str(root)).exit_code == 0


def test_a_bad_pattern_is_one_located_error(tmp_path: Path) -> None:
    root = monorepo(tmp_path, SETTINGS + 'exclude: [charts/, "\\\\"]\n')  # one backslash: an escape of nothing
    code, found = findings(["validate", str(root)])
    # the settings are refused as a whole (so the kustomization files are read, and reported, too)
    assert code == 2 and (display_path(root / ".allocatable.yaml"), 3, "AL004") in [
        (f["path"], f["line"], f["code"]) for f in found
    ]
    r = run_cli("lint", str(root), "--exclude", "\\")
    assert (
        r.exit_code == 2
        and r.stderr.startswith("allocatable: error: argument --exclude")
        and "Traceback" not in r.stderr
    )


def test_hidden_directories_are_still_skipped_and_symlinks_still_checked(tmp_path: Path) -> None:
    """Exclusions add to the walk's own rules (tests/hardening holds those); they take nothing away."""
    root = write_repo(
        tmp_path / "repo", {".allocatable.yaml": SETTINGS, "pools.yaml": POOL, ".hidden/x.yaml": "a: [\n"}
    )
    outside = tmp_path / "outside.yaml"
    write_file(outside, POOL)
    (root / "escape.yaml").symlink_to(outside)
    code, found = findings(["validate", str(root), "--exclude", "nothing-matches/"])
    assert code == 2 and [(f["code"], str(f["path"]).rsplit("/", 1)[-1]) for f in found] == [("AL006", "escape.yaml")]


def test_the_command_render_check_suggests_reads_what_it_read(tmp_path: Path) -> None:
    """``render --check`` ends by naming the command to run. Before, it kept the PATH only: run as said, without
    the ``--exclude`` the check was given, that command fails on the chart it was told to leave out (and without
    ``--target``, renders targets the check did not compare). Each option is worked out from what the check read:
    the exclusions and the file size limit decide what is read, ``--target`` what is rendered; a pattern the shell
    would expand is quoted."""
    root = monorepo(tmp_path / "repo")
    args = ["--exclude", "charts/", "--exclude", "**/kustomization.yaml", "--max-file-size", "100000"]
    r = run_cli("render", "repo", *args, "--target", "kubelet", "-o", "out", "--check", cwd=tmp_path)
    assert r.exit_code == 1, r.stdout + r.stderr
    suggested = (
        "allocatable render --exclude=charts/ '--exclude=**/kustomization.yaml' --max-file-size=100000 repo -o out "
        "--target=kubelet"
    )
    assert f"run `{suggested}`" in r.stderr
    # the command suggested, run as a shell splits it, renders where the check compared
    assert run_cli(*shlex.split(suggested)[1:], cwd=tmp_path).exit_code == 0
    assert (
        run_cli("render", str(root), *args, "--target", "kubelet", "-o", "out", "--check", cwd=tmp_path).exit_code == 0
    )
    # the same words when the check does not run because the policies do not validate
    (root / "bad.yaml").write_text("apiVersion: v1\nkind: Bogus\n", encoding="utf-8")
    r = run_cli("render", "repo", "--exclude", "charts/", "--check", cwd=tmp_path)
    assert r.exit_code == 2 and "run `allocatable validate --exclude=charts/ repo`" in r.stderr
