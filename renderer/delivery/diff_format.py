"""``allocatable diff`` output: markdown for a PR comment or job summary, text for a terminal, JSON for tools."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from renderer.delivery.diff import DIFF_RESOURCES, Change, DiffResult, PoolDiff
from renderer.escaping import markdown as md
from renderer.escaping import markdown_code, plain
from renderer.findings import Finding
from renderer.quantity import Quantity

#: First line of the markdown: lets a bot find and update its earlier comment instead of adding another.
MARKER = "<!-- allocatable-diff -->"
MAX_LISTED = 50  # findings / pools / objects listed in full before "… and N more"
_UNITS = (("Ei", 1024**6), ("Pi", 1024**5), ("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024))
HEADERS = {"cpu": "cpu (cores)", "memory": "memory", "ephemeral-storage": "ephemeral-storage", "pods": "pods"}


def _trim(d: Decimal) -> str:
    text = f"{d:f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def amount(q: Quantity | None, resource: str) -> str:
    """A readable amount: cores for cpu, binary units for bytes (2 decimals at most), integers for pods."""
    if q is None:
        return "—"
    v = q.value
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        mag = abs(v)
        for unit, size in _UNITS:
            if mag >= size:
                scaled = v / size
                exact = scaled == scaled.to_integral_value()
                return (_trim(scaled) if exact else f"{scaled:.2f}") + unit
        return _trim(v)
    return _trim(v.quantize(Decimal("0.001")) if resource == "cpu" else v)


def signed(q: Quantity, resource: str) -> str:
    if q.is_zero():
        return "0"
    text = amount(q, resource)
    return text if text.startswith("-") else "+" + text


def pct(c: Change) -> str:
    p = c.percent
    if p is None:
        return ""
    return f"{'+' if p > 0 else ''}{p}%"


def delta(c: Change, resource: str) -> str:
    if not c.changed:
        return "0"
    p = pct(c)
    return signed(c.delta, resource) + (f" ({p})" if p else "")


def cell(c: Change | None, resource: str) -> str:
    if c is None:
        return "—"
    if not c.changed:
        return amount(c.after, resource)
    p = pct(c)
    return f"{amount(c.before, resource)} → {amount(c.after, resource)}" + (f" ({p})" if p else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _count(pd: PoolDiff) -> str:
    b, a = pd.count
    if b == a:
        return str(a)
    return f"{'—' if b is None else b} → {'—' if a is None else a}"


def _severity_counts(findings: list[Finding]) -> str:
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in findings:
        counts[f.severity] += 1
    parts = [_plural(n, sev) for sev, n in counts.items() if n]
    return ", ".join(parts)


def headline(d: DiffResult) -> str:
    """One line: what changed in capacity, and in lint findings."""
    changed = d.changed_pools
    total = len(d.pools)
    if changed:
        extra = [f"{d.count(s)} {s}" for s in ("added", "removed") if d.count(s)]
        pools = f"{len(changed)} of {_plural(total, 'pool')} changed" + (f" ({', '.join(extra)})" if extra else "")
        moved = [f"{r} {delta(c, r)}" for r, c in d.totals.items() if c.changed]
        capacity = pools + (
            "; cluster committed allocatable " + ", ".join(moved) if moved else "; cluster totals unchanged"
        )
    else:
        capacity = f"no capacity change across {_plural(total, 'pool')} ({_plural(d.nodes[1], 'node')})"
    if d.new_findings or d.fixed_findings:
        lint = []
        if d.new_findings:
            lint.append(f"{_plural(len(d.new_findings), 'new finding')} ({_severity_counts(d.new_findings)})")
        if d.fixed_findings:
            lint.append(f"{len(d.fixed_findings)} fixed")
        findings = "lint: " + ", ".join(lint)
    else:
        findings = "lint: no new findings"
    return f"{capacity} · {findings}"


def caveat(d: DiffResult) -> str | None:
    """A warning when a side does not validate: its invalid objects are missing from the figures."""
    sides = [
        f"{_plural(n, 'validation error')} in {'the ' + label if label == 'working tree' else plain(label)}"
        for n, label in ((d.invalid[0], d.base_label), (d.invalid[1], d.head_label))
        if n
    ]
    if not sides:
        return None
    return f"{' and '.join(sides)}: objects that do not validate are left out of these figures"


def _finding_line(f: Finding) -> str:
    """The one-line form every text output uses: ``path:line:col: severity: message [code] (object)``."""
    from renderer.reporters.text import format_finding

    return format_finding(f)


def _md_names(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(md(n) for n in names) or "none"


def _resources(d: DiffResult) -> list[str]:
    present = set(d.totals)
    for p in d.pools:
        present.update(p.committed)
    return [r for r in DIFF_RESOURCES if r in present]


# ---------------------------------------------------------------------------------------------------- markdown


def markdown(d: DiffResult) -> str:
    res = _resources(d)
    out = [
        MARKER,
        f"### Capacity diff: {markdown_code(d.base_label)} → {md(d.head_label)}",
        "",
        f"**{md(headline(d))}**",
        "",
    ]
    warn = caveat(d)
    if warn:
        out += [f"> ⚠️ {md(warn)}", ""]
    changed = d.changed_pools
    if changed:
        out.append("Committed allocatable per node (changed pools only):")
        out.append("")
        out.append("| pool | nodes | " + " | ".join(HEADERS[r] for r in res) + " | why |")
        out.append("|---|---:|" + "---:|" * len(res) + "---|")
        for pd in changed[:MAX_LISTED]:
            status = "" if pd.status == "changed" else f" *({pd.status})*"
            out.append(
                f"| {markdown_code(pd.name)}{status} | {_count(pd)} | "
                + " | ".join(cell(pd.committed.get(r), r) for r in res)
                + f" | {md('; '.join(pd.reasons))} |"
            )
        if len(changed) > MAX_LISTED:
            out.append(f"| … and {len(changed) - MAX_LISTED} more | | " + " | " * len(res) + " |")
        out.append("")
    out.append("Cluster committed allocatable (all pools, per-node value × node count):")
    out.append("")
    out.append("| | nodes | " + " | ".join(HEADERS[r] for r in res) + " |")
    out.append("|---|---:|" + "---:|" * len(res))
    nodes = Change(Quantity.from_value(d.nodes[0]), Quantity.from_value(d.nodes[1]))
    out.append(f"| before | {d.nodes[0]} | " + " | ".join(amount(_side(d, r, 0), r) for r in res) + " |")
    out.append(f"| after | {d.nodes[1]} | " + " | ".join(amount(_side(d, r, 1), r) for r in res) + " |")
    out.append(
        f"| Δ | {delta(nodes, 'pods')} | "
        + " | ".join(delta(d.totals[r], r) if r in d.totals else "—" for r in res)
        + " |"
    )
    out.append("")
    if changed:
        out += ["<details>", f"<summary>Per-pool arithmetic ({_plural(len(changed), 'pool')})</summary>", ""]
        for pd in changed[:MAX_LISTED]:
            out += _md_pool(pd, res)
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


def _side(d: DiffResult, r: str, i: int) -> Quantity | None:
    c = d.totals.get(r)
    if c is None:
        return None
    return c.before if i == 0 else c.after


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
    out.append("| | " + " | ".join(HEADERS[r] for r in res) + " |")
    out.append("|---|" + "---:|" * len(res))
    rows: list[tuple[str, dict[str, Change], bool]] = [
        ("allocatable / node", pd.allocatable, False),
        ("committed / node", pd.committed, False),
        ("Δ committed / node", pd.committed, True),
        ("cluster committed", pd.cluster, False),
        ("Δ cluster", pd.cluster, True),
    ]
    for label, changes, is_delta in rows:
        cells = []
        for r in res:
            c = changes.get(r)
            cells.append("—" if c is None else (delta(c, r) if is_delta else cell(c, r)))
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


# -------------------------------------------------------------------------------------------------------- text


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def text(d: DiffResult) -> str:
    res = _resources(d)
    out = [f"diff {plain(d.base_label)} → {plain(d.head_label)}: {headline(d)}", ""]
    warn = caveat(d)
    if warn:
        out[1:1] = [f"warning: {warn}"]
    for pd in d.changed_pools:
        out.append(f"{plain(pd.ref)} ({pd.status}): {plain('; '.join(pd.reasons))}")
        rows = [["", "nodes", *res]]
        rows.append(["committed/node", _count(pd), *(cell(pd.committed.get(r), r) for r in res)])
        rows.append(["cluster", "", *(delta(pd.cluster[r], r) if r in pd.cluster else "—" for r in res)])
        out += _table(rows)
        out.append("")
    rows = [["cluster committed", "nodes", *res]]
    rows.append(["before", str(d.nodes[0]), *(amount(_side(d, r, 0), r) for r in res)])
    rows.append(["after", str(d.nodes[1]), *(amount(_side(d, r, 1), r) for r in res)])
    nodes = Change(Quantity.from_value(d.nodes[0]), Quantity.from_value(d.nodes[1]))
    rows.append(["change", delta(nodes, "pods"), *(delta(d.totals[r], r) if r in d.totals else "—" for r in res)])
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
    return "\n".join(out) + "\n"


# -------------------------------------------------------------------------------------------------------- json


def as_json(d: DiffResult) -> dict[str, Any]:
    """The documented shape (docs/diff.md); "version" changes only with incompatible changes."""
    return {
        "version": 1,
        "base": {"ref": d.base_ref, "commit": d.base_commit},
        "head": {"ref": d.head_ref, "commit": d.head_commit, "workingTree": d.head_ref is None},
        "summary": {
            "headline": headline(d),
            "capacityChanged": d.capacity_changed,
            "pools": len(d.pools),
            "poolsChanged": d.count("changed"),
            "poolsAdded": d.count("added"),
            "poolsRemoved": d.count("removed"),
            "poolsUnchanged": d.count("unchanged"),
            "nodes": {"before": d.nodes[0], "after": d.nodes[1]},
            "newFindings": len(d.new_findings),
            "newErrors": sum(1 for f in d.new_findings if f.severity == "error"),
            "fixedFindings": len(d.fixed_findings),
            "unchangedFindings": d.unchanged_findings,
            "validationErrors": {"before": d.invalid[0], "after": d.invalid[1]},
        },
        "totals": {"committedAllocatable": {r: c.as_dict() for r, c in d.totals.items()}},
        "pools": [p.as_dict() for p in d.pools],
        "objects": {"added": d.objects.added, "removed": d.objects.removed, "changed": d.objects.changed},
        "findings": {
            "new": [f.as_dict() for f in d.new_findings],
            "fixed": [f.as_dict() for f in d.fixed_findings],
        },
    }
