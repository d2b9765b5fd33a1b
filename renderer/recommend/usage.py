"""Measured usage, reduced as it is read: per query, node and cgroup, the largest value of each UTC day.

A value at time ``t`` of a query evaluated at one-day steps covers the day ending at ``t`` (``max_over_time(x[1d])``
at midnight is the day before): it is booked on day ``(t - 1) // 86400``. An export at a finer step (a raw 5-minute
export of the same query) books each value the same way and keeps each day's largest, so the result only ever errs
upwards (a rolling one-day window seen late in a day reaches into the day before).

What a value cannot be used for is counted, never guessed: ``NaN`` (no data in a subquery step, a ratio with no
requests), ``±Inf`` (a ratio of usage over zero requests), negative values, series without a ``node`` label. Counter
resets need no handling here: every cpu query takes ``rate()`` on the server, which accounts for them.

Cost: O(samples) time, O(nodes × cgroups × days) memory, whatever the number of samples.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass, field
from math import inf, isfinite
from typing import Any

from renderer.recommend.queries import DAY

__all__ = ["LAST_TIME", "BadSample", "Usage"]

#: 9999-12-31T23:59:59Z, the last time a sample may have: later ones are no date (datetime's own bound).
LAST_TIME = 253402300799.0


class BadSample(Exception):
    """A sample that is not ``[time, "value"]``: the caller locates it at its series."""


@dataclass
class Counts:
    samples: int = 0
    nan: int = 0
    inf: int = 0
    negative: int = 0
    #: the label sets of the series without a node label: a series met in several answers (the live mode asks some
    #: queries one day at a time) counts once, as in one export of the whole window
    nodeless: set[tuple[tuple[str, str], ...]] = field(default_factory=set)

    @property
    def no_node(self) -> int:
        return len(self.nodeless)


@dataclass
class Usage:
    """Per query name: (node, cgroup id) → day → the day's largest value."""

    days: dict[str, dict[tuple[str, str], dict[int, float]]] = field(default_factory=dict)
    counts: dict[str, Counts] = field(default_factory=dict)
    #: (source, the server's warning)
    warnings: list[tuple[str, str]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    #: bytes of answers read (the offline exports or the server's responses) and their series
    bytes_read: int = 0
    series_read: int = 0
    #: what Summary API dumps held that could not be used
    summary_notes: list[str] = field(default_factory=list)

    def add(self, query: str, metric: dict[str, str], samples: list[Any]) -> None:
        """Book one series' samples. Raises :class:`BadSample`."""
        counts = self.counts.setdefault(query, Counts())
        by_key = self.days.setdefault(query, {})
        if not samples:
            return
        node = metric.get("node")
        if not node:
            counts.nodeless.add(tuple(sorted(metric.items())))
            return
        try:
            times = [float(p[0]) for p in samples]
            values = [p[1] for p in samples]
        except (TypeError, ValueError, IndexError, KeyError):
            raise BadSample('a sample is not [time, "value"]') from None
        # a time that is NaN, infinite, before 1970 or after 9999 is no time a day can be booked on (and 1e300 would
        # make the days between the first and the last sample uncountably many)
        if not (isfinite(sum(times)) and min(times) >= 0 and max(times) <= LAST_TIME):
            raise BadSample("a sample's time is not Unix seconds from 1970 to 9999")
        counts.samples += len(values)
        try:
            numbers = list(map(float, values))
        except (TypeError, ValueError):
            raise BadSample("a sample's value is not a number in a string") from None
        if not isfinite(sum(numbers)):  # NaN or ±Inf however spelt ("NaN", "+Inf", "inf", "1e400"), or a huge sum
            nan = sum(1 for v in numbers if v != v)
            infinite = sum(1 for v in numbers if v in (inf, -inf))
            counts.nan += nan
            counts.inf += infinite
            if nan or infinite:
                keep = [k for k, v in enumerate(numbers) if isfinite(v)]
                times = [times[k] for k in keep]
                numbers = [numbers[k] for k in keep]
        if numbers and min(numbers) < 0:
            negative = sum(1 for v in numbers if v < 0)
            counts.negative += negative
            keep = [k for k, v in enumerate(numbers) if v >= 0]
            times = [times[k] for k in keep]
            numbers = [numbers[k] for k in keep]
        if not numbers:
            return
        if times != sorted(times):
            raise BadSample("samples are not in time order")
        days = by_key.setdefault((node, metric.get("id", "")), {})
        # one step per day that holds a sample (never per day between them): O(samples) whatever the times
        start, count = 0, len(times)
        while start < count:
            day = int((times[start] - 1) // DAY)
            end = bisect_left(times, (day + 1) * DAY + 1, start)
            peak = max(numbers[start:end])
            if peak > days.get(day, -1.0):
                days[day] = peak
            start = end

    def merge(self, other: Usage) -> None:
        """Add what ``other`` read (another answer, read on its own), as if it had been read into this one next."""
        for name, keys in other.days.items():
            mine = self.days.setdefault(name, {})
            for key, days in keys.items():
                target = mine.setdefault(key, {})
                for day, peak in days.items():
                    if peak > target.get(day, -1.0):
                        target[day] = peak
        for name, c in other.counts.items():
            t = self.counts.setdefault(name, Counts())
            t.samples += c.samples
            t.nan += c.nan
            t.inf += c.inf
            t.negative += c.negative
            t.nodeless |= c.nodeless
        seen = set(self.warnings)  # a warning every one-day answer of a query repeats is said once
        self.warnings.extend(w for w in other.warnings if w not in seen)
        self.sources.extend(other.sources)
        self.bytes_read += other.bytes_read
        self.series_read += other.series_read
        self.summary_notes.extend(other.summary_notes)

    def issues(self) -> list[str]:
        """What could not be used, per query, in words."""
        out: list[str] = list(self.summary_notes[:20])
        if len(self.summary_notes) > 20:
            out.append(f"and {len(self.summary_notes) - 20} more Summary API values left out")
        for name in sorted(self.counts):
            c = self.counts[name]
            parts = []
            if c.nan:
                parts.append(f"{c.nan} NaN")
            if c.inf:
                parts.append(f"{c.inf} infinite")
            if c.negative:
                parts.append(f"{c.negative} negative")
            if parts:
                out.append(f"{name}: {', '.join(parts)} of {c.samples} values left out")
            if c.no_node:
                out.append(f"{name}: {c.no_node} series without a node label left out")
        return out
