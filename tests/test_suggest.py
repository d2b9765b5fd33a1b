"""``renderer.suggest``: a "did you mean" only for a likely typo of one choice. The distances are worked out by hand
(optimal string alignment: insert, delete, substitute, swap two neighbours, each one edit)."""

from __future__ import annotations

import pytest

from renderer.suggest import closest, distance


@pytest.mark.parametrize(
    ("a", "b", "edits"),
    [
        ("", "", 0),
        ("cont", "count", 1),  # one insertion
        ("platfrom", "platform", 1),  # "fr" ↔ "rf": one swap
        ("memroy", "memory", 1),
        ("namespace", "name", 5),  # five deletions
        ("nodeselector", "selector", 4),
        ("kitten", "sitting", 3),
        ("ca", "abc", 3),  # optimal string alignment, not Damerau-Levenshtein (which gives 2)
    ],
)
def test_distance(a: str, b: str, edits: int) -> None:
    assert distance(a, b) == edits == distance(b, a)


@pytest.mark.parametrize(
    ("value", "choices", "meant"),
    [
        ("in", ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"], "In"),  # case only
        ("exist", ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"], "Exists"),  # case and one edit
        ("cont", ["capacity", "count", "labels", "platform"], "count"),
        ("platfrom", ["capacity", "count", "labels", "platform"], "platform"),
        (
            "imageGCHighTresholdPercent",
            ["imageGCHighThresholdPercent", "imageGCLowThresholdPercent"],
            "imageGCHighThresholdPercent",
        ),
        ("namespace", ["annotations", "labels", "name"], None),  # not a typo of "name": 5 edits
        ("nodeSelector", ["resources", "selector"], None),
        ("It", ["In", "Lt"], None),  # one edit from both: no guess
        ("eks", ["aks", "gke", "eks"], "eks"),
        ("ekss", ["aks", "eks"], "eks"),
        ("gcp", ["aks", "eks", "gke"], None),  # two edits from gke: too far for three letters
    ],
)
def test_closest(value: str, choices: list[str], meant: str | None) -> None:
    assert closest(value, choices) == meant
