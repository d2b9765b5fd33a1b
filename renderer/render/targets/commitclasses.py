"""``manifests/commitclasses.yaml``: the CommitClass objects (node.k8s.io/v1alpha1), normalised.

Off by default: the CommitClass API is a proposal that no Kubernetes release implements, and applying these objects
to a cluster without it fails ("no matches for kind CommitClass"). Turn it on with ``--target commitclasses`` or in
``render.targets`` for clusters that run an implementation.
"""

from __future__ import annotations

from typing import Any

from renderer.render.normalize import metadata, selector_terms
from renderer.render.target import Output, RenderContext, Target, register

RESOURCE_ORDER = ("cpu", "memory", "ephemeral-storage")


@register
class CommitClassesTarget(Target):
    name = "commitclasses"
    summary = "CommitClass objects for clusters that implement the API (manifests/commitclasses.yaml; off by default)"
    default = False

    def render(self, ctx: RenderContext) -> list[Output]:
        docs: list[Any] = []
        sources: list[str] = []
        for loaded in sorted(ctx.load.policies.commit_classes, key=lambda cc: cc.name):
            cc = loaded.model
            resources = sorted(cc.spec.resources, key=lambda r: RESOURCE_ORDER.index(r.name))
            docs.append(
                {
                    "apiVersion": "node.k8s.io/v1alpha1",
                    "kind": "CommitClass",
                    "metadata": metadata(cc.metadata),
                    "spec": {
                        "selector": selector_terms(cc.spec.selector),
                        "resources": [{"name": r.name, "percent": r.percent} for r in resources],
                    },
                }
            )
            sources.append(ctx.source(loaded.source, loaded.ref))
        if not docs:
            return []
        return [Output(path="manifests/commitclasses.yaml", documents=tuple(docs), sources=tuple(sources))]
