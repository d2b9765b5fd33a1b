"""Topology spread and anti-affinity through the command line, as a user meets them: docs/examples/impact's snapshot
with six more Pending pods of one ReplicaSet (web/api, 200m cpu, 100Mi memory, no tolerations), ``verify --nodes
--pods`` against the example policies.

Worked by hand (the nodes as tests/impact/test_impact_cli.py describes them): the api pods tolerate nothing, so the
two batch nodes (tainted dedicated=batch) reject them; the two general nodes have 2400m and 2300m free.

- hostname spread, maxSkew 1, labelSelector app=api, DoNotSchedule: every node that passes the pod's node affinity
  (all four: nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore, so the tainted batch nodes count) is a domain; the
  batch nodes hold no api pod, so the global minimum stays 0 and a node may hold one api pod: one lands on each general
  node, four stay Pending, each general node now failing the spread filter: "0/4 nodes are available: 2 node(s) didn't
  match pod topology spread constraints, 2 node(s) had untolerated taint {dedicated: batch}.";
- the cluster autoscaler copies a general node (3500m, less node-exporter's 100m): by resources one new node holds
  all four (800m), but each new node is a hostname domain of its own and the minimum is still 0 (the batch nodes), so
  each takes one: 4 nodes (kubernetes/autoscaler TestBinpackingEstimate "hostname topology spreading with maxSkew=2
  forces 2 pods/node" is the same rule with maxSkew 2); the lower bound from total requests stays 1;
- required pod anti-affinity to app=api on the hostname key instead: the same placement (one per general node), the
  reason "node(s) didn't match pod anti-affinity rules", and again 4 new nodes, one pod each.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, run_cli

EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"
SELECTOR = {"matchLabels": {"app": "api"}}
SPREAD = {
    "topologySpreadConstraints": [
        {
            "maxSkew": 1,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "DoNotSchedule",
            "labelSelector": SELECTOR,
        }
    ]
}
ANTI = {
    "affinity": {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": SELECTOR, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
}


def _api_pod(k: int, spec: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"api-7c9d5-{k}",
            "namespace": "web",
            "labels": {"app": "api", "pod-template-hash": "7c9d5"},
            "creationTimestamp": f"2025-03-01T10:00:0{k}Z",
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "api-7c9d5", "controller": True}
            ],
        },
        "spec": {
            "containers": [{"name": "api", "resources": {"requests": {"cpu": "200m", "memory": "100Mi"}}}],
            **spec,
        },
        "status": {"phase": "Pending"},
    }


@pytest.mark.parametrize(
    ("spec", "reason"),
    [
        (SPREAD, "node(s) didn't match pod topology spread constraints"),
        (ANTI, "node(s) didn't match pod anti-affinity rules"),
    ],
    ids=["hostname spread", "hostname anti-affinity"],
)
def test_the_autoscaler_adds_a_node_per_replica_the_constraint_keeps_apart(
    tmp_path: Path, spec: dict[str, Any], reason: str
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "policies", repo / "policies")
    data = json.loads((EXAMPLE / "snapshot.json").read_text(encoding="utf-8"))
    data["items"].extend(_api_pod(k, spec) for k in range(6))
    (repo / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    done = run_cli("verify", "policies", "--nodes", "snapshot.json", "--pods", "snapshot.json", "-o", "json", cwd=repo)
    assert done.exit_code == 1, done.stderr
    impact = json.loads(done.stdout)["impact"]
    api = [p for p in impact["pending"] if p["pod"].startswith("web/api-")]
    assert len(api) == 4
    assert {p["why"]["message"] for p in api} == {
        f"0/4 nodes are available: 2 {reason}, 2 node(s) had untolerated taint {{dedicated: batch}}."
    }
    general = next(p for p in impact["pools"] if p["pool"] == "eks-general")
    scale_up = general["after"]["scaleUp"]
    assert (scale_up["pods"], scale_up["nodes"], scale_up["lowerBound"]) == (4, 4, 1)
    assert "topology spread" not in {n["feature"] for n in impact["notSimulated"]}
