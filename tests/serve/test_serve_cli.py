"""``allocatable serve`` as a process: the endpoints on loopback, SIGTERM, --once and its usage errors."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from serve_support import (
    KUBE_RESERVED,
    NODE_NAME,
    get,
    samples,
    start_serve,
    stop_serve,
    value,
    wait_ready,
    write_nodes,
)

from conftest import run_cli
from support.factory import write_repo


def test_endpoints_and_a_clean_stop_on_sigterm(repo: Path, tmp_path: Path) -> None:
    nodes = write_nodes(tmp_path / "nodes.json")
    proc, base = start_serve(str(repo), "--nodes", str(nodes), "--interval", "200ms")
    try:
        wait_ready(base)
        status, body = get(base + "/metrics")
        assert status == 200
        found = samples(body)
        assert value(found, "allocatable_node_predicted_allocatable", node=NODE_NAME, resource="cpu") == 1.93
        assert value(found, "allocatable_cycle_errors_total", stage="nodes") == 0
        assert value(found, "allocatable_policy_info", commit="") == 1
        assert value(found, "allocatable_policy_stale") == 0
        assert time.time() - value(found, "allocatable_last_success_timestamp_seconds") < 60
        assert 0 <= value(found, "allocatable_data_age_seconds") < 60
        assert value(found, "allocatable_cycles_total") >= 1
        assert "process_resident_memory_bytes" in found
        assert get(base + "/healthz") == (200, b"ok\n")
        assert get(base + "/nope")[0] == 404
        assert get(base + "/metrics", method="POST")[0] == 405
        head = get(base + "/metrics", method="HEAD")
        assert head == (200, b"")
    finally:
        code, err = stop_serve(proc)
    assert code == 0, err
    assert "serve: stopped after" in err


def test_a_bad_cycle_between_good_ones_is_counted_and_the_old_figures_served(repo: Path, tmp_path: Path) -> None:
    nodes = write_nodes(tmp_path / "nodes.json")
    proc, base = start_serve(str(repo), "--nodes", str(nodes), "--interval", "100ms")
    try:
        wait_ready(base)
        nodes.write_text("{not json", encoding="utf-8")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = samples(get(base + "/metrics")[1])
            if value(found, "allocatable_cycle_errors_total", stage="nodes") >= 1:
                break
            time.sleep(0.1)
        assert value(found, "allocatable_cycle_errors_total", stage="nodes") >= 1
        assert value(found, "allocatable_node_predicted_allocatable", node=NODE_NAME, resource="cpu") == 1.93
        assert get(base + "/readyz")[0] == 200
    finally:
        code, err = stop_serve(proc)
    assert code == 0, err
    assert f"serve: error (nodes): {nodes}:1:2:" in err


def test_not_ready_before_a_good_cycle(tmp_path: Path) -> None:
    nodes = write_nodes(tmp_path / "nodes.json")
    proc, base = start_serve(str(tmp_path / "not-cloned-yet"), "--nodes", str(nodes), "--interval", "1h")
    try:
        assert get(base + "/readyz") == (503, b"no good cycle yet\n")
        assert get(base + "/healthz")[0] == 200
        found = samples(get(base + "/metrics")[1])
        assert "allocatable_node_predicted_allocatable" not in found
        assert "allocatable_data_age_seconds" not in found
    finally:
        code, err = stop_serve(proc)
    assert code == 0, err


def test_once_prints_the_metrics_and_exits_1_on_drift(repo: Path, tmp_path: Path) -> None:
    nodes = write_nodes(tmp_path / "nodes.json")
    res = run_cli("serve", str(repo), "--nodes", str(nodes), "--once")
    assert res.exit_code == 0, res.stderr
    assert samples(res.stdout)["allocatable_pool_nodes"]
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})
    res = run_cli("serve", str(repo), "--nodes", str(nodes), "--once")
    assert res.exit_code == 1, res.stderr
    assert 'cause="policy-not-rolled-out"' in res.stdout


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--nodes", "-"], "--nodes - (standard input) cannot be read again every cycle"),
        (["--nodes", "n.json", "--live"], "--nodes and --live both give the nodes"),
        (["--listen", "8080"], "expected HOST:PORT"),
        (["--listen", "::1:80"], "an IPv6 address goes in brackets"),
        (["--interval", "5 minutes"], "must be a duration from 10ms to 24h"),
        (["--interval", "0s"], "must be a duration from 10ms to 24h"),
        (["--nodes", "n.json", "--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        (["--context", "prod"], "--context and --kubeconfig go with --live"),
        ([], "no nodes to read"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    repo: Path, args: list[str], says: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    res = run_cli("serve", str(repo), *args)
    assert res.exit_code == 2
    assert says in res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("allocatable: error: ")


def test_once_with_a_bad_dump_is_one_located_line(repo: Path, tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.json"
    nodes.write_text('{"apiVersion": "v1", "kind": "List", "items": [1]}', encoding="utf-8")
    res = run_cli("serve", str(repo), "--nodes", str(nodes), "--once")
    assert res.exit_code == 2 and res.stdout == ""
    # one line: the cycle's own log line ("serve: error (nodes): ...") is not said a second time
    assert res.stderr.count("\n") == 1 and res.stderr.startswith(f"allocatable: error: {nodes}:1:")


def test_a_port_in_use_is_a_usage_error(repo: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        nodes = write_nodes(tmp_path / "nodes.json")
        res = run_cli("serve", str(repo), "--nodes", str(nodes), "--listen", f"127.0.0.1:{port}")
    assert res.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in res.stderr


def test_live_reads_kubectl_every_cycle_and_counts_its_failures(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stand-in kubectl (ALLOCATABLE_KUBECTL, as verify --live is tested) prints the published node's dump, then
    fails as kubectl does when the server is gone; serve keeps the first cycle's figures and counts the failure."""
    nodes = write_nodes(tmp_path / "nodes.json")
    calls = tmp_path / "calls"
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(
        "#!/bin/sh\n"
        f'echo "$@" >> {calls}\n'
        f'if [ "$(wc -l < {calls})" -gt 1 ]; then\n'
        '  echo "The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?" >&2\n'
        "  exit 1\n"
        "fi\n"
        f"cat {nodes}\n",
        encoding="utf-8",
    )
    kubectl.chmod(0o755)
    monkeypatch.setenv("ALLOCATABLE_KUBECTL", str(kubectl))
    import io

    from renderer.serve.service import Service
    from renderer.serve.sources import KubectlSource
    from renderer.verify.kubectl import Kubectl

    s = Service.of(repo, KubectlSource(Kubectl(context="prod"), None, None, None), 60.0)
    s.log = io.StringIO()
    assert s.cycle(), s.last_error
    kept = s.evaluation
    assert s.cycle() is False
    assert s.evaluation is kept and s.errors["nodes"] == 1
    assert "was refused" in (s.last_error or "") and "exit 1" in (s.last_error or "")
    assert calls.read_text().splitlines()[0] == "get nodes -o json --request-timeout=60s --context=prod"
