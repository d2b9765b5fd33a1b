"""The karpenter, cluster-api and nodeadm targets: what they render, the way it reaches the objects a cluster already
has (kubectl kustomize with the rendered Components over a user's EC2NodeClass, KubeadmConfigTemplate and
MachineDeployments), the result checked against the upstream CRDs' constraints (tests/render/crd_facts.py, restated
with sources) and against Karpenter's published npm model, and the refusals (AL807-AL811)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import crd_facts
import pytest
from external_tools import kustomize, npm_ec2nodeclass_errors
from render_support import CASES, documents, render_dir

from conftest import POLICIES, REPO_ROOT, run_cli
from renderer.capacity.pools import build as build_model
from renderer.pipeline import load
from renderer.render.targets.cluster_api import content_hash
from support.factory import (
    TIER,
    Content,
    Document,
    node_pool,
    node_selector,
    reservation_policy,
    write_file,
    write_repo,
)
from support.factory import settings as settings_doc

HERE = Path(__file__).resolve().parent
CLUSTERS = HERE / "clusters"
DELIVERY = CASES / "delivery"


def _overlay(tmp_path: Path, files: dict[str, bytes], components: list[str]) -> list[dict[str, Any]]:
    """The user's cluster kustomization: their own objects plus the rendered Components."""
    write_repo(tmp_path / "rendered", files)
    for fixture in CLUSTERS.glob("*.yaml"):
        shutil.copy(fixture, tmp_path / fixture.name)
    resources = "".join(f"- {p.name}\n" for p in sorted(CLUSTERS.glob("*.yaml")))
    comps = "".join(f"- rendered/{c}\n" for c in components)
    (tmp_path / "kustomization.yaml").write_text(f"resources:\n{resources}components:\n{comps}", encoding="utf-8")
    return kustomize(tmp_path)


