"""Civo Kubernetes: a published reservation table and formula (not yet checked against a real node).

civo.com/docs/kubernetes/managing-node-pools ("Worker Node Allocatable Resources"):

- nodes of at most 2 GiB: 1 GiB: kube-reserved memory 256 MiB, system-reserved 100 MiB, hard eviction 75 MiB;
  2 GiB: 512 / 100 / 100 MiB;
- larger nodes: 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128,
  plus 100 MiB "for pod eviction" and 200 MiB "for system resource management";
- cpu: 6% of the first core, 1% of the second, 0.5% of cores 3-4, 0.25% above 4.

The page states neither units nor rounding nor which map each part goes to beyond the small sizes: this module
reads the tiers in GiB of the node's memory, truncates to whole MiB and millicores, puts the tiers and the cpu in
kube-reserved and the 100/200 MiB in system-reserved. Civo clusters run k3s; no Civo-specific node label was
verified, so Civo is recognised by ``spec.providerID`` ``civo://`` (a convention, unverified) or chosen with
``--platform civo`` / ``platformDefaults.generic: civo``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from renderer.platforms._base import Default, Platform, PoolView, Release, Signal, register
from renderer.platforms._formula import GIB, MIB, Formula, Rounding, Step, Term, cpu_tiers, memory_tiers

if TYPE_CHECKING:
    from renderer.platforms._base import Settings

_DOCS = "civo.com/docs/kubernetes/managing-node-pools"
_MIB = Rounding("down", Fraction(MIB))

_CIVO = Formula(
    name="civo",
    summary="Civo: fixed values up to 2 GiB, else 25/20/10/6/2% memory tiers + 200Mi system, cpu tiers",
    terms={
        "kubeReserved": {
            "cpu": Term(
                input="cpu",
                whole=Fraction(1, 1000),
                tiers=cpu_tiers((1, "0.06"), (2, "0.01"), (4, "0.005"), (None, "0.0025")),
                rounding=Rounding("down", Fraction(1, 1000)),
                unit="m",
            ),
            "memory": Term(
                input="machineMemory",
                steps=(
                    Step(Fraction(GIB), Fraction(256 * MIB), "256Mi"),
                    Step(Fraction(2 * GIB), Fraction(512 * MIB), "512Mi"),
                ),
                tiers=memory_tiers(GIB),
                rounding=_MIB,
                unit="Mi",
            ),
        },
        "systemReserved": {
            "memory": Term(
                input="machineMemory",
                steps=(Step(Fraction(2 * GIB), Fraction(100 * MIB), "100Mi"),),
                base=Fraction(200 * MIB),
                unit="Mi",
            ),
        },
    },
    eviction_hard={"memory.available": "100Mi"},
    sources=(_DOCS,),
)


@register
class Civo(Platform):
    title = "Civo Kubernetes"
    summary = "Civo (k3s): the published table up to 2 GiB, memory tiers + 300Mi above, cpu tiers (unverified)"
    order = 58
    signals = (Signal("providerID", "civo://", "Civo's cloud controller manager (convention, unverified)"),)
    defaults = (
        Default(
            "civo",
            "kube-reserved memory tiers and cpu tiers, system-reserved 200Mi, eviction 100Mi "
            "(fixed values up to 2 GiB)",
            _CIVO,
            {"memory.available": "100Mi"},
            (_DOCS,),
        ),
    )
    history = (Release("the current documentation", "", "civo", _DOCS, "not checked against a published node"),)
    memory_source = "the node's memory (machineTypes when given); the page does not say which"

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        d = self.defaults[0]
        mem = self.machine_memory(pool, settings)
        if mem is not None and mem.bytes <= GIB:
            small = Default(d.name, d.title, d.formula, {"memory.available": "75Mi"}, d.sources, "", d.platform)
            return small.because("Civo: a 1 GiB node (eviction 75Mi)")
        return d.because("Civo's published reservation")
