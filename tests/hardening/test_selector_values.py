"""Issue 12, class 6: node selector values are read as the API server and the scheduler read them.

``Gt``/``Lt`` take exactly one value that Go's ``strconv.ParseInt(v, 10, 64)`` accepts (k8s.io/apimachinery
pkg/labels/selector.go, NewRequirement and Requirement.Matches); every value of every operator must be a valid label
value, and keys valid qualified names (pkg/util/validation: IsValidLabelValue, IsQualifiedName). Messages carry
apimachinery's wording.

The CLI runs in this process (``support.hardening.in_process``): these are bad-input checks (exit code, located
lines, no traceback, nothing written), which do not depend on running as a process of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.capacity.selectors import Requirement, Term, selector_matches
from renderer.labels import label_key_problem, parse_int64
from support.hardening import COMMIT_CLASS, assert_one_finding, in_process, pool, position_of, write

# Go's own table for ParseInt(s, 10, 64): golang/go src/strconv/atoi_test.go, parseInt64Tests
# (None where Go returns ErrSyntax or ErrRange).
GO_PARSE_INT64 = [
    ("", None),
    ("0", 0),
    ("-0", 0),
    ("+0", 0),
    ("1", 1),
    ("-1", -1),
    ("+1", 1),
    ("12345", 12345),
    ("-12345", -12345),
    ("012345", 12345),
    ("-012345", -12345),
    ("98765432100", 98765432100),
    ("-98765432100", -98765432100),
    ("9223372036854775807", (1 << 63) - 1),
    ("-9223372036854775807", -((1 << 63) - 1)),
    ("9223372036854775808", None),
    ("-9223372036854775808", -(1 << 63)),
    ("9223372036854775809", None),
    ("-9223372036854775809", None),
    ("-1_2_3_4_5", None),
    ("-_12345", None),
    ("_12345", None),
    ("1__2345", None),
    ("12345_", None),
    ("123%45", None),
]


@pytest.mark.parametrize(("text", "want"), GO_PARSE_INT64)
def test_parse_int64_is_go_parse_int(text: str, want: int | None) -> None:
    assert parse_int64(text) == want


@pytest.mark.parametrize("text", [" 5", "5 ", "1e3", "0x10", "1.0", "٣", "５", "+-1", "1" * 5000])
def test_parse_int64_refuses_what_python_int_accepts(text: str) -> None:
    assert parse_int64(text) is None  # int() takes spaces, Unicode digits; Go does not


def _cc(key: str, operator: str, values: str) -> str:
    return COMMIT_CLASS.replace(
        "        - key: example.com/tier\n          operator: In\n          values: [general]",
        f"        - key: {key}\n          operator: {operator}\n          values: {values}",
    )


@pytest.mark.parametrize(
    ("operator", "value", "message"),
    [
        ("Gt", "1_000", "is not an integer: for 'Gt', 'Lt' operators, the value must be an integer"),
        ("Gt", "1e3", "is not an integer"),
        ("Gt", "0x10", "is not an integer"),
        ("Lt", " 5", "is not an integer"),
        ("Lt", "4Gi", "is not an integer"),
        ("Lt", "9223372036854775808", "is beyond the 64-bit range"),
        ("Gt", "-9223372036854775809", "is beyond the 64-bit range"),
        ("Gt", "+5", "is not a valid label value: a valid label must be an empty string or consist of"),
        ("Lt", "-3", "is not a valid label value: a valid label must be an empty string or consist of"),
        ("In", "bad value: #$%", "is not a valid label value: a valid label must be an empty string or consist of"),
        ("NotIn", "-x", "is not a valid label value"),
        ("In", "x" * 64, "is not a valid label value: must be no more than 63 characters"),
        ("In", "a\\u0000b", "is not a valid label value"),
        ("NotIn", "trailing.", "is not a valid label value"),
    ],
)
def test_selector_values_read_like_the_api_server(tmp_path: Path, operator: str, value: str, message: str) -> None:
    quoted = f'"{value}"'
    text = _cc("example.com/tier", operator, f"[{quoted}]")
    write(tmp_path / "repo", {"cc.yaml": text, "pool.yaml": pool()})
    res = in_process("validate", "repo", cwd=tmp_path)
    line, col = position_of(text, quoted)
    assert_one_finding(res, f"repo/cc.yaml:{line}:{col}", "AL004", "values[0]: ", message)


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("a/b/c", "a qualified name must consist of alphanumeric characters"),
        ("/x", "prefix part must be non-empty"),
        ("example.com/", "name part must be non-empty"),
        ("Example.com/x", "prefix part a lowercase RFC 1123 subdomain must consist of"),
        ("x" * 64, "name part must be no more than 63 characters"),
        ("-x", "name part must consist of alphanumeric characters, '-', '_' or '.'"),
        ("a b", "name part must consist of alphanumeric characters"),
    ],
)
def test_selector_keys_are_qualified_names(tmp_path: Path, key: str, message: str) -> None:
    quoted = f'"{key}"'
    text = _cc(quoted, "Exists", "null")
    write(tmp_path / "repo", {"cc.yaml": text, "pool.yaml": pool()})
    res = in_process("validate", "repo", cwd=tmp_path)
    line, col = position_of(text, quoted)
    assert_one_finding(res, f"repo/cc.yaml:{line}:{col}", "AL004", "is not a valid label key: ", message)


def test_valid_edges_are_accepted(tmp_path: Path) -> None:
    for operator, values in (
        ("Gt", '["9223372036854775807"]'),
        ("Lt", '["0"]'),  # negative bounds are not label values: "-1" is refused above
        ("Gt", '["007"]'),
        ("In", '[""]'),
        ("In", '["' + "v" * 63 + '"]'),
        ("NotIn", '["a.b_c-d"]'),
    ):
        write(tmp_path / "repo", {"cc.yaml": _cc("example.com/tier", operator, values), "pool.yaml": pool()})
        res = in_process("validate", "repo", cwd=tmp_path)
        assert res.returncode == 0, (operator, values, res.stdout)


def test_matching_reads_label_values_like_the_scheduler() -> None:
    """A node label that ParseInt refuses never matches Gt/Lt (Requirement.Matches returns false)."""
    gt = [Term((Requirement("n", "Gt", ("10",)),))]
    assert selector_matches(gt, {"n": "11"}, "node")
    assert selector_matches(gt, {"n": "011"}, "node")
    for label in ("1_1", "11.0", " 11", "١١", "99999999999999999999"):
        assert not selector_matches(gt, {"n": label}, "node"), label
    assert label_key_problem("node.kubernetes.io/instance-type") is None
