"""The diff's priced change: the bill, the headline and the gate, on fleet changes worked by hand.

m5.xlarge $0.192 and c6i.2xlarge $0.34 an hour, us-east-1 on-demand (Karpenter's zz_generated.pricing_aws.go,
"generated at 2026-01-19T13:23:24Z for us-east-1")."""

from __future__ import annotations

from decimal import Decimal

from renderer.capacity.cost import ChangeCost, FleetChange, PoolChangeCost, change_json
from renderer.cost.prices import NodePrice, UnitPrices, Unknown
from renderer.reporters.costs import change_headline, change_markdown

HOURS = Decimal(730)


def price(kind: str, hourly: str) -> NodePrice:
    units = UnitPrices(Decimal(0), Decimal(0), Decimal(0), "ratio 7.4607")
    return NodePrice(
        kind,
        "us-east-1",
        "on-demand",
        Decimal(hourly),
        "USD",
        "builtin aws us-east-1 on-demand, as of 2026-01-19",
        "2026-01-19",
        units,
    )


def cost(fleet: list[FleetChange], pools: list[PoolChangeCost] | None = None, limit: str | None = None) -> ChangeCost:
    return ChangeCost("USD", HOURS, pools or [], fleet, [], None if limit is None else Decimal(limit))


def test_nodes_freed_save_money() -> None:
    c = cost([FleetChange("eks-general", "m5.xlarge", 0, 1, price("m5.xlarge", "0.192"))])
    assert c.bill_monthly == Decimal("-140.16")  # −1 × 0.192 × 730
    assert change_headline(c) == "this change saves $140.16/month (1 × m5.xlarge freed on eks-general)"
    assert change_json(c)["monthlyChange"] == "-140.16"


def test_adds_and_frees_in_two_pools_net_out() -> None:
    c = cost(
        [
            FleetChange("eks-batch", "c6i.2xlarge", 2, 0, price("c6i.2xlarge", "0.34")),
            FleetChange("eks-general", "m5.xlarge", 0, 1, price("m5.xlarge", "0.192")),
        ]
    )
    # 2 × 0.34 × 730 = 496.40; − 140.16 = 356.24
    assert c.bill_monthly == Decimal("356.24")
    assert change_headline(c).startswith("this change adds $356.24/month (2 × c6i.2xlarge on eks-batch, 1 × m5.xlarge")


def test_the_gate_passes_at_the_limit_and_fails_above_it() -> None:
    one = [FleetChange("eks-batch", "c6i.2xlarge", 1, 0, price("c6i.2xlarge", "0.34"))]
    assert not cost(one, limit="248.20").failed  # exactly 248.20: not more than the limit
    assert cost(one, limit="248.19").failed


def test_an_unpriced_node_added_fails_the_gate_and_is_named() -> None:
    unknown = Unknown("m99.mega", "us-east-1", "m99.mega is not in the builtin aws us-east-1 on-demand table")
    c = cost([FleetChange("eks-odd", "m99.mega", 1, 0, unknown)], limit="1000")
    assert c.bill_monthly == 0 and c.failed and c.moved
    assert "not priced: eks-odd (m99.mega)" in change_headline(c)
    assert change_json(c)["fleet"][0]["monthly"] is None


def test_nothing_moved_says_nothing() -> None:
    c = cost([], [PoolChangeCost("NodePool/a", "a", price("m5.xlarge", "0.192"), (2, 2), Decimal(0), Decimal(0))])
    assert not c.moved and change_markdown(c) == []


def test_nothing_moved_gives_the_page_no_cost_section() -> None:
    from renderer.reporters.costs import change_view

    assert change_view(cost([])) is None and change_view(None) is None
