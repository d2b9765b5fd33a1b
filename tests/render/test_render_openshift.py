"""OpenShift: who owns /etc/node-sizing-enabled.env, and what the KubeletConfig says."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from render_support import documents, render_dir

from renderer.capacity.openshift_sizing import EnvValues, sizing_plan
from renderer.findings import SourceRef
from renderer.models.inventory import Pool
from renderer.models.schema.reservationpolicy import ReservationPolicy
from renderer.quantity import Quantity
from support.factory import node_pool, node_selector, reservation_policy, write_repo


def _pool(mcp: str | None, platform: str = "openshift") -> Pool:
    return Pool(
        name="p",
        origin="NodePool",
        labels={},
        capacity={"cpu": Quantity.parse("8"), "memory": Quantity.parse("32Gi")},
        count=1,
        platform=platform,
        machine_config_pool=mcp,
        max_pods=None,
        source=SourceRef("p.yaml"),
    )


def _policy(spec: dict[str, Any]) -> ReservationPolicy:
    return ReservationPolicy.model_validate(
        {
            "apiVersion": "policy.allocatable.dev/v1alpha1",
            "kind": "ReservationPolicy",
            "metadata": {"name": "r"},
            "spec": {"selector": [], **spec},
        }
    )


DEFAULTS_ON = EnvValues(True, "500m", "1Gi", "1Gi")


@pytest.mark.parametrize(
    ("mcp", "spec", "asr", "kc_env", "mc_env"),
    [
        ("worker", {"autoSizing": {"formula": "openshift"}}, True, DEFAULTS_ON, None),
        ("infra", {"autoSizing": {"formula": "openshift-4.20"}}, True, DEFAULTS_ON, None),
        ("master", {"autoSizing": {"formula": "openshift"}}, None, None, DEFAULTS_ON),
        (
            "worker",
            {"autoSizing": {"formula": "openshift", "fallback": {"memory": "4Gi", "cpu": "1"}}},
            None,
            None,
            EnvValues(True, "1", "4Gi", "1Gi"),
        ),
        ("worker", {"systemReserved": {"memory": "2Gi"}}, None, EnvValues(False, "500m", "2Gi", "1Gi"), None),
        ("worker", {"systemReserved": {"pid": "1000"}}, None, None, None),
        ("worker", {"kubeReserved": {"cpu": "1"}}, None, None, None),
        ("worker", {"autoSizing": {"formula": "gke"}}, None, None, None),
        (
            "worker",
            {"autoSizing": {"formula": "openshift", "fallback": {"memory": "4Gi"}}, "systemReserved": {"cpu": "1"}},
            None,
            EnvValues(False, "1", "1Gi", "1Gi"),
            EnvValues(True, "500m", "4Gi", "1Gi"),
        ),
    ],
)
def test_sizing_plan(
    mcp: str, spec: dict[str, Any], asr: bool | None, kc_env: EnvValues | None, mc_env: EnvValues | None
) -> None:
    plan = sizing_plan(_pool(mcp), _policy(spec))
    assert plan is not None
    assert plan.auto_sizing_reserved is asr
    assert plan.kubeletconfig_env == kc_env
    assert plan.machineconfig_env == mc_env
    assert not (plan.auto_sizing_reserved and plan.machineconfig_env), (
        "the KubeletConfig never enables it when we own the file"
    )


def test_no_plan_outside_openshift_pools() -> None:
    policy = _policy({"autoSizing": {"formula": "openshift"}})
    assert sizing_plan(_pool(None), policy) is None
    assert sizing_plan(_pool("worker", "eks"), policy) is None
    assert sizing_plan(_pool("worker"), None) is None


def _render(repo: Path, mcp: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Render an OpenShift pool ``p`` of MachineConfigPool ``mcp`` with a ReservationPolicy of ``spec``."""
    pool = node_pool(
        "p",
        tier=None,
        labels={"tier": "p"},
        cpu="16",
        memory="64Gi",
        count=2,
        platform="openshift",
        machineConfigPool=mcp,
    )
    policy = reservation_policy("r", selector=node_selector("tier", ["p"]), **spec)
    write_repo(repo, {"pool.yaml": pool, "policy.yaml": policy})
    result = render_dir(repo, ["openshift-kubeletconfig", "openshift-machineconfig"])
    out: dict[str, Any] = {"findings": result.findings}
    for path, data in result.files.items():
        (doc,) = documents(data)
        out[path] = doc
    return out


def test_auto_sizing_without_fallback_is_owned_by_the_kubeletconfig(repo: Path) -> None:
    out = _render(repo, "worker", {"autoSizing": {"formula": "openshift"}, "kubeReserved": {"memory": "1Gi"}})
    spec = out["openshift/worker/kubeletconfig.yaml"]["spec"]
    assert spec["autoSizingReserved"] is True
    assert "systemReserved" not in spec["kubeletConfig"], "the node computes it"
    assert "evictionHard" not in spec["kubeletConfig"], "OpenShift's own defaults stay in charge"
    assert "openshift/worker/machineconfig.yaml" not in out


def test_fallbacks_are_owned_by_our_machineconfig_and_the_kubeletconfig_stays_out(repo: Path) -> None:
    out = _render(repo, "worker", {"autoSizing": {"formula": "openshift", "fallback": {"memory": "4Gi"}}})
    assert "openshift/worker/kubeletconfig.yaml" not in out, "nothing else to say: no KubeletConfig"
    mc = out["openshift/worker/machineconfig.yaml"]
    assert mc["metadata"]["name"] == "99-worker-allocatable-node-sizing"
    assert mc["metadata"]["labels"]["machineconfiguration.openshift.io/role"] == "worker"
    assert mc["spec"]["config"]["ignition"]["version"] == "3.2.0"


def test_explicit_system_reserved_goes_to_the_kubeletconfig(repo: Path) -> None:
    out = _render(repo, "infra", {"systemReserved": {"cpu": "500m", "memory": "2Gi"}})
    spec = out["openshift/infra/kubeletconfig.yaml"]["spec"]
    assert "autoSizingReserved" not in spec
    assert spec["kubeletConfig"]["systemReserved"] == {"cpu": "500m", "memory": "2Gi"}


def test_auto_sizing_with_system_reserved_is_refused(repo: Path) -> None:
    out = _render(repo, "worker", {"autoSizing": {"formula": "openshift"}, "systemReserved": {"memory": "2Gi"}})
    (finding,) = [f for f in out["findings"] if f.code == "AL804"]
    assert finding.severity == "error" and "cannot be set together" in finding.message


def test_negative_fallback_is_refused(repo: Path) -> None:
    """Refused before any render (validation, since issue 34), in the kubelet's words: a SYSTEM_RESERVED_* value
    becomes the kubelet's --system-reserved (cmd/kubelet/app/server.go parseResourceList refuses a negative one)."""
    with pytest.raises(AssertionError, match='resource quantity for "memory" cannot be negative: -1Gi'):
        _render(repo, "worker", {"autoSizing": {"formula": "openshift", "fallback": {"memory": "-1Gi"}}})


def test_unknown_fallback_key_is_refused(repo: Path) -> None:
    out = _render(
        repo, "worker", {"autoSizing": {"formula": "openshift", "fallback": {"memory": "4Gi", "pid": "1000"}}}
    )
    (finding,) = [f for f in out["findings"] if f.code == "AL805"]
    assert finding.severity == "error" and "'pid'" in finding.message
    assert finding.field_path == ("spec", "autoSizing", "fallback", "pid")
