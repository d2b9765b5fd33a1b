"""``-o github``: workflow-command annotations (``::warning``) per differing node and ``::error`` per node whose
pods do not fit, located at the inventory file when the node comes from the repo; then the text report."""

from __future__ import annotations

from typing import TextIO

from renderer.reporters.findings.github import escape_data, escape_property
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


def write(result: VerifyResult, out: TextIO) -> None:
    by_name = {n.name: n for n in result.nodes}
    for n in result.drift:
        checks = [n.check.differences, n.raw.differences if n.raw is not None else []]
        text = "; ".join(f"{d.resource}: {d.explanation}" for ds in checks for d in ds)
        message = clean(f"Node/{n.name} differs: {text}")
        out.write(f"::warning {_props(n, 'allocatable verify')}::{escape_data(message)}\n")
    for p in result.not_fitting:
        node = by_name.get(p.node)
        title = "allocatable verify: pods"
        props = _props(node, title) if node else f"title={escape_property(title)}"
        out.write(f"::error {props}::{escape_data(pod_line(p))}\n")
    if result.impact is not None:
        from renderer.reporters.impact.github import workflow_annotations

        out.write(workflow_annotations(result.impact))
    write_text(result, out)
