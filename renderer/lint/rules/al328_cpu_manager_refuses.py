from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register
from renderer.quantity import Quantity

_MAX_NAMED = 5  # pools named in one message


def go_map(options: dict[str, Any]) -> str:
    """A map[string]string as Go's %v prints it: keys sorted, ``map[k1:v1 k2:v2]``."""
    return "map[" + " ".join(f"{k}:{options[k]}" for k in sorted(options)) + "]"


def _names(refs: list[str]) -> str:
    shown = ", ".join(refs[:_MAX_NAMED])
    return shown + (f" and {len(refs) - _MAX_NAMED} more" if len(refs) > _MAX_NAMED else "")


@register
class CpuManagerRefuses(Rule):
    """
    ## What it does
    Reports a CPU manager configuration the kubelet refuses to start with, in the CPU manager's own words
    (kubernetes `pkg/kubelet/cm/cpumanager/cpu_manager.go` `NewManager`, `policy_none.go` `NewNonePolicy`):

    - `cpuManagerPolicyOptions` (such as `strict-cpu-reservation: "true"`) while the policy is `none`, the default:
      `None policy: received unsupported options=map[strict-cpu-reservation:true]`;
    - `cpuManagerPolicy: static` on a pool where nothing reserves CPU: no `reservedSystemCPUs` and no `cpu` in
      `systemReserved` or `kubeReserved` — neither the policy's, its formula's, nor (where the pool's file is a
      drop-in, see `allocatable explain`'s notes) the platform's: `[cpumanager] unable to determine reserved CPU
      resources for static policy`; or their sum is zero: `[cpumanager] the static policy requires
      systemreserved.cpu + kubereserved.cpu to be greater than zero` (the cases "static policy - broken reservation"
      and "static policy - no CPU resources" of `TestCPUManagerGenerate`, `cpu_manager_test.go`).

    `strict-cpu-reservation` without `reservedSystemCPUs` is not refused: the static policy then reserves the
    ceiling of the cpu reservation, lowest-numbered cores first, and keeps every pod off them (the node e2e test
    "should let the container access all the online CPUs without a reserved CPUs set", `test/e2e_node/
    cpu_manager_test.go`); it is refused only when that reservation is zero, as above.

    ## Why is this bad?
    The kubelet exits at start ("failed to run Kubelet: ... cpumanager ..."): the node never becomes Ready, after
    the rollout instead of in review.

    ## Example
    ```yaml
    spec:
      kubelet:
        cpuManagerPolicy: static
        cpuManagerPolicyOptions: {strict-cpu-reservation: "true"}
      # nothing reserves cpu on these nodes
    ```

    ## Use instead
    ```yaml
    spec:
      kubeReserved: {cpu: 500m}
      kubelet:
        cpuManagerPolicy: static
        cpuManagerPolicyOptions: {strict-cpu-reservation: "true"}
    ```

    ## Fix
    Give the static policy a CPU reservation (`reservedSystemCPUs`, or `cpu` in `systemReserved`/`kubeReserved`);
    set `cpuManagerPolicy: static` wherever policy options are set.
    """

    code = "AL328"
    name = "cpu-manager-refuses"
    severity = "error"
    summary = "a CPU manager policy, options or CPU reservation the kubelet's CPU manager refuses to start with"

    # Complexity: O(ReservationPolicies × pools they select).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            policy = view.get("cpuManagerPolicy")
            name = policy.value if policy is not None else "none"
            options = view.get("cpuManagerPolicyOptions")
            if name in ("none", "") and options is not None and isinstance(options.value, dict) and options.value:
                yield self.finding(
                    "the kubelet refuses to start: None policy: received unsupported "
                    f"options={go_map(options.value)} (cpuManagerPolicy is {name or 'none'})",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=options.path,
                    hint="set cpuManagerPolicy: static, or remove cpuManagerPolicyOptions",
                )
            if name != "static" or policy is None:
                continue
            cpus = view.get("reservedSystemCPUs")
            if cpus is not None and isinstance(cpus.value, str) and cpus.value.strip():
                continue  # the kubelet's cpu reservation is then the set's size (AL307 checks the set)
            missing: list[str] = []
            zero: list[str] = []
            for pc in ctx.model.pools_selected_by(rp):
                if pc.policy is not rp:
                    continue
                parts = [m["cpu"].quantity for m in (pc.system_reserved, pc.kube_reserved) if "cpu" in m]
                if not parts:
                    missing.append(pc.pool.ref)
                elif sum(parts, Quantity.from_value(0)).is_zero():
                    zero.append(pc.pool.ref)
            for refs, words in (
                (missing, "[cpumanager] unable to determine reserved CPU resources for static policy"),
                (
                    zero,
                    "[cpumanager] the static policy requires systemreserved.cpu + kubereserved.cpu to be greater "
                    "than zero",
                ),
            ):
                if refs:
                    yield self.finding(
                        f"the kubelet refuses to start on {_names(refs)}: {words}",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=policy.path,
                        hint="reserve cpu: reservedSystemCPUs, or cpu in kubeReserved or systemReserved",
                    )
