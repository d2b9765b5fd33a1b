"""``serve --configz``: each kubelet's ``/configz`` against the KubeletConfiguration fields the repo renders for it.

No Kubernetes API server can run here: the in-cluster tests start a loopback HTTP server (127.0.0.1, a free port,
``serve_support.replay_server``) that replays recorded responses — the NodeList of the published EKS node
(tests/real-nodes, serve_support's docstring) under several names, and for each node's
``GET /api/v1/nodes/NAME/proxy/configz`` a recorded configz body or the errors the API server's proxy answers with.

The recorded body, tests/serve/configz/published-kubeadm.json, is a real kubelet ``/configz`` published in a Trivy
user's public notes (found with the code-search index; node ``sldw93dwm29`` of a kubeadm cluster with cri-dockerd,
2025-10-28): the ``--kubelet-config`` argument ``trivy k8s`` gave its node-collector 0.3.1 pod, decoded there from
base64 and bzip2; the kubelet-config mapping in the same notes names its source, ``kubectl get --raw
"/api/v1/nodes/<node name>/proxy/configz"``. Kubernetes 1.31 or newer (it carries ``failCgroupV1``). Kept byte for
byte: ``{"kubeletconfig": {...}}``, Go durations (``4h0m0s``), evictionHard as the kubelet writes it
(``memory.available: 100Mi``, ``nodefs.available: 10%``...), ``enforceNodeAllocatable: [pods]``, no kubeReserved. A
test that needs another value changes that one field of it and says so. Expected drift is worked out by hand beside
each assertion.
"""

from __future__ import annotations

import copy
import io
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from serve_support import (
    NODE_NAME,
    POOL,
    TOKEN,
    Answer,
    Replay,
    real_node,
    replay_server,
    samples,
    status,
    value,
    write_nodes,
)

from conftest import REPO_ROOT, run_cli
from renderer.serve.configz import (
    ApiReader,
    ConfigzError,
    DirReader,
    FieldDrift,
    KubectlReader,
    check,
    compare,
    kubelet_config,
)
from renderer.serve.kubeapi import Endpoint
from renderer.serve.service import Service
from renderer.serve.sources import ApiSource, FileSource
from support.factory import Document, node_selector, reservation_policy, write_repo

PUBLISHED = REPO_ROOT / "tests/serve/configz/published-kubeadm.json"


#: The repo's policy for the EKS node group: what it sets is what is compared.
def _policy(key: str = "eks.amazonaws.com/nodegroup") -> Document:
    return reservation_policy(
        "eks",
        selector=node_selector(key),
        kubeReserved={"cpu": "500m", "memory": "1Gi"},
        evictionHard={"memory.available": "100Mi", "nodefs.available": "10%"},
        enforceNodeAllocatable=["pods"],
    )


POLICY = _policy()


def published() -> dict[str, Any]:
    return json.loads(PUBLISHED.read_bytes())  # type: ignore[no-any-return]


def body(config: dict[str, Any]) -> bytes:
    return json.dumps(config, separators=(",", ":")).encode()


def fleet(*names: str) -> list[dict[str, Any]]:
    """The published EKS node under each name (its figures unchanged)."""
    out = []
    for name in names:
        node = copy.deepcopy(real_node())
        node["metadata"]["name"] = name
        node["metadata"]["labels"]["kubernetes.io/hostname"] = name
        out.append(node)
    return out


def path_of(node: str) -> str:
    return f"/api/v1/nodes/{node}/proxy/configz"


@pytest.fixture
def api() -> Iterator[tuple[Replay, Callable[[Callable[[dict[str, str]], Answer]], str]]]:
    with replay_server() as got:
        yield got


def endpoint(base: str, tmp_path: Path) -> Endpoint:
    token = tmp_path / "token"
    token.write_text(TOKEN + "\n", encoding="utf-8")
    return Endpoint(base=base, token_file=str(token), ca_file=None, timeout=10.0, backoff=0.01)


