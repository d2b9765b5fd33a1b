from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.capacity.deliveries import module_for
from renderer.findings import Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register


@register
class DeliveryApiRefuses(Rule):
    """
    ## What it does
    For every NodePool whose `spec.delivery` names a platform's own kubelet API — `gkeSystemConfig` (GKE node pool
    system config), `aksKubeletConfig` (AKS agent pool kubeletConfig), `bottlerocket` (Bottlerocket
    `settings.kubernetes`), `talos` (Talos machine-config patch) — translates the pool's ReservationPolicy into that
    API, as `render` does, and reports each setting the API refuses or has no place for, at the policy field it
    comes from:

    - **errors**: a value outside what the API accepts (AKS `kubeReserved` below 140 millicores or 750 MiB, GKE
      `podPidsLimit` below 1024, a Bottlerocket reservation written as a percentage, a duration in units Bottlerocket
      does not read, a field Talos protects); and a reservation or hard-eviction threshold the API cannot carry
      where it differs from what the platform reserves by itself (GKE has no kube-reserved, system-reserved or
      eviction-hard in gcloud's file; AKS has no systemReserved);
    - **warnings**: a field the API has no place for that does not change allocatable (it is left out of the file
      and the node keeps the platform's value), and a reservation the platform fills in by itself where the policy
      leaves it unset (Bottlerocket's kube-reserved, Talos's system-reserved), which `explain` does not count.

    ## Why is this bad?
    The API refuses the whole node pool update (`az aks nodepool update`, `gcloud container node-pools update`,
    Bottlerocket's settings API, `talosctl`), or silently keeps its own value: then the nodes' allocatable is not
    what the policy, `explain` and the CommitClass arithmetic say. The AKS minimums are written only in the API's
    descriptions (Azure/azure-rest-api-specs 2026-08-02-preview `KubeReserved`: "Must be greater than or equal to
    140", "in MiB. Must be greater than or equal to 750"), so no schema validator catches them before the API does.

    ## Example
    ```yaml
    # NodePool aks-user: platform aks, delivery: {aksKubeletConfig: {apiVersion: 2026-08-02-preview}}
    kubeReserved: {cpu: 100m, memory: 512Mi}
    systemReserved: {memory: 256Mi}
    ```

    ## Use instead
    ```yaml
    kubeReserved: {cpu: 140m, memory: 768Mi}    # AKS has no systemReserved: fold it into kubeReserved
    ```

    ## Fix
    Change the value to one the API takes (the message names the limit), move a reservation the API has no place
    for into one it has, or use the platform's own formula (`autoSizing.formula`), which needs no delivery. The
    sources of every limit are in docs/gke.md, docs/aks.md, docs/bottlerocket.md and docs/talos.md.
    """

    code = "AL327"
    name = "delivery-api-refuses"
    severity = "error"
    summary = "a setting the pool's platform API (GKE, AKS, Bottlerocket, Talos) refuses or has no place for"

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        # Complexity: O(pools × fields of their policy): one translation per delivered pool (render reuses the same one);
        # a problem several pools of one policy share is reported once, naming them.
        groups: dict[tuple[Any, ...], tuple[Any, Any, list[Any]]] = {}
        for pc in ctx.model.pools:
            module = module_for(pc)
            policy = pc.policy
            if module is None or policy is None:
                continue
            for p in module.translate(pc, ctx.settings).problems:
                key = (id(policy), p)
                groups.setdefault(key, (policy, p, []))[2].append(pc)
        for policy, p, pools in groups.values():
            where = pools[0].pool.ref + (
                f" and {plural(len(pools) - 1, 'more pool')} ({describe_pools(pools[1:])})" if len(pools) > 1 else ""
            )
            yield self.finding(
                f"{where}: {p.message}",
                source=policy.source,
                obj=policy.ref,
                field_path=p.field_path,
                hint=p.hint,
                severity=p.severity,
                related=[pc.pool.ref for pc in pools],
            )
