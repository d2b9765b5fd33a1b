"""What ``serve --configz`` adds to a cycle: one configz read and comparison per node, at fleet sizes.

    python bench/serve_configz.py [--nodes 500 2000] [--runs 3]

The fleet: the published EKS node of tests/real-nodes (serve_support's) under ``--nodes`` names, the policy of
tests/serve/test_configz.py (five fields rendered per node), and for every node the published configz of
tests/serve/configz (a few KiB, as a kubelet sends it). One process runs, per size, a serve cycle without
``--configz``, with ``--configz-dir`` (saved files), and with the API reader against a loopback HTTP server replaying
the node list and the configz bodies (8 reads at once, as in a cluster; no latency of a real kubelet: the figure is
serve's own cost). Printed: the median wall seconds of each, the ratio to the cycle without, and microseconds per
node of the configz part; growth from the smaller size to the larger shows it is linear in nodes.

Figures only (docs/serve.md, "Kubelet configuration (configz)"): nothing passes or fails.
"""

from __future__ import annotations

import argparse
import copy
import io
import json
import statistics
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from renderer.serve.configz import ApiReader, DirReader
from renderer.serve.kubeapi import Endpoint
from renderer.serve.service import Service
from renderer.serve.sources import ApiSource, FileSource

ROOT = Path(__file__).resolve().parent.parent
NODE = ROOT / "tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml"
CONFIGZ = ROOT / "tests/serve/configz/published-kubeadm.json"
POLICY = """apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata: {name: eks}
spec:
  selector:
  - matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: Exists}]
  kubeReserved: {cpu: 500m, memory: 1Gi}
  evictionHard: {memory.available: 100Mi, nodefs.available: 10%}
  enforceNodeAllocatable: [pods]
"""


def _fleet(n: int) -> list[dict[str, Any]]:
    base = yaml.safe_load(NODE.read_text(encoding="utf-8"))
    out = []
    for i in range(n):
        node = copy.deepcopy(base)
        name = f"ip-10-{i // 62500}-{i // 250 % 250}-{i % 250}.ec2.internal"
        node["metadata"]["name"] = name
        node["metadata"]["labels"]["kubernetes.io/hostname"] = name
        out.append(node)
    return out


def _serve_api(listing: bytes, configz: bytes) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            payload = listing if self.path.split("?", 1)[0] == "/api/v1/nodes" else configz
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def _cycle(s: Service) -> float:
    s.log = io.StringIO()
    began = time.perf_counter()
    assert s.cycle(), s.last_error
    return time.perf_counter() - began


def measure(n: int, runs: int, work: Path) -> dict[str, float]:
    policies = work / f"policies-{n}"
    policies.mkdir()
    (policies / "rp.yaml").write_text(POLICY, encoding="utf-8")
    nodes = _fleet(n)
    listing = json.dumps({"kind": "NodeList", "apiVersion": "v1", "metadata": {}, "items": nodes}).encode()
    dump = work / f"nodes-{n}.json"
    dump.write_bytes(listing)
    saved = work / f"configz-{n}"
    saved.mkdir()
    body = CONFIGZ.read_bytes()
    for node in nodes:
        (saved / f"{node['metadata']['name']}.json").write_bytes(body)
    token = work / "token"
    token.write_text("bench-token", encoding="utf-8")
    server = _serve_api(listing, body)
    ep = Endpoint(base=f"http://127.0.0.1:{server.server_address[1]}", token_file=str(token), ca_file=None)
    try:
        plain = Service.of(policies, FileSource(str(dump), None, None, None), 60.0)
        files = Service.of(policies, FileSource(str(dump), None, None, None), 60.0)
        files.configz = DirReader(str(saved))
        api_plain = Service.of(policies, ApiSource(ep, None, None, None), 60.0)
        api = Service.of(policies, ApiSource(ep, None, None, None), 60.0)
        api.configz = ApiReader(ep)
        for s in (plain, files, api_plain, api):
            _cycle(s)  # loads the policy, warms the caches
        times: dict[str, list[float]] = {"files": [], "files+configz": [], "api": [], "api+configz": []}
        for _ in range(runs):
            times["files"].append(_cycle(plain))
            times["files+configz"].append(_cycle(files))
            times["api"].append(_cycle(api_plain))
            times["api+configz"].append(_cycle(api))
    finally:
        server.shutdown()
        server.server_close()
    return {k: statistics.median(v) for k, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[500, 2000])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="allocatable-bench-configz-") as tmp:
        for n in args.nodes:
            got = measure(n, args.runs, Path(tmp))
            for source in ("files", "api"):
                base, more = got[source], got[f"{source}+configz"]
                print(
                    f"nodes={n} {source}: cycle {base:.3f}s, with configz {more:.3f}s (x{more / base:.2f}), "
                    f"configz {1e6 * (more - base) / n:.0f} us/node"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
