"""The evidence beside the statistics (``renderer.recommend.evidence``): OOM kills per scope and memory stalls (PSI),
on node-days built by hand, each with its reasoning. The live answers are test_evidence_live.py's.

The stall limit is systemd-oomd's default, 60 % (oomd.conf(5): ``DefaultMemoryPressureLimit=60%``).
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from conftest import run_cli
from renderer.recommend.advice import MI, Options, advise
from renderer.recommend.evidence import STALL_LIMIT, OomKill, Stall, absent, oom_kills, stalls
from renderer.recommend.nodes import NodeDays, node_days
from renderer.recommend.result import Recommendation
from renderer.recommend.usage import Usage
from renderer.reporters.recommend import write_documents

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"


def _node(name: str, **kw: object) -> NodeDays:
    nd = NodeDays(name)
    for k, v in kw.items():
        setattr(nd, k, v)
    return nd


def test_the_limit_is_systemd_oomds_default() -> None:
    assert STALL_LIMIT == 0.6


def test_kills_are_rounded_to_whole_kills() -> None:
    # increase() extrapolates a kill to the day's edges: 1 kill reads 1.0028..1.0035 at 5-minute scrapes, 2 kills
    # 2.0056; half a kill (a kill at the very edge of a window, extrapolated short) rounds up, less does not count
    nd = _node("n", oom={"pods": {1: 1.0035, 2: 2.0056, 3: 0.5, 4: 0.49, 5: 0.0}})
    assert oom_kills([nd], None) == [
        OomKill("n", 1, "pods", 1),
        OomKill("n", 2, "pods", 2),
        OomKill("n", 3, "pods", 1),
    ]


def test_a_system_kill_is_over_the_reservation_only_on_a_day_its_daemons_exceeded_it() -> None:
    # current total memory reservation 355Mi; day 1 the reserved slices peaked at 684Mi (over), day 2 at exactly
    # 355Mi (not over: exceeded means more), day 3 no memory series at all (unknown: not over); a pod kill on day 1
    # is never "over the reservation" (the pods' memory is not what the reservation protects)
    nd = _node(
        "gp-2",
        total={"memory": {1: 684 * MI, 2: 355 * MI}},
        oom={"system": {1: 1.0, 2: 1.0, 3: 1.0}, "pods": {1: 3.0}},
    )
    assert oom_kills([nd], 355 * MI) == [
        OomKill("gp-2", 1, "system", 1, True),
        OomKill("gp-2", 2, "system", 1, False),
        OomKill("gp-2", 3, "system", 1, False),
        OomKill("gp-2", 1, "pods", 3, False),
    ]
    # no current reservation in the model: nothing is "over" it
    assert [k.over_reservation for k in oom_kills([nd], None)] == [False] * 4


def test_stalls_at_or_above_the_limit_either_line() -> None:
    # day 1: some exactly 60 % (listed: at or above); day 2: some 59.99 %, full 10 % (not); day 3: full only, 61 %
    # (listed, some unknown); day 4: some 90 %, full 70 %
    nd = _node("a", stall={"some": {1: 0.6, 2: 0.5999, 4: 0.9}, "full": {2: 0.1, 3: 0.61, 4: 0.7}})
    assert stalls([nd]) == [Stall("a", 1, 0.6, None), Stall("a", 3, None, 0.61), Stall("a", 4, 0.9, 0.7)]


def test_absent_optional_series_are_named_per_query() -> None:
    # a has all three; b has OOM counters (zero kills still count as present) but no PSI and no condition
    a = _node("a", pressure={1: 0.0}, oom={"system": {1: 0.0}}, stall={"some": {1: 0.01}})
    b = _node("b", oom={"all": {1: 0.0}})
    said = absent([a, b])
    assert [line.split(":")[0] for line in said] == ["memory_pressure", "memory_stall"]
    assert said[0].startswith("memory_pressure: no series on 1 of 2 nodes (b);")


def test_node_days_keep_only_the_scopes_and_kinds_they_know() -> None:
    # an overridden query answering another id (a cgroup path, not a scope) is left out, never guessed into one;
    # several exports of a query merge, each day keeping its largest value
    usage = Usage()
    day = 86400 * 20000
    usage.add("oom_kills", {"node": "n", "id": "system"}, [[day + 1, "1"]])
    usage.add("oom_kills", {"node": "n", "id": "system"}, [[day + 1, "2"]])
    usage.add("oom_kills", {"node": "n", "id": "/system.slice/x.service"}, [[day + 1, "5"]])
    usage.add("memory_stall", {"node": "n", "id": "full"}, [[day + 1, "0.7"]])
    usage.add("memory_stall", {"node": "n", "id": "weird"}, [[day + 1, "0.9"]])
    nd = node_days(usage)["n"]
    assert nd.oom == {"system": {20000: 2.0}}
    assert nd.stall == {"full": {20000: 0.7}}


def test_yaml_documents_carry_the_evidence_as_one_comment_line_each() -> None:
    # a node name from an export is any label value: a newline in it stays inside its comment line (escaped), never
    # a line of YAML of its own
    nd = _node("evil\nkind: Secret", oom={"pods": {20000: 1.0}}, stall={"some": {20000: 0.75}})
    advice = advise("general", [nd], 1, 10, {}, {}, Options())
    rec = Recommendation(
        [advice],
        Options(),
        None,
        documents=[{"kind": "ReservationPolicy"}],
        replaces=[("ReservationPolicy/general", "reservations.yaml")],
        review="allocatable diff --base HEAD .",
    )
    out = io.StringIO()
    write_documents(rec, out)
    lines = out.getvalue().splitlines()
    assert not any(line.startswith("kind: Secret") for line in lines)
    evidence = [line for line in lines if line.startswith("# evidence, pool general: ")]
    assert len(evidence) == 2
    assert "OOM kills in pods" in evidence[0] and "2024-10-04 ×1" in evidence[0]
    assert "some 75% full -" in evidence[1]


def _repo(tmp: Path, selectors: str) -> Path:
    repo = tmp / "policies"
    shutil.copytree(EXAMPLE / "policies", repo)
    (repo / ".allocatable.yaml").write_text(
        f"apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrecommend:\n  selectors:\n{selectors}",
        encoding="utf-8",
    )
    return repo


def test_the_node_exporter_join_is_chosen_in_the_settings(tmp_path: Path) -> None:
    window = ["--end", "2025-11-09", "--window", "8d"]
    default = run_cli("recommend", str(EXAMPLE / "policies"), "--print-queries", *window)
    repo = _repo(tmp_path, "    nodeExporterNode: instance\n    nodeExporter: 'job=\"node\"'\n")
    chosen = run_cli("recommend", str(repo), "--print-queries", *window)
    assert (default.exit_code, chosen.exit_code) == (0, 0), chosen.stderr

    def query(out: str, name: str) -> str:
        return next(line for line in out.splitlines() if line.endswith(f"> {name}.json"))

    # kubernetes-mixin's join by default; the instance label (kube-prometheus' relabeling) when chosen
    assert "group_left (node) topk by (namespace, pod)" in query(default.stdout, "memory_stall")
    assert 'node_pressure_memory_waiting_seconds_total{job="node-exporter"}' in query(default.stdout, "memory_stall")
    stall = query(chosen.stdout, "memory_stall")
    assert 'label_replace(max_over_time(rate(node_pressure_memory_waiting_seconds_total{job="node"}[5m])' in stall
    assert '"node", "$1", "instance", "(.+)"' in stall and "kube_pod_info" not in stall
    assert "kube_pod_info" not in query(chosen.stdout, "oom_kills")


def test_an_unknown_node_exporter_join_is_one_located_error(tmp_path: Path) -> None:
    # (--print-queries prints the defaults for a repo that does not load; recommend itself refuses it)
    repo = _repo(tmp_path, "    nodeExporterNode: hostname\n")
    done = run_cli("recommend", str(repo), "--usage", str(EXAMPLE / "usage" / "memory_stall.json"))
    assert done.exit_code == 2
    errors = [line for line in (done.stdout + done.stderr).splitlines() if ": error: " in line]
    assert len(errors) == 1 and ".allocatable.yaml:5:23: error: recommend.selectors.nodeExporterNode" in errors[0]


def test_pod_kills_are_said_in_the_memory_percents_reasoning() -> None:
    # a week of one node: pods at 50 % of their memory requests (100 / (0.5 × 1.15) = 173.9: capped at 100 anyway),
    # killed on two days: the reasoning says so; a node without kills says nothing of them
    def node(kills: dict[int, float]) -> NodeDays:
        days = range(7)
        return _node(
            "n",
            total={"memory": {d: 300.0 * MI for d in days}, "cpu": {d: 0.1 for d in days}},
            memory_ratio={d: 0.5 for d in days},
            cpu_ratio={d: 0.3 for d in days},
            oom={"pods": kills},
        )

    killed = advise("p", [node({2: 1.0, 5: 3.0})], 1, 10, {}, {}, Options())
    quiet = advise("p", [node({})], 1, 10, {}, {}, Options())
    memory = next(c for c in killed.commits if c.resource == "memory")
    assert memory.recommended == 100
    assert memory.reasoning.endswith(
        "; pods were OOM-killed on 2 node-day(s) of the window (oom_kills): they already "
        "meet their memory limits or the node's, no room for a memory over-commit"
    )
    assert "OOM-killed on" not in next(c for c in quiet.commits if c.resource == "memory").reasoning
