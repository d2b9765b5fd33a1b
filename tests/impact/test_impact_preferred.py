"""Preferred node affinity compiled once per pod: the same raw scores as evaluating every term on every node, and at
the size of issue 30 item 3 (2,000 preferred terms, 200 nodes) the terms evaluated once per distinct combination of
the labels they read, not once per node — counted, not timed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.capacity.selectors import Requirement, Term
from renderer.impact import affinity as affinity_module
from renderer.impact.affinity import NodeAffinity, PreferredScorer, preferred_score

KEYS = st.sampled_from(["zone", "team", "gpu", "size"])
VALUES = st.sampled_from(["a", "b", "1", "7"])
REQUIREMENT = st.builds(
    Requirement,
    KEYS,
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    st.lists(VALUES, min_size=0, max_size=2).map(tuple),
)
NAME_PIN = st.builds(
    Requirement,
    st.just("metadata.name"),
    st.just("In"),
    st.lists(st.sampled_from(["n0", "n1"]), min_size=1, max_size=1).map(tuple),
)
TERM = st.builds(Term, st.lists(REQUIREMENT, max_size=3).map(tuple), st.lists(NAME_PIN, max_size=1).map(tuple))
PREFERRED = st.lists(st.tuples(st.integers(1, 100), TERM), min_size=1, max_size=8).map(tuple)
NODE = st.tuples(
    st.dictionaries(st.sampled_from(["zone", "team", "gpu", "size", "other"]), VALUES),
    st.sampled_from(["n0", "n1", "n2"]),
)


@settings(max_examples=300, deadline=None)
@given(PREFERRED, st.lists(NODE, min_size=1, max_size=12))
def test_the_compiled_terms_score_what_every_term_scores(
    preferred: tuple[tuple[int, Term], ...], nodes: list[tuple[dict[str, str], str]]
) -> None:
    scorer = PreferredScorer(preferred)
    affinity = NodeAffinity(preferred=preferred)
    for labels, name in nodes * 2:  # twice: the second time from the memo
        assert scorer.score(labels, name) == preferred_score(affinity, labels, name)


def test_two_thousand_terms_on_two_hundred_nodes_are_evaluated_per_label_combination(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 2,000 terms on the zone and a per-term key; 200 nodes in 3 zones, each with its own hostname and 30 other
    # labels the terms never read: 3 distinct combinations, so 3 x 2,000 term evaluations instead of 200 x 2,000.
    preferred = tuple(
        (
            1 + k % 100,
            Term(
                (
                    Requirement("topology.kubernetes.io/zone", "In", (f"z{k % 3}",)),
                    Requirement(f"k{k}", "DoesNotExist", ()),
                ),
                (),
            ),
        )
        for k in range(2000)
    )
    calls = 0
    real = affinity_module.selector_matches

    def counted(terms: tuple[Term, ...], labels: dict[str, str], name: str) -> bool:
        nonlocal calls
        calls += 1
        return real(terms, labels, name)

    monkeypatch.setattr(affinity_module, "selector_matches", counted)
    scorer = PreferredScorer(preferred)
    nodes = [
        (
            {
                "kubernetes.io/hostname": f"n{i}",
                "topology.kubernetes.io/zone": f"z{i % 3}",
                **{f"x{j}": str(i) for j in range(30)},
            },
            f"n{i}",
        )
        for i in range(200)
    ]
    scores = [scorer.score(labels, name) for labels, name in nodes]
    assert calls == 3 * 2000
    # zone z0 matches the terms k = 0, 3, 6, ...: weights 1 + k % 100 over 667 terms, worked out by summing
    assert scores[0] == sum(1 + k % 100 for k in range(0, 2000, 3))