# -- the comparison, value by value ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("field", "want", "got", "same"),
    [
        # quantities by their value: 1Gi = 1024 × 1Mi = 1073741824 bytes; 1G = 10^9 bytes is not 1Gi
        (("kubeReserved", "memory"), "1Gi", "1024Mi", True),
        (("kubeReserved", "memory"), "1Gi", "1G", False),
        (("kubeReserved", "cpu"), "500m", "0.5", True),
        # 100Mi = 102400Ki (× 1024); the kubelet writes back what it was given
        (("evictionHard", "memory.available"), "100Mi", "102400Ki", True),
        (("evictionHard", "nodefs.available"), "10%", "10.0%", True),
        (("evictionHard", "nodefs.available"), "10%", "15%", False),
        # Go durations by their length: 1m30s = 90 s; 4h0m0s = 240 minutes
        (("evictionSoftGracePeriod", "memory.available"), "90s", "1m30s", True),
        (("shutdownGracePeriod",), "4h", "4h0m0s", True),
        (("shutdownGracePeriod",), "30s", "0s", False),
        # a CPU list by its CPUs: 0-1 = {0, 1}
        (("reservedSystemCPUs",), "0-1", "0,1", True),
        (("reservedSystemCPUs",), "0-1", "0-2", False),
        (("reservedSystemCPUs",), "0-3,8", "8,0,1-2,3", True),  # {0,1,2,3,8} both
        (("reservedSystemCPUs",), "0-999999999", "0-999999998", False),  # never expanded CPU by CPU
        # numbers by value; the configz writes memoryThrottlingFactor as 0.9
        (("maxPods",), 110, 110.0, True),
        (("memoryThrottlingFactor",), 0.9, 0.9, True),
        (("maxPods",), 110, 58, False),
        # a set, whatever the order; a list otherwise in order
        (("enforceNodeAllocatable",), ["pods", "kube-reserved"], ["kube-reserved", "pods"], True),
        (("enforceNodeAllocatable",), ["pods", "kube-reserved"], ["pods"], False),
        (("featureGates", "KubeletSeparateDiskGC"), True, False, False),
        (("cpuManagerPolicy",), "static", "none", False),
        (("containerLogMaxSize",), "10Mi", "10240Ki", True),
    ],
)
def test_values_compare_normalised(field: tuple[str, ...], want: Any, got: Any, same: bool) -> None:
    config: dict[str, Any] = {}
    here = config
    for key in field[:-1]:
        here = here.setdefault(key, {})
    here[field[-1]] = got
    drift = compare("n", ((field, want),), config)
    assert drift == ([] if same else [FieldDrift("n", ".".join(field), _shown(want), _shown(got))])


