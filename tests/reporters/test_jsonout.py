"""``renderer.reporters.jsonout.write_json`` writes exactly what ``json.dumps(value, indent=2)`` gives (plus a newline),
for any JSON value, in few writes."""

from __future__ import annotations

import io
import json
import math

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


def test_what_json_refuses_is_refused() -> None:
    with pytest.raises(TypeError):
        write_json({"a": object()}, io.StringIO())
    with pytest.raises(TypeError):
        write_json({(1, 2): 1}, io.StringIO())
    assert math.isnan(json.loads(json.dumps(float("nan"))))
