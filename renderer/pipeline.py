"""The only composer: load → capacity model → lint → render | verify | diff (| simulate, with ``renderer.impact``).

Every command is argument parsing, one call here, a reporter and an exit code; every function returns a typed result
and never prints. Stages below (``renderer.validation``, ``renderer.capacity``, ``renderer.lint``, ``renderer.render``,
``renderer.verify``) never import this module.

Cost: the sum of the stages' costs (each states its own); the cyclic garbage collector is paused while a stage builds
its many long-lived objects.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from renderer.findings import Finding
from renderer.validation.load import LoadResult
from renderer.validation.load import load as _load

if TYPE_CHECKING:
    from renderer.capacity.diff import DiffResult
    from renderer.capacity.explain import Explained
    from renderer.capacity.model import CapacityModel
    from renderer.cost.resolve import Pricing
    from renderer.impact.pods import SimPod
    from renderer.impact.provisioners.karpenter import NodeClass
    from renderer.impact.report import AsgPool, ImpactReport
    from renderer.impact.result import ImpactResult
    from renderer.impact.snapshot import Snapshot
    from renderer.loading.git import Revision
    from renderer.measured import Measured
    from renderer.models.inventory import Pool
    from renderer.platforms import Assignment
    from renderer.recommend.advice import Options as RecommendOptions
    from renderer.recommend.prometheus import Server
    from renderer.recommend.queries import Query as RecommendQuery
    from renderer.recommend.queries import Selectors as RecommendSelectors
    from renderer.recommend.result import Recommendation
    from renderer.recommend.usage import Usage
    from renderer.render.engine import RenderResult
    from renderer.validation.reuse import FileMemo
    from renderer.validation.validate import PolicySet
    from renderer.verify.kubectl import Kubectl
    from renderer.verify.pods import PodRecord
    from renderer.verify.result import VerifyResult

__all__ = [
    "Diffed",
    "Explanation",
    "LintResult",
    "LoadResult",
    "Recommended",
    "Rendered",
    "UsageInput",
    "Verified",
    "diff",
    "explain",
    "lint",
    "load",
    "recommend",
    "recommend_queries",
    "render",
    "schemas",
    "verify",
    "verify_nodes",
]


_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a stage builds many objects, then restore it.

    Policy data has no reference cycles worth collecting mid-run, but the collector still scans every live object
    each time a generation fills up; on 10,000-document repos that made load and lint grow faster than linearly.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _stage(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    @wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _gc_paused():
            return fn(*args, **kwargs)

    return run


@_stage
def load(paths: list[Path], *, max_file_bytes: int | None = None, memo: FileMemo | None = None) -> LoadResult:
    """Read and validate every policy document under ``paths`` (default: ``policies/``); ``memo``: shared with
    the load of another revision (``renderer.validation.reuse``)."""
    return _load(paths, max_file_bytes=max_file_bytes, memo=memo)


def _memo() -> FileMemo:
    """One for the two loads of a ``--base`` run: a file both revisions hold unchanged is read once."""
    from renderer.validation.reuse import FileMemo

    return FileMemo()


def _model_and_findings(
    result: LoadResult,
    base_model: CapacityModel | None = None,
    base_ref: str | None = None,
    usage: UsageInput | None = None,
) -> tuple[CapacityModel, list[Finding]]:
    """The capacity model of a valid load and its lint findings (positions unresolved); ``usage``: measured usage
    for the rules that read it (AL216)."""
    from renderer.capacity.model import build
    from renderer.lint.engine import run_rules
    from renderer.render.codes import all_codes

    model = build(result.policies)
    render_codes = {code: cls.fixed for code, cls in all_codes().items()}
    measured = _measured(result, model, usage) if usage is not None else None
    return model, run_rules(
        result, model, base_model=base_model, base_ref=base_ref, other_codes=render_codes, measured=measured
    )


@dataclass(eq=False, repr=False)
class LintResult:
    """``load`` plus the lint stage: every finding (validation first if any), positions resolved, sorted."""

    load: LoadResult
    findings: list[Finding]
    #: The capacity model (None when validation failed: no rule ran then).
    model: CapacityModel | None = None
    #: With ``base``: the commit compared with (its merge-base with HEAD, or the tip asked for).
    base: Revision | None = None

    @property
    def valid(self) -> bool:
        """False when validation failed (no rule ran then)."""
        return self.load.ok


@_stage
def lint(
    paths: list[Path],
    *,
    max_file_bytes: int | None = None,
    base: str | None = None,
    base_tip: bool = False,
    usage: UsageInput | None = None,
) -> LintResult:
    """Validate, build the capacity model and apply the lint rules; ``base``: also compare with that git revision
    (its merge-base with HEAD, or its tip with ``base_tip`` or ``REF..``: ``renderer.loading.git.parse_base``).

    Validation errors stop here (their findings are returned, no rule runs). A ``base`` git cannot resolve, or
    without a merge-base, raises ``UsageError``. ``usage``: measured usage for rule AL216 (``lint --usage`` or
    ``--prometheus``), read as ``recommend`` reads it; raises ``UsageInputError`` and ``SnapshotError`` as it does."""
    from renderer.capacity.model import build

    spec = None
    if base is not None:
        from renderer.loading.git import parse_base

        spec = parse_base(base, tip=base_tip, allow_head=False)
    memo = _memo() if spec is not None else None
    result = load(paths, max_file_bytes=max_file_bytes, memo=memo)
    if not result.ok:
        return LintResult(result, result.finish(result.findings))
    base_model = None
    base_rev = None
    if spec is not None:
        from renderer.validation.revision import load_revision

        base_load = load_revision(paths or [Path("policies")], spec, max_file_bytes=max_file_bytes, memo=memo)
        base_model, base_rev = build(base_load.policies), base_load.revision
    model, findings = _model_and_findings(result, base_model, spec.ref if spec is not None else None, usage)
    return LintResult(result, result.finish([*result.findings, *findings]), model, base_rev)


@dataclass(eq=False, repr=False)
class Explanation:
    """``explain``: the pools asked for (``explained``), or why not (invalid input: ``load.findings``; pool names
    that match no pool: ``missing``, with ``known``)."""

    load: LoadResult
    explained: Explained | None = None
    missing: list[str] = field(default_factory=list)
    known: list[str] = field(default_factory=list)


@_stage
def explain(paths: list[Path], *, max_file_bytes: int | None = None, pools: list[str] | None = None) -> Explanation:
    """The capacity arithmetic of every pool (or of the pools named in ``pools``)."""
    from renderer.capacity.explain import Explained
    from renderer.capacity.model import build

    result = load(paths, max_file_bytes=max_file_bytes)
    if not result.ok:
        result.finish(result.findings)
        return Explanation(result)
    model = build(result.policies)
    chosen = model.pools
    if pools:
        wanted = set(pools)
        chosen = [p for p in chosen if p.pool.name in wanted]
        missing = sorted(wanted - {p.pool.name for p in chosen})
        if missing:
            return Explanation(result, missing=missing, known=sorted(p.pool.name for p in model.pools))
    pricing = _pricing(result)
    cost = None
    if pricing is not None:
        from renderer.capacity.cost import explain_cost

        cost = explain_cost(chosen, pricing)
    return Explanation(result, Explained(model, chosen, cost))


def _pricing(result: LoadResult) -> Pricing | None:
    """The repo's prices (``pricing:`` in its settings; docs/cost.md), loaded only then: a run without them never
    imports ``renderer.cost``. The staleness of builtin prices is measured at SOURCE_DATE_EPOCH when set (a
    reproducible build's clock), else today."""
    settings = result.policies.settings.pricing
    if settings is None:
        return None
    import os
    from datetime import date, datetime, timezone

    from renderer.cost.resolve import load_pricing

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    today = datetime.fromtimestamp(int(epoch), timezone.utc).date() if epoch.isdigit() else date.today()
    source = result.policies.settings_source
    shown = source.path if source is not None else ".allocatable.yaml"
    root = result.settings_path.parent if result.settings_path is not None else Path()
    return load_pricing(settings, root, shown, today=today.isoformat())


@dataclass(eq=False, repr=False)
class Rendered:
    """``render``: the files (``result``), or the findings that stop it (``findings``: validation or lint errors,
    or the targets' own); ``stage`` says where it stopped: ``load``, ``lint``, ``targets`` or ``done``."""

    load: LoadResult
    stage: str
    findings: list[Finding] = field(default_factory=list)
    result: RenderResult | None = None


@_stage
def render(
    paths: list[Path],
    *,
    max_file_bytes: int | None = None,
    targets: list[str] | None = None,
    ignition_version: str | None = None,
    check_targets: Callable[[LoadResult, list[str]], None] | None = None,
    output_dir: Callable[[LoadResult], Path | None] | None = None,
) -> Rendered:
    """load → validate → capacity model → lint → render, in memory. Lint errors stop before any target runs.

    ``targets``: the targets asked for (default: the settings'); ``engine.UnknownTargetError`` for a name that is
    none. ``check_targets(load, selected)`` may refuse the selection (raise) before anything is built.
    ``output_dir(load)``: the directory the files will be written to (or compared with), whose last render tells
    which pools' delivered files this render would remove — each one a finding (``renderer.render.removals``:
    an error, stopping the render, for a pool that would be left with none)."""
    from renderer.render import engine

    result = load(paths, max_file_bytes=max_file_bytes)
    if not result.ok:
        return Rendered(result, "load", result.finish(list(result.findings)))
    settings = result.policies.settings.render
    if ignition_version is not None:
        settings.ignitionVersion = ignition_version  # type: ignore[assignment]  # the parser's choices are the Literal's
    selected = engine.select_targets(settings, targets or None)
    if check_targets is not None:
        check_targets(result, selected)
    model, lint_findings = _model_and_findings(result)
    if any(f.severity == "error" for f in lint_findings):
        return Rendered(result, "lint", result.finish([*result.findings, *lint_findings]))
    rendered = engine.build(result, model, selected)
    where = output_dir(result) if output_dir is not None else None
    if where is not None:
        from renderer.render.output import OutputError, stale_deliveries
        from renderer.render.removals import removal_findings

        try:
            stale = stale_deliveries(where, rendered.files)
        except OutputError:
            stale = []  # what is wrong with the directory is the writer's error to report
        rendered.findings.extend(removal_findings(where, stale, rendered, model))
    findings = result.finish(list(rendered.findings)) if rendered.findings else []
    return Rendered(result, "done" if rendered.ok else "targets", findings, rendered)


@dataclass(eq=False, repr=False)
class Verified:
    """``verify``: the comparison (``result``), or invalid policies (``load.findings``, ``result`` None); a base
    revision that does not validate is ``base_invalid``."""

    load: LoadResult
    result: VerifyResult | None = None
    base_invalid: bool = False
    no_nodes: bool = False
    #: With ``base``: the commit compared with (as for ``lint``).
    base: Revision | None = None
    #: With ``simulate``: where the pods the repo's allocatable displaces would go, and what it costs.
    impact: ImpactReport | None = None


@_stage
def verify(
    paths: list[Path],
    *,
    nodes: str | None = None,
    pods: str | None = None,
    base: str | None = None,
    base_tip: bool = False,
    platform: list[Assignment] | None = None,
    max_file_bytes: int | None = None,
    live: Kubectl | None = None,
    simulate: bool = True,
) -> Verified:
    """The repo's prediction against the nodes of ``nodes`` (a ``kubectl get nodes`` dump, ``-`` for standard
    input) — or, with ``live``, of ``kubectl get nodes -o json`` — and the repo's inventory, and with ``pods`` the
    fit of the pods running there, and (``simulate``) the re-packing simulation of the repo's allocatable against
    what the nodes report. Raises ``renderer.verify.snapshot.SnapshotError`` for a dump that cannot be read (or a
    kubectl that cannot be run)."""
    from renderer.loading.bounds import DEFAULT_MAX_FILE_BYTES
    from renderer.verify.compare import verify as compare
    from renderer.verify.kubectl import live_nodes
    from renderer.verify.nodes import read_nodes, read_pods

    base_rev = None
    if base is not None:  # resolved before any snapshot is read: a base that cannot be found fails at once
        from renderer.loading.git import parse_base, resolve_base

        base_rev = resolve_base(paths[0], parse_base(base, tip=base_tip, allow_head=False))
    memo = _memo() if base_rev is not None else None
    result = load(paths, max_file_bytes=max_file_bytes, memo=memo)
    if not result.ok:
        result.finish(result.findings)
        return Verified(result)
    cluster = None
    pod_records: list[PodRecord] | None
    if live is not None:
        source = live_nodes(live, max_file_bytes or DEFAULT_MAX_FILE_BYTES)
        snapshot = read_nodes(source, platform, max_file_bytes)
        pod_records = read_pods(pods, max_file_bytes) if pods is not None else None
    elif pods is not None and simulate and nodes is not None:
        from renderer.impact.snapshot import read_verify_dumps

        cluster, pod_records = read_verify_dumps(nodes, pods, platform, max_file_bytes)  # each dump read once
        snapshot = cluster.pools
    else:
        snapshot = read_nodes(nodes, platform, max_file_bytes, mixed=nodes == pods) if nodes else []
        pod_records = read_pods(pods, max_file_bytes, mixed=nodes == pods) if pods is not None else None
    if not snapshot and not any(p.origin == "Node" for p in result.policies.pools):
        return Verified(result, no_nodes=True)
    base_policies = None
    if base_rev is not None:
        from renderer.validation.revision import load_revision

        base_load = load_revision(paths, base_rev, max_file_bytes=max_file_bytes, memo=memo)
        if not base_load.ok:
            return Verified(result, base_invalid=True, base=base_rev)
        base_policies = base_load.policies
    verified = compare(result.policies, snapshot, pod_records, base_policies, base_rev.ref if base_rev else None)
    verified.base = base_rev
    _locate_nodes(result, verified)
    report = None
    if cluster is not None:
        report = _impact(cluster, None, result.policies, "verify", "what the nodes report", "the policy repo")
        pricing = _pricing(result)
        if pricing is not None:
            from renderer.capacity.cost import fleet_cost
            from renderer.impact.cost import fleet_changes

            fleet = fleet_changes(report, cluster.nodes, cluster.pools, result.policies.pools, pricing)
            report.cost = fleet_cost(pricing, fleet, "rolling the policy repo out")
        verified.impact = report
    return Verified(result, verified, base=base_rev, impact=report)


@_stage
def verify_nodes(
    result: LoadResult,
    nodes: list[Pool],
    *,
    pods: list[PodRecord] | None = None,
    base: PolicySet | None = None,
    base_ref: str | None = None,
) -> VerifyResult:
    """``verify`` for a caller that keeps a valid load and reads the nodes itself (``allocatable serve``: the
    policies loaded once per change, the nodes every cycle): the repo's prediction against ``nodes`` (pools of one,
    ``renderer.verify.nodes.node_pool``), with ``pods`` their fit and with ``base`` (the policies evaluated before)
    the nodes that still match it. Positions of inventory nodes are not resolved (nothing shows them)."""
    from renderer.verify.compare import verify as compare

    return compare(result.policies, nodes, pods, base, base_ref)


def _locate_nodes(result: LoadResult, verified: VerifyResult) -> None:
    """Point inventory nodes at their metadata.name (positions are resolved only now, for these nodes)."""

    shown = {f.display for f in result.files}
    probes = []
    for n in verified.nodes:
        if n.source.path.startswith("<") or n.source.path not in shown:
            continue
        probes.append((n, Finding("", "info", "", n.source.path, source=n.source, field_path=("metadata", "name"))))
    result.resolver.resolve([f for _, f in probes])
    for n, f in probes:
        if f.line:
            n.source = n.source._replace(line=f.line, column=f.column)


@dataclass(eq=False, repr=False)
class Diffed:
    """``diff``: the two sides compared, per pool and finding; with a snapshot, the simulation (``result.impact``
    too, for the reporters)."""

    base: LoadResult
    head: LoadResult
    result: DiffResult
    impact: ImpactReport | None = None


@_stage
def diff(
    paths: list[Path],
    *,
    base: str,
    head: str | None = None,
    max_file_bytes: int | None = None,
    base_tip: bool = False,
    snapshot: list[str] | None = None,
    platform: list[Assignment] | None = None,
) -> Diffed:
    """The policy repo at ``base`` against the work tree (or ``head``): committed allocatable per pool before →
    after, and the lint findings that are new or fixed; with ``snapshot`` (``kubectl get nodes,pods -A -o json``
    dumps, ``-`` for standard input), the re-packing simulation of the change on that cluster. ``base`` is read at
    its merge-base with the head unless the tip is asked for (``base_tip``, ``REF..``); ``REF...H`` / ``REF..H``
    name the head too. Raises ``UsageError`` for a revision git cannot resolve or a merge-base that cannot be
    found, ``SnapshotError`` for a dump that cannot be read."""
    from renderer.capacity.diff import compare
    from renderer.loading.git import parse_base
    from renderer.validation.revision import load_revision

    spec = parse_base(base, tip=base_tip, head=head)
    base, head = spec.ref, spec.head
    cluster = None
    if snapshot:
        from renderer.impact.snapshot import read_snapshot

        cluster = read_snapshot(snapshot, platform, max_file_bytes)  # first: a bad dump costs no git read
    # One side at a time: the base is loaded, modelled and linted, and its findings placed, before the head is read,
    # so what the base's reading and rules leave behind is freed first.
    memo = _memo()  # the files both revisions hold unchanged are read once
    base_load = load_revision(paths, spec, max_file_bytes=max_file_bytes, memo=memo)
    base_model, base_findings = _model_and_findings(base_load)
    base_finished = base_load.finish([*base_load.findings, *base_findings])
    del base_findings
    head_load = (
        load_revision(paths, head, max_file_bytes=max_file_bytes, memo=memo)
        if head
        else load(paths, max_file_bytes=max_file_bytes, memo=memo)
    )
    del memo
    head_model, head_findings = _model_and_findings(head_load, base_model, base)
    base_rev = base_load.revision
    head_rev = head_load.revision
    assert base_rev is not None
    result = compare(
        base_model,
        head_model,
        base_finished,
        head_load.finish([*head_load.findings, *head_findings]),
        base_label=_label(base, base_rev.short, merge_base=base_rev.is_merge_base),
        head_label="working tree" if head_rev is None or head is None else _label(head, head_rev.short),
        base_ref=base,
        base_commit=base_rev.commit,
        head_ref=head,
        head_commit=head_rev.commit if head_rev is not None else None,
    )
    result.base_revision = base_rev
    result.invalid = (_errors(base_load), _errors(head_load))
    report = None
    if cluster is not None:
        report = _impact(
            cluster, base_load.policies, head_load.policies, "diff", result.base_label, result.head_label, head_model
        )
        result.impact = report
    pricing = _pricing(head_load)
    limit = head_load.policies.settings.impact.maxMonthlyCostIncrease
    if pricing is not None:
        from renderer.capacity.cost import change_cost

        fleet = []
        if report is not None and cluster is not None:
            from renderer.impact.cost import fleet_changes

            fleet = fleet_changes(report, cluster.nodes, cluster.pools, head_load.policies.pools, pricing)
        result.cost = change_cost(result, base_model, head_model, pricing, fleet, limit)
    elif limit is not None:
        from renderer.loading.files import UsageError

        raise UsageError(
            f"{_settings_shown(head_load)}: impact.maxMonthlyCostIncrease needs prices: add a pricing block "
            "(pricing: {region: ...}; docs/cost.md)"
        )
    return Diffed(base_load, head_load, result, report)


def _settings_shown(result: LoadResult) -> str:
    source = result.policies.settings_source
    return f"{source.path}:{source.line}:{source.column}" if source is not None else ".allocatable.yaml"


def _impact(
    cluster: Snapshot,
    before: PolicySet | None,
    after: PolicySet,
    mode: str,
    before_label: str,
    after_label: str,
    model: CapacityModel | None = None,
) -> ImpactReport:
    """The re-packing simulation of ``after`` on ``cluster``: each node modelled as verify models it (a pool of one,
    the policies that select it), its allocatable moved by what ``after`` advertises differently from ``before`` —
    from what the node reports when ``before`` is None (verify) — and grouped into the repo's pools for the report.
    The provisioners' views read ``model`` (``after``'s capacity model, built here when not given and needed): the
    EC2NodeClass of pools delivered through Karpenter, the scale-from-zero tags of pools with ``clusterAutoscaler``.
    Cost: two capacity models of the snapshot's nodes (built ``_NODE_CHUNK`` nodes at a time), then
    ``renderer.impact.repack``'s."""
    from dataclasses import replace

    from renderer.impact.capacity_view import advertised
    from renderer.impact.repack import simulate
    from renderer.impact.report import (
        ImpactReport,
        PoolIndex,
        autoscaler_view,
        karpenter_plans,
        karpenter_view,
        pool_of,
    )
    from renderer.verify.compare import node_model

    nodepools = PoolIndex([(p.name, p.labels) for p in after.pools if p.origin == "NodePool"])
    for node in cluster.nodes:
        node.pool = pool_of(node.labels, nodepools)

    def advertised_by(policies: PolicySet) -> dict[str, dict[str, int]]:
        # The nodes in chunks: each node is a pool of its own, so a chunk's model is the whole model's for its
        # nodes, and only one chunk's PoolCapacity objects are alive at a time.
        bare = replace(policies, pools=[])
        out: dict[str, dict[str, int]] = {}
        for k in range(0, len(cluster.pools), _NODE_CHUNK):
            out.update(
                (pc.pool.name, advertised(pc)) for pc in node_model(bare, cluster.pools[k : k + _NODE_CHUNK]).pools
            )
        return out

    head = advertised_by(after)
    base = advertised_by(before) if before is not None else {n.name: n.allocatable for n in cluster.nodes}
    change: dict[str, dict[str, int]] = {}
    for name, now in head.items():
        was = base.get(name, {})
        moved = {r: v for r, v in now.items() if was.get(r) != v}
        if moved:
            change[name] = moved
    from renderer.impact.repack import ImpactOptions

    result = simulate(cluster.nodes, cluster.pods, {}, ImpactOptions(node_change=change))
    shapes: dict[str, set[str]] = {}
    for node in cluster.nodes:
        kind = node.labels.get("node.kubernetes.io/instance-type")
        if kind:
            shapes.setdefault(node.pool, set()).add(kind)
    settings = after.settings.impact
    after_alloc = {n.name: {**n.allocatable, **change.get(n.name, {})} for n in cluster.nodes}
    delivered = [p for p in after.pools if p.origin == "NodePool" and (p.cluster_autoscaler or _karpenter(p))]
    if delivered and model is None:
        from renderer.capacity.model import build

        model = build(after)
    node_classes, asg_pools = _provisioned(model, after, cluster, result) if delivered and model else ({}, [])
    recommendations, gaps = karpenter_view(cluster.nodes, after_alloc, settings.vmMemoryOverheadPercent, node_classes)
    autoscaler_gaps = autoscaler_view(cluster.nodes, after_alloc, asg_pools)
    plans = karpenter_plans(cluster.nodes, cluster.pods, result, settings.vmMemoryOverheadPercent, node_classes)
    return ImpactReport(
        mode=mode,
        before=before_label,
        after=after_label,
        result=result,
        shapes={pool: "/".join(sorted(kinds)) for pool, kinds in shapes.items()},
        skipped=dict(cluster.skipped),
        counted=dict(cluster.counted),
        sources=list(cluster.sources),
        nodes_changed=len(change),
        max_new_pending=settings.maxNewPendingPods,
        recommendations=recommendations,
        gaps=gaps,
        vm_overhead_percent=settings.vmMemoryOverheadPercent,
        autoscaler_gaps=autoscaler_gaps,
        karpenter_plans=plans,
    )


#: Nodes modelled at a time for the simulation (memory: one chunk's capacity model, not 20,000 nodes').
_NODE_CHUNK = 1000


def _karpenter(pool: Pool) -> bool:
    return pool.delivery is not None and pool.delivery.karpenter is not None


def _provisioned(
    model: CapacityModel, after: PolicySet, cluster: Snapshot, result: ImpactResult
) -> tuple[dict[str, NodeClass], list[AsgPool]]:
    """Per pool delivered through Karpenter, the EC2NodeClass its nodes get (the kubelet block ``render`` writes:
    reservations, hard eviction, maxPods when the policy sets it; kube-reserved left to Karpenter where the pool's
    formula is Karpenter's own default); the pools the cluster autoscaler scales from zero, with the ``resources/*``
    tags their groups carry when the ``cluster-autoscaler-tags`` target is rendered."""
    from renderer.capacity.cluster_autoscaler import resource_tags
    from renderer.capacity.kubeletfields import eviction_hard
    from renderer.impact.provisioners.karpenter import NodeClass
    from renderer.impact.report import AsgPool
    from renderer.impact.resources import from_quantities
    from renderer.render.engine import select_targets

    tagged = "cluster-autoscaler-tags" in select_targets(after.settings.render, None)
    by_key = {p.key: p for p in cluster.pods}
    pending: dict[str, list[SimPod]] = {}
    for p in result.pending:
        if p.pool is not None and p.pod in by_key:
            pending.setdefault(p.pool, []).append(by_key[p.pod])
    sides = {p.pool: p.after for p in result.pools}
    node_classes: dict[str, NodeClass] = {}
    asg_pools: list[AsgPool] = []
    for pc in model.pools:
        pool = pc.pool
        if pool.origin != "NodePool":
            continue
        if _karpenter(pool):
            spec = pc.policy.model.spec if pc.policy is not None else None
            formula = pc.formula.spec if pc.formula is not None else None
            left = formula is not None and formula.delivery_default == "karpenter"
            kube = {} if left else from_quantities({k: r.quantity for k, r in pc.kube_reserved.items()})
            pods_set = spec is not None and (spec.maxPods is not None or spec.podsPerCore is not None)
            node_classes[pool.name] = NodeClass(
                max_pods=pc.max_pods if pods_set else None,
                kube_reserved=kube,
                system_reserved=from_quantities({k: r.quantity for k, r in pc.system_reserved.items()}),
                eviction_hard=eviction_hard(pc, platform_formula_ok=True) or {},
            )
        if pool.cluster_autoscaler is not None:
            side = sides.get(pool.name)
            asg_pools.append(
                AsgPool(
                    pool.name,
                    tuple(pool.cluster_autoscaler.autoScalingGroups),
                    resource_tags(pc) if tagged else {},
                    side.daemon_overhead if side is not None else {},
                    pending.get(pool.name, []),
                )
            )
    return node_classes, asg_pools


def _label(ref: str, short: str, *, merge_base: bool = False) -> str:
    if merge_base:
        return f"{ref} (merge-base {short})"
    return f"{ref} ({short})" if short != ref[:12] else short


def _errors(result: LoadResult) -> int:
    return sum(1 for f in result.findings if f.severity == "error")


def schemas() -> dict[str, str]:
    """Every JSON Schema the project publishes under ``schemas/``, file name → byte-stable text: the policy kinds'
    (from the pydantic schema models) and the rendered files' (``renderer.render.schemas``)."""
    from renderer.models.schema.jsonschema import generate
    from renderer.render.schemas import rendered_schemas

    return generate(rendered_schemas())


@dataclass(frozen=True)
class UsageInput:
    """Measured usage to read: ``--usage`` files, or a server over a window (Unix seconds); ``nodes``: a ``kubectl
    get nodes`` dump placing nodes into NodePools."""

    files: tuple[str, ...] = ()
    server: Server | None = None
    window: tuple[int, int] | None = None
    nodes: str | None = None
    max_file_bytes: int | None = None


def _read_usage(result: LoadResult, given: UsageInput) -> tuple[Usage, tuple[RecommendQuery, ...]]:
    from renderer.recommend.queries import queries
    from renderer.recommend.source import read_files

    selectors = _selectors(result.policies)
    asked = queries(selectors)
    usage_bytes = max(given.max_file_bytes or 0, _USAGE_MAX_BYTES)
    if given.server is not None:
        from renderer.recommend.prometheus import fetch

        assert given.window is not None
        return fetch(given.server, asked, given.window[0], given.window[1], usage_bytes), asked
    field = "rssBytes" if selectors.memory_metric == "container_memory_rss" else "workingSetBytes"
    return read_files(list(given.files), asked, usage_bytes, field), asked


def _measured(result: LoadResult, model: CapacityModel, given: UsageInput) -> Measured:
    from renderer.recommend.run import measured_pools

    usage, _ = _read_usage(result, given)
    dump: list[Pool] = []
    if given.nodes is not None:
        from renderer.verify.nodes import read_nodes

        dump = read_nodes(given.nodes, None, given.max_file_bytes)
    return measured_pools(model, usage, dump)


@dataclass(eq=False, repr=False)
class Recommended:
    """``recommend``: the advice per pool (``result``), or invalid policies (``load.findings``, ``result`` None)."""

    load: LoadResult
    result: Recommendation | None = None


@_stage
def recommend(
    paths: list[Path],
    *,
    usage: list[str] | None = None,
    server: Server | None = None,
    window: tuple[int, int] | None = None,
    nodes: str | None = None,
    snapshot: list[str] | None = None,
    live: Kubectl | None = None,
    pools: list[str] | None = None,
    options: RecommendOptions | None = None,
    max_file_bytes: int | None = None,
    review: str = "",
) -> Recommended:
    """Reservations and commit percents per pool from measured usage: the ``usage`` exports (offline) or the
    ``server``'s answers over ``window`` (Unix seconds), nodes placed into pools by the inventory and ``nodes`` (a
    ``kubectl get nodes`` dump), the ``live`` cluster's (``kubectl get nodes -o json``) or the ``snapshot``'s nodes;
    with ``snapshot`` (``kubectl get nodes,pods -A -o json``),
    the snapshot's pods re-packed under the recommended documents (``_impact``): the nodes freed per pool. Raises
    ``UsageInputError`` for usage that cannot be read, ``SnapshotError`` for a dump that cannot be read, ``KeyError``
    for a pool in ``pools`` the repo does not have."""
    from dataclasses import replace

    from renderer.capacity.model import build
    from renderer.recommend.advice import Options
    from renderer.recommend.run import recommend_pools

    cluster = None
    if snapshot:
        from renderer.impact.snapshot import read_snapshot

        cluster = read_snapshot(snapshot, None, max_file_bytes)  # first: a bad dump costs no usage read
    result = load(paths, max_file_bytes=max_file_bytes)
    if not result.ok:
        result.finish(result.findings)
        return Recommended(result)
    given = UsageInput(tuple(usage or ()), server, window, None, max_file_bytes)
    measured, asked = _read_usage(result, given)
    dump: list[Pool] = []
    if nodes is not None:
        from renderer.verify.nodes import read_nodes

        dump = read_nodes(nodes, None, max_file_bytes)
    elif live is not None:
        from renderer.loading.bounds import DEFAULT_MAX_FILE_BYTES
        from renderer.verify.kubectl import live_nodes
        from renderer.verify.nodes import read_nodes

        dump = read_nodes(live_nodes(live, max_file_bytes or DEFAULT_MAX_FILE_BYTES), None, max_file_bytes)
    elif cluster is not None:
        dump = cluster.pools
    model = build(result.policies)
    opts = replace(options or Options(), cpu_ceiling=result.policies.settings.thresholds.cpuCommitCeilingPercent)
    advice = recommend_pools(model, measured, dump, pools, opts, review, asked)
    if server is not None:
        advice.asked = (
            f"{len(asked)} queries to {server.shown}: {measured.series_read} series, {measured.bytes_read} bytes of "
            "answers"
        )
    if cluster is not None and advice.documents:
        from renderer.recommend.repack import apply, nodes_freed

        after = apply(result.policies, advice.documents)
        nodes_freed(advice, _impact(cluster, result.policies, after, "recommend", "the repo", "the recommendation"))
    return Recommended(result, advice)


#: ``--usage`` exports are streamed: their bound is larger than a policy file's (a raw fortnight is hundreds of MB).
_USAGE_MAX_BYTES = 1 << 32


def recommend_queries(paths: list[Path], *, max_file_bytes: int | None = None) -> tuple[RecommendQuery, ...]:
    """The queries ``recommend`` asks, with the repo's ``recommend.selectors`` (its ``.allocatable.yaml``) when the
    repo loads; the defaults otherwise (printing them needs no valid repo)."""
    from renderer.recommend.queries import QUERIES, queries

    result = load(paths, max_file_bytes=max_file_bytes)
    return queries(_selectors(result.policies)) if result.ok else QUERIES


def _selectors(policies: PolicySet) -> RecommendSelectors:
    from renderer.recommend.queries import Selectors

    chosen = policies.settings.recommend.selectors
    return Selectors(
        cadvisor=chosen.cadvisor,
        kubelet=chosen.kubelet,
        kube_state_metrics=chosen.kubeStateMetrics,
        reserved_ids=chosen.reservedCgroups,
        pods_ids=chosen.podsCgroups,
        cpu_quantile=f"{chosen.cpuQuantile:g}",
        memory_metric=chosen.memoryMetric,
    )
