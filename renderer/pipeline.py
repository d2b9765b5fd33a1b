"""The only composer: load → capacity model → lint → render | verify | diff (| simulate, with ``renderer.impact``).

Every command is argument parsing, one call here, a reporter and an exit code; every function returns a typed result
and never prints. Stages below (``renderer.validation``, ``renderer.capacity``, ``renderer.lint``, ``renderer.render``,
``renderer.verify``) never import this module.

Cost: the sum of the stages' costs (each states its own); the cyclic garbage collector is paused while a stage builds
its many long-lived objects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from renderer.findings import Finding
from renderer.gcpause import stage
from renderer.validation.load import LoadResult
from renderer.validation.load import load as _load

if TYPE_CHECKING:
    from renderer.capacity.diff import DiffResult
    from renderer.capacity.explain import Explained
    from renderer.capacity.formulas import FormulaResult, MachineShape
    from renderer.capacity.model import CapacityModel
    from renderer.cost.resolve import Pricing
    from renderer.impact.report import ImpactReport
    from renderer.loading.git import Revision
    from renderer.models.inventory import Pool
    from renderer.platforms import Assignment
    from renderer.recommend.advice import Options as RecommendOptions
    from renderer.recommend.prometheus import Server
    from renderer.recommend.queries import Query as RecommendQuery
    from renderer.recommend.result import Recommendation
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
    "Sized",
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
    "sizing",
    "verify",
    "verify_nodes",
]


@stage
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
    from renderer.capacity.pools import build
    from renderer.lint.engine import run_rules
    from renderer.render.codes import all_codes

    model = build(result.policies)
    render_codes = {code: cls.fixed for code, cls in all_codes().items()}
    measured = None
    if usage is not None:
        from renderer.recommend.inputs import measured as measured_usage

        measured = measured_usage(
            result.policies, model, usage.files, usage.server, usage.window, usage.nodes, usage.max_file_bytes
        )
        usage.notes.extend(measured.notes)
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


@stage
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
    from renderer.capacity.pools import build

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


@stage
def explain(paths: list[Path], *, max_file_bytes: int | None = None, pools: list[str] | None = None) -> Explanation:
    """The capacity arithmetic of every pool (or of the pools named in ``pools``)."""
    from renderer.capacity.explain import Explained
    from renderer.capacity.pools import build

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
    """The repo's prices (``renderer.validation.pricing``), None without a ``pricing:`` block."""
    from renderer.validation.pricing import repo_pricing

    return repo_pricing(result)


@dataclass(eq=False, repr=False)
class Rendered:
    """``render``: the files (``result``), or the findings that stop it (``findings``: validation or lint errors,
    or the targets' own); ``stage`` says where it stopped: ``load``, ``lint``, ``targets`` or ``done``."""

    load: LoadResult
    stage: str
    findings: list[Finding] = field(default_factory=list)
    result: RenderResult | None = None


@stage
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


@stage
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
    from renderer.verify.compare import verify as compare
    from renderer.verify.locate import locate_nodes

    base_rev = None
    if base is not None:  # resolved before any snapshot is read: a base that cannot be found fails at once
        from renderer.loading.git import parse_base, resolve_base

        base_rev = resolve_base(paths[0], parse_base(base, tip=base_tip, allow_head=False))
    memo = _memo() if base_rev is not None else None
    result = load(paths, max_file_bytes=max_file_bytes, memo=memo)
    if not result.ok:
        result.finish(result.findings)
        return Verified(result)
    from renderer.impact.prepare import read_verify_input

    cluster, snapshot, pod_records = read_verify_input(nodes, pods, live, platform, simulate, max_file_bytes)
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
    locate_nodes(result, verified)
    report = None
    if cluster is not None:
        from renderer.impact.prepare import impact_report, rollout_cost

        report = impact_report(cluster, None, result.policies, "verify", "what the nodes report", "the policy repo")
        pricing = _pricing(result)
        if pricing is not None:
            report.cost = rollout_cost(report, cluster, result.policies, pricing)
        verified.impact = report
    return Verified(result, verified, base=base_rev, impact=report)


@stage
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


@dataclass(eq=False, repr=False)
class Diffed:
    """``diff``: the two sides compared, per pool and finding; with a snapshot, the simulation (``result.impact``
    too, for the reporters)."""

    base: LoadResult
    head: LoadResult
    result: DiffResult
    impact: ImpactReport | None = None


