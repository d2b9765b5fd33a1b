"""Small shared pieces for rules: where things are in a pool or policy, how to name pools, kubelet syntax."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any, NamedTuple

from renderer.capacity.model import PoolCapacity
from renderer.findings import FieldPath
from renderer.lint.rule import LintContext
from renderer.models.commitclass import CommitClass
from renderer.models.inventory import Pool
from renderer.models.record import field_names
from renderer.models.reservationpolicy import ReservationPolicy, ReservationPolicySpec
from renderer.quantity import Quantity
from renderer.validation.validate import Loaded

_SPEC_FIELDS = field_names(ReservationPolicySpec)

# ---------------------------------------------------------------------------------------------------------
# Pools


def pool_capacity_path(pool: Pool, resource: str) -> FieldPath:
    return ("spec", "capacity", resource) if pool.origin == "NodePool" else ("status", "capacity", resource)


NAME_PATH: FieldPath = ("metadata", "name")


def describe_pools(pools: Sequence[Pool | PoolCapacity], limit: int = 3) -> str:
    """``NodePool/a``, ``NodePool/a and Node/b``, ``NodePool/a, Node/b, NodePool/c and 4 more``."""
    refs = [(p.pool if isinstance(p, PoolCapacity) else p).ref for p in pools[: limit + 1]]  # O(limit)
    if len(pools) <= limit:
        if len(refs) <= 1:
            return "".join(refs)
        return f"{', '.join(refs[:-1])} and {refs[-1]}"
    return f"{', '.join(refs[:limit])} and {len(pools) - limit} more"


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def selects_openshift(ctx: LintContext, loaded: object) -> list[PoolCapacity]:
    """The pools ``loaded`` selects whose kubelet is configured through MachineConfigPools (renderer/platforms/)."""
    from renderer import platforms

    return [pc for pc in ctx.model.pools_selected_by(loaded) if platforms.get(pc.pool.platform).machine_config_pools]


# ---------------------------------------------------------------------------------------------------------
# CommitClasses


def resource_entry(cc: CommitClass, resource: str) -> int | None:
    """Index of ``resource`` in spec.resources, or None when the class leaves it at 100%."""
    for i, r in enumerate(cc.spec.resources):
        if r.name == resource:
            return i
    return None


def percent_path(cc: CommitClass, resource: str) -> FieldPath:
    i = resource_entry(cc, resource)
    return ("spec", "resources", i, "percent") if i is not None else ("spec", "resources")


# ---------------------------------------------------------------------------------------------------------
# ReservationPolicies: a single view of the kubelet fields, first-class or under spec.kubelet


class Field(NamedTuple):
    value: Any
    path: FieldPath


class KubeletView:
    """The KubeletConfiguration fields a policy sets, wherever it sets them."""

    def __init__(self, policy: ReservationPolicy) -> None:
        self.spec = policy.spec
        self.passthrough: dict[str, Any] = dict(policy.spec.kubelet or {})

    def get(self, name: str) -> Field | None:
        value = getattr(self.spec, name, None) if name in _SPEC_FIELDS else None
        if value is not None and name != "kubelet":
            return Field(value, ("spec", name))
        if name in self.passthrough and self.passthrough[name] is not None:
            return Field(self.passthrough[name], ("spec", "kubelet", name))
        return None

    def mapping(self, name: str) -> tuple[dict[str, Any], FieldPath] | None:
        got = self.get(name)
        if got is None or not isinstance(got.value, dict):
            return None
        return dict(got.value), got.path


def reservation_contributions(
    loaded: Loaded[ReservationPolicy], pc: PoolCapacity, resource: str
) -> list[tuple[Quantity, FieldPath, str]]:
    """Where a pool's reservation of ``resource`` comes from: (amount, field in the policy, label), largest first.

    Formula-derived values point at ``spec.autoSizing.formula``."""
    spec = loaded.model.spec
    out: list[tuple[Quantity, FieldPath, str]] = []
    for attr, label, part in (
        ("systemReserved", "systemReserved", pc.system_reserved),
        ("kubeReserved", "kubeReserved", pc.kube_reserved),
    ):
        r = part.get(resource)
        if r is None:
            continue
        explicit = (getattr(spec, attr) or {}).get(resource) is not None
        path: FieldPath = ("spec", attr, resource) if explicit else ("spec", "autoSizing", "formula")
        out.append((r.quantity, path, f"{label} {r.quantity}" + ("" if explicit else f" ({r.source})")))
    ev = pc.eviction_reserved.get(resource)
    if ev is not None and not ev.is_zero():
        signal = "memory.available" if resource == "memory" else "nodefs.available"
        path = ("spec", "evictionHard", signal) if spec.evictionHard is not None else ("spec",)
        out.append((ev, path, f"hard eviction {pc.eviction_hard.get(signal, '')} ({ev})"))
    out.sort(key=lambda t: t[0].value, reverse=True)
    return out


# ---------------------------------------------------------------------------------------------------------
# Kubelet syntax

DISABLED_THRESHOLDS = ("0%", "100%")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def parse_percent(text: str) -> Decimal | None:
    """The number before ``%`` as the kubelet reads it (a decimal float), or None when it cannot."""
    body = text[:-1] if text.endswith("%") else text
    if not _FLOAT.fullmatch(body):
        return None
    try:
        return Decimal(body)
    except InvalidOperation:  # pragma: no cover - the pattern only admits valid decimals
        return None


_DURATION_UNITS: dict[str, Decimal] = {
    "ns": Decimal(1),
    "us": Decimal(1000),
    "µs": Decimal(1000),
    "μs": Decimal(1000),
    "ms": Decimal(1_000_000),
    "s": Decimal(1_000_000_000),
    "m": Decimal(60_000_000_000),
    "h": Decimal(3_600_000_000_000),
}
_DURATION_PART = re.compile(r"([0-9]*(?:\.[0-9]*)?)(ns|us|µs|μs|ms|s|m|h)")
_INT64_MAX = 2**63 - 1


def parse_go_duration(text: str) -> tuple[Decimal | None, str | None]:
    """Go's ``time.ParseDuration``: ``(nanoseconds, None)`` or ``(None, why not)``."""
    s = text
    sign = Decimal(1)
    if s[:1] in "+-" and s:
        sign = Decimal(-1) if s[0] == "-" else Decimal(1)
        s = s[1:]
    if s == "0":
        return Decimal(0), None
    if not s:
        return None, f'invalid duration "{text}"'
    total = Decimal(0)
    pos = 0
    while pos < len(s):
        m = _DURATION_PART.match(s, pos)
        if m is None or m.end() == pos:
            rest = s[pos:]
            if re.fullmatch(r"[0-9.]+", rest):
                return None, f'missing unit in duration "{text}"'
            return None, f'invalid duration "{text}"'
        number = m.group(1)
        if not number or number == "." or not re.search(r"[0-9]", number):
            return None, f'invalid duration "{text}"'
        total += Decimal(number) * _DURATION_UNITS[m.group(2)]
        pos = m.end()
    if total > _INT64_MAX:
        return None, f'invalid duration "{text}"'
    return sign * total, None


