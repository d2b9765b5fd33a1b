"""Every rendered object of every case (and of the example repo) is checked as the cluster or the node would."""

from __future__ import annotations

import json
import re
import urllib.parse
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from render_support import CASES, SCHEMAS, case_dirs, documents, ignition_validate, objects, render_dir

from conftest import POLICIES
from renderer.quantity import Quantity
from renderer.render.engine import all_targets, target_names

DNS1123_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
KINDS = {
    "KubeletConfiguration": "kubelet.config.k8s.io/v1beta1",
    "KubeletConfig": "machineconfiguration.openshift.io/v1",
    "MachineConfig": "machineconfiguration.openshift.io/v1",
    "RuntimeClass": "node.k8s.io/v1",
    "CommitClass": "node.k8s.io/v1alpha1",
    "ConfigMap": "v1",
    "Kustomization": "kustomize.config.k8s.io/v1beta1",
    "Component": "kustomize.config.k8s.io/v1alpha1",
    "EC2NodeClass": "karpenter.k8s.aws/v1",
    "KubeadmConfigTemplate": "bootstrap.cluster.x-k8s.io/v1beta2",
    "MachineDeployment": "cluster.x-k8s.io/v1beta2",
    "NodeConfig": "node.eks.aws/v1alpha1",
    # the monitoring target (allocatable serve in the cluster)
    "ServiceAccount": "v1",
    "ClusterRole": "rbac.authorization.k8s.io/v1",
    "ClusterRoleBinding": "rbac.authorization.k8s.io/v1",
    "Deployment": "apps/v1",
    "Service": "v1",
    "ServiceMonitor": "monitoring.coreos.com/v1",
    "PrometheusRule": "monitoring.coreos.com/v1",
}
# Files that are not Kubernetes objects: the OpenAPI hint the cluster-api Component gives kustomize.
NOT_OBJECTS = ("cluster-api/kubeletextraargs-openapi.yaml",)
# Files for the platforms' own APIs, not Kubernetes objects: tests/render/test_render_platform_apis.py checks each
# against the definition it targets.
PLATFORM_API_FILES = ("gke/", "aks/", "bottlerocket/", "talos/", "cluster-autoscaler/")
ALL_TARGETS = sorted(all_targets())


def _all_renders() -> list[tuple[str, dict[str, bytes]]]:
    out = []
    for case in case_dirs():
        out.append((case.name, render_dir(case, ALL_TARGETS).files))
    return out


def _example_render() -> dict[str, bytes]:
    return render_dir(POLICIES, ALL_TARGETS).files


RENDERS = [*_all_renders(), ("example", _example_render())]
OBJECTS = [
    (name, path, obj)
    for name, files in RENDERS
    for path, obj in objects({p: d for p, d in files.items() if not p.startswith(PLATFORM_API_FILES)})
    if path not in NOT_OBJECTS
]


def _id(value: Any) -> str:
    return value if isinstance(value, str) else ""


@pytest.mark.parametrize(("case", "path", "obj"), OBJECTS, ids=[f"{c}:{p}:{i}" for i, (c, p, _) in enumerate(OBJECTS)])
def test_api_version_kind_and_name(case: str, path: str, obj: dict[str, Any]) -> None:
    kind = obj.get("kind")
    assert kind in KINDS, f"{case}/{path}: unexpected kind {kind!r}"
    assert obj.get("apiVersion") == KINDS[kind]
    if kind in ("KubeletConfiguration", "Kustomization", "Component", "NodeConfig"):
        assert "metadata" not in obj
        return
    name = obj["metadata"]["name"]
    assert len(name) <= 253 and DNS1123_SUBDOMAIN.fullmatch(name), f"{case}/{path}: invalid name {name!r}"
    if kind == "RuntimeClass":
        assert len(name) <= 63 and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", obj["handler"])
    if kind == "MachineConfig":
        role = obj["metadata"]["labels"]["machineconfiguration.openshift.io/role"]
        assert name == f"99-{role}-allocatable-node-sizing"
        assert path == f"openshift/{role}/machineconfig.yaml"
    if kind == "ConfigMap":
        assert obj["metadata"].get("namespace")


def _quantities(obj: dict[str, Any]) -> list[str]:
    return list(obj.get("overhead", {}).get("podFixed", {}).values())


@pytest.mark.parametrize(("case", "path", "obj"), [o for o in OBJECTS if o[2].get("kind") == "RuntimeClass"], ids=_id)
def test_runtimeclass_overhead_is_canonical(case: str, path: str, obj: dict[str, Any]) -> None:
    for text in _quantities(obj):
        assert isinstance(text, str)
        assert str(Quantity.parse(text)) == text, f"{text!r} is not in canonical form"


