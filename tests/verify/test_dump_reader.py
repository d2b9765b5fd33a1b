"""``verify`` reads its dumps with the policy loader's reader: the same values, the same positions, the same bounds.

Two readers of ``kubectl get nodes`` output once existed side by side (the policy loader's for inventory Node Lists,
and verify's own); these tests fail if they drift apart again: the same dump must give the same Node values and
Pools, and the same malformed item must be reported at the same line and column, by ``allocatable validate`` (the
dump as inventory) and by ``allocatable verify --nodes`` (the dump as a snapshot).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import run_cli
from renderer.loading.documents import DEFAULT_MAX_DOCUMENT_CHARS, parse_text
from renderer.loading.prune import NODE_FIELDS
from renderer.validation.validate import Validator
from renderer.verify.nodes import NODE_KIND, POD_KIND, read_nodes, read_pods
from renderer.verify.pods import POD_KEEP
from renderer.verify.snapshot import SnapshotError, read_items

# The layout of an EKS node as `kubectl get nodes -o json` prints it (fields as in tests/loading/test_stream.py),
# with values two readers could read differently if one lost the loader's rules: an annotation YAML 1.1 reads as a
# base-60 number when it is not quoted (1:30 is 90 there, a string in Kubernetes), labels that look like a date and
# an octal number (quoted, as every YAML emitter writes them).
NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "annotations": {
            "node.alpha.kubernetes.io/ttl": "0",
            "node.koordinator.sh/raw-allocatable": '{"cpu":"7790m","memory":"31267292Ki"}',
            "example.com/maintenance-window": "1:30",
        },
        "creationTimestamp": "2025-05-28T09:12:44Z",
        "labels": {
            "kubernetes.io/hostname": "n1",
            "karpenter.sh/nodepool": "general",
            "example.com/since": "2024-01-31",
            "example.com/mode": "0755",
        },
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
        "nodeInfo": {"kubeletVersion": "v1.31.7-eks-473151a", "osImage": "Amazon Linux 2023"},
    },
}


def node(name: str) -> dict[str, Any]:
    n = copy.deepcopy(NODE)
    n["metadata"]["name"] = n["metadata"]["labels"]["kubernetes.io/hostname"] = name
    return n


def kubectl_yaml(value: Any) -> str:
    """YAML as kubectl prints it (keys sorted), with 1:30 unquoted as an emitter without YAML 1.1's base-60 numbers
    writes it."""
    text = yaml.dump(value, Dumper=yaml.CSafeDumper, sort_keys=True, default_flow_style=False)
    return text.replace("'1:30'", "1:30")


def dump(nodes: list[dict[str, Any]], as_json: bool) -> str:
    doc = {"apiVersion": "v1", "items": nodes, "kind": "List", "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4, sort_keys=True) + "\n" if as_json else kubectl_yaml(doc)


@pytest.mark.parametrize("as_json", [False, True])
def test_verify_and_the_policy_loader_read_a_dump_to_the_same_values(tmp_path: Path, as_json: bool) -> None:
    text = dump([node(f"n{i}") for i in range(5)], as_json)
    if not as_json:
        assert "example.com/maintenance-window: 1:30\n" in text
    name = "nodes.json" if as_json else "nodes.yaml"
    (doc,), problems = parse_text(text, name)
    assert problems == [] and doc.item_spans is not None
    items = list(read_items(text, name, NODE_FIELDS, NODE_KIND))
    assert [i.data for i in items] == doc.data["items"]
    assert items[0].data["metadata"]["annotations"]["example.com/maintenance-window"] == "1:30"
    assert [(i.line, i.column, i.span) for i in items] == [(s.line, s.column, (s.start, s.end)) for s in doc.item_spans]
    # ... and to the same pools (what verify compares): the loader's validator and verify's read_nodes.
    validator = Validator()
    validator.add_document(doc)
    assert validator.findings == []
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    pools = read_nodes(str(path))
    assert [replace(p, source=None) for p in pools] == [replace(p, source=None) for p in validator.policies.pools]
    assert [(p.source.line, p.source.column) for p in pools] == [
        (p.source.line, p.source.column) for p in validator.policies.pools
    ]


def test_a_json_value_the_yaml_reader_must_read_is_read_the_same() -> None:
    """1e3 is a float in JSON and a string in YAML 1.1: both readers fall back to the YAML reading."""
    n = node("n1")
    n["status"]["nodeInfo"]["x"] = 1
    text = dump([n, node("n2")], as_json=True).replace('"x": 1', '"x": 1e3')
    (doc,), _ = parse_text(text, "nodes.json")
    items = list(read_items(text, "nodes.json", NODE_FIELDS, NODE_KIND))
    assert [i.data for i in items] == doc.data["items"]
    assert items[0].data["status"]["nodeInfo"]["x"] == "1e3"


_LOCATION = re.compile(r"^(?:allocatable: error: )?(?P<path>[^\n:]+):(?P<line>\d+):(?P<col>\d+): ", re.M)


def _located(output: str, path: str) -> tuple[int, int]:
    m = _LOCATION.search(output)
    assert m is not None and m.group("path") == path, output
    return int(m.group("line")), int(m.group("col"))


def _third(text: str, old: str, new: str) -> str:
    """``text`` with the third occurrence of ``old`` (in the third of five Nodes) replaced."""
    i = -1
    for _ in range(3):
        i = text.index(old, i + 1)
    return text[:i] + new + text[i + len(old) :]


def _bad_capacity(text: str) -> str:
    if '"32386524Ki"' in text:
        return _third(text, '"32386524Ki"', '"lots"')
    return _third(text, "memory: 32386524Ki", "memory: lots")


def _bad_label(text: str) -> str:
    return _third(text, "example.com/mode", "example.com/mo de")


def _duplicate_name(text: str) -> str:
    return text.replace("n3", "n1")


def _unclosed_flow(text: str) -> str:
    return _third(text, "      example.com/mode: '0755'\n", "      example.com/mode: {a: '0755'\n")


def _tab(text: str) -> str:
    return _third(text, "      example.com/mode: '0755'\n", "\texample.com/mode: '0755'\n")


def _duplicate_key(text: str) -> str:
    return _third(text, "      cpu: '8'\n", "      cpu: '8'\n      cpu: '9'\n")


def _too_deep(text: str) -> str:
    return _third(text, "      osImage:", "      deep: " + "[" * 80 + "]" * 80 + "\n      osImage:")


def _too_large(text: str) -> str:
    big = "x" * (DEFAULT_MAX_DOCUMENT_CHARS + 10)
    return _third(text, "node.alpha.kubernetes.io/ttl: '0'", f"node.alpha.kubernetes.io/ttl: {big}")


@pytest.mark.parametrize(
    ("as_json", "spoil"),
    [
        (False, _bad_capacity),
        (True, _bad_capacity),
        (False, _bad_label),
        (True, _bad_label),
        (False, _duplicate_name),
        (True, _duplicate_name),
        (False, _unclosed_flow),
        (False, _tab),
        (False, _duplicate_key),
        (False, _too_deep),
        (False, _too_large),
    ],
    ids=lambda v: v if isinstance(v, bool) else v.__name__.strip("_"),
)
def test_the_same_malformed_item_is_reported_at_the_same_position(tmp_path: Path, as_json: bool, spoil: Any) -> None:
    name = "nodes.json" if as_json else "nodes.yaml"
    text = dump([node(f"n{i}") for i in range(5)], as_json)
    bad = spoil(text)
    assert bad != text
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / name).write_text(bad, encoding="utf-8")
    empty = tmp_path / "empty"
    empty.mkdir()
    validated = run_cli("validate", "repo", cwd=tmp_path)
    assert validated.exit_code == 2, validated.stdout
    verified = run_cli("verify", "empty", "--nodes", f"repo/{name}", cwd=tmp_path)
    assert verified.exit_code == 2 and verified.stdout == "", verified.stdout
    assert verified.stderr.count("\n") == 1, verified.stderr
    assert _located(verified.stderr, f"repo/{name}") == _located(validated.stdout, f"repo/{name}")


def test_a_json_dump_with_a_syntax_error_is_invalid_json_to_verify(tmp_path: Path) -> None:
    """A .json inventory file may use YAML's leniency (JSON is YAML); a dump is kubectl's JSON, and verify says
    where it is not (here a trailing comma, which YAML would accept)."""
    text = dump([node("n1"), node("n2")], as_json=True)
    i = text.index('"uid"')
    bad = text[:i] + '"x": 1,\n' + text[i:].replace('"6c86689f-f259-4417-8643-a45166fd970c"', '"u",', 1)
    path = tmp_path / "nodes.json"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(SnapshotError) as err:
        read_nodes(str(path))
    line = bad.count("\n", 0, bad.index('"u",') + 4) + 1
    assert str(err.value).startswith(f"{path}:{line + 1}:"), str(err.value)
    assert "invalid JSON: Expecting property name enclosed in double quotes" in str(err.value)


# --- pods ------------------------------------------------------------------------------------------------------------

POD: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {
        "annotations": {"prometheus.io/scrape": "true"},
        "labels": {"app": "web", "pod-template-hash": "5d8f7c9b4"},
        "managedFields": [{"manager": "kube-controller-manager", "fieldsV1": {"f:metadata": {"f:labels": {}}}}],
        "name": "web-5d8f7c9b4-x2x9q",
        "namespace": "shop",
        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8f7c9b4"}],
    },
    "spec": {
        "containers": [
            {
                "env": [{"name": "LOG_LEVEL", "value": "info"}],
                "image": "ghcr.io/example/web:1.4.2",
                "name": "web",
                "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                "resources": {"limits": {"memory": "1Gi"}, "requests": {"cpu": "500m", "memory": "512Mi"}},
                "volumeMounts": [{"mountPath": "/tmp", "name": "tmp"}],
            },
            {"image": "ghcr.io/example/exporter:0.3", "name": "exporter", "resources": {"requests": {"cpu": "50m"}}},
        ],
        "initContainers": [
            {
                "image": "docker.io/istio/proxyv2:1.24.2",
                "name": "istio-proxy",
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                "restartPolicy": "Always",
            }
        ],
        "nodeName": "n1",
        "overhead": {"cpu": "250m", "memory": "120Mi"},
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists"}],
        "volumes": [
            {"name": "cfg", "configMap": {"name": "web", "items": [{"key": "a", "path": "a"}]}},
            {"name": "tmp", "emptyDir": {}},
        ],
    },
    "status": {
        "conditions": [{"status": "True", "type": "Ready"}],
        "containerStatuses": [{"name": "web", "ready": True, "restartCount": 0}],
        "phase": "Running",
        "podIP": "10.1.2.3",
    },
}
POD_KEPT = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "web-5d8f7c9b4-x2x9q", "namespace": "shop"},
    "spec": {
        "containers": [
            {"name": "web", "resources": {"requests": {"cpu": "500m", "memory": "512Mi"}}},
            {"name": "exporter", "resources": {"requests": {"cpu": "50m"}}},
        ],
        "initContainers": [
            {
                "name": "istio-proxy",
                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
                "restartPolicy": "Always",
            }
        ],
        "nodeName": "n1",
        "overhead": {"cpu": "250m", "memory": "120Mi"},
    },
    # what the in-place resize rule reads (renderer.verify.podstatus): condition types, container statuses' names
    "status": {"phase": "Running", "conditions": [{"type": "Ready"}], "containerStatuses": [{"name": "web"}]},
}


def pods_dump(pods: list[dict[str, Any]], as_json: bool) -> str:
    doc = {"apiVersion": "v1", "items": pods, "kind": "List", "metadata": {"resourceVersion": ""}}
    return json.dumps(doc, indent=4, sort_keys=True) + "\n" if as_json else kubectl_yaml(doc)


@pytest.mark.parametrize("as_json", [False, True])
def test_pods_are_pruned_to_what_verify_reads_each_container_too(as_json: bool) -> None:
    text = pods_dump([POD, copy.deepcopy(POD)], as_json)
    assert [i.data for i in read_items(text, "pods", POD_KEEP, POD_KIND)] == [POD_KEPT, POD_KEPT]
    if not as_json:  # the same object twice: an anchor and an alias (the guarded constructor), pruned the same
        anchored = pods_dump([POD, POD], as_json)
        assert "&id001" in anchored
        assert [i.data for i in read_items(anchored, "pods", POD_KEEP, POD_KIND)] == [POD_KEPT, POD_KEPT]
    # A single Pod (kubectl get pod NAME -o json) is one object, not the items of its configMap volume.
    single = json.dumps(POD, indent=4) if as_json else kubectl_yaml(POD)
    (item,) = read_items(single, "pod", POD_KEEP, POD_KIND)
    assert item.data == POD_KEPT and (item.line, item.column) == (1, 1)


@pytest.mark.parametrize("as_json", [False, True])
def test_a_pod_field_that_cannot_be_read_is_located_at_that_field(tmp_path: Path, as_json: bool) -> None:
    bad = copy.deepcopy(POD)
    bad["metadata"]["name"] = "bad"
    bad["spec"]["containers"][1]["resources"]["requests"]["cpu"] = "lots"
    text = pods_dump([POD, bad], as_json)
    path = tmp_path / ("pods.json" if as_json else "pods.yaml")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SnapshotError) as err:
        read_pods(str(path))
    message = str(err.value)
    m = _LOCATION.match(message)
    assert m is not None, message
    line = text.splitlines()[int(m.group("line")) - 1]
    assert line[int(m.group("col")) - 1 :].startswith(('"lots"', "lots")), (line, message)
    assert "Pod shop/bad (item 2): spec.containers[1].resources.requests.cpu: " in message


@pytest.mark.slow
def _repeated(count: int, as_json: bool) -> str:
    """``dump`` of ``count`` nodes named node-00000 …, made from the text ``dump`` writes for one node, its item
    repeated under each name (the emitters' pure-Python paths would take seconds the reader does not)."""
    one = dump([node("NAME")], as_json)
    names = [f"node-{i:05d}" for i in range(count)]
    if as_json:
        head, rest = one.split('"items": [\n', 1)
        item, tail = rest.split("\n    ],\n", 1)
        body = ",\n".join(item.replace("NAME", n) for n in names)
        return head + '"items": [\n' + body + "\n    ],\n" + tail
    head, rest = one.split("items:\n", 1)
    item, tail = rest.split("kind: List\n", 1)
    return head + "items:\n" + "".join(item.replace("NAME", n) for n in names) + "kind: List\n" + tail


def test_a_dump_bigger_than_the_document_bound_is_read_item_by_item(tmp_path: Path) -> None:
    """The bounds apply per item, never per file: 10,000 Nodes (more than the 8 MiB a document may span)."""
    assert _repeated(2, as_json=True) == dump([node("node-00000"), node("node-00001")], as_json=True)
    assert _repeated(2, as_json=False) == dump([node("node-00000"), node("node-00001")], as_json=False)
    for as_json, name in ((True, "nodes.json"), (False, "nodes.yaml")):
        path = tmp_path / name
        path.write_text(_repeated(10_000, as_json), encoding="utf-8")
        assert path.stat().st_size > DEFAULT_MAX_DOCUMENT_CHARS
        pools = read_nodes(str(path))
        assert len(pools) == 10_000 and pools[-1].name == "node-09999"


def test_pod_positions_are_counted_only_for_the_pod_with_a_problem(tmp_path: Path) -> None:
    """Pods have no position in verify's output, so a JSON dump's lines are not counted while it is read; the item
    that is not a Pod is still reported where it starts."""
    text = pods_dump([POD, node("n1"), POD], as_json=True)
    path = tmp_path / "pods.json"
    path.write_text(text, encoding="utf-8")
    items = list(read_items(text, "pods.json", POD_KEEP, POD_KIND, positions=False))
    assert [i.line for i in items] == [0, 0, 0]
    where = next(i for i in read_items(text, "pods.json", POD_KEEP, POD_KIND) if i.index == 1)
    assert text.splitlines()[where.line - 1][where.column - 1] == "{"
    with pytest.raises(SnapshotError) as err:
        read_pods(str(path))
    assert str(err.value).startswith(f"{path}:{where.line}:{where.column}: item 2 is a Node, not a v1 Pod; ")