def _shown(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def test_a_field_the_kubelet_does_not_report_differs() -> None:
    # the published configz has no kubeReserved at all (kubeadm sets none)
    config = published()["kubeletconfig"]
    drift = compare("n", ((("kubeReserved", "memory"), "1Gi"), (("maxPods",), 110)), config)
    assert drift == [FieldDrift("n", "kubeReserved.memory", "1Gi", "(not set)")]  # maxPods 110 is published


@pytest.mark.parametrize(
    ("raw", "says"),
    [
        (b"<html>502 Bad Gateway</html>", "x: not a kubelet configz response"),  # read as YAML: one string
        (b'{"kubeletconfig": {"maxPods": 110,', "x:1:"),  # cut short: a JSON syntax error, located
        (b'{"kind":"Status"}', 'not a kubelet configz response (an object with a "kubeletconfig" object)'),
        (b'{"kubeletconfig": [1]}', "not a kubelet configz response"),
        (b'{"kubeletconfig": {"a": 1}, "kubeletconfig": {"b": 2}}', "x:1:"),  # a duplicate key, located
    ],
)
def test_a_body_that_is_no_configz_is_one_located_line(raw: bytes, says: str) -> None:
    with pytest.raises(ConfigzError) as caught:
        kubelet_config(raw, "x")
    assert says in str(caught.value) and "\n" not in str(caught.value)


# -- a whole cycle, in the cluster ----------------------------------------------------------------------------------


def test_a_cycle_reads_every_configz_and_exports_the_drift(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server replays the node list and, per node, its configz — the
    published one as it is, the published one with the repo's values written another way, the published one with
    another kubeReserved memory, and a 503 from the proxy (the kubelet does not answer)."""
    write_repo(repo, {"rp.yaml": POLICY})
    replay, start = api
    nodes = fleet("as-published", "same-values", "other-memory", "kubelet-down")
    listing = json.dumps({"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": nodes}).encode()
    same = published()
    # the repo's values, spelled as another tool might: 1024Mi (= 1Gi), 0.5 (= 500m), 102400Ki (= 100Mi)
    same["kubeletconfig"]["kubeReserved"] = {"cpu": "0.5", "memory": "1024Mi"}
    same["kubeletconfig"]["evictionHard"]["memory.available"] = "102400Ki"
    other = published()
    other["kubeletconfig"]["kubeReserved"] = {"cpu": "500m", "memory": "1G"}  # 10^9 bytes, not 1Gi
    replay.paths.update(
        {
            "/api/v1/nodes": lambda q: (200, listing, {}),
            path_of("as-published"): lambda q: (200, PUBLISHED.read_bytes(), {}),
            path_of("same-values"): lambda q: (200, body(same), {}),
            path_of("other-memory"): lambda q: (200, body(other), {}),
            path_of("kubelet-down"): lambda q: (
                503,
                status(
                    503, "ServiceUnavailable", "error trying to reach service: dial tcp 10.0.3.7:10250: i/o timeout"
                ),
                {},
            ),
        }
    )
    base = start(lambda q: (404, status(404, "NotFound", "the server could not find the requested resource"), {}))
    ep = endpoint(base, tmp_path)
    s = Service.of(repo, ApiSource(ep, None, None, None), 60.0)
    s.log = io.StringIO()
    s.configz = ApiReader(ep)
    assert s.cycle(), s.last_error
    found = samples(s.evaluation.text if s.evaluation else b"")
    drift = {(labels["node"], labels["field"]): v for labels, v in found["allocatable_node_config_drift"]}
    # The repo renders five fields for every node of the group: enforceNodeAllocatable [pods], evictionHard
    # memory.available 100Mi and nodefs.available 10%, kubeReserved cpu 500m and memory 1Gi.
    # as-published: evictionHard and enforceNodeAllocatable are the published ones (100Mi, 10%, [pods]); it has no
    #   kubeReserved: cpu and memory differ.
    # same-values: all five equal once normalised.
    # other-memory: 1G = 1000000000 bytes ≠ 1Gi = 1073741824 bytes; cpu 500m equal.
    # kubelet-down: not read, so nothing said about its fields.
    assert drift == {
        ("as-published", "kubeReserved.cpu"): 1.0,
        ("as-published", "kubeReserved.memory"): 1.0,
        ("other-memory", "kubeReserved.memory"): 1.0,
    }
    assert {labels["pool"] for labels, _ in found["allocatable_node_config_drift"]} == {POOL}
    assert value(found, "allocatable_pool_config_nodes", pool=POOL, state="match") == 1  # same-values
    assert value(found, "allocatable_pool_config_nodes", pool=POOL, state="drift") == 2
    assert value(found, "allocatable_pool_config_nodes", pool=POOL, state="unread") == 1
    assert value(found, "allocatable_configz_fetch_errors") == 1
    # one request per node, each with the service account's token, and the list
    proxied = sorted(p for p, _, _ in replay.requests if p.endswith("/proxy/configz"))
    assert proxied == sorted(path_of(n) for n in ("as-published", "same-values", "other-memory", "kubelet-down"))
    assert {auth for _, _, auth in replay.requests} == {f"Bearer {TOKEN}"}
    log = s.log.getvalue()  # type: ignore[attr-defined]
    assert "configz of 3 nodes: 2 differ (kubeReserved.cpu, kubeReserved.memory); 1 could not be read" in log
    assert "kubelet-down" in log and "503" in log
    assert TOKEN not in log and TOKEN not in found.__repr__()
    assert s.errors == {"policy": 0, "nodes": 0, "evaluate": 0}  # a configz that fails never fails the cycle


def test_a_node_no_policy_selects_is_not_read(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server replays the node list; no configz path is answered."""
    write_repo(repo, {"rp.yaml": _policy("example.com/none")})
    replay, start = api
    listing = json.dumps({"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": fleet("n1")}).encode()
    base = start(lambda q: (200, listing, {}))
    ep = endpoint(base, tmp_path)
    s = Service.of(repo, ApiSource(ep, None, None, None), 60.0)
    s.log = io.StringIO()
    s.configz = ApiReader(ep)
    assert s.cycle(), s.last_error
    assert [p for p, _, _ in replay.requests] == ["/api/v1/nodes"]  # nothing the repo sets: nothing to compare
    found = samples(s.evaluation.text if s.evaluation else b"")
    assert "allocatable_node_config_drift" not in found and "allocatable_pool_config_nodes" not in found
    assert value(found, "allocatable_configz_fetch_errors") == 0


def test_403_says_nodes_proxy_and_never_the_token(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server answers the proxy path with the API server's Forbidden."""
    write_repo(repo, {"rp.yaml": POLICY})
    replay, start = api
    message = (
        'nodes "n1" is forbidden: User "system:serviceaccount:allocatable:allocatable-serve" cannot get resource '
        '"nodes/proxy" in API group "" at the cluster scope'
    )
    base = start(lambda q: (403, status(403, "Forbidden", message), {}))
    reader = ApiReader(endpoint(base, tmp_path))
    with pytest.raises(ConfigzError) as caught:
        reader.read("n1", threading.Event())
    text = str(caught.value)
    assert "403" in text and "nodes/proxy" in text and "render.monitoring.configz: true" in text
    assert TOKEN not in text and "Bearer" not in text
    assert len(replay.requests) == 1  # one try: the next cycle is the retry


def test_reads_are_concurrent_and_bounded(api: Any, repo: Path, tmp_path: Path) -> None:
    """No API server can run here: a loopback server answers every configz after 50 ms and counts the requests in
    flight. 20 nodes, at most 4 at once: never more than 4 in flight, and more than one (they overlap)."""
    write_repo(repo, {"rp.yaml": POLICY})
    _, start = api
    names = [f"n{i}" for i in range(20)]
    flight = {"now": 0, "most": 0}
    lock = threading.Lock()

    def slow(q: dict[str, str]) -> Answer:
        with lock:
            flight["now"] += 1
            flight["most"] = max(flight["most"], flight["now"])
        time.sleep(0.05)
        with lock:
            flight["now"] -= 1
        return 200, PUBLISHED.read_bytes(), {}

    base = start(slow)
    nodes = write_nodes(tmp_path / "nodes.json", *fleet(*names))
    from renderer.pipeline import load, verify_nodes
    from renderer.verify.nodes import read_nodes

    model = verify_nodes(load([repo]), read_nodes(str(nodes), None, None)).model
    outcome = check(ApiReader(endpoint(base, tmp_path)), model, threading.Event(), concurrency=4)
    assert 1 < flight["most"] <= 4
    assert sorted(outcome.state) == sorted(names) and set(outcome.state.values()) == {
        "drift"
    }  # no kubeReserved published


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        ((200, b"{" + b" " * 5000 + b"}", {}), "the response is 5002 bytes, more than the 4096 allowed"),  # a huge body
        ((200, b"{}", {"Content-Length": "999999999"}), "the response is 999999999 bytes, more than the 4096 allowed"),
    ],
)
def test_hostile_responses_are_bounded(api: Any, tmp_path: Path, answer: Answer, says: str) -> None:
    """No API server can run here: a loopback server sends a body past the bound, or announces one."""
    _, start = api
    base = start(lambda q: answer)
    with pytest.raises(ConfigzError, match=says):
        ApiReader(endpoint(base, tmp_path), max_bytes=4096).read("n1", threading.Event())


def test_a_kubelet_that_does_not_answer_is_cut_at_the_timeout(api: Any, tmp_path: Path) -> None:
    """No API server can run here: a loopback server holds the configz answer 3 s; the read gives up after 0.3 s."""
    _, start = api

    def stall(q: dict[str, str]) -> Answer:
        time.sleep(3)
        return 200, PUBLISHED.read_bytes(), {}

    base = start(stall)
    began = time.monotonic()
    with pytest.raises(ConfigzError, match=r"GET /api/v1/nodes/n1/proxy/configz: TimeoutError"):
        ApiReader(endpoint(base, tmp_path), timeout=0.3).read("n1", threading.Event())
    assert time.monotonic() - began < 2.5


def test_a_hostile_node_name_is_quoted_in_the_path(api: Any, tmp_path: Path) -> None:
    """No API server can run here: a loopback server records the path it was asked for."""
    replay, start = api
    base = start(lambda q: (200, PUBLISHED.read_bytes(), {}))
    ApiReader(endpoint(base, tmp_path)).read("../../secrets?x=1", threading.Event())
    assert replay.requests[0][0] == "/api/v1/nodes/..%2F..%2Fsecrets%3Fx%3D1/proxy/configz"


# -- files and kubectl ----------------------------------------------------------------------------------------------


def test_a_directory_of_saved_outputs(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"rp.yaml": POLICY})
    saved = tmp_path / "configz"
    saved.mkdir()
    same = published()
    same["kubeletconfig"]["kubeReserved"] = {"cpu": "500m", "memory": "1Gi"}
    (saved / "saved.json").write_bytes(body(same))
    os.mkfifo(saved / "fifo.json")  # would block a plain open: refused as not a regular file
    nodes = write_nodes(tmp_path / "nodes.json", *fleet("saved", "missing", "fifo"))
    s = Service.of(repo, FileSource(str(nodes), None, None, None), 60.0)
    s.log = io.StringIO()
    s.configz = DirReader(str(saved))
    assert s.cycle(), s.last_error
    found = samples(s.evaluation.text if s.evaluation else b"")
    # saved: the published configz plus the repo's kubeReserved: all five fields equal
    assert "allocatable_node_config_drift" not in found
    assert value(found, "allocatable_pool_config_nodes", pool=POOL, state="match") == 1
    assert value(found, "allocatable_pool_config_nodes", pool=POOL, state="unread") == 2
    log = s.log.getvalue()  # type: ignore[attr-defined]
    assert "no such file" in log
    with pytest.raises(ConfigzError, match="not a regular file"):
        DirReader(str(saved)).read("fifo", threading.Event())
    with pytest.raises(ConfigzError, match="names no file"):
        DirReader(str(saved)).read("../saved", threading.Event())


