"""JSON dumps read in chunks (``renderer.loading.jsonstream`` through ``streaming.stream``): the same objects, lines and
columns as the whole-text reader; a stop on something the whole-text readers decide is read whole again (same values,
same messages) when the dump is small enough, and one located problem when it is not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from renderer.loading.documents import Bounds, Source
from renderer.loading.jsonstream import CHUNK
from renderer.loading.streaming import Reread, StreamProblem, stream
from renderer.verify.pods import POD_KEEP
from renderer.verify.snapshot import read_dump, read_items

KIND = ("v1", "Pod")


def _dump(n: int) -> str:
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "ns", "labels": {"app": "a" * 40}},
            "spec": {
                "nodeName": f"n{i % 7}",
                "containers": [{"name": "c", "image": "x" * 300, "resources": {"requests": {"cpu": "100m"}}}],
            },
            "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}] * 3},
        }
        for i in range(n)
    ]
    return json.dumps({"apiVersion": "v1", "items": pods, "kind": "List", "metadata": {}}, indent=4) + "\n"


@pytest.fixture(scope="module")
def big() -> str:
    text = _dump(3000)
    assert len(text) > 3 * CHUNK  # several windows
    return text


def test_chunks_read_what_the_whole_text_reads(big: str, tmp_path: Path) -> None:
    path = tmp_path / "pods.json"
    path.write_text(big, encoding="utf-8")
    got = stream(Source.file(path), Bounds(), {KIND: POD_KEEP}, max_stream_bytes=1 << 30)
    assert not hasattr(got, "documents")  # streamed, not read whole
    streamed = [(i.data, i.index, i.line, i.column) for i in read_dump(str(path), POD_KEEP, KIND).items]
    whole = [(i.data, i.index, i.line, i.column) for i in read_items(big, "x", POD_KEEP, KIND)]
    assert streamed == whole and len(whole) == 3000


def test_a_stop_in_a_small_dump_is_read_whole_again(big: str, tmp_path: Path) -> None:
    # 1e5: JSON's number, YAML 1.1's string — the whole-text readers decide it: the stream stops there and the dump
    # is read whole.
    text = big.replace('"100m"', "1e5", 1)
    path = tmp_path / "pods.json"
    path.write_text(text, encoding="utf-8")
    items = list(read_dump(str(path), POD_KEEP, KIND).items)
    assert items[0].data["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "1e5"
    assert [i.data for i in items] == [i.data for i in read_items(text, "x", POD_KEEP, KIND)]
    got = stream(Source.file(path), Bounds(), {KIND: POD_KEEP}, max_stream_bytes=1 << 30)
    with pytest.raises(Reread) as again:
        list(got)  # type: ignore[arg-type]
    assert again.value.done == 0


def test_a_truncated_dump_too_large_to_read_whole_is_one_located_problem(big: str, tmp_path: Path) -> None:
    cut = big.index('"p2000"')
    path = tmp_path / "pods.json"
    path.write_text(big[:cut], encoding="utf-8")
    # whole reads bounded below the dump's size: the stream's own words, at the item that does not end
    got = stream(Source.file(path), Bounds(max_file_bytes=CHUNK), {KIND: POD_KEEP}, max_stream_bytes=1 << 30)
    seen = 0
    with pytest.raises(StreamProblem) as failed:
        for _ in got:  # type: ignore[union-attr]
            seen += 1
    assert seen == 2000
    problem = failed.value.problem
    line = big.count("\n", 0, cut) + 1  # where the text ends, inside item 2001: "name": <nothing>
    assert (problem.line, problem.cause) == (line, "json-syntax") and problem.message.startswith("invalid JSON: ")
