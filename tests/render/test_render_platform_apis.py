"""The targets of the platforms' own APIs, checked against the definitions they target (tests/render/apis/, each
file citing its source): the golden files of tests/render/cases/platform-apis validate against the GKE container v1
discovery schemas and gcloud's key list, the AKS 2026-08-02-preview swagger definitions (with the minimums its
descriptions state), Talos' published JSON schema (v1.13 machine.kubelet, v1.14 KubeletConfig), the AWS Auto Scaling
CreateOrUpdateTags shapes; Bottlerocket's TOML is parsed back with tomllib and checked with Bottlerocket's own
validation rules, restated here from its source. Then what render says for a pool where an API cannot take a value
(AL809, AL812, AL813), and that lint (AL327) and render agree."""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from render_support import GOLDEN, render_dir

from conftest import run_cli
from renderer.quantity import Quantity
from support.factory import node_pool, node_selector, reservation_policy, write_repo

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
APIS = HERE / "apis"
CASE = GOLDEN / "platform-apis"


def _json(name: str) -> Any:
    return json.loads((APIS / name).read_text(encoding="utf-8"))


def _yaml_doc(path: Path) -> Any:
    (doc,) = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    return doc


# --- GKE --------------------------------------------------------------------------------------------------------


def _discovery_to_jsonschema(schema: dict[str, Any]) -> dict[str, Any]:
    """A discovery-document schema as JSON Schema: unknown properties refused, int64 as a decimal string (the JSON
    mapping of int64 in Google's REST APIs), output-only fields refused."""
    if "$ref" in schema:
        return {"$ref": f"#/definitions/{schema['$ref']}"}
    kind = schema.get("type")
    if kind == "object":
        props = {
            name: _discovery_to_jsonschema(p)
            for name, p in schema.get("properties", {}).items()
            if not p.get("readOnly") and not str(p.get("description", "")).startswith("Output only")
        }
        return {"type": "object", "properties": props, "additionalProperties": False}
    if kind == "array":
        return {"type": "array", "items": _discovery_to_jsonschema(schema["items"])}
    if kind == "string" and schema.get("format") in ("int64", "uint64"):
        return {"type": "string", "pattern": r"^-?[0-9]+$"}
    out: dict[str, Any] = {"type": kind}
    if "enum" in schema:
        out["enum"] = schema["enum"]
    return out


