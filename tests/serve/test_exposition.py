"""serve's exposition writer against the library it stands in for.

``renderer.serve.exposition`` writes a cycle's families itself (speed: docs/performance.md, "serve"); the expected
bytes here are prometheus-client's own ``generate_latest`` of the same families and samples, so any difference in
escaping, label order, number formatting or headers fails the test. One hand-worked line shows what is compared.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, InfoMetricFamily
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from renderer.serve.exposition import Family, text

#: Label values a fleet can carry: a backslash, a double quote, a newline, braces, a comma, an equals sign,
#: UTF-8 (a name nobody would give a node, but a string the API server accepts in an annotation-derived pool name).
HOSTILE = [
    "ip-10-0-1-7.ec2.internal",
    'a"b',
    "back\\slash",
    "new\nline",
    'both\\"\n',
    "{x=1,y=2}",
    "ümlaut-节点",
    "",
    " spaced ",
]
#: Numbers as the families carry them: integers (counts), fractions of cores, bytes past 2**53, a negative drift,
#: zero both ways, the exponent switch of Go's formatting (above 1e6 with a dot past the 7th place), and the
#: specials.
NUMBERS: list[Any] = [
    0,
    0.0,
    -0.0,
    1,
    1.93,
    -0.5,
    3,
    7_706_824_704.0,
    123_456_789.0,
    1_234_567.0,
    12_345_678.5,
    2.0**60,
    1e21,
    1e-07,
    -3.5e9,
    math.inf,
    -math.inf,
    math.nan,
]


class _Families(Collector):
    def __init__(self, families: list[Any]) -> None:
        self.families = families

    def collect(self) -> list[Any]:
        return self.families


def _both(kind: str, labels: list[str], samples: list[tuple[list[str], Any]]) -> tuple[bytes, bytes]:
    name, doc = "allocatable_test_family", 'Help with a back\\slash, a "quote" and a\nnewline.'
    ours = Family(name, doc, kind, labels)
    theirs: Any
    if kind == "gauge":
        theirs = GaugeMetricFamily(name, doc, labels=labels)
    elif kind == "counter":
        theirs = CounterMetricFamily(name, doc, labels=labels)
    else:
        theirs = InfoMetricFamily(name, doc, labels=labels)
    for values, number in samples:
        if kind == "info":
            ours.add(values)
            theirs.add_metric(values, {})
        else:
            ours.add(values, number)
            theirs.add_metric(values, number)
    return text([ours]), generate_latest(_Families([theirs]))


@pytest.mark.parametrize("kind", ["gauge", "counter", "info"])
def test_every_hostile_value_and_number_is_written_as_prometheus_client_writes_it(kind: str) -> None:
    # Label names given out of their sorted order: the text format writes them sorted.
    labels = ["node", "cause", "resource"]
    samples = [([v, HOSTILE[(i + 3) % len(HOSTILE)], "cpu"], NUMBERS[i % len(NUMBERS)]) for i, v in enumerate(HOSTILE)]
    samples += [(["n", "c", "r"], number) for number in NUMBERS]
    ours, theirs = _both(kind, labels, samples)
    assert ours == theirs


def test_families_without_labels_or_samples_match_too() -> None:
    ours, theirs = _both("gauge", [], [([], 2.5)])
    assert ours == theirs
    ours, theirs = _both("gauge", ["pool"], [])
    assert ours == theirs
    assert ours.count(b"\n") == 2  # the HELP and TYPE lines of a family with no samples


def test_a_line_by_hand() -> None:
    family = Family("allocatable_node_drift", "d", "gauge", ["node", "pool", "resource", "unit", "cause"])
    family.add(['n"1', "p", "memory", "byte", "kubelet-reserved"], 104857600)
    # Labels sorted by name (cause first), the quote escaped, the integer written as Go writes a float64 past
    # 1e6: 104857600 = 1.048576 x 10^8.
    assert text([family]).decode().splitlines()[2] == (
        'allocatable_node_drift{cause="kubelet-reserved",node="n\\"1",pool="p",resource="memory",unit="byte"}'
        " 1.048576e+08"
    )


@pytest.mark.parametrize(
    ("name", "labels"),
    [("allocatable-node", ["node"]), ("allocatable_node", ["no-de"]), ("allocatable_node", ["a", "a"])],
)
def test_names_the_format_cannot_carry_are_refused(name: str, labels: list[str]) -> None:
    with pytest.raises(ValueError, match="not a metric family"):
        Family(name, "", "gauge", labels)
