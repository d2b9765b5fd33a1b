"""``allocatable render``: exit codes, refusal on findings, --stdout, --check, --target, settings."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from render_support import CASES

from conftest import chdir, run_cli
from support.factory import Document, node_pool, node_selector, reservation_policy, write_repo


def pool(
    name: str, tier: str, platform: str = "generic", cpu: str = "8", memory: str = "32Gi", **spec: Any
) -> Document:
    capacity = {"ephemeral-storage": "100Gi", "pods": "110"}
    labels = {"tier": tier}
    return node_pool(
        name, tier=None, labels=labels, cpu=cpu, memory=memory, count=2, capacity=capacity, platform=platform, **spec
    )


def policy(name: str, tiers: list[str], **spec: Any) -> Document:
    return reservation_policy(name, selector=node_selector("tier", tiers), **spec)


def simple_repo(root: Path) -> Path:
    return write_repo(
        root,
        {
            "pools.yaml": [pool("web", "web"), policy("web", ["web"], kubeReserved={"cpu": "100m", "memory": "1Gi"})],
        },
    )


def test_renders_into_the_output_directory(repo: Path, tmp_path: Path) -> None:
    simple_repo(repo)
    out = tmp_path / "out"
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    assert res.stdout == ""
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        ".allocatable-rendered.json",
        "kubelet/web.yaml",
        "kustomization.yaml",
    ]
    kubelet = yaml.safe_load((out / "kubelet/web.yaml").read_text())
    assert kubelet["kubeReserved"] == {"cpu": "100m", "memory": "1Gi"}
    assert "2 files (2 written, 0 unchanged)" in res.stderr


def test_invalid_input_exits_2_and_writes_nothing(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"bad.yaml": "apiVersion: v1\nkind: Nonsense\nmetadata: {name: x}\n"})
    res = run_cli("render", str(repo), "-o", str(tmp_path / "out"))
    assert res.exit_code == 2
    assert "[AL003]" in res.stdout and res.stderr == "render: 0 objects in 1 file: 1 error\n"
    assert not (tmp_path / "out").exists()


def test_lint_errors_exit_1_and_write_nothing(repo: Path, tmp_path: Path) -> None:
    simple_repo(repo)
    write_repo(
        repo,
        {
            "cc.yaml": """
            apiVersion: node.k8s.io/v1alpha1
            kind: CommitClass
            metadata: {name: greedy}
            spec:
              selector: [{matchExpressions: [{key: tier, operator: In, values: [web]}]}]
              resources: [{name: memory, percent: 150}]
            """
        },
    )
    res = run_cli("render", str(repo), "-o", str(tmp_path / "out"))
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    assert any(line.endswith("(CommitClass/greedy)") and "[AL201]" in line and ": error: " in line for line in lines)
    assert "refusing to render" in res.stderr
    assert not (tmp_path / "out").exists()


def test_pools_of_one_machineconfigpool_must_agree(repo: Path, tmp_path: Path) -> None:
    write_repo(
        repo,
        {
            "pools.yaml": [
                pool("small", "a", "openshift", machineConfigPool="worker"),
                pool("big", "b", "openshift", cpu="64", memory="512Gi", machineConfigPool="worker"),
                policy("aks-style", ["a", "b"], autoSizing={"formula": "aks"}),
            ],
        },
    )
    res = run_cli("render", str(repo), "-o", str(tmp_path / "out"))
    assert res.exit_code == 1, res.stderr
    (line,) = [ln for ln in res.stdout.splitlines() if "[AL801]" in ln]
    assert "NodePool/big and NodePool/small in MachineConfigPool worker would render different" in line
    assert "kubeletConfig.kubeReserved.cpu" in line
    assert "pools.yaml:" in line.split(": error: ")[0]
    assert not (tmp_path / "out").exists()


def test_pool_without_policy_in_a_configured_machineconfigpool_is_an_error(repo: Path, tmp_path: Path) -> None:
    write_repo(
        repo,
        {
            "pools.yaml": [
                pool("a", "a", "openshift", machineConfigPool="worker"),
                pool("b", "b", "openshift", machineConfigPool="worker"),
                policy("only-a", ["a"], kubeReserved={"cpu": "100m"}),
            ],
        },
    )
    res = run_cli("render", str(repo), "-o", str(tmp_path / "out"))
    assert res.exit_code == 1
    assert "[AL801]" in res.stdout and "configuration: set vs nothing" in res.stdout


def test_operator_owned_field_is_dropped_with_a_warning_when_lint_allows_it(repo: Path, tmp_path: Path) -> None:
    write_repo(
        repo,
        {
            ".allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n"
            "rules: {AL321: {enabled: false}}\n",
            "pools.yaml": [
                pool("w", "w", "openshift", machineConfigPool="worker"),
                pool("w2", "w2", "openshift", cpu="32", machineConfigPool="worker"),
                policy(
                    "w",
                    ["w", "w2"],
                    kubeReserved={"cpu": "100m"},
                    cgroupDriver="systemd",
                    kubelet={"clusterDomain": "x.local"},
                ),
            ],
        },
    )
    out = tmp_path / "out"
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    warnings = [ln for ln in res.stdout.splitlines() if "[AL803]" in ln]
    assert len(warnings) == 2 and all(": warning: " in w for w in warnings), "once per field, not once per pool"
    kc = yaml.safe_load((out / "openshift/worker/kubeletconfig.yaml").read_text())
    assert kc["spec"]["kubeletConfig"] == {"kubeReserved": {"cpu": "100m"}}


def test_openshift_pool_without_machineconfigpool_is_reported(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"pools.yaml": [pool("w", "w", "openshift"), policy("w", ["w"], kubeReserved={"cpu": "1"})]})
    res = run_cli("render", str(repo), "-o", str(tmp_path / "out"))
    assert res.exit_code == 0
    assert "[AL806]" in res.stdout and "names no MachineConfigPool" in res.stdout


def test_stdout_prints_only_cluster_objects(tmp_path: Path) -> None:
    res = run_cli("render", str(CASES / "mixed"), "--stdout", cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    docs = [d for d in yaml.safe_load_all(res.stdout) if d]
    kinds = sorted(d["kind"] for d in docs)
    assert kinds == ["CommitClass", "CommitClass", "CommitClass", "ConfigMap", "RuntimeClass"]
    assert res.stdout.startswith("# generated by allocatable")
    assert "KubeletConfiguration" not in res.stdout
    assert not any(tmp_path.iterdir()), "--stdout writes no files"


def test_stdout_with_output_is_a_usage_error(tmp_path: Path) -> None:
    res = run_cli("render", str(CASES / "mixed"), "--stdout", "-o", str(tmp_path / "x"))
    assert res.exit_code == 2 and "--stdout writes no files" in res.stderr


def test_stdout_and_check_exclude_each_other() -> None:
    res = run_cli("render", str(CASES / "mixed"), "--stdout", "--check")
    assert res.exit_code == 2 and "not allowed with argument" in res.stderr


def test_check_detects_drift_and_passes_when_current(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("render", str(CASES / "openshift"), "-o", str(out)).exit_code == 0
    res = run_cli("render", str(CASES / "openshift"), "--check", "-o", str(out))
    assert res.exit_code == 0 and res.stdout == "" and "is up to date (5 files)" in res.stderr
    target = out / "openshift/worker/kubeletconfig.yaml"
    target.write_text(target.read_text().replace("maxPods: 250", "maxPods: 500"))
    (out / "openshift/gpu/machineconfig.yaml").unlink()
    res = run_cli("render", str(CASES / "openshift"), "--check", "-o", str(out))
    assert res.exit_code == 1
    assert f"{(out / 'openshift/worker/kubeletconfig.yaml').as_posix()}: changed" in res.stdout
    assert "-    maxPods: 500" in res.stdout and "+    maxPods: 250" in res.stdout
    assert f"{(out / 'openshift/gpu/machineconfig.yaml').as_posix()}: missing" in res.stdout
    assert "2 files differ from" in res.stderr and "run `allocatable render" in res.stderr
    assert target.read_text().count("maxPods: 500") == 1, "--check writes nothing"


def test_target_selects_and_unknown_target_is_a_usage_error(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = run_cli("render", str(CASES / "mixed"), "--target", "kubelet", "-o", str(out))
    assert res.exit_code == 0, res.stderr
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.yaml")) == [
        "kubelet/batch.yaml",
        "kubelet/web.yaml",
    ]
    res = run_cli("render", str(CASES / "mixed"), "--target", "kubelets", "-o", str(out))
    assert res.exit_code == 2 and "unknown render target kubelets" in res.stderr and "kubelet," in res.stderr


def test_settings_targets_and_koordinator_switch(repo: Path, tmp_path: Path) -> None:
    shutil.copytree(CASES / "mixed", repo, dirs_exist_ok=True)
    (repo / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrender: {koordinator: false}\n"
    )
    out = tmp_path / "out"
    assert run_cli("render", str(repo), "-o", str(out)).exit_code == 0
    assert not (out / "manifests/koordinator.yaml").exists()
    assert not (out / "manifests/commitclasses.yaml").exists(), "commitclasses is off by default"
    res = run_cli("render", str(repo), "--target", "koordinator", "-o", str(out))
    assert res.exit_code == 2 and "render.koordinator: false" in res.stderr
    (repo / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrender: {targets: [nope]}\n"
    )
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 2 and "unknown render target nope" in res.stderr


def test_output_dir_defaults_to_settings_relative_to_working_directory(repo: Path, tmp_path: Path) -> None:
    simple_repo(repo)
    (repo / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrender: {outputDir: build/cluster}\n"
    )
    res = run_cli("render", "policies", cwd=tmp_path)
    assert res.exit_code == 0, res.stderr
    assert (tmp_path / "build/cluster/kubelet/web.yaml").is_file()


def test_output_inside_the_policy_directory_is_refused(repo: Path) -> None:
    simple_repo(repo)
    res = run_cli("render", str(repo), "-o", str(repo / "rendered"))
    assert res.exit_code == 2 and "inside the policy directory" in res.stderr
    assert not (repo / "rendered").exists()


def test_output_errors_are_one_line_with_exit_2(repo: Path, tmp_path: Path) -> None:
    simple_repo(repo)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = run_cli("render", str(repo), "-o", str(blocker / "out"))
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("allocatable: error: ")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "kubelet").symlink_to(tmp_path)
    res = run_cli("render", str(repo), "-o", str(tmp_path / "out"))
    assert res.exit_code == 2 and "symlink" in res.stderr and "Traceback" not in res.stderr


def test_same_bytes_from_any_working_directory(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert run_cli("render", str(CASES / "openshift"), "-o", str(a)).exit_code == 0
    with chdir(CASES):
        assert run_cli("render", "openshift", "-o", str(b)).exit_code == 0
    files_a = {p.relative_to(a): p.read_bytes() for p in a.rglob("*") if p.is_file()}
    files_b = {p.relative_to(b): p.read_bytes() for p in b.rglob("*") if p.is_file()}
    assert files_a == files_b


@pytest.mark.parametrize("case", ["openshift", "mixed"])
def test_cases_are_lint_clean_so_the_cli_renders_them(case: str, tmp_path: Path) -> None:
    res = run_cli("render", str(CASES / case), "-o", str(tmp_path / "out"))
    assert res.exit_code == 0, res.stderr
