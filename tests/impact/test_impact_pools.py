"""Which NodePool a real node belongs to: the label index answers what comparing the node with every NodePool does.

The reference is the plain rule written out (every NodePool whose ``spec.labels`` the node carries; the most labels
wins, then the name), over random repos and nodes whose labels are drawn from a small alphabet so that pools share
labels, contain each other's labels and repeat each other."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.impact.report import PoolIndex, pool_of


def _plain(labels: Mapping[str, str], nodepools: Sequence[tuple[str, Mapping[str, str]]]) -> str | None:
    matching = [(-len(w), n) for n, w in nodepools if w and all(labels.get(k) == v for k, v in w.items())]
    return min(matching)[1] if matching else None


_LABELS = st.dictionaries(st.sampled_from("abcd"), st.sampled_from("xy"), max_size=4)
_POOLS = st.lists(st.tuples(st.sampled_from(["p1", "p2", "p3", "p4", "p5", "p6"]), _LABELS), max_size=12)


@settings(max_examples=300, deadline=None)
@given(_POOLS, st.lists(_LABELS, min_size=1, max_size=10))
def test_the_index_picks_the_pool_the_plain_rule_picks(
    nodepools: list[tuple[str, dict[str, str]]], nodes: list[dict[str, str]]
) -> None:
    index = PoolIndex(nodepools)
    for labels in nodes:
        assert index.best(labels) == _plain(labels, nodepools)


def test_most_labels_then_name_then_the_provisioner_group() -> None:
    # Worked by hand: "gpu" (2 labels) beats "general" (1) on the GPU node; "a-pool" and "b-pool" have the same
    # labels, so the name decides; a node no NodePool matches falls back to its Karpenter NodePool label, then to
    # its instance type.
    index = PoolIndex(
        [
            ("general", {"team": "ml"}),
            ("gpu", {"team": "ml", "accel": "nvidia"}),
            ("b-pool", {"team": "web"}),
            ("a-pool", {"team": "web"}),
            ("empty", {}),
        ]
    )
    assert pool_of({"team": "ml", "accel": "nvidia"}, index) == "gpu"
    assert pool_of({"team": "ml"}, index) == "general"
    assert pool_of({"team": "web", "accel": "nvidia"}, index) == "a-pool"
    assert pool_of({"karpenter.sh/nodepool": "spot", "node.kubernetes.io/instance-type": "m5.large"}, index) == "spot"
    assert pool_of({"node.kubernetes.io/instance-type": "m5.large"}, index) == "m5.large"
    assert pool_of({}, index) == "(no pool)"
