"""``recommend`` against a real Prometheus (the Debian 2.42 server and promtool), holding the planted fleet
(tests/support/fleet.py) as TSDB blocks made by ``promtool tsdb create-blocks-from openmetrics``.

- The worked example's exports (docs/examples/recommend/usage/) are what this server answers to the default queries.
- ``recommend --prometheus URL`` says exactly what ``recommend --usage`` says on the server's own exports, in every
  format, and on the files written by running the promtool commands ``--print-queries`` prints.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli
from renderer.recommend.queries import QUERIES
from support import fleet, prometheus

pytestmark = pytest.mark.external

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"
WINDOW = ["--end", "2025-11-09", "--window", "8d"]
FIRST = fleet.END - (fleet.DAYS - 1) * 86400
#: the queries with a 5-minute subquery, which the live mode asks one day at a time
SUBQUERIES = ("reserved_cpu", "pods_memory_ratio", "pods_cpu_ratio", "memory_stall")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with prometheus.serve(list(fleet.series()), tmp_path_factory.mktemp("prometheus"), fleet.TYPES) as url:
        yield url


def test_the_examples_exports_are_the_servers_answers(server: str) -> None:
    for q in QUERIES:
        body = prometheus.query_range(server, q.promql, FIRST, fleet.END, 86400)
        committed = (EXAMPLE / "usage" / f"{q.name}.json").read_bytes()
        assert json.loads(body) == json.loads(committed), q.name


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "yaml"])
def test_live_and_offline_say_the_same(server: str, fmt: str) -> None:
    common = [str(EXAMPLE / "policies"), "--nodes", str(EXAMPLE / "nodes.json"), "-o", fmt]
    offline = run_cli("recommend", *common, "--usage", *sorted(str(p) for p in (EXAMPLE / "usage").glob("*.json")))
    live = run_cli("recommend", *common, "--prometheus", server, *WINDOW)
    assert (live.exit_code, offline.exit_code) == (0, 0), live.stderr + offline.stderr
    assert live.stdout == offline.stdout
    asked = [line for line in live.stderr.splitlines() if line.startswith("recommend: asked ")]
    # the answers, their bytes and series counted independently here: the four queries without a subquery over the
    # whole window (the committed exports), the four with one (5-minute subqueries) one day at a time, as the
    # server answers each day's evaluation: 4 + 4 x 8 requests
    answers = [(EXAMPLE / "usage" / f"{q.name}.json").read_bytes() for q in QUERIES if q.name not in SUBQUERIES]
    answers += [
        prometheus.query_range(server, q.promql, t, t, 86400)
        for q in QUERIES
        if q.name in SUBQUERIES
        for t in range(FIRST, fleet.END + 1, 86400)
    ]
    assert len(answers) == 36
    size = sum(len(a) for a in answers)
    series = sum(len(json.loads(a)["data"]["result"]) for a in answers)
    assert asked == [f"recommend: asked 8 queries in 36 requests to {server}: {series} series, {size} bytes of answers"]
    assert live.stderr.replace(asked[0] + "\n", "") == offline.stderr


def test_the_printed_promtool_commands_export_what_recommend_reads(server: str, tmp_path: Path) -> None:
    printed = run_cli("recommend", str(EXAMPLE / "policies"), "--print-queries", "--prometheus", server, *WINDOW)
    assert printed.exit_code == 0, printed.stderr
    commands = [line for line in printed.stdout.splitlines() if line.startswith("promtool ")]
    assert len(commands) == len(QUERIES)
    promtool = prometheus.tools.find("promtool", how="apt-get install prometheus")
    for command in commands:
        done = subprocess.run(
            ["sh", "-c", command.replace("promtool ", f"{promtool} ", 1)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    files = sorted(str(p) for p in tmp_path.glob("*.json"))
    assert [Path(f).stem for f in files] == sorted(q.name for q in QUERIES)
    common = [str(EXAMPLE / "policies"), "--nodes", str(EXAMPLE / "nodes.json")]
    from_promtool = run_cli("recommend", *common, "--usage", *files)
    live = run_cli("recommend", *common, "--prometheus", server, *WINDOW)
    assert from_promtool.exit_code == 0, from_promtool.stderr
    assert from_promtool.stdout == live.stdout


def test_a_query_the_server_refuses_is_one_line(server: str, tmp_path: Path) -> None:
    repo = tmp_path / "policies"
    shutil.copytree(EXAMPLE / "policies", repo)
    (repo / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrecommend:\n  selectors:\n"
        "    cadvisor: 'job=\"kubelet\"('\n",
        encoding="utf-8",
    )
    done = run_cli("recommend", str(repo), "--prometheus", server, *WINDOW)
    assert done.exit_code == 2
    assert done.stderr.startswith(
        f"allocatable: error: {server} (reserved_memory):1:1: Prometheus answered with an error: bad_data: "
    )
    assert done.stderr.count("\n") == 1


def test_kubelets_before_1_23_answer_with_their_own_metric_name(tmp_path: Path) -> None:
    # kubelet_running_pod_count was renamed kubelet_running_pods in Kubernetes 1.23 (older kubelets expose only the
    # old name): the query takes either. A node of each: the daily peaks 7 and 9 come back for both.
    day = fleet.START + 86400
    series = [
        ("kubelet_running_pods", {**fleet.KUBELET, "node": "new-1"}, [(day - 3600, 7.0), (day - 60, 5.0)]),
        ("kubelet_running_pod_count", {**fleet.KUBELET, "node": "old-1"}, [(day - 3600, 9.0), (day - 60, 4.0)]),
    ]
    query = next(q for q in QUERIES if q.name == "running_pods")
    with prometheus.serve(series, tmp_path) as url:
        body = json.loads(prometheus.query_range(url, query.promql, day, day, 86400))
    got = {r["metric"]["node"]: r["values"] for r in body["data"]["result"]}
    assert got == {"new-1": [[day, "7"]], "old-1": [[day, "9"]]}
