"""Koordinator delivery: ratios, which classes are delivered, label-selector translation."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from render_support import documents, render_dir

from renderer.capacity.koordinator import ratio
from renderer.models.schema.common import NodeSelectorTerm
from renderer.render.targets.koordinator import label_selector, to_json
from support.factory import Document, commit_class, node_pool, node_selector, settings, write_repo

POOL = node_pool("p", tier=None, labels={"tier": "a", "size": "8"}, count=1)
TIER_A = node_selector("tier", ["a"])


def _class(name: str, percents: dict[str, int], selector: list[dict[str, Any]] = TIER_A) -> Document:
    return commit_class(name, percents=percents, selector=selector)


def _config(repo: Path) -> tuple[dict[str, Any], Any]:
    result = render_dir(repo, ["koordinator"])
    (cm,) = documents(result.files["manifests/koordinator.yaml"])
    return json.loads(cm["data"]["resource-amplification-config"]), result


def test_ratio_has_two_decimals() -> None:
    assert [str(ratio(p)) for p in (100, 150, 333, 1000, 101)] == ["1.00", "1.50", "3.33", "10.00", "1.01"]


def test_json_keeps_decimal_digits() -> None:
    assert to_json({"a": Decimal("1.50"), "b": [1, "x"], "c": {}, "d": []}) == (
        '{\n  "a": 1.50,\n  "b": [\n    1,\n    "x"\n  ],\n  "c": {},\n  "d": []\n}'
    )


def test_configmap_is_partial_and_marked_for_server_side_apply(repo: Path) -> None:
    write_repo(repo, {"p.yaml": POOL, "c.yaml": _class("burst", {"cpu": 200})})
    result = render_dir(repo, ["koordinator"])
    (cm,) = documents(result.files["manifests/koordinator.yaml"])
    assert cm["metadata"]["name"] == "slo-controller-config"
    assert cm["metadata"]["namespace"] == "koordinator-system"
    assert "ServerSideApply=true" in cm["metadata"]["annotations"]["argocd.argoproj.io/sync-options"]
    assert "Prune=false" in cm["metadata"]["annotations"]["argocd.argoproj.io/sync-options"]
    assert list(cm["data"]) == ["resource-amplification-config"]
    assert "labels" not in cm["metadata"], "no label that could conflict with the Helm release's field manager"
    assert json.loads(cm["metadata"]["annotations"]["allocatable.dev/commit-classes"]) == {"p": "burst"}
    config = json.loads(cm["data"]["resource-amplification-config"])
    assert config == {
        "enable": False,
        "nodeConfigs": [
            {
                "name": "burst",
                "nodeSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["a"]}]},
                "enable": True,
                "resourceAmplificationRatio": {"cpu": 2.0, "memory": 1.0},
            }
        ],
    }
    assert '"cpu": 2.00' in cm["data"]["resource-amplification-config"]


@pytest.mark.parametrize(
    ("resources", "delivered", "note"),
    [
        ({"cpu": 90}, False, "cpu 90%"),
        ({"cpu": 200, "memory": 95}, False, "memory 95%"),
        ({"ephemeral-storage": 80, "cpu": 200}, False, "ephemeral-storage 80%"),
        ({"cpu": 100}, False, "nothing to amplify"),
        ({"ephemeral-storage": 200, "cpu": 150}, True, "ephemeral-storage 200% is not"),
        ({"memory": 120}, True, None),
    ],
)
def test_which_classes_are_delivered(repo: Path, resources: dict[str, int], delivered: bool, note: str | None) -> None:
    write_repo(repo, {"p.yaml": POOL, "c.yaml": _class("c", resources)})
    config, result = _config(repo)
    assert bool(config["nodeConfigs"]) is delivered
    header = result.files["manifests/koordinator.yaml"].decode().split("\n---\n")[0]
    if note is not None:
        assert note in header
    assert result.ok


def test_no_commitclasses_means_no_koordinator_file(repo: Path) -> None:
    write_repo(repo, {"p.yaml": POOL})
    assert render_dir(repo, ["koordinator"]).files == {}


def test_selector_translation() -> None:
    term = NodeSelectorTerm.model_validate(
        {
            "matchExpressions": [
                {"key": "a", "operator": "In", "values": ["y", "x", "y"]},
                {"key": "b", "operator": "NotIn", "values": ["z"]},
                {"key": "c", "operator": "Exists"},
                {"key": "d", "operator": "DoesNotExist"},
            ]
        }
    )
    selector, reason = label_selector(term)
    assert reason is None
    assert selector == {
        "matchExpressions": [
            {"key": "a", "operator": "In", "values": ["x", "y"]},
            {"key": "b", "operator": "NotIn", "values": ["z"]},
            {"key": "c", "operator": "Exists"},
            {"key": "d", "operator": "DoesNotExist"},
        ]
    }
    assert label_selector(NodeSelectorTerm.model_validate({})) == (None, None), "an empty term selects no node"


@pytest.mark.parametrize(
    ("selector", "reason"),
    [
        (node_selector("size", ["4"], "Gt"), "operator Gt"),
        ([{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["p"]}]}], "matchFields"),
    ],
)
def test_selectors_without_label_selector_form_are_errors(
    repo: Path, selector: list[dict[str, Any]], reason: str
) -> None:
    write_repo(repo, {"p.yaml": POOL, "c.yaml": _class("c", {"cpu": 200}, selector)})
    config, result = _config(repo)
    assert config["nodeConfigs"] == []
    (finding,) = result.findings
    assert finding.code == "AL802" and finding.severity == "error" and reason in finding.message
    assert finding.field_path == ("spec", "selector", 0)


def test_multi_term_classes_get_one_entry_per_term_in_order(repo: Path) -> None:
    selector = TIER_A + node_selector("zone")
    write_repo(repo, {"p.yaml": POOL, "c.yaml": _class("c", {"cpu": 150}, selector)})
    config, _ = _config(repo)
    assert [e["name"] for e in config["nodeConfigs"]] == ["c/term-1", "c/term-2"]


def test_namespace_comes_from_settings(repo: Path) -> None:
    write_repo(
        repo,
        {
            ".allocatable.yaml": settings(render={"koordinatorNamespace": "koord-system"}),
            "p.yaml": POOL,
            "c.yaml": _class("c", {"cpu": 150}),
        },
    )
    (cm,) = documents(render_dir(repo, ["koordinator"]).files["manifests/koordinator.yaml"])
    assert cm["metadata"]["namespace"] == "koord-system"
