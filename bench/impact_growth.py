"""Growth checks of the impact simulation on the cases that were slow (issue 30 items 1, 2, 3, 10): each case at a
size and at twice (or ten times) that size, each run a fresh process with its own peak RSS.

    python bench/impact_growth.py [--cases distinct-requests,daemonsets,taints,preferred] [--scale 1.0]
        [--pythonpath DIR]

Cases (the simulation as ``renderer.impact.repack.simulate`` runs it, nodes and pods read from the objects a dump
holds, through the project's own readers):

- ``distinct-requests``: N nodes (16 cpu, 64Gi, 3 zones) and N Pending pods whose cpu requests are 1m apart
  (500m + k m): a pod shape per pod (item 1; 2,000/2,000 took about 50 s on the issue's machine);
- ``same-requests``: the same with one shared request (the case the per-shape trees were fast on);
- ``daemonsets``: N nodes each running 10 one-pod DaemonSets of their own (owners that name many distinct
  DaemonSets), allocatable cut by 1 cpu (item 10);
- ``taints``: one node with T ``NoSchedule`` taints and a Pending pod tolerating every one (item 2; 16,000 took 25 s);
- ``preferred``: 200 nodes in 3 zones, 20 Pending pods with T preferred terms each on the zone and a key of their own
  (item 3; 2,000 terms took 13-21 s).

Prints per case and size: CPU seconds of the simulation (the objects are built before the clock starts), the peak
RSS of the process, and the growth between the two sizes (x2 data: x2 is linear). ``--pythonpath`` runs another
checkout's ``renderer`` (a "before" figure). Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

_CHILD = r"""
import json, resource, sys, time
from renderer.impact.nodes import node_from_object
from renderer.impact.pods import pod_from_object
from renderer.impact.repack import simulate

case, n = sys.argv[1], int(sys.argv[2])


def node(i, **extra):
    meta = {"name": f"n{i:05d}", "labels": {"pool": "p", "topology.kubernetes.io/zone": f"z{i % 3}"}}
    return node_from_object(
        {"metadata": meta, "spec": extra, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}},
        pool_labels=("pool",),
    )


def pod(name, cpu, node_name=None, owner=("ReplicaSet", "rs"), **spec):
    meta = {"name": name, "namespace": "d", "creationTimestamp": "2025-01-01T00:00:00Z",
            "ownerReferences": [{"kind": owner[0], "name": owner[1], "controller": True}]}
    body = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}], **spec}
    if node_name:
        body["nodeName"] = node_name
    return pod_from_object({"metadata": meta, "spec": body, "status": {"phase": "Running" if node_name else "Pending"}})


change = {}
if case in ("distinct-requests", "same-requests"):
    nodes = [node(i) for i in range(n)]
    step = case == "distinct-requests"
    pods = [pod(f"p{k}", f"{500 + (k if step else 0)}m", owner=("ReplicaSet", f"rs{k}")) for k in range(n)]
elif case == "daemonsets":
    nodes = [node(i) for i in range(n)]
    pin = lambda name: {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}]}}}
    pods = [pod(f"a{i}-{j}", "50m", f"n{i:05d}", ("DaemonSet", f"agent-{i}-{j}"), affinity=pin(f"n{i:05d}"))
            for i in range(n) for j in range(10)]
    change = {"p": {"cpu": 15000}}
elif case == "taints":
    taints = [{"key": f"example.com/t{k}", "value": f"v{k}", "effect": "NoSchedule"} for k in range(n)]
    nodes = [node(0, taints=taints)]
    tolerations = [{"key": t["key"], "operator": "Equal", "value": t["value"], "effect": "NoSchedule"} for t in taints]
    pods = [pod("tolerant", "100m", tolerations=tolerations)]
elif case == "preferred":
    nodes = [node(i) for i in range(200)]
    terms = [{"weight": 1 + k % 100, "preference": {"matchExpressions": [
        {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [f"z{k % 3}"]},
        {"key": f"example.com/k{k}", "operator": "DoesNotExist"}]}} for k in range(n)]
    affinity = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": terms}}
    pods = [pod(f"p{k}", "100m", owner=("ReplicaSet", f"rs{k}"), affinity=affinity) for k in range(20)]
else:
    raise SystemExit(f"unknown case {case}")
t = time.process_time()
result = simulate(nodes, pods, change)
cpu = time.process_time() - t
print(json.dumps({"cpu": cpu, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "counters": dict(result.counters)}))
"""

#: case -> the two sizes measured (the second twice the first, or ten times for the cheap ones)
SIZES = {
    "distinct-requests": (1000, 2000),
    "same-requests": (1000, 2000),
    "daemonsets": (1000, 2000),
    "taints": (8000, 16000),
    "preferred": (1000, 2000),
}


def run(case: str, n: int, pythonpath: str | None) -> dict[str, float]:
    env = dict(os.environ)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    # run from the checkout given (or from the system's temporary directory): ``-c`` puts the working directory
    # first on the path, and this checkout's renderer must not shadow another's
    cwd = pythonpath or tempfile.gettempdir()
    out = subprocess.run([sys.executable, "-c", _CHILD, case, str(n)], capture_output=True, text=True, env=env, cwd=cwd)
    if out.returncode:
        raise SystemExit(f"{case} {n}: {out.stderr.strip().splitlines()[-1]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", default=",".join(SIZES))
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every size (0.5 for a quick look)")
    parser.add_argument("--pythonpath", help="run this checkout's renderer (its parent directory)")
    args = parser.parse_args()
    print("| case | size | CPU s | peak RSS MB | size x2 | CPU s | peak RSS MB | growth (CPU) |")
    print("|---|---|---|---|---|---|---|---|")
    for case in args.cases.split(","):
        small, large = (max(1, int(s * args.scale)) for s in SIZES[case])
        a, b = run(case, small, args.pythonpath), run(case, large, args.pythonpath)
        growth = b["cpu"] / a["cpu"] if a["cpu"] > 0 else float("nan")
        print(
            f"| {case} | {small:,} | {a['cpu']:.2f} | {a['rss']:.0f} | {large:,} | {b['cpu']:.2f} | {b['rss']:.0f} "
            f"| x{growth:.1f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
