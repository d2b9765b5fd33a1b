"""What the ``diff`` formats share: amounts, deltas, the headline and the caveat."""

from __future__ import annotations

from renderer.capacity.diff import Change, DiffResult, PoolDiff, compared
from renderer.escaping import markdown as md
from renderer.escaping import plain
from renderer.findings import Finding
from renderer.quantity import Quantity
from renderer.resourcenames import is_extended
from renderer.units import is_bytes, readable, unit_for

#: First line of the markdown: lets a bot find and update its earlier comment instead of adding another.
MARKER = "<!-- allocatable-diff -->"
MAX_LISTED = 50  # findings / pools / objects listed in full before "… and N more"
HEADERS = {"cpu": "cpu (cores)"}


def header(resource: str) -> str:
    """A column's heading: cpu is shown in cores; every other resource (extended ones too) by its name."""
    return HEADERS.get(resource, resource)


def unit(resource: str, *values: Quantity | None) -> str | None:
    """One unit for the byte values shown together (a cell, a column; ``renderer.units``); None for others."""
    return unit_for(values) if is_bytes(resource) else None


def amount(q: Quantity | None, resource: str, in_unit: str | None = None) -> str:
    """A readable amount (``renderer.units``): cores for cpu, bytes in ``in_unit`` (default: their own), counts."""
    if q is None:
        return "—"
    return readable(q, resource, in_unit)


def signed(q: Quantity, resource: str, in_unit: str | None = None) -> str:
    if q.is_zero():
        return "0"
    text = amount(q, resource, in_unit)
    return text if text.startswith("-") else "+" + text


def pct(c: Change) -> str:
    p = c.percent
    if p is None:
        return ""
    return f"{'+' if p > 0 else ''}{p}%"


def delta(c: Change, resource: str, in_unit: str | None = None) -> str:
    if not c.changed:
        return "0"
    p = pct(c)
    return signed(c.delta, resource, in_unit) + (f" ({p})" if p else "")


def cell(c: Change | None, resource: str, in_unit: str | None = None) -> str:
    """``before → after (Δ%)`` in one unit (``in_unit``, default: theirs), or the value when it did not change."""
    if c is None:
        return "—"
    u = in_unit if in_unit is not None else unit(resource, c.before, c.after)
    if not c.changed:
        return amount(c.after, resource, u)
    p = pct(c)
    return f"{amount(c.before, resource, u)} → {amount(c.after, resource, u)}" + (f" ({p})" if p else "")


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
    from renderer.reporters.findings.text import format_finding

    return format_finding(f)


def _md_names(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(md(n) for n in names) or "none"


def _resources(d: DiffResult) -> list[str]:
    """Every resource of the diff: cpu, memory, ephemeral-storage and pods as present, then the extended resources
    (``nvidia.com/gpu``) a pool or the totals have, by name."""
    return compared(d.totals, *(p.committed for p in d.pools))


def columns(res: list[str], *changes: dict[str, Change]) -> list[str]:
    """The columns of one table: ``res`` without the extended resources none of its rows (``changes``) has, so a
    CPU-only pool's table keeps its width in a fleet that also has GPU nodes."""
    return [r for r in res if not is_extended(r) or any(r in c for c in changes)]


# ---------------------------------------------------------------------------------------------------- markdown


def _side(d: DiffResult, r: str, i: int) -> Quantity | None:
    c = d.totals.get(r)
    if c is None:
        return None
    return c.before if i == 0 else c.after


# -------------------------------------------------------------------------------------------------------- text


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


# -------------------------------------------------------------------------------------------------------- json


def pool_units(pd: PoolDiff, res: list[str]) -> dict[str, str | None]:
    """One unit per column of a pool's table: its committed values before and after, and the cluster change."""
    out: dict[str, str | None] = {}
    for r in res:
        c, k = pd.committed.get(r), pd.cluster.get(r)
        out[r] = unit(r, *(c.before, c.after) if c else (), k.delta if k else None)
    return out


def total_units(d: DiffResult, res: list[str]) -> dict[str, str | None]:
    """One unit per column of the cluster totals: before, after and the change."""
    return {r: unit(r, _side(d, r, 0), _side(d, r, 1), d.totals[r].delta if r in d.totals else None) for r in res}
