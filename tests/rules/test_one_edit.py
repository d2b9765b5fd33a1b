"""AL104's "did you mean": one edit (Damerau-Levenshtein distance 1) found through an index, not by comparing every
selector with every label (``renderer.lint.helpers.OneEdit``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run_cli
from renderer.lint import helpers
from renderer.lint.helpers import OneEdit, within_one_edit


def osa_distance(a: str, b: str) -> int:
    """The textbook optimal-string-alignment distance (Levenshtein plus adjacent transpositions), by dynamic
    programming over the whole table: the reference the fast check is compared with."""
    d = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        d[i][0] = i
    for j in range(len(b) + 1):
        d[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


@pytest.mark.parametrize(
    ("a", "b", "one"),
    [
        ("example.com/teir", "example.com/tier", True),  # swap
        ("example.com/ter", "example.com/tier", True),  # insertion
        ("example.com/tierr", "example.com/tier", True),  # deletion
        ("example.com/Tier", "example.com/tier", True),  # replacement
        ("example.com/tier", "example.com/tier", False),  # the same word is no typo
        ("wbee", "web", False),  # two edits
        ("abc", "cab", False),  # a rotation is two edits
        ("", "a", True),
    ],
)
def test_within_one_edit(a: str, b: str, one: bool) -> None:
    assert within_one_edit(a, b) is one
    assert within_one_edit(b, a) is one
    assert (osa_distance(a, b) == 1) is one


WORDS = st.text(alphabet="abc./-", max_size=7)


@settings(max_examples=400, deadline=None)
@given(a=WORDS, b=WORDS)
def test_within_one_edit_is_distance_one(a: str, b: str) -> None:
    assert within_one_edit(a, b) == (osa_distance(a, b) == 1)


@settings(max_examples=200, deadline=None)
@given(vocabulary=st.lists(WORDS, max_size=30), query=WORDS)
def test_the_index_finds_exactly_the_words_one_edit_away(vocabulary: list[str], query: str) -> None:
    expected = sorted({w for w in vocabulary if osa_distance(query, w) == 1})
    assert OneEdit(vocabulary).near(query) == expected


def test_a_query_checks_only_the_candidates_the_index_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    """5,000 label keys of one shape: a query compares itself with the few words sharing a deletion with it, not
    with the 5,000 (that would be O(selectors × labels))."""
    keys = [f"team{n:04d}.example.com/tier" for n in range(5000)]
    index = OneEdit(keys)
    calls: list[tuple[str, str]] = []
    real = helpers.within_one_edit

    def counting(a: str, b: str) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(helpers, "within_one_edit", counting)
    assert index.near("team0042.example.com/teir") == ["team0042.example.com/tier"]
    # Only team0042's key shares a deletion with the query (dropping the "e" or "i" of "teir"/"tier"): one check.
    assert calls == [("team0042.example.com/teir", "team0042.example.com/tier")]
    calls.clear()
    # The densest case: a query that is itself a key. Its one-edit neighbours are the keys one digit off (4 digits ×
    # 9 others, less the 5 from 5042 up that do not exist = 31) and two digit swaps (team0024, team0402): 33. Every
    # key sharing a deletion is checked, still a few dozen of the 5,000 (92 here).
    assert len(index.near("team0042.example.com/tier")) == 33
    assert 33 <= len(calls) <= 100, len(calls)
    calls.clear()
    assert index.near("unrelated.example.org/zone") == []
    assert calls == []


def test_an_unmatched_policy_in_a_large_inventory(tmp_path: Path) -> None:
    """End to end: 2,000 NodePools with distinct values of one key, and a policy one swap away from one of them."""
    pools = "".join(
        f"---\napiVersion: policy.allocatable.dev/v1alpha1\nkind: NodePool\nmetadata:\n  name: p{n}\nspec:\n"
        f"  labels: {{example.com/group: g{n:04d}x}}\n  capacity: {{cpu: '8', memory: 32Gi}}\n  count: 1\n"
        for n in range(2000)
    )
    root = tmp_path / "policies"
    root.mkdir()
    (root / "pools.yaml").write_text(pools)
    (root / "rp.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: ReservationPolicy\nmetadata:\n  name: r\nspec:\n"
        "  selector:\n  - matchExpressions: [{key: example.com/group, operator: In, values: [g1234xx]}]\n"
    )
    res = run_cli("lint", "policies", "-o", "json", cwd=tmp_path)
    (al104,) = [f for f in json.loads(res.stdout)["findings"] if f["code"] == "AL104"]
    assert al104["severity"] == "error" and al104["message"].endswith("did you mean example.com/group=g1234x?")
    assert res.exit_code == 1
