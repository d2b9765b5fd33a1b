"""Linux cpuset lists (``0-1,4``) as ``k8s.io/utils/cpuset.Parse`` reads them. O(ranges · log ranges)."""

from __future__ import annotations

import re

__all__ = ["cpuset_size", "parse_cpuset"]


def parse_cpuset(text: str) -> tuple[list[tuple[int, int]] | None, str | None]:
    """A Linux cpuset list as ``k8s.io/utils/cpuset.Parse`` reads it (``0-1,4``): inclusive ranges, or why not.

    An empty string is the empty set."""
    if text == "":
        return [], None
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        m = re.fullmatch(r"([0-9]+)(?:-([0-9]+))?", part)
        if m is None:
            return None, f'"{part}" is not a CPU number or a range like "0-3"'
        start = int(m.group(1))
        end = int(m.group(2)) if m.group(2) is not None else start
        if start > end:
            return None, f'invalid range "{part}" ({start} > {end})'
        ranges.append((start, end))
    return ranges, None


def cpuset_size(ranges: list[tuple[int, int]]) -> int:
    """Number of distinct CPUs in the ranges (``CPUSet.Size()``: overlapping ranges count once)."""
    total = 0
    last = -1
    for start, end in sorted(ranges):
        start = max(start, last + 1)
        if end >= start:
            total += end - start + 1
            last = end
    return total
