"""Lint rule AL320: two MachineConfigs would write /etc/node-sizing-enabled.env."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from renderer.lint.registry import all_rules
from renderer.lint.rule import DOC_HEADINGS
from support.factory import node_pool, node_selector, reservation_policy, write_repo


def _lint(repo: Path, pools: list[tuple[str, str, dict[str, Any]]]) -> list[str]:
    """Lint an OpenShift pool per (name, MachineConfigPool, ReservationPolicy spec), each with its policy."""
    files = {
        f"{name}.yaml": [
            node_pool(
                name,
                tier=None,
                labels={"tier": name},
                cpu="16",
                memory="64Gi",
                count=2,
                platform="openshift",
                machineConfigPool=mcp,
            ),
            reservation_policy(name, selector=node_selector("tier", [name]), **spec),
        ]
        for name, mcp, spec in pools
    }
    write_repo(repo, files)
    res = run_cli("lint", str(repo))
    return [line for line in res.stdout.splitlines() if "[AL320]" in line]


#: ``autoSizing`` by OpenShift's formula, with a fallback when given.
def _auto(**fallback: str) -> dict[str, Any]:
    return {"formula": "openshift", **({"fallback": fallback} if fallback else {})}


def test_docstring_has_the_rule_headings() -> None:
    doc = all_rules()["AL320"].doc()
    for heading in DOC_HEADINGS:
        assert f"## {heading}" in doc


@pytest.mark.parametrize(
    "spec",
    [
        {"autoSizing": _auto(memory="4Gi"), "systemReserved": {"memory": "2Gi"}},
        {"autoSizing": _auto(cpu="1"), "systemReserved": {"ephemeral-storage": "2Gi"}},
    ],
)
def test_fallbacks_with_system_reserved_collide(repo: Path, spec: dict[str, Any]) -> None:
    (line,) = _lint(repo, [("w", "worker", spec)])
    assert ": error: " in line
    assert "99-worker-allocatable-node-sizing" in line and "99-worker-generated-kubelet" in line
    assert "auto sizing stays off on MachineConfigPool worker" in line and line.endswith("(ReservationPolicy/w)")


def test_control_plane_auto_sizing_with_system_reserved_collides(repo: Path) -> None:
    (line,) = _lint(repo, [("cp", "master", {"autoSizing": _auto(), "systemReserved": {"cpu": "500m"}})])
    assert "99-master-allocatable-node-sizing" in line and "auto sizing stays off on MachineConfigPool master" in line


@pytest.mark.parametrize(
    ("mcp", "spec"),
    [
        ("worker", {"autoSizing": _auto(memory="4Gi")}),
        ("worker", {"autoSizing": _auto()}),
        ("master", {"autoSizing": _auto()}),
        ("worker", {"systemReserved": {"memory": "2Gi"}}),
        ("worker", {"autoSizing": _auto(memory="4Gi"), "systemReserved": {"pid": "1000"}}),
    ],
)
def test_one_owner_is_fine(repo: Path, mcp: str, spec: dict[str, Any]) -> None:
    assert _lint(repo, [("p", mcp, spec)]) == []


def test_custom_pool_differing_from_inherited_worker_file_warns(repo: Path) -> None:
    lines = _lint(
        repo,
        [
            ("w", "worker", {"autoSizing": _auto(memory="4Gi")}),
            ("i", "infra", {"autoSizing": _auto()}),
        ],
    )
    (line,) = lines
    assert ": warning: " in line and "on infra nodes" in line and "4.15" in line
    assert line.endswith("(ReservationPolicy/i)")


def test_custom_pool_with_the_same_file_as_worker_is_fine(repo: Path) -> None:
    spec = {"autoSizing": _auto()}
    assert _lint(repo, [("w", "worker", spec), ("i", "infra", spec)]) == []
