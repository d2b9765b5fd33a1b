from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from conftest import POLICIES, REPO_ROOT, run_cli
from support.factory import write_repo

# The CommitClass example from the Kubernetes proposal, in our spec.selector shape, with the proposal's own
# indentation mistake: operator/values sit beside matchExpressions instead of inside the expression.
PROPOSAL_MISINDENTED = """
kind: CommitClass
apiVersion: node.k8s.io/v1alpha1
metadata:
    name: high-cpu-density
spec:
  selector:
  - matchExpressions:
    - key: beta.kubernetes.io/instance-type
    operator: In
    values:
    - compute-optimized
  resources:
  - name: cpu
    percent: 1000 # 10x over-commit
  - name: memory
    percent: 120
"""

# Text: the tests below expect path:line:col inside it (a duplicate key, the apiVersion, a label value).
POOL = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: {name}
spec:
  labels:
    node.kubernetes.io/instance-type: m5.large
  capacity:
    cpu: "2"
    memory: 8Gi
  count: 3
  platform: eks
"""


def test_bundled_policies_are_valid() -> None:
    res = run_cli("validate", str(POLICIES))
    assert res.exit_code == 0, res.stdout
    assert res.stdout == ""  # no finding; the summary is on stderr
    assert re.fullmatch(r"validate: \d+ objects in \d+ files: no problems found\n", res.stderr), res.stderr


def test_default_path_is_policies() -> None:
    res = run_cli("validate", cwd=REPO_ROOT)
    assert res.exit_code == 0
    assert re.fullmatch(r"validate: \d+ objects in \d+ files: no problems found\n", res.stderr), res.stderr


def test_proposal_example_points_at_operator_line(repo: Path) -> None:
    write_repo(repo, {"cc.yaml": PROPOSAL_MISINDENTED})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert res.exit_code == 2
    lines = res.stdout.splitlines()
    op = [ln for ln in lines if 'field "operator" is not allowed' in ln]
    assert len(op) == 1, res.stdout
    assert op[0].startswith("policies/cc.yaml:9:5: error: ")
    assert "move" in op[0] and "matchExpressions item" in op[0]
    assert op[0].endswith("[AL004] (CommitClass/high-cpu-density)")
    assert any(ln.startswith("policies/cc.yaml:10:5: error: ") and '"values"' in ln for ln in lines)


def test_proposal_example_correctly_indented_is_valid(repo: Path) -> None:
    fixed = PROPOSAL_MISINDENTED.replace("    operator: In", "      operator: In").replace(
        "    values:\n    - compute", "      values:\n      - compute"
    )
    write_repo(repo, {"cc.yaml": fixed})
    res = run_cli("validate", str(repo))
    assert res.exit_code == 0, res.stdout


def test_json_output_shape(repo: Path) -> None:
    write_repo(repo, {"cc.yaml": PROPOSAL_MISINDENTED, "pool.yaml": POOL.format(name="a")})
    res = run_cli("validate", str(repo), "-o", "json", cwd=repo.parent)
    doc = json.loads(res.stdout)
    assert doc["version"] == 1
    assert doc["files"] == 2
    assert doc["objects"] == 1
    first = doc["findings"][0]
    assert set(first) >= {"code", "severity", "message", "path", "line", "column", "object"}
    assert first["path"] == "policies/cc.yaml"
    assert all(isinstance(f["line"], int) and f["line"] > 0 for f in doc["findings"])


def test_duplicate_name_points_at_both_places(repo: Path) -> None:
    write_repo(repo, {"a.yaml": POOL.format(name="web"), "b.yaml": POOL.format(name="web")})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert res.exit_code == 2
    (line,) = [ln for ln in res.stdout.splitlines() if "AL005" in ln]
    assert line.startswith("policies/b.yaml:4:9: error: duplicate NodePool name")
    assert "policies/a.yaml" in line


def test_duplicate_mapping_key(repo: Path) -> None:
    write_repo(repo, {"a.yaml": POOL.format(name="web").replace('    cpu: "2"\n', '    cpu: "2"\n    cpu: "4"\n')})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert res.exit_code == 2
    assert 'policies/a.yaml:10:5: error: duplicate key "cpu" (first defined at line 9)' in res.stdout


def test_unknown_kind_names_supported_kinds(repo: Path) -> None:
    write_repo(repo, {"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n"})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert res.exit_code == 2
    assert 'policies/a.yaml:2:7: error: unsupported kind "ConfigMap"' in res.stdout
    for kind in ("CommitClass", "RuntimeClass", "NodePool", "ReservationPolicy", "Node"):
        assert kind in res.stdout


def test_wrong_api_version(repo: Path) -> None:
    write_repo(repo, {"a.yaml": POOL.format(name="a").replace("policy.allocatable.dev/v1alpha1", "v1")})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert 'policies/a.yaml:1:13: error: NodePool needs apiVersion "policy.allocatable.dev/v1alpha1"' in res.stdout


def test_norway_problem_in_label_value(repo: Path) -> None:
    write_repo(repo, {"a.yaml": POOL.format(name="a").replace("m5.large", "m5.large\n    country: NO")})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert res.exit_code == 2
    (line,) = res.stdout.splitlines()
    assert line.startswith("policies/a.yaml:8:14: error: spec.labels.country: expected a string, got the boolean false")
    assert "quotes" in line


def test_selector_arity(repo: Path) -> None:
    text = PROPOSAL_MISINDENTED.replace(
        "    operator: In\n    values:\n    - compute-optimized\n", "      operator: Gt\n      values: ['4', '5']\n"
    )
    write_repo(repo, {"cc.yaml": text})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert "operator Gt needs exactly one integer" in res.stdout
    assert res.exit_code == 2


def test_node_list_becomes_pools(repo: Path) -> None:
    write_repo(
        repo,
        {
            "nodes.json": json.dumps(
                {
                    "apiVersion": "v1",
                    "kind": "List",
                    "items": [
                        {
                            "apiVersion": "v1",
                            "kind": "Node",
                            "metadata": {"name": f"ip-10-0-0-{i}.ec2.internal", "labels": {"a": "b"}, "uid": "x"},
                            "spec": {"providerID": "aws:///x"},
                            "status": {"capacity": {"cpu": "2", "memory": "8010000Ki", "pods": "29"}},
                        }
                        for i in range(3)
                    ],
                },
                indent=2,
            )
        },
    )
    res = run_cli("validate", str(repo))
    assert res.exit_code == 0, res.stdout
    assert "3 objects in 1 file" in res.stderr


def test_unknown_field_did_you_mean(repo: Path) -> None:
    write_repo(repo, {"a.yaml": POOL.format(name="a").replace("  count: 3", "  cuont: 3")})
    res = run_cli("validate", str(repo), cwd=repo.parent)
    assert 'field "cuont" is not allowed in spec' in res.stdout
    assert 'did you mean "count"?' in res.stdout


def test_missing_path_is_usage_error(tmp_path: Path) -> None:
    res = run_cli("validate", str(tmp_path / "nope"))
    assert res.exit_code == 2
    assert "no such file or directory" in res.stderr
    assert res.stdout == ""


def test_version() -> None:
    res = run_cli("--version")
    assert res.exit_code == 0
    assert res.stdout.startswith("allocatable ")


def test_help_does_not_import_heavy_libraries() -> None:
    code = (
        "import sys, contextlib, io\n"
        "from renderer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n"
        "    except SystemExit: pass\n"
        "heavy = [m for m in ('jsonschema', 'jinja2', 'pydantic', 'ruamel.yaml') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_no_traceback_on_garbage(tmp_path: Path) -> None:
    bad = tmp_path / "x.yaml"
    bad.write_bytes(b"\x00\x01\x02garbage: [")
    out = subprocess.run([sys.executable, "-m", "renderer", "validate", str(tmp_path)], capture_output=True, text=True)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr + out.stdout
    assert out.stdout.splitlines()[0].endswith("[AL001]")


DID_YOU_MEAN = """
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: a
  namespace: default
