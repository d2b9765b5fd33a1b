"""The node the cluster autoscaler imagines for an AWS Auto Scaling group it scales up from zero.

kubernetes/autoscaler cluster-autoscaler/cloudprovider/aws/aws_manager.go (``buildNodeFromTemplate``, release-1.36
ea47d9bb; vectors in fixtures/ca_binpacking_cases.yaml ``aws_template_cases``):

- capacity: cpu = the type's vCPUs, memory = its MiB × 2^20, ``nvidia.com/gpu`` = its GPUs, pods = 110; with an
  attribute-based mixed instances policy and no overrides, the *minimum* of each requested range instead (CA 1.25+);
- every tag ``k8s.io/cluster-autoscaler/node-template/resources/<name>: <quantity>`` sets capacity ``<name>``
  (unparsable values are dropped);
- **allocatable = capacity**: no kube-reserved, system-reserved or eviction is taken off. A group at zero therefore
  looks bigger to the autoscaler than its nodes will be, unless its ``resources/cpu`` and ``resources/memory`` tags
  state the allocatable;
- labels: ``node-template/label/<key>`` tags, and ``eks:<key>`` tags as ``<key>``, over the generic
  arch/os/instance-type labels; taints: ``node-template/taint/<key>: <value>:<effect>`` (tags without a valid effect
  are skipped).

Cost: O(tags).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from renderer.impact.resources import units
from renderer.impact.taints import Taint
from renderer.quantity import Quantity, QuantityError

__all__ = ["AsgInstance", "InstanceRequirements", "TemplateNode", "template_node", "template_resources"]

PREFIX: Final = "k8s.io/cluster-autoscaler/node-template/"
RESOURCES: Final = PREFIX + "resources/"
LABEL: Final = PREFIX + "label/"
TAINT: Final = PREFIX + "taint/"
_TAINT_VALUE = re.compile(r"(.*):(NoSchedule|NoExecute|PreferNoSchedule)")
MAX_PODS: Final = 110
MIB: Final = 1024 * 1024


@dataclass(frozen=True)
class AsgInstance:
    name: str
    vcpus: int
    memory_mib: int
    gpus: int = 0
    arch: str = "amd64"


@dataclass(frozen=True)
class InstanceRequirements:
    """The minimums of a mixed instances policy's attribute-based requirements."""

    vcpus: int
    memory_mib: int
    accelerators: int = 0


@dataclass(frozen=True)
class TemplateNode:
    capacity: dict[str, Quantity]
    labels: dict[str, str]
    taints: tuple[Taint, ...]

    @property
    def allocatable(self) -> dict[str, Quantity]:
        """The same as capacity (the autoscaler takes nothing off)."""
        return dict(self.capacity)

    def allocatable_units(self) -> dict[str, int]:
        """Allocatable in the scheduler's integers."""
        return {name: units(name, q) for name, q in self.capacity.items()}


def template_resources(tags: Mapping[str, str]) -> dict[str, Quantity]:
    """The ``resources/<name>`` tags that parse as quantities."""
    out: dict[str, Quantity] = {}
    for key, value in tags.items():
        if key.startswith(RESOURCES):
            try:
                out[key[len(RESOURCES) :]] = Quantity.parse(value)
            except QuantityError:
                continue
    return out


def template_labels(tags: Mapping[str, str]) -> dict[str, str]:
    """Labels from ``label/<key>`` tags and ``eks:<key>`` tags."""
    out: dict[str, str] = {}
    for key, value in tags.items():
        if key.startswith(LABEL):
            out[key[len(LABEL) :]] = value
        elif key.startswith("eks:"):
            out[key[len("eks:") :]] = value
    return out


def template_taints(tags: Mapping[str, str]) -> tuple[Taint, ...]:
    """Taints from ``taint/<key>: <value>:<effect>`` tags, in tag order; others are skipped."""
    out: list[Taint] = []
    for key, value in tags.items():
        if key.startswith(TAINT):
            match = _TAINT_VALUE.fullmatch(value)
            if match is not None:
                out.append(Taint(key[len(TAINT) :], match.group(1), match.group(2)))
    return tuple(out)


def template_node(
    instance: AsgInstance, tags: Mapping[str, str], requirements: InstanceRequirements | None = None
) -> TemplateNode:
    """The autoscaler's template node for a group of ``instance`` with ``tags``."""
    vcpus, memory_mib, gpus = instance.vcpus, instance.memory_mib, instance.gpus
    if requirements is not None:
        vcpus, memory_mib, gpus = requirements.vcpus, requirements.memory_mib, requirements.accelerators
    capacity = {
        "cpu": Quantity(vcpus),
        "memory": Quantity(memory_mib * MIB, "BinarySI"),
        "nvidia.com/gpu": Quantity(gpus),
        "pods": Quantity(MAX_PODS),
    }
    capacity.update(template_resources(tags))
    labels = {
        "kubernetes.io/arch": instance.arch,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": instance.name,
        "beta.kubernetes.io/instance-type": instance.name,
    }
    labels.update(template_labels(tags))
    return TemplateNode(capacity, labels, template_taints(tags))
