"""The cost sections every format adds when a report is priced (docs/cost.md): ``explain``'s node prices, reserved
slices and per-core prices, and ``diff``'s headline, per-pool table and details. The report types' own modules call
these and append (or, in the pull-request comment, prepend) what they return; nothing here changes an unpriced report.
"""

from __future__ import annotations

from decimal import Decimal
from html import escape

from renderer.capacity.cost import ChangeCost, ExplainCost, FleetChange, PoolChangeCost, PoolCost
from renderer.cost.money import HOURLY_PLACES, fmt
from renderer.cost.prices import NodePrice, Unknown
from renderer.escaping import markdown as md
from renderer.escaping import markdown_code, plain

__all__ = [
    "change_headline",
    "change_markdown",
    "change_text",
    "change_view",
    "explain_html",
    "explain_markdown",
    "explain_text",
]


def _m(amount: Decimal | None, currency: str, *, signed: bool = False) -> str:
    return "—" if amount is None else fmt(amount, currency, signed=signed)


def _hourly(price: NodePrice) -> str:
    return fmt(price.hourly, price.currency, places=HOURLY_PLACES)


def _units(price: NodePrice) -> str:
    u = price.units
    places = Decimal("0.000001")
    how = (
        "Compute Engine core and RAM SKUs"
        if u.method == "sku"
        else ("the price file's unit prices" if u.method == "file" else f"cpu:memory weight {u.method.split()[-1]}")
    )
    return (
        f"cpu {fmt(u.cpu, price.currency, places=places)}/core-hour, memory {fmt(u.memory, price.currency, places=places)}"
        f"/GiB-hour ({how})"
    )


def _alloc(pair: tuple[Decimal | None, Decimal | None], currency: str) -> str:
    return f"allocatable {_m(pair[0], currency)} → committed {_m(pair[1], currency)}"


def _units_line(cost: ExplainCost) -> str:
    return f"{cost.currency}, {int(cost.hours)} hours a month"


# --- explain --------------------------------------------------------------------------------------------------------


def explain_text(cost: ExplainCost) -> list[str]:
    c = cost.currency
    priced = [p for p in cost.pools if isinstance(p.price, NodePrice)]
    nodes = sum(p.count for p in priced)
    out = [
        f"cost ({_units_line(cost)}): {nodes} priced node{'s' if nodes != 1 else ''} {_m(cost.fleet_monthly, c)}/month, "
        f"of which reservations {_m(cost.reserved_monthly, c)}/month"
    ]
    for p in cost.pools:
        out += _explain_pool_text(p, c)
    out += [f"info: {plain(n)}" for n in cost.notes]
    return out


def _explain_pool_text(p: PoolCost, c: str) -> list[str]:
    if isinstance(p.price, Unknown):
        return [f"  {plain(p.ref)}: price unknown: {plain(p.price.reason)} (not counted, never as $0)"]
    price = p.price
    out = [
        f"  {plain(p.ref)}  {plain(price.instance_type)}  {_hourly(price)}/node-hour  {_m(p.node_monthly, c)}/node-month"
        f" × {p.count} = {_m(p.pool_monthly, c)}/month",
        f"    price: {plain(price.source)}; {_units(price)}",
    ]
    out += [f"    overrides {plain(o)}" for o in price.overridden]
    slices = ", ".join(f"{name} {_m(s.node_monthly, c)}" for name, s in p.slices.items())
    out.append(
        f"    reservations per node-month: {slices} = {_m(p.reserved_node_monthly, c)}; pool "
        f"{_m(p.reserved_pool_monthly, c)}/month"
    )
    out.append(f"    one core-month: {_alloc(p.core, c)}; one GiB-month: {_alloc(p.gib, c)}")
    return out


