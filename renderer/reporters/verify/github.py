"""``-o github``: workflow-command annotations (``::warning``) per differing node and ``::error`` per node whose
pods do not fit (a ``::warning`` with the simulation when the repo pushes them off: the simulation's own annotations
say where they go), located at the inventory file when the node comes from the repo; then the text report.

Within GitHub's limits, as ``-o github`` of lint (``renderer.reporters.findings.github``): at most 10 of each level
(and ``ALLOCATABLE_GITHUB_ANNOTATIONS`` in all), errors first, one notice saying what was left out; the text report
that follows lists every node, with workflow commands stopped around it (a node or file name cannot start one).
Cost: O(n log n) in the nodes shown.
"""

from __future__ import annotations

import io
from typing import TextIO

from renderer.reporters.findings.github import annotated_report, escape_data, escape_property
from renderer.reporters.verify._common import clean
from renderer.reporters.verify.text import pod_line
from renderer.reporters.verify.text import write as write_text
from renderer.verify.result import NodeCheck, VerifyResult


def _props(n: NodeCheck, title: str) -> str:
    props = []
    if not n.source.path.startswith("<"):
        props.append(f"file={escape_property(n.source.path)}")
        if n.source.line:
            props.append(f"line={n.source.line}")
    props.append(f"title={escape_property(title)}")
    return ",".join(props)


def _annotations(result: VerifyResult) -> list[tuple[str, str]]:
    """(level, workflow command) per differing node and per node whose pods do not fit."""
    by_name = {n.name: n for n in result.nodes}
    out = []
    for n in result.drift:
        checks = [n.check.differences, n.raw.differences if n.raw is not None else []]
        text = "; ".join(f"{d.resource}: {d.explanation}" for ds in checks for d in ds)
        message = clean(f"Node/{n.name} differs: {text}")
        out.append(("warning", f"::warning {_props(n, 'allocatable verify')}::{escape_data(message)}"))
    # With the simulation, pods the repo pushes off their node are judged by where they go (its own annotations):
    # here a warning; pods over what their node reports today stay errors.
    errors = {id(p) for p in (result.over_as_reported if result.impact is not None else result.not_fitting)}
    for p in result.not_fitting:
        node = by_name.get(p.node)
        title = "allocatable verify: pods"
        props = _props(node, title) if node else f"title={escape_property(title)}"
        level = "error" if id(p) in errors else "warning"
        out.append((level, f"::{level} {props}::{escape_data(pod_line(p))}"))
    return out


def write(result: VerifyResult, out: TextIO) -> None:
    items = _annotations(result)
    if result.impact is not None:  # the re-packing simulation's, budgeted with these
        from renderer.reporters.impact.github import workflow_annotations

        items += workflow_annotations(result.impact)
    report = io.StringIO()
    write_text(result, report)
    where = "the report below lists every node"
    out.write(annotated_report(items, "verify findings", where, report.getvalue()))
