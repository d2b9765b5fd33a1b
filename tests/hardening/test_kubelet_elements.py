"""Issue 30, class 5: list and map values that contain their flag separators, and elements the kubelet refuses.

``kubelet: {featureGates: {"A=true,B": true}, clusterDNS: ["10.0.0.1,10.0.0.2"], allowedUnsafeSysctls:
["kernel.msg*,net.*"], qosReserved: {memory: "50%,cpu=100%"}}`` was lint-clean, and Cluster API's kubelet flags split
each into other values. Now lint (AL326) checks every element as the kubelet reads it, located at the element, and the
Cluster API target refuses any element holding its flag's separator (AL809) even with AL326 off. Expected verdicts
come from the kubelet's own sources and tests, cited beside each table.

The CLI runs in this process (``support.hardening.in_process``): these are bad-input checks (exit code, located
lines, no traceback, nothing written), which do not depend on running as a process of its own.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderer.models.kubelet_elements import JOINED, element_problems, is_ip, separator_problems
from renderer.models.kubelet_validation import problems
from renderer.render.targets.cluster_api import FLAGS
from support.hardening import REPO_ROOT, assert_no_crash, in_process, shown, snapshot

ISSUE = """\
  kubelet:
    featureGates: {"A=true,B": true}
    clusterDNS: ["10.0.0.1,10.0.0.2"]
    allowedUnsafeSysctls: ["kernel.msg*,net.*"]
    qosReserved: {memory: "50%,cpu=100%"}
"""


def _fleet(tmp_path: Path, kubelet: str, settings: str | None = None) -> Path:
    root = tmp_path / "p"
    shutil.copytree(REPO_ROOT / "docs" / "examples" / "cluster-api-fleet", root)
    policy = root / "reservations" / "cluster-api-static.yaml"
    policy.write_text(policy.read_text() + kubelet)
    if settings is not None:
        (root / ".allocatable.yaml").write_text(settings)
    return root


def test_the_issue_values_are_four_located_al326_errors(tmp_path: Path) -> None:
    _fleet(tmp_path, ISSUE)
    res = in_process("lint", "p", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 1, shown(res)
    errors = [ln for ln in res.stdout.splitlines() if "[AL326]" in ln]
    # Lines 35-38 of the policy (the example's 33 lines, "spec:" nesting, then "kubelet:" on 34); each finding
    # points at the element: the map key, the list item.
    at = [re.match(r"p/reservations/cluster-api-static\.yaml:(\d+):(\d+): error: ", ln) for ln in errors]
    assert all(at), errors
    assert [int(m.group(1)) for m in at if m] == [35, 36, 37, 38], errors
    assert "unrecognized feature gate: A=true,B" in errors[0]
    assert "Invalid clusterDNS IP" in errors[1]
    assert 'sysctl "kernel.msg*,net.*" must have at most 253 characters and match regex' in errors[2]
    assert "invalid number in percentage '50%,cpu=100%'" in errors[3]


def test_cluster_api_refuses_a_separator_in_any_joined_element_with_al326_off(tmp_path: Path) -> None:
    settings = "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrules:\n  AL326: {enabled: false}\n"
    _fleet(tmp_path, ISSUE, settings)
    before = snapshot(tmp_path)
    res = in_process("render", "p", "-o", "out", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 1, shown(res)
    assert snapshot(tmp_path) == before  # nothing written
    errors = [ln for ln in res.stdout.splitlines() if "[AL809]" in ln]
    assert len(errors) == 4, shown(res)
    for flag in ("--feature-gates", "--cluster-dns", "--allowed-unsafe-sysctls", "--qos-reserved"):
        assert any(flag in ln for ln in errors), (flag, errors)


def test_clean_elements_render_as_one_flag_each(tmp_path: Path) -> None:
    kubelet = """\
  kubelet:
    featureGates: {KubeletTracing: true, GracefulNodeShutdown: false}
    clusterDNS: ["10.96.0.10", "fd00::a"]
    allowedUnsafeSysctls: ["kernel.msg*", "net.core.somaxconn"]
    qosReserved: {memory: "50%"}
