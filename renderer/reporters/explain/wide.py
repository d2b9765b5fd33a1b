"""``allocatable explain -o wide``: the text report with every resource a pool has as a column of its table (pods,
hugepages-*, extended resources such as nvidia.com/gpu), and in the totals; ``-o text`` keeps cpu, memory and
ephemeral-storage and names what it leaves out. Cost: as the text format's."""

from __future__ import annotations

from typing import TextIO

from renderer.capacity.explain import Explained
from renderer.reporters.explain import text


def write(explained: Explained, out: TextIO) -> None:
    text.write(explained, out, wide=True)
