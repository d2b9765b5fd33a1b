"""``allocatable sizing`` (text): the formula and machine on one line, then one line per reserved set and the
notes."""

from __future__ import annotations

from typing import TextIO

from renderer.reporters.sizing import Sizing


def write(sizing: Sizing, out: TextIO) -> None:
    result = sizing.result
    lines = [f"formula {result.formula} (fills {result.fills}) for {sizing.cpus} CPUs, {sizing.memory} memory"]
    for label, values in (
        ("systemReserved", result.system_reserved),
        ("kubeReserved", result.kube_reserved),
        ("evictionHard", result.eviction_hard),
    ):
        shown = ", ".join(f"{k}={v}" for k, v in values.items()) or "-"
        lines.append(f"  {label + ':':16} {shown}")
    lines.extend(f"  note: {n}" for n in result.notes)
    out.write("\n".join(lines) + "\n")