def test_kubectl_get_raw_of_the_context(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A stand-in kubectl (ALLOCATABLE_KUBECTL, as verify --live is tested) prints the published configz for
    ``get --raw``; a failing one is one line."""
    calls = tmp_path / "calls"
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\ncase "$3" in\n  *bad*) echo "Error from server (NotFound)" >&2; exit 1;;\n'
        f"esac\ncat {PUBLISHED}\n",
        encoding="utf-8",
    )
    kubectl.chmod(0o755)
    monkeypatch.setenv("ALLOCATABLE_KUBECTL", str(kubectl))
    from renderer.verify.kubectl import Kubectl

    reader = KubectlReader(Kubectl(context="prod"))
    raw, display = reader.read("n1", threading.Event())
    assert kubelet_config(raw, display)["maxPods"] == 110  # the published value
    assert calls.read_text().splitlines() == [
        "get --raw /api/v1/nodes/n1/proxy/configz --request-timeout=10s --context=prod"
    ]
    with pytest.raises(
        ConfigzError,
        match=r"failed \(exit 1\): Error from server \(NotFound\); .* may get /api/v1/nodes/bad/proxy/configz",
    ):
        reader.read("bad", threading.Event())


# -- the command ----------------------------------------------------------------------------------------------------


def test_live_with_configz_reads_both_through_kubectl(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``serve --live --configz --once``: a stand-in kubectl (ALLOCATABLE_KUBECTL) prints the published node for
    ``get nodes`` and the published configz, with the repo's kubeReserved written into it, for ``get --raw``: the
    node's five fields match (exit 0), and kubectl was asked for exactly the node list and that node's configz."""
    write_repo(repo, {"rp.yaml": POLICY})
    nodes = write_nodes(tmp_path / "nodes.json")
    same = published()
    same["kubeletconfig"]["kubeReserved"] = {"cpu": "500m", "memory": "1Gi"}
    saved = tmp_path / "configz.json"
    saved.write_bytes(body(same))
    calls = tmp_path / "calls"
    kubectl = tmp_path / "kubectl"
    kubectl.write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\nif [ "$2" = "--raw" ]; then cat {saved}; else cat {nodes}; fi\n',
        encoding="utf-8",
    )
    kubectl.chmod(0o755)
    monkeypatch.setenv("ALLOCATABLE_KUBECTL", str(kubectl))
    res = run_cli("serve", str(repo), "--live", "--context", "prod", "--configz", "--once")
    found = samples(res.stdout)
    assert "allocatable_node_config_drift" not in found
    assert value(found, "allocatable_pool_config_nodes", pool=POOL, state="match") == 1
    assert calls.read_text().splitlines() == [
        "get nodes -o json --request-timeout=60s --context=prod",
        f"get --raw /api/v1/nodes/{NODE_NAME}/proxy/configz --request-timeout=10s --context=prod",
    ]
    # kubelet allocatable still differs (EKS's own reservation is what the node runs): exit 1 is verify's drift
    assert res.exit_code == 1