"""
    _fleet(tmp_path, kubelet)
    res = in_process("render", "p", "-o", "out", cwd=tmp_path)
    assert res.returncode == 0, shown(res)
    import yaml

    doc = yaml.safe_load((tmp_path / "out" / "cluster-api" / "fleet-prod" / "md-workers.yaml").read_text())
    registration = doc["spec"]["template"]["spec"]["joinConfiguration"]["nodeRegistration"]
    args = {a["name"]: a["value"] for a in registration["kubeletExtraArgs"]}
    # hand-written: the kubelet's flag syntax, map keys sorted
    assert args["feature-gates"] == "GracefulNodeShutdown=false,KubeletTracing=true"
    assert args["cluster-dns"] == "10.96.0.10,fd00::a"
    assert args["allowed-unsafe-sysctls"] == "kernel.msg*,net.core.somaxconn"
    assert args["qos-reserved"] == "memory=50%"


# kubernetes pkg/apis/policy/validation/validation_test.go TestIsValidSysctlPattern (the slash-aware version), plus
# the issue's comma and a 254-character name (SysctlMaxLength is 253).
SYSCTLS_VALID = ["a.b.c.d", "a", "a_b", "a-b", "abc", "abc.def", "*", "a.*", "abc*", "a.abc*", "a.b.*", "a/b/c/d",
                 "a/*", "a/b/*", "a.b/c*", "a.b/c.d", "a/b.c/d", "a" * 253]  # fmt: skip
SYSCTLS_INVALID = ["", "ä", "a_", "_", "_a", "_a._b", "__", "-", ".", "a.", ".a", "a.b.", "a*.b", "a*b", "*a", "Abc",
                   "/", "a/", "/a", "a*/b", "a" * 256, "a" * 254, "kernel.msg*,net.*", "net.*, kernel.sem"]  # fmt: skip


@pytest.mark.parametrize("name", SYSCTLS_VALID)
def test_sysctl_patterns_the_kubelet_accepts(name: str) -> None:
    assert not element_problems("allowedUnsafeSysctls", [name])


@pytest.mark.parametrize("name", SYSCTLS_INVALID)
def test_sysctl_patterns_the_kubelet_refuses(name: str) -> None:
    (problem,) = element_problems("allowedUnsafeSysctls", ["kernel.sem", name])
    assert problem.at == (1,) and "kubelet refuses to start" in problem.message


# k8s.io/utils/net ParseIPSloppy: Go's IP parser that still takes IPv4 with leading zeros (read as decimal); no
# zones, prefixes or spaces (net.ParseIP's documented forms: dotted decimal, IPv6, IPv4-mapped IPv6).
IPS_VALID = ["10.96.0.10", "0.0.0.0", "255.255.255.255", "010.096.000.010", "fd00::a", "::1", "::ffff:10.0.0.1",
             "2001:db8::1"]  # fmt: skip
IPS_INVALID = ["10.0.0.1,10.0.0.2", "10.0.0.256", "10.0.0", "10.0.0.1.2", " 10.0.0.1", "10.0.0.1/32", "fe80::1%eth0",
               "fd00::a,fd00::b", "", "dns.local", "１０.0.0.1"]  # fmt: skip


@pytest.mark.parametrize("ip", IPS_VALID)
def test_cluster_dns_addresses_the_kubelet_keeps(ip: str) -> None:
    assert is_ip(ip) and not element_problems("clusterDNS", [ip])


@pytest.mark.parametrize("ip", IPS_INVALID)
def test_cluster_dns_entries_the_kubelet_drops(ip: str) -> None:
    (problem,) = element_problems("clusterDNS", ["10.96.0.10", ip])
    assert problem.at == (1,)


# pkg/kubelet/cm/container_manager.go ParseQOSReserved/parsePercentage: memory only; "%" suffix (all trailing "%"
# trimmed), then strconv.ParseInt base 10 (sign allowed, leading zeros allowed), then 0..100.
QOS = [
    ({"memory": "50%"}, None),
    ({"memory": "0%"}, None),
    ({"memory": "100%"}, None),
    ({"memory": "+050%%"}, None),
    ({"memory": "-0%"}, None),
    ({"memory": "50"}, "percentage expected, got '50'"),
    ({"memory": "50%,cpu=100%"}, "invalid number in percentage '50%,cpu=100%'"),
    ({"memory": "5 0%"}, "invalid number in percentage '5 0%'"),
    ({"memory": "101%"}, "percentage must be between 0 and 100"),
    ({"memory": "-1%"}, "percentage must be between 0 and 100"),
    ({"memory": "99999999999999999999%"}, "invalid number in percentage '99999999999999999999%'"),
    ({"cpu": "50%"}, 'cannot reserve "cpu" resource'),
]


@pytest.mark.parametrize(("value", "want"), QOS)
def test_qos_reserved_as_the_kubelet_parses_it(value: dict[str, str], want: str | None) -> None:
    found = element_problems("qosReserved", value)
    if want is None:
        assert not found
    else:
        (problem,) = found
        assert want in problem.message


@pytest.mark.parametrize(
    ("gates", "bad"),
    [
        ({"KubeletTracing": True}, []),
        ({"A=true,B": True}, ["A=true,B"]),
        ({"A,B": True, "C": False}, ["A,B"]),
        ({"Kubelet Tracing": True}, ["Kubelet Tracing"]),
        ({"KubeletTracing": "true"}, ["KubeletTracing"]),  # a string: the decoder wants a boolean
        ({"": True}, [""]),
    ],
)
def test_feature_gate_names_and_values(gates: dict[str, Any], bad: list[str]) -> None:
    assert [p.at[0] for p in element_problems("featureGates", gates)] == bad


def test_every_joined_field_of_cluster_api_comes_from_the_one_table() -> None:
    joined = {f for f, (_, style) in FLAGS.items() if style != "scalar"}
    assert joined == set(JOINED)


@pytest.mark.parametrize(
    ("field", "value", "found"),
    [
        ("featureGates", {"A=B": True}, [("A=B",)]),
        ("qosReserved", {"memory": "50%,cpu=1%"}, [("memory",)]),
        ("evictionHard", {"memory.available<1Gi,nodefs.available": "1"}, [("memory.available<1Gi,nodefs.available",)]),
        ("evictionHard", {"memory.available": "100Mi,nodefs.available<1%"}, [("memory.available",)]),
        ("systemReserved", {"cpu": "1,memory=1Gi"}, [("cpu",)]),
        ("enforceNodeAllocatable", ["pods,system-reserved"], [(0,)]),
        ("clusterDNS", ["10.0.0.1", "10.0.0.2,10.0.0.3"], [(1,)]),
        ("evictionSoftGracePeriod", {"memory.available": "1m,nodefs.available=2m"}, [("memory.available",)]),
        ("maxPods", 110, []),  # a scalar flag: nothing joined
        ("reservedSystemCPUs", "0-1,4", []),  # a cpuset flag: its commas are its own syntax
    ],
)
def test_separators_in_every_joined_field(field: str, value: Any, found: list[tuple[Any, ...]]) -> None:
    assert [at for at, _, _ in separator_problems(field, value)] == found


# --- AL326 and the schema agree on the elements -----------------------------------------------------------------

SCHEMA = json.loads((REPO_ROOT / "schemas" / "kubeletconfiguration.json").read_text(encoding="utf-8"))


def _agree(field: str, value: Any) -> None:
    import jsonschema

    refused = bool(problems({field: value}))
    accepted = jsonschema.Draft202012Validator(SCHEMA["properties"][field]).is_valid(value)
    assert accepted == (not refused), (field, value)


TEXT = st.text(alphabet=st.sampled_from("aAzZ09._-*/%+,= ä"), max_size=8)


@given(names=st.lists(st.one_of(TEXT, st.sampled_from(SYSCTLS_VALID + SYSCTLS_INVALID)), max_size=3))
def test_al326_and_the_schema_agree_on_sysctls(names: list[str]) -> None:
    _agree("allowedUnsafeSysctls", names)


@given(
    key=st.sampled_from(["memory", "cpu"]),
    value=st.one_of(TEXT, st.sampled_from([q[0].get("memory", "") for q in QOS])),
)
def test_al326_and_the_schema_agree_on_qos_reserved(key: str, value: str) -> None:
    _agree("qosReserved", {key: value})


@given(gates=st.dictionaries(TEXT, st.booleans(), max_size=3))
def test_al326_and_the_schema_agree_on_feature_gates(gates: dict[str, bool]) -> None:
    _agree("featureGates", gates)


def test_node_labels_joined_by_nodeadm_cannot_hold_a_separator(tmp_path: Path) -> None:
    # nodeadm's --node-labels=k=v,k=v is the other flag render joins: a pool label is validated as a label value
    # (apimachinery: alphanumerics, '-', '_', '.'), so "a,b=c" never reaches it.
    shutil.copytree(REPO_ROOT / "policies", tmp_path / "policies")
    pools = tmp_path / "policies" / "pools" / "nodeadm.yaml"
    pools.write_text(
        pools.read_text().replace(
            "    kubernetes.io/arch: amd64\n", '    kubernetes.io/arch: amd64\n    example.com/other: "a,b=c"\n', 1
        )
    )
    res = in_process("validate", "policies", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    assert re.search(
        r"^policies/pools/nodeadm\.yaml:\d+:\d+: error: .*a,b=c.* is not a valid label value", res.stdout, re.M
    )
