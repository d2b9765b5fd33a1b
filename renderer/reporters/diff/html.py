"""``allocatable diff -o html``: the reviewer's page — one self-contained file for a pull request's artifact.

What a reviewer of a capacity change reads, in order: the headline (pools changed, cluster committed allocatable,
lint), and with a cluster snapshot the impact headline; per changed pool, one pair of bars per resource — the
committed allocatable of one node before and after, on one scale, the change written beside them — with the
per-node and cluster figures as a table; the same pair of bars for the whole cluster; the impact table (the pool
table of ``-o text``: Pending pods, nodes the autoscaler adds in all, removable nodes, before → after) with the
Pending pods grouped by controller, the displaced pods and the provisioners' view (Karpenter, the cluster
autoscaler's template); the lint findings the change adds or fixes, and the policy objects it changes.

Every sentence and cell is the one the text and Markdown reports print (``renderer.reporters.diff._common``, and
the impact section of ``renderer.reporters.impact.html``), so the page cannot say something they do not. The impact
section's template (``templates/impact_section.html.j2``) leaves one block, ``cost``, right after the impact table,
for a cost section.

The page is inline SVG and CSS only, like ``explain -o html``: no script, no external style, font or image
(``renderer.reporters.htmlpage``: autoescape on, every value made plain first, so a hostile pool, file or pod name
is text). Coordinates are formatted here, once, so the page is byte-stable. Cost: O(pools × resources + pods
listed).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TextIO

from renderer import __version__
from renderer.capacity.diff import Change, DiffResult, PoolDiff
from renderer.quantity import Quantity
from renderer.reporters.costs import change_view
from renderer.reporters.diff._common import (
    MAX_LISTED,
    _count,
    _resources,
    _side,
    amount,
    caveat,
    columns,
    delta,
    header,
    headline,
    total_units,
    unit,
)
from renderer.reporters.htmlpage import render
from renderer.reporters.impact.html import view as impact_view
from renderer.units import cores, readable

__all__ = ["html", "write"]

BAR_WIDTH = 560  # px of the longer of the two bars of a resource
LEFT = 170  # px left of the bars, for the resource name and the side
BAR_HEIGHT = 18
ROW = 58  # px per resource: two bars and the gap under them


def _show(q: Quantity | None, resource: str, in_unit: str | None) -> str:
    if q is None:
        return "—"
    if resource == "cpu":
        return f"{cores(q)} cores"
    return readable(q, resource, in_unit)


@dataclass
class Side:
    label: str  # "before" or "after"
    value: str  # as text, in the pair's unit
    width: str  # SVG coordinates, formatted once
    text_x: str


@dataclass
class Pair:
    """One resource of one pool (or of the cluster): the bar before and the bar after on one scale."""

    resource: str
    before: Side
    after: Side
    change: str  # "-2 (-13.3%)", "0"
    direction: str  # "down", "up" or "same": a class for the after bar, and a word in the description
    description: str


def _pair(resource: str, c: Change) -> Pair:
    u = unit(resource, c.before, c.after, c.delta)
    values = [q.value if q is not None and q.value > 0 else Decimal(0) for q in (c.before, c.after)]
    extent = max(values)
    scale = Decimal(BAR_WIDTH) / extent if extent > 0 else Decimal(0)
    sides = []
    for label, q, v in zip(("before", "after"), (c.before, c.after), values, strict=True):
        width = v * scale
        sides.append(Side(label, _show(q, resource, u), f"{width:.2f}", f"{LEFT + width + 6:.2f}"))
    direction = "same" if not c.changed else ("down" if c.delta.is_negative() else "up")
    change = delta(c, resource, u)
    description = f"{resource}: before {sides[0].value}, after {sides[1].value}" + (
        "" if direction == "same" else f", change {change}"
    )
    return Pair(resource, sides[0], sides[1], change, direction, description)


@dataclass
class PoolView:
    anchor: str
    ref: str
    status: str
    reasons: str
    count: str
    platform: str
    source: str
    commit_classes: str
    reservation_policies: str
    pairs: list[Pair]
    table: list[list[str]]  # heading row first


def _names(before: list[str], after: list[str]) -> str:
    b, a = ", ".join(before) or "none", ", ".join(after) or "none"
    return b if b == a else f"{b} → {a}"


def _pool_table(pd: PoolDiff, res: list[str]) -> list[list[str]]:
    """The markdown report's per-pool arithmetic: per node and for the cluster, before → after and the change, one
    unit per column."""
    rows: list[tuple[str, dict[str, Change], bool]] = [
        ("allocatable / node", pd.allocatable, False),
        ("committed / node", pd.committed, False),
        ("Δ committed / node", pd.committed, True),
        ("cluster committed", pd.cluster, False),
        ("Δ cluster", pd.cluster, True),
    ]
    units = {}
    for r in res:
        shown = [c for _, changes, _ in rows if (c := changes.get(r)) is not None]
        units[r] = unit(r, *(q for c in shown for q in (c.before, c.after, c.delta)))
    out = [["", *(header(r) for r in res)]]
    for label, changes, is_delta in rows:
        cells = [label]
        for r in res:
            c = changes.get(r)
            if c is None:
                cells.append("—")
            elif is_delta:
                cells.append(delta(c, r, units[r]))
            elif not c.changed:
                cells.append(_show(c.after, r, units[r]).removesuffix(" cores"))
            else:
                before, after = (_show(q, r, units[r]).removesuffix(" cores") for q in (c.before, c.after))
                cells.append(f"{before} → {after}")
        out.append(cells)
    return out


def _pairs(pd: PoolDiff, res: list[str]) -> list[Pair]:
    """The bars of a pool: the resources whose committed allocatable per node moves (all of them when none does: a
    pool added, removed or changed in node count only); the table under them has every resource."""
    moved = [r for r in res if r in pd.committed and pd.committed[r].changed]
    return [_pair(r, pd.committed[r]) for r in (moved or [r for r in res if r in pd.committed])]


def _pool_view(index: int, pd: PoolDiff, res: list[str]) -> PoolView:
    return PoolView(
        anchor=f"pool-{index}",
        ref=pd.ref,
        status=pd.status,
        reasons="; ".join(pd.reasons),
        count=_count(pd),
        platform=str(pd.platform),
        source=str(pd.source),
        commit_classes=_names(*pd.commit_classes),
        reservation_policies=_names(*pd.reservation_policies),
        pairs=_pairs(pd, res),
        table=_pool_table(pd, res),
    )


def _totals_table(d: DiffResult, res: list[str]) -> list[list[str]]:
    """The markdown report's cluster table: before, after and the change, one unit per column."""
    u = total_units(d, res)
    nodes = Change(Quantity.from_value(d.nodes[0]), Quantity.from_value(d.nodes[1]))
    out = [["", "nodes", *(header(r) for r in res)]]
    out.append(["before", str(d.nodes[0]), *(amount(_side(d, r, 0), r, u[r]) for r in res)])
    out.append(["after", str(d.nodes[1]), *(amount(_side(d, r, 1), r, u[r]) for r in res)])
    out.append(["Δ", delta(nodes, "pods"), *(delta(d.totals[r], r, u[r]) if r in d.totals else "—" for r in res)])
    return out


