"""``renderer.units``: the one way text output shows quantities (docs/cli.md#units). Figures worked out by hand:
32386524Ki = 32386524 / 1024² GiB = 30.886 GiB; 100Mi = 0.0977 GiB; 75150584500 bytes = 69.990 GiB."""

from __future__ import annotations

import pytest

from renderer.quantity import Quantity
from renderer.units import column, cores, readable, unit_for


def q(text: str) -> Quantity:
    return Quantity.parse(text)


@pytest.mark.parametrize(
    ("text", "shown"), [("8", "8"), ("100m", "0.1"), ("7790m", "7.79"), ("11685m", "11.685"), ("1n", "0"), ("0", "0")]
)
def test_cpu_in_cores_exact_to_the_millicore(text: str, shown: str) -> None:
    assert cores(q(text)) == shown == readable(q(text), "cpu")


def test_a_column_of_bytes_reads_in_one_unit() -> None:
    values: list[Quantity | None] = [q("32386524Ki"), q("100Mi"), q("1Gi"), None, q("75150584500"), q("0")]
    assert column(values, "memory") == ["30.89Gi", "0.10Gi", "1Gi", "-", "69.99Gi", "0"]
    assert column([q("100Mi"), q("64Mi")], "memory") == ["100Mi", "64Mi"]  # nothing reaches 1Gi
    assert column([q("2Mi"), q("512Ki")], "hugepages-2Mi") == ["2Mi", "0.50Mi"]
    assert column([q("1Mi"), q("40Gi")], "ephemeral-storage") == ["<0.01Gi", "40Gi"]  # never a false zero


def test_node_sized_and_cluster_sized_values_stay_in_gi() -> None:
    assert unit_for([q("3Ti")]) == "Gi"
    assert readable(q("3Ti"), "memory") == "3072Gi"
    assert readable(q("-6731705239"), "ephemeral-storage") == "-6.27Gi"


def test_counts_as_they_are() -> None:
    assert readable(q("58"), "pods") == "58" and readable(q("4"), "nvidia.com/gpu") == "4"
    assert readable(None, "pods") == "-"
