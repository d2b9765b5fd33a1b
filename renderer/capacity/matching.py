"""Which policies select which pools: CommitClasses and ReservationPolicies by node selector terms,
RuntimeClasses by their plain ``scheduling.nodeSelector``. Several matches are all kept."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from renderer.capacity.label_index import LabelIndex
from renderer.capacity.selectors import Operator, Requirement, Term
from renderer.models.commitclass import CommitClass
from renderer.models.common import NodeSelectorTerm
from renderer.models.inventory import Pool
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.models.runtimeclass import RuntimeClass
from renderer.validation.validate import Loaded, PolicySet

_L = TypeVar("_L")

#: One Requirement per distinct (key, operator, values): selectors repeat them term after term, and the compiled
#: terms keep them (``renderer.capacity.selectors``).
_REQUIREMENTS: dict[tuple[str, str, tuple[str, ...]], Requirement] = {}
_REQUIREMENTS_LIMIT = 65536


def _requirement(key: str, operator: Operator, values: Sequence[str] | None) -> Requirement:
    spec = (key, operator, tuple(values or ()))
    got = _REQUIREMENTS.get(spec)
    if got is None:
        if len(_REQUIREMENTS) >= _REQUIREMENTS_LIMIT:
            _REQUIREMENTS.clear()
        got = _REQUIREMENTS[spec] = Requirement(*spec)
    return got


def to_terms(terms: Sequence[NodeSelectorTerm]) -> tuple[Term, ...]:
    """Model selector terms → the selector engine's terms. Cost: O(requirements)."""
    return tuple(
        Term(
            expressions=tuple(_requirement(e.key, e.operator, e.values) for e in (t.matchExpressions or ())),
            fields=tuple(_requirement(f.key, f.operator, f.values) for f in (t.matchFields or ())),
        )
        for t in terms
    )


@dataclass(eq=False, repr=False)
class Matches:
    """For each pool (by index in PolicySet.pools) the policies that apply, in source order (pools matched alike
    share one list: read only)."""

    commit_classes: list[list[Loaded[CommitClass]]]
    reservation_policies: list[list[Loaded[ReservationPolicy]]]
    runtime_classes: list[list[Loaded[RuntimeClass]]]
    # For each policy, the pool indexes it selects (by id(loaded)).
    pools_of: dict[int, list[int]]


def node_name(pool: Pool) -> str | None:
    """The name ``matchFields`` compares (``metadata.name`` of the Node): an exported Node's own name; None for a
    NodePool, whose nodes get their names when they are created (a term with matchFields cannot be evaluated for it,
    and does not select it: AL108)."""
    return pool.name if pool.origin == "Node" else None


def match_all(policies: PolicySet) -> Matches:
    pools: list[Pool] = policies.pools
    index = LabelIndex((i, p.labels, node_name(p)) for i, p in enumerate(pools))
    n = len(pools)
    cc: list[list[Loaded[CommitClass]]] = [[] for _ in range(n)]
    rp: list[list[Loaded[ReservationPolicy]]] = [[] for _ in range(n)]
    rc: list[list[Loaded[RuntimeClass]]] = [[] for _ in range(n)]
    pools_of: dict[int, list[int]] = {}
    for c in policies.commit_classes:
        hits = index.match(to_terms(c.model.spec.selector))
        pools_of[id(c)] = hits
        for i in hits:
            cc[i].append(c)
    for r in policies.reservation_policies:
        hits = index.match(to_terms(r.model.spec.selector))
        pools_of[id(r)] = hits
        for i in hits:
            rp[i].append(r)
    for k in policies.runtime_classes:
        selector = (k.model.scheduling.nodeSelector if k.model.scheduling else None) or {}
        hits = index.match_labels(selector)
        pools_of[id(k)] = hits
        for i in hits:
            rc[i].append(k)
    return Matches(_one_per_content(cc), _one_per_content(rp), _one_per_content(rc), pools_of)


def _one_per_content(lists: list[list[_L]]) -> list[list[_L]]:
    """Equal lists (the same policies, in order) as one list: pools selected alike share it (read only from here
    on). Cost: O(total length)."""
    seen: dict[tuple[int, ...], list[_L]] = {}
    return [seen.setdefault(tuple(map(id, found)), found) for found in lists]
