from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.matching import to_terms
from renderer.capacity.model import PoolCapacity
from renderer.capacity.selectors import unsatisfiable_reason
from renderer.findings import FieldPath, Finding
from renderer.lint.helpers import OneEdit
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import Selecting
from renderer.models.common import NodeSelectorTerm
from renderer.platforms import known_label_value


@register
class SelectorMatchesNoPool(Rule):
    """
    ## What it does
    Reports a CommitClass or ReservationPolicy whose selector matches no pool of the inventory (no NodePool and no
    exported Node).

    Selectors whose every term can never match are reported by AL106 instead, and nothing is reported while the
    repo has no inventory at all (AL107).

    It is a warning — a policy may be written ahead of its node group — **except when the selector is one typo
    away from the inventory**: a label key it requires (`In`, `Exists`, `Gt`, `Lt`) that no pool has, within one
    edit (a character inserted, deleted, replaced, or two adjacent ones swapped) of a key some pool has, or an `In`
    value no pool has, within one edit of a value some pool has for that key. Then it is an error, with "did you
    mean example.com/tier?": that is how a reservation is lost without anyone noticing (with a base revision AL215
    also names the pool that lost it). Edit distance is no test for the values of well-known keys: instance types,
    zones, regions, architectures and numbers one character apart are different by design (`g6.xlarge` and
    `g6.2xlarge`), so a value that reads as a real one (listed, or shaped as its cloud names them:
    `renderer/platforms/_wellknown.py`) is never taken for a typo — a class shared by clusters that selects types
    one of them lacks stays a warning.

    ## Why is this bad?
    A policy that selects nothing does nothing: usually a typo in a label key or value, a pool that was renamed,
    or a label the node group never got. On OpenShift the Machine Config Operator also rejects a KubeletConfig
    whose selector matches no MachineConfigPool.

    ## Example
    ```yaml
    spec:
      selector:
      - matchExpressions: [{key: example.com/teir, operator: In, values: [general]}]   # error: did you mean example.com/tier?
    ```

    ## Use instead
    ```yaml
    spec:
      selector:
      - matchExpressions: [{key: example.com/tier, operator: In, values: [general]}]
    ```

    ## Fix
    Correct the selector, or add the pool it is meant for to the inventory. A policy prepared ahead of a node
    group can carry `allocatable.dev/ignore: "AL104: node group arrives with ticket OPS-123"`.
    """

    code = "AL104"
    name = "selector-matches-no-pool"
    severity = "warning"
    summary = "a CommitClass or ReservationPolicy selector matches no pool in the inventory"

    # Complexity: O(CommitClasses + ReservationPolicies + their selector terms): whether a policy selects a pool is a
    # lookup. Only when a policy selects nothing: O(labels of the pools) to index the inventory's keys (and, per key
    # an unmatched selector names, its values) by one-deletion variants (helpers.OneEdit: O(Σ len²)), then
    # O(len²) per key or value of that selector — never every selector against every label.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not ctx.model.pools:
            return
        p = ctx.load.policies
        pools = ctx.model.pools
        matched = (
            f"the selector does not match the only pool, {pools[0].pool.ref}"
            if len(pools) == 1
            else f"the selector matches none of the {len(pools)} pools"
        )
        policies: list[Selecting] = [*p.commit_classes, *p.reservation_policies]
        near: _Near | None = None
        for loaded in policies:
            if ctx.model.selects_any(loaded):
                continue
            terms = to_terms(loaded.model.spec.selector)
            if terms and all(unsatisfiable_reason(t) is not None for t in terms):
                continue  # AL106 says why
            near = near or _Near(pools)
            guesses = near.guesses(loaded.model.spec.selector)
            if guesses:
                meant = " or ".join(dict.fromkeys(g for g, _, _ in guesses))
                path, owner = guesses[0][1], guesses[0][2]
                yield self.finding(
                    f"{matched}: this {loaded.kind} applies to no node; did you mean {meant}?",
                    source=loaded.source,
                    obj=loaded.ref,
                    field_path=("spec", "selector", *path),
                    hint=f"{owner} has {guesses[0][0]}",
                    severity="error",
                )
                continue
            yield self.finding(
                f"{matched}: this {loaded.kind} applies to no node",
                source=loaded.source,
                obj=loaded.ref,
                field_path=("spec", "selector"),
                hint="compare its labels with the pools' (allocatable explain -o json lists them)",
            )


#: Operators under which a key (and for In, a value) must be on the node: a typo there selects nothing.
_REQUIRES_KEY = ("In", "Exists", "Gt", "Lt")


class _Near:
    """The inventory's label keys, and per key its values, indexed for one-edit look-ups (built on first use)."""

    def __init__(self, pools: list[PoolCapacity]) -> None:
        self._pools = pools
        self._owner: dict[str, str] = {}  # a key → the first pool that has it
        for pc in pools:
            for key in pc.pool.labels:
                self._owner.setdefault(key, pc.pool.ref)
        self._keys = OneEdit(self._owner)
        self._values: dict[str, tuple[OneEdit, dict[str, str]]] = {}

    def _values_of(self, key: str) -> tuple[OneEdit, dict[str, str]]:
        got = self._values.get(key)
        if got is None:
            owners: dict[str, str] = {}
            for pc in self._pools:
                value = pc.pool.labels.get(key)
                if value is not None:
                    owners.setdefault(value, pc.pool.ref)
            got = self._values[key] = (OneEdit(owners), owners)
        return got

    def guesses(self, selector: list[NodeSelectorTerm]) -> list[tuple[str, FieldPath, str]]:
        """(what was meant, the field path below spec.selector, a pool that has it) for each required key or In
        value of ``selector`` that no pool has but one is one edit away from."""
        out: list[tuple[str, FieldPath, str]] = []
        for ti, term in enumerate(selector):
            for ei, expr in enumerate(term.matchExpressions or ()):
                if expr.operator not in _REQUIRES_KEY:
                    continue
                where: FieldPath = (ti, "matchExpressions", ei)
                if expr.key not in self._owner:
                    out.extend((k, (*where, "key"), self._owner[k]) for k in self._keys.near(expr.key))
                    continue
                if expr.operator != "In":
                    continue
                index, owners = self._values_of(expr.key)
                for vi, value in enumerate(expr.values or ()):
                    if value in owners or known_label_value(expr.key, value):
                        continue  # a real instance type, zone, region, number...: absent here, not misspelt
                    out.extend((f"{expr.key}={v}", (*where, "values", vi), owners[v]) for v in index.near(value))
        return out
