"""explain counts the kubelet's merge of the platform's own file and the drop-in this repository renders, and names
the file that sets each value (renderer.capacity.kubelet_dropins, Platform.kubelet_files); render keeps writing only
the policy's own keys.

Expected figures worked out by hand:
- nodeadm pool, 8 cores, 32Gi, 100Gi, 58 pods; policy kubeReserved {memory: 1Gi}, evictionHard {memory.available:
  500Mi}. nodeadm's config.json holds kubeReserved cpu = 6% x 1000m + 1% x 1000m + 0.5% x 2000m + 0.25% x 4000m
  = 90m and ephemeral-storage 1Gi (nodeadm/internal/kubelet/config.go, as docs/platforms.md states), evictionHard
  memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%. The drop-in's maps merge key by key, so the
  kubelet runs with kubeReserved {cpu 90m, memory 1Gi, ephemeral-storage 1Gi} and evictionHard {memory.available
  500Mi, nodefs.available 10%, nodefs.inodesFree 5%}: allocatable cpu 8 - 0.09 = 7910m; memory 32768Mi - 1024Mi -
  500Mi = 31244Mi; ephemeral-storage 100Gi - 1Gi - the nodefs.available<10% threshold (taken from a policy that
  states 10% itself, so this test checks which thresholds count, not the percentage arithmetic).
- k3s pool, 4 cores, 16Gi, 100Gi; policy kubeReserved {cpu: 100m, memory: 1Gi}, evictionHard {memory.available:
  500Mi}. k3s's 00-k3s-defaults.conf sets evictionHard imagefs.available 5%, nodefs.available 5%; the policy's file
  (10-cli-config.conf) sorts after it, so nodefs.available 5% stays (as the published /configz reading in
  test_kubelet_dropins shows): ephemeral-storage allocatable is 100Gi less 5% of it, where the policy alone says
  100Gi.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli
from support.factory import Document, node_pool, node_selector, reservation_policy, write_repo


def _documents(cpu: str, memory: str, platform: str, pool: dict[str, Any], policy: dict[str, Any]) -> list[Document]:
    """Pool p (one node, 100Gi, 58 pods) on ``platform`` with the ``pool`` spec fields, and its ReservationPolicy."""
    capacity = {"ephemeral-storage": "100Gi", "pods": "58"}
    node = node_pool(
        "p",
        tier=None,
        labels={"tier": "p"},
        cpu=cpu,
        memory=memory,
        capacity=capacity,
        count=1,
        platform=platform,
        **pool,
    )
    return [node, reservation_policy("r", selector=node_selector("tier", ["p"]), **policy)]


def explain(repo: Path, **kw: Any) -> dict[str, Any]:
    write_repo(repo, {"p.yaml": _documents(**kw)})
    res = run_cli("explain", str(repo), "-o", "json")
    assert res.exit_code == 0, res.stderr
    pools: list[dict[str, Any]] = json.loads(res.stdout)["pools"]
    return pools[0]


def ten_percent_of_100gi(repo: Path) -> int:
    """The model's own threshold for nodefs.available<10% on 100Gi, from a policy that states it (so the test
    checks which thresholds count, not the threshold arithmetic, tested in tests/capacity/test_eviction.py)."""
    got = explain(
        repo,
        cpu="8",
        memory="32Gi",
        platform="generic",
        pool={},
        policy={"evictionHard": {"nodefs.available": "10%"}},
    )
    return int(got["evictionReserved"]["ephemeral-storage"])


def test_nodeadm_pool_counts_the_keys_config_json_keeps(repo: Path) -> None:
    ten = ten_percent_of_100gi(repo)
    pc = explain(
        repo,
        cpu="8",
        memory="32Gi",
        platform="eks",
        pool={"maxPods": 58, "delivery": {"nodeadm": True}},
        policy={"kubeReserved": {"memory": "1Gi"}, "evictionHard": {"memory.available": "500Mi"}},
    )
    assert pc["kubeReserved"] == {"cpu": "90m", "memory": "1Gi", "ephemeral-storage": "1Gi"}
    assert pc["reservedSources"]["kubeReserved"] == {
        "cpu": "config.json (nodeadm)",
        "memory": "explicit",
        "ephemeral-storage": "config.json (nodeadm)",
    }
    assert pc["evictionHard"] == {"memory.available": "500Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
    assert pc["allocatable"]["cpu"] == "7910m"
    assert pc["allocatable"]["memory"] == "31244Mi"
    assert int(pc["allocatable"]["ephemeral-storage"]) == 100 * 2**30 - 2**30 - ten
    note = next(n for n in pc["notes"] if n.startswith("kubelet configuration:"))
    assert "config.json (nodeadm) + 40-nodeadm.conf" in note
    assert "kubeReserved cpu, ephemeral-storage from config.json;" in note
    assert "kubeReserved memory from 40-nodeadm.conf (drop-in) over config.json" in note
    assert "evictionHard nodefs.available, nodefs.inodesFree from config.json" in note


def test_nodeadm_render_keeps_only_the_policy_keys(repo: Path, tmp_path: Path) -> None:
    write_repo(
        repo,
        {
            "p.yaml": _documents(
                cpu="8",
                memory="32Gi",
                platform="eks",
                pool={"maxPods": 58, "delivery": {"nodeadm": True}},
                policy={"kubeReserved": {"memory": "1Gi"}, "evictionHard": {"memory.available": "500Mi"}},
            )
        },
    )
    out = tmp_path / "out"
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    text = (out / "nodeadm" / "p.yaml").read_text()
    assert "kubeReserved:\n        memory: 1Gi\n" in text
    assert "evictionHard:\n        memory.available: 500Mi\n" in text
    assert "nodefs" not in text and "90m" not in text
    assert "which explain counts (config.json)" in res.stdout  # AL810 still asks the policy to state the kept keys


def test_k3s_pool_keeps_k3s_disk_threshold(repo: Path) -> None:
    pc = explain(
        repo,
        cpu="4",
        memory="16Gi",
        platform="k3s",
        pool={},
        policy={"kubeReserved": {"cpu": "100m", "memory": "1Gi"}, "evictionHard": {"memory.available": "500Mi"}},
    )
    assert pc["evictionHard"] == {"imagefs.available": "5%", "memory.available": "500Mi", "nodefs.available": "5%"}
    assert int(pc["allocatable"]["ephemeral-storage"]) < 100 * 2**30
    assert pc["allocatable"]["memory"] == f"{16384 - 1024 - 500}Mi"
    note = next(n for n in pc["notes"] if n.startswith("kubelet configuration:"))
    assert "00-k3s-defaults.conf (k3s) + 10-cli-config.conf" in note
    assert "evictionHard imagefs.available, nodefs.available from 00-k3s-defaults.conf (drop-in)" in note


def test_a_pool_without_platform_dropins_is_unchanged(repo: Path) -> None:
    pc = explain(
        repo,
        cpu="8",
        memory="32Gi",
        platform="generic",
        pool={},
        policy={"kubeReserved": {"memory": "1Gi"}, "evictionHard": {"memory.available": "500Mi"}},
    )
    assert pc["evictionHard"] == {"memory.available": "500Mi"}
    assert not any(n.startswith("kubelet configuration:") for n in pc["notes"])


def test_k3s_render_keeps_only_the_policy_thresholds(repo: Path, tmp_path: Path) -> None:
    write_repo(
        repo,
        {
            "p.yaml": _documents(
                cpu="4",
                memory="16Gi",
                platform="k3s",
                pool={},
                policy={
                    "kubeReserved": {"cpu": "100m", "memory": "1Gi"},
                    "evictionHard": {"memory.available": "500Mi"},
                },
            )
        },
    )
    out = tmp_path / "out"
    res = run_cli("render", str(repo), "-o", str(out))
    assert res.exit_code == 0, res.stderr
    text = (out / "kubelet" / "p.yaml").read_text()
    assert "evictionHard:\n  memory.available: 500Mi\n" in text
    assert "imagefs" not in text and "nodefs" not in text  # k3s's own 00-k3s-defaults.conf keeps them
