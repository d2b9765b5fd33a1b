"""Contract test of the Argo CD Config Management Plugin: argocd/plugin.yaml's commands run exactly as written,
with bash, in a temporary checkout, with the environment Argo CD gives them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from delivery_support import REPO_ROOT, clean_env

from conftest import run_cli
from support.factory import write_repo

PLUGIN = REPO_ROOT / "argocd" / "plugin.yaml"

OPENSHIFT = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: ocp-worker
spec:
  labels:
    node-role.kubernetes.io/worker: ""
    node.openshift.io/os_id: rhcos
  capacity: {cpu: "8", memory: 32Gi, ephemeral-storage: 100Gi, pods: "250"}
  count: 3
  platform: openshift
  machineConfigPool: worker
---
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata:
  name: ocp
spec:
  selector:
  - matchExpressions:
    - {key: node.openshift.io/os_id, operator: In, values: [rhcos]}
  autoSizing:
    formula: openshift
    fallback: {cpu: 500m, memory: 1Gi}
  evictionHard:
    memory.available: 100Mi
    nodefs.available: "10%"
"""

GREEDY = """
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: greedy
spec:
  selector:
  - matchExpressions:
    - {key: example.com/tier, operator: In, values: [general]}
  resources:
  - {name: memory, percent: 130}
"""


def spec() -> dict[str, object]:
    doc = yaml.safe_load(PLUGIN.read_text())
    assert doc["apiVersion"] == "argoproj.io/v1alpha1" and doc["kind"] == "ConfigManagementPlugin"
    assert doc["metadata"]["name"] == "allocatable"
    s: dict[str, object] = doc["spec"]
    return s


