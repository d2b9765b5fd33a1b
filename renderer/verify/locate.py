"""Positions of inventory nodes in a verify result, resolved only for the nodes it shows.

Cost: one resolver pass over the files that hold those nodes (``renderer.validation.load``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.findings import Finding

if TYPE_CHECKING:
    from renderer.validation.load import LoadResult
    from renderer.verify.result import VerifyResult


def locate_nodes(result: LoadResult, verified: VerifyResult) -> None:
    """Point the inventory nodes of ``verified`` (read from ``result``'s files) at their metadata.name."""
    shown = {f.display for f in result.files}
    probes = []
    for n in verified.nodes:
        if n.source.path.startswith("<") or n.source.path not in shown:
            continue
        probes.append((n, Finding("", "info", "", n.source.path, source=n.source, field_path=("metadata", "name"))))
    result.resolver.resolve([f for _, f in probes])
    for n, f in probes:
        if f.line:
            n.source = n.source._replace(line=f.line, column=f.column)
