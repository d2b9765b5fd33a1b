"""``allocatable explain -o markdown``: for a pull request comment."""

from __future__ import annotations

from typing import TextIO

from renderer.capacity.explain import Explained, exact, ordered, pool_rows, totals_rows
from renderer.capacity.model import CapacityModel, PoolCapacity
from renderer.reporters.explain.text import count


def write(explained: Explained, out: TextIO) -> None:
    out.write(markdown(explained.model, explained.pools))
    if explained.cost is not None:
        from renderer.reporters.costs import explain_markdown

        out.write("\n".join(["", *explain_markdown(explained.cost)]))


def _md_table(rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(c or " " for c in rows[0]) + " |", "|" + "---|" * len(rows[0])]
    out.extend("| " + " | ".join(r) + " |" for r in rows[1:])
    return out


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
        out.extend(_md_table(pool_rows(pc, extended=True)))  # with the extended resources it has (nvidia.com/gpu)
        out.append("")
        said = "; ".join(f"{label}: {values}" for label, values in exact(pc))
        if said:
            out.append(f"Exact, as the node reports them — {said}")
            out.append("")
        for o in pc.overhead:
            if o.pod_fixed:
                share = ", ".join(f"{k} {v}%" for k, v in ordered(o.max_pods_share).items() if v is not None)
                out.append(
                    f"- RuntimeClass `{o.runtime_class.name}`: at most {o.limiting_pods} pods by overhead alone; "
                    f"{pc.max_pods} pods spend {share} of committed allocatable on overhead"
                )
        if pc.overhead:
            out.append("")
    nodes = sum(pc.pool.count for pc in pools)
    out.append(f"**Totals** — {count(len(pools), 'pool')}, {count(nodes, 'node')}")
    if pools:
        out.append("")
        out.extend(_md_table(totals_rows(model, pools, extended=True)))
    return "\n".join(out) + "\n"
