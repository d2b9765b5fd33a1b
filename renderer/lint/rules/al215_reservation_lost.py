from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.model import RESOURCES, PoolCapacity
from renderer.findings import FieldPath, Finding, SourceRef
from renderer.lint.helpers import NAME_PATH, describe_pools
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.units import column
from renderer.validation.validate import Loaded


@register
class ReservationLost(Rule):
    """
    ## What it does
    Only with a base revision (`allocatable lint --base GIT_REF`, and `allocatable diff`, whose new findings it
    joins): reports every pool that the base revision gave a ReservationPolicy and that this change leaves without
    it — no policy selects it any more, two do (none applies then, AL102), or another one with less reservation
    does. It names the pool, the reservation per node before and after (systemReserved + kubeReserved + hard
    eviction, cpu, memory and ephemeral-storage, as `allocatable explain` adds them) and the cause: the policy was
    deleted, its selector changed, the pool's labels changed, or which other policy selects it now.

    A change of the values of the policy that still selects the pool is not reported here (it is deliberate and
    `allocatable diff` shows it); nor is a pool that was removed.

    ## Why is this bad?
    A policy that stops selecting a pool takes its reservation with it, silently: lint used to pass (the policy
    merely "selects nothing", AL104, a warning), `render` drops the pool's kubelet configuration, and the nodes
    come up on the next roll-out with the platform's defaults — or with no system and kube reservation at all, so
    that the kubelet and the system daemons compete with pods for memory until the node is evicted from under
    them. A one-letter typo in a label key (`example.com/teir`) is enough.

    ## Example
    ```yaml
    # base: the selector matched the pool's example.com/tier: general
    kind: ReservationPolicy
    spec:
      selector:
      - matchExpressions: [{key: example.com/teir, operator: Exists}]
    ```

    ## Use instead
    ```yaml
    kind: ReservationPolicy
    spec:
      selector:
      - matchExpressions: [{key: example.com/tier, operator: Exists}]
    ```

    ## Fix
    Make the policy select the pool again (fix the selector or the pool's labels, remove the second policy). When
    the pool really should fall back to its platform's defaults, say so on the pool:
    `allocatable.dev/ignore: "AL215: back to the EKS defaults, OPS-123"`.
    """

    code = "AL215"
    name = "reservation-lost"
    severity = "error"
    summary = "with --base: a pool loses the ReservationPolicy (and the reservation) it had at the base revision"
    needs_base = True

    # Complexity: O(pools + ReservationPolicies of both revisions): pools and policies of the base are looked up by name;
    # each pool's reserved figures are the model's (computed once per pool); pools losing the same thing the same
    # way are reported together.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        base = ctx.base_model
        if base is None:
            return
        where = ctx.base_ref or "the base revision"
        old_pools = {pc.pool.ref: pc for pc in base.pools}
        now_policies = {p.name: p for p in ctx.load.policies.reservation_policies}
        # diff runs the rules on a side with validation errors too (lint stops before): a policy missing then may
        # be one that no longer validates
        invalid = any(f.severity == "error" for f in ctx.load.findings)
        Key = tuple[str, FieldPath, str, str]
        groups: dict[Key, tuple[SourceRef, list[PoolCapacity], list[str]]] = {}
        for pc in ctx.model.pools:
            old = old_pools.get(pc.pool.ref)
            if old is None or old.policy is None:
                continue
            was = old.policy
            now = pc.policy
            if now is not None and now.name == was.name:
                continue  # the same policy: its values may change, deliberately (diff shows them)
            figures = _figures(old, pc)
            if now is not None and not figures[1]:
                continue  # another policy took over, reserving at least as much of everything
            source, obj, path, cause, related = _cause(pc, old, was, now_policies.get(was.name), where, invalid)
            text = figures[0]
            if now is None:
                consequence = (
                    "no ReservationPolicy applies to it now, so render delivers no kubelet settings for it and its "
                    "nodes fall back to the platform's defaults on the next roll-out"
                )
            else:
                consequence = f"ReservationPolicy {now.name} applies to it now, with less reservation"
                related.append(now.ref)
            tail = (
                f"the reservation ReservationPolicy {was.name} gave at {where}: {cause}; {consequence} (reserved per "
                f"node: {text})"
            )
            key: Key = (obj, path, tail, text)
            entry = groups.setdefault(key, (source, [], []))
            entry[1].append(pc)
            entry[2].extend(related)
        for (obj, path, tail, _), (source, pools, related) in groups.items():
            yield self.finding(
                f"{describe_pools(pools)} {'loses' if len(pools) == 1 else 'lose'} {tail}",
                source=source,
                obj=obj,
                field_path=path,
                hint="make the policy select the pool again; if the pool should fall back to its platform's defaults, "
                'say so on the pool: allocatable.dev/ignore: "AL215: <why>"',
                related=[*(p.pool.ref for p in pools), *related],
            )


