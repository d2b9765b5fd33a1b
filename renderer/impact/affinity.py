"""The NodeAffinity filter and score: ``spec.nodeSelector`` and the pod's node affinity, read into the project's
selector terms and evaluated by ``renderer.capacity.selectors`` (the one implementation of node selector semantics).

Filter (k8s.io/component-helpers scheduling/corev1/nodeaffinity ``GetRequiredNodeAffinity(pod).Match(node)``):
``nodeSelector`` (every pair present and equal) AND the required terms (ORed; inside a term every expression and
field ANDed). A ``requiredDuringSchedulingIgnoredDuringExecution`` that is absent or null constrains nothing; one
whose ``nodeSelectorTerms`` is null or empty, or a term without requirements, matches no node; a malformed
requirement makes its term match nothing.

Score: the sum of the weights of the preferred terms a node matches, normalised so the best candidate gets 100
(:class:`PreferredScorer`: the terms compiled once per pod shape, a score per distinct combination of the labels they
read).

The DaemonSet controller pins each daemon pod to its node by setting every required term's ``matchFields`` to
``metadata.name In [<node>]`` (``ReplaceDaemonSetPodNodeNameNodeAffinity``); :func:`without_name_pin` recovers the
template's own affinity from such a pod.

Cost: parsing O(requirements); the filter per node O(requirements) (compiled once per distinct term by
``selectors``); the score per node O(its labels) once the pod's terms are compiled, O(terms) per distinct label
combination.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from renderer.capacity.selectors import NAME_FIELD, Operator, Requirement, Term, labels_match, selector_matches

__all__ = ["NodeAffinity", "PreferredScorer", "only_node", "parse_node_affinity", "preferred_score", "without_name_pin"]


@dataclass(frozen=True, slots=True)
class NodeAffinity:
    """What the NodeAffinity plugin reads of a pod. ``required`` None: no required terms (any node)."""

    node_selector: tuple[tuple[str, str], ...] = ()
    required: tuple[Term, ...] | None = None
    preferred: tuple[tuple[int, Term], ...] = ()

    def matches(self, labels: Mapping[str, str], name: str) -> bool:
        """The filter: nodeSelector AND required terms."""
        if self.node_selector and not labels_match(dict(self.node_selector), labels):
            return False
        return self.required is None or selector_matches(self.required, labels, name)

    @property
    def constrains(self) -> bool:
        """False when every node passes (no nodeSelector, no required terms)."""
        return bool(self.node_selector) or self.required is not None


ANY_NODE = NodeAffinity()


def _values(raw: Any) -> tuple[str, ...] | None:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        return None
    return tuple("" if v is None else str(v) for v in raw)


# A requirement Kubernetes would reject: its term then matches nothing (the selectors module treats an unknown
# operator as malformed).
_BROKEN = Requirement("", cast(Operator, "Invalid"), ())


def _requirements(raw: Any) -> tuple[Requirement, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        return (_BROKEN,)
    out: list[Requirement] = []
    for entry in raw:
        if not isinstance(entry, dict):
            out.append(_BROKEN)
            continue
        values = _values(entry.get("values"))
        if values is None:
            out.append(_BROKEN)
            continue
        out.append(Requirement(str(entry.get("key") or ""), cast(Operator, str(entry.get("operator") or "")), values))
    return tuple(out)


def _term(raw: Any) -> Term:
    if not isinstance(raw, dict):
        return Term()
    return Term(_requirements(raw.get("matchExpressions")), _requirements(raw.get("matchFields")))


def parse_node_affinity(spec: Mapping[str, Any]) -> NodeAffinity:
    """``spec.nodeSelector`` and ``spec.affinity.nodeAffinity`` of a Pod (or a pod template)."""
    selector = spec.get("nodeSelector")
    pairs: tuple[tuple[str, str], ...] = ()
    if isinstance(selector, dict):
        pairs = tuple(sorted((str(k), "" if v is None else str(v)) for k, v in selector.items()))
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required: tuple[Term, ...] | None = None
    preferred: tuple[tuple[int, Term], ...] = ()
    if isinstance(node_affinity, dict):
        req = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(req, dict):
            terms = req.get("nodeSelectorTerms")
            required = tuple(_term(t) for t in terms) if isinstance(terms, list) else ()
        pref = node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution")
        if isinstance(pref, list):
            preferred = tuple(
                (int(p.get("weight") or 0), _term(p.get("preference")))
                for p in pref
                if isinstance(p, dict) and isinstance(p.get("weight") or 0, int)
            )
    if not pairs and required is None and not preferred:
        return ANY_NODE
    return NodeAffinity(pairs, required, preferred)


def without_name_pin(affinity: NodeAffinity) -> NodeAffinity:
    """``affinity`` with the DaemonSet controller's ``metadata.name`` pin removed from every required term; terms left
    empty by that (the template had no required affinity) make the whole requirement go away."""
    if affinity.required is None:
        return affinity
    stripped = tuple(Term(t.expressions, tuple(f for f in t.fields if f.key != NAME_FIELD)) for t in affinity.required)
    kept = tuple(t for t in stripped if t.expressions or t.fields)
    return NodeAffinity(affinity.node_selector, kept or None, affinity.preferred)


def only_node(affinity: NodeAffinity) -> str | None:
    """The one node ``affinity`` can match, when every required term pins the same node by ``metadata.name In
    [name]`` (as the DaemonSet controller pins its pods); None otherwise."""
    if not affinity.required:
        return None
    found: str | None = None
    for term in affinity.required:
        names = [r.values[0] for r in term.fields if r.key == NAME_FIELD and r.operator == "In" and len(r.values) == 1]
        if not names or (found is not None and names[0] != found):
            return None
        found = names[0]
    return found


def preferred_score(affinity: NodeAffinity, labels: Mapping[str, str], name: str) -> int:
    """The raw NodeAffinity score: the summed weights of the preferred terms the node matches."""
    return sum(weight for weight, term in affinity.preferred if selector_matches((term,), labels, name))


class PreferredScorer:
    """A pod's preferred terms compiled once: the label keys they read (and whether a term reads the node's name,
    ``matchFields``), and the raw score per distinct combination of those labels a node carries. A node's score is
    then a look-up by its labels on those keys: nodes that agree there score alike, so a pod with many terms
    evaluates them once per distinct combination, not once per node.

    Cost: building O(requirements); a node O(its labels), plus O(terms) the first time its combination is seen.
    Memory O(distinct combinations seen)."""

    __slots__ = ("_affinity", "_fields", "_keys", "_memo")

    def __init__(self, preferred: tuple[tuple[int, Term], ...]) -> None:
        self._affinity = NodeAffinity(preferred=preferred)
        self._keys = frozenset(r.key for _, term in preferred for r in term.expressions)
        self._fields = any(term.fields for _, term in preferred)
        self._memo: dict[object, int] = {}

    def score(self, labels: Mapping[str, str], name: str) -> int:
        """:func:`preferred_score` of a node with ``labels`` and ``name``."""
        keys = self._keys
        signature: object = tuple((k, v) for k, v in labels.items() if k in keys)
        if self._fields:
            signature = (signature, name)
        got = self._memo.get(signature)
        if got is None:
            got = self._memo[signature] = preferred_score(self._affinity, labels, name)
        return got
