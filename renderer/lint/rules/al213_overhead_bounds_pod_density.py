from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.model import PoolCapacity
from renderer.findings import Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.units import column


@register
class OverheadBoundsPodDensity(Rule):
    """
    ## What it does
    Reports (as information) a RuntimeClass whose pod overhead alone would use up a pool's committed allocatable
    before the pool reaches its pod limit: `maxPods` pods of the class would spend more than the node advertises
    on overhead. The message says how many pods of the class fit by overhead alone.

    Pools where not even one pod fits are AL212 (an error).

    ## Why is this bad?
    On a pool shared with other runtimes this is expected and harmless, which is why the rule is informational.
    On a pool dedicated to sandboxed pods it means the pod limit — and the IP addresses, ENIs or per-pod licences
    planned for it — can never be used: density is bounded by overhead, not by `maxPods`. Capacity plans that
    count pods per node are then wrong. Teams running dedicated sandbox pools can raise it to a warning:
    `rules: {AL213: {severity: warning}}`.

    ## Example
    ```yaml
    # pool: 16 CPUs, maxPods 250; 250 × 250m = 62.5 CPUs of overhead
    overhead:
      podFixed: {cpu: 250m}
    ```

    ## Use instead
    ```yaml
    # a dedicated kata pool sized for its real density
    maxPods: 60
    ```

    ## Fix
    Nothing, on a mixed pool. On a dedicated pool, lower `maxPods` to what fits, or use larger nodes.
    """

    code = "AL213"
    name = "overhead-bounds-pod-density"
    severity = "info"
    summary = "maxPods pods of a RuntimeClass would spend more than the committed allocatable on overhead"

    # Complexity: O(Σ pools each RuntimeClass can land on + distinct (overhead, selection) × pools + findings):
    # the divisions are shared by classes with the same overhead and pools (CapacityModel.overhead_fits).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        pools = ctx.model.pools
        refs = ctx.model.pool_refs
        for rc in ctx.load.policies.runtime_classes:
            for resource, fits in ctx.model.overhead_fits(rc).items():
                if not fits.bounded:
                    continue
                items: list[tuple[PoolCapacity, int]] = [(pools[i], fit) for i, fit in fits.bounded]
                pc, fit = min(items, key=lambda t: t[1] / t[0].max_pods)
                per_pod = rc.model.overhead.podFixed[resource]  # type: ignore[union-attr,index]
                others = [p for p, _ in items if p is not pc]
                more = f" (also {plural(len(others), 'other pool')}: {describe_pools(others)})" if others else ""
                each, committed = column([per_pod, pc.committed[resource]], resource)
                word = " cores" if resource == "cpu" else ""
                yield self.finding(
                    f"{resource} overhead ({each}{word} a pod, of {committed}{word}) lets at most {fit} pods onto "
                    f"{pc.pool.ref}, fewer than its maxPods {pc.max_pods}{more}",
                    source=rc.source,
                    obj=rc.ref,
                    field_path=("overhead", "podFixed", resource),
                    hint="on a pool dedicated to it, lower maxPods or use larger nodes",
                    related=[refs[i] for i, _ in fits.bounded],
                )
