"""The event reader: values equal to PyYAML's, List items one at a time and pruned, spans that lead back to text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from renderer.findings import Finding, SourceRef
from renderer.loading.documents import parse_text
from renderer.loading.events import NeedsFullConstructor, iter_list_items
from renderer.loading.jsonscan import NeedsYamlPath, iter_json_list_items
from renderer.loading.positions import PositionResolver
from renderer.loading.prune import NODE_FIELDS

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
        "labels": {"kubernetes.io/hostname": "n1", "karpenter.sh/nodepool": "general"},
        "managedFields": [{"manager": "kubelet", "fieldsV1": {"f:status": {"f:images": {}}}}],
        "name": "n1",
        "uid": "6c86689f-f259-4417-8643-a45166fd970c",
    },
    "spec": {"providerID": "aws:///us-east-1a/i-0a7c3e9f1b2d45e61"},
    "status": {
        "addresses": [{"address": "10.0.1.23", "type": "InternalIP"}],
        "allocatable": {"cpu": "7790m", "memory": "31267292Ki", "pods": "58"},
        "capacity": {"cpu": "8", "memory": "32386524Ki", "pods": "58"},
        "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady"}],
        "images": [{"names": ["registry.k8s.io/pause:3.9"], "sizeBytes": 321520}],
        "nodeInfo": {"kubeletVersion": "v1.31.7-eks-473151a"},
        "volumesInUse": ["kubernetes.io/csi/ebs.csi.aws.com^vol-0a1"],
    },
}
KEPT = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {k: NODE["metadata"][k] for k in ("annotations", "labels", "name")},  # type: ignore[index]
    "spec": {"providerID": NODE["spec"]["providerID"]},  # type: ignore[index]  # platform detection
    "status": {k: NODE["status"][k] for k in ("allocatable", "capacity", "nodeInfo")},  # type: ignore[index]
}


def _node(name: str) -> dict[str, object]:
    node = json.loads(json.dumps(NODE))
    node["metadata"]["name"] = name
    node["metadata"]["labels"]["kubernetes.io/hostname"] = name
    return node


def _kept(name: str) -> dict[str, object]:
    kept = json.loads(json.dumps(KEPT))
    kept["metadata"]["name"] = name
    kept["metadata"]["labels"]["kubernetes.io/hostname"] = name
    return kept


def _dump(nodes: list[dict[str, object]], as_json: bool) -> str:
    doc = {"apiVersion": "v1", "items": nodes, "kind": "List", "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4) if as_json else yaml.safe_dump(doc, sort_keys=True)


@pytest.mark.parametrize("as_json", [False, True])
def test_list_items_come_one_at_a_time_pruned_to_what_the_model_needs(as_json: bool) -> None:
    text = _dump([_node("n1"), _node("n2"), {"apiVersion": "v1", "kind": "Pod", "spec": {"x": [1]}}], as_json)
    reader = iter_json_list_items if as_json else iter_list_items
    items = reader(text, prune={("v1", "Node"): NODE_FIELDS})
    first = next(items)  # a generator: the first item is there before the rest is read
    assert first.index == 0 and first.data == _kept("n1")
    rest = list(items)
    assert [i.data for i in rest] == [_kept("n2"), {"apiVersion": "v1", "kind": "Pod", "spec": {"x": [1]}}]
    # Each span is the item's own text: parsing it alone gives the whole item back.
    for item, original in zip([first, *rest], [_node("n1"), _node("n2")], strict=False):
        chunk = " " * (item.span.column - 1) + text[item.span.start : item.span.end]
        assert yaml.safe_load(chunk) == original
        assert text.splitlines()[item.span.line - 1][item.span.column - 1] == text[item.span.start]


def test_kind_after_the_other_fields_keeps_the_item_whole() -> None:
    """Pruning needs apiVersion and kind first (kubectl sorts keys); otherwise nothing is dropped."""
    text = "items:\n- status: {images: [a]}\n  apiVersion: v1\n  kind: Node\n"
    (item,) = iter_list_items(text, prune={("v1", "Node"): NODE_FIELDS})
    assert item.data == {"status": {"images": ["a"]}, "apiVersion": "v1", "kind": "Node"}


def test_json_items_are_pruned_as_the_yaml_reader_prunes_them_whatever_the_order() -> None:
    """Fields before apiVersion and kind are kept whole, those after pruned: in JSON too, though it is pruned after
    decoding."""
    item = {"status": {"images": ["a"]}, "apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "uid": "u"}}
    for as_json in (False, True):
        text = json.dumps({"items": [item]}) if as_json else yaml.safe_dump({"items": [item]}, sort_keys=False)
        reader = iter_json_list_items if as_json else iter_list_items
        (got,) = reader(text, prune={("v1", "Node"): NODE_FIELDS})
        assert got.data == {**item, "metadata": {"name": "n"}}, as_json


def test_anchors_need_the_full_constructor() -> None:
    with pytest.raises(NeedsFullConstructor):
        list(iter_list_items("items:\n- &a {kind: Node}\n- *a\n"))


documents = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**40), max_value=2**40)
    | st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=examples(300), deadline=None, derandomize=True)
@given(st.lists(documents, min_size=1, max_size=3), st.booleans())
def test_values_equal_pyyaml(docs: list[object], flow: bool) -> None:
    text = yaml.safe_dump_all(docs, default_flow_style=flow, allow_unicode=True)
    got, problems = parse_text(text, "x.yaml")
    assert problems == []
    assert [d.data for d in got] == list(yaml.safe_load_all(text))


def test_a_finding_on_one_item_is_located_from_that_item_alone(tmp_path: Path) -> None:
    nodes = [_node(f"n{i}") for i in range(50)]
    nodes[37]["status"]["capacity"]["cpu"] = "lots"  # type: ignore[index]
    text = _dump(nodes, as_json=False)
    path = tmp_path / "nodes.yaml"
    path.write_text(text)
    (doc,), problems = parse_text(text, "nodes.yaml")
    assert problems == [] and doc.item_spans is not None and len(doc.item_spans) == 50
    span = doc.item_spans[37]
    source = SourceRef("nodes.yaml", 0, 37, span.line, span.column, (span.start, span.end))
    finding = Finding("AL004", "error", "x", "nodes.yaml", source=source, field_path=("status", "capacity", "cpu"))
    PositionResolver({"nodes.yaml": path}).resolve([finding])
    line = text.splitlines()[finding.line - 1]
    assert line.strip() == "cpu: lots" and finding.column == line.index("lots") + 1
    assert finding.line > span.line


JSON_CASES = [
    '{"a": 1, "b": [1.5, "x", null, true], "c": {"d": -0}}',
    '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}}]}',
    '{"n": 1e5, "m": 1.5e3, "o": 1.5e+3}',  # YAML 1.1 reads the first two as strings
    '{"a": 1, "a": 2}',  # duplicate key: the YAML reader reports it
    '{"items": [1, 2,]}',  # a syntax error
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
    "",
    '{"items": [{"apiVersion": "v1", "kind": "Node", "status": {"images": [1]}, "metadata": {"name": "x"}}], "x": 1}',
    # Not JSON: the YAML reader decides (the first three are YAML errors, the last YAML reads)
    '{"items": [1,, 2]}',
    "[1] x",
    '{"a": 1} {"b": 2}',
    '{"items": [{"kind": "Node",}], "x": [1,]}',
]


@pytest.mark.parametrize("text", JSON_CASES)
def test_json_reads_as_the_yaml_path_reads_it(text: str) -> None:
    """The JSON path gives what the YAML reader gives, values and problems alike."""
    got = parse_text("\n\n" + text, "x.json")
    want = parse_text("\n\n" + text, "x.yaml")
    assert [(d.data, d.line) for d in got[0]] == [(d.data, d.line) for d in want[0]]
    assert [(f.code, f.line, f.column) for f in got[1]] == [(f.code, f.line, f.column) for f in want[1]]
    assert [d.item_spans for d in got[0]] == [d.item_spans for d in want[0]]


def test_json_items_have_spans_to_their_own_text() -> None:
    text = _dump([_node("n1"), _node("n2")], as_json=True)
    (doc,), problems = parse_text(text, "nodes.json")
    assert problems == [] and doc.data["items"] == [_kept("n1"), _kept("n2")]
    assert doc.item_spans is not None
    for span, name in zip(doc.item_spans, ("n1", "n2"), strict=True):
        assert json.loads(text[span.start : span.end]) == _node(name)
        assert text.splitlines()[span.line - 1][span.column - 1] == "{"


@pytest.mark.parametrize("as_json", [False, True])
def test_the_bound_is_per_item_whatever_comes_after_the_items(as_json: bool) -> None:
    """kubectl sorts keys, so kind and metadata come after items: they are bounded without the items."""
    text = _dump([_node(f"n{i}") for i in range(40)], as_json)
    assert text.index('"kind"' if as_json else "\nkind:") > text.index("items")
    (doc,), problems = parse_text(text, "nodes.json" if as_json else "nodes.yaml", max_document_chars=2_000)
    assert problems == [] and len(doc.data["items"]) == 40
    big = _node("big")
    big["metadata"]["annotations"]["x"] = "y" * 3_000  # type: ignore[index]
    _, problems = parse_text(_dump([_node("a"), big], as_json), "n.yaml", max_document_chars=2_000)
    assert [p.code for p in problems] == ["AL001"] and "larger than 2000" in problems[0].message


def test_not_json_is_located_for_readers_that_want_json() -> None:
    text = '{"apiVersion": "v1", "items": [\n  {"kind": "Node"},\n  {"kind": "Node",}\n]}'
    items = iter_json_list_items(text)
    assert next(items).data == {"kind": "Node"}
    with pytest.raises(NeedsYamlPath) as err:
        next(items)
    assert err.value.syntax is not None
    assert (err.value.syntax.lineno, err.value.syntax.colno) == (3, 19)
    # a value the YAML reader must read is no syntax error
    with pytest.raises(NeedsYamlPath) as err:
        list(iter_json_list_items('{"items": [{"a": 1e5}]}'))
    assert err.value.syntax is None


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "n", "uid": "u"},
    "spec": {
        "containers": [{"name": "a", "image": "i", "env": [{"name": "X"}]}, {"name": "b", "image": "j"}],
        "volumes": [{"name": "cfg", "configMap": {"name": "c", "items": [{"key": "k", "path": "p"}]}}],
    },
}
POD_SPEC = {("v1", "Pod"): {"metadata": {"name": True}, "spec": {"containers": {"name": True}}}}
POD_KEPT = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p"},
    "spec": {"containers": [{"name": "a"}, {"name": "b"}]},
}


@pytest.mark.parametrize("as_json", [False, True])
def test_a_spec_on_a_list_keeps_those_fields_of_each_element(as_json: bool) -> None:
    text = _dump([POD, json.loads(json.dumps(POD))], as_json)
    reader = iter_json_list_items if as_json else iter_list_items
    assert [i.data for i in reader(text, prune=POD_SPEC)] == [POD_KEPT] * 2


@pytest.mark.parametrize("as_json", [False, True])
def test_objects_a_single_object_is_one_item_not_the_items_inside_it(as_json: bool) -> None:
    """kubectl get pod NAME -o json: the Pod itself; its configMap volume's ``items`` are no List."""
    text = json.dumps(POD, indent=2) if as_json else yaml.safe_dump(POD)
    reader = iter_json_list_items if as_json else iter_list_items
    (item,) = reader(text, prune=POD_SPEC, objects=True)
    assert item.whole_document and item.index == 0 and item.data == POD_KEPT
    assert (item.span.line, item.span.column, item.span.start) == (1, 1, 0)
    assert list(reader(text, prune=POD_SPEC)) == []  # without objects, only List items


def test_objects_are_numbered_across_documents() -> None:
    single = yaml.safe_dump(_node("s1"))
    text = "\n".join(
        ["---", _dump([_node("a"), _node("b")], as_json=False), "---", "---", single, "---", _dump([_node("c")], False)]
    )
    items = list(iter_list_items(text, prune={("v1", "Node"): NODE_FIELDS}, objects=True))
    assert [(i.index, i.data["metadata"]["name"], i.whole_document) for i in items] == [
        (0, "a", False),
        (1, "b", False),
        (2, "s1", True),
        (3, "c", False),
    ]
    lines = text.splitlines()
    for item in items:
        assert lines[item.span.line - 1][item.span.column - 1 :].startswith("apiVersion")
        assert yaml.safe_load(" " * (item.span.column - 1) + text[item.span.start : item.span.end])["kind"] == "Node"
