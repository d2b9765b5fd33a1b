"""``allocatable diff`` with extended resources (issue 34 item 7): a GPU count a change moves is in every format's
capacity tables (text, markdown, html, json), only where the data has it, so a CPU-only fleet's tables keep their
columns and a CPU-only pool's table keeps its width beside a GPU pool.

The fleet: the published GPU node tests/real-nodes/eks/mng-al2023-g4dn-xlarge-gpu-1-34.yaml (an EKS g4dn.xlarge
with the NVIDIA device plugin, capacity and allocatable ``nvidia.com/gpu: "1"``; its source in its header), a
CPU-only pool ``general`` (3 nodes) and a GPU pool ``gpu`` (2 nodes of 1 GPU). The change: ``gpu`` goes to 3 nodes
of 4 GPUs (a bigger instance type) and ``general`` to 4 nodes. Worked by hand: the kubelet reserves no GPU and no
CommitClass applies to one, so committed = capacity: per ``gpu`` node 1 → 4 (+3, +300.0%), the ``gpu`` pool 2 × 1 = 2
→ 3 × 4 = 12 (+10, +500.0%), the cluster 1 (the real node) + 2 = 3 → 1 + 12 = 13 (+10, +333.3%).
"""

from __future__ import annotations

import html as htmllib
import json
from pathlib import Path

from delivery_support import REPO_ROOT, SETTINGS, commit_all, init_repo, policy_repo, pool, reservation

from conftest import run_cli
from support.factory import Document, node_pool, write_repo
from support.html_pages import page

GPU_NODE = REPO_ROOT / "tests/real-nodes/eks/mng-al2023-g4dn-xlarge-gpu-1-34.yaml"


def gpu_pool(*, gpus: int, count: int) -> Document:
    """The GPU pool: 8 cores, 32Gi, 100Gi, 58 pods and ``gpus`` GPUs per node, ``count`` nodes."""
    capacity = {"ephemeral-storage": "100Gi", "pods": "58", "nvidia.com/gpu": str(gpus)}
    return node_pool("gpu", tier="gpu", count=count, capacity=capacity)