spec:
  selector:
  - matchExpressions:
    - {key: x, operator: in, values: [a]}
    - {key: y, operator: exist}
  resources:
  - name: CPU
    percent: 120
---
apiVersion: node.k8s.io/v1alpha1
kind: Commitclass
metadata:
  name: b
---
apiVersion: policy.allocatable.dev/v1alpha1
kind: reservationpolicy
metadata:
  name: c
---
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: p
spec:
  labels: {x: a}
  capacity: {cpu: "8", memory: 32gb}
  count: 1
  platform: EKS
"""


def test_did_you_mean_for_case_kinds_enums_quantities_and_namespace(repo: Path) -> None:
    """Each mistake a new user makes gets the spelling to write (issue 18: enum case, kinds, quantity units), and a
    namespace on a cluster-scoped object is not 'did you mean name'."""
    write_repo(repo, {"a.yaml": DID_YOU_MEAN})
    res = run_cli("validate", str(repo))
    assert res.exit_code == 2
    lines = res.stdout.splitlines()

    def line(fragment: str) -> str:
        (found,) = [x for x in lines if fragment in x]
        return found

    assert line('"namespace" is not allowed').endswith(
        "these objects are cluster-scoped, like Nodes: remove metadata.namespace [AL004] (CommitClass/a)"
    )
    assert 'did you mean "name"' not in res.stdout
    assert line('the string "in" is not allowed').endswith('did you mean "In"? [AL004] (CommitClass/a)')
    assert line('the string "exist" is not allowed').endswith('did you mean "Exists"? [AL004] (CommitClass/a)')
    assert line('the string "CPU"').endswith('did you mean "cpu"? [AL004] (CommitClass/a)')
    assert line('"Commitclass"').endswith('did you mean "CommitClass"? [AL003] (Commitclass/b)')
    assert line('"reservationpolicy"').endswith('did you mean "ReservationPolicy"? [AL003] (reservationpolicy/c)')
    assert line('"32gb"').endswith('did you mean "32Gi" (2^30) or "32G" (10^9)? [AL004] (NodePool/p)')
    assert line('the string "EKS"').endswith('did you mean "eks"? [AL004] (NodePool/p)')


KUBERNETES_FIELDS = """
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: kata
  uid: 0b1f6f3c-6e0a-4a53-9a0f-1c2d3e4f5a6b
  generateName: kata-
  resourceVersion: "123"
  finalizers: [example.com/x]
