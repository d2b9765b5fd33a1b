"""``allocatable explain -o html``: one self-contained page showing where each node's capacity goes.

Per pool, one stacked bar per resource splits a node's capacity into system-reserved, kube-reserved, hard eviction
(and hugepages for memory) and allocatable; the CommitClass then adds an amplification beyond capacity (over-commit,
drawn hatched past a capacity marker) or holds part of allocatable back (under-commit). The same bars for the whole
cluster (× node count, summed) close the page.

The page is inline SVG and CSS only: no script, no external style, font or image, so it reads the same offline, in
a CI artifact viewer and without JavaScript. Accessibility: every bar has a title and description, every segment a
``<title>`` with its value, segments carry patterns and labels besides colour, and a table under each chart gives
the numbers as text; per pool, a table of the RuntimeClasses that can land there with their pod overhead, the pods
that fit by overhead alone and the share of committed allocatable maxPods such pods spend on it. Generated with Jinja2, autoescape on: every value from a policy is escaped (control
characters are shown as ``\\xNN`` first). Cost: O(pools × resources).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import resources
from typing import Any, TextIO

from renderer import __version__
from renderer.capacity.explain import (
    Explained,
    exact,
    overhead_rows,
    pool_resources,
    pool_rows,
    rule_text,
    sources,
    totals_rows,
    under_commits,
)
from renderer.capacity.model import RESOURCES, CapacityModel, PoolCapacity, out_of_range
from renderer.quantity import Quantity, QuantityError
from renderer.resourcenames import is_extended
from renderer.units import cores, readable, unit_for

BAR_WIDTH = 640  # px of the widest part of a bar (capacity, or capacity plus amplification)
LEFT = 170  # px left of the bars, for the resource names

#: key → (legend label, CSS class); order is the order segments are stacked in
SEGMENTS: dict[str, str] = {
    "system": "system-reserved",
    "kube": "kube-reserved",
    "eviction": "hard eviction",
    "hugepages": "hugepages",
    "allocatable": "allocatable",
    "held": "held back by under-commit",
    "amplified": "commit-class amplification",
}

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _visible(value: Any) -> Any:
    """Control characters from input data are shown as ``\\xNN``, never passed through (then autoescaped)."""
    from markupsafe import Markup

    if isinstance(value, Markup):  # markup the template itself made (a macro's output): already escaped
        return value
    if isinstance(value, str):
        return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", value)
    return value


def _show(q: Quantity, resource: str, unit: str | None) -> str:
    if resource == "cpu":
        return f"{cores(q)} cores"
    return readable(q, resource, unit)


@dataclass
class Segment:
    key: str
    label: str
    value: str  # as text, in the bar's unit, e.g. "0.10Gi"
    share: str  # of capacity, e.g. "0.3%"
    x: str  # SVG coordinates, formatted once here so the page is byte-stable
    width: str
    text_x: str
    labelled: bool  # wide enough to carry its share as text


@dataclass
class Bar:
    resource: str
    capacity: str
    committed: str
    note: str  # under the resource's name: "commit 80%", "no CommitClass" (an extended resource), "× nodes, summed"
    segments: list[Segment] = field(default_factory=list)
    marker: str = f"{LEFT}"  # x of the capacity marker
    description: str = ""


def _bar(resource: str, parts: list[tuple[str, Quantity]], capacity: Quantity, committed: Quantity, note: str) -> Bar:
    """Stack ``parts`` (in SEGMENTS order) on one scale: the longest of capacity and the stacked total fills BAR_WIDTH."""
    parts = [(k, q) for k, q in parts if not q.is_zero() and not q.is_negative()]
    total = sum((q.value for _, q in parts), Decimal(0))
    extent = max(total, capacity.value)
    unit = unit_for([capacity, committed, *(q for _, q in parts)])  # one unit per bar
    bar = Bar(
        resource=resource,
        capacity=_show(capacity, resource, unit),
        committed=_show(committed, resource, unit),
        note=note,
    )
    if extent <= 0:
        return bar
    scale = Decimal(BAR_WIDTH) / extent
    x = Decimal(LEFT)
    for key, q in parts:
        width = q.value * scale
        share = (q.value / capacity.value * 100) if capacity.value > 0 else Decimal(0)
        bar.segments.append(
            Segment(
                key=key,
                label=SEGMENTS[key],
                value=_show(q, resource, unit),
                share=f"{share:.1f}%",
                x=f"{x:.2f}",
                width=f"{width:.2f}",
                text_x=f"{x + 4:.2f}",
                labelled=width >= 44,
            )
        )
        x += width
    bar.marker = f"{LEFT + capacity.value * scale:.2f}"
    said = ", ".join(f"{s.label} {s.value} ({s.share})" for s in bar.segments)
    bar.description = f"{resource}: capacity {bar.capacity}; {said}; committed allocatable {bar.committed}"
    return bar


def _parts(pc: PoolCapacity, resource: str, n: int = 1) -> tuple[list[tuple[str, Quantity]], Quantity, Quantity]:
    zero = Quantity(0)
    cap = pc.capacity[resource].scale(n)
    alloc = pc.allocatable.get(resource, zero).scale(n)
    committed = pc.committed.get(resource, zero).scale(n)
    system = pc.system_reserved[resource].quantity.scale(n) if resource in pc.system_reserved else zero
    kube = pc.kube_reserved[resource].quantity.scale(n) if resource in pc.kube_reserved else zero
    eviction = pc.eviction_reserved.get(resource, zero).scale(n)
    hugepages = pc.hugepages.scale(n) if resource == "memory" else zero
    kept = committed if committed < alloc else alloc
    parts = [
        ("system", system),
        ("kube", kube),
        ("eviction", eviction),
        ("hugepages", hugepages),
        ("allocatable", kept),
        ("held", alloc - kept),
        ("amplified", (committed - alloc) if committed > alloc else zero),
    ]
    return parts, cap, committed


@dataclass
class PoolView:
    anchor: str
    ref: str
    count: int
    platform: str
    source: str
    commit_classes: list[str]
    reservation_policies: list[str]
    formula: str | None
    reserved_from: list[str]
    eviction: str
    max_pods: int
    bars: list[Bar]
    rules: list[str]
    notes: list[str]
    overhead: list[list[str]]  # the RuntimeClasses that can land there (heading row first), or [] for none
    exact: list[tuple[str, str]]  # capacity and allocatable bytes as the kubelet writes them


def _pool_view(index: int, pc: PoolCapacity) -> PoolView:
    p = pc.pool
    bars = []
    for r in pool_resources(pc, extended=True):
        if r not in pc.capacity:
            continue
        parts, cap, committed = _parts(pc, r)
        # an extended resource (nvidia.com/gpu) is what the device plugin reports: no CommitClass applies to it
        note = "no CommitClass" if is_extended(r) else f"commit {pc.percent[r]}%"
        bars.append(_bar(r, parts, cap, committed, note))
    reserved = [
        f"{label} {sources(d)}"
        for label, d in (("systemReserved", pc.system_reserved), ("kubeReserved", pc.kube_reserved))
        if d
    ]
    return PoolView(
        anchor=f"pool-{index}",
        ref=p.ref,
        count=p.count,
        platform=p.platform,
        source=p.source.path,
        commit_classes=[c.name for c in pc.commit_classes],
        reservation_policies=[r.name for r in pc.reservation_policies],
        formula=f"{pc.formula.formula} → {pc.formula.fills}" if pc.formula else None,
        reserved_from=reserved,
        eviction=", ".join(f"{k}<{v}" for k, v in sorted(pc.eviction_hard.items())) or "none",
        max_pods=pc.max_pods,
        bars=bars,
        rules=[rule_text(pc, r) for r in RESOURCES if r in pc.capacity and pc.percent[r] != 100],
        notes=list(pc.notes),
        overhead=overhead_rows(pc) if pc.overhead else [],
        exact=exact(pc),
    )


def _totals(pools: list[PoolCapacity]) -> list[Bar]:
    """Cluster totals: each segment summed over pools (× node count); the extended resources the pools have after
    cpu, memory and ephemeral-storage, by name."""
    bars = []
    extended = sorted({r for pc in pools for r in pc.capacity if is_extended(r)})
    for r in (*RESOURCES, *extended):
        have = [pc for pc in pools if r in pc.capacity]
        if not have:
            continue
        sums: dict[str, Quantity] = {}
        cap = committed = Quantity(0)
        for pc in have:
            try:
                parts, c, k = _parts(pc, r, pc.pool.count)
                cap, committed = cap + c, committed + k
                for key, q in parts:
                    sums[key] = sums[key] + q if key in sums else q
            except QuantityError as exc:
                raise out_of_range(pc.pool, f"the cluster total of {r} with this pool", exc) from None
        bars.append(_bar(r, list(sums.items()), cap, committed, "× nodes, summed"))
    return bars


def html(model: CapacityModel, pools: list[PoolCapacity]) -> str:
    from jinja2 import Environment, StrictUndefined

    env = Environment(autoescape=True, undefined=StrictUndefined, finalize=_visible, keep_trailing_newline=True)
    template = env.from_string(
        (resources.files("renderer.reporters.explain") / "templates" / "explain.html.j2").read_text(encoding="utf-8")
    )
    rule = "scale with the class" if model.under_commit_scales_reserved else "do not scale"
    return template.render(
        version=__version__,
        pools=[_pool_view(i, pc) for i, pc in enumerate(pools, 1)],
        tables=[pool_rows(pc, extended=True) for pc in pools],
        totals=_totals(pools),
        totals_table=totals_rows(model, pools, extended=True) if pools else [],
        nodes=sum(pc.pool.count for pc in pools),
        segments=SEGMENTS,
        bar_width=BAR_WIDTH,
        left=LEFT,
        under_commit=f"reserved slices {rule} (commit.underCommitScalesReserved)" if under_commits(pools) else None,
    )


def write(explained: Explained, out: TextIO) -> None:
    page = html(explained.model, explained.pools)
    if explained.cost is not None:
        from renderer.reporters.costs import explain_html

        page = page.replace("</main>", explain_html(explained.cost) + "</main>", 1)
    out.write(page)