def _fleet(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    write_repo(
        repo,
        {
            "policies/.allocatable.yaml": SETTINGS,
            "policies/pools.yaml": [pool("general"), gpu_pool(gpus=1, count=2)],
            "policies/reservations.yaml": reservation(),
        },
    )
    (repo / "policies" / "inventory").mkdir()
    (repo / "policies" / "inventory" / "gpu-node.yaml").write_bytes(GPU_NODE.read_bytes())
    commit_all(repo, "base")
    write_repo(repo, {"policies/pools.yaml": [pool("general", count=4), gpu_pool(gpus=4, count=3)]})
    return repo


def _diff(repo: Path, fmt: str) -> str:
    r = run_cli("diff", "policies", "--base", "main", "-o", fmt, cwd=repo)
    assert r.exit_code == 0, r.stdout + r.stderr
    return r.stdout


def test_json_carries_the_gpus(tmp_path: Path) -> None:
    data = json.loads(_diff(_fleet(tmp_path), "json"))
    gpu = next(p for p in data["pools"] if p["name"] == "gpu")
    assert gpu["committed"]["nvidia.com/gpu"] == {"before": "1", "after": "4", "delta": "3", "deltaPercent": "300.0"}
    assert gpu["allocatable"]["nvidia.com/gpu"]["after"] == "4"
    assert gpu["reasons"] == ["node count 2 → 3", "nvidia.com/gpu per node 1 → 4"]
    assert gpu["cluster"]["nvidia.com/gpu"] == {"before": "2", "after": "12", "delta": "10", "deltaPercent": "500.0"}
    general = next(p for p in data["pools"] if p["name"] == "general")
    assert "nvidia.com/gpu" not in general["committed"]
    totals = data["totals"]["committedAllocatable"]["nvidia.com/gpu"]
    assert totals == {"before": "3", "after": "13", "delta": "10", "deltaPercent": "333.3"}


def test_text_shows_the_gpus_where_a_table_has_them(tmp_path: Path) -> None:
    lines = _diff(_fleet(tmp_path), "text").splitlines()
    general = lines.index(next(ln for ln in lines if ln.startswith("NodePool/general ")))
    assert lines[general + 1].split() == ["nodes", "cpu", "memory", "ephemeral-storage", "pods"]  # no GPU column
    gpu = lines.index(next(ln for ln in lines if ln.startswith("NodePool/gpu ")))
    assert lines[gpu + 1].split()[-1] == "nvidia.com/gpu"
    assert lines[gpu + 2].endswith("  1 → 4 (+300.0%)")  # committed/node
    assert lines[gpu + 3].endswith("  +10 (+500.0%)")  # cluster
    totals = lines.index(next(ln for ln in lines if ln.startswith("cluster committed ")))
    assert lines[totals].split()[-1] == "nvidia.com/gpu"
    assert [lines[totals + i].split()[-1] for i in (1, 2)] == ["3", "13"]
    assert lines[totals + 3].endswith("  +10 (+333.3%)")


def test_markdown_shows_the_gpus(tmp_path: Path) -> None:
    md = _diff(_fleet(tmp_path), "markdown").splitlines()
    heading = "| pool | nodes | cpu (cores) | memory | ephemeral-storage | pods | nvidia.com/gpu | why |"
    at = md.index(heading)
    rows = {r.split(" | ")[0]: r.split(" | ") for r in md[at + 2 : at + 4]}
    assert rows["| `general`"][6] == "—"  # a CPU-only pool has no GPU
    assert rows["| `gpu`"][6] == "1 → 4 (+300.0%)"
    totals = md.index("| | nodes | cpu (cores) | memory | ephemeral-storage | pods | nvidia.com/gpu |")
    assert md[totals + 4].endswith(" | +10 (+333.3%) |")
    # the per-pool arithmetic: general's table keeps its five columns, gpu's has the GPU
    assert md.count("| | cpu (cores) | memory | ephemeral-storage | pods |") == 1
    assert md.count("| | cpu (cores) | memory | ephemeral-storage | pods | nvidia.com/gpu |") == 1


def test_html_shows_the_gpus(tmp_path: Path) -> None:
    html = _diff(_fleet(tmp_path), "html")
    text = htmllib.unescape("".join(page(html).text))
    assert "nvidia.com/gpu: before 1, after 4, change +3 (+300.0%)" in text  # the gpu pool's bar pair
    assert "nvidia.com/gpu: before 3, after 13, change +10 (+333.3%)" in text  # the cluster's
    assert '<th scope="col">nvidia.com/gpu</th>' in html


def test_a_cpu_only_fleet_has_no_more_columns(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=5)})
    md = _diff(repo, "markdown")
    assert "| pool | nodes | cpu (cores) | memory | ephemeral-storage | pods | why |" in md
    assert "| | nodes | cpu (cores) | memory | ephemeral-storage | pods |" in md
    assert "/" not in json.dumps(json.loads(_diff(repo, "json"))["totals"])


def test_a_gpu_count_is_named_beside_the_other_reasons() -> None:
    from renderer.capacity.diff import Change, PoolDiff
    from renderer.quantity import Quantity

    def change(before: str, after: str) -> Change:
        return Change(Quantity.parse(before), Quantity.parse(after))

    # same count, classes and policies: memory moved (a reservation or capacity) and the GPUs per node 1 -> 2
    pd = PoolDiff(
        ref="NodePool/gpu",
        name="gpu",
        origin="NodePool",
        status="changed",
        count=(2, 2),
        committed={},
        allocatable={"memory": change("30Gi", "29Gi"), "nvidia.com/gpu": change("1", "2")},
        cluster={},
        commit_classes=([], []),
        reservation_policies=(["static"], ["static"]),
        percent=({}, {}),
        platform="eks",
        source="policies/pools.yaml",
    )
    assert pd.reasons == ["reservations, eviction thresholds or capacity changed", "nvidia.com/gpu per node 1 → 2"]
    pd.allocatable.pop("memory")
    assert pd.reasons == ["nvidia.com/gpu per node 1 → 2"]