def explain_markdown(cost: ExplainCost) -> list[str]:
    c = cost.currency
    out = [
        "### Cost",
        "",
        f"Your reservations cost **{md(_m(cost.reserved_monthly, c))}/month** of "
        f"{md(_m(cost.fleet_monthly, c))}/month for the priced nodes ({md(_units_line(cost))}).",
        "",
        "| pool | type | $/node-hour | $/node-month | nodes | $/month | kube-reserved | system-reserved | "
        "eviction-hard | reservations $/month | $/core-month (allocatable → committed) | $/GiB-month |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    unknown = []
    for p in cost.pools:
        if isinstance(p.price, Unknown):
            unknown.append(f"- {markdown_code(p.ref)}: price unknown — {md(p.price.reason)}")
            continue
        s = p.slices
        out.append(
            f"| {markdown_code(p.name)} | {markdown_code(p.price.instance_type)} | {md(_hourly(p.price))} | "
            f"{md(_m(p.node_monthly, c))} | {p.count} | {md(_m(p.pool_monthly, c))} | "
            + " | ".join(md(_m(s[k].pool_monthly, c)) for k in ("kube-reserved", "system-reserved", "eviction-hard"))
            + f" | {md(_m(p.reserved_pool_monthly, c))} | {md(_m(p.core[0], c))} → {md(_m(p.core[1], c))} | "
            f"{md(_m(p.gib[0], c))} → {md(_m(p.gib[1], c))} |"
        )
    out.append("")
    if unknown:
        out += ["Not priced (not counted, never as $0):", "", *unknown, ""]
    sources = sorted({p.price.source for p in cost.pools if isinstance(p.price, NodePrice)})
    out += [f"Prices: {md('; '.join(sources))}." if sources else "No pool is priced.", ""]
    out += [f"> ℹ️ {md(n)}" for n in cost.notes]
    if cost.notes:
        out.append("")
    return out


def explain_html(cost: ExplainCost) -> str:
    c = cost.currency
    rows = []
    for p in cost.pools:
        if isinstance(p.price, Unknown):
            rows.append(
                f'<tr><th scope="row">{escape(p.ref)}</th><td colspan="6">price unknown: '
                f"{escape(p.price.reason)}</td></tr>"
            )
            continue
        rows.append(
            f'<tr><th scope="row">{escape(p.ref)}</th><td>{escape(p.price.instance_type)}</td>'
            f"<td>{escape(_hourly(p.price))}</td><td>{escape(_m(p.node_monthly, c))}</td><td>{p.count}</td>"
            f"<td>{escape(_m(p.pool_monthly, c))}</td><td>{escape(_m(p.reserved_pool_monthly, c))}</td></tr>"
        )
    notes = "".join(f"<p>{escape(n)}</p>" for n in cost.notes)
    return (
        '<section id="cost" aria-labelledby="cost-h">\n<h2 id="cost-h">Cost</h2>\n'
        f"<p>Reservations cost {escape(_m(cost.reserved_monthly, c))}/month of {escape(_m(cost.fleet_monthly, c))}"
        f"/month for the priced nodes ({escape(_units_line(cost))}).</p>\n"
        "<table><thead><tr><th>pool</th><th>type</th><th>per node-hour</th><th>per node-month</th><th>nodes</th>"
        "<th>per month</th><th>reservations per month</th></tr></thead>\n<tbody>\n"
        + "\n".join(rows)
        + f"\n</tbody></table>\n{notes}\n</section>\n"
    )


# --- diff -----------------------------------------------------------------------------------------------------------


def _fleet_words(f: FleetChange) -> str | None:
    net = f.added - f.freed
    if net == 0:
        return None
    by = f" by {f.provisioner}" if f.provisioner and net > 0 else ""
    return f"{abs(net)} × {f.instance_type}{by} {'on' if net > 0 else 'freed on'} {f.pool}"


def _count_words(p: PoolChangeCost) -> str | None:
    before, after = p.count[0] or 0, p.count[1] or 0
    if before == after:
        return None
    kind = p.price.instance_type or "node"
    return f"{abs(after - before)} × {kind} {'added to' if after > before else 'removed from'} {p.name}"


def change_headline(cost: ChangeCost) -> str:
    """ "this change adds $248.20/month (1 × c6i.2xlarge on eks-batch)" — the bill first, then the capacity it moves."""
    c = cost.currency
    bill = cost.bill_monthly
    why = [w for w in (*map(_count_words, cost.pools), *map(_fleet_words, cost.fleet)) if w]
    who = cost.subject
    if bill > 0:
        text = f"{who} adds {fmt(bill, c)}/month"
    elif bill < 0:
        text = f"{who} saves {fmt(-bill, c)}/month"
    else:
        text = f"{who} adds no nodes"
    if why:
        text += f" ({', '.join(why)})"
    capacity = cost.capacity_monthly
    if capacity > 0:
        text += f"; it takes committed capacity worth {fmt(capacity, c)}/month off the nodes"
    elif capacity < 0:
        text += f"; it gives the nodes committed capacity worth {fmt(-capacity, c)}/month"
    if cost.unknown:
        text += f"; not priced: {', '.join(cost.unknown)}"
    if cost.limit is not None:
        text += f"; impact.maxMonthlyCostIncrease {fmt(cost.limit, c)}: {'fails' if cost.failed else 'passes'}"
    return text


def _rows(cost: ChangeCost) -> list[list[str]]:
    """A row per changed pool (with its first fleet change), then a row per other fleet change (Karpenter's plan
    launches one per instance type)."""
    fleet: dict[str, list[FleetChange]] = {}
    for f in cost.fleet:
        fleet.setdefault(f.pool, []).append(f)
    rows = []
    for p in cost.pools:
        changes = fleet.pop(p.name, [])
        first = changes[0] if changes else None
        rows.append(_row(p.name, p.price, p.count, first, p.nodes_monthly, p.capacity_monthly, cost))
        rows += [_row(f.pool, f.price, None, f, None, None, cost) for f in changes[1:]]
    for changes in fleet.values():
        rows += [_row(f.pool, f.price, None, f, None, None, cost) for f in changes]
    return rows


def _row(
    name: str,
    price: NodePrice | Unknown,
    count: tuple[int | None, int | None] | None,
    fleet: FleetChange | None,
    nodes_monthly: Decimal | None,
    capacity: Decimal | None,
    cost: ChangeCost,
) -> list[str]:
    c = cost.currency
    kind = price.instance_type or "—"
    per_node = _m(price.hourly * cost.hours, c) if isinstance(price, NodePrice) else "unknown"
    counted = "—" if count is None or count[0] == count[1] else f"{count[0] or 0} → {count[1] or 0}"
    autoscaler = "—" if fleet is None else f"+{fleet.added}{_by(fleet)} / −{fleet.freed}"
    fleet_monthly = None if fleet is None else fleet.monthly(cost.hours)
    monthly = None
    if isinstance(price, NodePrice):
        monthly = (nodes_monthly or Decimal(0)) + (fleet_monthly or Decimal(0))
    return [name, kind, per_node, counted, autoscaler, _m(monthly, c, signed=True), _m(capacity, c, signed=True)]


def _by(f: FleetChange) -> str:
    return f" by {f.provisioner}" if f.provisioner else ""


def _plans(cost: ChangeCost) -> list[str]:
    """Per pool Karpenter provisions: what it launches after the change and before it, per type whose count moved,
    with the difference priced, and the nodes the pods need when that differs ("karpenter launches 2 × m5.large (was
    1): +$70.08/month; the pods need 3")."""
    by_pool: dict[str, list[FleetChange]] = {}
    for f in cost.fleet:
        if f.provisioner:
            by_pool.setdefault(f.pool, []).append(f)
    out = []
    for pool, changes in by_pool.items():
        launched = ", ".join(
            f"{f.launched} × {f.instance_type} (was {f.was}): "
            + (
                f"{fmt((f.launched - f.was) * f.price.hourly * cost.hours, cost.currency, signed=True)}/month"
                if isinstance(f.price, NodePrice)
                else "price unknown"
            )
            for f in changes
        )
        line = f"{pool}: {changes[0].provisioner} launches {launched}"
        total, needed = sum(f.launched for f in changes), changes[0].needed
        if needed is not None and needed != total:
            line += f"; the pods need {needed}"
        out.append(line)
    return out


HEADERS = ["pool", "type", "per node-month", "nodes (repo)", "autoscaler +/−", "monthly change", "capacity-equivalent"]


def change_text(cost: ChangeCost) -> list[str]:
    out = [f"cost ({cost.currency}, {int(cost.hours)} hours a month): {plain(change_headline(cost))}"]
    rows = [HEADERS, *_rows(cost)]
    if len(rows) > 1:
        widths = [max(len(r[i]) for r in rows) for i in range(len(HEADERS))]
        out += ["  " + "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    out += [f"  {plain(line)}" for line in _details(cost)]
    out += [f"info: {plain(n)}" for n in cost.notes]
    return out


def _details(cost: ChangeCost) -> list[str]:
    sources = sorted(
        {p.price.source for p in cost.pools if isinstance(p.price, NodePrice)}
        | {f.price.source for f in cost.fleet if isinstance(f.price, NodePrice)}
    )
    out = [f"prices: {'; '.join(sources)}"] if sources else []
    for p in cost.pools:
        if isinstance(p.price, NodePrice):
            out += [f"{p.ref}: {o} overridden by spec.price" for o in p.price.overridden]
        else:
            out.append(f"{p.ref}: price unknown: {p.price.reason}")
    out += _plans(cost)
    out += [f"{f.pool}: price unknown: {f.price.reason}" for f in cost.fleet if isinstance(f.price, Unknown)]
    return out


def change_markdown(cost: ChangeCost) -> list[str]:
    """The pull-request comment's lead when the money moved (Infracost's manner: the headline, a per-pool table, the
    details collapsed); nothing at all when nothing moved."""
    if not cost.moved:
        return []
    out = [f"#### 💰 {md(change_headline(cost))}", ""]
    rows = _rows(cost)
    if rows:
        out += ["| " + " | ".join(HEADERS) + " |", "|---|---|---:|---:|---:|---:|---:|"]
        out += ["| " + " | ".join([markdown_code(r[0]), markdown_code(r[1]), *map(md, r[2:])]) + " |" for r in rows]
        out.append("")
    details = [
        f"{cost.currency}, {int(cost.hours)} hours a month. *monthly change*: nodes the repo declares and the "
        "autoscaler adds or frees, priced; *capacity-equivalent*: committed allocatable the change takes (+) or gives "
        "(−), priced by the node's cpu and memory unit prices (docs/cost.md).",
        *_details(cost),
        *cost.notes,
    ]
    out += ["<details><summary>How this is priced</summary>", ""]
    out += [f"- {md(line)}" for line in details]
    out += ["", "</details>", ""]
    return out


def change_view(cost: ChangeCost | None) -> dict[str, object] | None:
    """The priced change as plain values for a page template (``diff -o html``): headline, headers, rows and the
    details; None when nothing moved, as in the markdown comment."""
    if cost is None or not cost.moved:
        return None
    return {
        "headline": change_headline(cost),
        "headers": HEADERS,
        "rows": _rows(cost),
        "details": [*_details(cost), *cost.notes],
        "currency": cost.currency,
        "hours": int(cost.hours),
    }
