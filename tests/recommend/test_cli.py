"""``allocatable recommend`` as a user runs it: usage errors, exit codes, the documents ``-o yaml`` writes (written
over a copy of the example repo, they validate, lint clean of errors, and the model gives the pool what the report
recommended), and the offline inputs' errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from conftest import run_cli

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"
USAGE = sorted(str(p) for p in (EXAMPLE / "usage").glob("*.json"))
POLICIES = str(EXAMPLE / "policies")
NODES = ["--nodes", str(EXAMPLE / "nodes.json")]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ([], "give the measured usage: --usage FILE..."),
        (["--usage", USAGE[0], "--prometheus", "http://x"], "--usage and --prometheus both give the usage"),
        (["--usage", USAGE[0], "--bearer-token-file", "t"], "go with --prometheus"),
        (["--usage", "-"], "standard input has no name"),
        (["--usage", USAGE[0], "--window", "0d"], "--window: must be a number of days"),
        (["--usage", USAGE[0], "--end", "2025-13-01"], "must be a date YYYY-MM-DD"),
        (["--usage", USAGE[0], "--cpu-target", "150"], "from 10 to 100"),
        (["--print-queries", "--usage", USAGE[0]], "reads no --usage"),
        # --end 1970-01-05 is day 4; 14 days end there from day 4 - 13 = -9: before 1970 (was an internal error)
        (["--print-queries", "--end", "1970-01-05", "--window", "14d"], "the window would start before 1970-01-02"),
        (["--prometheus", "http://127.0.0.1:9", "--end", "0001-01-05"], "the window would start before 1970-01-02"),
    ],
)
def test_usage_errors(args: list[str], words: str) -> None:
    done = run_cli("recommend", POLICIES, *args)
    assert done.exit_code == 2
    assert words in done.stderr
    assert done.stderr.count("\n") == 1 and done.stdout == ""


def test_input_errors_are_located(tmp_path: Path) -> None:
    bad = tmp_path / "running_pods.json"
    bad.write_text('{"status":"success","data":{"resultType":"matrix","result":[\n{"metric":{"node":"a"},', "utf-8")
    done = run_cli("recommend", POLICIES, "--usage", str(bad))
    assert done.exit_code == 2
    assert done.stderr.startswith(f"allocatable: error: {bad.as_posix()}:2:")
    assert "ends early" in done.stderr
    unnamed = tmp_path / "export.json"
    unnamed.write_text("[]", "utf-8")
    done = run_cli("recommend", POLICIES, "--usage", str(unnamed))
    assert done.exit_code == 2 and "the file name names no query" in done.stderr
    done = run_cli("recommend", POLICIES, "--usage", str(tmp_path / "reserved_cpu.json"))
    assert done.exit_code == 2 and "reserved_cpu.json: cannot read file" in done.stderr
    done = run_cli("recommend", POLICIES, "--usage", str(tmp_path))
    assert done.exit_code == 2 and done.stderr.endswith(": is a directory\n")
    done = run_cli("recommend", POLICIES, "--usage", *USAGE, "--pool", "nope")
    assert done.exit_code == 2 and "--pool nope: the repo has no such pool" in done.stderr


def test_strict_fails_a_pool_without_enough_data() -> None:
    done = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES)
    assert done.exit_code == 0
    assert done.stderr.endswith("recommend: 2 pools, 1 advised, 1 with too little data (batch); 1 node(s) in no pool\n")
    assert run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "--strict").exit_code == 1
    only = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "--strict", "--pool", "general")
    assert only.exit_code == 0
    assert "pool batch" not in only.stdout
    # with --min-days 3, bt-1's three days are enough for its reservations (not for commit percents: no ratio series)
    relaxed = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "--min-days", "3", "-o", "json")
    batch = next(p for p in json.loads(relaxed.stdout)["pools"] if p["name"] == "batch")
    assert batch["coverage"]["reservationsAdvised"] and not batch["coverage"]["commitAdvised"]


def test_without_nodes_only_inventory_nodes_are_placed() -> None:
    done = run_cli("recommend", POLICIES, "--usage", *USAGE, "-o", "json")
    doc = json.loads(done.stdout)
    assert doc["pools"] == []
    assert doc["unplaced"]["count"] == 5  # gp-1..3, bt-1, stray-1


def test_the_documents_replace_the_repos_and_give_what_was_recommended(tmp_path: Path) -> None:
    done = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "-o", "yaml")
    assert done.exit_code == 0
    assert done.stdout.endswith(f"#   allocatable diff --base HEAD {POLICIES}\n")
    docs = [d for d in yaml.safe_load_all(done.stdout) if d]
    assert [(d["kind"], d["metadata"]["name"]) for d in docs] == [
        ("ReservationPolicy", "general"),
        ("CommitClass", "general-burst"),
    ]
    repo = tmp_path / "policies"
    shutil.copytree(POLICIES, repo)
    (repo / "reservations.yaml").write_text(yaml.safe_dump(docs[0]), "utf-8")
    (repo / "commitclasses.yaml").write_text(yaml.safe_dump(docs[1]), "utf-8")
    lint = run_cli("lint", str(repo))
    assert " error" not in lint.stdout, lint.stdout
    explained = json.loads(run_cli("explain", str(repo), "--pool", "general", "-o", "json").stdout)
    pool = explained["pools"][0]
    report = json.loads(run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "-o", "json").stdout)
    general = next(p for p in report["pools"] if p["name"] == "general")
    wanted = {(r["slice"], r["resource"]): r["recommended"] for r in general["reservations"]}
    text = json.dumps(pool)
    for key in (("kube", "memory"), ("system", "memory"), ("kube", "cpu"), ("system", "cpu")):
        assert wanted[key] in text, (key, wanted[key])
    # the new repo, measured again: nothing exceeds the reservations any more
    again = json.loads(run_cli("recommend", str(repo), "--usage", *USAGE, *NODES, "-o", "json").stdout)
    general = next(p for p in again["pools"] if p["name"] == "general")
    assert all(r["exceeded"] == [] for r in general["reservations"])
    assert {r["change"] for r in general["reservations"]} == {"0Mi", "0m"}, general["reservations"]


def test_nothing_to_write_says_so() -> None:
    done = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "--pool", "batch", "-o", "yaml")
    assert done.exit_code == 0
    assert done.stdout.startswith("# nothing to write")


def test_the_snapshots_pods_repacked_under_the_recommendation(tmp_path: Path) -> None:
    # snapshot.json: the five nodes as the repo predicts them today (verify: 5 match) and 12 pods of 900m cpu and 1Gi
    # on the general nodes (4 each, nodeSelector tier general), one 6-core pod on each batch node. Today a general
    # node holds 3600m of its 3890m allocatable (92 %). Under the documents its committed cpu is (4000m - 200m -
    # 230m) x 265 % = 9460m: 3600m is 38 % of it, below the autoscaler's 0.5 threshold, so each general node is a
    # scale-down candidate. The first one's 4 pods fit the other two (2 each: 5400m of 9460m); the second's 6 pods
    # (5400m) do not fit the last node's 4060m free: 1 node freed, nothing Pending. Batch has no advice: not re-packed.
    done = run_cli("recommend", POLICIES, "--usage", *USAGE, "--snapshot", str(EXAMPLE / "snapshot.json"), "-o", "json")
    assert done.exit_code == 0, done.stderr
    pools = {p["name"]: p for p in json.loads(done.stdout)["pools"]}
    assert pools["general"]["repack"] == {"nodes": 3, "nodesFreed": 1, "newPending": 0, "nodesToAdd": 0}
    assert pools["batch"]["repack"] is None
    verify = run_cli(
        "verify", POLICIES, "--nodes", str(EXAMPLE / "snapshot.json"), "--pods", str(EXAMPLE / "snapshot.json")
    )
    assert verify.exit_code == 0, verify.stdout
    listed = json.loads((EXAMPLE / "snapshot.json").read_text("utf-8"))
    pods = tmp_path / "pods.json"
    pods.write_text(json.dumps({**listed, "items": [i for i in listed["items"] if i["kind"] == "Pod"]}), "utf-8")
    both = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "--pods", str(pods), "-o", "json")
    one, two = json.loads(both.stdout), json.loads(done.stdout)
    assert one["review"] == f"allocatable diff --base HEAD {POLICIES} --nodes {NODES[1]} --pods {pods}"
    assert two["review"] == f"allocatable diff --base HEAD {POLICIES} --snapshot {EXAMPLE / 'snapshot.json'}"
    assert {**one, "review": None} == {**two, "review": None}
    bad = run_cli("recommend", POLICIES, "--usage", *USAGE, "--pods", str(EXAMPLE / "snapshot.json"))
    assert bad.exit_code == 2 and "--pods goes with --nodes" in bad.stderr


def test_a_resource_without_measurements_keeps_what_the_policy_says(tmp_path: Path) -> None:
    # only the memory export: the general pool gets memory reservations, no cpu ones (said), and the document keeps
    # the policy's cpu (kube 60m, system 50m) as it is
    memory_only = [u for u in USAGE if "reserved_memory" in u or "running_pods" in u]
    done = run_cli("recommend", POLICIES, "--usage", *memory_only, *NODES, "--pool", "general", "-o", "json")
    general = json.loads(done.stdout)["pools"][0]
    assert {r["resource"] for r in general["reservations"]} == {"memory"}
    assert "no reserved_cpu series on any node: no cpu reservation" in general["coverage"]["why"]
    docs = [
        d
        for d in yaml.safe_load_all(
            run_cli("recommend", POLICIES, "--usage", *memory_only, *NODES, "--pool", "general", "-o", "yaml").stdout
        )
        if d
    ]
    spec = docs[0]["spec"]
    assert (spec["kubeReserved"]["cpu"], spec["systemReserved"]["cpu"]) == ("60m", "50m")
    assert spec["systemReserved"]["memory"] == "460Mi"


def test_a_policy_with_a_platform_formula_is_written_out(tmp_path: Path) -> None:
    # The general pool's policy uses EKS's formula (kube-reserved cpu, memory and 1Gi of ephemeral-storage, by
    # bootstrap.sh's arithmetic). Rewritten, the formula gives way to the measured values and the fitted per-pod
    # formula; the ephemeral-storage it gave is written out (1Gi), so nothing the pools have today is lost.
    repo = tmp_path / "policies"
    shutil.copytree(POLICIES, repo)
    (repo / "reservations.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: ReservationPolicy\nmetadata:\n  name: general\nspec:\n"
        "  selector:\n  - matchExpressions:\n    - {key: example.com/tier, operator: In, values: [general]}\n"
        "  autoSizing: {formula: eks}\n  evictionHard: {memory.available: 100Mi, nodefs.available: 10%}\n",
        "utf-8",
    )
    done = run_cli("recommend", str(repo), "--usage", *USAGE, *NODES, "--pool", "general", "-o", "yaml")
    doc = next(d for d in yaml.safe_load_all(done.stdout) if d and d["kind"] == "ReservationPolicy")
    spec = doc["spec"]
    assert spec["autoSizing"] == {
        "custom": {"kubeReserved": {"memory": {"perPod": "4711Ki", "base": "207Mi", "round": "up"}}}
    }
    assert spec["kubeReserved"] == {"cpu": "200m", "ephemeral-storage": "1Gi"}
    assert spec["systemReserved"] == {"cpu": "230m", "memory": "460Mi"}
    (repo / "reservations.yaml").write_text(yaml.safe_dump(doc), "utf-8")
    assert " error" not in run_cli("lint", str(repo)).stdout


def test_live_reads_the_nodes_with_kubectl(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A stand-in kubectl (ALLOCATABLE_KUBECTL, as verify --live's tests do) that prints the example's nodes dump as
    # `kubectl get nodes -o json` would and logs its arguments: --live places the nodes exactly as --nodes does.
    import stat
    import sys

    log = tmp_path / "calls"
    program = tmp_path / "kubectl"
    program.write_text(
        f"#!{sys.executable}\nimport sys\nopen({str(log)!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
        f"sys.stdout.write(open({str(EXAMPLE / 'nodes.json')!r}).read())\n",
        encoding="utf-8",
    )
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("ALLOCATABLE_KUBECTL", str(program))
    live = run_cli("recommend", POLICIES, "--usage", *USAGE, "--live", "--context", "prod", "-o", "json")
    dump = run_cli("recommend", POLICIES, "--usage", *USAGE, *NODES, "-o", "json")
    assert live.exit_code == 0, live.stderr
    assert json.loads(live.stdout) == json.loads(dump.stdout)
    assert log.read_text().split() == ["get", "nodes", "-o", "json", "--request-timeout=60s", "--context=prod"]
    both = run_cli("recommend", POLICIES, "--usage", *USAGE, "--live", *NODES)
    assert both.exit_code == 2 and "--live reads the nodes from the cluster" in both.stderr


def _words(command: str, cwd: Path) -> list[str]:
    """The words /bin/sh makes of ``command`` (the program replaced by printf; the redirect, if any, kept)."""
    import subprocess

    program, _, rest = command.partition(" ")
    done = subprocess.run(
        ["sh", "-c", "printf '%s\\n' " + rest], cwd=cwd, capture_output=True, text=True, timeout=30, check=True
    )
    return [program, *done.stdout.splitlines()]


def test_the_printed_command_lines_survive_a_shell(tmp_path: Path) -> None:
    """``--print-queries`` is meant for ``> export.sh && sh export.sh`` and the report's last line for pasting: a path
    or URL with a space, a quote or ``&`` must reach promtool and diff as one word, not break the script (or run a
    part of it as a command). /bin/sh itself splits them here, not the code that quoted them."""
    repo = tmp_path / "my policies"
    shutil.copytree(POLICIES, repo)
    snapshot = tmp_path / "snap & shot.json"
    shutil.copy(EXAMPLE / "snapshot.json", snapshot)
    url = "https://prom.example.com/it's here"
    done = run_cli("recommend", "--print-queries", str(repo), "--prometheus", url, "--end", "2025-11-09")
    assert done.exit_code == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if not line.startswith("#")]
    assert len(lines) == 8
    for line in lines:
        words = _words(line, tmp_path)  # printf's output goes to the QUERY.json file the line redirects to
        assert words == ["promtool"]
    exported = sorted(p.name for p in tmp_path.glob("*.json") if p.name != snapshot.name)
    assert len(exported) == 8
    printed = (tmp_path / "reserved_memory.json").read_text("utf-8").splitlines()
    # promtool query range -o json --start=… --end=… --step=24h URL QUERY: the URL is the eighth word, whole
    assert printed[:2] == ["query", "range"] and printed[7] == url and len(printed) == 9
    report = run_cli("recommend", str(repo), "--usage", *USAGE, "--snapshot", str(snapshot), "-o", "json")
    assert report.exit_code == 0, report.stderr
    review = json.loads(report.stdout)["review"]
    assert _words(review, tmp_path) == ["allocatable", "diff", "--base", "HEAD", str(repo), "--snapshot", str(snapshot)]


def test_lint_says_what_of_the_usage_it_could_not_check(tmp_path: Path) -> None:
    """``lint --usage`` (rule AL216) says on stderr what ``recommend`` says of the same usage: the nodes in no pool
    and the values left out. Before, it said nothing, so usage that placed no node read as "no reservation below
    what was measured". Worked by hand: gp-1's /system.slice has 4 values, NaN, +Inf, -1 and 400000000 (3 left out);
    ghost-9 one more (5 values with a node); one series has no node label; the server warned once. With the example's
    nodes.json, gp-1 is placed in NodePool general (its labels) and ghost-9 is in neither; without it, the example's
    repo has no inventory Node, so neither is placed (sorted by name: ghost-9, gp-1)."""
    export = {
        "status": "success",
        "warnings": ["query hit the series limit"],
        "data": {
            "resultType": "matrix",
            "result": [
                {
                    "metric": {"node": "gp-1", "id": "/system.slice"},
                    "values": [
                        [1762041600, "NaN"],
                        [1762128000, "+Inf"],
                        [1762214400, "-1"],
                        [1762300800, "400000000"],
                    ],
                },
                {"metric": {"id": "/system.slice"}, "values": [[1762041600, "1"]]},
                {"metric": {"node": "ghost-9", "id": "/system.slice"}, "values": [[1762041600, "1"]]},
            ],
        },
    }
    usage = tmp_path / "reserved_memory.json"
    usage.write_text(json.dumps(export), encoding="utf-8")
    done = run_cli("lint", POLICIES, "--usage", str(usage), *NODES)
    assert done.exit_code == 0, done.stderr
    notes = [line for line in done.stderr.splitlines() if line.startswith("lint: note: ")]
    assert notes == [
        "lint: note: 1 node(s) with usage are in no pool, not checked: ghost-9 (not in the inventory nor in the node dump)",
        "lint: note: reserved_memory: 1 NaN, 1 infinite, 1 negative of 5 values left out",
        "lint: note: reserved_memory: 1 series without a node label left out",
        f"lint: note: {usage}: the server warned: query hit the series limit",
    ]
    alone = run_cli("lint", POLICIES, "--usage", str(usage))
    assert (
        "lint: note: 2 node(s) with usage are in no pool, not checked: ghost-9 (not in the inventory nor in the node "
        "dump), gp-1 (not in the inventory nor in the node dump); --nodes FILE (kubectl get nodes -o json) places "
        "nodes into NodePools by their labels\n"
    ) in alone.stderr


def test_a_file_with_other_documents_keeps_them(tmp_path: Path) -> None:
    """-o yaml's documents replace documents, not files: with ReservationPolicy/batch (too little data: not
    rewritten) in the same reservations.yaml as ReservationPolicy/general, the report says to put each document in
    place of the one of its name and keep the file's others; done that way, batch keeps its 300Mi (before, the last
    comment said to write the documents over the files, which dropped batch's policy)."""
    repo = tmp_path / "policies"
    shutil.copytree(POLICIES, repo)
    batch = {
        "apiVersion": "policy.allocatable.dev/v1alpha1",
        "kind": "ReservationPolicy",
        "metadata": {"name": "batch"},
        "spec": {
            "selector": [{"matchExpressions": [{"key": "example.com/tier", "operator": "In", "values": ["batch"]}]}],
            "kubeReserved": {"cpu": "80m", "memory": "300Mi"},
        },
    }
    with (repo / "reservations.yaml").open("a", encoding="utf-8") as f:
        f.write("---\n" + yaml.safe_dump(batch))
    done = run_cli("recommend", str(repo), "--usage", *USAGE, *NODES, "-o", "yaml")
    assert done.exit_code == 0, done.stderr
    assert "(the file's other documents stay)" in done.stdout and "write these over the files" not in done.stdout
    written = {(d["kind"], d["metadata"]["name"]): d for d in yaml.safe_load_all(done.stdout) if d}
    assert ("ReservationPolicy", "batch") not in written  # batch has 3 days of data, 7 needed
    # as the comment says: each document in place of the one of its name, the others kept
    for name in ("reservations.yaml", "commitclasses.yaml"):
        path = repo / name
        kept = [d for d in yaml.safe_load_all(path.read_text("utf-8")) if d]
        path.write_text(yaml.safe_dump_all([written.get((d["kind"], d["metadata"]["name"]), d) for d in kept]), "utf-8")
    explained = json.loads(run_cli("explain", str(repo), "--pool", "batch", "-o", "json").stdout)
    assert '"300Mi"' in json.dumps(explained["pools"][0])  # batch's kubeReserved memory, kept
