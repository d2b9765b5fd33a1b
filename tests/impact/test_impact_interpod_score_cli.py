"""InterPodAffinity's score through the command line: where a displaced pod moves, as a user meets it.

docs/examples/impact's snapshot (nodes and pods as tests/impact/test_impact_cli.py describes them), with two edits:
the report pod on ip-10-0-1-10 asks 1500m cpu (1Gi memory) and may run anywhere its toleration allows (no
nodeSelector), and coredns carries ``k8s-app: kube-dns``. ``verify --nodes --pods`` against the example policies
(batch kube-reserved cpu 1500m: the batch nodes fall to 6500m allocatable).

Worked by hand:

- the kubelet re-admits oldest first on ip-10-0-1-10: node-exporter 100m + two training pods 2500m = 5100m, then the
  report pod: 6600m > 6500m: displaced. It fits neither batch node again (5100m + 1500m > 6500m on each), and both
  general nodes (3500m, 15126528Ki = 14772Mi);
- resource scores (LeastAllocated cpu and memory, BalancedAllocation; TaintToleration 100 on both, no preferred node
  affinity): ip-10-0-1-20 holds node-exporter and a frontend (1100m, 1088Mi): with the pod 2600m and 2112Mi:
  cpu 900*100//3500 = 25, memory 12660*100//14772 = 85 -> 55; balanced 1 - |0.7429 - 0.1430|/2 -> 70: 125.
  ip-10-0-2-21 adds coredns (1200m, 1158Mi): 2700m and 2182Mi: cpu 22, memory 85 -> 53; balanced 1 - |0.7714 -
  0.1477|/2 -> 68: 121. Without a preference the pod moves to ip-10-0-1-20;
- with a preferred podAffinity term (weight 50) toward ``k8s-app: kube-dns`` in kube-system on the hostname key:
  raw InterPodAffinity 50 on ip-10-0-2-21 (coredns runs there), 0 on ip-10-0-1-20; normalised 100 and 0, weight 2:
  321 against 125: the pod moves to ip-10-0-2-21. A preferred podAntiAffinity term instead keeps it on ip-10-0-1-20.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, run_cli

EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"
TERM = {
    "weight": 50,
    "podAffinityTerm": {
        "labelSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
        "namespaces": ["kube-system"],
        "topologyKey": "kubernetes.io/hostname",
    },
}


def _moves_to(tmp_path: Path, affinity: dict[str, Any] | None) -> str:
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "policies", repo / "policies")
    data = json.loads((EXAMPLE / "snapshot.json").read_text(encoding="utf-8"))
    for item in data["items"]:
        name = item["metadata"]["name"]
        if name == "report-29001-7f9c":
            spec = item["spec"]
            del spec["nodeSelector"]
            spec["containers"][0]["resources"]["requests"]["cpu"] = "1500m"
            if affinity is not None:
                spec["affinity"] = affinity
        elif name.startswith("coredns-"):
            item["metadata"]["labels"] = {"k8s-app": "kube-dns"}
    (repo / "snapshot.json").write_text(json.dumps(data), encoding="utf-8")
    done = run_cli("verify", "policies", "--nodes", "snapshot.json", "--pods", "snapshot.json", "-o", "json", cwd=repo)
    assert done.exit_code == 1, done.stderr
    impact = json.loads(done.stdout)["impact"]
    (report,) = [p for p in impact["displaced"] if p["pod"] == "batch/report-29001-7f9c"]
    return str(report["movesTo"]["node"])


@pytest.mark.parametrize(
    ("affinity", "node"),
    [
        (None, "ip-10-0-1-20.ec2.internal"),
        ({"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [TERM]}}, "ip-10-0-2-21.ec2.internal"),
        ({"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [TERM]}}, "ip-10-0-1-20.ec2.internal"),
    ],
    ids=["resources alone", "preferred affinity to coredns", "preferred anti-affinity to coredns"],
)
def test_the_preferred_term_decides_where_the_displaced_pod_moves(
    tmp_path: Path, affinity: dict[str, Any] | None, node: str
) -> None:
    assert _moves_to(tmp_path, affinity) == node
