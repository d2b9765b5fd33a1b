"""Linode / Akamai Kubernetes Engine (LKE): no reservation formula or defaults are published.

Checked: the LKE documentation and the cluster-autoscaler's Linode provider state no reservation. Its nodes are therefore predicted with the kubelet's own defaults (no reservation,
evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%, imagefs.available 15%), and
``verify`` reports any other reservation as having no published formula rather than guessing one.
The one published LKE node (tests/real-nodes/lke) matches the kubelet's defaults exactly (no reservation, memory.available 100Mi, nodefs.available 10%).
"""

from __future__ import annotations

from renderer.platforms._base import Platform, Release, Signal, register


@register
class Lke(Platform):
    title = "Linode / Akamai Kubernetes Engine (LKE)"
    summary = "no published reservation: the kubelet's defaults are assumed"
    order = 81
    published = False
    unpublished = "the LKE documentation and the cluster-autoscaler's Linode provider state no reservation"
    signals = (
        Signal("label", "lke.linode.com/pool-id", "LKE labels nodes with their pool id"),
        Signal("providerID", "linode://", "the Linode cloud controller manager"),
    )
    history = (
        Release(
            "every release",
            "",
            "",
            "none published",
            "the LKE documentation and the cluster-autoscaler's Linode provider state no reservation",
        ),
    )
