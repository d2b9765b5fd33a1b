"""The example repo's rendered output, committed under rendered/, is what `allocatable render` produces now."""

from __future__ import annotations

from conftest import REPO_ROOT, run_cli


def test_committed_rendered_output_is_current() -> None:
    res = run_cli("render", "--check", "policies", cwd=REPO_ROOT)
    assert res.exit_code == 0, (
        f"{res.stdout}{res.stderr}\nrendered/ is stale: run `allocatable render policies -o rendered` and commit it"
    )
    assert "rendered is up to date" in res.stderr


def test_rendered_output_holds_every_default_target() -> None:
    rendered = REPO_ROOT / "rendered"
    assert (rendered / ".allocatable-rendered.json").is_file()
    for path in (
        "kustomization.yaml",
        "kubelet/eks-general-purpose.yaml",
        "manifests/runtimeclasses.yaml",
        "manifests/koordinator.yaml",
        "karpenter/general.yaml",
        "nodeadm/eks-al2023-batch.yaml",
    ):
        assert (rendered / path).is_file(), path


def test_each_example_policy_directory_is_one_cluster() -> None:
    """docs/render.md: one policy directory and one output directory per cluster, because a kustomization with both
    EKS and OpenShift objects cannot be applied to either. The bundled policies/ is one EKS cluster; the other
    clusters it once mixed in are policy directories of their own under docs/examples/."""
    import json

    for path, platform in (
        ("policies", "eks"),
        ("docs/examples/openshift-onprem", "openshift"),
        ("docs/examples/cluster-api-fleet", "generic"),
    ):
        res = run_cli("explain", path, "-o", "json", cwd=REPO_ROOT)
        assert res.exit_code == 0, res.stderr
        assert {p["platform"] for p in json.loads(res.stdout)["pools"]} == {platform}, path
