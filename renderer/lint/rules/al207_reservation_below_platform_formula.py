from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from renderer.capacity.formulas import FormulaError, FormulaResult, MachineShape, compute
from renderer.capacity.model import PoolCapacity
from renderer.findings import FieldPath, Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.quantity import Quantity, QuantityError
from renderer.validation.validate import Loaded

#: The formula each managed platform applies when nobody configures reservations (generic: none).
PLATFORM_FORMULA: dict[str, str] = {"eks": "eks", "gke": "gke", "aks": "aks", "openshift": "openshift"}
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
    kubeReserved, explicit or from an auto-sizing formula) with what its platform's own formula recommends for
    the pool's size: `eks` for EKS, `gke` for GKE, `aks` for AKS and `openshift` for OpenShift pools (generic
    pools are not checked). Reports a reservation below the recommendation, with the recommended values.

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
        groups: dict[tuple[int, str, FieldPath], list[tuple[PoolCapacity, str]]] = {}
        owners: dict[int, Loaded[ReservationPolicy]] = {}
        for pc in ctx.model.pools:
            rp = pc.policy
            formula_name = PLATFORM_FORMULA.get(pc.pool.platform)
            if rp is None or formula_name is None or "cpu" not in pc.capacity or "memory" not in pc.capacity:
                continue
            cpus = pc.capacity["cpu"].value
            memory = pc.capacity["memory"].int_value()
            if cpus <= 0 or memory <= 0:
                continue
            try:
                result: FormulaResult = compute(formula_name, MachineShape(cpus, memory, pc.max_pods))
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
                values = ", ".join(
                    f"{label} {d[resource]}"
                    for label, d in (("systemReserved", result.system_reserved), ("kubeReserved", result.kube_reserved))
                    if resource in d
                )
                shape = f"{_fmt_cpus(cpus)} CPUs, {pc.capacity['memory']} memory, {pc.max_pods} pods"
                detail = (
                    f"{pc.pool.ref} reserves {current} {resource} for the system and the kubelet; the {formula_name} "
                    f"formula recommends {recommended} ({values}) for its size ({shape})"
                )
                key = (id(rp), resource, _where(rp, result.fills, resource))
                owners[id(rp)] = rp
                groups.setdefault(key, []).append((pc, detail))
        for (rp_id, resource, path), items in groups.items():
            rp = owners[rp_id]
            pools = [pc for pc, _ in items]
            more = (
                f" (and {plural(len(items) - 1, 'more pool')}: {describe_pools(pools[1:])})" if len(items) > 1 else ""
            )
            yield self.finding(
                f"{items[0][1]}{more}: the node's own daemons may be starved of {resource} under load",
                source=rp.source,
                obj=rp.ref,
                field_path=path,
                hint=f"raise the {resource} reservation to the recommended value, or compute it per pool with "
                "spec.autoSizing.formula",
                related=[pc.pool.ref for pc in pools],
            )


def _fmt_cpus(cpus: Decimal) -> str:
    return str(int(cpus)) if cpus == cpus.to_integral_value() else format(cpus.normalize(), "f")
