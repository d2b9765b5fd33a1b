"""Oracle Container Engine for Kubernetes (OKE): no reservation formula or defaults are published.

Checked: Oracle's OKE best-practices page only recommends setting --kube-reserved/--system-reserved through oke-init.sh --kubelet-extra-args. Its nodes are therefore predicted with the kubelet's own defaults (no reservation,
evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%, imagefs.available 15%), and
``verify`` reports any other reservation as having no published formula rather than guessing one.
The published OKE node (tests/real-nodes/oke) reserves 217m cpu and 3172Mi memory beyond the kubelet's defaults on 16 vCPUs / 32 GB with maxPods 31, which no documented formula gives.
"""

from __future__ import annotations

from renderer.platforms._base import Platform, Release, Signal, register


@register
class Oke(Platform):
    title = "Oracle Container Engine for Kubernetes (OKE)"
    summary = "no published reservation: the kubelet's defaults are assumed"
    order = 82
    published = False
    unpublished = "Oracle's OKE best-practices page only recommends setting --kube-reserved/--system-reserved through oke-init.sh --kubelet-extra-args"
    signals = (
        Signal("label-prefix", "oke.oraclecloud.com/", "OKE node pool labels"),
        Signal("label-prefix", "oci.oraclecloud.com/", "OCI node labels"),
        Signal("providerID", "ocid1.instance.", "OCI instance OCIDs"),
    )
    history = (
        Release(
            "every release",
            "",
            "",
            "none published",
            "Oracle's OKE best-practices page only recommends setting --kube-reserved/--system-reserved through oke-init.sh --kubelet-extra-args",
        ),
    )
