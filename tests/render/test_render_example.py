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
        "openshift/worker/kubeletconfig.yaml",
    ):
        assert (rendered / path).is_file(), path
