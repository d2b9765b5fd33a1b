"""Vultr Kubernetes Engine (VKE): no reservation formula or defaults are published.

Checked: no Vultr document on VKE node reservations was found. Its nodes are therefore predicted with the kubelet's own defaults (no reservation,
evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%, imagefs.available 15%), and
``verify`` reports any other reservation as having no published formula rather than guessing one.

"""

from __future__ import annotations

from renderer.platforms._base import Platform, Release, Signal, register


@register
class Vultr(Platform):
    title = "Vultr Kubernetes Engine (VKE)"
    summary = "no published reservation: the kubelet's defaults are assumed"
    order = 83
    published = False
    unpublished = "no Vultr document on VKE node reservations was found"
    signals = (Signal("providerID", "vultr://", "the Vultr cloud controller manager (convention, unverified)"),)
    history = (
        Release("every release", "", "", "none published", "no Vultr document on VKE node reservations was found"),
    )
