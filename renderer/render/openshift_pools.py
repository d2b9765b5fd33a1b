"""OpenShift pools grouped by MachineConfigPool: the KubeletConfig spec and env file each MachineConfigPool gets.

The kubelet of an OpenShift node is configured per MachineConfigPool, not per NodePool, so every pool of one
MachineConfigPool (NodePools and inventory Nodes alike) must render the same configuration. When two would not, the
render stage reports AL801 instead of silently picking one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from renderer import platforms
from renderer.capacity.kubeletfields import kubelet_fields, reserved_map
from renderer.capacity.openshift_sizing import (
    ENV_KEYS,
    EnvValues,
    SizingPlan,
    node_computed_formulas,
    pool_label,
    sizing_plan,
)
from renderer.models.record import field_names
from renderer.models.reservationpolicy import ReservationPolicySpec
from renderer.render.codes import (
    AutoSizingWithSystemReserved,
    NoMachineConfigPool,
    NotRenderable,
    PlatformOwnedField,
    PoolsDisagree,
)
from renderer.render.compare import first_difference
from renderer.render.target import RenderContext

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity

# KubeletConfiguration fields the Machine Config Operator sets itself and rejects in a KubeletConfig.
MCO_OWNED_FIELDS = (
    "cgroupDriver",
    "clusterDNS",
    "clusterDomain",
    "failSwapOn",
    "featureGates",
    "memorySwap",
    "staticPodPath",
)


def _node_sources() -> tuple[str, ...]:
    return tuple(f"formula:{f}" for f in node_computed_formulas())


@dataclass
class PoolRender:
    pc: PoolCapacity
    kubeletconfig: dict[str, Any] | None  # KubeletConfig spec, None when the pool needs none
    plan: SizingPlan | None

    @property
    def machineconfig_env(self) -> EnvValues | None:
        return None if self.plan is None else self.plan.machineconfig_env


@dataclass
class McpRender:
    mcp: str
    pools: list[PoolRender]
    sources: list[str]

    @property
    def kubeletconfig(self) -> dict[str, Any] | None:
        return self.pools[0].kubeletconfig

    @property
    def machineconfig_env(self) -> EnvValues | None:
        return self.pools[0].machineconfig_env


def _kubeletconfig_spec(ctx: RenderContext, pc: PoolCapacity, mcp: str) -> tuple[dict[str, Any] | None, SizingPlan]:
    policy = pc.policy
    assert policy is not None
    spec = policy.model.spec
    plan = sizing_plan(pc.pool, policy.model)
    assert plan is not None
    problem = ctx.reporter(NotRenderable, policy.source, policy.ref)
    fields = kubelet_fields(pc, spec, problem, system_reserved=False, formula_eviction=not plan.auto_sizing)
    # systemReserved: never what an OpenShift formula computes (the node computes it), only explicit values or
    # what another platform's formula fills in.
    sr = reserved_map(pc.system_reserved, skip=lambda r: r.source in _node_sources())
    if sr:
        fields["systemReserved"] = sr
    for name in MCO_OWNED_FIELDS:
        if name in fields:
            del fields[name]
            where = ("spec", name) if name in field_names(ReservationPolicySpec) else ("spec", "kubelet", name)
            ctx.report(
                PlatformOwnedField,
                f"{name} left out of the KubeletConfig of MachineConfigPool {mcp}: the Machine Config Operator owns it",
                policy.source,
                policy.ref,
                where,
                hint=f"remove {'.'.join(where[1:])} from the policy of OpenShift pools",
            )
    fallback = (spec.autoSizing.fallback or {}) if spec.autoSizing is not None else {}
    for key in sorted(set(fallback) - set(ENV_KEYS)):
        ctx.report(
            NotRenderable,
            f"auto-sizing fallback {key!r} has no place in the node-sizing env file (cpu, memory, "
            "ephemeral-storage only)",
            policy.source,
            policy.ref,
            ("spec", "autoSizing", "fallback", key),
            hint="remove it",
        )
    if plan.auto_sizing_reserved and any(k in sr for k in ENV_KEYS):
        ctx.report(
            AutoSizingWithSystemReserved,
            f"auto sizing and systemReserved {', '.join(k for k in ENV_KEYS if k in sr)} for MachineConfigPool {mcp}: "
            '"autoSizingReserved and systemdReserved cannot be set together"',
            policy.source,
            policy.ref,
            ("spec", "systemReserved"),
            hint="move systemReserved cpu/memory/ephemeral-storage to autoSizing.fallback",
        )
    out: dict[str, Any] = {}
    if plan.auto_sizing_reserved:
        out["autoSizingReserved"] = True
    if fields:
        out["kubeletConfig"] = dict(sorted(fields.items()))
    if not out:
        return None, plan
    out["machineConfigPoolSelector"] = {"matchLabels": {pool_label(mcp): ""}}
    return out, plan


def _describe(render: PoolRender) -> dict[str, Any] | None:
    if render.kubeletconfig is None and render.machineconfig_env is None:
        return None
    env = render.machineconfig_env
    return {
        "KubeletConfig": render.kubeletconfig,
        "MachineConfig": None if env is None else env.describe(),
    }


def openshift_pools(ctx: RenderContext) -> list[McpRender]:
    """Every MachineConfigPool with its pools, in name order (computed once per render)."""
    cached = ctx.memo.get("openshift_pools")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    from renderer.models.common import check_dns_label

    groups: dict[str, list[PoolRender]] = {}
    for pc in ctx.model.pools:
        pool = pc.pool
        if not platforms.get(pool.platform).machine_config_pools:
            continue
        mcp = pool.machine_config_pool
        if mcp is None:
            if pc.policy is not None:
                ctx.report(
                    NoMachineConfigPool,
                    f"OpenShift pool {pool.name} names no MachineConfigPool, so nothing is rendered for it",
                    pool.source,
                    pool.ref,
                    ("spec", "platform") if pool.origin == "NodePool" else ("metadata", "labels"),
                    hint="set spec.machineConfigPool (e.g. worker)"
                    if pool.origin == "NodePool"
                    else "the node has no node-role.kubernetes.io/<pool> label",
                )
            continue
        try:
            check_dns_label(mcp)
        except ValueError:
            ctx.report(
                NotRenderable,
                f"MachineConfigPool name {mcp!r} of {pool.ref} cannot be used in object names (not a DNS-1123 label)",
                pool.source,
                pool.ref,
                ("metadata", "labels"),
            )
            continue
        if pc.policy is None:
            groups.setdefault(mcp, []).append(PoolRender(pc, None, None))
            continue
        spec, plan = _kubeletconfig_spec(ctx, pc, mcp)
        groups.setdefault(mcp, []).append(PoolRender(pc, spec, plan))

    result: list[McpRender] = []
    for mcp in sorted(groups):
        renders = sorted(groups[mcp], key=lambda r: (r.pc.pool.origin != "NodePool", r.pc.pool.name))
        first = renders[0]
        agreed = True
        for other in renders[1:]:
            a, b = _describe(first), _describe(other)
            if a != b:
                agreed = False
                pool = other.pc.pool
                ctx.report(
                    PoolsDisagree,
                    f"{first.pc.pool.ref} and {pool.ref} in MachineConfigPool {mcp} would render different kubelet "
                    f"configurations ({first_difference(a, b)})",
                    pool.source,
                    pool.ref,
                    ("spec", "machineConfigPool") if pool.origin == "NodePool" else ("metadata", "labels"),
                    hint="one ReservationPolicy with size-independent settings per MachineConfigPool, or separate "
                    "MachineConfigPools",
                )
        if not agreed or (first.kubeletconfig is None and first.machineconfig_env is None):
            continue
        sources: dict[str, None] = {}
        for r in renders:
            sources.setdefault(ctx.pool_source(r.pc), None)
            if r.pc.policy is not None:
                sources.setdefault(ctx.source(r.pc.policy.source, r.pc.policy.ref), None)
        result.append(McpRender(mcp, renders, sorted(sources)))
    ctx.memo["openshift_pools"] = result
    return result
