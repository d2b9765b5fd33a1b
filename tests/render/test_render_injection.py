"""No policy value can change the structure of a rendered file: read back, every value is exactly what was given.

Values are read back with two parsers: PyYAML (YAML 1.1, like go-yaml in kubectl and Argo CD, where ``on`` and
``y`` are booleans) and ruamel.yaml (YAML 1.2).
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from render_support import render_dir
from ruamel.yaml import YAML

from renderer.render import templating
from renderer.render.yamlout import YamlWriter
from support.factory import write_repo

NASTY = [
    "line one\nline two: x\n---\napiVersion: v1\nkind: Secret",
    "${HOME} {{ 7 * 7 }} {% raw %}",
    "'\"",
    "- item",
    "# not a comment",
    "key: value",
    "---",
    "...",
    "on",
    "y",
    "NO",
    "~",
    "null",
    "0x1F",
    "010",
    "1e3",
    "1_000",
    ".inf",
    "12:30:00",
    "2024-01-01",
    "2024-01-01T10:00:00Z",
    " leading space",
    "trailing space ",
    "tab\there",
    "\u2028line separator",
    "bell\x07",
    "&anchor",
    "*alias",
    "!tag",
    "%directive",
    "@at",
    "`backtick",
    "| literal",
    "> folded",
    "",
    "ünïcödé ✓",
    "=",
    "<<",
]


def _both(text: str) -> tuple[list[Any], list[Any]]:
    v11 = [d for d in yaml.safe_load_all(text) if d is not None]
    v12 = [d for d in YAML(typ="safe", pure=True).load_all(io.StringIO(text)) if d is not None]
    return v11, v12


def test_pure_python_and_c_emitters_write_the_same_bytes() -> None:
    doc = {"a": NASTY, "b": {"c": 1, "d": [True, None, 0.5]}, "e": ["on", "1e3"], "long": "x " * 5000 + "é" * 3000}
    assert YamlWriter(pure=True).dump([doc, doc]) == YamlWriter().dump([doc, doc])


def test_writer_round_trips_every_nasty_string() -> None:
    doc = {
        "metadata": {"annotations": {f"k{i}": s for i, s in enumerate(NASTY)}},
        "values": NASTY,
        **{s or "empty": s for s in NASTY if s},
    }
    text = YamlWriter().dump([doc])
    v11, v12 = _both(text)
    assert v11 == [doc]
    assert v12 == [doc]


def test_writer_round_trips_numbers_booleans_and_nulls() -> None:
    doc = {"a": 1, "b": -5, "c": True, "d": False, "e": None, "f": 0.9, "g": [], "h": {}}
    text = YamlWriter().dump([doc])
    assert _both(text) == ([doc], [doc])


def test_writer_rejects_what_it_cannot_represent() -> None:
    with pytest.raises(TypeError):
        YamlWriter().dump([{"a": object()}])
    with pytest.raises(ValueError):
        YamlWriter().dump([{"a": float("nan")}])
    with pytest.raises(TypeError):
        YamlWriter().dump([{1: "x"}])


def _nasty_repo(root: Path) -> Path:
    annotations = {f"example.com/a{i}": s for i, s in enumerate(NASTY)}
    selector_values = {f"example.com/s{i}": s for i, s in enumerate(NASTY)}
    runtime = {
        "apiVersion": "node.k8s.io/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": "evil", "annotations": annotations},
        "handler": "runc",
        "scheduling": {"nodeSelector": selector_values},
    }
    commit = {
        "apiVersion": "node.k8s.io/v1alpha1",
        "kind": "CommitClass",
        "metadata": {"name": "evil", "annotations": annotations},
        "spec": {
            "selector": [{"matchExpressions": [{"key": "tier", "operator": "In", "values": ["on", "y", "null"]}]}],
            "resources": [{"name": "cpu", "percent": 200}],
        },
    }
    pool = {
        "apiVersion": "policy.allocatable.dev/v1alpha1",
        "kind": "NodePool",
        "metadata": {"name": "p"},
        "spec": {"labels": {"tier": "on"}, "capacity": {"cpu": "4", "memory": "16Gi"}, "count": 1},
    }
    policy = {
        "apiVersion": "policy.allocatable.dev/v1alpha1",
        "kind": "ReservationPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "selector": [{"matchExpressions": [{"key": "tier", "operator": "In", "values": ["on"]}]}],
            "kubelet": {
                "providerID": NASTY[0],
                "podLogsDir": NASTY[1],
                "staticPodURLHeader": {s or "empty": [s] for s in NASTY[:10]},
                "logging": {"format": "json", "options": {"text": {"infoBufferSize": "0"}}, "evil": NASTY},
            },
        },
    }
    files = {
        name: json.dumps(obj)
        for name, obj in (("rc.json", runtime), ("cc.json", commit), ("pool.json", pool), ("policy.json", policy))
    }
    return write_repo(root, files)


def test_nasty_values_survive_every_target_unchanged(repo: Path) -> None:
    _nasty_repo(repo)
    result = render_dir(repo, ["commitclasses", "koordinator", "kubelet", "kustomization", "runtimeclasses"])
    assert result.ok, [f.message for f in result.findings]
    by_kind: dict[str, list[Any]] = {}
    for path, data in result.files.items():
        v11, v12 = _both(data.decode())
        assert v11 == v12, path
        for d in v11:
            by_kind.setdefault(d["kind"], []).append(d)
    assert sorted(by_kind) == ["CommitClass", "ConfigMap", "KubeletConfiguration", "Kustomization", "RuntimeClass"]
    assert all(len(v) == 1 for v in by_kind.values()), "no value may start an extra document"
    (rc,) = by_kind["RuntimeClass"]
    assert rc["metadata"]["annotations"] == {f"example.com/a{i}": s for i, s in enumerate(NASTY)}
    assert rc["scheduling"]["nodeSelector"] == {f"example.com/s{i}": s for i, s in enumerate(NASTY)}
    (cc,) = by_kind["CommitClass"]
    assert cc["metadata"]["annotations"] == rc["metadata"]["annotations"]
    assert cc["spec"]["selector"][0]["matchExpressions"][0]["values"] == ["on", "y", "null"]
    (kubelet,) = by_kind["KubeletConfiguration"]
    assert kubelet["providerID"] == NASTY[0] and kubelet["podLogsDir"] == NASTY[1]
    assert kubelet["logging"]["evil"] == NASTY
    (cm,) = by_kind["ConfigMap"]
    config = json.loads(cm["data"]["resource-amplification-config"])
    assert config["nodeConfigs"][0]["nodeSelector"]["matchExpressions"][0]["values"] == ["null", "on", "y"]


def test_file_names_cannot_break_the_header_comment(repo: Path) -> None:
    write_repo(
        repo,
        {
            "evil\n---\nkind: Secret\n# x.yaml": "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: r}\nhandler: runc\n",
        },
    )
    result = render_dir(repo, ["runtimeclasses"])
    text = result.files["manifests/runtimeclasses.yaml"].decode()
    header = text.split("\n---\n")[0]
    assert all(line.startswith("#") for line in header.splitlines())
    assert [d["kind"] for d in yaml.safe_load_all(text) if d] == ["RuntimeClass"]


def test_template_values_cannot_add_lines() -> None:
    ok = templating.render_text(
        "node-sizing-enabled.env.j2", enabled=True, memory="1Gi", cpu="500m", ephemeral_storage="1Gi"
    )
    assert ok.splitlines() == [
        "NODE_SIZING_ENABLED=true",
        "SYSTEM_RESERVED_MEMORY=1Gi",
        "SYSTEM_RESERVED_CPU=500m",
        "SYSTEM_RESERVED_ES=1Gi",
    ]
    for bad in ("1Gi\nNODE_SIZING_ENABLED=false", "${X}", "{{ 7*7 }}", "1Gi # c", "'1Gi'", "", "1 Gi", "1Gi;reboot"):
        with pytest.raises(templating.TemplateValueError):
            templating.render_text(
                "node-sizing-enabled.env.j2", enabled=True, memory=bad, cpu="500m", ephemeral_storage="1Gi"
            )


def test_template_undefined_values_are_errors() -> None:
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        templating.render_text("node-sizing-enabled.env.j2", enabled=True, memory="1Gi", cpu="500m")


def test_template_environment_is_sandboxed() -> None:
    from jinja2.sandbox import SandboxedEnvironment

    assert isinstance(templating._environment(), SandboxedEnvironment)