def _by_kind(docs: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [d for d in docs if d.get("kind") == kind]


def _copy_case(tmp_path: Path, settings: Document | None = None, extra: dict[str, Content] | None = None) -> Path:
    """The delivery case's repo; its files stay text (the tests below change one value of the case as committed)."""
    repo = tmp_path / "policies"
    shutil.copytree(DELIVERY, repo)
    if settings is not None:
        write_file(repo / ".allocatable.yaml", settings)
    if extra:
        write_repo(repo, extra)
    return repo


_SETTINGS_OFF = settings_doc(render={"koordinator": False})


def _codes(result: Any) -> list[tuple[str, str, str]]:
    return [(f.code, f.severity, f.message) for f in result.findings]


# --- the whole path: render, kustomize over the user's objects, check against the CRDs -------------------------


@pytest.mark.external
def test_rendered_components_patch_the_users_objects_and_satisfy_the_crds(tmp_path: Path) -> None:
    result = render_dir(DELIVERY)
    assert result.ok, _codes(result)
    docs = _overlay(tmp_path, result.files, ["karpenter", "cluster-api"])

    (nodeclass,) = _by_kind(docs, "EC2NodeClass")
    assert crd_facts.problems(crd_facts.ec2nodeclass_schema(expressions=True), nodeclass) == []
    assert crd_facts.ec2nodeclass_rule_problems(nodeclass, expressions=True) == []
    kubelet = nodeclass["spec"]["kubelet"]
    # The user's class keeps everything that is not ours (role, selectors, labels, its own kubelet fields) ...
    assert nodeclass["spec"]["role"] == "KarpenterNodeRole-prod"
    assert nodeclass["metadata"]["labels"] == {"team": "platform"}
    assert kubelet["clusterDNS"] == ["10.100.0.10"] and kubelet["maxPods"] == 110
    # ... and gets the policy's: GKE tiers as CEL, explicit values as quantities.
    assert kubelet["systemReserved"] == {"cpu": "100m", "memory": "100Mi"}
    assert kubelet["kubeReserved"]["ephemeral-storage"] == "1Gi"
    assert "memory_mib" in kubelet["kubeReserved"]["memory"] and "vcpus" in kubelet["kubeReserved"]["cpu"]

    (template,) = _by_kind(docs, "KubeadmConfigTemplate")
    assert crd_facts.problems(crd_facts.KUBEADMCONFIGTEMPLATE_SCHEMA, template) == []
    assert crd_facts.kubeadmconfigtemplate_rule_problems(template) == []
    args = {
        a["name"]: a["value"]
        for a in template["spec"]["template"]["spec"]["joinConfiguration"]["nodeRegistration"]["kubeletExtraArgs"]
    }
    assert args["cloud-provider"] == "external", "the user's own arguments are kept (merged by flag name)"
    assert args["max-pods"] == "110", "the policy's value replaces the user's for the same flag"
    assert args["kube-reserved"] == "cpu=100m,ephemeral-storage=1Gi,memory=1Gi"
    assert args["eviction-hard"] == "memory.available<200Mi,nodefs.available<10%,nodefs.inodesFree<5%"
    assert args["eviction-soft-grace-period"] == "memory.available=1m30s"
    name = template["metadata"]["name"]
    assert name.startswith("md-workers-") and len(name) == len("md-workers-") + 10
    assert template["metadata"]["annotations"]["argocd.argoproj.io/sync-options"] == "Prune=false"

    deployments = _by_kind(docs, "MachineDeployment")
    assert [d["metadata"]["name"] for d in deployments] == ["md-workers-a", "md-workers-b"]
    for md in deployments:
        assert crd_facts.problems(crd_facts.MACHINEDEPLOYMENT_SCHEMA, md) == []
        ref = md["spec"]["template"]["spec"]["bootstrap"]["configRef"]
        assert ref == {"apiGroup": "bootstrap.cluster.x-k8s.io", "kind": "KubeadmConfigTemplate", "name": name}
        assert md["spec"]["template"]["spec"]["infrastructureRef"]["name"] == md["metadata"]["name"]


@pytest.mark.external
def test_rendered_tree_builds_with_kubectl_kustomize(tmp_path: Path) -> None:
    for case, files in (("delivery", render_dir(DELIVERY).files), ("example", render_dir(POLICIES).files)):
        root = write_repo(tmp_path / case, files)
        built = kustomize(root)
        (kustomization,) = documents(files["kustomization.yaml"])
        assert len(built) == sum(len(documents(files[p])) for p in kustomization["resources"])
        for component in ("karpenter", "cluster-api"):
            if (root / component / "kustomization.yaml").exists():
                (doc,) = documents(files[f"{component}/kustomization.yaml"])
                assert doc["kind"] == "Component"


@pytest.mark.external
def test_ec2nodeclass_passes_karpenters_npm_model(tmp_path: Path) -> None:
    docs = _overlay(tmp_path, render_dir(DELIVERY).files, ["karpenter"])
    nodeclasses = _by_kind(docs, "EC2NodeClass")
    broken = {**nodeclasses[0], "spec": {**nodeclasses[0]["spec"], "kubelet": {"maxPods": "many"}}}
    errors = npm_ec2nodeclass_errors([*nodeclasses, broken])
    assert errors[:-1] == [None] * len(nodeclasses)
    assert errors[-1] is not None and "maxPods" in errors[-1], "the model must be able to reject something"


@pytest.mark.external
def test_static_ec2nodeclass_satisfies_the_released_crd(tmp_path: Path) -> None:
    # Expressions off and one size per class: plain quantities, which Karpenter v1.14 accepts.
    repo = _copy_case(tmp_path, settings=_SETTINGS_OFF)
    pools = (repo / "pools.yaml").read_text(encoding="utf-8")
    (repo / "pools.yaml").write_text(
        pools.replace("{ec2NodeClass: general}", "{ec2NodeClass: small}", 1), encoding="utf-8"
    )
    result = render_dir(repo)
    assert result.ok, _codes(result)
    (small,) = documents(result.files["karpenter/small.yaml"])
    # The values explain predicts for the pool, as quantities (what the kubelet of these nodes will reserve).
    loaded = load([repo])
    pool = next(pc for pc in build_model(loaded.policies).pools if pc.pool.name == "karpenter-small")
    assert small["spec"]["kubelet"]["kubeReserved"] == {k: str(v.quantity) for k, v in pool.kube_reserved.items()}
    assert {r.source for r in pool.kube_reserved.values()} == {"formula:gke", "explicit"}
    (nodeclass,) = _by_kind(_overlay(tmp_path / "o", result.files, ["karpenter"]), "EC2NodeClass")
    assert crd_facts.problems(crd_facts.ec2nodeclass_schema(expressions=False), nodeclass) == []
    assert crd_facts.ec2nodeclass_rule_problems(nodeclass, expressions=False) == []


def test_nodeconfig_is_what_nodeadm_reads(tmp_path: Path) -> None:
    (config,) = documents(render_dir(DELIVERY).files["nodeadm/ng-batch.yaml"])
    assert crd_facts.problems(crd_facts.NODECONFIG_SCHEMA, config) == []
    kubelet = config["spec"]["kubelet"]
    # nodeadm's kube-reserved for 16 vCPUs and 58 pods (11 x 58 + 255 = 893Mi, 110m), as the eks formula gives.
    assert kubelet["config"]["kubeReserved"] == {"cpu": "110m", "memory": "893Mi", "ephemeral-storage": "1Gi"}
    assert kubelet["config"]["podPidsLimit"] == 4096
    # Labels the kubelet may set itself; node-role.kubernetes.io/* would make it refuse to start.
    assert kubelet["flags"] == ["--node-labels=eks.amazonaws.com/nodegroup=batch,example.com/tier=batch"]


# --- refusals and warnings -------------------------------------------------------------------------------------


def test_formula_that_differs_by_size_needs_expressions(tmp_path: Path) -> None:
    result = render_dir(_copy_case(tmp_path, settings=_SETTINGS_OFF))
    (finding,) = [f for f in result.findings if f.severity == "error"]
    assert finding.code == "AL808"
    assert "NodePool/karpenter-large and NodePool/karpenter-small share EC2NodeClass general" in finding.message
    assert "formula gke" in finding.message
    assert finding.hint is not None and "render.karpenter.expressions" in finding.hint


_CONFLICT: dict[str, Content] = {
    "more.yaml": [
        node_pool(
            "karpenter-gpu",
            tier="gpu",
            cpu="8",
            memory="64Gi",
            capacity={"pods": "58"},
            count=1,
            platform="eks",
            delivery={"karpenter": {"ec2NodeClass": "general"}},
        ),
        reservation_policy(
            "gpu",
            selector=node_selector(TIER, ["gpu"]),
            systemReserved={"cpu": "500m", "memory": "1Gi"},
            kubeReserved={"cpu": "200m", "memory": "2Gi", "ephemeral-storage": "1Gi"},
        ),
    ]
}


def test_pools_with_different_policies_sharing_an_ec2nodeclass_are_refused(tmp_path: Path) -> None:
    result = render_dir(_copy_case(tmp_path, extra=_CONFLICT))
    errors = [f for f in result.findings if f.severity == "error"]
    assert [f.code for f in errors] == ["AL807"]
    assert "NodePool/karpenter-gpu and NodePool/karpenter-large share EC2NodeClass general" in errors[0].message
    assert "karpenter/general.yaml" not in result.files


def test_eks_formula_is_left_to_karpenter_when_expressions_are_off(tmp_path: Path) -> None:
    repo = _copy_case(tmp_path, settings=_SETTINGS_OFF)
    text = (repo / "reservations.yaml").read_text(encoding="utf-8")
    (repo / "reservations.yaml").write_text(
        text.replace(
            "autoSizing: {formula: gke}\n  systemReserved: {cpu: 100m, memory: 100Mi}\n  kubeReserved: {ephemeral-storage: 1Gi}",
            "autoSizing: {formula: eks}\n  systemReserved: {cpu: 100m, memory: 100Mi}",
        ),
        encoding="utf-8",
    )
    result = render_dir(repo)
    assert result.ok, _codes(result)
    data = result.files["karpenter/general.yaml"].decode()
    (doc,) = documents(result.files["karpenter/general.yaml"])
    assert "kubeReserved" not in doc["spec"]["kubelet"]
    assert "formula eks is Karpenter's own default" in data
    assert not [f for f in result.findings if f.code == "AL810" and "kubeReserved" in f.message]


def test_openshift_formula_has_no_cel_form(tmp_path: Path) -> None:
    repo = _copy_case(tmp_path)
    text = (repo / "reservations.yaml").read_text(encoding="utf-8")
    (repo / "reservations.yaml").write_text(
        text.replace(
            "autoSizing: {formula: gke}\n  systemReserved: {cpu: 100m, memory: 100Mi}",
            "autoSizing: {formula: openshift}",
        ),
        encoding="utf-8",
    )
    result = render_dir(repo)
    (finding,) = [f for f in result.findings if f.severity == "error"]
    assert finding.code == "AL808" and "formula openshift" in finding.message
    assert finding.hint is not None and "MemTotal" in finding.hint


def test_kubelet_fields_karpenter_v1_lacks_are_left_out_with_a_warning(tmp_path: Path) -> None:
    repo = _copy_case(tmp_path)
    text = (repo / "reservations.yaml").read_text(encoding="utf-8")
    (repo / "reservations.yaml").write_text(
        text.replace(
            "  kubeReserved: {ephemeral-storage: 1Gi}\n",
            "  kubeReserved: {ephemeral-storage: 1Gi}\n  podPidsLimit: 2048\n",
            1,
        ),
        encoding="utf-8",
    )
    result = render_dir(repo)
    assert ("AL809", "warning") in [(f.code, f.severity) for f in result.findings]
    (doc,) = documents(result.files["karpenter/general.yaml"])
    assert "podPidsLimit" not in doc["spec"]["kubelet"]
    passthrough = {"expressions": True, "kubeletPassthrough": True}
    write_file(repo / ".allocatable.yaml", settings_doc(render={"koordinator": False, "karpenter": passthrough}))
    (doc,) = documents(render_dir(repo).files["karpenter/general.yaml"])
    assert doc["spec"]["kubelet"]["podPidsLimit"] == 2048


def test_template_name_follows_the_kubelet_arguments(tmp_path: Path) -> None:
    first = documents(render_dir(DELIVERY).files["cluster-api/fleet-prod/md-workers.yaml"])[0]
    args = first["spec"]["template"]["spec"]["joinConfiguration"]["nodeRegistration"]["kubeletExtraArgs"]
    assert first["metadata"]["name"] == f"md-workers-{content_hash(args)}"
    repo = _copy_case(tmp_path)
    text = (repo / "reservations.yaml").read_text(encoding="utf-8")
    (repo / "reservations.yaml").write_text(text.replace("maxPods: 110", "maxPods: 100"), encoding="utf-8")
    changed = render_dir(repo).files
    second = documents(changed["cluster-api/fleet-prod/md-workers.yaml"])[0]
    assert second["metadata"]["name"] != first["metadata"]["name"], "a changed policy must be a new template name"
    (md,) = documents(changed["cluster-api/fleet-prod/md-workers-a.machinedeployment.yaml"])
    assert md["spec"]["template"]["spec"]["bootstrap"]["configRef"]["name"] == second["metadata"]["name"]


def test_template_without_machinedeployments_keeps_its_name_and_warns(tmp_path: Path) -> None:
    repo = _copy_case(tmp_path)
    text = (repo / "pools.yaml").read_text(encoding="utf-8")
    (repo / "pools.yaml").write_text(
        text.replace(", machineDeployments: [md-workers-a, md-workers-b]", ""), encoding="utf-8"
    )
    result = render_dir(repo)
    assert "AL811" in [f.code for f in result.findings]
    (doc,) = documents(result.files["cluster-api/fleet-prod/md-workers.yaml"])
    assert doc["metadata"]["name"] == "md-workers"
    assert not [p for p in result.files if p.endswith(".machinedeployment.yaml")]


def test_kubelet_field_without_a_flag_stops_the_cluster_api_render(tmp_path: Path) -> None:
    repo = _copy_case(tmp_path)
    text = (repo / "reservations.yaml").read_text(encoding="utf-8")
    (repo / "reservations.yaml").write_text(
        text.replace(
            "kubelet: {imageGCHighThresholdPercent: 85",
            "kubelet: {shutdownGracePeriod: 30s, imageGCHighThresholdPercent: 85",
        ),
        encoding="utf-8",
    )
    result = render_dir(repo)
    (finding,) = [f for f in result.findings if f.severity == "error"]
    assert finding.code == "AL809" and "shutdownGracePeriod" in finding.message


def test_nodeadm_defaults_kept_on_the_node_are_reported(tmp_path: Path) -> None:
    repo = _copy_case(tmp_path)
    text = (repo / "reservations.yaml").read_text(encoding="utf-8")
    (repo / "reservations.yaml").write_text(
        text.replace(
            'autoSizing: {formula: eks}\n  evictionHard: {memory.available: 100Mi, nodefs.available: "10%", nodefs.inodesFree: "5%"}',
            "kubeReserved: {memory: 1Gi}\n  evictionHard: {memory.available: 200Mi}",
        ),
        encoding="utf-8",
    )
    messages = [f.message for f in render_dir(repo).findings if f.code == "AL810"]
    assert any(
        "kubeReserved.cpu, kubeReserved.ephemeral-storage not set in the NodeConfig of NodePool/ng-batch" in m
        for m in messages
    )
    assert any("leaves out nodefs.available" in m and "nodefs.available<10%" in m for m in messages)


# --- the capacity model follows Karpenter's rounding ------------------------------------------------------------


def _model(tmp_path: Path, expressions: bool, formula: str, cpu: str, memory: str, pods: str) -> dict[str, str]:
    pool = node_pool(
        "p",
        tier=None,
        labels={"a": "b"},
        cpu=cpu,
        memory=memory,
        capacity={"pods": pods},
        count=1,
        platform="eks",
        delivery={"karpenter": {"ec2NodeClass": "c"}},
    )
    policy = reservation_policy("r", selector=node_selector("a"), autoSizing={"formula": formula})
    repo = write_repo(
        tmp_path / f"r-{expressions}-{formula}",
        {
            ".allocatable.yaml": settings_doc(render={"karpenter": {"expressions": expressions}}),
            "p.yaml": [pool, policy],
        },
    )
    loaded = load([repo])
    assert loaded.ok
    (pc,) = build_model(loaded.policies).pools
    return {k: str(v.quantity) for k, v in pc.kube_reserved.items()}


def test_model_rounds_formula_values_as_karpenter_does(tmp_path: Path) -> None:
    # GKE writes kubeReserved memory 1736Mi, cpu 70m on an n1-standard-2 (2 vCPUs, 7.5 GiB; see docs/render.md and
    # the gke formula's notes). Evaluated by Karpenter the memory is rounded up to a multiple of 16Mi: 1744Mi
    # (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:pkg/cel/environment.go, roundUpTo).
    shape = ("2", "7680Mi", "110")
    assert _model(tmp_path, False, "gke", *shape) == {"cpu": "70m", "memory": "1736Mi"}
    assert _model(tmp_path, True, "gke", *shape) == {"cpu": "70m", "memory": "1744Mi"}
    # nodeadm: an m5.large with 29 pods reserves 574Mi and 70m; through Karpenter's CEL: 576Mi, 70m, 1Gi.
    assert _model(tmp_path, True, "eks", "2", "8Gi", "29") == {
        "cpu": "70m",
        "memory": "576Mi",
        "ephemeral-storage": "1Gi",
    }


def test_explain_shows_the_delivery_and_the_rounded_values() -> None:
    res = run_cli("explain", "--pool", "karpenter-general-r5-4xlarge", "-o", "json", cwd=REPO_ROOT)
    assert res.exit_code == 0, res.stderr
    (pool,) = json.loads(res.stdout)["pools"]
    assert pool["delivery"] == {"karpenter": {"ec2NodeClass": "general", "expressions": True}}
    memory = pool["kubeReserved"]["memory"]
    assert memory.endswith("Mi") and int(memory[:-2]) % 16 == 0, "Karpenter rounds memory up to 16Mi"
    assert any("Karpenter rounds" in n for n in pool["notes"])
    text = run_cli("explain", "docs/examples/cluster-api-fleet", "--pool", "capi-prod-workers", cwd=REPO_ROOT).stdout
    assert (
        "  delivery:            Cluster API KubeadmConfigTemplate fleet-prod/md-workers "
        "(md-workers-zone-a, md-workers-zone-b; cluster-api/)" in text
    )
