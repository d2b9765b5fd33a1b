"""Kubernetes node selector semantics: matching, satisfiability and overlap.

Pure domain code (stdlib only). The pydantic models convert ``nodeSelectorTerms`` into :class:`Term` values;
the capacity model and lint rules AL101-AL106 use the functions here;
``renderer.capacity.label_index`` matches a selector against many pools at once with the same compiled terms.

Semantics follow the kube-scheduler's node affinity evaluation:

* terms are ORed, requirements inside a term (``matchExpressions`` and ``matchFields``) are ANDed; an empty
  term list and a term without requirements match nothing;
* ``NotIn`` and ``DoesNotExist`` match a node that lacks the label; ``In``, ``Exists``, ``Gt`` and ``Lt``
  need it;
* ``Gt``/``Lt`` parse both the label value and the single requirement value like Go's
  ``strconv.ParseInt(s, 10, 64)``: an optional sign, ASCII digits (leading zeros allowed, ``"007"`` is 7), no
  spaces, within int64. A label value that does not parse never matches;
* a malformed requirement makes its whole term match nothing (the scheduler skips terms it cannot parse):
  invalid label key, ``In``/``NotIn`` without values, ``Exists``/``DoesNotExist`` with values, ``Gt``/``Lt``
  without exactly one int64 value, or a value that is not a valid label value (so ``Gt -3`` and ``Gt +5`` are
  rejected, because label values must start with a letter or digit);
* ``matchFields`` supports only ``metadata.name`` with ``In``/``NotIn`` and exactly one value, compared
  with the node name; anything else is malformed and never matches. A pool whose node names are unknown (a NodePool:
  its nodes are named when they are created) is passed with the name None: a term with ``matchFields`` cannot be
  evaluated for it and does not match it (lint rule AL108 says so), never a silent match on the pool's own name.

Satisfiability and overlap reason over label sets a Node can actually carry: every label value is a valid
Kubernetes label value (at most 63 characters, alphanumeric at both ends). Integer label values are therefore
non-negative digit strings, and every integer has many spellings (``"7"``, ``"07"``, ...), so a finite
``NotIn`` list can only rule out an integer when it lists every spelling.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Final, Literal, NamedTuple, TypeAlias, TypeVar, cast, get_args

from renderer.labels import (
    INT64_MAX,
    INT64_MIN,
    MAX_LABEL_VALUE_LEN,
    is_valid_label_value,
    label_key_problem,
    parse_int64,
)

__all__ = [
    "DEFAULT_WITNESS_NAME",
    "INT64_MAX",
    "INT64_MIN",
    "NAME_FIELD",
    "NAME_WITNESS_KEY",
    "OPERATORS",
    "Operator",
    "Requirement",
    "Term",
    "format_requirement",
    "is_valid_label_value",
    "label_key_problem",
    "labels_match",
    "overlap_witness",
    "parse_int64",
    "requirement_problem",
    "selector_matches",
    "selectors_overlap",
    "split_witness",
    "term_matches",
    "term_witness",
    "unsatisfiable_reason",
]

Operator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]
OPERATORS: Final[tuple[str, ...]] = get_args(Operator)

#: The only field key Kubernetes supports in ``matchFields`` of a node selector term.
NAME_FIELD: Final = "metadata.name"
#: Key under which witnesses carry the node name. ``:`` cannot occur in a label key, so it never collides.
NAME_WITNESS_KEY: Final = "matchFields:metadata.name"
#: Node name used for a witness whose terms do not constrain the name.
DEFAULT_WITNESS_NAME: Final = "node"

_MAX_LABEL_VALUE_LEN: Final = MAX_LABEL_VALUE_LEN
_MAX_SHOWN_VALUES: Final = 6


class Requirement(NamedTuple):
    """One ``matchExpressions``/``matchFields`` entry."""

    key: str
    operator: Operator
    values: tuple[str, ...] = ()


class Term(NamedTuple):
    """One node selector term; ``fields`` are ``matchFields`` (only ``metadata.name`` is supported)."""

    expressions: tuple[Requirement, ...] = ()
    fields: tuple[Requirement, ...] = ()


# ----------------------------------------------------------------------------------------------------
# Parsing and validation helpers


def requirement_problem(req: Requirement, *, field: bool = False) -> str | None:
    """Why Kubernetes would reject ``req`` (a ``matchFields`` entry when ``field``); None if well formed."""
    op: str = req.operator
    count = len(req.values)
    if field:
        if req.key != NAME_FIELD:
            return f"field {req.key!r} is not supported (only {NAME_FIELD})"
        if op not in ("In", "NotIn"):
            return f"field selectors support only In and NotIn, not {op!r}"
        if count != 1:
            return f"field {op} needs exactly one value"
        return None
    key_problem = label_key_problem(req.key)
    if key_problem is not None:
        return f"key {req.key!r} is not a valid label key: {key_problem}"
    if op in ("In", "NotIn"):
        if count == 0:
            return f"{op} needs at least one value"
    elif op in ("Exists", "DoesNotExist"):
        if count != 0:
            return f"{op} takes no values"
    elif op in ("Gt", "Lt"):
        if count != 1:
            return f"{op} needs exactly one value"
        if parse_int64(req.values[0]) is None:
            return f"{op} value {req.values[0]!r} is not a 64-bit integer"
    else:
        return f"operator {op!r} is not one of {', '.join(OPERATORS)}"
    for value in req.values:
        if not is_valid_label_value(value):
            return f"value {value!r} is not a valid label value"
    return None


def _fmt_value(value: str) -> str:
    return value if value else '""'


def format_requirement(req: Requirement, *, field: bool = False) -> str:
    """Human form used in messages: ``env In [a, b]``, ``cpu Gt 8``, ``field metadata.name In [n1]``.

    Long value lists are cut after a few values (``[a, b, ... 7 more]``).
    """
    head = f"field {req.key} {req.operator}" if field else f"{req.key} {req.operator}"
    if req.operator in ("Gt", "Lt") and len(req.values) == 1:
        return f"{head} {_fmt_value(req.values[0])}"
    if req.values or req.operator in ("In", "NotIn"):
        shown = [_fmt_value(v) for v in req.values[:_MAX_SHOWN_VALUES]]
        if len(req.values) > _MAX_SHOWN_VALUES:
            shown.append(f"... {len(req.values) - _MAX_SHOWN_VALUES} more")
        return f"{head} [{', '.join(shown)}]"
    return head


# ----------------------------------------------------------------------------------------------------
# Compiled terms

_IN: Final = 0
_NOTIN: Final = 1
_EXISTS: Final = 2
_ABSENT: Final = 3
_GT: Final = 4
_LT: Final = 5
_OP_CODES: Final[dict[str, int]] = {
    "In": _IN,
    "NotIn": _NOTIN,
    "Exists": _EXISTS,
    "DoesNotExist": _ABSENT,
    "Gt": _GT,
    "Lt": _LT,
}

_T = TypeVar("_T")
_COMPILE_CACHE_LIMIT: Final = 65536

# (operator code, label key or None for the node name, value set (In, NotIn), integer bound (Gt, Lt))
_Check: TypeAlias = "tuple[int, str | None, frozenset[str], int]"


class _Solution(NamedTuple):
    """Solution for one key: a value, absence (``value`` None) or the reason no value works."""

    value: str | None = None
    reason: str | None = None


class _Compiled(NamedTuple):
    problem: str | None  # structural: empty or malformed term (matches nothing at all)
    reason: str | None  # problem, or why no valid label set satisfies the term
    checks: tuple[_Check, ...]
    groups: dict[str, tuple[Requirement, ...]]  # per key (NAME_WITNESS_KEY for fields), first-seen order
    solutions: dict[str, str | None]  # per key when satisfiable: witness value, None = label absent
    keys: frozenset[str]
    allowed: dict[str, frozenset[str]]  # per key with In requirements: the values all of them allow


def _join(parts: Sequence[str]) -> str:
    unique = list(dict.fromkeys(parts))
    if len(unique) <= 1:
        return "".join(unique)
    return f"{', '.join(unique[:-1])} and {unique[-1]}"


def _integer_spellings(number: int) -> Iterator[str]:
    """Every label value that parses to ``number`` (>= 0): ``7``, ``07``, ``007``, ... up to 63 characters."""
    text = str(number)
    for pad in range(_MAX_LABEL_VALUE_LEN - len(text) + 1):
        yield "0" * pad + text


def _placeholders() -> Iterator[str]:
    yield "x"
    index = 1
    while True:
        yield f"x{index}"
        index += 1


def _bound_of(req: Requirement) -> int:
    bound = parse_int64(req.values[0])
    assert bound is not None  # guaranteed by requirement_problem
    return bound


def _solve_uncached(key: str, reqs: tuple[Requirement, ...]) -> _Solution:
    """Find the smallest readable value for ``key`` satisfying all (well-formed) ``reqs``, or say why not."""
    is_field = key == NAME_WITNESS_KEY

    def fmt(i: int) -> str:
        return format_requirement(reqs[i], field=is_field)

    present = [i for i, r in enumerate(reqs) if r.operator in ("In", "Exists", "Gt", "Lt")]
    absent = [i for i, r in enumerate(reqs) if r.operator == "DoesNotExist"]
    if absent and present:
        return _Solution(reason=f"{fmt(absent[0])} contradicts {fmt(present[0])}")
    if not present and not is_field:
        return _Solution(value=None)  # absence satisfies NotIn / DoesNotExist

    ins = [i for i, r in enumerate(reqs) if r.operator == "In"]
    notins = [i for i, r in enumerate(reqs) if r.operator == "NotIn"]
    gts = [i for i, r in enumerate(reqs) if r.operator == "Gt"]
    lts = [i for i, r in enumerate(reqs) if r.operator == "Lt"]
    excluded: set[str] = set()
    for i in notins:
        excluded.update(reqs[i].values)

    bounded = bool(gts or lts)
    # Label values are never negative (they must start with a letter or digit), hence the lower bound 0.
    low, high = 0, INT64_MAX
    gt_at = lt_at = -1
    if gts:
        bound, gt_at = max((_bound_of(reqs[i]), -i) for i in gts)
        gt_at = -gt_at
        low = max(low, bound + 1)
    if lts:
        bound, lt_at = min((_bound_of(reqs[i]), i) for i in lts)
        high = min(high, bound - 1)
    if bounded and low > high:
        if gt_at >= 0 and lt_at >= 0:
            return _Solution(reason=f"{fmt(gt_at)} and {fmt(lt_at)} leave no integer")
        if lt_at >= 0:
            return _Solution(reason=f"{fmt(lt_at)} needs a negative value, which no label value can be")
        return _Solution(reason=f"{fmt(gt_at)} leaves no 64-bit integer")

    if ins:
        allowed = set(reqs[ins[0]].values)
        for i in ins[1:]:
            allowed.intersection_update(reqs[i].values)
        if not allowed:
            return _Solution(reason=f"{_join([fmt(i) for i in ins])} have no value in common")
        candidates = sorted(allowed - excluded)
        hit = [i for i in notins if allowed.intersection(reqs[i].values)]
        if not candidates:
            return _Solution(reason=f"{_join([fmt(i) for i in ins + hit])} exclude every value")
        if not bounded:
            return _Solution(value=candidates[0])
        parsed = [(value, parse_int64(value)) for value in candidates]
        for value, number in parsed:
            if number is not None and low <= number <= high:
                return _Solution(value=value)
        named = _join([fmt(i) for i in ins + hit + sorted(gts + lts)])
        non_integers = [value for value, number in parsed if number is None]
        if len(non_integers) == len(parsed):
            listed = ", ".join(_fmt_value(v) for v in non_integers)
            verb = "is not an integer" if len(non_integers) == 1 else "are not integers"
            return _Solution(reason=f"{named} leave no value: {listed} {verb}")
        return _Solution(reason=f"{named} leave no value")

    if bounded:
        # Each failed spelling is a distinct excluded value, so this loop runs at most len(excluded) + 1 times
        # before it succeeds or runs out of integers.
        number = low
        while number <= high:
            for spelling in _integer_spellings(number):
                if spelling not in excluded:
                    return _Solution(value=spelling)
            number += 1
        return _Solution(reason=f"{_join([fmt(i) for i in sorted(gts + lts) + notins])} exclude every value")

    for placeholder in _placeholders():  # terminates: excluded is finite
        if placeholder not in excluded:
            return _Solution(value=placeholder)
    raise AssertionError("unreachable")  # pragma: no cover


# Joint solving for overlap repeats the same requirement combinations across many selector pairs.
_solve = lru_cache(maxsize=65536)(_solve_uncached)


#: Value sets, key sets and requirement groups of compiled terms, one object per distinct content: selectors repeat
#: the same requirements term after term (10,000 classes of 3 terms of 4 requirements held 7 MB of equal sets).
_SHARED: dict[object, object] = {}
_NO_VALUES: Final[frozenset[str]] = frozenset()


def _shared(value: _T) -> _T:
    """The one object equal to ``value`` (hashable and immutable) kept for compiled terms."""
    got = _SHARED.get(value)
    if got is None:
        if len(_SHARED) >= _COMPILE_CACHE_LIMIT:
            _SHARED.clear()
        _SHARED[value] = got = value
    return cast(_T, got)


def _compile_uncached(term: Term) -> _Compiled:
    checks: list[_Check] = []
    groups: dict[str, list[Requirement]] = {}
    problem: str | None = None
    if not term.expressions and not term.fields:
        problem = "term has no requirements, so it matches nothing"
    for is_field, reqs in ((False, term.expressions), (True, term.fields)):
        for req in reqs:
            if problem is None:
                issue = requirement_problem(req, field=is_field)
                if issue is not None:
                    problem = (
                        f"{format_requirement(req, field=is_field)} is invalid ({issue}); "
                        "Kubernetes skips the term, so it matches nothing"
                    )
            if problem is not None:
                continue
            code = _OP_CODES[req.operator]
            bound = 0
            values = _NO_VALUES
            if code in (_GT, _LT):
                bound = _bound_of(req)
            elif code in (_IN, _NOTIN):
                values = _shared(frozenset(req.values))
            checks.append(_shared((code, None if is_field else req.key, values, bound)))
            if not isinstance(req.values, tuple):  # keep solver inputs hashable (cache keys)
                req = Requirement(req.key, req.operator, tuple(req.values))
            groups.setdefault(NAME_WITNESS_KEY if is_field else req.key, []).append(req)
    if problem is not None:
        return _Compiled(problem, problem, (), {}, {}, frozenset(), {})

    frozen_groups = {key: _shared(tuple(reqs)) for key, reqs in groups.items()}
    solutions: dict[str, str | None] = {}
    reason: str | None = None
    for key, reqs in frozen_groups.items():
        solution = _solve(key, reqs)
        if solution.reason is not None:
            reason = solution.reason
            solutions = {}
            break
        solutions[key] = solution.value
    allowed: dict[str, frozenset[str]] = {}
    for key, reqs in frozen_groups.items():
        for req in reqs:
            if req.operator == "In":
                values = _shared(frozenset(req.values))
                allowed[key] = _shared(allowed[key] & values) if key in allowed else values
    return _Compiled(
        None, reason, _shared(tuple(checks)), frozen_groups, solutions, _shared(frozenset(frozen_groups)), allowed
    )


_COMPILE_CACHE: dict[Term, _Compiled] = {}


def _compile(term: Term) -> _Compiled:
    """Compile once per distinct term; terms built with (unhashable) lists are compiled every time."""
    try:
        return _COMPILE_CACHE[term]
    except KeyError:
        pass
    except TypeError:
        return _compile_uncached(term)
    compiled = _compile_uncached(term)
    if len(_COMPILE_CACHE) >= _COMPILE_CACHE_LIMIT:
        _COMPILE_CACHE.clear()
    _COMPILE_CACHE[term] = compiled
    return compiled


def _run_checks(checks: tuple[_Check, ...], labels: Mapping[str, str], name: str | None) -> bool:
    for code, key, values, bound in checks:
        if key is None and name is None:
            return False  # matchFields on a pool whose node names are unknown: cannot be evaluated, no match
        value = name if key is None else labels.get(key)
        if code == _IN:
            if value is None or value not in values:
                return False
        elif code == _NOTIN:
            if value is not None and value in values:
                return False
        elif code == _EXISTS:
            if value is None:
                return False
        elif code == _ABSENT:
            if value is not None:
                return False
        else:
            if value is None:
                return False
            number = parse_int64(value)
            if number is None or (number <= bound if code == _GT else number >= bound):
                return False
    return True


# ----------------------------------------------------------------------------------------------------
# Matching


def term_matches(term: Term, labels: Mapping[str, str], name: str | None) -> bool:
    """True when the node (``labels``, ``name``; None: unknown, as for a NodePool) satisfies every requirement of
    ``term``."""
    compiled = _compile(term)
    return compiled.problem is None and _run_checks(compiled.checks, labels, name)


def selector_matches(terms: Sequence[Term], labels: Mapping[str, str], name: str | None) -> bool:
    """True when any term matches (terms are ORed); an empty term list matches nothing."""
    return any(term_matches(term, labels, name) for term in terms)


def labels_match(selector: Mapping[str, str], labels: Mapping[str, str]) -> bool:
    """Plain ``nodeSelector`` map: every pair must be present and equal; an empty map matches every node."""
    return all(labels.get(key) == value for key, value in selector.items())


# ----------------------------------------------------------------------------------------------------
# Satisfiability and overlap


def unsatisfiable_reason(term: Term) -> str | None:
    """None if some valid node (labels + name) satisfies ``term``, else a short reason naming the conflict."""
    return _compile(term).reason


def term_witness(term: Term) -> dict[str, str] | None:
    """Smallest label set satisfying ``term`` (node name under :data:`NAME_WITNESS_KEY`), or None."""
    compiled = _compile(term)
    if compiled.reason is not None:
        return None
    return {key: value for key, value in sorted(compiled.solutions.items()) if value is not None}


def split_witness(witness: Mapping[str, str]) -> tuple[dict[str, str], str]:
    """Turn a witness into ``(labels, node name)`` for :func:`term_matches`."""
    labels = {key: value for key, value in witness.items() if key != NAME_WITNESS_KEY}
    return labels, witness.get(NAME_WITNESS_KEY, DEFAULT_WITNESS_NAME)


def _overlap(a: _Compiled, b: _Compiled) -> dict[str, str] | None:
    if a.reason is not None or b.reason is not None or a.keys.isdisjoint(b.keys):
        return None
    shared = a.keys & b.keys
    for key in shared:  # cheap rejection: In sets that cannot meet
        allowed_a = a.allowed.get(key)
        allowed_b = b.allowed.get(key)
        if allowed_a is not None and allowed_b is not None and allowed_a.isdisjoint(allowed_b):
            return None
    witness: dict[str, str] = {}
    for key in a.keys | b.keys:
        if key in shared:
            solution = _solve(key, a.groups[key] + b.groups[key])
            if solution.reason is not None:
                return None
            value = solution.value
        else:
            value = a.solutions[key] if key in a.groups else b.solutions[key]
        if value is not None:
            witness[key] = value
    return dict(sorted(witness.items()))


def overlap_witness(a: Term, b: Term) -> dict[str, str] | None:
    """Smallest label set matched by both terms, reported only when they constrain a common key.

    None when the terms share no key (unrelated selectors are not reported), when a shared key makes them
    disjoint, or when either term is unsatisfiable. The node name appears under :data:`NAME_WITNESS_KEY`
    when either term has ``matchFields``; use :func:`split_witness` to evaluate it.
    """
    return _overlap(_compile(a), _compile(b))


def selectors_overlap(terms_a: Sequence[Term], terms_b: Sequence[Term]) -> tuple[int, int, dict[str, str]] | None:
    """First overlapping pair ``(index in a, index in b, witness)`` in (a, b) index order, or None."""
    compiled_b = [_compile(term) for term in terms_b]
    for i, term in enumerate(terms_a):
        compiled_a = _compile(term)
        if compiled_a.reason is not None:
            continue
        for j, compiled in enumerate(compiled_b):
            witness = _overlap(compiled_a, compiled)  # rejects pairs without a shared key first
            if witness is not None:
                return i, j, witness
    return None
