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
(affinity) or forbidden (spread, anti-affinity). The scheduler turns it into node requirements added to the pod's node
affinity (``key Exists``, ``key In allowed``, ``key NotIn forbidden`` — the static-filter machinery and its shared
room trees then answer, a derived class per distinct set, few for zones) and, where the forbidden domains hold few
nodes (hostname spreading and anti-affinity), into excluded node positions the room tree's descents skip.

Cost per pod: O(nodes holding matching pods) per constraint or term from the counters (``podcounts.py``), plus the
domains' sizes (O(nodes) once per distinct (node affinity, tolerations, keys), kept), plus what placement costs with
``excluded`` nodes (O(log nodes) per excluded node). Not simulated: the plugins' scores (ScheduleAnyway constraints,
preferred terms), terminating pods (the dump keeps no deletionTimestamp: they count), namespace labels (a
``namespaceSelector`` other than ``{}`` is read as its listed namespaces).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from renderer.capacity.selectors import Requirement, Term
from renderer.impact.affinity import ANY_NODE, NodeAffinity
from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.podcounts import PodCounts, conjunction
from renderer.impact.pods import SimPod
from renderer.impact.taints import Toleration

__all__ = [
    "AFFINITY_REASON",
    "ANTI_AFFINITY_REASON",
    "EXISTING_ANTI_AFFINITY_REASON",
    "SPREAD_MISSING_LABEL_REASON",
    "SPREAD_REASON",
    "Check",
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

    def restrict(self, pod: SimPod) -> Restriction:
        """The checks ``pod`` puts on every node, from the pods bound now."""
        checks: list[Check] = []
        nodes = self.state.nodes
        pods = self.state.pods
        labels = dict(pod.labels)
        keys = tuple(sorted({c.topology_key for c in pod.spread}))
        for c in pod.spread:
            forbidden: set[str] = set()
            if c.selector is not None:
                domains = self._counting(
                    pod.affinity if c.honor_affinity else ANY_NODE,
                    pod.scheduling_tolerations() if c.honor_taints else _TOLERATE_ALL,
                    c.topology_key,
                    keys,
                )
                counter = self.counts.counter(frozenset((pod.namespace,)), c.selector, pods)
                per_domain: dict[str, int] = {}
                member = domains.member
                for i, n in counter.per_node.items():
                    if member[i]:
                        value = nodes[i].labels[c.topology_key]
                        per_domain[value] = per_domain.get(value, 0) + n
                if len(domains.sizes) < c.min_domains or len(per_domain) < len(domains.sizes):
                    least = 0
                else:
                    least = min(per_domain.values())
                own = 1 if c.selector.matches(labels) else 0
                forbidden = {v for v, n in per_domain.items() if n + own - least > c.max_skew}
            checks.append(
                Check(c.topology_key, frozenset(forbidden), False, True, SPREAD_REASON, SPREAD_MISSING_LABEL_REASON)
            )
        pa = pod.pod_affinity
        impossible = ""
        if pa.affinity:
            namespaces, selector = conjunction(pa.affinity)
            holding: dict[int, int] = {}
            if selector is not None:
                holding = self.counts.counter(namespaces, selector, pods).per_node
            allowed: dict[str, set[str]] = {t.topology_key: set() for t in pa.affinity}
            for i in holding:
                node_labels = nodes[i].labels
                for key, values in allowed.items():
                    value = node_labels.get(key)
                    if value is not None:
                        values.add(value)
            if any(allowed.values()):
                for key, values in sorted(allowed.items()):
                    checks.append(Check(key, frozenset(values), True, True, AFFINITY_REASON, AFFINITY_REASON))
            elif all(t.selects(pod.namespace, labels) for t in pa.affinity):
                for key in sorted(allowed):  # the first pod of a group: any node with the keys
                    checks.append(Check(key, frozenset(), False, True, AFFINITY_REASON, AFFINITY_REASON))
            else:
                impossible = AFFINITY_REASON
        for t in pa.anti_affinity:
            if t.selector is None:
                continue
            counter = self.counts.counter(t.namespaces, t.selector, pods)
            forbidden = {v for i in counter.per_node if (v := nodes[i].labels.get(t.topology_key)) is not None}
            if forbidden:
                checks.append(Check(t.topology_key, frozenset(forbidden), False, False, ANTI_AFFINITY_REASON))
        existing: dict[str, set[str]] = {}
        for h in self.counts.anti_holders(pod):
            key = h.term.topology_key
            for i in h.per_node:
                value = nodes[i].labels.get(key)
                if value is not None:
                    existing.setdefault(key, set()).add(value)
        for key, values in sorted(existing.items()):
            checks.append(Check(key, frozenset(values), False, False, EXISTING_ANTI_AFFINITY_REASON))
        return Restriction(tuple(checks), impossible)

    def placement(self, pod: SimPod, restriction: Restriction) -> tuple[NodeAffinity, list[int]]:
        """The node affinity that stands for ``restriction`` in placement (the pod's own with requirements added)
        and the node positions excluded besides (sorted)."""
        reqs: list[Requirement] = []
        excluded: set[int] = set()
        n = len(self.state.nodes)
        for check in restriction.checks:
            by_value = self.nodes_with(check.key)
            if check.allow:
                reqs.append(Requirement(check.key, "In", tuple(sorted(check.values))))
                continue
            if check.need_key and sum(len(v) for v in by_value.values()) < n:
                reqs.append(Requirement(check.key, "Exists"))
            if not check.values:
                continue
            nodes = [by_value.get(v, ()) for v in check.values]
            if sum(len(x) for x in nodes) <= max(EXCLUDE_LIMIT, n // 8):
                for x in nodes:
                    excluded.update(x)
            else:
                reqs.append(Requirement(check.key, "NotIn", tuple(sorted(check.values))))
        return _with(pod.affinity, reqs), sorted(excluded)


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
