"""What a pod asks of the pods around it: label selectors, topology spread constraints and inter-pod (anti-)affinity
terms, read from a pruned Pod object into hashable values (shared between the replicas of one controller).

- :class:`PodSelector` — a ``metav1.LabelSelector`` as ``LabelSelectorAsSelector`` reads it: null selects nothing,
  ``{}`` every pod; ``matchLabels`` are ``In [value]`` requirements, ``matchExpressions`` ``In``/``NotIn``/``Exists``/
  ``DoesNotExist`` (an operator the API server would refuse makes the selector select nothing). Matching uses
  ``renderer.capacity.selectors`` (the one implementation of requirement semantics);
- :class:`SpreadConstraint` — one ``topologySpreadConstraints`` entry (``DoNotSchedule`` ones filter,
  ``ScheduleAnyway`` ones only score: ``podscores.py``), with its ``matchLabelKeys`` merged into the
  selector from the pod's own labels (a key the pod does not carry is ignored), ``minDomains`` (default 1) and the
  node inclusion policies (``nodeAffinityPolicy`` default Honor, ``nodeTaintsPolicy`` default Ignore);
- :class:`AffinityTerm` — one ``podAffinity``/``podAntiAffinity`` term: its selector (``matchLabelKeys`` and
  ``mismatchLabelKeys`` merged as the API server merges them), topology key and namespaces (``namespaces`` and
  ``namespaceSelector``; neither: the pod's own namespace). Required terms filter; preferred ones
  (``preferredDuringSchedulingIgnoredDuringExecution``, each a ``weight`` and a ``podAffinityTerm``) are kept with
  their weight, negative for anti-affinity, for InterPodAffinity's score (``podscores.py``).

Cost: O(requirements) per pod; the scheduler keeps one counter per distinct (namespaces, selector), not per pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from renderer.capacity.selectors import Operator, Requirement, Term, term_matches

__all__ = [
    "AffinityTerm",
    "PodAffinity",
    "PodSelector",
    "SpreadConstraint",
    "parse_pod_affinity",
    "parse_selector",
    "parse_spread",
]

_POD_OPERATORS = frozenset({"In", "NotIn", "Exists", "DoesNotExist"})


@dataclass(frozen=True, slots=True)
class PodSelector:
    """A label selector over pods: every requirement must hold; no requirement selects every pod."""

    requirements: tuple[Requirement, ...] = ()
    #: The requirements as a selector term, made once (matching runs on every bind).
    term: Term = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "term", Term(self.requirements))

    def matches(self, labels: Mapping[str, str]) -> bool:
        if not self.requirements:
            return True
        return term_matches(self.term, labels, None)

    def anchor(self) -> tuple[str, str] | None:
        """A (key, value) every selected pod carries (the first ``In`` with one value), to index counters by."""
        for r in self.requirements:
            if r.operator == "In" and len(r.values) == 1:
                return r.key, r.values[0]
        return None


def parse_selector(raw: Any) -> PodSelector | None:
    """A ``metav1.LabelSelector``; None when it selects nothing (null, or a requirement Kubernetes refuses)."""
    if not isinstance(raw, dict):
        return None
    reqs: list[Requirement] = []
    labels = raw.get("matchLabels")
    if isinstance(labels, dict):
        reqs.extend(Requirement(str(k), "In", ("" if v is None else str(v),)) for k, v in sorted(labels.items()))
    elif labels is not None:
        return None
    exprs = raw.get("matchExpressions")
    if exprs is not None and not isinstance(exprs, list):
        return None
    for e in exprs or ():
        if not isinstance(e, dict):
            return None
        op = str(e.get("operator") or "")
        values = e.get("values")
        if op not in _POD_OPERATORS or (values is not None and not isinstance(values, list)):
            return None
        vals = tuple("" if v is None else str(v) for v in values or ())
        if (op in ("In", "NotIn")) != bool(vals):
            return None  # In/NotIn need values, Exists/DoesNotExist take none
        reqs.append(Requirement(str(e.get("key") or ""), cast(Operator, op), vals))
    return PodSelector(tuple(reqs))


def _merge_keys(
    selector: PodSelector | None, labels: Mapping[str, str], match: Any, mismatch: Any = None
) -> PodSelector | None:
    """``matchLabelKeys`` (``key In [the pod's value]``) and ``mismatchLabelKeys`` (``NotIn``) merged into
    ``selector``; keys the pod does not carry are ignored, as the scheduler ignores them."""
    if selector is None:
        return None
    extra: list[Requirement] = []
    for keys, op in ((match, "In"), (mismatch, "NotIn")):
        for key in keys if isinstance(keys, list) else ():
            value = labels.get(str(key))
            if value is not None:
                extra.append(Requirement(str(key), cast(Operator, op), (value,)))
    return PodSelector(selector.requirements + tuple(extra)) if extra else selector


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    """One topology spread constraint (see the module docstring). ``selector`` None: selects no pod (a null
    ``labelSelector``)."""

    max_skew: int
    topology_key: str
    selector: PodSelector | None
    min_domains: int = 1
    honor_affinity: bool = True
    honor_taints: bool = False


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def parse_spread(
    raw: Any, labels: Mapping[str, str]
) -> tuple[tuple[SpreadConstraint, ...], tuple[SpreadConstraint, ...]]:
    """``spec.topologySpreadConstraints`` → (the ``DoNotSchedule`` constraints, the ``ScheduleAnyway`` ones: they
    only score)."""
    hard: list[SpreadConstraint] = []
    soft: list[SpreadConstraint] = []
    for c in raw if isinstance(raw, list) else ():
        if not isinstance(c, dict):
            continue
        out = hard if c.get("whenUnsatisfiable") == "DoNotSchedule" else soft
        selector = _merge_keys(parse_selector(c.get("labelSelector")), labels, c.get("matchLabelKeys"))
        out.append(
            SpreadConstraint(
                max(_int(c.get("maxSkew"), 1), 1),
                str(c.get("topologyKey") or ""),
                selector,
                max(_int(c.get("minDomains"), 1), 1),
                c.get("nodeAffinityPolicy") != "Ignore",
                c.get("nodeTaintsPolicy") == "Honor",
            )
        )
    return tuple(hard), tuple(soft)


@dataclass(frozen=True, slots=True)
class AffinityTerm:
    """One required pod (anti-)affinity term. ``namespaces`` None with ``namespace_selector`` None: every namespace
    (``namespaceSelector: {}``); otherwise the listed namespaces plus those ``namespace_selector`` selects (namespace
    labels are not in a pods dump: only ``{}`` is honoured, others select the listed namespaces only)."""

    selector: PodSelector | None
    topology_key: str
    namespaces: frozenset[str] | None

    def selects(self, namespace: str, labels: Mapping[str, str]) -> bool:
        """Whether a pod in ``namespace`` with ``labels`` matches the term."""
        if self.selector is None:
            return False
        if self.namespaces is not None and namespace not in self.namespaces:
            return False
        return self.selector.matches(labels)


@dataclass(frozen=True, slots=True)
class PodAffinity:
    """A pod's inter-pod terms: the required ones, and ``preferred`` (weight, term) with the weight negative for
    anti-affinity, in the order the pod lists them (podAffinity's first); ``partial``: a ``namespaceSelector`` other
    than ``{}`` was read as its listed namespaces alone (namespace labels are not in the dump)."""

    affinity: tuple[AffinityTerm, ...] = ()
    anti_affinity: tuple[AffinityTerm, ...] = ()
    partial: bool = False
    preferred: tuple[tuple[int, AffinityTerm], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.affinity or self.anti_affinity)


NO_POD_AFFINITY = PodAffinity()


def _terms(raw: Any, namespace: str, labels: Mapping[str, str]) -> tuple[tuple[AffinityTerm, ...], bool]:
    out: list[AffinityTerm] = []
    partial = False
    for t in raw if isinstance(raw, list) else ():
        if not isinstance(t, dict):
            continue
        selector = _merge_keys(
            parse_selector(t.get("labelSelector")), labels, t.get("matchLabelKeys"), t.get("mismatchLabelKeys")
        )
        listed = t.get("namespaces")
        names = frozenset(str(n) for n in listed) if isinstance(listed, list) and listed else frozenset()
        ns_selector = t.get("namespaceSelector")
        namespaces: frozenset[str] | None
        if (
            isinstance(ns_selector, dict)
            and not ns_selector.get("matchLabels")
            and not ns_selector.get("matchExpressions")
        ):
            namespaces = None  # {}: every namespace
        elif isinstance(ns_selector, dict):
            partial = True
            namespaces = names
        else:
            namespaces = names or frozenset({namespace})
        out.append(AffinityTerm(selector, str(t.get("topologyKey") or ""), namespaces))
    return tuple(out), partial


def _weighted(
    raw: Any, namespace: str, labels: Mapping[str, str], sign: int
) -> tuple[list[tuple[int, AffinityTerm]], bool]:
    """Preferred terms: (``sign`` × weight, term); an entry without a positive integer weight (the API server
    requires 1-100) is left out."""
    weights: list[int] = []
    bodies: list[Any] = []
    for t in raw if isinstance(raw, list) else ():
        if isinstance(t, dict) and isinstance(t.get("podAffinityTerm"), dict):
            weight = _int(t.get("weight"), 0)
            if weight > 0:
                weights.append(sign * weight)
                bodies.append(t["podAffinityTerm"])
    terms, partial = _terms(bodies, namespace, labels)
    return list(zip(weights, terms, strict=True)), partial


def parse_pod_affinity(affinity: Any, namespace: str, labels: Mapping[str, str]) -> PodAffinity:
    """``spec.affinity.podAffinity``/``podAntiAffinity``: the required terms and the weighted preferred ones."""
    if not isinstance(affinity, dict):
        return NO_POD_AFFINITY
    found: list[tuple[AffinityTerm, ...]] = []
    preferred: list[tuple[int, AffinityTerm]] = []
    partial = False
    for key, sign in (("podAffinity", 1), ("podAntiAffinity", -1)):
        block = affinity.get(key)
        if not isinstance(block, dict):
            found.append(())
            continue
        terms, p = _terms(block.get("requiredDuringSchedulingIgnoredDuringExecution"), namespace, labels)
        found.append(terms)
        weighted, q = _weighted(block.get("preferredDuringSchedulingIgnoredDuringExecution"), namespace, labels, sign)
        preferred.extend(weighted)
        partial = partial or p or q
    if not found[0] and not found[1] and not partial and not preferred:
        return NO_POD_AFFINITY
    return PodAffinity(found[0], found[1], partial, tuple(preferred))
