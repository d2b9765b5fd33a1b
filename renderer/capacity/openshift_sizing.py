"""Who writes ``/etc/node-sizing-enabled.env`` on an OpenShift pool: one owner per file.

The Machine Config Operator turns a KubeletConfig into MachineConfig ``99-<pool>-generated-kubelet`` and puts the
env file into it exactly when the KubeletConfig sets ``spec.autoSizingReserved`` (NODE_SIZING_ENABLED=<value>, default
values) or sets cpu, memory or ephemeral-storage in ``kubeletConfig.systemReserved`` (NODE_SIZING_ENABLED=false and
those values, moved out of kubelet.conf). A KubeletConfig cannot carry auto-sizing *fallback* values: the operator
rejects autoSizingReserved together with systemReserved.

So, per MachineConfigPool:

- auto sizing (a formula the node computes itself, ``on_node``: the OpenShift formulas) without fallbacks on a
  worker or custom pool:
  the KubeletConfig says ``autoSizingReserved: true`` and the operator owns the file;
- auto sizing with fallbacks, or on the control plane (``master``, where the platform default is off):
  the KubeletConfig sets neither autoSizingReserved nor systemReserved, so the operator does not write the file,
  and MachineConfig ``99-<pool>-allocatable-node-sizing`` (ours) owns it;
- explicit systemReserved without auto sizing: the KubeletConfig carries it and the operator owns the file.

Lint rule AL320 reports a policy that would still make both write it. This module is pure (no I/O, no heavy
imports) so that the rule and the render targets share one decision.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.models.reservationpolicy import ReservationPolicy

ENV_FILE = "/etc/node-sizing-enabled.env"


def node_computed_formulas() -> tuple[str, ...]:
    """The formulas MachineConfigPool nodes compute themselves when auto sizing is on (renderer/platforms/)."""
    from renderer import platforms

    return tuple(
        f.name
        for name in platforms.names()
        if platforms.get(name).machine_config_pools
        for f in platforms.get(name).formulas
        if f.on_node
    )


CONTROL_PLANE_POOLS = ("master",)
DEFAULT_POOLS = ("master", "worker")
ENV_KEYS = ("cpu", "memory", "ephemeral-storage")
# What dynamic-system-reserved-calc.sh is given when the env file leaves a value out (and what the MCO writes).
ENV_DEFAULTS = {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"}


def machineconfig_name(mcp: str) -> str:
    return f"99-{mcp}-allocatable-node-sizing"


def generated_kubelet_name(mcp: str) -> str:
    return f"99-{mcp}-generated-kubelet"


def pool_label(mcp: str) -> str:
    return f"pools.operator.machineconfiguration.openshift.io/{mcp}"


class EnvValues(NamedTuple):
    """The content of the env file: NODE_SIZING_ENABLED and the three SYSTEM_RESERVED_* values."""

    enabled: bool
    cpu: str
    memory: str
    ephemeral_storage: str

    @classmethod
    def of(cls, enabled: bool, values: dict[str, str]) -> EnvValues:
        merged = {**ENV_DEFAULTS, **values}
        return cls(enabled, merged["cpu"], merged["memory"], merged["ephemeral-storage"])

    def describe(self) -> str:
        return (
            f"NODE_SIZING_ENABLED={'true' if self.enabled else 'false'}, SYSTEM_RESERVED_CPU={self.cpu}, "
            f"SYSTEM_RESERVED_MEMORY={self.memory}, SYSTEM_RESERVED_ES={self.ephemeral_storage}"
        )


class SizingPlan(NamedTuple):
    """What the KubeletConfig and our MachineConfig do about auto node sizing for one pool's policy."""

    mcp: str
    auto_sizing: bool  # the policy uses an OpenShift auto-sizing formula
    auto_sizing_reserved: bool | None  # KubeletConfig spec.autoSizingReserved (None: not set)
    kubeletconfig_env: EnvValues | None  # what 99-<mcp>-generated-kubelet writes (None: nothing)
    machineconfig_env: EnvValues | None  # what 99-<mcp>-allocatable-node-sizing writes (None: not rendered)
    explicit_system_reserved: tuple[str, ...]  # systemReserved keys the policy sets that go to the env file
    reason: str  # why the MachineConfig is rendered ("" when it is not)

    @property
    def writers(self) -> list[str]:
        out = []
        if self.machineconfig_env is not None:
            out.append(machineconfig_name(self.mcp))
        if self.kubeletconfig_env is not None:
            out.append(generated_kubelet_name(self.mcp))
        return out

    @property
    def env(self) -> EnvValues | None:
        """The env file the pool's nodes end up with from this plan (the later MachineConfig name wins)."""
        return self.kubeletconfig_env if self.kubeletconfig_env is not None else self.machineconfig_env


def sizing_plan(pool: Pool, policy: ReservationPolicy | None) -> SizingPlan | None:
    """The plan for an OpenShift pool with a MachineConfigPool and a ReservationPolicy; None for any other pool."""
    mcp = pool.machine_config_pool
    from renderer import platforms

    if not platforms.get(pool.platform).machine_config_pools or mcp is None or policy is None:
        return None
    spec = policy.spec
    formula = spec.autoSizing.formula if spec.autoSizing is not None else None
    auto = formula in node_computed_formulas()
    fallback = dict(spec.autoSizing.fallback or {}) if spec.autoSizing is not None else {}
    explicit = {k: str(v) for k, v in (spec.systemReserved or {}).items() if k in ENV_KEYS}

    reason = ""
    if auto and fallback:
        reason = "the policy sets auto-sizing fallbacks, which a KubeletConfig cannot carry"
    elif auto and mcp in CONTROL_PLANE_POOLS:
        reason = "auto sizing is off by default on the control plane"
    machineconfig_env = (
        EnvValues.of(True, {k: str(v) for k, v in fallback.items() if k in ENV_KEYS}) if reason else None
    )
    auto_sizing_reserved = True if auto and not reason else None
    if explicit:
        kubeletconfig_env: EnvValues | None = EnvValues.of(False, explicit)
    elif auto_sizing_reserved:
        kubeletconfig_env = EnvValues.of(True, {})
    else:
        kubeletconfig_env = None
    return SizingPlan(
        mcp=mcp,
        auto_sizing=auto,
        auto_sizing_reserved=auto_sizing_reserved,
        kubeletconfig_env=kubeletconfig_env,
        machineconfig_env=machineconfig_env,
        explicit_system_reserved=tuple(k for k in ENV_KEYS if k in explicit),
        reason=reason,
    )
