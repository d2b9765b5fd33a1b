"""Tests for renderer.capacity.selectors (truth tables, satisfiability, overlap) and renderer.capacity.label_index."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import examples
from renderer.capacity import label_index
from renderer.capacity.label_index import LabelIndex
from renderer.capacity.selectors import (
    DEFAULT_WITNESS_NAME,
    INT64_MAX,
    INT64_MIN,
    NAME_WITNESS_KEY,
    Operator,
    Requirement,
    Term,
    format_requirement,
    is_valid_label_value,
    label_key_problem,
    labels_match,
    overlap_witness,
    parse_int64,
    requirement_problem,
    selector_matches,
    selectors_overlap,
    split_witness,
    term_matches,
    term_witness,
    unsatisfiable_reason,
)

R = Requirement
OPS: tuple[Operator, ...] = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")


def term(*expressions: Requirement, fields: Sequence[Requirement] = ()) -> Term:
    return Term(tuple(expressions), tuple(fields))


def name_req(operator: Operator, *values: str) -> Requirement:
    return R("metadata.name", operator, values)


def witness_matches(witness: Mapping[str, str], t: Term) -> bool:
    labels, name = split_witness(witness)
    return term_matches(t, labels, name)


# ---------------------------------------------------------------------------------------------------------
# parse_int64 / validation helpers


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("7", 7),
        ("007", 7),
        ("+5", 5),
        ("-3", -3),
        ("-0", 0),
        (str(INT64_MAX), INT64_MAX),
        (str(INT64_MIN), INT64_MIN),
        ("0" * 100 + "1", 1),
        (str(INT64_MAX + 1), None),
        (str(INT64_MIN - 1), None),
        ("1" * 5000, None),
        (" 7", None),
        ("7 ", None),
        ("7\n", None),
        ("", None),
        ("+", None),
        ("--3", None),
        ("1_000", None),
        ("1.5", None),
        ("0x10", None),
        ("\u0663", None),  # Arabic-Indic digit three: Python's int() accepts it, Go does not
    ],
)
def test_parse_int64_follows_go_parseint(text: str, expected: int | None) -> None:
    assert parse_int64(text) == expected


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("", True),
        ("a", True),
        ("prod-1.a_b", True),
        ("007", True),
        ("x" * 63, True),
        ("x" * 64, False),
        ("-3", False),
        ("+5", False),
        (" 7", False),
        ("a-", False),
        ("a b", False),
    ],
)
def test_is_valid_label_value(value: str, valid: bool) -> None:
    assert is_valid_label_value(value) is valid


@pytest.mark.parametrize(
    ("key", "valid"),
    [
        ("env", True),
        ("example.com/env", True),
        ("node-role.kubernetes.io/worker", True),
        ("x" * 63, True),
        ("x" * 64, False),
        ("Example.com/env", False),
        ("/env", False),
        ("a/b/c", False),
        ("-env", False),
        ("bad key", False),
        ("", False),
        ("example.com/", False),
    ],
)
def test_label_key_problem(key: str, valid: bool) -> None:
    assert (label_key_problem(key) is None) is valid


@pytest.mark.parametrize(
    ("req", "field", "fragment"),
    [
        (R("env", "In", ("a",)), False, None),
        (R("env", "In", ()), False, "at least one value"),
        (R("env", "NotIn", ()), False, "at least one value"),
        (R("env", "Exists", ("a",)), False, "takes no values"),
        (R("env", "DoesNotExist", ("a",)), False, "takes no values"),
        (R("cpu", "Gt", ()), False, "exactly one value"),
        (R("cpu", "Lt", ("1", "2")), False, "exactly one value"),
        (R("cpu", "Gt", ("x",)), False, "not a 64-bit integer"),
        (R("cpu", "Gt", (" 7",)), False, "not a 64-bit integer"),
        (R("cpu", "Gt", ("-3",)), False, "not a valid label value"),
        (R("cpu", "Lt", ("+5",)), False, "not a valid label value"),
        (R("cpu", "Gt", ("007",)), False, None),
        (R("env", "In", ("a b",)), False, "not a valid label value"),
        (R("bad key", "Exists"), False, "not a valid label key"),
        (R("env", "Like", ("a",)), False, "not one of"),  # type: ignore[arg-type]
        (name_req("In", "n1"), True, None),
        (name_req("NotIn", "n1"), True, None),
        (name_req("In", "n1", "n2"), True, "exactly one value"),
        (name_req("Exists"), True, "only In and NotIn"),
        (R("metadata.namespace", "In", ("x",)), True, "not supported"),
    ],
)
def test_requirement_problem(req: Requirement, field: bool, fragment: str | None) -> None:
    problem = requirement_problem(req, field=field)
    if fragment is None:
        assert problem is None
    else:
        assert problem is not None and fragment in problem


def test_format_requirement() -> None:
    assert format_requirement(R("env", "In", ("a", "b"))) == "env In [a, b]"
    assert format_requirement(R("env", "In", ("",))) == 'env In [""]'
    assert format_requirement(R("cpu", "Gt", ("8",))) == "cpu Gt 8"
    assert format_requirement(R("gpu", "Exists")) == "gpu Exists"
    assert format_requirement(name_req("In", "n1"), field=True) == "field metadata.name In [n1]"
    many = format_requirement(R("env", "NotIn", tuple(str(i) for i in range(10))))
    assert many == "env NotIn [0, 1, 2, 3, 4, 5, ... 4 more]"


# ---------------------------------------------------------------------------------------------------------
# Matching truth table

LABELS = {
    "env": "prod",
    "cpu": "8",
    "odd": "007",
    "neg": "-3",
    "plus": "+5",
    "space": " 7",
    "text": "abc",
    "big": "9223372036854775808",
    "empty": "",
}


@pytest.mark.parametrize(
    ("req", "expected"),
    [
        # In
        (R("env", "In", ("prod",)), True),
        (R("env", "In", ("dev", "prod")), True),
        (R("env", "In", ("dev",)), False),
        (R("missing", "In", ("prod",)), False),
        (R("empty", "In", ("",)), True),
        (R("odd", "In", ("7",)), False),  # In compares strings, not numbers
        # NotIn
        (R("env", "NotIn", ("prod",)), False),
        (R("env", "NotIn", ("dev",)), True),
        (R("missing", "NotIn", ("x",)), True),  # a missing label satisfies NotIn
        # Exists / DoesNotExist
        (R("env", "Exists"), True),
        (R("empty", "Exists"), True),
        (R("missing", "Exists"), False),
        (R("env", "DoesNotExist"), False),
        (R("missing", "DoesNotExist"), True),
        # Gt / Lt
        (R("cpu", "Gt", ("7",)), True),
        (R("cpu", "Gt", ("8",)), False),
        (R("cpu", "Lt", ("9",)), True),
        (R("cpu", "Lt", ("8",)), False),
        (R("cpu", "Gt", ("007",)), True),  # requirement value 007 parses as 7
        (R("odd", "Gt", ("6",)), True),  # label value 007 parses as 7
        (R("odd", "Lt", ("7",)), False),
        (R("neg", "Lt", ("0",)), True),  # ParseInt accepts "-3" on the label side
        (R("neg", "Gt", ("0",)), False),
        (R("plus", "Gt", ("4",)), True),  # ... and "+5"
        (R("plus", "Lt", ("5",)), False),
        (R("space", "Gt", ("0",)), False),  # " 7" is not an integer for ParseInt
        (R("space", "Lt", ("100",)), False),
        (R("text", "Gt", ("0",)), False),
        (R("text", "Lt", ("100",)), False),
        (R("big", "Gt", ("0",)), False),  # out of int64 range
        (R("empty", "Gt", ("0",)), False),
        (R("missing", "Gt", ("0",)), False),
        (R("missing", "Lt", ("100",)), False),
        # malformed requirements never match, even where the operator would
        (R("cpu", "Gt", ("-3",)), False),
        (R("cpu", "Lt", ("+9",)), False),
        (R("cpu", "Gt", (" 7",)), False),
        (R("cpu", "Gt", ("x",)), False),
        (R("cpu", "Gt", ("1", "2")), False),
        (R("cpu", "Lt", ()), False),
        (R("env", "In", ()), False),
        (R("missing", "NotIn", ()), False),
        (R("env", "Exists", ("prod",)), False),
        (R("missing", "DoesNotExist", ("x",)), False),
        (R("bad key", "DoesNotExist"), False),
    ],
)
def test_expression_truth_table(req: Requirement, expected: bool) -> None:
    assert term_matches(term(req), LABELS, "node-1") is expected


@pytest.mark.parametrize(
    ("req", "expected"),
    [
        (name_req("In", "node-1"), True),
        (name_req("In", "node-2"), False),
        (name_req("NotIn", "node-2"), True),
        (name_req("NotIn", "node-1"), False),
        (name_req("In", "node-1", "node-2"), False),  # Kubernetes wants exactly one value
        (name_req("Exists"), False),
        (R("metadata.namespace", "In", ("node-1",)), False),
        (R("metadata.namespace", "NotIn", ("x",)), False),  # unsupported field key never matches
    ],
)
def test_field_truth_table(req: Requirement, expected: bool) -> None:
    assert term_matches(term(fields=[req]), {}, "node-1") is expected


def test_term_ands_expressions_and_fields() -> None:
    t = term(R("env", "In", ("prod",)), R("cpu", "Gt", ("4",)), fields=[name_req("In", "node-1")])
    assert term_matches(t, LABELS, "node-1")
    assert not term_matches(t, LABELS, "node-2")
    assert not term_matches(t, {**LABELS, "cpu": "2"}, "node-1")
    assert not term_matches(t, {"cpu": "8"}, "node-1")


def test_one_malformed_requirement_disables_only_its_term() -> None:
    broken = term(R("env", "In", ("prod",)), R("cpu", "Gt", ("-1",)))
    fine = term(R("env", "In", ("prod",)))
    assert not term_matches(broken, LABELS, "n")
    assert selector_matches([broken, fine], LABELS, "n")


def test_empty_terms_match_nothing() -> None:
    assert not term_matches(Term(), LABELS, "node-1")
    assert not term_matches(Term(), {}, "")
    assert not selector_matches([], LABELS, "node-1")
    assert not selector_matches([Term()], LABELS, "node-1")


def test_selector_ors_terms() -> None:
    dev = term(R("env", "In", ("dev",)))
    prod = term(R("env", "In", ("prod",)))
    assert selector_matches([dev, prod], LABELS, "n")
    assert not selector_matches([dev], LABELS, "n")


def test_terms_built_with_lists_still_work() -> None:
    # Unhashable values bypass the compile cache instead of failing.
    t = Term((R("env", "In", ["prod"]),))  # type: ignore[arg-type]
    assert term_matches(t, LABELS, "n")
    assert unsatisfiable_reason(t) is None
    assert overlap_witness(t, Term((R("env", "NotIn", ["dev"]),))) == {"env": "prod"}  # type: ignore[arg-type]


def test_labels_match() -> None:
    assert labels_match({}, {})
    assert labels_match({}, LABELS)
    assert labels_match({"env": "prod", "cpu": "8"}, LABELS)
    assert not labels_match({"env": "prod", "cpu": "08"}, LABELS)
    assert not labels_match({"missing": ""}, LABELS)
    assert labels_match({"empty": ""}, LABELS)


# ---------------------------------------------------------------------------------------------------------
# Satisfiability

ALL_FIVES = tuple("0" * pad + "5" for pad in range(63))


@pytest.mark.parametrize(
    ("t", "fragments"),
    [
        (
            term(R("env", "In", ("a",)), R("env", "NotIn", ("a",))),
            ["env In [a] and env NotIn [a]", "exclude"],
        ),
        (term(R("cpu", "Gt", ("8",)), R("cpu", "Lt", ("4",))), ["cpu Gt 8 and cpu Lt 4 leave no integer"]),
        (term(R("gpu", "DoesNotExist"), R("gpu", "In", ("x",))), ["gpu DoesNotExist contradicts gpu In [x]"]),
        (term(R("gpu", "In", ("x",)), R("gpu", "DoesNotExist")), ["gpu DoesNotExist contradicts gpu In [x]"]),
        (term(R("gpu", "Exists"), R("gpu", "DoesNotExist")), ["contradicts gpu Exists"]),
        (term(R("cpu", "Gt", ("4",)), R("cpu", "Lt", ("5",))), ["cpu Gt 4 and cpu Lt 5 leave no integer"]),
        (
            term(R("cpu", "In", ("x",)), R("cpu", "Gt", ("3",))),
            ["cpu In [x] and cpu Gt 3", "x is not an integer"],
        ),
        (
            term(R("cpu", "In", ("2", "3")), R("cpu", "Gt", ("3",))),
            ["cpu In [2, 3] and cpu Gt 3 leave no value"],
        ),
        (term(R("env", "In", ("a",)), R("env", "In", ("b",))), ["env In [a] and env In [b] have no value"]),
        (
            term(R("cpu", "In", ("5", "x")), R("cpu", "NotIn", ("5",)), R("cpu", "Gt", ("3",))),
            ["cpu In [5, x], cpu NotIn [5] and cpu Gt 3"],
        ),
        # tighter bounds are named, not the first ones
        (
            term(
                R("cpu", "Gt", ("2",)),
                R("cpu", "Gt", ("9",)),
                R("cpu", "Lt", ("20",)),
                R("cpu", "Lt", ("5",)),
            ),
            ["cpu Gt 9 and cpu Lt 5"],
        ),
        (term(R("cpu", "Lt", ("0",))), ["cpu Lt 0", "negative"]),
        (term(R("cpu", "Gt", (str(INT64_MAX),))), ["no 64-bit integer"]),
        # NotIn listing every spelling of the only integer in range
        (
            term(R("cpu", "Gt", ("4",)), R("cpu", "Lt", ("6",)), R("cpu", "NotIn", ALL_FIVES)),
            ["exclude every"],
        ),
        (Term(), ["has no requirements, so it matches nothing"]),
        (term(R("cpu", "Gt", ("-3",))), ["cpu Gt -3 is invalid", "matches nothing"]),
        (term(fields=[name_req("In", "a"), name_req("NotIn", "a")]), ["field metadata.name In [a]"]),
        (term(fields=[name_req("In", "a"), name_req("In", "b")]), ["no value in common"]),
        (term(fields=[R("spec.unschedulable", "In", ("true",))]), ["not supported"]),
    ],
)
def test_unsatisfiable(t: Term, fragments: list[str]) -> None:
    reason = unsatisfiable_reason(t)
    assert reason is not None
    for fragment in fragments:
        assert fragment in reason
    assert term_witness(t) is None


@pytest.mark.parametrize(
    ("t", "witness"),
    [
        (term(R("env", "Exists")), {"env": "x"}),
        (term(R("env", "Exists"), R("env", "NotIn", ("x", "x1"))), {"env": "x2"}),
        (term(R("env", "In", ("b", "a"))), {"env": "a"}),
        (term(R("env", "In", ("",))), {"env": ""}),
        (term(R("env", "In", ("a", "b")), R("env", "In", ("b", "c"))), {"env": "b"}),
        (term(R("env", "In", ("a", "b")), R("env", "NotIn", ("a",))), {"env": "b"}),
        (term(R("cpu", "Gt", ("3",))), {"cpu": "4"}),
        (term(R("cpu", "Lt", ("4",))), {"cpu": "0"}),
        (term(R("cpu", "Lt", ("1",))), {"cpu": "0"}),
        (term(R("cpu", "Gt", ("3",)), R("cpu", "Lt", ("5",))), {"cpu": "4"}),
        (term(R("cpu", "In", ("3", "4", "5")), R("cpu", "Gt", ("3",)), R("cpu", "Lt", ("5",))), {"cpu": "4"}),
        (term(R("cpu", "Gt", (str(INT64_MAX - 1),))), {"cpu": str(INT64_MAX)}),
        # "005" parses as 5, so NotIn [5] cannot empty the interval
        (term(R("cpu", "Gt", ("4",)), R("cpu", "Lt", ("6",)), R("cpu", "NotIn", ("5",))), {"cpu": "05"}),
        (
            term(R("cpu", "Gt", ("4",)), R("cpu", "Lt", ("6",)), R("cpu", "NotIn", ALL_FIVES[:-1])),
            {"cpu": ALL_FIVES[-1]},
        ),
        (term(R("cpu", "In", ("007",)), R("cpu", "Gt", ("6",))), {"cpu": "007"}),
        (term(R("cpu", "In", ("x", "9", "10")), R("cpu", "Gt", ("8",))), {"cpu": "10"}),
        (term(R("gpu", "DoesNotExist")), {}),
        (term(R("gpu", "NotIn", ("a100",))), {}),
        (
            term(R("gpu", "DoesNotExist"), R("gpu", "NotIn", ("a100",)), R("env", "In", ("prod",))),
            {"env": "prod"},
        ),
        (term(fields=[name_req("NotIn", "x")]), {NAME_WITNESS_KEY: "x1"}),
        (term(R("env", "Exists"), fields=[name_req("In", "n1")]), {"env": "x", NAME_WITNESS_KEY: "n1"}),
    ],
)
def test_satisfiable(t: Term, witness: dict[str, str]) -> None:
    assert unsatisfiable_reason(t) is None
    assert term_witness(t) == witness
    assert witness_matches(witness, t)


def test_split_witness_defaults_name() -> None:
    assert split_witness({"env": "x"}) == ({"env": "x"}, DEFAULT_WITNESS_NAME)
    assert split_witness({"env": "x", NAME_WITNESS_KEY: "n1"}) == ({"env": "x"}, "n1")


# ---------------------------------------------------------------------------------------------------------
# Overlap

PROD = term(R("env", "In", ("prod",)))


@pytest.mark.parametrize(
    ("a", "b", "witness"),
    [
        (PROD, term(R("env", "Exists"), R("owner", "In", ("ops",))), {"env": "prod", "owner": "ops"}),
        (term(R("cpu", "Gt", ("4",))), term(R("cpu", "Lt", ("8",))), {"cpu": "5"}),
        (term(R("env", "In", ("a", "b", "c"))), term(R("env", "In", ("c", "b"))), {"env": "b"}),
        (term(R("env", "NotIn", ("a",))), term(R("env", "In", ("a", "b"))), {"env": "b"}),
        (
            term(R("gpu", "DoesNotExist"), R("zone", "In", ("z1",))),
            term(R("gpu", "NotIn", ("a100",)), R("env", "In", ("x",))),
            {"env": "x", "zone": "z1"},
        ),
        (
            term(fields=[name_req("In", "n1")]),
            term(fields=[name_req("NotIn", "n2")]),
            {NAME_WITNESS_KEY: "n1"},
        ),
        (
            term(R("env", "Exists"), fields=[name_req("NotIn", "x")]),
            term(R("env", "NotIn", ("x",)), fields=[name_req("NotIn", "x1")]),
            {"env": "x1", NAME_WITNESS_KEY: "x2"},
        ),
    ],
)
def test_overlap_positive(a: Term, b: Term, witness: dict[str, str]) -> None:
    assert overlap_witness(a, b) == witness
    assert overlap_witness(b, a) == witness
    assert witness_matches(witness, a)
    assert witness_matches(witness, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (PROD, term(R("env", "In", ("dev",)))),  # disjoint In sets
        (PROD, term(R("env", "NotIn", ("prod",)))),
        (PROD, term(R("owner", "In", ("ops",)))),  # unrelated keys only
        (term(R("gpu", "Exists")), term(R("gpu", "DoesNotExist"))),
        (term(R("cpu", "Gt", ("8",))), term(R("cpu", "Lt", ("4",)))),
        (term(R("cpu", "Gt", ("4",))), term(R("cpu", "Lt", ("5",)))),
        (term(R("cpu", "In", ("x",))), term(R("cpu", "Gt", ("1",)))),
        (PROD, term(R("env", "In", ("prod",)), R("env", "NotIn", ("prod",)))),  # unsatisfiable term
        (PROD, term(R("env", "In", ("prod",)), R("cpu", "Gt", ("8",)), R("cpu", "Lt", ("4",)))),
        (PROD, Term()),
        (PROD, term(R("env", "In", ("prod",)), R("cpu", "Gt", ("-1",)))),  # malformed term
        (term(fields=[name_req("In", "n1")]), term(fields=[name_req("In", "n2")])),
        (term(fields=[name_req("In", "n1")]), term(R("metadata.name", "In", ("n1",)))),  # label, not field
    ],
)
def test_overlap_negative(a: Term, b: Term) -> None:
    assert overlap_witness(a, b) is None
    assert overlap_witness(b, a) is None


def test_selectors_overlap_reports_first_pair() -> None:
    dev = term(R("env", "In", ("dev",)))
    other = term(R("owner", "In", ("ops",)))
    env_owner = term(R("env", "Exists"), R("owner", "In", ("ops",)))
    assert selectors_overlap([dev, PROD], [other, env_owner]) == (0, 1, {"env": "dev", "owner": "ops"})
    assert selectors_overlap([PROD, dev], [other, term(R("env", "In", ("dev",)))]) == (1, 1, {"env": "dev"})
    assert selectors_overlap([dev], [other, PROD]) is None
    assert selectors_overlap([], [PROD]) is None
    assert selectors_overlap([PROD], []) is None


# ---------------------------------------------------------------------------------------------------------
# LabelIndex

POOLS: list[tuple[int, dict[str, str], str]] = [
    (10, {"env": "prod", "cpu": "32", "zone": "a"}, "prod-a"),
    (11, {"env": "prod", "cpu": "8", "zone": "b"}, "prod-b"),
    (12, {"env": "dev", "cpu": "4"}, "dev"),
    (13, {"env": "dev", "gpu": "a100", "cpu": "016"}, "gpu"),
    (14, {}, "bare"),
]


@pytest.mark.parametrize(
    ("terms", "expected"),
    [
        ([], []),
        ([Term()], []),
        ([PROD], [10, 11]),
        ([term(R("env", "In", ("prod", "dev")), R("cpu", "Gt", ("8",)))], [10, 13]),
        ([term(R("gpu", "Exists"))], [13]),
        ([term(R("gpu", "DoesNotExist"))], [10, 11, 12, 14]),
        ([term(R("env", "NotIn", ("prod",)))], [12, 13, 14]),
        ([term(R("cpu", "Lt", ("10",)))], [11, 12]),
        ([term(fields=[name_req("In", "bare")])], [14]),
        ([term(fields=[name_req("NotIn", "bare")])], [10, 11, 12, 13]),
        ([term(R("zone", "In", ("a",))), term(R("gpu", "Exists"))], [10, 13]),
        ([term(R("nothing", "In", ("x",)))], []),
    ],
)
def test_label_index_match(terms: list[Term], expected: list[int]) -> None:
    index = LabelIndex(POOLS)
    assert len(index) == len(POOLS)
    assert index.match(terms) == expected


def test_label_index_match_labels() -> None:
    index = LabelIndex(POOLS)
    assert index.match_labels({}) == [10, 11, 12, 13, 14]
    assert index.match_labels({"env": "prod"}) == [10, 11]
    assert index.match_labels({"env": "prod", "zone": "b"}) == [11]
    assert index.match_labels({"env": "prod", "zone": "c"}) == []
    assert index.match_labels({"cpu": "16"}) == []


def test_label_index_evaluates_only_candidates(monkeypatch: pytest.MonkeyPatch) -> None:
    pools = [(i, {"env": "prod", "zone": f"z{i % 3}"}, f"n{i}") for i in range(3000)]
    pools += [(3000 + i, {"env": "rare", "zone": "z0"}, f"r{i}") for i in range(3)]
    index = LabelIndex(pools)
    calls = 0
    original = label_index._run_checks

    def counting(*args: object) -> bool:
        nonlocal calls
        calls += 1
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(label_index, "_run_checks", counting)
    assert index.match([term(R("zone", "Exists"), R("env", "In", ("rare", "gone")))]) == [3000, 3001, 3002]
    assert calls == 3
    calls = 0
    assert index.match([term(R("env", "NotIn", ("prod",)))]) == [3000, 3001, 3002]
    assert calls == len(pools)  # only NotIn: a full scan is the documented fallback


# ---------------------------------------------------------------------------------------------------------
# Properties

KEYS = ("a", "b", "c")
NAMES = ("n1", "n2", "n3")
REQ_VALUES = ("", "x", "y", "0", "1", "2", "5", "7", "007", "10", "-3", "+5", " 7")
LABEL_VALUES = ("", "x", "y", "z", "0", "1", "2", "3", "5", "6", "7", "07", "007", "10", "-3", "+5", " 7")
VALID_LABEL_VALUES = tuple(v for v in LABEL_VALUES if is_valid_label_value(v))

requirements = st.builds(
    Requirement,
    key=st.sampled_from(KEYS),
    operator=st.sampled_from(OPS),
    values=st.lists(st.sampled_from(REQ_VALUES), max_size=3).map(tuple),
)
# mostly well-formed, so that satisfiable and unsatisfiable terms both occur often
wellformed = st.one_of(
    st.builds(
        R,
        st.sampled_from(KEYS),
        st.sampled_from(("In", "NotIn")),
        st.lists(st.sampled_from(VALID_LABEL_VALUES), min_size=1, max_size=3).map(tuple),
    ),
    st.builds(R, st.sampled_from(KEYS), st.sampled_from(("Exists", "DoesNotExist"))),
    st.builds(
        R,
        st.sampled_from(KEYS),
        st.sampled_from(("Gt", "Lt")),
        st.sampled_from(("0", "1", "2", "3", "5", "6", "7", "007", "9")).map(lambda v: (v,)),
    ),
)
any_field_requirements = st.builds(
    Requirement,
    key=st.sampled_from(("metadata.name", "metadata.namespace")),
    operator=st.sampled_from(OPS),
    values=st.lists(st.sampled_from(NAMES), max_size=2).map(tuple),
)
wellformed_fields = st.builds(
    R, st.just("metadata.name"), st.sampled_from(("In", "NotIn")), st.sampled_from(NAMES).map(lambda v: (v,))
)
# Malformed requirements make the whole term unsatisfiable, so they are drawn rarely (1 in 8).
terms = st.builds(
    Term,
    expressions=st.lists(st.one_of(*[wellformed] * 7, requirements), max_size=4).map(tuple),
    fields=st.lists(st.one_of(*[wellformed_fields] * 7, any_field_requirements), max_size=2).map(tuple),
)
label_sets = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(LABEL_VALUES), max_size=3)
valid_label_sets = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALID_LABEL_VALUES), max_size=3)


def candidate_nodes(*ts: Term) -> list[tuple[dict[str, str], str]]:
    """Brute-force domain: valid label sets built from the values each key mentions and their neighbours."""
    per_key: dict[str, set[str]] = {key: {"x", "x1", "x2", "0"} for key in KEYS}
    names: set[str] = {"x", "x1", "x2", DEFAULT_WITNESS_NAME}
    for t in ts:
        for req in t.expressions:
            values = per_key[req.key]
            values.update(req.values)
            for value in req.values:
                number = parse_int64(value)
                if number is not None:
                    values.update({str(number - 1), str(number), str(number + 1), "0" + str(number + 1)})
        for req in t.fields:
            names.update(req.values)
    domains = [[None, *sorted(v for v in per_key[key] if is_valid_label_value(v))] for key in KEYS]
    nodes: list[tuple[dict[str, str], str]] = []
    for combo in itertools.product(*domains):
        labels = {key: value for key, value in zip(KEYS, combo, strict=True) if value is not None}
        nodes.extend((labels, name) for name in sorted(names))
    return nodes


@settings(deadline=None)
@given(
    pools=st.lists(st.tuples(label_sets, st.sampled_from(NAMES)), max_size=25),
    selector=st.lists(terms, max_size=3),
    plain=st.dictionaries(st.sampled_from(KEYS), st.sampled_from(LABEL_VALUES), max_size=2),
)
def test_label_index_equals_brute_force(
    pools: list[tuple[dict[str, str], str]], selector: list[Term], plain: dict[str, str]
) -> None:
    rows = [(pool_id * 7 % 100, labels, name) for pool_id, (labels, name) in enumerate(pools)]
    index = LabelIndex(rows)
    brute = sorted({pid for pid, labels, name in rows if selector_matches(selector, labels, name)})
    assert index.match(selector) == brute
    brute_plain = sorted({pid for pid, labels, _ in rows if labels_match(plain, labels)})
    assert index.match_labels(plain) == brute_plain


@settings(deadline=None)
@given(t=terms, labels=valid_label_sets, name=st.sampled_from(NAMES))
def test_unsatisfiable_terms_match_no_valid_node(t: Term, labels: dict[str, str], name: str) -> None:
    if unsatisfiable_reason(t) is not None:
        assert not term_matches(t, labels, name)


@settings(deadline=None, max_examples=examples(150))
@given(t=terms)
def test_satisfiability_is_exact(t: Term) -> None:
    reason = unsatisfiable_reason(t)
    witness = term_witness(t)
    if reason is None:
        # complete: a satisfiable verdict comes with a label set that really matches
        assert witness is not None and witness_matches(witness, t)
        # smallest: every label in the witness is needed
        labels, name = split_witness(witness)
        for key in labels:
            assert not term_matches(t, {k: v for k, v in labels.items() if k != key}, name)
    else:
        # sound: no node in a brute-force domain matches an unsatisfiable term
        assert witness is None
        assert not any(term_matches(t, labels, name) for labels, name in candidate_nodes(t))


def _keys(t: Term) -> set[str]:
    return {req.key for req in t.expressions} | ({NAME_WITNESS_KEY} if t.fields else set())


@settings(deadline=None, max_examples=examples(150))
@given(a=terms, b=terms)
def test_overlap_witness_properties(a: Term, b: Term) -> None:
    witness = overlap_witness(a, b)
    assert overlap_witness(b, a) == witness
    if witness is not None:
        assert witness_matches(witness, a)
        assert witness_matches(witness, b)
        assert _keys(a) & _keys(b)
        labels, name = split_witness(witness)
        for key in labels:
            smaller = {k: v for k, v in labels.items() if k != key}
            assert not (term_matches(a, smaller, name) and term_matches(b, smaller, name))
        return
    shared = _keys(a) & _keys(b)
    if shared and unsatisfiable_reason(a) is None and unsatisfiable_reason(b) is None:
        # no overlap reported, so none may exist
        assert not any(term_matches(a, lb, n) and term_matches(b, lb, n) for lb, n in candidate_nodes(a, b))


@settings(deadline=None, max_examples=examples(150))
@given(terms_a=st.lists(terms, max_size=3), terms_b=st.lists(terms, max_size=3))
def test_selectors_overlap_is_first_pair(terms_a: list[Term], terms_b: list[Term]) -> None:
    expected = None
    for i, a in enumerate(terms_a):
        for j, b in enumerate(terms_b):
            witness = overlap_witness(a, b)
            if witness is not None:
                expected = (i, j, witness)
                break
        if expected is not None:
            break
    assert selectors_overlap(terms_a, terms_b) == expected
