"""The filters that look at the pods around a node: PodTopologySpread (``DoNotSchedule`` constraints) and
InterPodAffinity (required terms), as kube-scheduler evaluates them (pkg/scheduler/framework/plugins/
podtopologyspread/filtering.go, interpodaffinity/filtering.go; their filtering_test.go tables are the test vectors in
tests/impact/fixtures/).

PodTopologySpread, per constraint of the incoming pod: the domains are the values of ``topologyKey`` on the nodes that
count — those the pod's node affinity and nodeSelector select (``nodeAffinityPolicy: Honor``, the default), whose
``NoSchedule``/``NoExecute`` taints it tolerates (only with ``nodeTaintsPolicy: Honor``) and that carry the keys of
all its constraints; a domain's count is the bound pods of the pod's namespace its selector matches on those nodes;
the global minimum is the least count over the domains, 0 when there are fewer domains than ``minDomains``. A node
passes when it carries the key (else "node(s) didn't match pod topology spread constraints (missing required
label)") and ``count(its domain) + (1 if the pod matches its own selector) - minimum <= maxSkew`` (else "node(s)
didn't match pod topology spread constraints").

InterPodAffinity: a node passes the pod's affinity when it carries every term's key and, for each term, some bound
pod matching *all* the terms runs in its domain — or, when no bound pod matches them anywhere, when the pod matches
all its terms itself (the first pod of a group) and the node carries the keys ("node(s) didn't match pod affinity
rules"); it passes the anti-affinity when no bound pod a term selects runs in the node's domain of that term
("node(s) didn't match pod anti-affinity rules"); and it passes the existing pods' anti-affinity when no bound pod
holds a required anti-affinity term selecting the incoming pod in the node's domain of that term ("node(s) didn't
satisfy existing pods anti-affinity rules"). Filter order: PodTopologySpread, then InterPodAffinity's three checks.

How placement uses it: the outcome is a :class:`Restriction` — per check the topology key and the domains allowed
(affinity) or forbidden (spread, anti-affinity). :meth:`PodFilters.placement` turns it into a :class:`Placement`:
forbidden values of a key with few values (a zone) are banned — the class's room tree counts each value's nodes per
subtree (``leafskip.py``) and its descents skip them; forbidden domains of a key with many values (hostname spreading
and anti-affinity) become excluded node positions the descents skip, or, past an eighth of the cluster, a ``key NotIn
[...]`` requirement; allowed domains (affinity) and missing keys become ``key In`` / ``key Exists`` requirements
added to the pod's node affinity (a derived static-filter class).

Pods on a node taken out (scale-down's trial, whose pods the autoscaler unschedules before it re-places them) do not
count. Cost per pod: O(nodes holding matching pods) per constraint or term from the counters (``podcounts.py``), plus the
domains' sizes (O(nodes) once per distinct (node affinity, tolerations, keys), kept), plus what placement costs with
``excluded`` nodes (O(log nodes) per excluded node). The plugins' scores are ``podscores.py``'s. Not simulated:
terminating pods (the dump keeps no deletionTimestamp: they count), namespace labels (a
``namespaceSelector`` other than ``{}`` is read as its listed namespaces).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from renderer.capacity.selectors import Requirement, Term
from renderer.impact.affinity import ANY_NODE, NodeAffinity
from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.leafskip import MAX_VALUES
from renderer.impact.podcounts import PodCounts, conjunction
from renderer.impact.pods import SimPod
from renderer.impact.taints import Taint, Toleration, first_untolerated
from renderer.impact.topology import AffinityTerm, PodSelector, SpreadConstraint

__all__ = [
    "AFFINITY_REASON",
    "ANTI_AFFINITY_REASON",
    "EXISTING_ANTI_AFFINITY_REASON",
    "SPREAD_MISSING_LABEL_REASON",
    "SPREAD_REASON",
    "Check",
    "ExtraNode",
    "Placement",
    "PodFilters",
    "Restriction",
]

SPREAD_REASON = "node(s) didn't match pod topology spread constraints"
SPREAD_MISSING_LABEL_REASON = "node(s) didn't match pod topology spread constraints (missing required label)"
AFFINITY_REASON = "node(s) didn't match pod affinity rules"
ANTI_AFFINITY_REASON = "node(s) didn't match pod anti-affinity rules"
EXISTING_ANTI_AFFINITY_REASON = "node(s) didn't satisfy existing pods anti-affinity rules"

#: Forbidden domains holding at most this many nodes (or an eighth of the cluster) are excluded node by node (the
#: room tree skips them); larger ones become a ``NotIn`` requirement (a derived static-filter class).
EXCLUDE_LIMIT = 64
_TOLERATE_ALL = (Toleration("", "Exists", "", ""),)
_CACHE_LIMIT = 256


@dataclass(frozen=True, slots=True)
class Check:
    """One check of the filters on a node's ``key`` label: ``allow`` True: its value must be in ``values``;
    False: must not be. ``need_key``: a node without the key fails (with ``missing_reason``)."""

    key: str
    values: frozenset[str]
    allow: bool
    need_key: bool
    reason: str
    missing_reason: str = ""

    def failure(self, labels: Mapping[str, str]) -> str | None:
        value = labels.get(self.key)
        if value is None:
            return self.missing_reason if self.need_key else None
        if (value in self.values) != self.allow:
            return self.reason
        return None


@dataclass(frozen=True)
class Restriction:
    """What the spread and inter-pod filters leave a pod: the checks in filter order."""

    checks: tuple[Check, ...] = ()
    #: No node can pass (an affinity no bound pod and not the pod itself satisfies).
    impossible_reason: str = ""

    def failure(self, labels: Mapping[str, str]) -> str | None:
        """The scheduler's reason a node with ``labels`` fails, None when it passes."""
        if self.impossible_reason:
            return self.impossible_reason
        for check in self.checks:
            reason = check.failure(labels)
            if reason is not None:
                return reason
        return None


