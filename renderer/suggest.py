"""The one "did you mean" guess every message uses (field names, enum values, kinds, platforms, kubelet fields,
eviction signals): offered only when the written word is close enough to one choice that it is most likely a typo
of it, never a guess among several (``namespace`` is not a misspelt ``name``)."""

from __future__ import annotations

from collections.abc import Iterable


def distance(a: str, b: str) -> int:
    """Edits between ``a`` and ``b``: insertions, deletions, substitutions and swaps of two neighbouring characters
    (optimal string alignment). Cost: O(len(a) × len(b))."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                current[j] = min(current[j], previous2[j - 2] + 1)
        previous2, previous = previous, current
    return previous[-1]


def allowed_edits(word: str) -> int:
    """How many edits still read as a typo of a word this long: 1 up to 7 characters, 2 up to 15, then 3."""
    return 1 if len(word) <= 7 else 2 if len(word) <= 15 else 3


def closest(value: str, choices: Iterable[str]) -> str | None:
    """The choice ``value`` most likely meant: the one that differs only in case, else the one nearest within
    :func:`allowed_edits` (case ignored); None when none is that close or two are equally close.
    Cost: O(choices × length²)."""
    options = list(dict.fromkeys(choices))
    folded = value.casefold()
    same = [c for c in options if c.casefold() == folded]
    if len(same) == 1:
        return same[0]
    if same:
        return None
    limit = allowed_edits(value)
    scored = sorted((distance(folded, c.casefold()), c) for c in options if abs(len(c) - len(value)) <= limit)
    if not scored or scored[0][0] > limit or (len(scored) > 1 and scored[1][0] == scored[0][0]):
        return None
    return scored[0][1]
