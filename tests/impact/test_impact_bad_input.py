"""Snapshots from other tools and versions, through the command: counted or skipped with a line saying what and why,
or one located error (exit 2) — never a traceback, never a silently wrong count.

The cases are tests/impact/corpus/, variations of docs/examples/impact/snapshot.json (see test_impact_cli.py for the
scenario worked by hand: the change takes 1000m of allocatable cpu from each of the two batch nodes). Each case's
expected figures are worked out beside it from that scenario.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import REPO_ROOT, examples, run_cli

CORPUS = Path(__file__).resolve().parent / "corpus"
EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """main: batch kube-reserved cpu 500m (what the snapshot's nodes run); the work tree: 1500m."""
    root = tmp_path_factory.mktemp("impact") / "repo"
    shutil.copytree(EXAMPLE / "policies", root / "policies")
    shutil.copytree(CORPUS, root / "corpus")
    path = root / "policies" / "reservations.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("cpu: 1500m", "cpu: 500m"), encoding="utf-8")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(root), "GIT_CONFIG_GLOBAL": os.devnull}
    for args in (("init", "-q", "-b", "main"), ("add", "-A"), ("commit", "-q", "-m", "base")):
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args], cwd=root, env=env, check=True
        )
    path.write_text(text, encoding="utf-8")
    return root


def _diff(repo: Path, nodes: str, pods: str) -> tuple[int, dict[str, Any] | None, str]:
    done = run_cli(
        "diff",
        "policies",
        "--base",
        "main",
        "--nodes",
        f"corpus/{nodes}",
        "--pods",
        f"corpus/{pods}",
        "-o",
        "json",
        cwd=repo,
    )
    assert "Traceback" not in done.stdout + done.stderr
    doc = json.loads(done.stdout)["impact"] if done.exit_code != 2 else None
    return done.exit_code, doc, done.stderr


def _read_line(impact: dict[str, Any]) -> dict[str, Any]:
    return {k: impact["inputs"][k] for k in ("nodes", "pods", "running", "pending", "terminated", "unknownNode")}


def test_zero_pods(repo: Path) -> None:
    # kubectl get pods -A -o json on an empty cluster: "items": []. Nothing to displace: exit 0.
    code, impact, _ = _diff(repo, "nodes-only.json", "zero-items.json")
    assert code == 0 and impact is not None
    assert _read_line(impact) == {"nodes": 4, "pods": 0, "running": 0, "pending": 0, "terminated": 0, "unknownNode": 0}
    assert impact["headline"] == "no pod stops fitting its node (2 nodes change allocatable)"


def test_a_node_without_status_is_skipped_and_its_pods_counted(repo: Path) -> None:
    # general-2 exported without status: skipped (nothing can be placed on it); its three pods (node-exporter,
    # frontend, coredns) are on a node the snapshot does not have. The batch nodes are as in the scenario: 2 Pending.
    code, impact, _ = _diff(repo, "node-without-status.json", "node-without-status.json")
    assert code == 1 and impact is not None
    assert impact["skipped"] == {"Node without status.capacity cpu and memory (exported without its status?)": 1}
    assert _read_line(impact) == {
        "nodes": 3,
        "pods": 15,
        "running": 10,
        "pending": 1,
        "terminated": 1,
        "unknownNode": 3,
    }
    assert impact["summary"]["newPending"] == 2
    # general-1's frontend has nowhere to go any more (general-2 is not there): no node removable before or after.
    general = next(p for p in impact["pools"] if p["pool"] == "eks-general")
    assert (general["nodes"], general["before"]["removableNodes"], general["after"]["removableNodes"]) == (1, 0, 0)


def test_null_requests_and_pods_without_a_node(repo: Path) -> None:
    # train-b-0 has "requests": null (requests nothing); train-b-1 has no nodeName and "status": null: Pending.
    # batch-2 then holds node-exporter 100m + report 2000m = 2100m. Before (7500m) train-b-1 (2500m) fits batch-2.
    # After (6500m): batch-1 rejects its report pod (7100m > 6500m). The queue takes the older train-b-1 first:
    # batch-2 2100 + 2500 = 4600m <= 6500m; then the report pod: batch-1 5100 + 2000 > 6500, batch-2 4600 + 2000 =
    # 6600 > 6500: Pending. One displaced, one newly Pending.
    code, impact, _ = _diff(repo, "null-requests.json", "null-requests.json")
    assert code == 1 and impact is not None
    assert _read_line(impact) == {
        "nodes": 4,
        "pods": 15,
        "running": 12,
        "pending": 2,
        "terminated": 1,
        "unknownNode": 0,
    }
    assert [d["pod"] for d in impact["displaced"]] == ["batch/report-29001-7f9c"]
    assert [p["pod"] for p in impact["pending"] if p["new"]] == ["batch/report-29001-7f9c"]


