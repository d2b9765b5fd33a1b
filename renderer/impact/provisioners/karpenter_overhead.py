"""The ``vmMemoryOverheadPercent`` real nodes call for: the smallest value with which Karpenter never believes an
observed instance type has more memory than its nodes report.

Karpenter estimates a type's memory capacity as ``m - ceil(m × percent)`` MiB (``karpenter.vm_overhead_mib``; ``m``
is the EC2 memory, less 64 MiB on arm64). A node reports ``status.capacity.memory``. The estimate is safe for a type
when it is at most the reported capacity, i.e. when ``ceil(m × percent) >= m - floor(capacity / 1 MiB)``. Too small a
percent over-estimates small types (Karpenter launches nodes a pod does not fit on); too large under-estimates big
ones (it launches a larger type, or two nodes where one would do). One value applies to the whole controller
(``--vm-memory-overhead-percent``), so the fleet-wide answer is the largest family's; the per-family figures show
which families drive it. Karpenter v1.1+ replaces the estimate with a type's reported memory once a node of it has
registered (the discovered-capacity cache), so the setting matters most for the first node of each type after the
controller starts or the AMI changes.

Values are found on a grid of ``step`` (0.0001 by default: the smallest a user would write), each checked with
Karpenter's own float64 arithmetic.

Cost: O(observations × log(1/step)).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal

from renderer.impact.provisioners.karpenter import MIB, vm_overhead_mib

__all__ = ["FamilyRecommendation", "Observation", "needed_percent", "recommend"]

DEFAULT_STEP = Decimal("0.0001")


@dataclass(frozen=True)
class Observation:
    """One instance type as a real node showed it."""

    instance_type: str
    ec2_memory_mib: int
    capacity_memory: int  # the node's status.capacity.memory, bytes
    arch: str = "amd64"

    @property
    def family(self) -> str:
        return self.instance_type.split(".", 1)[0]

    @property
    def estimated_mib(self) -> int:
        """The memory Karpenter's estimate starts from (EC2 MiB, less 64 on arm64)."""
        return self.ec2_memory_mib - (64 if self.arch == "arm64" else 0)

    def over_estimated(self, percent: float) -> int:
        """MiB by which Karpenter's capacity at ``percent`` exceeds what the node reports (0 when it does not)."""
        m = self.estimated_mib
        return max(m - vm_overhead_mib(m, percent) - self.capacity_memory // MIB, 0)


@dataclass(frozen=True)
class FamilyRecommendation:
    family: str
    percent: Decimal  # the smallest safe value on the grid
    decided_by: str  # the instance type that needs it
    types: int  # observed types of the family
    over_estimated: tuple[str, ...]  # types Karpenter over-estimates at the current setting
    largest_over_estimate_mib: int  # at the current setting


def needed_percent(obs: Observation, step: Decimal = DEFAULT_STEP) -> Decimal:
    """The smallest multiple of ``step`` with which Karpenter's estimate for ``obs`` is at most its reported memory."""
    m = obs.estimated_mib
    gap = m - obs.capacity_memory // MIB
    if gap <= 0:
        return Decimal(0)
    # ceil(m × p) >= gap  <=>  m × p > gap - 1: start just below that bound and step up, checking the float64 result.
    k = int((Decimal(gap - 1) / Decimal(m)) / step)
    while vm_overhead_mib(m, float(k * step)) < gap:
        k += 1
    while k > 0 and vm_overhead_mib(m, float((k - 1) * step)) >= gap:
        k -= 1
    return k * step


def recommend(
    observations: Iterable[Observation], current: float = 0.075, step: Decimal = DEFAULT_STEP
) -> list[FamilyRecommendation]:
    """Per instance family (sorted), the smallest safe ``vmMemoryOverheadPercent`` and what ``current`` gets wrong."""
    by_family: dict[str, list[Observation]] = {}
    for obs in observations:
        by_family.setdefault(obs.family, []).append(obs)
    out = []
    for family in sorted(by_family):
        members = sorted(by_family[family], key=lambda o: o.instance_type)
        needs = [(needed_percent(o, step), o.instance_type) for o in members]
        percent, decided_by = min(needs, key=lambda pair: (-pair[0], pair[1]))
        over = [(o.instance_type, o.over_estimated(current)) for o in members]
        over = [(name, mib) for name, mib in over if mib > 0]
        out.append(
            FamilyRecommendation(
                family,
                percent,
                decided_by,
                len(members),
                tuple(name for name, _ in over),
                max((mib for _, mib in over), default=0),
            )
        )
    return out
