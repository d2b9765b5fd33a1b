from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.model import RESOURCES, PoolCapacity
from renderer.findings import FieldPath, Finding, SourceRef
from renderer.lint.helpers import NAME_PATH, describe_pools, percent_path, plural
from renderer.lint.rule import LintContext, Rule, register


@register
class CommitPercentLowered(Rule):
    """
    ## What it does
    Only with `allocatable lint --base GIT_REF`: compares commit levels with that revision and reports every
    decrease — a CommitClass whose percent for a resource goes down (or whose entry is removed, back to 100%),
    and a pool whose effective percent goes down because another class (or none) selects it now. Old and new
    values are named.

    ## Why is this bad?
    Lowering a commit level shrinks what running nodes advertise, but the pods already bound to them stay. A
    node whose pods request more than its new allocatable is over-allocated: new pods are not scheduled there
    until enough pods leave, and with Koordinator a lowered ratio can leave the node over-committed beyond what
    was agreed. The change is legitimate, but it needs a plan (drain, or roll the node group).

    ## Example
    ```yaml
    # base: percent 400
    resources:
    - name: cpu
      percent: 200
    ```

    ## Use instead
    ```yaml
    # same change, with the rollout recorded for reviewers
    metadata:
      annotations:
        allocatable.dev/ignore: "AL210: pool is drained and replaced by the node-group roll in OPS-123"
    ```

    ## Fix
    Plan the rollout (cordon and drain, or replace the nodes), then record it with an `allocatable.dev/ignore`
    annotation on the class (or the pool).
    """

    code = "AL210"
    name = "commit-percent-lowered"
    severity = "warning"
    summary = "with --base: a commit percent goes down versus the base revision (nodes may be over-allocated)"
    needs_base = True

    # Complexity: O(CommitClasses + pools of both revisions + findings): old classes and pools are looked up by name.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        base = ctx.base_model
        if base is None:
            return
        where = ctx.base_ref or "the base revision"
        old_classes = {c.name: c for c in base.policies.commit_classes}
        explained: set[tuple[str, str]] = set()  # (class name, resource) reported at the class
        for cc in ctx.load.policies.commit_classes:
            old = old_classes.get(cc.name)
            if old is None:
                continue
            before, after = old.model.percents(), cc.model.percents()
            for resource in RESOURCES:
                if after[resource] < before[resource]:
                    explained.add((cc.name, resource))
                    yield self.finding(
                        f"{resource} commit lowered from {before[resource]}% (at {where}) to {after[resource]}%: "
                        "running nodes may be over-allocated",
                        source=cc.source,
                        obj=cc.ref,
                        field_path=percent_path(cc.model, resource),
                        hint='drain or replace the nodes, then record it: "AL210: <plan>"',
                        related=[pc.pool.ref for pc in ctx.model.pools_selected_by(cc)],
                    )

        old_pools = {pc.pool.ref: pc for pc in base.pools}
        Key = tuple[str, FieldPath, str, int, int, str, str]
        groups: dict[Key, tuple[SourceRef, list[PoolCapacity], list[str]]] = {}
        for pc in ctx.model.pools:
            old_pc = old_pools.get(pc.pool.ref)
            if old_pc is None or len(pc.commit_classes) > 1 or len(old_pc.commit_classes) > 1:
                continue  # new pool, or a conflict (AL101) now or then
            new_cc, old_cc = pc.commit_class, old_pc.commit_class
            for resource in RESOURCES:
                was, now_pct = old_pc.percent[resource], pc.percent[resource]
                if now_pct >= was:
                    continue
                same_class = new_cc is not None and old_cc is not None and new_cc.name == old_cc.name
                if same_class and (new_cc.name, resource) in explained:  # type: ignore[union-attr]
                    continue  # reported at the class
                old_name = old_cc.name if old_cc else ""
                new_name = new_cc.name if new_cc else ""
                if new_cc is not None:
                    source, obj, path = new_cc.source, new_cc.ref, percent_path(new_cc.model, resource)
                else:
                    source, obj, path = pc.pool.source, pc.pool.ref, NAME_PATH
                key: Key = (obj, path, resource, was, now_pct, old_name, new_name)
                related = [r for r in (pc.pool.ref, f"CommitClass/{old_name}" if old_name else "") if r]
                entry = groups.setdefault(key, (source, [], []))
                entry[1].append(pc)
                entry[2].extend(related)
        for (obj, path, resource, was, now_pct, old_name, new_name), (source, pools, related) in groups.items():
            then = f"CommitClass {old_name}" if old_name else "no CommitClass"
            now = f"CommitClass {new_name}" if new_name else "no CommitClass selects it now"
            who = describe_pools(pools)
            nodes = "its nodes" if len(pools) == 1 else f"the nodes of these {plural(len(pools), 'pool')}"
            yield self.finding(
                f"{resource} commit of {who} lowered from {was}% ({then} at {where}) to {now_pct}% ({now}): "
                f"{nodes} may be over-allocated",
                source=source,
                obj=obj,
                field_path=path,
                hint='drain or replace the nodes, then record it: "AL210: <plan>"',
                related=related,
            )