handler: kata
status: {}
---
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: a
spec:
  nodeSelector: {x: a}
  selector: []
  resourcs: []
"""


def test_fields_kubernetes_objects_have_get_their_own_message_and_no_far_guess(repo: Path) -> None:
    """kubectl get -o yaml output carries ObjectMeta's server-set fields and status (kubernetes/apimachinery
    pkg/apis/meta/v1/types.go): each says what it is, never a guess at a field it resembles; a guess is offered
    only for a likely typo (resourcs), and then the list of allowed fields is left out."""
    write_repo(repo, {"a.yaml": KUBERNETES_FIELDS})
    res = run_cli("validate", str(repo))
    assert res.exit_code == 2
    by_field = {ln.split('field "', 1)[1].split('"', 1)[0]: ln for ln in res.stdout.splitlines() if 'field "' in ln}
    assert set(by_field) == {
        "uid",
        "generateName",
        "resourceVersion",
        "finalizers",
        "status",
        "nodeSelector",
        "resourcs",
    }
    assert "the API server sets metadata.uid on stored objects" in by_field["uid"]
    assert "the API server sets metadata.resourceVersion" in by_field["resourceVersion"]
    assert "write metadata.name instead" in by_field["generateName"]
    assert "allocatable reads only name, labels and annotations" in by_field["finalizers"]
    assert "the API server reports status" in by_field["status"]
    assert "did you mean" not in res.stdout.replace('did you mean "resources"?', "")
    assert by_field["nodeSelector"].endswith("; allowed: resources, selector [AL004] (CommitClass/a)")
    assert 'spec; did you mean "resources"? [AL004]' in by_field["resourcs"], "no list when the fix is clear"
