"""``kustomization.yaml``: lists the rendered cluster manifests, so ``kubectl apply -k DIR`` or an Argo CD
Application pointing at the output directory takes them all. The KubeletConfiguration files under ``kubelet/`` are
node bootstrap files, not cluster objects, and are not listed.
"""

from __future__ import annotations

from renderer.render.target import Output, RenderContext, Target, register


@register
class KustomizationTarget(Target):
    name = "kustomization"
    summary = "kustomization.yaml listing the cluster manifests (for kubectl apply -k and Argo CD)"
    aggregate = True

    def render(self, ctx: RenderContext) -> list[Output]:
        resources = sorted(out.path for out in ctx.outputs if out.cluster)
        doc = {
            "apiVersion": "kustomize.config.k8s.io/v1beta1",
            "kind": "Kustomization",
            "resources": resources,
        }
        return [Output(path="kustomization.yaml", documents=(doc,), cluster=False)]