def test_once_with_saved_outputs_prints_the_drift_and_exits_1(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"rp.yaml": POLICY})
    saved = tmp_path / "configz"
    saved.mkdir()
    (saved / f"{NODE_NAME}.json").write_bytes(PUBLISHED.read_bytes())
    nodes = write_nodes(tmp_path / "nodes.json")
    res = run_cli("serve", str(repo), "--nodes", str(nodes), "--configz", "--configz-dir", str(saved), "--once")
    assert res.exit_code == 1, res.stderr
    found = samples(res.stdout)
    fields = sorted(labels["field"] for labels, _ in found["allocatable_node_config_drift"])
    assert fields == ["kubeReserved.cpu", "kubeReserved.memory"]  # the published configz sets no kubeReserved


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--configz"], "--configz with --nodes reads saved outputs: pass --configz-dir DIR"),
        (["--configz-dir", "."], "--configz-dir goes with --configz"),
        (["--configz", "--configz-dir", "no-such-dir"], "--configz-dir no-such-dir: not a directory"),
    ],
)
def test_usage_errors(repo: Path, tmp_path: Path, args: list[str], says: str) -> None:
    nodes = write_nodes(tmp_path / "nodes.json")
    res = run_cli("serve", str(repo), "--nodes", str(nodes), "--once", *args, cwd=tmp_path)
    assert res.exit_code == 2
    assert says in res.stderr and "Traceback" not in res.stderr


