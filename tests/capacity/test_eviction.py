"""Hard-eviction percentages resolved as the kubelet does (float32), checked against published real nodes."""

from __future__ import annotations

import struct
from decimal import Decimal

from hypothesis import given
from hypothesis import strategies as st

from renderer.capacity.eviction import float32_percent, percent_of, threshold_bytes
from renderer.quantity import Quantity

Q = Quantity.parse


def test_aks_node_nodefs_ten_percent() -> None:
    # A real AKS node (issue 11): status.capacity ephemeral-storage 129886128Ki, nodefs.available<10%, no
    # ephemeral-storage reservation; it reports allocatable 119703055367. Exact arithmetic would give 119703055565.
    cap = Q("129886128Ki")
    assert cap.int_value() - threshold_bytes("10%", cap).int_value() == 119703055367  # type: ignore[union-attr]


def test_gke_documentation_node() -> None:
    # GKE "Plan node sizes" (cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes) shows a node with
    # capacity ephemeral-storage 98831908Ki and allocatable 47060071478 on a 100 GB boot disk: kube-reserved
    # min(50 GiB, 6 GiB + 35 GiB, 100 GiB) = 41Gi plus nodefs.available<10% in float32.
    cap = Q("98831908Ki")
    evicted = threshold_bytes("10%", cap)
    assert evicted is not None
    assert cap.int_value() - Q("41Gi").int_value() - evicted.int_value() == 47060071478


def test_eks_node_from_the_issue() -> None:
    # Issue 11: an EKS node with 83873772Ki of disk and 2Gi reserved reports 75150584500, not 75150584628.
    cap = Q("83873772Ki")
    evicted = threshold_bytes("10%", cap)
    assert evicted is not None
    assert cap.int_value() - 2 * 1024**3 - evicted.int_value() == 75150584500


def test_only_the_literal_strings_disable_a_threshold() -> None:
    cap = Q("100Gi")
    assert threshold_bytes("0%", cap) == Q("0")
    assert threshold_bytes("100%", cap) == Q("0")
    # parseThresholdStatement drops only "0%" and "100%"; "100.0%" keeps the whole capacity free
    assert threshold_bytes("100.0%", cap) == cap
    assert threshold_bytes("100.5%", cap) is None
    assert threshold_bytes("-1%", cap) is None
    assert threshold_bytes("ten%", cap) is None
    assert threshold_bytes("500Mi", cap) == Q("500Mi")


def _f32(x: float) -> float:
    return float(struct.unpack("f", struct.pack("f", x))[0])


@given(
    capacity=st.integers(0, 2**52),
    tenths=st.integers(1, 999),
)
def test_matches_ieee_float32_arithmetic(capacity: int, tenths: int) -> None:
    # Independent emulation with the machine's IEEE floats: float32(p) / float32(100) rounded to float32 (a
    # float32 quotient computed in double and rounded once is exact), then a float64 product truncated.
    pct = Decimal(tenths) / 10
    p32 = _f32(_f32(float(pct)) / 100.0)
    assert float(float32_percent(pct)) == p32
    assert percent_of(capacity, pct) == int(float(capacity) * p32)
