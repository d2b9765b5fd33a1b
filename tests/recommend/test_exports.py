"""The export reader (``renderer.recommend.exports``) and the daily reduction (``renderer.recommend.usage``).

Shapes come from Prometheus' HTTP API documentation (https://prometheus.io/docs/prometheus/latest/querying/api/):
``{"status": "success", "data": {"resultType": "matrix", "result": [{"metric": {...}, "values": [[t, "v"], ...]}]}}``,
``"vector"`` results with ``"value": [t, "v"]``, errors as ``{"status": "error", "errorType": ..., "error": ...}``, and
``promtool query range -o json``'s bare result array (seen from promtool 2.42 on this machine). Expected daily maxima
are worked out by hand beside each case.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from renderer.recommend import exports
from renderer.recommend.exports import ExportError, read_export
from renderer.recommend.queries import QUERIES, by_name
from renderer.recommend.source import UsageInputError, query_of, read_stream
from renderer.recommend.usage import Usage

DAY = 86400
D = 20000  # a day number: midnight of day D is D * 86400


def _read(text: str | bytes, query: str = "running_pods") -> Usage:
    usage = Usage()
    data = text.encode() if isinstance(text, str) else text
    read_stream(usage, "x.json", by_name()[query], io.BytesIO(data).read, 1 << 30)
    return usage


def _matrix(series: list[dict[str, Any]], **extra: Any) -> str:
    return json.dumps({"status": "success", "data": {"resultType": "matrix", "result": series}, **extra})


def test_a_day_is_the_24_hours_before_each_evaluation() -> None:
    # max_over_time(x[1d]) evaluated at midnight of day D+1 covers (D, D+1]: booked on day D. A raw sample at 00:00
    # of D+1 belongs to day D too (the window is closed on the right), one a second later to D+1.
    values = [[(D + 1) * DAY, "5"], [(D + 1) * DAY + 1, "7"], [(D + 2) * DAY, "3"], [(D + 1) * DAY - 3600, "6"]]
    values.sort()
    usage = _read(_matrix([{"metric": {"node": "n1"}, "values": values}]))
    # day D: 6 (23:00 of D) and 5 (00:00 of D+1) -> 6; day D+1: 7 and 3 (00:00 of D+2) -> 7
    assert usage.days["running_pods"][("n1", "")] == {D: 6.0, D + 1: 7.0}


def test_every_shape_the_api_and_promtool_write() -> None:
    series = [{"metric": {"node": "a"}, "values": [[(D + 1) * DAY, "4"]]}]
    api = _read(_matrix(series))
    data_only = _read(json.dumps({"resultType": "matrix", "result": series}))
    promtool = _read(json.dumps(series))
    vector = _read(
        json.dumps(
            {
                "status": "success",
                "data": {"resultType": "vector", "result": [{"metric": {"node": "a"}, "value": [(D + 1) * DAY, "4"]}]},
            }
        )
    )
    expected = {("a", ""): {D: 4.0}}
    for usage in (api, data_only, promtool, vector):
        assert usage.days["running_pods"] == expected


def test_nan_inf_negative_and_nodeless_values_are_counted_not_used() -> None:
    values = [
        [(D + 1) * DAY, "NaN"],
        [(D + 1) * DAY + 60, "+Inf"],
        [(D + 1) * DAY + 120, "-1"],
        [(D + 1) * DAY + 180, "2"],
    ]
    usage = _read(
        _matrix([{"metric": {"node": "a"}, "values": values}, {"metric": {"job": "x"}, "values": [[DAY, "1"]]}]),
        "pods_cpu_ratio",
    )
    assert usage.days["pods_cpu_ratio"] == {("a", ""): {D + 1: 2.0}}
    c = usage.counts["pods_cpu_ratio"]
    assert (c.nan, c.inf, c.negative, c.no_node, c.samples) == (1, 1, 1, 1, 4)
    assert usage.issues() == [
        "pods_cpu_ratio: 1 NaN, 1 infinite, 1 negative of 4 values left out",
        "pods_cpu_ratio: 1 series without a node label left out",
    ]


def test_answers_read_apart_and_merged_are_the_answers_read_together() -> None:
    # the live mode reads each query's answer into its own Usage (a few requests in flight) and merges them in the
    # queries' order: the same days, counts, sources, warnings and totals as reading the answers one after another
    # into one. Day D: a reads 3 then 5 -> 5; b reads 9; the second answer's NaN and nodeless series are counted.
    first = _matrix([{"metric": {"node": "a"}, "values": [[(D + 1) * DAY, "3"]]}], warnings=["w1"])
    second = _matrix(
        [
            {"metric": {"node": "a"}, "values": [[(D + 1) * DAY - 60, "5"], [(D + 1) * DAY, "NaN"]]},
            {"metric": {"node": "b"}, "values": [[(D + 1) * DAY, "9"]]},
            {"metric": {"job": "x"}, "values": [[DAY, "1"]]},
        ],
        warnings=["w2"],
    )
    together = Usage()
    for i, text in enumerate((first, second)):
        read_stream(together, f"{i}.json", by_name()["running_pods"], io.BytesIO(text.encode()).read, 1 << 30)
    merged = Usage()
    for i, text in enumerate((first, second)):
        part = Usage()
        read_stream(part, f"{i}.json", by_name()["running_pods"], io.BytesIO(text.encode()).read, 1 << 30)
        merged.merge(part)
    assert merged.days["running_pods"] == {("a", ""): {D: 5.0}, ("b", ""): {D: 9.0}}
    c = merged.counts["running_pods"]
    # values of series with a node: 1 (first) + 2 (a, the NaN included) + 1 (b)
    assert (c.samples, c.nan, c.no_node) == (4, 1, 1)
    assert merged.warnings == [("0.json", "w1"), ("1.json", "w2")]
    assert merged.sources == ["0.json", "1.json"]
    assert merged == together


def test_nan_and_inf_however_spelt_are_counted_not_used() -> None:
    """Prometheus writes "NaN", "+Inf" and "-Inf"; other engines and hand-made exports may write "inf" or "nan", and a
    value past the largest double ("1e400") reads as infinite. Each is counted as NaN or infinite like Prometheus'
    own spelling, never booked as a day's peak (before, "1e400" was kept: an infinite peak; "nan" too)."""
    values = [
        [(D + 1) * DAY - 300, "1e400"],  # +inf
        [(D + 1) * DAY - 240, "-1e400"],  # -inf: infinite, not negative
        [(D + 1) * DAY - 180, "inf"],
        [(D + 1) * DAY - 120, "nan"],
        [(D + 1) * DAY - 60, "-1"],
        [(D + 1) * DAY, "3"],
    ]
    usage = _read(_matrix([{"metric": {"node": "a"}, "values": values}]))
    # every sample is in (D, D+1]: day D, whose one usable value is 3
    assert usage.days["running_pods"] == {("a", ""): {D: 3.0}}
    assert usage.issues() == ["running_pods: 1 NaN, 3 infinite, 1 negative of 6 values left out"]


