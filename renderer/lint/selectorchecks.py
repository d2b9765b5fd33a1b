"""Selector checks shared by AL101-AL104 for the two kinds that select pools by node selector terms.

AL103's symbolic overlap search is here too; see ``overlapping_pairs`` for how it avoids comparing all pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from renderer.capacity.matching import to_terms
from renderer.capacity.model import PoolCapacity
from renderer.capacity.selectors import NAME_WITNESS_KEY, Term, overlap_witness, unsatisfiable_reason
from renderer.lint.helpers import why_selected
from renderer.lint.rule import LintContext
from renderer.models.commitclass import CommitClass
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.validation.validate import Loaded

Kind = Literal["CommitClass", "ReservationPolicy"]
Selecting = Loaded[CommitClass] | Loaded[ReservationPolicy]


def selecting(ctx: LintContext, kind: Kind) -> Sequence[Selecting]:
    p = ctx.load.policies
    return p.commit_classes if kind == "CommitClass" else p.reservation_policies


def selected_by(pc: PoolCapacity, kind: Kind) -> Sequence[Selecting]:
    return pc.commit_classes if kind == "CommitClass" else pc.reservation_policies


@dataclass(frozen=True)
class Conflict:
    pool: PoolCapacity
    policies: tuple[Selecting, ...]
    reasons: tuple[str, ...]  # per policy: the labels that make it match


def conflicts(ctx: LintContext, kind: Kind) -> Iterator[Conflict]:
    """Pools of the inventory selected by more than one policy of ``kind``."""
    for pc in ctx.model.pools:
        chosen = selected_by(pc, kind)
        if len(chosen) > 1:
            reasons = tuple(why_selected(p.model.spec.selector, pc.pool)[0] for p in chosen)
            yield Conflict(pc, tuple(chosen), reasons)


def conflicting_pairs(ctx: LintContext, kind: Kind) -> set[tuple[int, int]]:
    """Pairs (by id of the Loaded objects, smaller first) that already select a common pool."""
    out: set[tuple[int, int]] = set()
    for pc in ctx.model.pools:
        chosen = selected_by(pc, kind)
        for i, a in enumerate(chosen):
            for b in chosen[i + 1 :]:
                out.add((min(id(a), id(b)), max(id(a), id(b))))
    return out


# ---------------------------------------------------------------------------------------------------------
# AL103: symbolic overlap without comparing all pairs


def _bucket_keys(term: Term) -> Iterator[tuple[str, str | None]]:
    """The buckets a term goes in: ``(key, value)`` for every value an In on ``key`` allows, ``(key, None)``
    for a key it constrains without In (NotIn, Exists, DoesNotExist, Gt, Lt only)."""
    ins: dict[str, set[str] | None] = {}
    others: set[str] = set()
    for req in term.expressions:
        if req.operator == "In":
            allowed = set(req.values)
            prev = ins.get(req.key)
            ins[req.key] = allowed if prev is None else prev & allowed
        else:
            others.add(req.key)
    for req in term.fields:
        key = NAME_WITNESS_KEY
        if req.operator == "In":
            prev = ins.get(key)
            ins[key] = set(req.values) if prev is None else prev & set(req.values)
        else:
            others.add(key)
    for key, values in ins.items():
        for value in sorted(values or ()):
            yield key, value
    for key in sorted(others - set(ins)):
        yield key, None


@dataclass(frozen=True)
class Overlap:
    first: Selecting
    second: Selecting
    first_term: int
    second_term: int
    witness: dict[str, str]


def overlapping_pairs(policies: Sequence[Selecting], skip: set[tuple[int, int]]) -> Iterator[Overlap]:
    """Pairs of policies whose selectors can both match one node, found symbolically.

    Complexity: a pair of terms can only overlap in a reportable way when they constrain a common key, and when
    both constrain that key with In they must also share a value. So every satisfiable term is put in buckets
    by ``(key, value)`` for the values its In requirements allow, and by ``(key, *)`` for keys it constrains
    without In. Candidates are the pairs inside one ``(key, value)`` bucket, plus the pairs between a
    ``(key, *)`` bucket and every term constraining ``key``. Terms on unrelated keys, or with disjoint In values,
    are never compared, so a repository of 1,500 classes keyed on distinct tier values costs one pass over its
    terms, not 1,500²/2 comparisons. Each candidate term pair is checked once with ``overlap_witness`` (exact,
    symbolic), and a policy pair stops at its first overlapping term pair. Pairs in ``skip`` (already reported
    as concrete conflicts) are not reported again. Output is in source order of the second policy.
    """
    terms: list[tuple[int, int, Term]] = []  # (policy index, term index, term)
    for pi, loaded in enumerate(policies):
        for ti, term in enumerate(to_terms(loaded.model.spec.selector)):
            if unsatisfiable_reason(term) is None:
                terms.append((pi, ti, term))
    by_value: dict[tuple[str, str], list[int]] = {}
    by_key_other: dict[str, list[int]] = {}
    by_key_all: dict[str, list[int]] = {}
    for n, (_, _, term) in enumerate(terms):
        seen_keys: set[str] = set()
        for key, value in _bucket_keys(term):
            if value is None:
                by_key_other.setdefault(key, []).append(n)
            else:
                by_value.setdefault((key, value), []).append(n)
            if key not in seen_keys:
                by_key_all.setdefault(key, []).append(n)
                seen_keys.add(key)

    candidates: set[tuple[int, int]] = set()

    def add(a: int, b: int) -> None:
        if terms[a][0] != terms[b][0]:
            candidates.add((a, b) if a < b else (b, a))

    for members in by_value.values():
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                add(a, b)
    for key, others in by_key_other.items():
        everyone = by_key_all.get(key, [])
        for a in others:
            for b in everyone:
                add(a, b)

    reported: set[tuple[int, int]] = set()
    found: list[Overlap] = []
    for a, b in sorted(candidates, key=lambda ab: (terms[ab[0]][0], terms[ab[0]][1], terms[ab[1]][0], terms[ab[1]][1])):
        pa, ta, term_a = terms[a]
        pb, tb, term_b = terms[b]
        first, second = (pa, ta, term_a), (pb, tb, term_b)
        if pb < pa:
            first, second = second, first
        pair = (first[0], second[0])
        if pair in reported:
            continue
        la, lb = policies[first[0]], policies[second[0]]
        if (min(id(la), id(lb)), max(id(la), id(lb))) in skip:
            reported.add(pair)
            continue
        witness = overlap_witness(first[2], second[2])
        if witness is None:
            continue
        reported.add(pair)
        found.append(Overlap(la, lb, first[1], second[1], witness))
    index = {id(p): i for i, p in enumerate(policies)}
    found.sort(key=lambda o: (index[id(o.second)], index[id(o.first)]))
    yield from found


def format_witness(witness: dict[str, str]) -> str:
    parts = []
    for key, value in witness.items():
        if key == NAME_WITNESS_KEY:
            parts.append(f"metadata.name={value}")
        else:
            parts.append(f"{key}={value}" if value else f'{key}=""')
    return "{" + ", ".join(parts) + "}"
