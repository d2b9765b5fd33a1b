"""``allocatable explain`` (text): per pool, the policies that apply and the capacity arithmetic; the totals."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TextIO

from renderer.capacity.explain import (
    Explained,
    committed_resources,
    delivery_text,
    exact,
    narrow_leaves_out,
    ordered,
    pool_rows,
    rule_text,
    sources,
    table,
    totals_resources,
    totals_rows,
    under_commits,
)
from renderer.capacity.model import CapacityModel, PoolCapacity

#: Lines written at once: the text of 100,000 pools is never held whole.
_CHUNK_LINES = 1 << 13


def write(explained: Explained, out: TextIO, wide: bool = False) -> None:
    """The report, written in pieces of about ``_CHUNK_LINES`` lines."""
    for piece in pieces(explained.model, explained.pools, wide):
        out.write(piece)
    if explained.cost is not None:
        from renderer.reporters.costs import explain_text

        out.write("\n".join(["", *explain_text(explained.cost)]) + "\n")


def pieces(model: CapacityModel, pools: list[PoolCapacity], wide: bool = False) -> Iterator[str]:
    """The report in pieces of whole lines, each line ending in a newline.

    Cost: O(pools × resources + runtime classes per pool); memory: one piece. ``wide`` (``-o wide``): every resource
    a pool has in its table and the totals; otherwise cpu, memory and ephemeral-storage (and pods in the totals),
    with a line naming what is left out."""
    out: list[str] = []
    for pc in pools:
        if len(out) >= _CHUNK_LINES:
            yield "\n".join(out) + "\n"
            out.clear()
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
        reserved = [
            f"{label} {sources(d)}"
            for label, d in (("systemReserved", pc.system_reserved), ("kubeReserved", pc.kube_reserved))
            if d
        ]
        if reserved:
            out.append(f"  reserved from:       {'; '.join(reserved)}")
        out.append(f"  hard eviction:       {_signals(pc.eviction_hard)} ({pc.eviction_source})")
        out.append(f"  max pods:            {pc.max_pods}")
        how = delivery_text(pc, model.policies.settings.render.karpenter.expressions)
        if how is not None:
            out.append(f"  delivery:            {how}")
        out.extend(table(pool_rows(pc, wide)))
        for label, values in exact(pc, wide):
            out.append(f"  {'exact ' + label + ':':<20} {values}")
        hidden = [] if wide else narrow_leaves_out(pc)
        if hidden:
            out.append(f"  more resources: {', '.join(hidden)} (-o wide shows them)")
        rules = committed_resources(pc)
        if rules:
            out.append("  commit rule:")
            out.extend(f"    {rule_text(pc, r)}" for r in rules)
        if pc.overhead:
            out.append("  runtime classes (pod overhead):")
            for o in pc.overhead:
                rc = o.runtime_class
                if not o.pod_fixed:
                    out.append(f"    {rc.name} ({rc.model.handler}): no overhead")
                    continue
                fixed = ", ".join(f"{k} {v}" for k, v in ordered(o.pod_fixed).items())
                fits = ", ".join(f"{v} by {k}" for k, v in ordered(o.pods_fit).items() if v is not None)
                share = ", ".join(f"{k} {v}%" for k, v in ordered(o.max_pods_share).items() if v is not None)
                out.append(f"    {rc.name} ({rc.model.handler}): podFixed {fixed}")
                out.append(f"      pods that fit by overhead alone: {fits or '-'}")
                out.append(
                    f"      {pc.max_pods} pods (maxPods) spend on overhead: {share or '-'} of committed allocatable"
                )
        for note in pc.notes:
            out.append(f"  note: {note}")
        out.append("")
    nodes = sum(pc.pool.count for pc in pools)
    out.append(f"Totals: {count(len(pools), 'pool')}, {count(nodes, 'node')}")
    if pools:
        out.extend(table(totals_rows(model, pools, wide)))
        hidden = (
            [] if wide else [r for r in totals_resources(model, pools, True) if r not in totals_resources(model, pools)]
        )
        if hidden:
            out.append(f"  more resources: {', '.join(hidden)} (-o wide shows them)")
    if under_commits(pools):
        rule = "scale with the class" if model.under_commit_scales_reserved else "do not scale"
        out.append(f"  under-commit: reserved slices {rule} (commit.underCommitScalesReserved)")
    yield "\n".join(out) + "\n"


def count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _signals(d: dict[str, str]) -> str:
    return ", ".join(f"{k}<{v}" for k, v in sorted(d.items())) or "none"
