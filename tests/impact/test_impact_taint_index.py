"""TaintToleration through the pod's toleration index: the same answers as every toleration against every taint
(the rules of k8s.io/api core/v1 toleration.go ``ToleratesTaint``, in ``taints.tolerates``), and at the size of
issue 30 item 2 (16,000 taints on a node, 16,000 tolerations on the pod) no pairwise comparison at all — counted,
not timed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.impact import taints as taints_module
from renderer.impact.taints import (
    Taint,
    Toleration,
    TolerationIndex,
    first_untolerated,
    prefer_no_schedule_count,
    tolerates,
)

KEYS = st.sampled_from(["", "a", "b", "example.com/gpu"])
VALUES = st.sampled_from(["", "x", "y", "3", "10", "-1", "z9"])
EFFECTS = st.sampled_from(["", "NoSchedule", "PreferNoSchedule", "NoExecute"])
OPERATORS = st.sampled_from(["", "Equal", "Exists", "Gt", "Lt", "Bogus"])
TOLERATIONS = st.lists(st.builds(Toleration, KEYS, OPERATORS, VALUES, EFFECTS), max_size=20)
TAINTS = st.lists(st.builds(Taint, KEYS.filter(bool), VALUES, EFFECTS.filter(bool)), max_size=12)


@settings(max_examples=400, deadline=None)
@given(TOLERATIONS, TAINTS)
def test_the_index_answers_what_every_toleration_answers(tolerations: list[Toleration], taints: list[Taint]) -> None:
    index = TolerationIndex(tolerations)
    for taint in taints:
        assert index.tolerated(taint) == any(tolerates(t, taint) for t in tolerations)
    # and through the filter and the score, long lists (indexed) and short ones (looped) alike
    padded = tuple(tolerations) + tuple(Toleration("pad", "Equal", str(k), "NoSchedule") for k in range(8))
    for tols in (tuple(tolerations), padded):
        expected = next(
            (t for t in taints if t.effect in ("NoSchedule", "NoExecute") and not any(tolerates(x, t) for x in tols)),
            None,
        )
        assert first_untolerated(taints, tols) == expected
        usable = [x for x in tols if x.effect in ("", "PreferNoSchedule")]
        expected_count = sum(
            1 for t in taints if t.effect == "PreferNoSchedule" and not any(tolerates(x, t) for x in usable)
        )
        assert prefer_no_schedule_count(taints, tols) == expected_count


@pytest.mark.parametrize("effect", ["NoSchedule", "PreferNoSchedule"])
def test_sixteen_thousand_taints_and_tolerations_compare_no_pair(effect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    taints = tuple(Taint(f"example.com/t{k}", f"v{k}", effect) for k in range(16000))
    tolerations = tuple(Toleration(f"example.com/t{k}", "Equal", f"v{k}", effect) for k in range(16000))
    calls = 0

    def counted(t: Toleration, taint: Taint) -> bool:
        nonlocal calls
        calls += 1
        return tolerates(t, taint)

    monkeypatch.setattr(taints_module, "tolerates", counted)
    # Every taint is tolerated: the filter passes, the score counts none. Before: 16,000 x 16,000 / 2 comparisons.
    assert first_untolerated(taints, tolerations) is None
    assert prefer_no_schedule_count(taints, tolerations) == 0
    assert calls == 0
    # One taint left untolerated is found (the last), still without pairwise comparisons.
    assert first_untolerated((*taints, Taint("x", "", "NoSchedule")), tolerations) == Taint("x", "", "NoSchedule")
    assert calls == 0
