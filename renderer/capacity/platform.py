"""What a pool's platform reserves by itself, and the machine a formula is computed for.

The platforms themselves (detection, formulas, defaults per release, machine memory) are ``renderer/platforms/``;
this module asks them for a pool and assembles a formula's inputs from the pool's capacity and the platform's
answers. When no ReservationPolicy selects a pool, the capacity model applies :func:`platform_default`, shown in
``explain`` with the source ``platform-default:<name>`` (docs/platforms.md lists them).

Cost: O(1) per pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer import platforms
from renderer.capacity.formulas import MIB, Formula, MachineShape
from renderer.platforms import Default as PlatformDefault

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.models.settings import Settings

__all__ = ["PlatformDefault", "formula_inputs", "platform_default"]


def platform_default(pool: Pool, settings: Settings) -> PlatformDefault | None:
    """The default reservation of the pool's platform (None: nothing reserved, the kubelet's defaults)."""
    return platforms.default_for(pool, settings)


def formula_inputs(
    pool: Pool, formula: Formula, settings: Settings, max_pods: int, system_reserved_es: str | None = None
) -> tuple[MachineShape | None, list[str]]:
    """The machine shape ``formula`` is computed from for ``pool`` (None without cpu or memory), and notes."""
    notes: list[str] = []
    cpu = pool.capacity.get("cpu")
    mem = pool.capacity.get("memory")
    if cpu is None or mem is None or cpu.value <= 0 or mem.int_value() <= 0:
        return None, notes
    platform = platforms.effective(pool, settings)
    inputs = formula.inputs()
    machine_bytes: int | None = None
    if "machineMemory" in inputs:
        machine = platform.machine_memory(pool, settings)
        if machine is not None:
            if machine.from_capacity:
                notes.append(
                    f"memory: {formula.name} is computed from the machine type's advertised memory; it is not known "
                    f"for {pool.instance_type or 'this pool'}, so the capacity ({mem}, MemTotal) was used and the "
                    "reservation may be low: set NodePool.spec.machineMemory or machineTypes in .allocatable.yaml"
                )
            else:
                notes.append(f"memory: {formula.name} computed from {machine.bytes // MIB}Mi ({machine.source})")
            machine_bytes = machine.bytes
    eni: int | None = None
    if "eniMaxPods" in formula.uses_pods():
        found = platform.eni_max_pods(pool, settings)
        if found is not None:
            eni = found[0]
            notes.append(f"maxPods for the reservation: {eni}, the instance's ENI limit ({found[1]})")
    extra, extra_notes = platform.shape_inputs(pool, formula)
    notes.extend(extra_notes)
    es = pool.capacity.get("ephemeral-storage")
    shape = MachineShape(
        cpus=cpu.value,
        memory_bytes=mem.int_value(),
        max_pods=max_pods,
        machine_type=pool.instance_type,
        system_reserved_es=system_reserved_es,
        machine_memory_bytes=machine_bytes,
        eni_max_pods=eni,
        ephemeral_storage_bytes=es.int_value() if es is not None and not es.is_zero() else None,
        **extra,
    )
    return shape, notes