def _finding(f: Any) -> dict[str, str]:
    where = f"{f.path}:{f.line}" if f.line else str(f.path)
    return {
        "severity": f.severity,
        "code": f.code,
        "where": where,
        "object": f.object or "",
        "message": f.message,
    }


def html(d: DiffResult) -> str:
    res = _resources(d)
    changed = d.changed_pools
    unchanged = [p.ref for p in d.pools if p.status == "unchanged"]
    objects = [
        (label, refs[:MAX_LISTED], len(refs) - min(len(refs), MAX_LISTED))
        for label, refs in (("added", d.objects.added), ("removed", d.objects.removed), ("changed", d.objects.changed))
        if refs
    ]
    return render(
        "diff.html.j2",
        version=__version__,
        base=d.base_label,
        head=d.head_label,
        compared=d.base_revision.describe() if d.base_revision is not None else None,
        headline=headline(d),
        cost=change_view(d.cost),
        caveat=caveat(d),
        pools=[
            _pool_view(i, pd, columns(res, pd.committed, pd.allocatable, pd.cluster))
            for i, pd in enumerate(changed[:MAX_LISTED], 1)
        ],
        more_pools=max(len(changed) - MAX_LISTED, 0),
        unchanged=unchanged[:MAX_LISTED],
        more_unchanged=max(len(unchanged) - MAX_LISTED, 0),
        nodes=f"{d.nodes[0]}" if d.nodes[0] == d.nodes[1] else f"{d.nodes[0]} → {d.nodes[1]}",
        totals=[_pair(r, d.totals[r]) for r in res if r in d.totals],
        totals_table=_totals_table(d, columns(res, d.totals)),
        impact=impact_view(d.impact) if d.impact is not None else None,
        new_findings=[_finding(f) for f in d.new_findings[:MAX_LISTED]],
        fixed_findings=[_finding(f) for f in d.fixed_findings[:MAX_LISTED]],
        more_new=max(len(d.new_findings) - MAX_LISTED, 0),
        more_fixed=max(len(d.fixed_findings) - MAX_LISTED, 0),
        unchanged_findings=d.unchanged_findings,
        objects=objects,
        bar_width=BAR_WIDTH,
        left=LEFT,
        bar_height=BAR_HEIGHT,
        row=ROW,
    )


def write(result: DiffResult, out: TextIO) -> None:
    out.write(html(result))