def closest(word: str, choices: Iterable[str]) -> str | None:
    """``renderer.suggest.closest``: the choice ``word`` is most likely a typo of, or None. For words of the user's
    own inventory, where "near" must mean one typo, see :class:`OneEdit`."""
    from renderer.suggest import closest as guess

    return guess(word, choices)


def closest_code(code: str, codes: Iterable[str]) -> str | None:
    """What ``code`` is most likely a typo of, as a hint's words: the codes with two neighbouring digits swapped
    (``AL230`` → ``AL203`` or ``AL320``), else those with one digit different, when at most two are that close;
    None otherwise (a guess among many would mislead). Cost: O(codes)."""
    code = code.upper()
    swapped: list[str] = []
    one_off: list[str] = []
    for known in sorted(codes):
        if len(known) != len(code) or known == code:
            continue
        diff = [i for i, (a, b) in enumerate(zip(code, known, strict=True)) if a != b]
        if len(diff) == 1:
            one_off.append(known)
        elif (
            len(diff) == 2
            and diff[1] == diff[0] + 1
            and (code[diff[0]], code[diff[1]]) == (known[diff[1]], known[diff[0]])
        ):
            swapped.append(known)
    found = swapped or one_off
    if not found or len(found) > 2:
        return None
    return " or ".join(f'"{c}"' for c in found)


