"""Selector shapes that cost minutes when overlap is decided by pairing terms or by a product of their values
(issue 21, classes 6 and 7). In each, no two policies can select one node, so AL103 finds nothing: an overlap search
must stay near-linear here. bench/generate.py writes them as repos; tests/rules/test_selector_cost.py bounds the
work the search does on them.

Each function returns, for ``n`` policies, their selectors: a list (per policy) of terms, each a list of
``matchExpressions`` entries as dicts.
"""

from __future__ import annotations

from typing import Any

GROUP = "bench.example.com"
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
INSTANCE_TYPES = tuple(
    f"{family}.{size}"
    for family in ("m6i", "c6i", "r6i", "m7g")
    for size in ("large", "xlarge", "2xlarge", "4xlarge", "8xlarge")
)

Selector = list[list[dict[str, Any]]]


def exists_absent(n: int) -> list[Selector]:
    """Policies told apart only by Exists and DoesNotExist: policy c sets, for each bit b of its number, the label
    bit-b present (bit set) or absent. Any two differ in a bit, so no node matches two; a search that pairs every
    two terms sharing a key pairs all of them, once per bit."""
    bits = max(1, (n - 1).bit_length())
    return [
        [[{"key": f"{GROUP}/bit-{b}", "operator": "Exists" if c >> b & 1 else "DoesNotExist"} for b in range(bits)]]
        for c in range(n)
    ]


def in_product(n: int) -> list[Selector]:
    """Seven In expressions of ten values each (the reported 872-byte CommitClass): six keys with the same ten values
    everywhere, and a group key whose ten values are each policy's own. Bucketing by the product of values builds
    10^7 combinations for one term."""
    out: list[Selector] = []
    for c in range(n):
        term = [{"key": f"{GROUP}/group", "operator": "In", "values": [f"g{c}-{j}" for j in range(10)]}]
        term += [
            {"key": f"{GROUP}/dim-{d}", "operator": "In", "values": [f"d{d}-{j}" for j in range(10)]} for d in range(6)
        ]
        out.append([term])
    return out


def reservations_by_group(n: int) -> list[Selector]:
    """ReservationPolicies keyed by node group, each also naming the zones, instance types, capacity types and
    architectures the group runs (240 value combinations a term)."""
    return [
        [
            [
                {"key": "eks.amazonaws.com/nodegroup", "operator": "In", "values": [f"ng-{c:05d}"]},
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": list(ZONES)},
                {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(INSTANCE_TYPES)},
                {"key": "eks.amazonaws.com/capacityType", "operator": "In", "values": ["ON_DEMAND", "SPOT"]},
                {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64", "arm64"]},
            ]
        ]
        for c in range(n)
    ]


def range_pairs(n: int) -> list[Selector]:
    """Each policy covers its own range of a slot label (Gt/Lt) and the same range of a cpu label: the key bounded by
    the most terms is ambiguous, and the cpu ranges all meet. Only the slot ranges tell the policies apart."""
    return [
        [
            [
                {"key": f"{GROUP}/z-cpu", "operator": "Gt", "values": ["4"]},
                {"key": f"{GROUP}/z-cpu", "operator": "Lt", "values": ["65"]},
                {"key": f"{GROUP}/a-slot", "operator": "Gt", "values": [str(10 * c)]},
                {"key": f"{GROUP}/a-slot", "operator": "Lt", "values": [str(10 * c + 11)]},
            ]
        ]
        for c in range(n)
    ]


SHAPES = {
    "exists-absent": exists_absent,
    "in-product": in_product,
    "reservations-by-group": reservations_by_group,
    "range-pairs": range_pairs,
}


def to_yaml(selector: Selector, indent: str = "  ") -> str:
    """``selector:`` block of a spec, in flow style per expression."""
    out = f"{indent}selector:\n"
    for term in selector:
        out += f"{indent}  - matchExpressions:\n"
        for e in term:
            values = e.get("values")
            shown = "" if values is None else ", values: [" + ", ".join(f'"{v}"' for v in values) + "]"
            out += f"{indent}      - {{key: {e['key']}, operator: {e['operator']}{shown}}}\n"
    return out
