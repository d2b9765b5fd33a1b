"""``cluster-autoscaler/<pool>.tags.yaml``: Cluster Autoscaler node-template tags for the AWS Auto Scaling groups of each
NodePool with ``spec.clusterAutoscaler``, so that scale from zero sees the pool's real allocatable.

Cluster Autoscaler builds a template node for an empty group from the instance type alone: capacity = the type's
vCPUs and nominal memory, pods 110, and allocatable = capacity, with no kube-reserved, system-reserved or eviction
subtracted; every ``k8s.io/cluster-autoscaler/node-template/resources/<name>`` tag of the group overrides
``Capacity[<name>]`` (kubernetes/autoscaler@55c37cd5eb550756c5ccc5a89e9068d77797e575
``cluster-autoscaler/cloudprovider/aws/aws_manager.go`` ``buildNodeFromTemplate``, ``extractAllocatableResourcesFrom
Tags``; any resource name since CA 1.19, c53810cc00). There is no reservation tag (kubernetes/autoscaler#2809), so the
tags carry the pool's allocatable as the capacity model computes it — capacity minus reservations and hard eviction,
the same figures as ``allocatable explain`` — and its max pods.

The file is the input of ``aws autoscaling create-or-update-tags --cli-input-yaml file://...`` (the AWS Auto Scaling
``CreateOrUpdateTags`` request: ``Tags`` of ``ResourceId``, ``ResourceType: auto-scaling-group``, ``Key``, ``Value``,
``PropagateAtLaunch``), and its tags a map for Terraform or eksctl. Cost: O(pools × groups × resources).
"""

from __future__ import annotations

from typing import Any

from renderer.capacity.cluster_autoscaler import resource_tags
from renderer.render.target import Output, RenderContext, Target, register


@register
class ClusterAutoscalerTagsTarget(Target):
    name = "cluster-autoscaler-tags"
    summary = "Cluster Autoscaler node-template tags for AWS Auto Scaling groups (cluster-autoscaler/<pool>.tags.yaml)"

    def render(self, ctx: RenderContext) -> list[Output]:
        outputs: list[Output] = []
        for pc in sorted(ctx.model.pools, key=lambda p: p.pool.name):
            ca = pc.pool.cluster_autoscaler
            if pc.pool.origin != "NodePool" or ca is None:
                continue
            tags = resource_tags(pc)
            doc: dict[str, Any] = {
                "Tags": [
                    {
                        "ResourceId": group,
                        "ResourceType": "auto-scaling-group",
                        "Key": key,
                        "Value": value,
                        "PropagateAtLaunch": False,
                    }
                    for group in ca.autoScalingGroups
                    for key, value in tags.items()
                ]
            }
            sources = [ctx.pool_source(pc)]
            if pc.policy is not None:
                sources.append(ctx.source(pc.policy.source, pc.policy.ref))
            outputs.append(
                Output(
                    path=f"cluster-autoscaler/{pc.pool.name}.tags.yaml",
                    documents=(doc,),
                    sources=tuple(sources),
                    cluster=False,
                    notes=(
                        "aws autoscaling create-or-update-tags --cli-input-yaml file://THIS_FILE: the pool's "
                        "allocatable as node-template capacity for scale from zero (Cluster Autoscaler 1.19+; "
                        "docs/cluster-autoscaler.md)",
                    ),
                )
            )
        return outputs