def within_one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one edit: one character inserted, deleted or replaced, or two
    adjacent characters swapped (Damerau–Levenshtein distance 1, the optimal-string-alignment form). O(len)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1 :]  # b has one character more, at i
    return a[i + 1 :] == b[i + 1 :] or (
        i + 1 < len(a) and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2 :] == b[i + 2 :]
    )


def _deletions(word: str) -> list[str]:
    return [word, *[word[:i] + word[i + 1 :] for i in range(len(word))]]


class OneEdit:
    """The words of a vocabulary within one edit of a query (:func:`within_one_edit`), without comparing the
    query with every word: each word is indexed under itself and under every string one deletion makes of it
    (the symmetric-deletion idea of SymSpell); two words one edit apart always share one of those strings (an
    insertion or deletion: the shorter word itself; a replacement or a swap: the deletion at that position), so a
    query looks up its own deletions and checks only the few words found there. The index keeps the strings'
    hashes, not the strings (a collision only adds a candidate, which the check drops), and is built per word
    length on first use: a query of length L needs the words of lengths L-1, L and L+1 only.

    Cost: O(words) to sort them by length; building a length's index, O(Σ len(word)²) characters hashed for
    len(word) + 1 strings per word of that length, O(Σ len(word)) entries held; a query, O(len(query)²) for its
    deletions plus O(len) per candidate found."""

    def __init__(self, words: Iterable[str]) -> None:
        self._by_length: dict[int, list[str]] = {}
        for word in set(words):
            self._by_length.setdefault(len(word), []).append(word)
        self._index: dict[int, str | list[str]] = {}
        self._indexed: set[int] = set()

    def _add_length(self, length: int) -> None:
        self._indexed.add(length)
        index = self._index
        for word in self._by_length.get(length, ()):
            for variant in _deletions(word):
                key = hash(variant)
                got = index.get(key)
                if got is None:
                    index[key] = word
                elif isinstance(got, list):
                    if got[-1] != word:  # a doubled letter gives the same deletion twice
                        got.append(word)
                elif got != word:
                    index[key] = [got, word]

    def near(self, word: str) -> list[str]:
        """The words one edit away from ``word``, sorted (never ``word`` itself)."""
        for length in (len(word) - 1, len(word), len(word) + 1):
            if length not in self._indexed:
                self._add_length(length)
        found: set[str] = set()
        for variant in _deletions(word):
            got = self._index.get(hash(variant))
            if got is None:
                continue
            if isinstance(got, list):
                found.update(got)
            else:
                found.add(got)
        return sorted(w for w in found if within_one_edit(word, w))


# ---------------------------------------------------------------------------------------------------------
# Selectors


def why_selected(loaded_terms: Sequence[Any], pool: Pool) -> tuple[str, list[str]]:
    """Why a selector (model terms) matches ``pool``: ``("example.com/tier=general", [label keys])``.

    Uses the first matching term; positive requirements show the pool's label, negative ones the requirement."""
    from renderer.capacity.matching import node_name, to_terms
    from renderer.capacity.selectors import format_requirement, term_matches

    for term in to_terms(loaded_terms):
        if not term_matches(term, pool.labels, node_name(pool)):
            continue
        parts: list[str] = []
        keys: list[str] = []
        for req in term.expressions:
            if req.operator in ("In", "Exists", "Gt", "Lt"):
                parts.append(f"{req.key}={pool.labels.get(req.key, '')}")
                keys.append(req.key)
            else:
                parts.append(format_requirement(req))
        parts.extend(f"metadata.name={pool.name}" for _ in term.fields[:1])
        return ", ".join(dict.fromkeys(parts)), keys
    return "", []