def test_the_monitoring_target_grants_nodes_proxy_only_when_configz_is_on(tmp_path: Path) -> None:
    from conftest import chdir
    from renderer.capacity.pools import build as build_model
    from renderer.pipeline import load
    from renderer.render.engine import build

    case = REPO_ROOT / "tests/render/cases/monitoring"

    def rendered(settings: str) -> dict[str, list[Any]]:
        root = tmp_path / f"repo{len(settings)}"
        policies = root / "monitoring"
        policies.mkdir(parents=True)
        for name in ("pools.yaml", "reservations.yaml"):
            (policies / name).write_text((case / name).read_text("utf-8"), "utf-8")
        (policies / ".allocatable.yaml").write_text(
            "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n" + settings, "utf-8"
        )
        with chdir(root):
            result = load([Path("monitoring")])
            assert result.ok, result.findings
            files = build(result, build_model(result.policies), ["monitoring"]).files
        return {n: [d for d in yaml.safe_load_all(b.decode()) if d] for n, b in files.items()}

    off, on = rendered(""), rendered("render:\n  monitoring:\n    configz: true\n")
    nodes = {"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}
    assert off["monitoring/rbac.yaml"][0]["rules"] == [nodes]
    assert on["monitoring/rbac.yaml"][0]["rules"] == [
        nodes,
        {"apiGroups": [""], "resources": ["nodes/proxy"], "verbs": ["get"]},  # the one verb /configz needs
    ]
    args = {
        name: files["monitoring/deployment.yaml"][1]["spec"]["template"]["spec"]["containers"][0]["args"]
        for name, files in (("off", off), ("on", on))
    }
    assert "--configz" not in args["off"] and args["on"] == [*args["off"], "--configz"]
    alerts = {
        name: [r["alert"] for g in files["monitoring/prometheusrule.yaml"][0]["spec"]["groups"] for r in g["rules"]]
        for name, files in (("off", off), ("on", on))
    }
    assert "AllocatableConfigDrift" not in alerts["off"] and alerts["on"] == [*alerts["off"], "AllocatableConfigDrift"]
