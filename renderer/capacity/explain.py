"""What ``allocatable explain`` shows, as data: the rows of each pool's table, where each value comes from, the JSON
document. The formats that write it are ``renderer.reporters.explain``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from renderer.capacity.model import RESOURCES as _POOL_RESOURCES
from renderer.capacity.model import CapacityModel, PoolCapacity, Reserved
from renderer.quantity import Quantity
from renderer.resourcenames import is_extended
from renderer.units import column, is_bytes

#: One resource order for every view — tables, totals, JSON: the pool resources, then pods.
RESOURCES: tuple[str, ...] = (*_POOL_RESOURCES, "pods")
#: Column headings: cpu is shown in cores (one form in every row); bytes carry their unit in each cell.
HEADINGS = {"cpu": "cpu (cores)"}


def resource_key(name: str) -> tuple[int, str]:
    """Sort key putting resources in ``RESOURCES`` order, anything else (hugepages-2Mi, ...) after, by name."""
    return (RESOURCES.index(name) if name in RESOURCES else len(RESOURCES), name)


def ordered(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in sorted(d, key=resource_key)}


def heading(resource: str) -> str:
    return HEADINGS.get(resource, resource)


def _reserved(d: dict[str, Reserved], resource: str) -> Quantity | None:
    r = d.get(resource)
    return None if r is None else r.quantity


def _table(labels: list[str], res: list[str], values: dict[str, list[Quantity | None]]) -> list[list[str]]:
    """Rows ``labels`` × columns ``res`` (a heading row first), each column in one unit (``renderer.units``);
    ``values[r]``: the column of resource ``r``, top to bottom."""
    cells = {r: column(values[r], r) for r in res}
    rows = [["", *(heading(r) for r in res)]]
    rows.extend([label, *(cells[r][i] for r in res)] for i, label in enumerate(labels))
    return rows


def sources(d: dict[str, Reserved]) -> str:
    """Where reserved values come from: ``explicit``, or per source the resources it fills, in resource order."""
    by_source: dict[str, list[str]] = {}
    for resource in sorted(d, key=resource_key):
        by_source.setdefault(d[resource].source, []).append(resource)
    if len(by_source) == 1:
        return next(iter(by_source))
    return ", ".join(f"{src} ({', '.join(res)})" for src, res in by_source.items())


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


def committed_resources(pc: PoolCapacity) -> list[str]:
    """Resources whose commit level is not 100%: the ones a commit rule applies to."""
    return [r for r in _POOL_RESOURCES if r in pc.capacity and pc.percent[r] != 100]


def under_commits(pools: list[PoolCapacity]) -> bool:
    return any(pc.percent[r] < 100 for pc in pools for r in _POOL_RESOURCES if r in pc.capacity)


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


def overhead_rows(pc: PoolCapacity) -> list[list[str]]:
    """The RuntimeClasses that can land on the pool, as table rows (heading first): the class and its handler, its
    pod overhead as written, how many pods fit by overhead alone, and what share of committed allocatable the pool's
    maxPods such pods spend on overhead ("-" where a class has no overhead)."""
    rows = [
        [
            "RuntimeClass",
            "handler",
            "podFixed",
            "pods that fit by overhead alone",
            f"committed allocatable {pc.max_pods} such pods (maxPods) spend on overhead",
        ]
    ]
    for o in pc.overhead:
        fixed = ", ".join(f"{k} {v}" for k, v in ordered(o.pod_fixed).items()) or "no overhead"
        fits = ", ".join(f"{v} by {k}" for k, v in ordered(o.pods_fit).items() if v is not None) or "-"
        share = ", ".join(f"{k} {v}%" for k, v in ordered(o.max_pods_share).items() if v is not None) or "-"
        rows.append([o.runtime_class.name, o.runtime_class.model.handler, fixed, fits, share])
    return rows


def table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def pool_resources(pc: PoolCapacity, wide: bool = False, extended: bool = False) -> list[str]:
    """The columns of a pool's table: cpu, memory and ephemeral-storage; ``wide``: then pods and every other
    resource the pool has (hugepages-*, extended resources such as nvidia.com/gpu), by name; ``extended``: then the
    extended resources the pool has (the HTML page's columns: a CPU-only pool's table does not grow)."""
    res = [r for r in _POOL_RESOURCES if r in pc.capacity]
    if wide or extended:
        extra = {*pc.capacity, *pc.allocatable} - set(_POOL_RESOURCES)
        res += sorted((r for r in extra if wide or is_extended(r)), key=resource_key)
    return res


def narrow_leaves_out(pc: PoolCapacity) -> list[str]:
    """The resources of the pool that only ``-o wide`` shows (pods aside: its maxPods is on its own line)."""
    return [r for r in pool_resources(pc, wide=True) if r not in _POOL_RESOURCES and r != "pods"]


def pool_rows(pc: PoolCapacity, wide: bool = False, extended: bool = False) -> list[list[str]]:
    """The rows of a pool's table (``pool_resources`` its columns), each column in one unit. A value the model
    does not derive for a resource (the allocatable of an extended resource) is ``-``."""
    res = pool_resources(pc, wide, extended)
    n = pc.pool.count
    labels = ["capacity", "systemReserved", "kubeReserved", "hard eviction"]
    hugepages = not pc.hugepages.is_zero()
    if hugepages:
        labels.append("hugepages")
    labels += ["allocatable", "committed", f"cluster (×{n})"]
    values: dict[str, list[Quantity | None]] = {}
    for r in res:
        col = [
            pc.capacity.get(r),
            _reserved(pc.system_reserved, r),
            _reserved(pc.kube_reserved, r),
            pc.eviction_reserved.get(r),
        ]
        if hugepages:
            col.append(pc.hugepages if r == "memory" else None)
        committed = pc.committed.get(r)
        col += [pc.allocatable.get(r), committed, committed.scale(n) if committed is not None else None]
        values[r] = col
    rows = _table(labels, res, values)
    at = labels.index("committed") + 1  # the percent row goes above committed, as the arithmetic reads
    rows.insert(at, ["percent", *(f"{pc.percent[r]}%" if r in pc.percent else "-" for r in res)])
    return rows


def exact(pc: PoolCapacity, wide: bool = False) -> list[tuple[str, str]]:
    """The byte values of the table a user compares with a node (``kubectl describe node``: Capacity and
    Allocatable, the kubelet's), exactly as the kubelet writes them: ``[("capacity", "memory 32386524Ki, ...")]``;
    nothing when the table has no byte column."""
    res = [r for r in pool_resources(pc, wide) if is_bytes(r)]
    out = []
    for label, values in (("capacity", pc.capacity), ("allocatable", pc.allocatable)):
        shown = [f"{r} {values[r]}" for r in res if r in values]
        if shown:
            out.append((label, ", ".join(shown)))
    return out


def totals_rows(
    model: CapacityModel, pools: list[PoolCapacity], wide: bool = False, extended: bool = False
) -> list[list[str]]:
    """Cluster totals as table rows, in the pool tables' resource order (pods last), each column in one unit;
    ``wide``: with every other resource of the pools too; ``extended``: with their extended resources."""
    res = totals_resources(model, pools, wide, extended)
    totals = model.total_quantities(pools)
    keys = ("capacity", "allocatable", "committedAllocatable")
    values = {r: [totals[k].get(r) for k in keys] for r in res}
    return _table(["capacity", "allocatable", "committed"], res, values)


def totals_resources(
    model: CapacityModel, pools: list[PoolCapacity], wide: bool = False, extended: bool = False
) -> list[str]:
    totals = model.total_quantities(pools)
    present = {r for key in ("capacity", "allocatable", "committedAllocatable") for r in totals[key]}
    return sorted((r for r in present if wide or r in RESOURCES or (extended and is_extended(r))), key=resource_key)


@dataclass(frozen=True)
class Explained:
    """What ``allocatable explain`` reports: the capacity model and the pools asked for (every pool by default)."""

    model: CapacityModel
    pools: list[PoolCapacity]
    #: What they cost (``renderer.capacity.cost.ExplainCost``), when the settings have ``pricing`` (docs/cost.md).
    cost: Any = None