def _figures(old: PoolCapacity, new: PoolCapacity) -> tuple[str, bool]:
    """``cpu 0.2 → 0, memory 0.68Gi → 0.10Gi`` (every resource whose reservation changes, before → after, in one
    unit each, as every text output writes amounts: ``renderer.units``) and whether any goes down."""
    parts: list[str] = []
    lower = False
    for resource in RESOURCES:
        if resource not in old.capacity:
            continue
        before, after = old.reserved_total(resource), new.reserved_total(resource)
        if before == after:
            continue
        lower = lower or after < before
        was, now = column([before, after], resource)
        parts.append(f"{resource} {was} → {now}")
    return (", ".join(parts) if parts else "unchanged"), lower


def _selector_keys(policy: Loaded[ReservationPolicy] | None) -> set[str]:
    if policy is None:
        return set()
    return {e.key for term in policy.model.spec.selector for e in term.matchExpressions or ()}


def _cause(
    pc: PoolCapacity,
    old: PoolCapacity,
    was: Loaded[ReservationPolicy],
    was_now: Loaded[ReservationPolicy] | None,
    where: str,
    invalid: bool,
) -> tuple[SourceRef, str, FieldPath, str, list[str]]:
    """Where to point, which object, the field, the cause in words, the objects that cause it."""
    pool = pc.pool
    if was_now is None:
        gone = "is gone (deleted, or left out: a file does not validate)" if invalid else "was deleted"
        return pool.source, pool.ref, NAME_PATH, f"ReservationPolicy {was.name} {gone}", []
    if any(p is was_now for p in pc.reservation_policies):
        others = [p for p in pc.reservation_policies if p is not was_now]
        names = ", ".join(p.name for p in others)
        return (
            pool.source,
            pool.ref,
            NAME_PATH,
            f"ReservationPolicy {names} selects it too (AL102: a node takes one policy, so none of them applies)",
            [was_now.ref, *(p.ref for p in others)],
        )
    selector_changed = was_now.model.spec.selector != was.model.spec.selector
    keys = _selector_keys(was) | _selector_keys(was_now)
    changed_keys = [k for k in sorted(keys) if old.pool.labels.get(k) != pool.labels.get(k)]
    moved = [f"{k}: {old.pool.labels.get(k, '(none)')} → {pool.labels.get(k, '(none)')}" for k in changed_keys]
    labels: FieldPath = ("spec", "labels") if pool.origin == "NodePool" else ("metadata", "labels")
    at_label = [k for k in changed_keys if k in pool.labels]
    if selector_changed:
        cause = f"the selector of ReservationPolicy {was.name} changed since {where} and no longer matches it"
        if moved:
            cause += f", and its labels changed ({'; '.join(moved)})"
        return was_now.source, was_now.ref, ("spec", "selector"), cause, [pool.ref]
    if moved:
        return (
            pool.source,
            pool.ref,
            (*labels, at_label[0]) if at_label else labels,
            f"its labels changed ({'; '.join(moved)}), so ReservationPolicy {was.name} no longer selects it",
            [was_now.ref],
        )
    return pool.source, pool.ref, NAME_PATH, f"ReservationPolicy {was.name} no longer selects it", [was_now.ref]