@pytest.mark.parametrize("time", ["1e300", "-5", '"NaN"', '"+Inf"', "253402300800"])
def test_a_time_that_is_no_date_is_one_located_error(time: str) -> None:
    """A sample's time must be Unix seconds from 1970 to 9999-12-31T23:59:59Z (253402300799; one second later is
    year 10000). Before, 1e300 ended in an internal error (OverflowError) and a sample at 0 and one in 9999 walked the
    2.9 million days between them."""
    text = '{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"node":"a"},"values":[[%s,"1"]]}]}}'
    with pytest.raises(UsageInputError) as caught:
        _read(text % time)
    # the series starts at column 61 of the one line (the offset of its "{" after the 60 characters before it)
    assert str(caught.value) == "x.json:1:61: a sample's time is not Unix seconds from 1970 to 9999"


def test_days_are_walked_per_sample_not_per_day_between() -> None:
    """Two samples 2.9 million days apart book two days, the first and the last (9999-12-31 is day 2932896)."""
    usage = _read(_matrix([{"metric": {"node": "a"}, "values": [[1, "1"], [253402300799, "2"]]}]))
    assert usage.days["running_pods"] == {("a", ""): {0: 1.0, 2932896: 2.0}}


def test_the_servers_warnings_are_kept() -> None:
    usage = _read(_matrix([], warnings=["PromQL info: metric might not be a counter"]))
    assert usage.warnings == [("x.json", "PromQL info: metric might not be a counter")]


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        # an HTML error page from a proxy in front of Prometheus
        ("<html><body>502 Bad Gateway</body></html>", "x.json:1:1:", "HTML page"),
        ("  \n  Unauthorized\n", "x.json:2:3:", "not JSON"),
        ("", "x.json:", "empty"),
        # the API's error document (HTTP 400 bad_data)
        (
            '{"status":"error","errorType":"bad_data","error":"1:23: parse error: unclosed left parenthesis"}',
            "x.json:1:1:",
            "bad_data: 1:23: parse error",
        ),
        # a truncated download: the text ends inside the second series
        (_matrix([{"metric": {"node": "a"}, "values": [[DAY, "1"]]}] * 2)[:-40], "x.json:1:", "ends early"),
        ('{"status":"success","data":{"resultType":"scalar","result":[1,"2"]}}', "x.json:1:", "scalar"),
        ('{"status":"success"}', "x.json:", "no data.result"),
        (_matrix([{"metric": {"node": "a"}, "values": [[DAY, "1"], [0, "2"]]}]), "x.json:1:67:", "time order"),
        (_matrix([{"metric": {"node": "a"}, "values": [[DAY, "12Mi"]]}]), "x.json:1:67:", "not a number"),
        (_matrix([{"metric": {"node": "a"}, "values": [[DAY, None]]}]), "x.json:1:67:", "not a number"),
        (_matrix([{"metric": {"node": "a"}, "values": [DAY]}]), "x.json:1:67:", "not [time"),
        (_matrix([{"metric": {"node": "a"}}]), "x.json:1:67:", "neither values nor value"),
        (_matrix([]) + " {}", "x.json:1:", "extra data"),
        (b'{"status": "succ\xff"}', "x.json:1:", "UTF-8"),
    ],
)
def test_bad_exports_are_one_located_error(text: str | bytes, where: str, words: str) -> None:
    with pytest.raises(UsageInputError) as caught:
        _read(text)
    message = str(caught.value)
    assert message.startswith(where), message
    assert words in message, message
    assert "\n" not in message


