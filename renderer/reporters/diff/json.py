"""``allocatable diff -o json``: the documented shape (docs/diff.md), in large pieces."""

from __future__ import annotations

from typing import Any, TextIO

from renderer.capacity.diff import DiffResult
from renderer.reporters.diff._common import headline
from renderer.reporters.jsonout import write_json


def write(result: DiffResult, out: TextIO) -> None:
    write_json(as_json(result), out)


def as_json(d: DiffResult) -> dict[str, Any]:
    """The documented shape (docs/diff.md); "version" changes only with incompatible changes. With a simulation,
    ``impact`` holds the impact report's document (docs/impact.md)."""
    out = {
        "version": 1,
        "base": d.base_revision.as_dict()
        if d.base_revision is not None
        else {"ref": d.base_ref, "commit": d.base_commit},
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
    if d.impact is not None:
        from renderer.reporters.impact.json import as_json as impact_json

        out["impact"] = impact_json(d.impact)
    if d.cost is not None:
        from renderer.capacity.cost import change_json

        out["cost"] = change_json(d.cost)
    return out
