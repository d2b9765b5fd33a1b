"""The text exposition (format 0.0.4) of one cycle's metric families, written line by line as samples are added.

Byte for byte what ``prometheus_client.exposition.generate_latest`` writes for a ``GaugeMetricFamily``,
``CounterMetricFamily`` or ``InfoMetricFamily`` with the same samples (tests/serve/test_exposition.py holds the two
side by side, hostile label values and every kind of float included): ``# HELP`` with backslash and newline
escaped, ``# TYPE`` (a counter's name gets ``_total``, an info family's ``_info`` and type ``gauge``), then one line
per sample, its labels in the order of their names, each value with backslash, double quote and newline escaped, the
number as ``floatToGoString`` writes it.

Why not the library's families: on a 20,000-node fleet (143,668 samples, 16 MB of text) building
``Sample`` tuples and formatting them through ``generate_latest`` — every label name checked and escaped, every label
dict sorted, for every sample — took 1.32 s CPU of a 4.69 s cycle (2026-12-06, bench/serve.py's fleet;
docs/performance.md, "serve"); here the label names are checked once per family and a sample is one format call.

Cost: O(samples); a family keeps its lines until ``text`` joins them, once per cycle.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence

from prometheus_client import utils

#: prometheus-client's number formatting (Go's float64 text: ``+Inf``, ``NaN``, exponents past 1e6), used as it is.
_go_float: Callable[[float], str] = utils.floatToGoString

__all__ = ["Family", "escape_value", "text"]

_METRIC_NAME = re.compile(r"^[a-zA-Z_:][a-zA-Z0-9_:]*$")
_LABEL_NAME = re.compile(r"^[a-zA-Z_][a-zA-Z0-9_]*$")
#: What a family is called in ``# TYPE`` and the suffix its samples' name gets (``generate_latest``'s munging).
_KINDS = {"gauge": ("gauge", ""), "counter": ("counter", "_total"), "info": ("gauge", "_info")}


def escape_value(value: str) -> str:
    """A label value as the text format writes it between double quotes: backslash, double quote and newline
    escaped (the format's three; everything else, UTF-8 included, is written as it is)."""
    if "\\" in value or '"' in value or "\n" in value:
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')
    return value


class Family:
    """One metric family: ``kind`` is ``gauge``, ``counter`` or ``info`` (an info sample's value is 1)."""

    __slots__ = ("_line", "_numbers", "_order", "lines")

    def __init__(self, name: str, documentation: str, kind: str, labels: Sequence[str]) -> None:
        type_name, suffix = _KINDS[kind]
        full = name + suffix
        bad = any(not _LABEL_NAME.match(k) for k in labels) or len(set(labels)) != len(labels)
        if bad or not _METRIC_NAME.match(full):
            raise ValueError(f"not a metric family this writer takes: {full} {list(labels)}")
        help_text = documentation.replace("\\", "\\\\").replace("\n", "\\n")
        self.lines: list[str] = [f"# HELP {full} {help_text}\n# TYPE {full} {type_name}\n"]
        # The labels in the order of their names, each taking its value from its place in ``add``'s list.
        order = sorted(range(len(labels)), key=lambda i: labels[i])
        inner = ",".join(f'{labels[i]}="{{{n}}}"' for n, i in enumerate(order))
        template = f"{full}{{{{{inner}}}}} {{{len(labels)}}}\n" if labels else f"{full} {{0}}\n"
        self._line = template
        self._order = order
        #: Numbers as floatToGoString writes them, per value (a fleet repeats a few hundred values).
        self._numbers: dict[float, str] = {}

    def add(self, values: Sequence[str], value: float = 1.0) -> None:
        """One sample: ``values`` in the order of the family's labels (escaped here)."""
        number = self._numbers.get(value)
        if number is None:
            number = _go_float(value)
            if value:  # 0.0 and -0.0 are one key but two texts
                self._numbers[value] = number
        self.lines.append(self._line.format(*[escape_value(values[i]) for i in self._order], number))


def text(families: Iterable[Family]) -> bytes:
    """The exposition of ``families``, in their order, as UTF-8."""
    return "".join(line for f in families for line in f.lines).encode("utf-8")
