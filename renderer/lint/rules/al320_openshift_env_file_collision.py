from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register

if TYPE_CHECKING:
    from renderer.capacity.openshift_sizing import SizingPlan
    from renderer.models.reservationpolicy import ReservationPolicy
    from renderer.validation.validate import Loaded


def _cause(plan: SizingPlan) -> tuple[str, ...]:
    """The policy field that makes the plan write the env file."""
    if plan.machineconfig_env is not None or plan.auto_sizing_reserved:
        return ("spec", "autoSizing")
    return ("spec", "systemReserved")


@register
class OpenShiftEnvFileCollision(Rule):
    """
    ## What it does
    Reports a ReservationPolicy that would make two MachineConfigs write `/etc/node-sizing-enabled.env` on the
    same OpenShift nodes: the one the Machine Config Operator generates from the rendered KubeletConfig
    (`99-<pool>-generated-kubelet`) and the one `allocatable render` adds for auto-sizing fallbacks or the control
    plane (`99-<pool>-allocatable-node-sizing`). It also warns when a custom pool (e.g. `infra`) and the `worker`
    pool it inherits MachineConfigs from would write different contents into the file.

    ## Why is this bad?
    MachineConfigs of a pool are merged in name order and the later name wins for a file, so the operator's
    `99-<pool>-generated-kubelet` silently replaces ours: with explicit `systemReserved` it writes
    `NODE_SIZING_ENABLED=false`, auto sizing is off and the fallbacks are never used, although the policy asked
    for both. A custom pool also receives every worker MachineConfig; before OpenShift 4.15 plain name order
    decides there too (`99-worker-…` sorts after `99-infra-…`), so the worker pool's env file wins on infra nodes.
    One file should have one owner.

    ## Example
    ```yaml
    autoSizing:
      formula: openshift
      fallback:
        memory: 4Gi
    systemReserved:
      memory: 2Gi
    ```

    ## Use instead
    ```yaml
    autoSizing:
      formula: openshift
      fallback:
        memory: 4Gi
    ```

    ## Fix
    Remove `systemReserved` cpu, memory and ephemeral-storage from policies that use auto sizing with fallbacks
    or that select the control plane: the fallbacks are the static values. For the worker/custom pool warning,
    give both pools the same auto-sizing settings, or run OpenShift 4.15 or later, where the custom pool's own
    configuration takes priority over the inherited worker one.
    """

    code = "AL320"
    name = "openshift-env-file-collision"
    severity = "error"
    summary = "OpenShift: two MachineConfigs would write /etc/node-sizing-enabled.env"

    # Complexity: O(pools + sizing plans + custom-pool plans × worker-pool plans); plans are per (MachineConfigPool,
    # policy), a handful.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not any(pc.pool.machine_config_pool for pc in ctx.model.pools):
            return  # no pool of a MachineConfigPool: no plan (and the sizing module stays unimported)
        from renderer.capacity.openshift_sizing import (
            DEFAULT_POOLS,
            ENV_FILE,
            generated_kubelet_name,
            machineconfig_name,
            sizing_plan,
        )

        plans: dict[tuple[str, str], tuple[SizingPlan, Loaded[ReservationPolicy]]] = {}
        pools_of: dict[tuple[str, str], list[str]] = {}
        for pc in ctx.model.pools:
            policy = pc.policy
            if policy is None:
                continue
            plan = sizing_plan(pc.pool, policy.model)
            if plan is None:
                continue
            key = (plan.mcp, policy.name)
            plans.setdefault(key, (plan, policy))
            pools_of.setdefault(key, []).append(pc.pool.ref)

        for key in sorted(plans):
            plan, policy = plans[key]
            if plan.machineconfig_env is None or plan.kubeletconfig_env is None:
                continue
            mcp = plan.mcp
            yield self.finding(
                f"auto sizing stays off on MachineConfigPool {mcp}: {generated_kubelet_name(mcp)} (from systemReserved "
                f"{', '.join(plan.explicit_system_reserved)}) overwrites the {ENV_FILE} of {machineconfig_name(mcp)}",
                source=policy.source,
                obj=policy.ref,
                field_path=("spec", "systemReserved"),
                hint="move systemReserved cpu/memory/ephemeral-storage to autoSizing.fallback",
                related=pools_of[key],
            )

        workers = [(p, pol) for (mcp, _), (p, pol) in sorted(plans.items()) if mcp == "worker" and p.env is not None]
        for (mcp, name), (plan, policy) in sorted(plans.items()):
            if mcp in DEFAULT_POOLS or plan.env is None:
                continue
            for worker, worker_policy in workers:
                if worker.env == plan.env:
                    continue
                yield self.finding(
                    f"before OpenShift 4.15, the worker pool's {' and '.join(worker.writers)} overwrites the {ENV_FILE} "
                    f"of {' and '.join(plan.writers)} on {mcp} nodes",
                    source=policy.source,
                    obj=policy.ref,
                    field_path=_cause(plan),
                    hint="give both pools the same auto-sizing settings, or run 4.15 or later",
                    severity="warning",
                    related=[*pools_of[(mcp, name)], worker_policy.ref],
                )
