"""Kubelet Summary API dumps (``kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary``) as ``--usage`` input.

The dumps are published ones, transcribed field by field (only the fields read here; the rest of each document is
left out, which the reader must not mind):

- EDGE: a KubeEdge edge node's ``/stats/summary?only_cpu_and_memory=true`` as published in an edge-cluster guide
  (node ``edgenode01``, 2022-10-22): ``kubelet`` working set 30613504 B and 36490670 nanocores at 18:45:07Z,
  ``runtime`` working set 51351552 B (rss 36360192) and 13118760 nanocores at 18:45:13Z, ``pods`` empty.
- TELEGRAF: the fixture of influxdata/telegraf ``plugins/inputs/kubernetes/kubernetes_test.go`` (node ``node1``):
  ``kubelet`` working set 62349312 B, 56652446 nanocores at 2016-09-27T16:57:31Z, a system container ``bar`` (not a
  reserved slice: not read), two pods.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from renderer.recommend.nodes import node_days
from renderer.recommend.queries import QUERIES
from renderer.recommend.source import UsageInputError, read_files

DAY = 86400
EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"


def _container(name: str, start: str, cpu_time: str, nanocores: int, mem_time: str, ws: int, rss: int) -> dict:
    return {
        "name": name,
        "startTime": start,
        "cpu": {"time": cpu_time, "usageNanoCores": nanocores},
        "memory": {"time": mem_time, "workingSetBytes": ws, "rssBytes": rss},
    }


EDGE = {
    "node": {
        "nodeName": "edgenode01",
        "systemContainers": [
            _container(
                "kubelet",
                "2022-10-22T16:17:01Z",
                "2022-10-22T18:45:07Z",
                36490670,
                "2022-10-22T18:45:07Z",
                30613504,
                27066368,
            ),
            _container(
                "runtime",
                "2022-10-20T16:47:00Z",
                "2022-10-22T18:45:13Z",
                13118760,
                "2022-10-22T18:45:13Z",
                51351552,
                36360192,
            ),
            _container("pods", "2022-10-20T16:47:31Z", "2022-10-22T18:45:03Z", 0, "2022-10-22T18:45:03Z", 0, 0),
        ],
        "cpu": {"time": "2022-10-22T18:45:02Z", "usageNanoCores": 62053022},
        "memory": {"time": "2022-10-22T18:45:02Z", "workingSetBytes": 1334280192},
    },
    "pods": [],
}

TELEGRAF = {
    "node": {
        "nodeName": "node1",
        "systemContainers": [
            _container(
                "kubelet",
                "2016-08-25T18:46:52Z",
                "2016-09-27T16:57:31Z",
                56652446,
                "2016-09-27T16:57:31Z",
                62349312,
                47509504,
            ),
            _container(
                "bar",
                "2016-08-25T18:46:52Z",
                "2016-09-27T16:57:31Z",
                56652446,
                "2016-09-27T16:57:31Z",
                62349312,
                47509504,
            ),
        ],
        "cpu": {"time": "2016-09-27T16:57:41Z", "usageNanoCores": 576996212},
        "memory": {"time": "2016-09-27T16:57:41Z", "workingSetBytes": 5081538560},
    },
    "pods": [{"podRef": {"name": "foopod", "namespace": "foons"}}, {"podRef": {"name": "stopped-pod"}}],
}


def _write(tmp: Path, name: str, doc: dict) -> str:
    path = tmp / name
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return str(path)


def test_a_published_dump_gives_the_reserved_slices(tmp_path: Path) -> None:
    usage = read_files([_write(tmp_path, "edgenode01.json", EDGE)], QUERIES, 1 << 30)
    nd = node_days(usage)["edgenode01"]
    day = (1666464307 - 1) // DAY  # 2022-10-22T18:45:07Z
    # kube = kubelet + runtime: 30613504 + 51351552 = 81965056 bytes; 36490670 + 13118760 = 49609430 nanocores
    assert nd.kube["memory"] == {day: 81965056.0}
    assert nd.kube["cpu"][day] == pytest.approx(0.04960943)
    # no misc container (the node runs without --system-cgroups): the system slice is missing, named
    assert nd.missing == ["/system.slice"]
    assert nd.pods == {day: 0.0}
    # rss instead of the working set: 27066368 + 36360192
    rss = read_files([_write(tmp_path, "edgenode01.json", EDGE)], QUERIES, 1 << 30, "rssBytes")
    assert node_days(rss)["edgenode01"].kube["memory"] == {day: 63426560.0}


def test_only_the_reserved_containers_are_read(tmp_path: Path) -> None:
    usage = read_files([_write(tmp_path, "node1.json", TELEGRAF)], QUERIES, 1 << 30)
    nd = node_days(usage)["node1"]
    day = (1474995451 - 1) // DAY  # 2016-09-27T16:57:31Z
    assert nd.kube["memory"] == {day: 62349312.0}  # kubelet only: "bar" is no reserved slice
    assert nd.missing == ["/system.slice", "runtime service"]
    assert nd.pods == {(1474995461 - 1) // DAY: 2.0}  # two pods listed, at the node's memory time 16:57:41Z


def test_many_dumps_over_time_keep_each_days_peak(tmp_path: Path) -> None:
    # The edge dump taken three times: twice on 2022-10-22 (the second with 10 MiB more kubelet memory), once on the
    # 23rd. Day 22 keeps the larger; day 23 its own.
    files = []
    for k, (stamp, extra) in enumerate(
        [("2022-10-22T18:45:07Z", 0), ("2022-10-22T20:00:00Z", 10 << 20), ("2022-10-23T08:00:00Z", 0)]
    ):
        doc = json.loads(json.dumps(EDGE))
        for c in doc["node"]["systemContainers"]:
            c["memory"]["time"] = c["cpu"]["time"] = stamp
        doc["node"]["systemContainers"][0]["memory"]["workingSetBytes"] += extra
        files.append(_write(tmp_path, f"edgenode01-{k}.json", doc))
    nd = node_days(read_files(files, QUERIES, 1 << 30))["edgenode01"]
    d22, d23 = (1666464307 - 1) // DAY, (1666512000 - 1) // DAY
    assert nd.kube["memory"] == {d22: 81965056.0 + (10 << 20), d23: 81965056.0}


def test_a_file_that_is_neither_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(UsageInputError, match="names no query and the file is no kubelet Summary API dump"):
        read_files([_write(tmp_path, "node.json", {"node": {"name": "x"}})], QUERIES, 1 << 30)


def test_summary_dumps_advise_reservations_never_commit(tmp_path: Path) -> None:
    # seven days of the edge dump, placed in an inventory pool of one (a Node named edgenode01)
    files = []
    for d in range(7):
        doc = json.loads(json.dumps(EDGE))
        for c in doc["node"]["systemContainers"]:
            c["memory"]["time"] = c["cpu"]["time"] = f"2022-10-{15 + d}T12:00:00Z"
        doc["node"]["memory"]["time"] = f"2022-10-{15 + d}T12:00:00Z"
        files.append(_write(tmp_path, f"edge-{d}.json", doc))
    repo = tmp_path / "policies"
    repo.mkdir()
    (repo / "node.yaml").write_text(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: edgenode01\n  labels: {kubernetes.io/hostname: edgenode01}\n"
        "status:\n  capacity: {cpu: '4', memory: 3884Mi, pods: '110'}\n  allocatable: {cpu: '4', memory: 3884Mi, "
        "pods: '110'}\n",
        encoding="utf-8",
    )
    done = run_cli("recommend", str(repo), "--usage", *files, "-o", "json")
    assert done.exit_code == 0, done.stderr
    pool = json.loads(done.stdout)["pools"][0]
    assert pool["coverage"]["reservationsAdvised"] and not pool["coverage"]["commitAdvised"]
    kube = next(r for r in pool["reservations"] if (r["slice"], r["resource"]) == ("kube", "memory"))
    # 81965056 B = 78.17Mi -> 79Mi observed; x 1.15 = 89.9Mi -> 90Mi
    assert (kube["observed"], kube["recommended"]) == ("79Mi", "90Mi")
    assert "pods_cpu_ratio: no export read" in done.stderr


def _with_psi(doc: dict, stamp: str, some: object, full: object) -> dict:
    """``doc`` at ``stamp`` with the node's memory PSI as KEP-4205 adds it to the Summary API (``PSIStats``: ``some``
    and ``full``, each ``total`` in microseconds and the kernel's running averages in percent)."""
    out = json.loads(json.dumps(doc))
    out["node"]["memory"]["time"] = stamp
    out["node"]["memory"]["psi"] = {
        "some": {"total": 912345678, "avg10": 80.5, "avg60": some, "avg300": 20.1},
        "full": {"total": 412345678, "avg10": 50.2, "avg60": full, "avg300": 9.8},
    }
    return out


