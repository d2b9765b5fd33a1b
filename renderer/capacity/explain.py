"""Human-readable views of the capacity model: text tables, markdown (PR comments) and JSON."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from renderer.capacity.model import EVICTION_RESOURCE, RESOURCES, CapacityModel, PoolCapacity, Reserved
from renderer.quantity import Quantity

_GI = Decimal(1024**3)


def human(q: Quantity | None, resource: str) -> str:
    """Canonical quantity, plus a rounded reading for byte quantities that are not whole Gi/Mi."""
    if q is None:
        return "-"
    text = str(q)
    if resource in ("memory", "ephemeral-storage") and not text.endswith(("Gi", "Mi")) and q.value >= _GI:
        return f"{text} (≈{(q.value / _GI):.2f}Gi)"
    return text


def _reserved(d: dict[str, Reserved], resource: str) -> str:
    r = d.get(resource)
    if r is None:
        return "-"
    return f"{r.quantity} ({r.source})"


def _eviction(pc: PoolCapacity, resource: str) -> str:
    q = pc.eviction_reserved.get(resource)
    if q is None:
        return "-"
    signal = next((s for s, r in EVICTION_RESOURCE.items() if r == resource), "")
    raw = pc.eviction_hard.get(signal, "")
    return f"{q} ({raw})" if raw.endswith("%") else str(q)


def rule_text(pc: PoolCapacity, resource: str) -> str:
    rule = pc.commit_rule[resource]
    pct = pc.percent[resource]
    if resource not in pc.capacity:
        return f"{resource}: not in capacity"
    hp = " − hugepages" if resource == "memory" and not pc.hugepages.is_zero() else ""
    if rule == "unchanged":
        return f"{resource}: 100%, committed = allocatable = capacity − reserved − eviction{hp}"
    if rule == "scaled":
        return f"{resource}: {pct}%, reserved slices scale: committed = (capacity − reserved − eviction{hp}) × {pct}%"
    return f"{resource}: {pct}%, reserved slices do not scale: committed = capacity × {pct}% − reserved − eviction{hp}"


def delivery(pc: PoolCapacity, expressions: bool) -> dict[str, Any] | None:
    """How the pool's kubelet settings reach its nodes (NodePool.spec.delivery), for explain's views."""
    d = pc.pool.delivery
    if d is None:
        return None
    if d.karpenter is not None:
        return {"karpenter": {"ec2NodeClass": d.karpenter.ec2NodeClass, "expressions": expressions}}
    if d.clusterAPI is not None:
        c = d.clusterAPI
        return {
            "clusterAPI": {
                "kubeadmConfigTemplate": c.kubeadmConfigTemplate,
                "namespace": c.namespace,
                "machineDeployments": list(c.machineDeployments),
            }
        }
    return {"nodeadm": True}


def delivery_text(pc: PoolCapacity, expressions: bool) -> str | None:
    d = delivery(pc, expressions)
    if d is None:
        return None
    if "karpenter" in d:
        how = "formulas as CEL, rounded by Karpenter" if expressions else "static values"
        return f"Karpenter EC2NodeClass {d['karpenter']['ec2NodeClass']} ({how}; karpenter/)"
    if "clusterAPI" in d:
        c = d["clusterAPI"]
        mds = ", ".join(c["machineDeployments"]) or "no MachineDeployment named"
        return f"Cluster API KubeadmConfigTemplate {c['namespace']}/{c['kubeadmConfigTemplate']} ({mds}; cluster-api/)"
    return f"nodeadm NodeConfig (nodeadm/{pc.pool.name}.yaml)"


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def pool_rows(pc: PoolCapacity) -> list[list[str]]:
    res = [r for r in RESOURCES if r in pc.capacity]
    rows = [["", *res]]
    rows.append(["capacity", *(human(pc.capacity.get(r), r) for r in res)])
    rows.append(["systemReserved", *(_reserved(pc.system_reserved, r) for r in res)])
    rows.append(["kubeReserved", *(_reserved(pc.kube_reserved, r) for r in res)])
    rows.append(["hard eviction", *(_eviction(pc, r) for r in res)])
    if not pc.hugepages.is_zero():
        rows.append(["hugepages", *(str(pc.hugepages) if r == "memory" else "-" for r in res)])
    rows.append(["allocatable", *(human(pc.allocatable.get(r), r) for r in res)])
    rows.append(["percent", *(f"{pc.percent[r]}%" for r in res)])
    rows.append(["committed", *(human(pc.committed.get(r), r) for r in res)])
    n = pc.pool.count
    rows.append([f"cluster (×{n})", *(human(pc.committed[r].scale(n), r) if r in pc.committed else "-" for r in res)])
    return rows


def text(model: CapacityModel, pools: list[PoolCapacity]) -> str:
    out: list[str] = []
    for pc in pools:
        p = pc.pool
        out.append(f"{p.ref}: {p.count} node{'s' if p.count != 1 else ''}, platform {p.platform}")
        out.append(f"  source:              {p.source.path}")
        cc = ", ".join(c.name for c in pc.commit_classes) or "none (100% everywhere)"
        out.append(f"  commit class:        {cc}")
        rp = ", ".join(r.name for r in pc.reservation_policies) or (
            f"none ({pc.platform_default.source})" if pc.platform_default else "none (nothing reserved)"
        )
        if pc.formula is not None:
            rp += f" (formula {pc.formula.formula} → {pc.formula.fills})"
        out.append(f"  reservation policy:  {rp}")
        out.append(f"  hard eviction:       {_signals(pc.eviction_hard)} ({pc.eviction_source})")
        out.append(f"  max pods:            {pc.max_pods}")
        how = delivery_text(pc, model.policies.settings.render.karpenter.expressions)
        if how is not None:
            out.append(f"  delivery:            {how}")
        out.extend(_table(pool_rows(pc)))
        out.append("  commit rule:")
        out.extend(f"    {rule_text(pc, r)}" for r in RESOURCES if r in pc.capacity)
        if pc.overhead:
            out.append("  runtime classes (pod overhead):")
            for o in pc.overhead:
                rc = o.runtime_class
                if not o.pod_fixed:
                    out.append(f"    {rc.name} ({rc.model.handler}): no overhead")
                    continue
                fixed = ", ".join(f"{k} {v}" for k, v in sorted(o.pod_fixed.items()))
                fits = ", ".join(f"{v} by {k}" for k, v in sorted(o.pods_fit.items()) if v is not None)
                share = ", ".join(f"{k} {v}%" for k, v in sorted(o.max_pods_share.items()) if v is not None)
                out.append(f"    {rc.name} ({rc.model.handler}): podFixed {fixed}")
                out.append(f"      pods that fit by overhead alone: {fits or '-'}")
                out.append(
                    f"      {pc.max_pods} pods (maxPods) spend on overhead: {share or '-'} of committed allocatable"
                )
        for note in pc.notes:
            out.append(f"  note: {note}")
        out.append("")
    totals = model.totals(pools)
    out.append(f"Totals: {_n(totals['pools'], 'pool')}, {_n(totals['nodes'], 'node')}")
    for key in ("capacity", "allocatable", "committedAllocatable"):
        vals = ", ".join(f"{k} {v}" for k, v in totals[key].items())
        out.append(f"  {key}: {vals}")
    rule = "scale with the class" if model.under_commit_scales_reserved else "do not scale"
    out.append(f"  under-commit: reserved slices {rule} (commit.underCommitScalesReserved)")
    return "\n".join(out) + "\n"


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _signals(d: dict[str, str]) -> str:
    return ", ".join(f"{k}<{v}" for k, v in sorted(d.items())) or "none"


def markdown(model: CapacityModel, pools: list[PoolCapacity]) -> str:
    out: list[str] = ["## Node capacity", ""]
    for pc in pools:
        p = pc.pool
        cc = ", ".join(f"`{c.name}`" for c in pc.commit_classes) or "none"
        rp = ", ".join(f"`{r.name}`" for r in pc.reservation_policies) or "none"
        out.append(f"### `{p.name}` — {p.count} × {p.origin}, {p.platform}")
        out.append("")
        out.append(f"CommitClass {cc} · ReservationPolicy {rp} · max pods {pc.max_pods}")
        out.append("")
        rows = pool_rows(pc)
        out.append("| " + " | ".join(c or " " for c in rows[0]) + " |")
        out.append("|" + "---|" * len(rows[0]))
        for r in rows[1:]:
            out.append("| " + " | ".join(r) + " |")
        out.append("")
        for o in pc.overhead:
            if o.pod_fixed:
                share = ", ".join(f"{k} {v}%" for k, v in sorted(o.max_pods_share.items()) if v is not None)
                out.append(
                    f"- RuntimeClass `{o.runtime_class.name}`: at most {o.limiting_pods} pods by overhead alone; "
                    f"{pc.max_pods} pods spend {share} of committed allocatable on overhead"
                )
        if pc.overhead:
            out.append("")
    totals = model.totals(pools)
    out.append(
        f"**Totals** — {_n(totals['pools'], 'pool')}, {_n(totals['nodes'], 'node')}: committed "
        + ", ".join(f"{k} {v}" for k, v in totals["committedAllocatable"].items())
    )
    return "\n".join(out) + "\n"


def as_json(model: CapacityModel, pools: list[PoolCapacity]) -> dict[str, Any]:
    return {
        "version": 1,
        "underCommitScalesReserved": model.under_commit_scales_reserved,
        "pools": [
            {**pc.as_dict(), "delivery": delivery(pc, model.policies.settings.render.karpenter.expressions)}
            for pc in pools
        ],
        "totals": model.totals(pools),
    }