@dataclass
class ExtraNode:
    """A node outside the cluster state the filters count (a new node of the cluster autoscaler's estimate): its
    labels and taints, its pods by (namespace, labels), and the required anti-affinity terms they hold."""

    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...] = ()
    pods: dict[tuple[str, tuple[tuple[str, str], ...]], int] = field(default_factory=dict)
    holders: dict[AffinityTerm, int] = field(default_factory=dict)

    def add(self, pod: SimPod) -> None:
        key = (pod.namespace, pod.labels)
        self.pods[key] = self.pods.get(key, 0) + 1
        for t in pod.pod_affinity.anti_affinity:
            if t.selector is not None:
                self.holders[t] = self.holders.get(t, 0) + 1

    def matching(self, namespace: str, selector: PodSelector) -> int:
        """Pods of ``namespace`` here that ``selector`` selects."""
        return sum(n for (ns, labels), n in self.pods.items() if ns == namespace and selector.matches(dict(labels)))

    def matching_any(self, namespaces: frozenset[str] | None, selector: PodSelector) -> bool:
        """Whether a pod here in ``namespaces`` (None: any) is selected by ``selector``."""
        return any(
            (namespaces is None or ns in namespaces) and selector.matches(dict(labels)) for ns, labels in self.pods
        )


@dataclass
class _Domains:
    member: bytearray  # nodes that count
    sizes: dict[str, int]  # domain value -> nodes that count in it


