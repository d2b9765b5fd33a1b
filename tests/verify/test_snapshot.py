"""Reading node and pod dumps item by item: JSON and YAML, Lists and single objects, located errors."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from conftest import scaled
from renderer.verify.snapshot import MAX_DEPTH, SnapshotError, read_items

KEEP = {"kind": True, "metadata": {"name": True}, "status": {"capacity": True}}


def _node(i: int) -> dict[str, object]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"n{i}", "managedFields": [{"manager": "kubelet", "n": k} for k in range(3)]},
        "status": {
            "capacity": {"cpu": "4", "memory": "16Gi"},
            "images": [{"names": [f"registry.example/img{j}:v1"], "sizeBytes": 123} for j in range(20)],
        },
    }


def _list(n: int) -> dict[str, object]:
    return {"apiVersion": "v1", "items": [_node(i) for i in range(n)], "kind": "List", "metadata": {}}


@pytest.mark.parametrize("dump", ["json", "yaml"])
def test_list_items_are_pruned_and_located(dump: str) -> None:
    text = json.dumps(_list(3), indent=4) if dump == "json" else yaml.safe_dump(_list(3), sort_keys=True)
    items = list(read_items(text, "nodes", KEEP))
    assert [i.data for i in items] == [
        {"kind": "Node", "metadata": {"name": f"n{i}"}, "status": {"capacity": {"cpu": "4", "memory": "16Gi"}}}
        for i in range(3)
    ]
    lines = text.split("\n")
    for item in items:
        # the item starts where its text starts
        assert lines[item.line - 1][item.column - 1] in "{a-"
    assert [i.index for i in items] == [0, 1, 2]


@pytest.mark.parametrize("dump", ["json", "yaml"])
def test_single_object(dump: str) -> None:
    text = json.dumps(_node(7)) if dump == "json" else yaml.safe_dump(_node(7))
    (item,) = read_items(text, "node", KEEP)
    assert item.data["metadata"] == {"name": "n7"}
    assert (item.line, item.column) == (1, 1)


@pytest.mark.parametrize(
    ("text", "where", "message"),
    [
        ('{"items": [\n  {"kind": "Node"},\n  3\n]}', "d:3:3", "List item 2 is not an object"),
        ('{"items": [\n  {"kind": "Node",}\n]}', "d:2:19", "invalid JSON"),
        ("items:\n- kind: Node\n  metadata: {name: a\n", "d:4:1", "invalid YAML"),
        ("items:\n- kind: Node\n- 3\n", "d:3:3", "List item 2 is not an object"),
        ("[1, 2]", "d:1:1", "got a JSON array"),
        ("   \n", "d:1:1", "the dump is empty"),
        ("items:\n- *a\n", "d:2:3", "refers to no anchor"),
    ],
)
def test_errors_are_located(text: str, where: str, message: str) -> None:
    with pytest.raises(SnapshotError) as err:
        list(read_items(text, "d", KEEP))
    assert str(err.value).startswith(where + ":"), str(err.value)
    assert message in str(err.value)


def test_anchors_and_aliases_are_followed() -> None:
    text = "items:\n- &n {kind: Node, metadata: {name: a, uid: x}}\n- *n\n"
    assert [i.data for i in read_items(text, "d", KEEP)] == [{"kind": "Node", "metadata": {"name": "a"}}] * 2


def test_deep_nesting_is_refused_not_a_crash() -> None:
    deep = "[" * (MAX_DEPTH * 50) + "]" * (MAX_DEPTH * 50)
    for text in ('{"items": [{"metadata": ' + deep + "}]}", "items:\n- metadata: " + deep + "\n"):
        with pytest.raises(SnapshotError, match=r"nested|invalid"):
            list(read_items(text, "d", {"metadata": True}))


@pytest.mark.slow
@pytest.mark.parametrize("dump", ["json", "yaml"])
def test_a_big_dump_is_read_in_linear_time(dump: str) -> None:
    # Deliberately big (about 2,000 nodes with their image lists, in the deep profile): a quadratic step would take
    # minutes.
    n = scaled(2000, 500)
    data = _list(n)
    text = json.dumps(data) if dump == "json" else yaml.dump(data, Dumper=yaml.CSafeDumper)
    start = time.perf_counter()
    count = sum(1 for _ in read_items(text, "d", KEEP))
    assert count == n
    assert time.perf_counter() - start < 60
