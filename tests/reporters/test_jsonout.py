"""``renderer.reporters.jsonout.write_json`` writes exactly what ``json.dumps(value, indent=2)`` gives (plus a newline),
for any JSON value, in few writes."""

from __future__ import annotations

import io
import json
import math
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderer.reporters.jsonout import write_json

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.text())
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.tuples(inner, inner),
        st.dictionaries(
            st.one_of(st.text(), st.integers(), st.booleans(), st.none(), st.floats(allow_nan=False)), inner, max_size=5
        ),
    ),
    max_leaves=40,
)


@given(values, st.sampled_from([0, 1, 2, 4]))
def test_the_same_text_as_json_dumps(value: object, indent: int) -> None:
    out = io.StringIO()
    write_json(value, out, indent=indent)
    assert out.getvalue() == json.dumps(value, indent=indent) + "\n"


def test_a_big_value_is_written_in_few_pieces() -> None:
    class Counting(io.StringIO):
        writes = 0

        def write(self, s: str) -> int:
            Counting.writes += 1
            return super().write(s)

    value = {"pools": [{"name": f"p{i}", "cpu": "4", "memory": "16Gi", "n": [i, i / 3]} for i in range(20_000)]}
    out = Counting()
    write_json(value, out)
    assert out.getvalue() == json.dumps(value, indent=2) + "\n"
    assert Counting.writes <= 1 + len(out.getvalue()) // 50_000  # not one write per token (~700,000 tokens)


class _Made(Sequence[dict[str, object]]):
    """Items made when read, counting how many are alive at once (as ``explain``'s pools are)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.alive = 0
        self.most_alive = 0
        self.reads = 0

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict[str, object]:  # type: ignore[override]
        if not 0 <= i < self.n:
            raise IndexError(i)
        self.reads += 1
        made = self

        class Item(dict[str, object]):
            def __del__(self) -> None:
                made.alive -= 1

        self.alive += 1
        self.most_alive = max(self.most_alive, self.alive)
        return Item(name=f"p{i}", labels={"a": str(i)}, n=[i])


@pytest.mark.parametrize("n", [0, 1, 3, 5_000])
def test_a_sequence_is_written_as_its_list_one_item_at_a_time(n: int) -> None:
    made = _Made(n)
    out = io.StringIO()
    write_json({"pools": made, "n": n}, out)
    assert out.getvalue() == json.dumps({"pools": list(_Made(n)), "n": n}, indent=2) + "\n"
    assert made.reads == n  # each item made once
    assert made.most_alive <= 2  # the one being written and the next: never the whole list


def test_what_json_refuses_is_refused() -> None:
    with pytest.raises(TypeError):
        write_json({"a": object()}, io.StringIO())
    with pytest.raises(TypeError):
        write_json({(1, 2): 1}, io.StringIO())
    with pytest.raises(TypeError):
        write_json({"a": b"bytes"}, io.StringIO())
    assert math.isnan(json.loads(json.dumps(float("nan"))))