@stage
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
        from renderer.impact.prepare import impact_report

        report = impact_report(
            cluster, base_load.policies, head_load.policies, "diff", result.base_label, result.head_label, head_model
        )
        result.impact = report
    pricing = _pricing(head_load)
    if pricing is not None:
        from renderer.impact.prepare import priced_change

        limit = head_load.policies.settings.impact.maxMonthlyCostIncrease
        result.cost = priced_change(result, base_model, head_model, pricing, report, cluster, head_load.policies, limit)
    else:
        from renderer.validation.pricing import check_unpriced

        check_unpriced(head_load)
    return Diffed(base_load, head_load, result, report)


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


@dataclass(eq=False, repr=False)
class Sized:
    """``sizing``: the formula's figures (``result``), or the ``policy`` file that does not load (``load``, its
    findings finished)."""

    result: FormulaResult | None = None
    load: LoadResult | None = None


def sizing(machine: Callable[[], MachineShape], *, formula: str | None = None, policy: str | None = None) -> Sized:
    """One reservation formula for one machine, no policy repo: a platform's (``formula``) or the autoSizing of the
    one ReservationPolicy with one in the ``policy`` file; ``machine()`` gives the shape once the formula is known
    (the command's arguments, read after the file). Raises ``UsageError`` for a file without exactly one such
    policy and a formula that cannot be computed for the shape."""
    from renderer.capacity.formulas import FormulaError, compute
    from renderer.loading.files import UsageError

    if policy is not None:
        from renderer.capacity.reservations import file_formula

        result = load([Path(policy)])
        if not result.ok:
            result.finish(result.findings)
            return Sized(load=result)
        chosen = file_formula(result.policies, policy)
    else:
        from renderer import platforms

        assert formula is not None
        chosen = platforms.formula(formula)
    shape = machine()
    try:
        return Sized(compute(chosen, shape))
    except FormulaError as exc:
        raise UsageError(str(exc)) from None


@dataclass(frozen=True)
class UsageInput:
    """Measured usage to read: ``--usage`` files, or a server over a window (Unix seconds); ``nodes``: a ``kubectl
    get nodes`` dump placing nodes into NodePools; ``notes``: what of it could not be used, in words (lint's)."""

    files: tuple[str, ...] = ()
    server: Server | None = None
    window: tuple[int, int] | None = None
    nodes: str | None = None
    max_file_bytes: int | None = None
    notes: list[str] = field(default_factory=list, compare=False)


@dataclass(eq=False, repr=False)
class Recommended:
    """``recommend``: the advice per pool (``result``), or invalid policies (``load.findings``, ``result`` None)."""

    load: LoadResult
    result: Recommendation | None = None


@stage
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
    with ``snapshot`` (``kubectl get nodes,pods -A -o json``), the snapshot's pods re-packed under the recommended
    documents (``renderer.impact.prepare``): the nodes freed per pool. Raises ``UsageInputError`` for usage that
    cannot be read, ``SnapshotError`` for a dump that cannot be read, ``KeyError`` for a pool in ``pools`` the repo
    does not have."""
    from dataclasses import replace

    from renderer.capacity.pools import build
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
    from renderer.recommend.inputs import node_dump, read_usage

    measured, asked = read_usage(result.policies, tuple(usage or ()), server, window, max_file_bytes)
    dump = node_dump(nodes, live, max_file_bytes)
    if dump is None:
        dump = cluster.pools if cluster is not None else []
    model = build(result.policies)
    opts = replace(options or Options(), cpu_ceiling=result.policies.settings.thresholds.cpuCommitCeilingPercent)
    advice = recommend_pools(model, measured, dump, pools, opts, review, asked)
    if server is not None:
        advice.asked = (
            f"{len(asked)} queries in {len(measured.sources)} requests to {server.shown}: {measured.series_read} series, "
            f"{measured.bytes_read} bytes of answers"
        )
    if cluster is not None and advice.documents:
        from renderer.impact.prepare import impact_report
        from renderer.recommend.repack import apply, nodes_freed

        after = apply(result.policies, advice.documents)
        nodes_freed(
            advice, impact_report(cluster, result.policies, after, "recommend", "the repo", "the recommendation")
        )
    pricing = _pricing(result)
    if pricing is not None:
        from renderer.recommend.pricing import price_recommendation

        advice.cost = price_recommendation(advice.pools, model, pricing)
    return Recommended(result, advice)


def recommend_queries(paths: list[Path], *, max_file_bytes: int | None = None) -> tuple[RecommendQuery, ...]:
    """The queries ``recommend`` asks, with the repo's ``recommend.selectors`` (its ``.allocatable.yaml``) when the
    repo loads; the defaults otherwise (printing them needs no valid repo)."""
    from renderer.recommend.queries import QUERIES, queries

    result = load(paths, max_file_bytes=max_file_bytes)
    from renderer.recommend.inputs import selectors

    return queries(selectors(result.policies)) if result.ok else QUERIES