def run_command(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """As argocd-cmp-server does: the command array, in the application path, with ARGOCD_APP_* and the
    Application's env as ARGOCD_ENV_*."""
    assert command[0] == "bash"
    base = clean_env(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        ARGOCD_APP_NAME="capacity",
        ARGOCD_APP_NAMESPACE="argocd",
        ARGOCD_APP_REVISION="0123456789abcdef0123456789abcdef01234567",
        ARGOCD_APP_SOURCE_PATH=".",
        ARGOCD_APP_SOURCE_REPO_URL="https://git.example.com/platform/capacity.git",
        KUBE_VERSION="1.31",
    )
    base.update(env)
    return subprocess.run(command, cwd=cwd, env=base, capture_output=True, text=True, timeout=300, check=False)


def generate(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    gen = spec()["generate"]
    assert isinstance(gen, dict)
    return run_command([*gen["command"], *gen.get("args", [])], cwd, **env)


def objects(stdout: str) -> list[dict[str, object]]:
    docs = [d for d in yaml.safe_load_all(stdout) if d is not None]
    for d in docs:
        assert isinstance(d, dict), d
        assert d.get("apiVersion") and d.get("kind"), d
        meta = d.get("metadata")
        assert isinstance(meta, dict) and meta.get("name"), d
    return docs


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    app = tmp_path / "app"
    assert run_cli("init", str(app), "--no-render").exit_code == 0
    return app


def test_plugin_spec_shape() -> None:
    s = spec()
    assert s["version"] == "v1"
    gen = s["generate"]
    assert isinstance(gen, dict) and gen["command"][:2] == ["bash", "-c"]
    params = s["parameters"]
    assert isinstance(params, dict)
    assert [p["name"] for p in params["static"]] == ["policy-path", "targets", "ignition-version"]
    assert "init" not in s  # nothing to fetch or build: generate runs with no network


def test_generate_prints_only_kubernetes_objects_and_logs_to_stderr(checkout: Path) -> None:
    proc = generate(checkout)
    assert proc.returncode == 0, proc.stderr
    docs = objects(proc.stdout)
    kinds = sorted(str(d["kind"]) for d in docs)
    # A fresh repo does not say Koordinator runs, so it gets no Koordinator ConfigMap (render.koordinator is off).
    assert "RuntimeClass" in kinds and "ConfigMap" not in kinds
    assert "allocatable-cmp: rendering policies for capacity at 0123456789ab" in proc.stderr
    assert "allocatable-cmp" not in proc.stdout
    # Deterministic: the same input gives the same bytes.
    again = generate(checkout)
    assert again.returncode == 0 and again.stdout == proc.stdout


def test_lint_errors_fail_with_the_findings_on_stderr(checkout: Path) -> None:
    write_repo(checkout, {"policies/commitclasses/greedy.yaml": GREEDY})
    proc = generate(checkout)
    assert proc.returncode != 0
    assert proc.stdout.strip() == "" or not objects(proc.stdout)
    assert "policies/commitclasses/greedy.yaml:10:29: error: memory over-committed at 130%" in proc.stderr
    assert "[AL201]" in proc.stderr


def test_targets_parameter(checkout: Path) -> None:
    for env in ({"ARGOCD_ENV_TARGETS": "runtimeclasses"}, {"PARAM_TARGETS": "runtimeclasses"}):
        proc = generate(checkout, **env)
        assert proc.returncode == 0, proc.stderr
        assert {d["kind"] for d in objects(proc.stdout)} == {"RuntimeClass"}
    proc = generate(checkout, ARGOCD_ENV_TARGETS="koordinator, runtimeclasses")
    assert proc.returncode == 2 and "render.koordinator" in proc.stderr  # not opted in: a usage error
    settings = checkout / "policies" / ".allocatable.yaml"
    settings.write_text(settings.read_text().replace("koordinator: false", "koordinator: true"))
    proc = generate(checkout, ARGOCD_ENV_TARGETS="koordinator, runtimeclasses")
    assert {d["kind"] for d in objects(proc.stdout)} == {"RuntimeClass", "ConfigMap"}
    proc = generate(checkout, ARGOCD_ENV_TARGETS="nope")
    assert proc.returncode == 2 and "nope" in proc.stderr and proc.stdout.strip() == ""


def test_policy_path_parameter_and_discovery(tmp_path: Path) -> None:
    app = tmp_path / "app"
    assert run_cli("init", str(app), "--no-render", "--policy-dir", "capacity/eu").exit_code == 0
    found = generate(app)  # found by its .allocatable.yaml
    assert found.returncode == 0, found.stderr
    assert "rendering capacity/eu" in found.stderr
    explicit = generate(app, ARGOCD_ENV_POLICY_PATH="capacity/eu")
    assert explicit.stdout == found.stdout
    missing = generate(app, ARGOCD_ENV_POLICY_PATH="nowhere")
    assert missing.returncode == 2 and 'no policy directory "nowhere"' in missing.stderr
    escape = generate(app, ARGOCD_ENV_POLICY_PATH="../..")
    assert escape.returncode == 2 and "must stay inside the application path" in escape.stderr
    # discover: finds the policy repo; an unrelated directory is not this plugin's
    discover = spec()["discover"]
    assert isinstance(discover, dict)
    command = discover["find"]["command"]
    assert run_command(command, app).stdout.strip() == "./capacity/eu/.allocatable.yaml"
    (tmp_path / "other").mkdir()
    write_repo(tmp_path / "other", {"deploy.yaml": "kind: Deployment\n"})
    assert run_command(command, tmp_path / "other").stdout.strip() == ""


def test_ignition_version_parameter(tmp_path: Path) -> None:
    app = tmp_path / "app"
    write_repo(
        app,
        {
            "policies/.allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n",
            "policies/openshift.yaml": OPENSHIFT,
        },
    )

    def ignition(proc: subprocess.CompletedProcess[str]) -> str:
        assert proc.returncode == 0, proc.stderr
        (mc,) = [d for d in objects(proc.stdout) if d["kind"] == "MachineConfig"]
        return str(mc["spec"]["config"]["ignition"]["version"])  # type: ignore[index]

    assert ignition(generate(app)) == "3.2.0"
    assert ignition(generate(app, ARGOCD_ENV_IGNITION_VERSION="3.4.0")) == "3.4.0"
    assert ignition(generate(app, PARAM_IGNITION_VERSION="3.5.0")) == "3.5.0"
    before = (app / "policies/.allocatable.yaml").read_text()
    assert before.endswith("kind: Settings\n")  # the checkout is never modified
    bad = generate(app, ARGOCD_ENV_IGNITION_VERSION="4; rm -rf /")
    assert bad.returncode == 2 and "is not an Ignition spec version" in bad.stderr
    unsupported = generate(app, ARGOCD_ENV_IGNITION_VERSION="3.1.0")
    assert unsupported.returncode == 2 and "--ignition-version: invalid choice: '3.1.0'" in unsupported.stderr
    assert unsupported.stdout.strip() == ""


def test_helm_values_and_the_argocd_resource_give_the_patchs_sidecar() -> None:
    patch = yaml.safe_load((REPO_ROOT / "argocd/repo-server-patch.yaml").read_text())["spec"]["template"]["spec"]
    values = yaml.safe_load((REPO_ROOT / "argocd/helm-values.yaml").read_text())["repoServer"]
    resource = yaml.safe_load((REPO_ROOT / "argocd/argocd-cr.yaml").read_text())
    assert (resource["apiVersion"], resource["kind"]) == ("argoproj.io/v1beta1", "ArgoCD")
    repo = resource["spec"]["repo"]
    assert values["extraContainers"] == repo["sidecarContainers"] == patch["containers"]
    assert values["volumes"] == repo["volumes"] == patch["volumes"]
    # Its own /tmp: an emptyDir of the sidecar's, not the repo server's tmp volume.
    (sidecar,) = patch["containers"]
    tmp = next(m["name"] for m in sidecar["volumeMounts"] if m["mountPath"] == "/tmp")
    assert tmp not in ("tmp", "var-files", "plugins")
    assert {"name": tmp, "emptyDir": {}} in patch["volumes"]


def test_sidecar_wiring_and_docs() -> None:
    patch = yaml.safe_load((REPO_ROOT / "argocd/repo-server-patch.yaml").read_text())
    assert (patch["kind"], patch["metadata"]["name"]) == ("Deployment", "argocd-repo-server")
    pod = patch["spec"]["template"]["spec"]
    (sidecar,) = pod["containers"]
    assert sidecar["command"] == ["/var/run/argocd/argocd-cmp-server"]
    assert sidecar["securityContext"]["runAsUser"] == 999
    mounts = {m["mountPath"]: m for m in sidecar["volumeMounts"]}
    assert set(mounts) == {
        "/var/run/argocd",
        "/home/argocd/cmp-server/plugins",
        "/home/argocd/cmp-server/config/plugin.yaml",
        "/tmp",
    }
    assert mounts["/home/argocd/cmp-server/config/plugin.yaml"]["subPath"] == "plugin.yaml"
    volumes = {v["name"]: v for v in pod["volumes"]}
    config = volumes[mounts["/home/argocd/cmp-server/config/plugin.yaml"]["name"]]
    assert config["configMap"]["name"] == "allocatable-cmp-plugin"
    assert volumes[mounts["/tmp"]["name"]] == {"name": "allocatable-cmp-tmp", "emptyDir": {}}
    # var-files and plugins are the stock repo-server volumes, not redefined here
    assert {mounts["/var/run/argocd"]["name"], mounts["/home/argocd/cmp-server/plugins"]["name"]} == {
        "var-files",
        "plugins",
    }
    app = yaml.safe_load((REPO_ROOT / "argocd/application.yaml").read_text())
    s = spec()
    assert app["spec"]["source"]["plugin"]["name"] == f"allocatable-{s['version']}"
    docs = (REPO_ROOT / "docs/argocd.md").read_text()
    for name in (
        "plugin.yaml",
        "repo-server-patch.yaml",
        "application.yaml",
        "Dockerfile",
        "helm-values.yaml",
        "argocd-cr.yaml",
    ):
        text = (REPO_ROOT / "argocd" / name).read_text()
        flat = "\n".join(line.strip() for line in text.splitlines() if line.strip())
        shown = "\n".join(line.strip() for line in docs.splitlines() if line.strip())
        assert flat in shown, f"docs/argocd.md does not show argocd/{name} as it is"


def test_a_target_that_renders_nothing_warns_on_stderr(checkout: Path) -> None:
    """Issue 34: TARGETS=kubelet (node files, no cluster object) gave exit 0 and an empty stream, which Argo CD
    applies as "nothing": the application silently loses its objects. Still exit 0 (the policies are fine), but
    stderr says why the stream is empty; a target that does render objects says nothing more."""
    proc = generate(checkout, ARGOCD_ENV_TARGETS="kubelet")
    assert proc.returncode == 0, proc.stderr
    assert objects(proc.stdout) == []  # the generated-file header only
    warning = [line for line in proc.stderr.splitlines() if "warning" in line]
    assert len(warning) == 1 and "no cluster objects" in warning[0] and "kubelet" in warning[0], proc.stderr
    proc = generate(checkout, ARGOCD_ENV_TARGETS="runtimeclasses")
    assert proc.returncode == 0 and "warning" not in proc.stderr and objects(proc.stdout)
