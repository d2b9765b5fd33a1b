"""Cluster Autoscaler's node-template resource tags (AWS): a pool's allocatable as the capacity of its template node.

Cluster Autoscaler builds the template node of an empty AWS Auto Scaling group from the instance type alone
(allocatable = capacity, nothing reserved); every ``k8s.io/cluster-autoscaler/node-template/resources/<name>`` tag
of the group overrides ``Capacity[<name>]`` (kubernetes/autoscaler@55c37cd5eb550756c5ccc5a89e9068d77797e575
``cluster-autoscaler/cloudprovider/aws/aws_manager.go`` ``buildNodeFromTemplate``). Used by the
``cluster-autoscaler-tags`` render target, which writes them, and by impact, which simulates a scale from zero with
them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity

PREFIX = "k8s.io/cluster-autoscaler/node-template/resources/"
_ORDER = ("cpu", "memory", "ephemeral-storage", "pods")


def resource_tags(pc: PoolCapacity) -> dict[str, str]:
    """Tag key -> value: the pool's allocatable cpu, memory, ephemeral-storage, pods and huge pages."""
    values: dict[str, str] = {}
    for name in _ORDER:
        q = pc.allocatable.get(name)
        if q is not None:
            values[name] = str(q)
    for name in sorted(pc.capacity):
        if name.startswith("hugepages-"):
            values[name] = str(pc.capacity[name])  # the kubelet reserves no huge pages: allocatable = capacity
    return {PREFIX + name: value for name, value in values.items()}
