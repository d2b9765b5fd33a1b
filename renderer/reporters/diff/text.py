"""``allocatable diff`` (text): for a terminal."""

from __future__ import annotations

from typing import TextIO

from renderer.capacity.diff import Change, DiffResult
from renderer.escaping import plain
from renderer.quantity import Quantity
from renderer.reporters.diff._common import (
    _count,
    _finding_line,
    _resources,
    _side,
    _table,
    amount,
    caveat,
    cell,
    columns,
    delta,
    headline,
    pool_units,
    total_units,
)


def write(result: DiffResult, out: TextIO) -> None:
    out.write(text(result))


def text(d: DiffResult) -> str:
    res = _resources(d)
    out = [f"diff {plain(d.base_label)} → {plain(d.head_label)}: {headline(d)}", ""]
    warn = caveat(d)
    if warn:
        out[1:1] = [f"warning: {warn}"]
    if d.base_revision is not None:
        out[1:1] = [f"base: {d.base_revision.describe()}"]
    for pd in d.changed_pools:
        out.append(f"{plain(pd.ref)} ({pd.status}): {plain('; '.join(pd.reasons))}")
        cols = columns(res, pd.committed, pd.cluster)
        rows = [["", "nodes", *cols]]
        u = pool_units(pd, cols)
        rows.append(["committed/node", _count(pd), *(cell(pd.committed.get(r), r, u[r]) for r in cols)])
        rows.append(["cluster", "", *(delta(pd.cluster[r], r, u[r]) if r in pd.cluster else "—" for r in cols)])
        out += _table(rows)
        out.append("")
    res = columns(res, d.totals)
    rows = [["cluster committed", "nodes", *res]]
    u = total_units(d, res)
    rows.append(["before", str(d.nodes[0]), *(amount(_side(d, r, 0), r, u[r]) for r in res)])
    rows.append(["after", str(d.nodes[1]), *(amount(_side(d, r, 1), r, u[r]) for r in res)])
    nodes = Change(Quantity.from_value(d.nodes[0]), Quantity.from_value(d.nodes[1]))
    changes = (delta(d.totals[r], r, u[r]) if r in d.totals else "—" for r in res)
    rows.append(["change", delta(nodes, "pods"), *changes])
    out += _table(rows, indent="")
    if d.objects:
        out.append("")
        for label, refs in (("added", d.objects.added), ("removed", d.objects.removed), ("changed", d.objects.changed)):
            if refs:
                out.append(f"objects {label}: {plain(', '.join(refs))}")
    for title, findings in (("new findings", d.new_findings), ("fixed findings", d.fixed_findings)):
        if findings:
            out += ["", f"{title}:"]
            out += [f"  {_finding_line(f)}" for f in findings]
    if d.impact is not None:
        from renderer.reporters.impact.text import section

        out += ["", *section(d.impact)]
    if d.cost is not None:
        from renderer.reporters.costs import change_text

        out += ["", *change_text(d.cost)]
    return "\n".join(out) + "\n"
