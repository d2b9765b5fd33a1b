"""``render`` never removes a pool's delivered file without a finding that names it (issue 23, AL814).

Each case renders a policy repo into an output directory, changes the repo, and renders again. Where the pool
still exists and would get no file at all, the render stops (error, exit 1, nothing written: the file stays); where
another file delivers its settings now, a warning names both; where the pool itself was deleted, an info. The issue's
example: a one-letter typo in the selector key that AL104 does not catch (two edits away from every key, so not a
typo in its sense) used to give "1 stale removed"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import CliResult, run_cli
from renderer.loading.files import display_path
from support.factory import Content, node_pool, node_selector, reservation_policy, write_repo


def pool(name: str = "web", tier: str = "web", **spec: Any) -> dict[str, Any]:
    """The pool ``web``: 8 cpu, 32Gi, two nodes, ``platform: generic`` unless ``spec`` says otherwise."""
    capacity = {"ephemeral-storage": "100Gi", "pods": "110"}
    spec = {"platform": "generic", **spec}
    return node_pool(name, tier=tier, count=2, capacity=capacity, **spec)


def policy(name: str = "web", key: str = "example.com/tier") -> dict[str, Any]:
    return reservation_policy(name, selector=node_selector(key, ["web"]), kubeReserved={"cpu": "100m", "memory": "1Gi"})


def _render(repo: Path, out: Path, *more: str) -> CliResult:
    return run_cli("render", str(repo), "-o", str(out), *more)


def _first(repo: Path, out: Path, files: dict[str, Content]) -> dict[str, str]:
    write_repo(repo, files)
    res = _render(repo, out)
    assert res.exit_code == 0, res.stdout + res.stderr
    return {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}


def _al814(res: CliResult) -> list[str]:
    return [line for line in res.stdout.splitlines() if "[AL814]" in line]


@pytest.mark.parametrize(
    ("change", "cause"),
    [
        # a selector typo AL104 cannot call one: "example.com/tier" → "example.com/tire" is one swap, AL104's error,
        # so lint stops the render before; "tier" (the prefix left out) is 12 edits away: AL104 only warns
        ({"rp.yaml": policy(key="tier")}, "no ReservationPolicy selects it now"),
        ({"rp.yaml": ""}, "no ReservationPolicy selects it now"),  # the policy deleted
        # the pool's label changed to a value no policy selects
        ({"pool.yaml": pool(tier="frontend")}, "no ReservationPolicy"),
        # platform changed to one whose nodes read no KubeletConfiguration file, without a delivery (AL812)
        ({"pool.yaml": pool(platform="gke")}, "its targets render no file for it (AL812, above)"),
    ],
    ids=["selector-typo", "policy-deleted", "pool-label-changed", "platform-reads-no-file"],
)
def test_a_pool_left_without_its_file_stops_the_render(tmp_path: Path, change: dict[str, Content], cause: str) -> None:
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    before = _first(repo, out, {"pool.yaml": pool(), "rp.yaml": policy()})
    assert "kubelet/web.yaml" in before
    for name, text in change.items():
        (repo / name).unlink()
        if text:
            write_repo(repo, {name: text})
    res = _render(repo, out)
    assert res.exit_code == 1, res.stdout + res.stderr
    (line,) = _al814(res)
    # at the pool's name: line 5 of pool.yaml as written (---, apiVersion, kind, metadata, name), column 9
    assert line.startswith(
        f"{display_path(repo / 'pool.yaml')}:5:9: error: render would remove {out.as_posix()}/kubelet/web.yaml, the "
    )
    assert f"kubelet settings of NodePool/web, and render nothing in its place: {cause}" in line
    assert f"delete {out.as_posix()}/kubelet/web.yaml yourself and render again" in line
    assert res.stderr.endswith("render: nothing was written\n")
    after = {p.relative_to(out).as_posix(): p.read_text() for p in out.rglob("*") if p.is_file()}
    assert after == before  # nothing written, nothing removed
    # --check says the same and fails
    check = run_cli("render", "--check", str(repo), "-o", str(out))
    assert check.exit_code == 1 and _al814(check) == [line]
    # The deliberate act: the user deletes the file; the render follows, with no finding.
    (out / "kubelet/web.yaml").unlink()
    again = _render(repo, out)
    assert again.exit_code == 0 and _al814(again) == [], again.stdout
    assert "kubelet/web.yaml" not in json.loads((out / ".allocatable-rendered.json").read_text())["files"]


def test_the_pool_deleted_is_an_info(tmp_path: Path) -> None:
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    _first(repo, out, {"pool.yaml": pool(), "rp.yaml": policy(), "other.yaml": pool("db")})
    (repo / "pool.yaml").unlink()
    res = _render(repo, out)
    assert res.exit_code == 0, res.stdout + res.stderr
    assert _al814(res) == [
        f"{out.as_posix()}/kubelet/web.yaml:1:1: info: render removes {out.as_posix()}/kubelet/web.yaml: it delivered "
        "the kubelet settings of NodePool/web, which the policies no longer define [AL814]"
    ]
    assert not (out / "kubelet/web.yaml").exists() and "1 stale removed" in res.stderr


@pytest.mark.parametrize(
    ("spec", "new_file"),
    [
        ({"platform": "eks", "delivery": {"nodeadm": True}}, "nodeadm/web.yaml"),
        ({"platform": "gke", "delivery": {"gkeSystemConfig": {"format": "rest"}}}, "gke/web.node-kubelet-config.json"),
        ({"platform": "eks", "delivery": {"karpenter": {"ec2NodeClass": "web"}}}, "karpenter/web.yaml"),
    ],
    ids=["nodeadm", "gke-system-config", "karpenter"],
)
def test_another_target_owns_the_file_now(tmp_path: Path, spec: dict[str, Any], new_file: str) -> None:
    """The platform or delivery changed: the kubelet file goes, another delivers the settings. A warning names both
    (the node bootstrap that read the old file must read the new one); the render goes on."""
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    _first(repo, out, {"pool.yaml": pool(platform="eks"), "rp.yaml": policy()})
    write_repo(repo, {"pool.yaml": pool(**spec)})
    res = _render(repo, out)
    assert res.exit_code == 0, res.stdout + res.stderr
    (line,) = _al814(res)
    assert (
        f"warning: render removes {out.as_posix()}/kubelet/web.yaml: the kubelet settings of NodePool/web reach its "
        f"nodes through {new_file} now" in line
    )
    assert (out / new_file).is_file() and not (out / "kubelet/web.yaml").exists()


def test_renamed_ec2nodeclass(tmp_path: Path) -> None:
    repo, out = tmp_path / "policies", tmp_path / "rendered"

    def karpenter(node_class: str) -> dict[str, Any]:
        return pool(platform="eks", delivery={"karpenter": {"ec2NodeClass": node_class}})

    _first(repo, out, {"pool.yaml": karpenter("web"), "rp.yaml": policy()})
    write_repo(repo, {"pool.yaml": karpenter("web-v2")})
    res = _render(repo, out)
    assert res.exit_code == 0
    (line,) = _al814(res)
    assert (
        f"render removes {out.as_posix()}/karpenter/web.yaml: " in line and "through karpenter/web-v2.yaml now" in line
    )


def test_openshift_pool_losing_its_kubeletconfig(tmp_path: Path) -> None:
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    files = {"pool.yaml": pool(platform="openshift", machineConfigPool="worker"), "rp.yaml": policy()}
    before = _first(repo, out, files)
    assert "openshift/worker/kubeletconfig.yaml" in before
    write_repo(repo, {"rp.yaml": policy(key="tier")})
    res = _render(repo, out)
    assert res.exit_code == 1
    (line,) = _al814(res)
    assert (
        f"error: render would remove {out.as_posix()}/openshift/worker/kubeletconfig.yaml, the kubelet settings of NodePool/web"
        in line
    )


def test_two_policies_select_the_pool(tmp_path: Path) -> None:
    """A second policy makes both inapplicable (AL102, an error of lint: the render stops there already); with
    AL102 switched off the render itself still refuses to drop the file."""
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    _first(repo, out, {"pool.yaml": pool(), "rp.yaml": policy()})
    write_repo(
        repo,
        {
            "rp2.yaml": policy("web2"),
            ".allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n"
            "rules: {AL102: {enabled: false}}\n",
        },
    )
    res = _render(repo, out)
    assert res.exit_code == 1
    (line,) = _al814(res)
    assert "ReservationPolicies web, web2 all select it, so none applies (AL102)" in line


def test_a_manifest_of_an_older_allocatable(tmp_path: Path) -> None:
    """Before the manifest recorded pools: the stale file's own header names them; a JSON file (no header) gets a
    warning that its pools are not known."""
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    _first(repo, out, {"pool.yaml": pool(), "rp.yaml": policy()})
    manifest = out / ".allocatable-rendered.json"
    doc = json.loads(manifest.read_text())
    assert doc["delivers"] == {"kubelet/web.yaml": {"pools": ["NodePool/web"], "target": "kubelet"}}
    del doc["delivers"]
    (out / "aks").mkdir()
    (out / "aks/old.kubelet-config.json").write_text('{"cpuManagerPolicy": "static"}\n')
    doc["files"]["aks/old.kubelet-config.json"] = "0" * 64
    manifest.write_text(json.dumps(doc))
    write_repo(repo, {"rp.yaml": policy(key="tier")})
    res = _render(repo, out)
    assert res.exit_code == 1
    warning, error = sorted(_al814(res), key=lambda line: "error:" in line)
    assert "warning: render removes " in warning and "aks/old.kubelet-config.json, which an earlier render" in warning
    assert "error: render would remove " in error and "kubelet settings of NodePool/web" in error


def test_files_that_deliver_no_pool_go_quietly(tmp_path: Path) -> None:
    """kustomization.yaml and the cluster manifests are no pool's: their removal is the summary's "stale removed"."""
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    kata = (
        "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: kata}\nhandler: kata\n"
        "overhead: {podFixed: {cpu: 250m, memory: 160Mi}}\n"
    )
    before = _first(repo, out, {"pool.yaml": pool(), "rp.yaml": policy(), "kata.yaml": kata})
    assert "manifests/runtimeclasses.yaml" in before
    (repo / "kata.yaml").unlink()
    res = _render(repo, out)
    assert res.exit_code == 0 and _al814(res) == [] and "stale removed" in res.stderr


def test_a_render_of_other_targets_does_not_drop_the_kubelet_files(tmp_path: Path) -> None:
    """``render --target runtimeclasses`` writes only that target's files, and used to remove every other file of
    the last render with them — the pools' kubelet configurations included, silently."""
    repo, out = tmp_path / "policies", tmp_path / "rendered"
    _first(repo, out, {"pool.yaml": pool(), "rp.yaml": policy()})
    res = _render(repo, out, "--target", "runtimeclasses")
    assert res.exit_code == 1
    (line,) = _al814(res)
    assert (
        "render nothing in its place: the target kubelet is not rendered in this run (--target, or render.targets"
        in line
    )
    assert (out / "kubelet/web.yaml").is_file()
