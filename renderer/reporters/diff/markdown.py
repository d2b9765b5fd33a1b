"""``allocatable diff -o markdown``: for a pull request comment or a job summary (``MARKER`` first, so a bot can
update its earlier comment)."""

from __future__ import annotations

from typing import TextIO

from renderer.capacity.diff import Change, DiffResult, PoolDiff
from renderer.escaping import markdown as md
from renderer.escaping import markdown_code
from renderer.quantity import Quantity
from renderer.reporters.diff._common import (
    MARKER,
    MAX_LISTED,
    _count,
    _md_names,
    _plural,
    _resources,
    _side,
    amount,
    caveat,
    cell,
    columns,
    delta,
    header,
    headline,
    total_units,
    unit,
)


def write(result: DiffResult, out: TextIO) -> None:
    out.write(markdown(result))


def _cost_lead(d: DiffResult) -> list[str]:
    """The money first, when the change moved it (docs/cost.md); nothing otherwise."""
    if d.cost is None:
        return []
    from renderer.reporters.costs import change_markdown

    return change_markdown(d.cost)


def markdown(d: DiffResult) -> str:
    res = _resources(d)
    out = [
        MARKER,
        *_cost_lead(d),
        f"### Capacity diff: {markdown_code(d.base_label)} → {md(d.head_label)}",
        "",
    ]
    if d.base_revision is not None:
        out += [f"Compared with {md(d.base_revision.describe())}.", ""]
    out += [f"**{md(headline(d))}**", ""]
    warn = caveat(d)
    if warn:
        out += [f"> ⚠️ {md(warn)}", ""]
    changed = d.changed_pools
    if changed:
        cols = columns(res, *(pd.committed for pd in changed[:MAX_LISTED]))
        out.append("Committed allocatable per node (changed pools only):")
        out.append("")
        out.append("| pool | nodes | " + " | ".join(header(r) for r in cols) + " | why |")
        out.append("|---|---:|" + "---:|" * len(cols) + "---|")
        for pd in changed[:MAX_LISTED]:
            status = "" if pd.status == "changed" else f" *({pd.status})*"
            out.append(
                f"| {markdown_code(pd.name)}{status} | {_count(pd)} | "
                + " | ".join(cell(pd.committed.get(r), r) for r in cols)
                + f" | {md('; '.join(pd.reasons))} |"
            )
        if len(changed) > MAX_LISTED:
            out.append(f"| … and {len(changed) - MAX_LISTED} more | | " + " | " * len(cols) + " |")
        out.append("")
    out.append("Cluster committed allocatable (all pools, per-node value × node count):")
    out.append("")
    cols = columns(res, d.totals)
    out.append("| | nodes | " + " | ".join(header(r) for r in cols) + " |")
    out.append("|---|---:|" + "---:|" * len(cols))
    nodes = Change(Quantity.from_value(d.nodes[0]), Quantity.from_value(d.nodes[1]))
    u = total_units(d, cols)
    out.append(f"| before | {d.nodes[0]} | " + " | ".join(amount(_side(d, r, 0), r, u[r]) for r in cols) + " |")
    out.append(f"| after | {d.nodes[1]} | " + " | ".join(amount(_side(d, r, 1), r, u[r]) for r in cols) + " |")
    out.append(
        f"| Δ | {delta(nodes, 'pods')} | "
        + " | ".join(delta(d.totals[r], r, u[r]) if r in d.totals else "—" for r in cols)
        + " |"
    )
    out.append("")
    if d.impact is not None:
        from renderer.reporters.impact.markdown import section

        out += section(d.impact, "####")
    if changed:
        out += ["<details>", f"<summary>Per-pool arithmetic ({_plural(len(changed), 'pool')})</summary>", ""]
        for pd in changed[:MAX_LISTED]:
            out += _md_pool(pd, columns(res, pd.committed, pd.allocatable, pd.cluster))
        if len(changed) > MAX_LISTED:
            out += [f"… and {len(changed) - MAX_LISTED} more pools (see `allocatable diff -o json`)", ""]
        out += ["</details>", ""]
    if d.objects:
        n = len(d.objects.added) + len(d.objects.removed) + len(d.objects.changed)
        out += ["<details>", f"<summary>Policy objects changed ({n})</summary>", ""]
        for label, refs in (("added", d.objects.added), ("removed", d.objects.removed), ("changed", d.objects.changed)):
            for ref in refs[:MAX_LISTED]:
                out.append(f"- {label}: {markdown_code(ref)}")
            if len(refs) > MAX_LISTED:
                out.append(f"- … and {len(refs) - MAX_LISTED} more {label}")
        out += ["", "</details>", ""]
    out += _md_findings(d)
    return "\n".join(out).rstrip("\n") + "\n"


def _md_pool(pd: PoolDiff, res: list[str]) -> list[str]:
    out = [
        f"#### {markdown_code(pd.ref)} ({pd.status}) — {md(str(pd.platform))}, {markdown_code(str(pd.source))}",
        "",
    ]
    cb, ca = pd.commit_classes
    rb, ra = pd.reservation_policies
    nodes = f"nodes {_count(pd)}"
    classes = f"CommitClass {_md_names(cb)}" + ("" if cb == ca else f" → {_md_names(ca)}")
    policies = f"ReservationPolicy {_md_names(rb)}" + ("" if rb == ra else f" → {_md_names(ra)}")
    out += [f"{nodes} · {classes} · {policies}", ""]
    out.append("| | " + " | ".join(header(r) for r in res) + " |")
    out.append("|---|" + "---:|" * len(res))
    rows: list[tuple[str, dict[str, Change], bool]] = [
        ("allocatable / node", pd.allocatable, False),
        ("committed / node", pd.committed, False),
        ("Δ committed / node", pd.committed, True),
        ("cluster committed", pd.cluster, False),
        ("Δ cluster", pd.cluster, True),
    ]
    units = {}  # one per column
    for r in res:
        shown = [c for _, changes, _ in rows if (c := changes.get(r)) is not None]
        units[r] = unit(r, *(q for c in shown for q in (c.before, c.after, c.delta)))
    for label, changes, is_delta in rows:
        cells = []
        for r in res:
            c = changes.get(r)
            cells.append("—" if c is None else (delta(c, r, units[r]) if is_delta else cell(c, r, units[r])))
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    pb, pa = pd.percent
    if pb != pa and pb and pa:
        moved = ", ".join(f"{r} {pb.get(r)}% → {pa.get(r)}%" for r in pa if pb.get(r) != pa.get(r))
        out += ["", f"Commit percent: {moved}"]
    out.append("")
    return out


def _md_findings(d: DiffResult) -> list[str]:
    out = [
        f"**Lint:** {len(d.new_findings)} new · {len(d.fixed_findings)} fixed · {d.unchanged_findings} unchanged",
        "",
    ]
    for title, findings, open_ in (
        ("New findings", d.new_findings, any(f.severity == "error" for f in d.new_findings)),
        ("Fixed findings", d.fixed_findings, False),
    ):
        if not findings:
            continue
        out += ["<details open>" if open_ else "<details>", f"<summary>{title} ({len(findings)})</summary>", ""]
        for f in findings[:MAX_LISTED]:
            icon = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}[f.severity]
            obj = f" ({md(f.object)})" if f.object else ""
            where = f"{f.path}:{f.line}" if f.line else f.path
            out.append(f"- {icon} `{f.code}` {markdown_code(where)}{obj}: {md(f.message)}")
        if len(findings) > MAX_LISTED:
            out.append(f"- … and {len(findings) - MAX_LISTED} more")
        out += ["", "</details>", ""]
    return out