def test_gke_rest_file_validates_against_the_discovery_document() -> None:
    discovery = _json("gke-container-v1-discovery-kubelet.json")
    assert discovery["_source"]["revision"] == "20261027"
    definitions = {name: _discovery_to_jsonschema(s) for name, s in discovery["schemas"].items()}
    schema = {"definitions": definitions, "$ref": "#/definitions/NodeKubeletConfig"}
    doc = json.loads((CASE / "gke" / "gke-rest.node-kubelet-config.json").read_text(encoding="utf-8"))
    jsonschema.Draft7Validator(schema).validate(doc)
    # kubeReserved 200m + systemReserved 100m, 3Gi + 512Mi (reservations.yaml, policy gke-rest): one combined value
    assert doc["reservedResourcesConfig"] == {"cpuReservedMillicore": "300", "memoryReservedMib": "3584"}
    assert doc["podPidsLimit"] == "4096"  # int64: a JSON string
    # the validation is not vacuous: the gcloud spelling and an output-only field are refused
    for wrong in ({"cpuCFSQuota": True}, {"reservedResourcesConfig": {"effectiveCpuReservedMillicore": "1"}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.Draft7Validator(schema).validate(wrong)


def _check_gcloud(value: Any, spec: Any, where: str) -> None:
    if isinstance(spec, dict):
        assert isinstance(value, dict), where
        unknown = set(value) - set(spec)
        assert not unknown, f"gcloud 578 refuses unknown fields {sorted(unknown)} in {where}"
        for key, v in value.items():
            _check_gcloud(v, spec[key], f"{where}.{key}")
        return
    types = {"str": str, "int": int, "bool": bool, "list": list}
    assert isinstance(value, types[spec]) and not (spec == "int" and isinstance(value, bool)), (where, value, spec)


def test_gke_gcloud_file_has_only_keys_and_types_gcloud_accepts() -> None:
    accepted = _json("gcloud-578-system-config.json")
    doc = _yaml_doc(CASE / "gke" / "gke-batch.system-config.yaml")
    assert set(doc) <= set(accepted["topLevel"])
    _check_gcloud(doc["kubeletConfig"], accepted["kubeletConfig"], "kubeletConfig")
    assert doc["kubeletConfig"]["cpuCFSQuota"] is True  # upper-case CFS in gcloud's file, cpuCfsQuota in REST
    assert doc["kubeletConfig"]["evictionSoft"] == {"memoryAvailable": "500Mi", "nodefsAvailable": "15%"}
    with pytest.raises(AssertionError):
        _check_gcloud({"reservedResourcesConfig": {}}, accepted["kubeletConfig"], "kubeletConfig")


# --- AKS --------------------------------------------------------------------------------------------------------


def _aks_schema() -> dict[str, Any]:
    definitions = copy.deepcopy(_json("aks-kubeletconfig-2026-08-02-preview.json")["definitions"])
    for d in definitions.values():
        if d.get("type") == "object":
            d["additionalProperties"] = False  # a misspelt property would be dropped by the API, silently
    return {"definitions": definitions, "$ref": "#/definitions/KubeletConfig"}


def _described_minimum(description: str) -> int:
    m = re.search(r"greater than or equal to (\d+)", description)
    assert m, description
    return int(m.group(1))


def test_aks_file_validates_against_the_preview_swagger_and_its_described_minimums() -> None:
    doc = json.loads((CASE / "aks" / "aks-user.kubelet-config.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(_aks_schema()).validate(doc)
    reserved = _json("aks-kubeletconfig-2026-08-02-preview.json")["definitions"]["KubeReserved"]["properties"]
    # the minimums are in the descriptions only (no "minimum" keyword): checked from the text itself
    assert "minimum" not in reserved["cpuMillicores"] and "minimum" not in reserved["memoryMB"]
    assert doc["kubeReserved"]["cpuMillicores"] >= _described_minimum(reserved["cpuMillicores"]["description"]) == 140
    assert doc["kubeReserved"]["memoryMB"] >= _described_minimum(reserved["memoryMB"]["description"]) == 750
    assert "in MiB" in reserved["memoryMB"]["description"]
    assert doc["kubeReserved"] == {"cpuMillicores": 180, "memoryMB": 2048}  # kubeReserved {cpu: 180m, memory: 2Gi}
    assert doc["seccompDefault"] == "RuntimeDefault"  # seccompDefault: true
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(_aks_schema()).validate({"systemReserved": {"cpu": "100m"}})


# --- Talos ------------------------------------------------------------------------------------------------------

# siderolabs/talos@e65aa052969feee26f689247a3a7e198214eb15d pkg/machinery/kubelet/kubelet.go
# ProtectedConfigurationFields
TALOS_PROTECTED = {
    "apiVersion",
    "authentication",
    "authorization",
    "cgroupRoot",
    "kind",
    "kubeletCgroups",
    "port",
    "protectKernelDefaults",
    "resolvConf",
    "rotateCertificates",
    "systemCgroups",
    "staticPodPath",
    "seccompDefault",
}


def test_talos_v1alpha1_patch_validates_against_the_v1_13_schema() -> None:
    talos = _json("talos-kubelet-schema.json")["v1.13"]
    schema = {"$defs": talos["$defs"], **talos["MachineConfig.properties.kubelet"]}
    doc = _yaml_doc(CASE / "talos" / "talos-w.patch.yaml")
    assert set(doc) == {"machine"} and set(doc["machine"]) == {"kubelet"}
    jsonschema.Draft202012Validator(schema).validate(doc["machine"]["kubelet"])
    extra = doc["machine"]["kubelet"]["extraConfig"]
    assert not TALOS_PROTECTED & set(extra)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate({"extraConfig": [], "unknown": 1})


def test_talos_kubeletconfig_document_validates_against_the_v1_14_schema() -> None:
    talos = _json("talos-kubelet-schema.json")["v1.14"]
    schema = {"$defs": talos["$defs"], "$ref": "#/$defs/k8s.KubeletConfigV1Alpha1"}
    doc = _yaml_doc(CASE / "talos" / "talos-cp.patch.yaml")
    jsonschema.Draft202012Validator(schema).validate(doc)
    assert not TALOS_PROTECTED & set(doc["config"])
    without_image = {k: v for k, v in doc.items() if k != "image"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema).validate(without_image)


# --- Bottlerocket -----------------------------------------------------------------------------------------------

# Restated from bottlerocket-os/bottlerocket-settings-sdk (settings-extensions/kubernetes/src/lib.rs @2363566c, the
# kebab-case keys of KubernetesSettingsV1 this project renders; modeled-types/src/kubernetes.rs @25e4241f, the
# validation), independently of renderer/capacity/deliveries/bottlerocket_settings.py.
BR_KEYS = {
    "max-pods": int,
    "pod-pids-limit": int,
    "eviction-max-pod-grace-period": int,
    "cpu-manager-policy": str,
    "topology-manager-policy": str,
    "topology-manager-scope": str,
    "reserved-cpus": str,
    "image-gc-high-threshold-percent": int,
    "image-gc-low-threshold-percent": int,
    "container-log-max-size": str,
    "container-log-max-files": int,
    "cpu-cfs-quota-enforced": bool,
    "kube-reserved": dict,
    "system-reserved": dict,
    "eviction-hard": dict,
    "eviction-soft": dict,
    "eviction-soft-grace-period": dict,
}
BR_SIGNALS = {
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "pid.available",
}
BR_QUANTITY = [
    re.compile(r"^[0-9]+$"),
    re.compile(r"^[0-9]+e[0-9]+$"),
    re.compile(r"^[+-]?[0-9.]+([EPTGMK]i?)?$"),
    re.compile(r"^[+-]?[0-9.]+[numk]$"),
]


def _br_quantity(text: str) -> bool:
    return any(p.match(text) for p in BR_QUANTITY)


def _br_threshold(text: str) -> bool:
    if text.endswith("%"):
        return 0 <= float(text[:-1]) < 100
    return _br_quantity(text)


def test_bottlerocket_toml_parses_back_and_passes_bottlerocket_validation() -> None:
    text = (CASE / "bottlerocket" / "br.settings.toml").read_text(encoding="utf-8")
    data = tomllib.loads(text)
    assert set(data) == {"settings"} and set(data["settings"]) == {"kubernetes"}
    k8s = data["settings"]["kubernetes"]
    for key, value in k8s.items():
        assert isinstance(value, BR_KEYS[key]), (key, value)
    for key in ("kube-reserved", "system-reserved"):
        for resource, q in k8s.get(key, {}).items():
            assert resource in {"cpu", "memory", "ephemeral-storage", "pid"} and _br_quantity(q), (key, resource, q)
    for signal, threshold in k8s.get("eviction-hard", {}).items():
        assert signal in BR_SIGNALS and _br_threshold(threshold), (signal, threshold)
    # the bottlerocket.dev example values (docs/settings 1.50.x): the policy writes them, the file carries them
    assert k8s["eviction-hard"] == {"memory.available": "15%", "nodefs.available": "10%"}
    assert k8s["system-reserved"] == {"cpu": "10m", "memory": "100Mi", "ephemeral-storage": "1Gi"}
    assert k8s["max-pods"] == 58
    assert '"memory.available" = "15%"' in text  # a dotted key is quoted, not a nested table
    assert not _br_quantity("12ki") and not _br_quantity("1000i") and not _br_threshold("100%")


def test_bottlerocket_strings_survive_the_round_trip(tmp_path: Path) -> None:
    # a value that TOML must escape comes back byte for byte; no value adds a key or a table
    sysctl = 'net.core."x"\\[settings.host-containers]'
    write_repo(
        tmp_path / "p",
        {
            "pool.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: NodePool\nmetadata: {name: br}\nspec:\n"
            '  labels: {pool: br}\n  capacity: {cpu: "2", memory: 8Gi}\n  count: 1\n  platform: eks\n'
            "  delivery: {bottlerocket: true}\n",
            "rp.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: ReservationPolicy\nmetadata: {name: br}\n"
            "spec:\n  selector:\n  - matchExpressions: [{key: pool, operator: Exists}]\n"
            "  kubeReserved: {cpu: 80m, memory: 1Gi, ephemeral-storage: 1Gi}\n"
            f"  kubelet:\n    allowedUnsafeSysctls: ['{sysctl}']\n",
        },
    )
    result = render_dir(tmp_path / "p", ["bottlerocket-settings"])
    assert result.ok, [f.message for f in result.findings]
    data = tomllib.loads(result.files["bottlerocket/br.settings.toml"].decode("utf-8"))
    assert data["settings"]["kubernetes"]["allowed-unsafe-sysctls"] == [sysctl]
    assert set(data) == {"settings"} and set(data["settings"]) == {"kubernetes"}


# --- Cluster Autoscaler -----------------------------------------------------------------------------------------


def _check_shape(value: Any, name: str, shapes: dict[str, Any], where: str) -> None:
    """A value against a botocore shape (structure, list, string, boolean) with its required/min/max/pattern."""
    shape = shapes[name]
    kind = shape["type"]
    if kind == "structure":
        assert isinstance(value, dict), where
        assert set(value) <= set(shape["members"]), (where, set(value) - set(shape["members"]))
        for req in shape.get("required", []):
            assert req in value, (where, req)
        for key, v in value.items():
            _check_shape(v, shape["members"][key]["shape"], shapes, f"{where}.{key}")
    elif kind == "list":
        assert isinstance(value, list), where
        for i, v in enumerate(value):
            _check_shape(v, shape["member"]["shape"], shapes, f"{where}[{i}]")
    elif kind == "string":
        assert isinstance(value, str), where
        assert shape.get("min", 0) <= len(value) <= shape.get("max", 1 << 30), (where, value)
        # botocore writes supplementary characters as a UTF-16 surrogate-pair range (Java regex style)
        pattern = shape.get("pattern", ".*").replace("\\uD800\\uDC00-\\uDBFF\\uDFFF", "\\U00010000-\\U0010FFFF")
        assert re.fullmatch(pattern, value, re.S), (where, value)
    elif kind == "boolean":
        assert isinstance(value, bool), where
    else:  # pragma: no cover - no other shape in CreateOrUpdateTags
        raise AssertionError(kind)


def test_cluster_autoscaler_tags_are_a_valid_create_or_update_tags_request_with_the_pools_allocatable() -> None:
    model = _json("autoscaling-2011-01-01-createorupdatetags.json")
    doc = _yaml_doc(CASE / "cluster-autoscaler" / "kops-nodes.tags.yaml")
    _check_shape(doc, model["operations"]["CreateOrUpdateTags"]["input"]["shape"], model["shapes"], "request")
    groups = ["nodes-us-east-1a.example.k8s.local", "nodes-us-east-1b.example.k8s.local"]
    prefix = "k8s.io/cluster-autoscaler/node-template/resources/"  # aws_manager.go, kubernetes/autoscaler@55c37cd5
    for group in groups:
        tags = {t["Key"].removeprefix(prefix): t["Value"] for t in doc["Tags"] if t["ResourceId"] == group}
        assert {t["ResourceType"] for t in doc["Tags"]} == {"auto-scaling-group"}
        # worked by hand (reservations.yaml, policy kops): 4 - 100m - 100m; 15Gi - 1Gi - 512Mi - 500Mi;
        # 100Gi - 1Gi - 10Gi (nodefs.available); pods: the kubelet's 110, not Cluster Autoscaler's hard-coded 110 by luck
        expected = {"cpu": "3800m", "memory": "13324Mi", "ephemeral-storage": "89Gi", "pods": "110"}
        assert set(tags) == set(expected), tags
        for resource, value in expected.items():
            assert Quantity.parse(tags[resource]) == Quantity.parse(value), (resource, tags[resource])
    with pytest.raises(AssertionError):
        _check_shape({"Tags": [{"Key": "k" * 129}]}, "CreateOrUpdateTagsType", model["shapes"], "request")


# --- what render says where an API cannot take a value ------------------------------------------------------------


def _repo(tmp_path: Path, platform: str, pool: dict[str, Any], policy: dict[str, Any]) -> Path:
    """A GKE-sized pool on ``platform`` (with the ``pool`` spec fields) and a ReservationPolicy of ``policy``."""
    root = tmp_path / "policies"
    capacity = {"ephemeral-storage": "95Gi", "pods": "110"}
    labels = {"pool": "p", "node.kubernetes.io/instance-type": "n2-standard-8"}
    pool_doc = node_pool(
        "p", tier=None, labels=labels, cpu="8", memory="31Gi", capacity=capacity, count=1, platform=platform, **pool
    )
    policy_doc = reservation_policy("rp", selector=node_selector("pool"), **policy)
    write_repo(root, {"pool.yaml": pool_doc, "rp.yaml": policy_doc})
    return root


@pytest.mark.parametrize("platform", ["gke", "aks", "talos"])
def test_a_platform_that_reads_no_kubelet_file_gets_none_and_a_warning(tmp_path: Path, platform: str) -> None:
    root = _repo(tmp_path, platform, {}, {"kubeReserved": {"cpu": "200m", "memory": "2Gi"}})
    result = render_dir(root)
    assert not any(p.startswith("kubelet/") for p in result.files)
    (finding,) = [f for f in result.findings if f.code == "AL812"]
    assert finding.severity == "warning" and "NodePool/p" in finding.message and "spec.delivery" in (finding.hint or "")


def test_nothing_to_deliver_writes_no_file_and_says_so(tmp_path: Path) -> None:
    # formula gke is what GKE reserves by itself: nothing for the gcloud file to carry
    root = _repo(tmp_path, "gke", {"delivery": {"gkeSystemConfig": {}}}, {"autoSizing": {"formula": "gke"}})
    result = render_dir(root)
    assert result.ok and not any(p.startswith("gke/") for p in result.files)
    assert [f.code for f in result.findings] == ["AL813"]


def test_render_without_lint_reports_what_gke_cannot_take_and_writes_nothing(tmp_path: Path) -> None:
    root = _repo(
        tmp_path,
        "gke",
        {"delivery": {"gkeSystemConfig": {}}},
        {
            "kubeReserved": {"cpu": "200m", "memory": "2Gi"},
            "evictionHard": {"memory.available": "300Mi"},
            "podPidsLimit": 4096,
        },
    )
    result = render_dir(root)
    assert not result.ok
    refused = sorted(f.field_path for f in result.findings if f.code == "AL809" and f.severity == "error")
    assert refused == [
        ("spec", "evictionHard", "memory.available"),
        ("spec", "kubeReserved", "cpu"),
        ("spec", "kubeReserved", "memory"),
    ]


@pytest.mark.parametrize(
    ("platform", "pool", "policy"),
    [
        ("gke", {"delivery": {"gkeSystemConfig": {}}}, {"kubeReserved": {"cpu": "200m"}, "podPidsLimit": 100}),
        (
            "aks",
            {"delivery": {"aksKubeletConfig": {"apiVersion": "2026-08-02-preview"}}},
            {"kubeReserved": {"cpu": "100m"}},
        ),
        ("eks", {"delivery": {"bottlerocket": True}}, {"kubeReserved": {"cpu": "80m"}, "cgroupDriver": "systemd"}),
        ("talos", {"delivery": {"talos": {}}}, {"kubelet": {"port": 1}}),
    ],
)
def test_lint_and_render_report_the_same_problems(
    tmp_path: Path, platform: str, pool: dict[str, Any], policy: dict[str, Any]
) -> None:
    root = _repo(tmp_path, platform, pool, policy)
    res = run_cli("lint", str(root), "-o", "json")
    lint = sorted(
        (f["line"], f["column"], f["severity"]) for f in json.loads(res.stdout)["findings"] if f["code"] == "AL327"
    )
    assert lint, res.stdout
    render = run_cli("render", str(root), "-o", str(tmp_path / "out"))
    assert render.exit_code == (1 if any(s == "error" for *_, s in lint) else 0), render.stderr
    # render without lint (the API, or AL327 turned off) reports the same problems itself
    rendered = sorted(f.severity for f in render_dir(root).findings if f.code == "AL809")
    assert rendered == sorted(s for *_, s in lint)
