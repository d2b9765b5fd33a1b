"""OVHcloud Managed Kubernetes: a published formula whose own table disagrees with it.

OVHcloud's guide "Kubernetes Plugins (CNI, CRI, CSI...) & softwares versions and reserved resources" (ovh/docs,
docs.ovh.com/gb/en/kubernetes/exposed-apis-software-versions-reserved-resources/, section "Reserved resources"):
cpu 15% of one core + 0.5% of all cores (b2-7, 2 vCores -> 160m; b3-256, 64 vCores -> 470m: both match); memory
"1024 MB + 5% of total memory" (its table says 1.98 GB for b2-7 and 8.18 GB for b3-128 where the formula gives 1.35
and 7.4: unexplained); storage log10(GB) x 10 + 10%, which no tier schedule expresses. The split between kube- and
system-reserved and eviction is not published. This module applies the cpu and memory formulas as kube-reserved
(MB read as MiB) and leaves storage out; no OVHcloud node label was verified, so choose it with ``--platform ovh``
or ``platformDefaults.generic: ovh``.
"""

from __future__ import annotations

from fractions import Fraction

from renderer.platforms._base import Default, Platform, Release, register
from renderer.platforms._formula import MIB, Formula, Rounding, Term, Tier

_DOCS = "docs.ovh.com/gb/en/kubernetes/exposed-apis-software-versions-reserved-resources/"

_OVH = Formula(
    name="ovh",
    summary="OVHcloud: cpu 150m + 0.5% of the cores, memory 1024 MiB + 5% (storage not modelled)",
    terms={
        "kubeReserved": {
            "cpu": Term(
                input="cpu",
                base=Fraction(15, 100),
                tiers=(Tier(None, Fraction(5, 1000)),),
                rounding=Rounding("down", Fraction(1, 1000)),
                unit="m",
            ),
            "memory": Term(
                input="machineMemory",
                base=Fraction(1024 * MIB),
                tiers=(Tier(None, Fraction(5, 100)),),
                rounding=Rounding("down", Fraction(MIB)),
                unit="Mi",
            ),
        }
    },
    sources=(_DOCS,),
)


@register
class Ovh(Platform):
    title = "OVHcloud Managed Kubernetes"
    summary = "OVHcloud MKS: cpu 150m + 0.5% of cores, memory 1024 MiB + 5% (its own table disagrees; storage left out)"
    default_reason = "OVHcloud's published formula"
    order = 900
    defaults = (Default("ovh", _OVH.summary, _OVH, None, (_DOCS,)),)
    history = (
        Release(
            "guide version of 2021-10-04 and later",
            "2021-10-04",
            "ovh",
            _DOCS,
            "the memory column of the guide's table does not follow its formula",
        ),
    )
