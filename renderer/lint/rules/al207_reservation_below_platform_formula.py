from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from renderer import platforms
from renderer.capacity.formulas import FormulaError, FormulaResult, compute
from renderer.capacity.model import PoolCapacity
from renderer.capacity.platform import formula_inputs
from renderer.findings import FieldPath, Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.models.settings import Settings
from renderer.quantity import Quantity, QuantityError
from renderer.units import readable
from renderer.validation.validate import Loaded

CHECKED = ("cpu", "memory")
_ZERO = Quantity.parse("0")


def _total(*parts: dict[str, str], resource: str) -> Quantity:
    total = _ZERO
    for part in parts:
        if resource in part:
            try:
                total = total + Quantity.parse(part[resource])
            except QuantityError:
                continue
    return total


def _where(rp: Loaded[ReservationPolicy], fills: str, resource: str) -> FieldPath:
    spec = rp.model.spec
    other = "systemReserved" if fills == "kubeReserved" else "kubeReserved"
    for attr in (fills, other):
        if resource in (getattr(spec, attr) or {}):
            return ("spec", attr, resource)
    if spec.autoSizing is not None:
        return ("spec", "autoSizing", "formula")
    return ("spec",)


@register
class ReservationBelowPlatformFormula(Rule):
    """
    ## What it does
    Compares the cpu and memory a pool reserves for the operating system and the kubelet (systemReserved +
    kubeReserved, explicit, from an auto-sizing formula, or the platform's own default when no ReservationPolicy
    selects the pool) with what its platform's formula recommends for the pool's size (docs/platforms.md: e.g. the
    AKS formula of the node's release, OpenShift's auto sizing; platforms without a formula are not checked). GKE and AKS formulas are computed from the machine type's advertised memory, as the
    platforms do. Reports a reservation below the recommendation, with the recommended values: for a pool no
    policy selects, at the pool (e.g. an OpenShift control plane or a pre-4.21 worker keeps the static 500m cpu
    and 1Gi memory).

    ## Why is this bad?
    The platforms derived their formulas from what their system daemons and the kubelet actually use on nodes
    of each size. Reserving less lets pods claim memory and CPU the node itself needs: under load the kubelet
    and the container runtime are starved or OOM-killed, and the node goes NotReady. It often happens when a
    policy written for small nodes is applied to larger ones (the formulas grow with cores, memory and maxPods).

    ## Example
    ```yaml
    # EKS, 16 vCPUs, 110 pods: the eks formula reserves 1465Mi memory and 110m cpu
    kubeReserved:
      cpu: 60m
      memory: 500Mi
    ```

    ## Use instead
    ```yaml
    kubeReserved:
      cpu: 110m
      memory: 1465Mi
    # or: autoSizing: {formula: eks}, computed for each pool's size
    ```

    ## Fix
    Raise the reservation to the recommended value (`allocatable sizing --formula F --cpus N --memory Q
    --max-pods N` prints it), or let the policy compute it per pool with `spec.autoSizing.formula`.
    """

    code = "AL207"
    name = "reservation-below-platform-formula"
    severity = "warning"
    summary = "reserved cpu or memory is below what the pool's platform formula recommends for its size"

    # Complexity: O(pools × resources + findings): one platform formula per pool (formulas are O(1)).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        # O(pools): one formula per pool shape (cached), findings grouped per policy and field.
        groups: dict[tuple[int, str, FieldPath], list[tuple[PoolCapacity, str]]] = {}
        owners: dict[int, Loaded[ReservationPolicy]] = {}
        settings = ctx.model.policies.settings
        for pc in ctx.model.pools:
            rp = pc.policy
            if rp is None and (pc.reservation_policies or pc.platform_default is None):
                continue  # conflicting policies (AL102), or a generic pool without any
            formula_name = recommended_formula(pc, settings)
            if formula_name is None:
                continue
            formula = platforms.formula(formula_name)
            shape, _ = formula_inputs(pc.pool, formula, settings, pc.max_pods)
            if shape is None:
                continue
            try:
                result: FormulaResult = compute(formula, shape)
            except FormulaError:
                continue
            for resource in CHECKED:
                recommended = _total(result.system_reserved, result.kube_reserved, resource=resource)
                current = _ZERO
                for part in (pc.system_reserved, pc.kube_reserved):
                    if resource in part:
                        current = current + part[resource].quantity
                if current >= recommended:
                    continue
                shape_text = (
                    f"{_fmt_cpus(shape.cpus)} CPUs, {readable(pc.capacity['memory'], 'memory')} memory, "
                    f"{pc.max_pods} pods"
                )
                # reservations as a policy writes them (the value to copy into one): 60m and 110m, 1Gi and 4Gi
                amounts = [f"{current} {resource}", str(recommended)]
                if rp is None:
                    assert pc.platform_default is not None
                    yield self.finding(
                        f"{pc.pool.ref} reserves {amounts[0]} ({pc.platform_default.source}), less than "
                        f"the {amounts[1]} the {formula_name} formula recommends for {shape_text}",
                        source=pc.pool.source,
                        obj=pc.pool.ref,
                        field_path=("spec", "platform") if pc.pool.origin == "NodePool" else ("metadata", "name"),
                        hint=f"select it with a ReservationPolicy (e.g. autoSizing.formula: {formula_name})",
                    )
                    continue
                detail = (
                    f"{pc.pool.ref} reserves {amounts[0]}, less than the {amounts[1]} the {formula_name} "
                    f"formula recommends for {shape_text}"
                )
                key = (id(rp), resource, _where(rp, result.fills, resource))
                owners[id(rp)] = rp
                groups.setdefault(key, []).append((pc, detail))
        for (rp_id, _resource, path), items in groups.items():
            rp = owners[rp_id]
            pools = [pc for pc, _ in items]
            more = (
                f" (and {plural(len(items) - 1, 'more pool')}: {describe_pools(pools[1:])})" if len(items) > 1 else ""
            )
            yield self.finding(
                f"{items[0][1]}{more}",
                source=rp.source,
                obj=rp.ref,
                field_path=path,
                hint="raise it, or compute it per pool: spec.autoSizing.formula",
                related=[pc.pool.ref for pc in pools],
            )


def recommended_formula(pc: PoolCapacity, settings: Settings) -> str | None:
    """The formula a pool's platform recommends (``recommended_for`` in renderer/platforms/<name>.py: AKS's by
    the pool's release, OpenShift's auto sizing whether or not it is on); None for platforms without one."""
    return platforms.effective(pc.pool, settings).recommended_for(pc.pool, settings)


def _fmt_cpus(cpus: Decimal) -> str:
    return str(int(cpus)) if cpus == cpus.to_integral_value() else format(cpus.normalize(), "f")
