"""``allocatable explain`` views: one form per resource column, one resource order everywhere, rules only where
they apply."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from support.factory import Document, commit_class, node_pool, write_repo

REPO_ROOT = Path(__file__).resolve().parents[2]
POLICIES = REPO_ROOT / "policies"
ORDER = ["cpu", "memory", "ephemeral-storage", "pods"]
ROW_LABELS = {"capacity", "systemReserved", "kubeReserved", "hard eviction", "hugepages", "allocatable", "percent"}
ROW_LABELS |= {"committed", "cluster"}


def _batch(name: str = "batch", count: int = 3) -> Document:
    """3 nodes of 4 cores, 16Gi, 100Gi and 110 pods, labelled example.com/tier=<name>."""
    return node_pool(
        name, tier=name, cpu="4", memory="16Gi", capacity={"ephemeral-storage": "100Gi", "pods": "110"}, count=count
    )


POOL = _batch()
OVER = commit_class("batch", tier="batch", percents={"cpu": 200})


def _columns(text: str) -> dict[str, list[str]]:
    """resource heading → every cell shown under it, across all pool and totals tables."""
    out: dict[str, list[str]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if re.match(r"^ {10,}cpu \(cores\)", line):  # a heading row
            starts = [m.start() for m in re.finditer(r"(?<=  )\S", line)]
            names = [line[s:].split("  ")[0] for s in starts]
            for row in lines[i + 1 :]:
                if row[2:].split("  ")[0].split(" (")[0] not in ROW_LABELS:
                    break
                for name, start, end in zip(names, starts, [*starts[1:], None], strict=True):
                    out.setdefault(name, []).append(row[start:end].strip())
    return out


def test_one_unit_per_column() -> None:
    text = run_cli("explain", str(POLICIES)).stdout
    cols = _columns(text)
    assert set(cols) == {"cpu (cores)", "memory", "ephemeral-storage", "pods"}
    for cell in cols["cpu (cores)"]:  # cpu always in cores: no millicores, no quantity suffixes, no percentages
        assert re.fullmatch(r"\d+(\.\d{1,3})?%?|-", cell), cell
    for resource in ("memory", "ephemeral-storage"):
        for cell in cols[resource]:  # node-sized bytes: Gi, two decimals unless whole (docs/cli.md#units)
            assert re.fullmatch(r"-|0|\d+(\.\d\d)?Gi|\d+%", cell), (resource, cell)
    assert "Ki" not in "".join(cols["memory"] + cols["ephemeral-storage"])


def test_explain_values_against_the_policies() -> None:
    text = run_cli("explain", str(POLICIES), "--pool", "eks-general-purpose").stdout
    # eks.yaml: capacity cpu "8", memory 32386524Ki; eks-static reserves 100m + 110m cpu, 100Mi + 893Mi memory;
    # evictionHard memory.available 100Mi; general-purpose-burst: cpu 150%.
    # 32386524Ki = 30.886 GiB; 100Mi = 0.098 GiB; 32386524Ki − 1093Mi = 31267292Ki = 29.819 GiB.
    assert "  capacity        8            30.89Gi " in text
    assert "  systemReserved  0.1          0.10Gi " in text
    assert "  allocatable     7.79         29.82Gi " in text  # 8 − 0.21
    assert "  committed       11.685       " in text  # 7.79 × 150%
    assert "  cluster (×12)   140.22       " in text
    assert "  reserved from:       systemReserved explicit; kubeReserved explicit\n" in text


def test_the_exact_lines_are_what_the_kubelet_writes() -> None:
    """What ``kubectl describe node`` compares with: the canonical quantities of -o json, for every pool."""
    text = run_cli("explain", str(POLICIES)).stdout
    pools = json.loads(run_cli("explain", str(POLICIES), "-o", "json").stdout)["pools"]
    blocks = text.split("\n\n")
    for pool, block in zip(pools, blocks, strict=False):
        for label, key in (("capacity", "capacity"), ("allocatable", "allocatable")):
            shown = [f"{r} {pool[key][r]}" for r in ("memory", "ephemeral-storage") if r in pool[key]]
            assert f"  {'exact ' + label + ':':<20} {', '.join(shown)}\n" in block + "\n", (pool["name"], block)


def test_same_resource_order_in_tables_totals_and_json() -> None:
    text = run_cli("explain", str(POLICIES)).stdout
    headings = [ln.split() for ln in text.splitlines() if "cpu (cores)" in ln]
    for h in headings:
        names = [n for n in " ".join(h).replace("cpu (cores)", "cpu").split()]
        assert names == [r for r in ORDER if r in names]
    doc = json.loads(run_cli("explain", str(POLICIES), "-o", "json").stdout)
    for key in ("capacity", "allocatable", "committedAllocatable"):
        assert [k for k in doc["totals"][key] if k in ORDER] == [r for r in ORDER if r in doc["totals"][key]]
    for pool in doc["pools"]:
        for key in ("percent", "commitRule", "capacity", "allocatable", "committedAllocatable", "evictionReserved"):
            keys = [k for k in pool[key] if k in ORDER]
            assert keys == [r for r in ORDER if r in keys], (pool["name"], key, keys)


def test_under_commit_rule_only_when_a_class_under_commits(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {"pool.yaml": POOL, "cc.yaml": OVER})
    text = run_cli("explain", cwd=tmp_path).stdout
    assert "under-commit" not in text
    assert "  commit rule:\n    cpu: 200%, reserved slices scale" in text
    assert "memory: 100%" not in text  # rules only for the resources a class changes
    under = commit_class("batch", tier="batch", percents={"cpu": 80})
    write_repo(tmp_path / "policies", {"cc.yaml": under})
    text = run_cli("explain", cwd=tmp_path).stdout
    assert "  under-commit: reserved slices scale with the class (commit.underCommitScalesReserved)" in text
    write_repo(tmp_path / "policies", {"cc.yaml": _batch("other", count=4)})
    text = run_cli("explain", cwd=tmp_path).stdout
    assert "commit rule" not in text and "under-commit" not in text


def test_totals_are_a_table_in_pool_order(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {"pool.yaml": POOL, "cc.yaml": OVER})
    text = run_cli("explain", cwd=tmp_path).stdout
    totals = text.split("Totals: 1 pool, 3 nodes\n", 1)[1]
    # 3 nodes of 4 cores, 16Gi, 100Gi, 110 pods; kubelet default eviction 100Mi memory, 10% nodefs; cpu 200%.
    # nodefs 10% as the kubelet holds it (float32 0.1): 107374182400 x 0.100000001490116 = 10737418400 per node.
    # 3 × (16Gi − 100Mi) = 48852Mi = 47.707 GiB; 3 × (100Gi − 10737418400) = 289910292000 bytes = 269.9999 GiB.
    assert totals.splitlines()[:4] == [
        "               cpu (cores)  memory   ephemeral-storage  pods",
        "  capacity     12           48Gi     300Gi              330",
        "  allocatable  12           47.71Gi  270.00Gi           330",
        "  committed    24           47.71Gi  270.00Gi           330",
    ]


def _plain_document(model: Any, pc: Any) -> dict[str, Any]:
    """The reference a pool's document is checked against: every mapping sorted by key, every value made afresh,
    then the whole put in resource order by ``reorder`` (the construction explain used before fragments and key
    orders; written out here so that the fast path is compared with something other than itself)."""
    from renderer.capacity.explain import delivery
    from renderer.capacity.explain_document import reorder

    def texts(d: dict[str, Any]) -> dict[str, str]:
        return {k: str(v) for k, v in sorted(d.items())}

    def times(d: dict[str, Any]) -> dict[str, str]:
        return texts({k: v.scale(count) for k, v in d.items() if k in ORDER})

    def overhead(o: Any) -> dict[str, Any]:
        return {
            "name": o.runtime_class.name,
            "handler": o.runtime_class.model.handler,
            "podFixed": texts(o.pod_fixed),
            "podsFitByOverhead": dict(sorted(o.pods_fit.items())),
            "podsFit": o.limiting_pods,
            "maxPodsOverhead": texts(o.max_pods_overhead),
            "maxPodsOverheadPercent": {
                k: (None if v is None else f"{v:.2f}") for k, v in sorted(o.max_pods_share.items())
            },
        }

    count = pc.pool.count
    return reorder(  # type: ignore[no-any-return]
        {
            "name": pc.pool.name,
            "origin": pc.pool.origin,
            "count": count,
            "platform": pc.pool.platform,
            "labels": dict(sorted(pc.pool.labels.items())),
            "commitClasses": [c.name for c in pc.commit_classes],
            "percent": dict(pc.percent),
            "commitRule": dict(pc.commit_rule),
            "reservationPolicies": [p.name for p in pc.reservation_policies],
            "formula": pc.formula.formula if pc.formula else None,
            "platformDefault": pc.platform_default.name if pc.platform_default else None,
            "capacity": texts(pc.capacity),
            "systemReserved": {k: str(v.quantity) for k, v in sorted(pc.system_reserved.items())},
            "kubeReserved": {k: str(v.quantity) for k, v in sorted(pc.kube_reserved.items())},
            "reservedSources": {
                "systemReserved": {k: v.source for k, v in sorted(pc.system_reserved.items())},
                "kubeReserved": {k: v.source for k, v in sorted(pc.kube_reserved.items())},
            },
            "evictionHard": dict(sorted(pc.eviction_hard.items())),
            "evictionHardSource": pc.eviction_source,
            "evictionReserved": texts(pc.eviction_reserved),
            "maxPods": pc.max_pods,
            "allocatable": texts(pc.allocatable),
            "committedAllocatable": texts(pc.committed),
            "clusterTotals": {
                "nodes": count,
                "capacity": times(pc.capacity),
                "allocatable": times(pc.allocatable),
                "committedAllocatable": times(pc.committed),
            },
            "runtimeClasses": [overhead(o) for o in pc.overhead],
            "notes": list(pc.notes),
            "delivery": delivery(pc, model.policies.settings.render.karpenter.expressions),
        }
    )


# Text: the order of the label map as written is what the test is about.
EDGES = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: one-with-hugepages
spec:
  labels: {pods: "x", cpu: "y", example.com/a: "1", a.example.com/z: "2"}
  capacity: {cpu: "4", memory: 16Gi, ephemeral-storage: 100Gi, pods: "110", hugepages-2Mi: 1Gi}
  count: 1
---
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: none-yet
spec:
  labels: {example.com/tier: spare}
  capacity: {cpu: "3500m", memory: 7Gi, ephemeral-storage: 50Gi, pods: "58"}
  count: 0
---
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: kata
handler: kata
overhead:
  podFixed: {memory: 160Mi, cpu: 250m}
"""