def test_node_memory_psi_is_booked_as_the_memory_stall(tmp_path: Path) -> None:
    # two dumps of the edge node on 2022-10-22 with memory PSI: 18:45 one-minute averages some 64.25 %, full 31.5 %;
    # 20:00 some 12 %, full 3 %. The day keeps the larger of each, as a share: 0.6425 and 0.315. The EDGE dump itself
    # (no psi: a kubelet without KubeletPSI) books nothing and says nothing.
    files = [
        _write(tmp_path, "a.json", _with_psi(EDGE, "2022-10-22T18:45:02Z", 64.25, 31.5)),
        _write(tmp_path, "b.json", _with_psi(EDGE, "2022-10-22T20:00:00Z", 12, 3)),
        _write(tmp_path, "c.json", EDGE),
    ]
    usage = read_files(files, QUERIES, 1 << 30)
    day = (1666464302 - 1) // DAY
    assert node_days(usage)["edgenode01"].stall == {"some": {day: 0.6425}, "full": {day: 0.315}}
    assert usage.summary_notes == []


def test_a_broken_psi_is_said_not_booked(tmp_path: Path) -> None:
    # avg60 is a percent: 150 cannot be; a string is not a number. Each named, nothing booked for it.
    usage = read_files(
        [_write(tmp_path, "x.json", _with_psi(EDGE, "2022-10-22T18:45:02Z", 150, "3"))], QUERIES, 1 << 30
    )
    assert node_days(usage)["edgenode01"].stall == {}
    assert [n.split(": ", 1)[1] for n in usage.summary_notes] == [
        "edgenode01: node memory.psi.some.avg60 (a percent) or memory.time is missing or invalid",
        "edgenode01: node memory.psi.full.avg60 (a percent) or memory.time is missing or invalid",
    ]


