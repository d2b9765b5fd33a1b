"""Lint rule AL320: two MachineConfigs would write /etc/node-sizing-enabled.env."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import run_cli
from renderer.lint.registry import all_rules
from renderer.lint.rule import DOC_HEADINGS
from support.factory import write_repo

POOL = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata: {{name: {name}}}
spec:
  labels: {{tier: {name}}}
  capacity: {{cpu: "16", memory: 64Gi}}
  count: 2
  platform: openshift
  machineConfigPool: {mcp}
---
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata: {{name: {name}}}
spec:
  selector: [{{matchExpressions: [{{key: tier, operator: In, values: [{name}]}}]}}]
{body}
"""


def _lint(repo: Path, pools: list[tuple[str, str, str]]) -> list[str]:
    files = {f"{name}.yaml": POOL.format(name=name, mcp=mcp, body=body) for name, mcp, body in pools}
    write_repo(repo, files)
    res = run_cli("lint", str(repo))
    return [line for line in res.stdout.splitlines() if "[AL320]" in line]


def test_docstring_has_the_rule_headings() -> None:
    doc = all_rules()["AL320"].doc()
    for heading in DOC_HEADINGS:
        assert f"## {heading}" in doc


@pytest.mark.parametrize(
    "body",
    [
        "  autoSizing: {formula: openshift, fallback: {memory: 4Gi}}\n  systemReserved: {memory: 2Gi}",
        "  autoSizing: {formula: openshift, fallback: {cpu: '1'}}\n  systemReserved: {ephemeral-storage: 2Gi}",
    ],
)
def test_fallbacks_with_system_reserved_collide(repo: Path, body: str) -> None:
    (line,) = _lint(repo, [("w", "worker", body)])
    assert ": error: " in line
    assert "99-worker-allocatable-node-sizing" in line and "99-worker-generated-kubelet" in line
    assert "auto sizing stays off on MachineConfigPool worker" in line and line.endswith("(ReservationPolicy/w)")


def test_control_plane_auto_sizing_with_system_reserved_collides(repo: Path) -> None:
    (line,) = _lint(repo, [("cp", "master", "  autoSizing: {formula: openshift}\n  systemReserved: {cpu: 500m}")])
    assert "99-master-allocatable-node-sizing" in line and "auto sizing stays off on MachineConfigPool master" in line


@pytest.mark.parametrize(
    ("mcp", "body"),
    [
        ("worker", "  autoSizing: {formula: openshift, fallback: {memory: 4Gi}}"),
        ("worker", "  autoSizing: {formula: openshift}"),
        ("master", "  autoSizing: {formula: openshift}"),
        ("worker", "  systemReserved: {memory: 2Gi}"),
        ("worker", "  autoSizing: {formula: openshift, fallback: {memory: 4Gi}}\n  systemReserved: {pid: '1000'}"),
    ],
)
def test_one_owner_is_fine(repo: Path, mcp: str, body: str) -> None:
    assert _lint(repo, [("p", mcp, body)]) == []


def test_custom_pool_differing_from_inherited_worker_file_warns(repo: Path) -> None:
    lines = _lint(
        repo,
        [
            ("w", "worker", "  autoSizing: {formula: openshift, fallback: {memory: 4Gi}}"),
            ("i", "infra", "  autoSizing: {formula: openshift}"),
        ],
    )
    (line,) = lines
    assert ": warning: " in line and "on infra nodes" in line and "4.15" in line
    assert line.endswith("(ReservationPolicy/i)")


def test_custom_pool_with_the_same_file_as_worker_is_fine(repo: Path) -> None:
    body = "  autoSizing: {formula: openshift}"
    assert _lint(repo, [("w", "worker", body), ("i", "infra", body)]) == []