@dataclass
class PodFilters:
    """The filters on one cluster state (see the module docstring)."""

    state: ClusterState
    eligibility: Eligibility
    _domains: dict[tuple[object, ...], _Domains] = field(default_factory=dict)
    _by_value: dict[str, dict[str, list[int]]] = field(default_factory=dict)
    _with_key: dict[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> PodCounts:
        st = self.state
        if st.counts is None:  # made late (no pod was registered before binding): read the bound pods once
            counts = st.counts = PodCounts()
            for i, on_node in enumerate(st.pods):
                for p in on_node:
                    counts.update(p, i, 1)
        return st.counts

    def applies(self, pod: SimPod) -> bool:
        """Whether the filters can reject a node for ``pod``: it has constraints or terms, or a bound pod holds an
        anti-affinity term that might select it."""
        if pod.spread or pod.pod_affinity:
            return True
        counts = self.state.counts
        return counts is not None and bool(counts.anti_holders(pod))

    # -- indexes -----------------------------------------------------------------------------------------------

    def nodes_with(self, key: str) -> dict[str, list[int]]:
        """Node positions per value of label ``key`` (O(nodes) once per key)."""
        got = self._by_value.get(key)
        if got is None:
            got = {}
            for i, node in enumerate(self.state.nodes):
                value = node.labels.get(key)
                if value is not None:
                    got.setdefault(value, []).append(i)
            self._by_value[key] = got
            self._with_key[key] = sum(len(v) for v in got.values())
        return got

    def _counting(
        self, affinity: NodeAffinity, tolerations: tuple[Toleration, ...], key: str, keys: tuple[str, ...]
    ) -> _Domains:
        cache_key = (affinity, tolerations, key, keys)
        got = self._domains.get(cache_key)
        if got is None:
            if len(self._domains) >= _CACHE_LIMIT:
                self._domains.clear()
            nodes = self.state.nodes
            member = bytearray(len(nodes))
            sizes: dict[str, int] = {}
            for i in self.eligibility.eligible(affinity, tolerations):
                labels = nodes[i].labels
                if all(k in labels for k in keys):
                    member[i] = 1
                    value = labels[key]
                    sizes[value] = sizes.get(value, 0) + 1
            got = self._domains[cache_key] = _Domains(member, sizes)
        return got

    # -- the filters -------------------------------------------------------------------------------------------

    def restrict(self, pod: SimPod, extra: Sequence[ExtraNode] = ()) -> Restriction:
        """The checks ``pod`` puts on every node, from the pods bound now; ``extra``: nodes outside the state (the
        cluster autoscaler's new nodes) that count as well."""
        checks: list[Check] = []
        keys = tuple(sorted({c.topology_key for c in pod.spread}))
        for c in pod.spread:
            checks.append(self._spread(pod, c, keys, extra))
        impossible = ""
        pa = pod.pod_affinity
        if pa.affinity:
            affinity_checks = self._affinity(pod, extra)
            if affinity_checks is None:
                impossible = AFFINITY_REASON
            else:
                checks.extend(affinity_checks)
        checks.extend(self._anti_affinity(pod, extra))
        checks.extend(self._existing_anti_affinity(pod, extra))
        return Restriction(tuple(checks), impossible)

    def _spread(self, pod: SimPod, c: SpreadConstraint, keys: tuple[str, ...], extra: Sequence[ExtraNode]) -> Check:
        forbidden: set[str] = set()
        if c.selector is not None:
            nodes = self.state.nodes
            tolerations = pod.scheduling_tolerations()
            domains = self._counting(
                pod.affinity if c.honor_affinity else ANY_NODE,
                tolerations if c.honor_taints else _TOLERATE_ALL,
                c.topology_key,
                keys,
            )
            counter = self.counts.counter(frozenset((pod.namespace,)), c.selector, self.state.pods)
            per_domain: dict[str, int] = {}
            member, removed = domains.member, self.state.removed
            for i, n in counter.per_node.items():
                if member[i] and not removed[i]:
                    value = nodes[i].labels[c.topology_key]
                    per_domain[value] = per_domain.get(value, 0) + n
            sizes = domains.sizes
            more: set[str] = set()  # domains only the extra nodes have (no copy of the cluster's: O(extra))
            for x in extra:
                if not all(k in x.labels for k in keys):
                    continue
                if c.honor_affinity and not pod.affinity.matches(x.labels, x.name):
                    continue
                if c.honor_taints and first_untolerated(x.taints, tolerations) is not None:
                    continue
                value = x.labels[c.topology_key]
                if value not in sizes:
                    more.add(value)
                n = x.matching(pod.namespace, c.selector)
                if n:
                    per_domain[value] = per_domain.get(value, 0) + n
            # the global minimum: 0 while a domain holds none or there are fewer domains than minDomains
            domain_count = len(sizes) + len(more)
            short = domain_count < c.min_domains or len(per_domain) < domain_count
            least = 0 if short else min(per_domain.values())
            own = 1 if c.selector.matches(dict(pod.labels)) else 0
            forbidden = {v for v, n in per_domain.items() if n + own - least > c.max_skew}
        return Check(c.topology_key, frozenset(forbidden), False, True, SPREAD_REASON, SPREAD_MISSING_LABEL_REASON)

    def _affinity(self, pod: SimPod, extra: Sequence[ExtraNode]) -> list[Check] | None:
        """The affinity checks; None when no node can pass."""
        terms = pod.pod_affinity.affinity
        nodes = self.state.nodes
        namespaces, selector = conjunction(terms)
        holding: list[Mapping[str, str]] = []
        if selector is not None:
            removed = self.state.removed
            per_node = self.counts.counter(namespaces, selector, self.state.pods).per_node
            holding = [nodes[i].labels for i in per_node if not removed[i]]
            holding += [x.labels for x in extra if x.matching_any(namespaces, selector)]
        allowed: dict[str, set[str]] = {t.topology_key: set() for t in terms}
        for node_labels in holding:
            for key, values in allowed.items():
                value = node_labels.get(key)
                if value is not None:
                    values.add(value)
        if any(allowed.values()):
            return [
                Check(k, frozenset(v), True, True, AFFINITY_REASON, AFFINITY_REASON) for k, v in sorted(allowed.items())
            ]
        labels = dict(pod.labels)
        if all(t.selects(pod.namespace, labels) for t in terms):  # the first pod of a group: any node with the keys
            return [Check(k, frozenset(), False, True, AFFINITY_REASON, AFFINITY_REASON) for k in sorted(allowed)]
        return None

    def _anti_affinity(self, pod: SimPod, extra: Sequence[ExtraNode]) -> list[Check]:
        out = []
        nodes = self.state.nodes
        for t in pod.pod_affinity.anti_affinity:
            if t.selector is None:
                continue
            key = t.topology_key
            counter = self.counts.counter(t.namespaces, t.selector, self.state.pods)
            removed = self.state.removed
            forbidden = {v for i in counter.per_node if not removed[i] and (v := nodes[i].labels.get(key)) is not None}
            forbidden.update(
                v for x in extra if (v := x.labels.get(key)) is not None and x.matching_any(t.namespaces, t.selector)
            )
            if forbidden:
                out.append(Check(key, frozenset(forbidden), False, False, ANTI_AFFINITY_REASON))
        return out

    def _existing_anti_affinity(self, pod: SimPod, extra: Sequence[ExtraNode]) -> list[Check]:
        nodes = self.state.nodes
        existing: dict[str, set[str]] = {}
        for h in self.counts.anti_holders(pod):
            key = h.term.topology_key
            for i in h.per_node:
                if self.state.removed[i]:
                    continue
                value = nodes[i].labels.get(key)
                if value is not None:
                    existing.setdefault(key, set()).add(value)
        if extra:
            labels = dict(pod.labels)
            for x in extra:
                for term in x.holders:
                    value = x.labels.get(term.topology_key)
                    if value is not None and term.selects(pod.namespace, labels):
                        existing.setdefault(term.topology_key, set()).add(value)
        return [
            Check(key, frozenset(values), False, False, EXISTING_ANTI_AFFINITY_REASON)
            for key, values in sorted(existing.items())
        ]

    def placement(self, pod: SimPod, restriction: Restriction) -> Placement:
        """How placement stands for ``restriction``: the pod's node affinity with requirements added, the node
        positions excluded besides (sorted), and the values of one low-cardinality key (a zone) banned."""
        reqs: list[Requirement] = []
        excluded: set[int] = set()
        banned_key = ""
        banned: set[str] = set()
        n = len(self.state.nodes)
        for check in restriction.checks:
            by_value = self.nodes_with(check.key)
            if check.allow:
                reqs.append(Requirement(check.key, "In", tuple(sorted(check.values))))
                continue
            if check.need_key and self._with_key[check.key] < n:
                reqs.append(Requirement(check.key, "Exists"))
            if not check.values:
                continue
            if len(by_value) <= MAX_VALUES and banned_key in ("", check.key):
                banned_key = check.key
                banned.update(check.values)
                continue
            nodes = [by_value.get(v, ()) for v in check.values]
            if sum(len(x) for x in nodes) <= max(EXCLUDE_LIMIT, n // 8):
                for x in nodes:
                    excluded.update(x)
            else:
                reqs.append(Requirement(check.key, "NotIn", tuple(sorted(check.values))))
        return Placement(
            _with(pod.affinity, reqs), sorted(excluded), (banned_key, frozenset(banned)) if banned else None
        )


@dataclass(frozen=True)
class Placement:
    """What placement uses for a restricted pod (``PodFilters.placement``)."""

    affinity: NodeAffinity
    excluded: list[int]
    banned: tuple[str, frozenset[str]] | None


def _with(affinity: NodeAffinity, reqs: Sequence[Requirement]) -> NodeAffinity:
    """``affinity`` with ``reqs`` ANDed into every required term."""
    if not reqs:
        return affinity
    extra = tuple(sorted(set(reqs)))
    if affinity.required is None:
        required: tuple[Term, ...] = (Term(extra),)
    else:
        required = tuple(Term(t.expressions + extra, t.fields) for t in affinity.required)
    return NodeAffinity(affinity.node_selector, required, affinity.preferred)