@pytest.mark.parametrize("repo", ["policies", "edges"])
def test_pool_documents_are_the_plain_construction(repo: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``pool_json`` makes each shared value's JSON once (``Fragments``) and keeps key orders per key tuple; every
    pool's document must equal, as JSON text, the plain construction above, also when the kept fragments and orders
    are dropped part-way (a limit of 3: made again for later pools). ``edges``: labels named like resources (the
    whole label map then goes in resource order), a node of its own with hugepages (left out of its cluster totals),
    a pool of no nodes, a RuntimeClass with overhead on every pool."""
    from renderer.capacity.explain_document import Fragments, pool_json
    from renderer.capacity.pools import build
    from renderer.pipeline import load

    root = POLICIES
    if repo == "edges":
        root = write_repo(tmp_path / "repo", {"pools.yaml": POOL, "edges.yaml": EDGES})
    model = build(load([root]).policies)
    expected = [_plain_document(model, pc) for pc in model.pools]
    assert len(expected) >= 3
    if repo == "edges":
        one = next(d for d in expected if d["name"] == "one-with-hugepages")
        assert list(one["labels"]) == ["cpu", "pods", "a.example.com/z", "example.com/a"]
        assert "hugepages-2Mi" in one["capacity"] and "hugepages-2Mi" not in one["clusterTotals"]["capacity"]
        assert all(d["runtimeClasses"] for d in expected)
    for limit in (Fragments.LIMIT, 3):
        monkeypatch.setattr(Fragments, "LIMIT", limit)
        fragments = Fragments()
        got = [pool_json(model, pc, fragments) for pc in model.pools]
        assert [json.dumps(d) for d in got] == [json.dumps(d) for d in expected]
