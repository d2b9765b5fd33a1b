from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import FieldPath, Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.quantity import Quantity


@register
class ReservedQuantityNegative(Rule):
    """
    ## What it does
    Reports a negative quantity in `systemReserved`, `kubeReserved` or `autoSizing.fallback`.

    ## Why is this bad?
    A reservation holds resources back; a negative one would hand out more than the node has. The kubelet
    rejects it at start (`resource quantity for "memory" cannot be negative: -1Gi`).

    ## Example
    ```yaml
    kubeReserved:
      memory: -100Mi
    ```

    ## Use instead
    ```yaml
    kubeReserved:
      memory: 100Mi
    ```

    ## Fix
    Use a non-negative quantity. To advertise more than a node has, use a CommitClass, not a negative
    reservation.
    """

    code = "AL309"
    name = "reserved-quantity-negative"
    severity = "error"
    summary = "a reserved quantity is negative"

    # Complexity: O(ReservationPolicies × reserved quantities).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            spec = rp.model.spec
            maps: list[tuple[FieldPath, dict[str, Quantity]]] = [
                (("spec", attr), getattr(spec, attr) or {}) for attr in ("systemReserved", "kubeReserved")
            ]
            if spec.autoSizing is not None:
                maps.append((("spec", "autoSizing", "fallback"), spec.autoSizing.fallback or {}))
            for path, values in maps:
                for key, quantity in values.items():
                    if quantity.is_negative():
                        yield self.finding(
                            f'the kubelet refuses to start: resource quantity for "{key}" cannot be negative: '
                            f"{quantity}",
                            source=rp.source,
                            obj=rp.ref,
                            field_path=(*path, key),
                            hint="use 0 or more (a CommitClass advertises more than a node has)",
                        )
