"""DigitalOcean Kubernetes (DOKS): no reservation formula or defaults are published.

Checked: DigitalOcean's Kubernetes docs (docs.digitalocean.com/products/kubernetes/details/limits/, the product overview) give no kube-reserved, system-reserved or eviction values. Its nodes are therefore predicted with the kubelet's own defaults (no reservation,
evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%, imagefs.available 15%), and
``verify`` reports any other reservation as having no published formula rather than guessing one.
Every published DOKS node reports its allocatable memory as a whole number of MiB (1574Mi, 3110Mi, 13862Mi, 29222Mi in tests/real-nodes/doks) while MemTotal is not, and reserves 100m cpu on 8 vCPUs from 1.31: DOKS sets a reservation per droplet size that it does not publish.
"""

from __future__ import annotations

from renderer.platforms._base import Platform, Release, Signal, register


@register
class Doks(Platform):
    title = "DigitalOcean Kubernetes (DOKS)"
    summary = "no published reservation: the kubelet's defaults are assumed"
    order = 80
    published = False
    unpublished = "DigitalOcean's Kubernetes docs (docs.digitalocean.com/products/kubernetes/details/limits/, the product overview) give no kube-reserved, system-reserved or eviction values"
    signals = (
        Signal("label-prefix", "doks.digitalocean.com/", "DOKS labels its nodes (node pool, node id, version)"),
        Signal("providerID", "digitalocean://", "the DigitalOcean cloud controller manager"),
    )
    history = (
        Release(
            "every release",
            "",
            "",
            "none published",
            "DigitalOcean's Kubernetes docs (docs.digitalocean.com/products/kubernetes/details/limits/, the product overview) give no kube-reserved, system-reserved or eviction values",
        ),
    )