def test_a_line_and_column_are_those_of_the_series(monkeypatch: pytest.MonkeyPatch) -> None:
    # The third series (line 4 of this text) holds the bad sample; the window is forced small so the text before it
    # has been dropped by then (the line count must survive the drop).
    monkeypatch.setattr(exports, "CHUNK", 16)
    good = json.dumps({"metric": {"node": "a"}, "values": [[DAY, "1"]]})
    bad = json.dumps({"metric": {"node": "b"}, "values": [[DAY, "x"]]})
    text = '{"status":"success","data":{"resultType":"matrix","result":[\n' + f"{good},\n{good},\n  {bad}\n]}}}}"
    with pytest.raises(UsageInputError, match=r"^x\.json:4:3: a sample's value is not a number"):
        _read(text)


def test_chunk_boundaries_do_not_change_what_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    series = [
        {"metric": {"node": f"n{k}"}, "values": [[(D + 1) * DAY + 300 * j, str(j * k % 17)] for j in range(300)]}
        for k in range(20)
    ]
    text = _matrix(series, warnings=["w"])
    whole = _read(text)
    for chunk in (1, 7, 64, 1000):
        monkeypatch.setattr(exports, "CHUNK", chunk)
        assert _read(text).days == whole.days
    # worked out: the sample j is at (D+1)*86400 + 300j: j = 0 is midnight, booked on day D; j = 1..288 on D+1 (288 is
    # the next midnight); j = 289..299 on D+2. Node n1's values are j mod 17: 0 on D; up to 16 on D+1; on D+2,
    # 289 = 17 x 17, so 0..10.
    assert whole.days["running_pods"][("n1", "")] == {D: 0.0, D + 1: 16.0, D + 2: 10.0}
    assert whole.days["running_pods"][("n0", "")][D + 1] == 0.0
    assert whole.days["running_pods"][("n3", "")][D + 1] == 16.0  # 3j mod 17 reaches 16 at j = 11


def test_the_size_bound_holds() -> None:
    text = _matrix([{"metric": {"node": "a"}, "values": [[DAY, "1"]] * 1000}])
    with pytest.raises(ExportError, match="byte limit"):
        read_export(io.BytesIO(text.encode()).read, 100, lambda *a: None)


def test_a_file_names_its_query() -> None:
    assert query_of("dir/reserved_memory.json", QUERIES).name == "reserved_memory"
    assert query_of("reserved_memory.cluster-a.2025-11.json", QUERIES).name == "reserved_memory"
    with pytest.raises(UsageInputError, match=r"^memory\.json: the file name names no query"):
        query_of("memory.json", QUERIES)