def test_other_kinds_are_skipped_and_counted(repo: Path) -> None:
    code, impact, _ = _diff(repo, "other-kinds.json", "other-kinds.json")
    assert code == 1 and impact is not None
    assert impact["skipped"] == {"v1 Service (not a Node or Pod)": 1}
    assert impact["summary"]["newPending"] == 2


def test_yaml_with_several_documents(repo: Path) -> None:
    # Each Node its own document, then a List of the pods: the same cluster, the same answer.
    code, impact, _ = _diff(repo, "several-documents.yaml", "several-documents.yaml")
    assert code == 1 and impact is not None
    assert impact["summary"]["newPending"] == 2 and impact["inputs"]["pods"] == 15


@pytest.mark.parametrize(
    ("nodes", "pods", "where", "message"),
    [
        # the cpu of train-a-1, item 10 of the List (4 Nodes, then the pods)
        (
            "bad-quantity.json",
            "bad-quantity.json",
            r"bad-quantity\.json:589:\d+",
            "Pod batch/train-a-1 (item 10): spec.containers[0]",
        ),
        ("truncated.json", "truncated.json", r"truncated\.json:\d+:\d+", "invalid JSON: "),
        ("nodes-only.json", "array.json", r"array\.json:1:1", "got a JSON array"),
        ("nodes-only.json", "empty.json", r"empty\.json:1:1", "the dump is empty"),
        ("zero-items.json", "zero-items.json", r"corpus/zero-items\.json", "no Node with its status"),
    ],
)
def test_what_cannot_be_read_is_one_located_error(repo: Path, nodes: str, pods: str, where: str, message: str) -> None:
    code, _, stderr = _diff(repo, nodes, pods)
    assert code == 2
    (line,) = stderr.splitlines()
    assert re.match(rf"allocatable: error: (\S*/)?{where}: ", line), line
    assert message in line


_TOKENS = st.sampled_from(["null", '"x"', "[]", "{}", "1.5", "-1", '"1Zi"', '""', "true", '{"a": 1}'])


@pytest.mark.slow
@settings(max_examples=examples(200), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_mangled_snapshots_never_crash_the_command(tmp_path: Path, data: st.DataObject) -> None:
    """The example snapshot truncated, cut, or with a value replaced by another JSON value: the command reports
    (exit 0 or 1) or refuses in one line (exit 2), never a traceback."""
    text = (EXAMPLE / "snapshot.json").read_text(encoding="utf-8")
    how = data.draw(st.sampled_from(["truncate", "cut", "replace"]))
    at = data.draw(st.integers(0, len(text) - 1))
    if how == "truncate":
        text = text[:at]
    elif how == "cut":
        text = text[:at] + text[at + data.draw(st.integers(1, 200)) :]
    else:
        values = [m.start() for m in re.finditer(r'(?<=: )("[^"]*"|\d+|true|false|null|\[\]|\{\})', text)]
        start = data.draw(st.sampled_from(values))
        end = re.compile(r'"[^"]*"|\d+|true|false|null|\[\]|\{\}').match(text, start)
        assert end is not None
        text = text[:start] + data.draw(_TOKENS) + text[end.end() :]
    dump = tmp_path / "snapshot.json"
    dump.write_text(text, encoding="utf-8")
    done = run_cli("verify", str(EXAMPLE / "policies"), "--nodes", str(dump), "--pods", str(dump), "-o", "json")
    assert done.exit_code in (0, 1, 2)
    assert "Traceback" not in done.stdout + done.stderr
    if done.exit_code == 2:
        (line,) = done.stderr.splitlines()
        assert line.startswith("allocatable: error: ")
    else:
        json.loads(done.stdout)
