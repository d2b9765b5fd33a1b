"""``verify`` names first the platforms a node's own signs point to (``Platform.identity``: a platform module's
``signals`` and ``hints``), in "it matches ... exactly" and, when nothing reproduces a number, as "closest: ...".

Every node here is a published real node of tests/real-nodes/ (its source is in its file's header), changed the way
a real dump loses its platform: its platform labels or kubelet build stripped, its reservation changed, or the node
assigned to the wrong platform with ``--platform``. What each test changes is written beside it; the expected
platform is the one the file's source names, never a value this project computed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

from conftest import REPO_ROOT, run_cli
from renderer import platforms

CORPUS = REPO_ROOT / "tests" / "real-nodes"
SETTINGS = Path(__file__).parent / "real-nodes-settings.yaml"
WINDOWS = CORPUS / "eks" / "windows-t2-large-2019.yaml"
EKS_AL2023 = CORPUS / "eks" / "mng-al2023-t3-small-1-31.yaml"
AKS_ENGINE = CORPUS / "aks-engine" / "d2-v3-agent-1-18.yaml"
AKS = CORPUS / "aks" / "d2as-v4-1-32.yaml"
GKE = CORPUS / "gke" / "e2-medium-1-23.yaml"


def _load(path: Path) -> dict[str, Any]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _strip(node: dict[str, Any], *prefixes: str, node_info: tuple[str, ...] = ()) -> dict[str, Any]:
    labels = node["metadata"].get("labels") or {}
    node["metadata"]["labels"] = {k: v for k, v in labels.items() if not k.startswith(prefixes)}
    for key in node_info:
        node.get("status", {}).get("nodeInfo", {}).pop(key, None)
    return node


def _verify(tmp_path: Path, node: dict[str, Any], *args: str) -> dict[str, Any]:
    repo = tmp_path / "repo"
    repo.mkdir(parents=True)
    (repo / ".allocatable.yaml").write_text(SETTINGS.read_text(encoding="utf-8"), encoding="utf-8")
    dump = tmp_path / "nodes.yaml"
    dump.write_text(yaml.safe_dump(node, sort_keys=False), encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(dump), "-o", "json", *args)
    assert res.exit_code in (0, 1), res.stderr
    (only,) = json.loads(res.stdout)["nodes"]
    return only  # type: ignore[no-any-return]


def _explanations(node: dict[str, Any]) -> dict[str, str]:
    return {d["resource"]: d["explanation"] for d in node["differences"]}


# -- EKS Windows: detected by the VPC resource controller's resources, modelled from the published node ----------


def test_the_published_windows_eks_node_is_eks_and_matches(tmp_path: Path) -> None:
    # aws/containers-roadmap#481: no EKS label and no nodeInfo; vpc.amazonaws.com/ENI and PrivateIPv4Address are
    # the VPC resource controller's, which EKS runs. Capacity equals allocatable: nothing reserved, no hard eviction.
    node = _verify(tmp_path, _load(WINDOWS))
    assert node["platform"] == "eks"
    assert node["match"] is True, node["differences"]


def test_windows_node_without_its_vpc_resources_points_to_eks_by_its_provider_id(tmp_path: Path) -> None:
    # The same node with its vpc.amazonaws.com/* resources removed carries no EKS signal: it is generic. Its
    # numbers (nothing reserved, no eviction) are also kind's and minikube's defaults, but its providerID aws://
    # points to EKS, so EKS's Windows default is named first and the flag suggested is --platform eks.
    raw = _load(WINDOWS)
    for section in ("capacity", "allocatable"):
        raw["status"][section] = {k: v for k, v in raw["status"][section].items() if not k.startswith("vpc.")}
    node = _verify(tmp_path, raw)
    assert node["platform"] == "generic" and node["match"] is False
    for text in _explanations(node).values():
        first = text.split("it matches ", 1)[1]
        assert first.startswith("platform-default:eks-windows (providerID aws://)"), text
        assert "pass --platform eks" in text, text


def test_vpc_resources_point_to_eks_not_to_the_platform_the_node_was_given(tmp_path: Path) -> None:
    # The published Windows node assigned to Talos by a scoped --platform: Talos's system-reserved does not explain
    # it; EKS (its vpc.amazonaws.com resources, its providerID) is named, with the scoped flag that fixes it.
    name = _load(WINDOWS)["metadata"]["name"]
    node = _verify(tmp_path, _load(WINDOWS), "--platform", f"talos:kubernetes.io/hostname={name}")
    assert node["platform"] == "talos" and node["match"] is False
    texts = _explanations(node)
    assert "memory" in texts
    for text in texts.values():
        # EKS's Windows default is named first of the defaults that reproduce the node (rke2's and k3s's reserve
        # nothing either), with the signs that point to it
        assert "it matches platform-default:eks-windows (vpc.amazonaws.com/ENI, providerID aws://), " in text, text
        assert f"pass --platform eks:kubernetes.io/hostname={name}" in text, text
        assert "platformDefaults.talos" not in text, text  # takes Talos's own profiles only


# -- "no known cause": the closest platforms by identity -------------------------------------------------------


def _closest(text: str) -> str:
    assert "no known cause reproduces it" in text, text
    assert "; closest: " in text, text
    return text.split("; closest: ", 1)[1]


def test_eks_node_without_its_eks_labels_and_another_reservation_is_closest_to_eks(tmp_path: Path) -> None:
    # The AL2023 t3.small with its eks.amazonaws.com/* labels and its -eks- kubelet build removed (generic), and its
    # memory allocatable lowered by 100000Ki (a reservation nothing models): the AWS cloud provider's labels it still
    # carries point to EKS, whose default gives the node's published 1471840Ki (1.40Gi).
    raw = _strip(_load(EKS_AL2023), "eks.amazonaws.com/", node_info=("kubeletVersion", "osImage"))
    raw["status"]["allocatable"]["memory"] = "1371840Ki"
    node = _verify(tmp_path, raw)
    assert node["platform"] == "generic"
    closest = _closest(_explanations(node)["memory"])
    assert closest.startswith("eks (label k8s.io/cloud-provider-aws, label topology.k8s.aws/zone-id)"), closest
    assert "platform-default:eks gives 1.40Gi" in closest and closest.endswith("try --platform eks"), closest
    # cpu is untouched: EKS's default gives the reported 1930m, and the text says so
    assert "gives 1.93 cores, as reported" in _closest(_explanations(node)["cpu"])


def test_aks_engine_node_without_its_labels_points_to_azure_platforms(tmp_path: Path) -> None:
    # The AKS Engine agent with its kubernetes.azure.com/* labels removed, memory allocatable lowered by 100000Ki:
    # its attachable-volumes-azure-disk resource points to AKS Engine and AKS (both run on Azure VMs); AKS Engine
    # first, as its node name (k8s-<pool>-<digits>-) is a second sign. AKS was never suggested before.
    raw = _strip(_load(AKS_ENGINE), "kubernetes.azure.com/")
    raw["status"]["allocatable"]["memory"] = "7276516Ki"
    node = _verify(tmp_path, raw)
    assert node["platform"] == "generic"
    closest = _closest(_explanations(node)["memory"])
    assert closest.startswith(
        "aks-engine (attachable-volumes-azure-disk, name k8s-agentpool1-24731180-vmss000000), whose "
    ), closest
    assert "; aks (attachable-volumes-azure-disk), whose " in closest, closest
    assert "eks" not in closest.split(":")[0] and "gke" not in closest, closest


def test_aks_node_given_to_aks_engine_is_matched_to_aks(tmp_path: Path) -> None:
    # The published AKS 1.32 node assigned to AKS Engine: AKS Engine's defaults (no reservation, 750Mi) do not
    # explain it; its own signs (the AKS agent-pool labels and name) name AKS, whose default reproduces every number.
    raw = _load(AKS)
    name = raw["metadata"]["name"]
    node = _verify(tmp_path, raw, "--platform", f"aks-engine:kubernetes.io/hostname={name}")
    assert node["platform"] == "aks-engine" and node["match"] is False
    for text in _explanations(node).values():
        assert "it matches platform-default:aks (label kubernetes.azure.com/agentpool" in text, text
        assert f"--platform aks:kubernetes.io/hostname={name}" in text, text


def test_gke_node_without_its_node_pool_label_is_closest_to_gke(tmp_path: Path) -> None:
    # The GKE e2-medium with cloud.google.com/gke-nodepool and its kubelet build removed, memory allocatable lowered
    # by 100000Ki: its other GKE labels, the PD CSI topology label, the GCE PD volume limit and its gke- name point to
    # GKE, whose default gives the published 2880076Ki (2.75Gi).
    raw = _strip(_load(GKE), "cloud.google.com/gke-nodepool", node_info=("kubeletVersion",))
    raw["status"]["allocatable"]["memory"] = "2780076Ki"
    node = _verify(tmp_path, raw)
    assert node["platform"] == "generic"
    closest = _closest(_explanations(node)["memory"])
    assert closest.startswith("gke (label cloud.google.com/gke-boot-disk, label topology.gke.io/zone, "), closest
    assert "attachable-volumes-gce-pd" in closest and "platform-default:gke gives 2.75Gi" in closest, closest


def test_a_node_its_own_signals_detect_is_not_pointed_elsewhere_by_hints(tmp_path: Path) -> None:
    # The published OpenShift 4.3 worker on AWS with its memory allocatable lowered by 100000Ki: its providerID-less
    # dump still carries attachable-volumes-aws-ebs, an EKS hint, but OpenShift's own label detected it, and a
    # cloud's hint proves nothing against that: no "closest".
    raw = _load(CORPUS / "openshift" / "ocp43-aws-m4-4xlarge-worker.yaml")
    raw["status"]["allocatable"]["memory"] = "65228868Ki"
    node = _verify(tmp_path, raw)
    assert node["platform"] == "openshift"
    text = _explanations(node)["memory"]
    assert "no known cause reproduces it" in text and "closest" not in text, text
    # the same node given to EKS by --platform: OpenShift's signal (label node.openshift.io/os_id) is named
    hostname = raw["metadata"]["labels"]["kubernetes.io/hostname"]  # ip-10-0-142-27, not the node's name
    node = _verify(tmp_path / "given", raw, "--platform", f"eks:kubernetes.io/hostname={hostname}")
    assert node["platform"] == "eks"
    closest = _closest(_explanations(node)["memory"])
    assert closest.startswith(
        "openshift (label node.openshift.io/os_id, osImage Red Hat Enterprise Linux CoreOS 43.81.202003191953.0 "
        "(Ootpa)), whose platform-default:openshift-4.2 gives 62.30Gi"
    ), closest
    # the flag selects the node by its hostname label, which is what --platform selectors read
    assert closest.endswith(f"try --platform openshift:kubernetes.io/hostname={hostname}"), closest


def test_a_node_without_any_sign_gets_no_closest(tmp_path: Path) -> None:
    # The kind worker carries no platform's sign (kind names itself only in spec.providerID, left out of the
    # published dump): with its memory changed, nothing is suggested beyond "no known cause".
    raw = _load(CORPUS / "kind" / "kind-v1-31-worker-32cpu.yaml")
    raw["status"]["allocatable"]["memory"] = "95000000Ki"
    node = _verify(tmp_path, raw)
    text = _explanations(node)["memory"]
    assert "no known cause reproduces it" in text and "closest" not in text, text


class _Facts(NamedTuple):
    name: str = "node-1"
    labels: dict[str, str] = {}
    node_info: dict[str, str] = {}
    provider_id: str = ""
    resources: tuple[str, ...] = ("cpu", "memory", "pods")


def _carrying(signal: platforms.Signal) -> _Facts | None:
    """A node that carries ``signal`` and nothing else of note (None for a regular expression kind)."""
    if signal.kind == "label":
        key, _, value = signal.pattern.partition("=")
        return _Facts(labels={key: value or "x"})
    if signal.kind == "label-prefix":
        return _Facts(labels={signal.pattern + "x": "x"})
    if signal.kind == "providerID":
        return _Facts(provider_id=signal.pattern + "us-east-1a/i-0")
    if signal.kind == "resource":
        return _Facts(
            resources=("cpu", "memory", "pods", signal.pattern + ("x" if signal.pattern.endswith("/") else ""))
        )
    return None


#: a node name each name hint matches (the conventions the hints cite)
NAMES = {
    "^aks-[a-z0-9]+-": "aks-pool1-12345678-0",
    "^gke-": "gke-c1-pool-1-0f0b3237-wmnh",
    "^k8s-[a-z0-9]+-[0-9]+-": "k8s-pool1-24731180-0",
}
HINTS = [(p.name, h) for p in platforms.ordered() for h in p.hints]


@pytest.mark.parametrize(("name", "hint"), HINTS, ids=[f"{n}:{h.pattern}" for n, h in HINTS])
def test_a_hint_ranks_its_platform_but_never_detects_it(name: str, hint: platforms.Signal) -> None:
    facts = _carrying(hint) if hint.kind != "name" else _Facts(name=NAMES[hint.pattern])
    assert platforms.detect(facts)[0] == platforms.fallback_name(), (hint, platforms.detect(facts))
    ranked = {p.name: signs for p, signs in platforms.identified(facts)}
    assert name in ranked and len(ranked[name]) == 1, ranked


def test_every_platform_with_a_cloud_has_hints() -> None:
    # the clouds whose volume limits and providerIDs self-managed clusters share: their managed platforms rank first
    for name, sign in (("eks", "aws://"), ("aks", "azure://"), ("aks-engine", "azure://"), ("gke", "gce://")):
        assert sign in {h.pattern for h in platforms.get(name).hints}, name
