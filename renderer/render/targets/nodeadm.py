"""``nodeadm/<pool>.yaml``: a nodeadm ``NodeConfig`` (``node.eks.aws/v1alpha1``) per NodePool with
``spec.delivery.nodeadm: true`` — for EKS managed node groups and self-managed AL2023 nodes, whose launch template
user data carries NodeConfig documents.

``spec.kubelet.config`` holds the pool's KubeletConfiguration fields (reserved values computed for the pool's size,
eviction, enforcement, pod limits, passthrough fields; the same fields as ``kubelet/<pool>.yaml``); nodeadm writes
them to a kubelet drop-in file. ``spec.kubelet.flags`` holds what the kubelet only takes as a flag: the pool's
labels, as ``--node-labels`` (only labels the kubelet may set on itself: none in the kubernetes.io and k8s.io
namespaces), so the selectors of this repo's policies match the nodes.

Not a cluster object: it is node bootstrap data (a MIME part of content type ``application/node.eks.aws`` in the
launch template's user data), so kustomization.yaml does not list it. See docs/nodeadm.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.capacity.kubeletfields import kubelet_fields
from renderer.render.codes import NotRenderable
from renderer.render.delivered import delivered_pools
from renderer.render.nodeadm_defaults import report_kept_defaults
from renderer.render.target import Output, RenderContext, Target, register

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity

API_VERSION = "node.eks.aws/v1alpha1"
KIND = "NodeConfig"
_RESTRICTED_DOMAINS = ("kubernetes.io", "k8s.io")


def self_settable(key: str) -> bool:
    """Labels a kubelet may put on its own node with --node-labels: the kubelet refuses unknown keys in the
    kubernetes.io and k8s.io namespaces (the cloud provider and controllers set the well-known ones)."""
    prefix, _, _ = key.rpartition("/")
    return not any(prefix == d or prefix.endswith("." + d) for d in _RESTRICTED_DOMAINS)


def node_labels_flag(pc: PoolCapacity) -> str | None:
    labels = {k: v for k, v in sorted(pc.pool.labels.items()) if self_settable(k)}
    if not labels:
        return None
    return "--node-labels=" + ",".join(f"{k}={v}" for k, v in labels.items())


@register
class NodeadmTarget(Target):
    name = "nodeadm"
    summary = "nodeadm NodeConfig per pool delivered through EKS launch-template user data (nodeadm/<pool>.yaml)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        outputs: list[Output] = []
        for pc in delivered_pools(ctx, "nodeadm"):
            policy = pc.policy
            if policy is None:
                continue
            problem = ctx.reporter(NotRenderable, policy.source, policy.ref)
            config = kubelet_fields(pc, policy.model.spec, problem)
            report_kept_defaults(ctx, pc, config, f"the NodeConfig of {pc.pool.ref}")
            kubelet: dict[str, Any] = {"config": config}
            flag = node_labels_flag(pc)
            if flag is not None:
                kubelet["flags"] = [flag]
            doc = {"apiVersion": API_VERSION, "kind": KIND, "spec": {"kubelet": kubelet}}
            outputs.append(
                Output(
                    path=f"nodeadm/{pc.pool.name}.yaml",
                    documents=(doc,),
                    sources=(ctx.pool_source(pc), ctx.source(policy.source, policy.ref)),
                    cluster=False,
                    notes=(
                        "nodeadm NodeConfig for launch-template user data (MIME part application/node.eks.aws); "
                        "nodeadm merges it with the NodeConfig that names the cluster (docs/nodeadm.md)",
                    ),
                )
            )
        return outputs
