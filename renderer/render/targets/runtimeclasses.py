"""``manifests/runtimeclasses.yaml``: the RuntimeClass objects (node.k8s.io/v1), normalised.

Overhead quantities are written in canonical form (``0.25`` → ``250m``, ``1024Mi`` → ``1Gi``), maps are sorted,
unset fields are dropped and this tool's own annotations (``allocatable.dev/*``) are left out.
"""

from __future__ import annotations

from typing import Any

from renderer.render.normalize import metadata, quantities, tolerations
from renderer.render.target import Output, RenderContext, Target, register


@register
class RuntimeClassesTarget(Target):
    name = "runtimeclasses"
    summary = "RuntimeClass objects with canonical pod overhead (manifests/runtimeclasses.yaml)"

    def render(self, ctx: RenderContext) -> list[Output]:
        docs: list[Any] = []
        sources: list[str] = []
        for loaded in sorted(ctx.load.policies.runtime_classes, key=lambda rc: rc.name):
            rc = loaded.model
            doc: dict[str, Any] = {
                "apiVersion": "node.k8s.io/v1",
                "kind": "RuntimeClass",
                "metadata": metadata(rc.metadata),
                "handler": rc.handler,
            }
            if rc.overhead is not None and rc.overhead.podFixed:
                doc["overhead"] = {"podFixed": quantities(rc.overhead.podFixed)}
            if rc.scheduling is not None:
                scheduling: dict[str, Any] = {}
                if rc.scheduling.nodeSelector:
                    scheduling["nodeSelector"] = dict(sorted(rc.scheduling.nodeSelector.items()))
                if rc.scheduling.tolerations:
                    scheduling["tolerations"] = tolerations(rc.scheduling.tolerations)
                if scheduling:
                    doc["scheduling"] = scheduling
            docs.append(doc)
            sources.append(ctx.source(loaded.source, loaded.ref))
        if not docs:
            return []
        return [Output(path="manifests/runtimeclasses.yaml", documents=tuple(docs), sources=tuple(sources))]
