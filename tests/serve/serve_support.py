"""Shared by the serve tests: the published EKS node and a Service over files in a temporary directory.

The node is tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml (AhmadShaaban1/cloud-native-ecommerce@51cf73f): a
t3.small of the managed node group ``ecommerce-dev-node-group``, capacity cpu 2, memory 1959264Ki, pods 11; it reports
allocatable cpu 1930m, memory 1471840Ki, ephemeral-storage 18181869946, pods 11, which EKS's own reservation
reproduces exactly (tests/verify/test_real_nodes.py), so with no policy the node matches.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO_ROOT
from renderer.serve.service import Service
from renderer.serve.sources import FileSource

NODE_FILE = REPO_ROOT / "tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml"
NODE_NAME = "ip-10-0-10-170.ec2.internal"
POOL = "ecommerce-dev-node-group"

#: The policy of test_causes.py's "not rolled out" case: the node still runs EKS's defaults.
KUBE_RESERVED = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata: {name: eks}
spec:
  selector:
  - matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: Exists}]
  kubeReserved: {cpu: 500m, memory: 1Gi}
"""


def real_node() -> dict[str, Any]:
    return yaml.safe_load(NODE_FILE.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def node_list(*nodes: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(nodes)}


def write_nodes(path: Path, *nodes: dict[str, Any]) -> Path:
    path.write_text(json.dumps(node_list(*(nodes or (real_node(),)))), encoding="utf-8")
    return path


def service(policies: Path, nodes: Path, pods: Path | None = None) -> Service:
    s = Service.of(policies, FileSource(str(nodes), str(pods) if pods else None, None, None), 60.0)
    s.log = io.StringIO()
    return s


def samples(text: bytes | str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Sample name → (labels, value) of an exposition, parsed by prometheus_client's own parser."""
    out: dict[str, list[tuple[dict[str, str], float]]] = {}
    raw = text.decode("utf-8") if isinstance(text, bytes) else text
    for family in text_string_to_metric_families(raw):
        for s in family.samples:
            out.setdefault(s.name, []).append((dict(s.labels), s.value))
    return out


def value(found: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    """The one sample of ``name`` whose labels include ``labels``."""
    matching = [v for got, v in found.get(name, []) if all(got.get(k) == x for k, x in labels.items())]
    assert len(matching) == 1, (name, labels, found.get(name))
    return matching[0]
