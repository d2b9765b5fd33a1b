"""Scaleway Kapsule / Kosmos: no reservation formula or defaults are published.

Checked: Scaleway's API docs (developers.scaleway.com/en/products/k8s/api/) state max 110 pods per node but no reservation. Its nodes are therefore predicted with the kubelet's own defaults (no reservation,
evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%, imagefs.available 15%), and
``verify`` reports any other reservation as having no published formula rather than guessing one.

"""

from __future__ import annotations

from renderer.platforms._base import Platform, Release, Signal, register


@register
class Scaleway(Platform):
    title = "Scaleway Kapsule / Kosmos"
    summary = "no published reservation: the kubelet's defaults are assumed"
    order = 84
    published = False
    unpublished = "Scaleway's API docs (developers.scaleway.com/en/products/k8s/api/) state max 110 pods per node but no reservation"
    signals = (
        Signal("label-prefix", "k8s.scaleway.com/", "Kapsule node labels (convention, unverified)"),
        Signal("providerID", "scaleway://", "the Scaleway cloud controller manager (convention, unverified)"),
    )
    history = (
        Release(
            "every release",
            "",
            "",
            "none published",
            "Scaleway's API docs (developers.scaleway.com/en/products/k8s/api/) state max 110 pods per node but no reservation",
        ),
    )