def test_runtimeclass_normalisation_is_visible_in_the_mixed_case() -> None:
    files = render_dir(CASES / "mixed").files
    (kata,) = documents(files["manifests/runtimeclasses.yaml"])
    assert kata["overhead"]["podFixed"] == {"cpu": "250m", "memory": "1Gi", "ephemeral-storage": "1e3"}
    assert "annotations" in kata["metadata"]
    assert all(not k.startswith("allocatable.dev/") for k in kata["metadata"]["annotations"])


@pytest.mark.parametrize(
    ("case", "path", "obj"), [o for o in OBJECTS if o[2].get("kind") == "KubeletConfiguration"], ids=_id
)
def test_kubelet_configuration_matches_project_schema(case: str, path: str, obj: dict[str, Any]) -> None:
    schema = json.loads((SCHEMAS / "kubeletconfiguration.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(obj)
    for section in ("systemReserved", "kubeReserved"):
        for text in obj.get(section, {}).values():
            assert str(Quantity.parse(text)) == text


@pytest.mark.parametrize(("case", "path", "obj"), [o for o in OBJECTS if o[2].get("kind") == "KubeletConfig"], ids=_id)
def test_kubeletconfig_follows_operator_rules(case: str, path: str, obj: dict[str, Any]) -> None:
    spec = obj["spec"]
    mcp = path.split("/")[1]
    assert spec["machineConfigPoolSelector"] == {
        "matchLabels": {f"pools.operator.machineconfiguration.openshift.io/{mcp}": ""}
    }
    kc = spec.get("kubeletConfig", {})
    for owned in (
        "cgroupDriver",
        "clusterDNS",
        "clusterDomain",
        "featureGates",
        "failSwapOn",
        "memorySwap",
        "staticPodPath",
    ):
        assert owned not in kc
    assert not (spec.get("autoSizingReserved") and kc.get("systemReserved")), "never both"
    schema = json.loads((SCHEMAS / "kubeletconfiguration.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(
        {"apiVersion": "kubelet.config.k8s.io/v1beta1", "kind": "KubeletConfiguration", **kc}
    )


MACHINE_CONFIGS = [o for o in OBJECTS if o[2].get("kind") == "MachineConfig"]


def test_there_are_machineconfigs_to_check() -> None:
    assert len(MACHINE_CONFIGS) >= 2


@pytest.mark.external
@pytest.mark.parametrize(("case", "path", "obj"), MACHINE_CONFIGS, ids=_id)
def test_machineconfig_ignition_is_valid(case: str, path: str, obj: dict[str, Any], tmp_path: Path) -> None:
    config = obj["spec"]["config"]
    (entry,) = config["storage"]["files"]
    assert entry["path"] == "/etc/node-sizing-enabled.env"
    assert entry["mode"] == 420 and entry["overwrite"] is True
    assert entry["contents"]["source"].startswith("data:,")
    text = urllib.parse.unquote(entry["contents"]["source"][len("data:,") :])
    lines = text.splitlines()
    assert [line.split("=")[0] for line in lines] == [
        "NODE_SIZING_ENABLED",
        "SYSTEM_RESERVED_MEMORY",
        "SYSTEM_RESERVED_CPU",
        "SYSTEM_RESERVED_ES",
    ]
    assert text.endswith("\n")
    ignition_validate(config, tmp_path)


def test_ignition_version_comes_from_settings() -> None:
    files = render_dir(CASES / "openshift").files
    (mc,) = documents(files["openshift/gpu/machineconfig.yaml"])
    assert mc["spec"]["config"]["ignition"]["version"] == "3.4.0"


@pytest.mark.parametrize(("case", "files"), RENDERS, ids=[r[0] for r in RENDERS])
def test_kustomization_lists_exactly_the_cluster_manifests(case: str, files: dict[str, bytes]) -> None:
    (kustomization,) = documents(files["kustomization.yaml"])
    # Node bootstrap files and kustomize patch material are not cluster objects (see docs/render.md).
    cluster = sorted(
        p
        for p in files
        if not p.endswith("kustomization.yaml")
        and not p.startswith(("kubelet/", "nodeadm/", "cluster-api/", *PLATFORM_API_FILES))
    )
    assert kustomization["resources"] == cluster


@pytest.mark.parametrize(("case", "files"), RENDERS, ids=[r[0] for r in RENDERS])
def test_every_file_has_the_generated_header(case: str, files: dict[str, bytes]) -> None:
    for path, data in files.items():
        if path.endswith(".json"):
            assert json.loads(data), path  # JSON has no comments: the manifest records the file as generated
            continue
        first = data.decode().splitlines()[0]
        assert first.startswith("# generated by allocatable 0.1.0, do not edit"), path
        assert "/work/" not in data.decode() and "\\" not in data.decode().split("---")[0], "no machine paths"


def test_target_names_come_from_module_names() -> None:
    assert target_names() == sorted(all_targets())
    assert {name for name, cls in all_targets().items() if not cls.default} == {"commitclasses", "monitoring"}
