from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import closest
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import RESERVABLE_RESOURCES as RESERVABLE


@register
class ReservedResourceName(Rule):
    """
    ## What it does
    Reports `systemReserved` or `kubeReserved` keys other than `cpu`, `memory`, `ephemeral-storage` and `pid`.

    ## Why is this bad?
    The kubelet only reserves those four resources and exits at start on anything else (`cannot reserve "gpu"
    resource`). Misspelt keys (`memmory`, `storage`) are the usual cause; huge pages cannot be reserved this
    way (they are subtracted from allocatable memory automatically).

    ## Example
    ```yaml
    systemReserved:
      cpu: 500m
      storage: 1Gi
    ```

    ## Use instead
    ```yaml
    systemReserved:
      cpu: 500m
      ephemeral-storage: 1Gi
    ```

    ## Fix
    Use one of `cpu`, `memory`, `ephemeral-storage`, `pid`.
    """

    code = "AL308"
    name = "reserved-resource-name"
    severity = "error"
    summary = "systemReserved/kubeReserved names a resource the kubelet cannot reserve"

    # Complexity: O(ReservationPolicies × reserved resource names).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            for attr in ("systemReserved", "kubeReserved"):
                for key in getattr(rp.model.spec, attr) or {}:
                    if key in RESERVABLE:
                        continue
                    guess = closest(key, RESERVABLE)
                    yield self.finding(
                        f'the kubelet refuses to start: cannot reserve "{key}" resource ({attr} takes '
                        f"{', '.join(RESERVABLE)})",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=("spec", attr, key),
                        at_key=True,
                        hint=f'did you mean "{guess}"?' if guess else f"remove {key} from {attr}",
                    )