def test_a_dump_cut_short_or_corrupt_is_located(tmp_path: Path) -> None:
    """A dump whose name names no query is told from any other file by how it starts (``{"node": {"nodeName"``), so
    one cut short (a kubectl killed mid-write) or corrupt is one located line, exit 2 — not "names no query"."""
    text = json.dumps(EDGE, indent=1)
    lines = text.splitlines(keepends=True)
    assert lines[2] == '  "nodeName": "edgenode01",\n'
    cut = tmp_path / "summary-edgenode01-1.json"
    # the first three lines, each ending in a newline: the text ends at line 4, column 1
    cut.write_text("".join(lines[:3]), encoding="utf-8")
    done = run_cli("recommend", str(EXAMPLE / "policies"), "--usage", str(cut))
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr == f"allocatable: error: {cut}:4:1: a kubelet Summary API dump that ends early (truncated?)\n"
    # a doubled comma after "edgenode01": line 3 is 2 spaces + "nodeName" (10) + ": " (2) + "edgenode01" (12) + ","
    # (1) = 27 characters, so the second comma is column 28
    bad = tmp_path / "summary-edgenode01-2.json"
    bad.write_text(text.replace('"edgenode01",', '"edgenode01",,', 1), encoding="utf-8")
    done = run_cli("recommend", str(EXAMPLE / "policies"), "--usage", str(bad))
    assert done.exit_code == 2 and done.stdout == ""
    assert done.stderr.startswith(f"allocatable: error: {bad}:3:28: a kubelet Summary API dump that is not valid JSON")
    assert done.stderr.count("\n") == 1


def test_go_zero_time_and_infinity_are_said_not_booked(tmp_path: Path) -> None:
    """A stat the kubelet has not taken carries Go's zero time, ``0001-01-01T00:00:00Z`` (before 1970: no time of a
    measurement), and Python's JSON reader takes the literal ``Infinity``. The first is a missing stat, said; the
    second an infinite value, counted and left out (before, it was booked as an infinite peak; and the zero time, once
    the reader refused times before 1970, was an internal error). The runtime's 100 bytes are the only value booked."""
    doc = json.loads(json.dumps(EDGE))
    kubelet, runtime = doc["node"]["systemContainers"][:2]
    kubelet["cpu"]["time"] = "0001-01-01T00:00:00Z"
    kubelet["memory"]["workingSetBytes"] = float("inf")  # written as the literal Infinity
    runtime["memory"]["workingSetBytes"] = 100
    path = _write(tmp_path, "edgenode01.json", doc)
    assert "Infinity" in Path(path).read_text("utf-8")
    usage = read_files([path], QUERIES, 1 << 30)
    day = (1666464313 - 1) // DAY  # the runtime's memory time, 2022-10-22T18:45:13Z
    assert usage.days["reserved_memory"][("edgenode01", "runtime")] == {day: 100.0}
    assert ("edgenode01", "kubelet") not in usage.days["reserved_memory"]
    assert "reserved_memory: 1 infinite of 2 values left out" in usage.issues()
    assert any("kubelet cpu.usageNanoCores or its time is missing" in n for n in usage.summary_notes)
