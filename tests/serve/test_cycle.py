"""A serve cycle: what the metrics say about a published node, a rollout, a bad commit and a fleet that cannot be read.

Expected figures are the published node's (serve_support's docstring) or worked out by hand beside each assertion.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from serve_support import KUBE_RESERVED, NODE_NAME, POOL, real_node, samples, service, value, write_nodes

from support.factory import item_list, pod, write_file, write_repo

KI = 1024


def test_a_matching_node_exports_its_published_allocatable(repo: Path, tmp_path: Path) -> None:
    s = service(repo, write_nodes(tmp_path / "nodes.json"))
    assert not s.ready
    assert s.cycle() is True
    assert s.ready
    found = samples(s.evaluation.text if s.evaluation else b"")
    # status.allocatable as published: cpu 1930m, memory 1471840Ki, ephemeral-storage 18181869946, pods 11
    assert value(found, "allocatable_node_predicted_allocatable", node=NODE_NAME, resource="cpu", unit="core") == 1.93
    assert value(found, "allocatable_node_predicted_allocatable", resource="memory", unit="byte") == 1471840 * KI
    assert value(found, "allocatable_node_predicted_allocatable", resource="ephemeral_storage") == 18181869946
    assert value(found, "allocatable_node_predicted_allocatable", resource="pods", unit="integer") == 11
    assert "allocatable_node_drift" not in found
    assert value(found, "allocatable_pool_nodes", pool=POOL, state="match") == 1
    assert value(found, "allocatable_pool_nodes", pool=POOL, state="drift") == 0
    assert s.errors == {"policy": 0, "nodes": 0, "evaluate": 0}


def test_drift_carries_the_named_cause_and_the_signed_difference(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})
    s = service(repo, write_nodes(tmp_path / "nodes.json"))
    assert s.cycle()
    found = samples(s.evaluation.text if s.evaluation else b"")
    labels = {"node": NODE_NAME, "pool": POOL, "cause": "policy-not-rolled-out"}
    # cpu: predicted 2 cores − 500m kubeReserved = 1.5 (no cpu eviction); reported 1.93 → +0.43
    assert value(found, "allocatable_node_drift", resource="cpu", **labels) == pytest.approx(0.43)
    # memory: predicted 1959264Ki − 1Gi (1048576Ki) − the kubelet's memory.available<100Mi (102400Ki) = 808288Ki;
    # reported 1471840Ki → +663552Ki
    assert value(found, "allocatable_node_drift", resource="memory", **labels) == 663552 * KI
    assert value(found, "allocatable_node_predicted_allocatable", resource="memory") == 808288 * KI
    assert value(found, "allocatable_pool_nodes", pool=POOL, state="drift") == 1
    assert s.evaluation is not None and s.evaluation.tally.drift == 1


def test_a_policy_change_not_on_the_nodes_yet_is_awaiting_rollout_not_drift(repo: Path, tmp_path: Path) -> None:
    s = service(repo, write_nodes(tmp_path / "nodes.json"))
    assert s.cycle()
    first = s.policy
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})
    assert s.cycle()
    assert s.policy is not first and s.watch.previous is first
    found = samples(s.evaluation.text if s.evaluation else b"")
    assert value(found, "allocatable_pool_nodes", pool=POOL, state="awaiting-rollout") == 1
    assert value(found, "allocatable_pool_nodes", pool=POOL, state="drift") == 0
    causes = {labels["cause"] for labels, _ in found["allocatable_node_drift"]}
    assert causes == {"awaiting-rollout"}


def test_a_commit_that_does_not_load_keeps_the_last_good_policy_and_counts_once(repo: Path, tmp_path: Path) -> None:
    s = service(repo, write_nodes(tmp_path / "nodes.json"))
    assert s.cycle()
    good = s.policy
    assert good is not None
    (repo / "broken.yaml").write_text("kind: ReservationPolicy\nspec: [\n", encoding="utf-8")
    assert s.cycle() is True  # the fleet is still evaluated, with the last good policies
    assert s.policy is good and s.stale
    assert s.errors["policy"] == 1
    assert "broken.yaml:" in (s.last_error or "")
    assert s.cycle()
    assert s.errors["policy"] == 1  # the same broken state is not counted again
    (repo / "broken.yaml").unlink()
    assert s.cycle()
    assert not s.stale


def test_a_fleet_that_cannot_be_read_keeps_the_last_result(repo: Path, tmp_path: Path) -> None:
    nodes = write_nodes(tmp_path / "nodes.json")
    s = service(repo, nodes)
    assert s.cycle()
    kept = s.evaluation
    nodes.write_text('{"apiVersion": "v1", "kind": "List", "items": [', encoding="utf-8")
    assert s.cycle() is False
    assert s.evaluation is kept
    assert s.errors["nodes"] == 1
    assert str(nodes) in (s.last_error or "")
    nodes.unlink()
    assert s.cycle() is False
    assert s.errors["nodes"] == 2 and s.ready


def test_no_policy_directory_yet_is_counted_and_not_ready(tmp_path: Path) -> None:
    s = service(tmp_path / "not-cloned-yet", write_nodes(tmp_path / "nodes.json"))
    assert s.cycle() is False
    assert not s.ready and s.errors["policy"] == 1


HOSTILE = [
    'x"} 1\nallocatable_pool_nodes{pool="evil"} 9',
    "back\\slash\\",
    "ünïcode-😀",
    "# HELP x y\n",
]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_a_hostile_label_value_in_a_dump_is_refused_with_its_place(repo: Path, tmp_path: Path, hostile: str) -> None:
    node = real_node()
    node["metadata"]["labels"]["eks.amazonaws.com/nodegroup"] = hostile
    s = service(repo, write_nodes(tmp_path / "nodes.json", node))
    assert s.cycle() is False
    assert s.errors["nodes"] == 1
    assert (s.last_error or "").startswith(f"{tmp_path / 'nodes.json'}:1:")
    log = s.log.getvalue().splitlines()  # type: ignore[attr-defined]
    assert all(line.startswith("serve: ") for line in log), log  # the value is shown escaped: one line


@pytest.mark.parametrize("hostile", HOSTILE)
def test_whatever_reaches_a_label_is_escaped_by_the_exposition(hostile: str) -> None:
    """Node and pool names are checked by the reader; what a label gets is still escaped, never pasted."""
    from renderer.findings import SourceRef
    from renderer.quantity import Quantity
    from renderer.serve.metrics import evaluate
    from renderer.serve.policy import Policy
    from renderer.verify.result import Check, Difference, NodeCheck, VerifyResult

    one, two = Quantity.parse("1"), Quantity.parse("2")
    check = Check({"cpu": one}, {"cpu": two}, [Difference("cpu", one, two, "text", "unknown")])
    result = VerifyResult([NodeCheck(hostile, "eks", SourceRef("x", 0), check)])
    policy = Policy(load=None, commit="", digest="sha256:0", changed_at=0.0)  # type: ignore[arg-type]
    found = samples(evaluate(result, [], policy, 0.0).text)
    assert [labels["node"] for labels, _ in found["allocatable_node_drift"]] == [hostile]
    assert [labels["node"] for labels, _ in found["allocatable_node_predicted_allocatable"]] == [hostile]
    assert {labels["pool"] for labels, _ in found["allocatable_pool_nodes"]} == {"(inventory)"}


def test_pods_that_do_not_fit_the_repos_allocatable_are_counted_per_pool(repo: Path, tmp_path: Path) -> None:
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})

    # 1 + 0.6 cores requested: within the reported 1.93, over the repo's 1.5 (2 cores − 500m): the node's 2 pods count
    pods = write_file(
        tmp_path / "pods.json",
        item_list(
            pod("a", node_name=NODE_NAME, requests={"cpu": "1"}),
            pod("b", node_name=NODE_NAME, requests={"cpu": "600m"}),
        ),
    )
    s = service(repo, write_nodes(tmp_path / "nodes.json"), pods)
    assert s.cycle(), s.last_error
    found = samples(s.evaluation.text if s.evaluation else b"")
    assert value(found, "allocatable_pool_nodes_pods_not_fitting", pool=POOL) == 1
    assert value(found, "allocatable_pool_pods_on_nodes_not_fitting", pool=POOL) == 2


def test_reserved_figures_per_pool_and_slice(repo: Path, tmp_path: Path) -> None:
    write_repo(
        repo,
        {
            "pool.yaml": """
                apiVersion: policy.allocatable.dev/v1alpha1
                kind: NodePool
                metadata: {name: small}
                spec:
                  labels: {eks.amazonaws.com/nodegroup: ecommerce-dev-node-group, node.kubernetes.io/instance-type: t3.small}
                  capacity: {cpu: "2", memory: 1959264Ki, pods: "11"}
                  count: 1
            """,
            "rp.yaml": """
                apiVersion: policy.allocatable.dev/v1alpha1
                kind: ReservationPolicy
                metadata: {name: small}
                spec:
                  selector: [{matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: In, values: [ecommerce-dev-node-group]}]}]
                  systemReserved: {cpu: 100m, memory: 64Mi}
                  kubeReserved: {cpu: 70m, memory: 376Mi}
                  evictionHard: {memory.available: 100Mi}
            """,
        },
    )
    s = service(repo, write_nodes(tmp_path / "nodes.json"))
    assert s.cycle(), s.last_error
    found = samples(s.evaluation.text if s.evaluation else b"")
    # the pool's node is matched by its NodePool's labels
    assert (
        value(found, "allocatable_pool_nodes", pool="small", state="drift")
        + value(found, "allocatable_pool_nodes", pool="small", state="match")
        == 1
    )
    assert value(found, "allocatable_pool_reserved_cpu_cores", pool="small", slice="system") == 0.1
    assert value(found, "allocatable_pool_reserved_cpu_cores", pool="small", slice="kube") == 0.07
    assert value(found, "allocatable_pool_reserved_memory_bytes", pool="small", slice="system") == 64 * KI * KI
    assert value(found, "allocatable_pool_reserved_memory_bytes", pool="small", slice="kube") == 376 * KI * KI
    assert value(found, "allocatable_pool_reserved_memory_bytes", pool="small", slice="eviction") == 100 * KI * KI


def test_a_git_checkout_reports_its_commit(repo: Path, tmp_path: Path) -> None:
    import subprocess

    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env |= {
        "GIT_COMMITTER_EMAIL": "t@e",
        "GIT_AUTHOR_DATE": "1700000000 +0000",
        "GIT_COMMITTER_DATE": "1700000000 +0000",
    }
    write_repo(repo, {"rp.yaml": KUBE_RESERVED})
    subprocess.run(["git", "init", "-q", str(repo)], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "add", "."], check=True, env=env)
    subprocess.run(["git", "-C", str(repo), "commit", "-qm", "policy"], check=True, env=env)
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True, capture_output=True, text=True)
    s = service(repo, write_nodes(tmp_path / "nodes.json"))
    assert s.cycle()
    assert s.policy is not None
    assert s.policy.commit == head.stdout.strip()
    assert s.policy.changed_at == 1700000000  # the commit's time, as GIT_COMMITTER_DATE set it
    assert s.policy.digest.startswith("sha256:")


def test_a_git_sync_checkout_is_reloaded_when_its_link_moves(tmp_path: Path) -> None:
    """git-sync's layout (kubernetes/git-sync v4: ``--root`` holds ``.worktrees/<commit>`` and the ``--link`` symlink
    to the current one, swapped atomically on a new commit); serve is given the link. No .git here: the commit is the
    worktree's name."""
    root = tmp_path / "git"
    first, second = "a" * 40, "b" * 40
    (root / ".worktrees" / first).mkdir(parents=True)  # no policy yet: the platforms' defaults
    write_repo(root / ".worktrees" / second, {"rp.yaml": KUBE_RESERVED})
    link = root / "current"
    link.symlink_to(root / ".worktrees" / first)
    s = service(link, write_nodes(tmp_path / "nodes.json"))
    assert s.cycle(), s.last_error
    assert s.policy is not None and s.policy.commit == first
    assert s.evaluation is not None and s.evaluation.tally.drift == 0
    assert s.cycle() and s.policy.commit == first  # nothing moved: not loaded again
    swap = root / "current.new"
    swap.symlink_to(root / ".worktrees" / second)
    os.replace(swap, link)  # as git-sync swaps it
    assert s.cycle()
    assert s.policy.commit == second
    # the node still runs EKS's defaults, which the first commit (no policy) predicted: awaiting the rollout
    assert s.evaluation.tally.awaiting == 1 and s.evaluation.tally.drift == 0