# ---------------------------------------------------------------------------------------------------------
# Pool-level findings: point at the field that causes them, one finding per field


class Blame(NamedTuple):
    source: Any  # SourceRef
    obj: str
    field_path: FieldPath
    related: tuple[str, ...]


def blame_capacity(pc: PoolCapacity, resource: str, *, percent_first: bool) -> Blame:
    """The field most responsible for what a pool advertises of ``resource``.

    ``percent_first``: an under-commit of the pool's CommitClass is named before reservations. Otherwise the
    largest contribution to the reservation in the pool's ReservationPolicy, else the pool's capacity."""
    pool = pc.pool
    cc, rp = pc.commit_class, pc.policy
    others = [pool.ref, *(c.ref for c in pc.commit_classes), *(p.ref for p in pc.reservation_policies)]
    if percent_first and cc is not None and pc.percent.get(resource, 100) < 100:
        return Blame(cc.source, cc.ref, percent_path(cc.model, resource), tuple(r for r in others if r != cc.ref))
    if rp is not None:
        contributions = reservation_contributions(rp, pc, resource)
        if contributions:
            path = contributions[0][1]
            return Blame(rp.source, rp.ref, path, tuple(r for r in others if r != rp.ref))
    return Blame(pool.source, pool.ref, pool_capacity_path(pool, resource), tuple(r for r in others if r != pool.ref))


def reservation_breakdown(pc: PoolCapacity, resource: str, *, hugepages: bool = True) -> str:
    """``systemReserved 30Gi + kubeReserved 4Gi + hard eviction 0.10Gi``: the parts in one unit (renderer.units)."""
    from renderer.units import column

    parts: list[tuple[str, Quantity]] = []
    for label, part in (("systemReserved", pc.system_reserved), ("kubeReserved", pc.kube_reserved)):
        if resource in part:
            parts.append((label, part[resource].quantity))
    ev = pc.eviction_reserved.get(resource)
    if ev is not None and not ev.is_zero():
        parts.append(("hard eviction", ev))
    if hugepages and resource == "memory" and not pc.hugepages.is_zero():
        parts.append(("hugepages", pc.hugepages))
    shown = column([q for _, q in parts], resource)
    return " + ".join(f"{label} {text}" for (label, _), text in zip(parts, shown, strict=True)) or "nothing reserved"


def enforcements(policy: ReservationPolicy) -> tuple[list[str], FieldPath] | None:
    """The policy's enforceNodeAllocatable list and where it is, or None when it keeps the default [pods]."""
    values = policy.spec.enforceNodeAllocatable
    if values is None:
        return None
    return list(values), ("spec", "enforceNodeAllocatable")


def eviction_maps(policy: ReservationPolicy) -> list[tuple[str, dict[str, Any], FieldPath]]:
    """(name, signal map, path) for every eviction map a policy sets, first-class or under spec.kubelet."""
    view = KubeletView(policy)
    out: list[tuple[str, dict[str, Any], FieldPath]] = []
    for name in ("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim"):
        got = view.mapping(name)
        if got is not None:
            out.append((name, got[0], got[1]))
    return out


def threshold_maps(policy: ReservationPolicy) -> list[tuple[str, dict[str, Any], FieldPath]]:
    """Only evictionHard and evictionSoft, the maps of thresholds."""
    return [m for m in eviction_maps(policy) if m[0] in ("evictionHard", "evictionSoft")]
