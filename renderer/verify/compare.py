"""The verify stage: each real Node, modelled as a pool of one, predicted against what it reports.

Nodes come from the repo's inventory (``v1 Node`` objects among the policies) and from a ``kubectl get nodes``
dump; a dumped node replaces an inventory node of the same name (it is the newer observation). Each becomes a pool
of one — its own capacity and labels, its platform from its labels, the policies that select it — and the capacity
model predicts its kubelet allocatable. That is compared exactly, per resource, with ``status.allocatable``:
cpu, memory, ephemeral-storage, pods and every hugepages-* size. Differences are explained by
``renderer.verify.causes``.

Koordinator: when the repo delivers a CommitClass's amplification (``render.koordinator``), the node is predicted
to report raw × ratio in ``status.allocatable`` for cpu and memory, computed as koord-manager's node webhook does
(``int64(float64(milli) × ratio)`` milli-units: koordinator-sh/koordinator@a7a1b76b:pkg/util/resource.go
``MultiplyMilliQuant``); a node carrying ``node.koordinator.sh/raw-allocatable`` is also checked on that
annotation against the predicted kubelet allocatable.

Pods (``kubectl get pods -A`` dump): per node, the requests of pods not Succeeded/Failed against the committed
allocatable the repo gives the node, and their count against its maxPods; with a base revision, which nodes the
change pushes over. Cost: O(nodes + pods), a few recomputations per differing resource.
"""

from __future__ import annotations

import json
from dataclasses import replace
from decimal import Decimal

from renderer.capacity.koordinator import AMPLIFIED, ratio, skip_reason
from renderer.capacity.model import RESOURCES, CapacityModel, PoolCapacity
from renderer.models.inventory import Pool
from renderer.models.node import AMPLIFICATION_RATIO_ANNOTATION, RAW_ALLOCATABLE_ANNOTATION
from renderer.models.settings import Settings
from renderer.quantity import Quantity, QuantityError
from renderer.resourcenames import is_extended
from renderer.validation.validate import PolicySet
from renderer.verify import causes
from renderer.verify.pods import PodRecord
from renderer.verify.result import Check, Difference, NodeCheck, PodFit, VerifyResult
from renderer.verify.shapes import node_capacity_model

__all__ = ["AWAITING", "KOORDINATOR", "MISSING", "amplify", "delivered_ratios", "node_model", "verify"]

_ZERO = Quantity.parse("0")
#: The named causes of differences no cause function explains (``Difference.cause``).
MISSING = "missing"  # the node or the repo has no figure for the resource
KOORDINATOR = "koordinator"  # an amplified resource (Koordinator's ratio, raw-allocatable)
AWAITING = "awaiting-rollout"  # with a base: the node matches the base's prediction (the change is not rolled out)
_WEBHOOK = "koord-manager's node webhook (feature gate NodeMutatingWebhook, off by default)"


def node_model(policies: PolicySet, extra: list[Pool]) -> CapacityModel:
    """The capacity model of the repo's inventory Nodes plus ``extra`` (same name: ``extra`` wins), computed once
    per node shape (``renderer.verify.shapes``)."""
    names = {p.name for p in extra}
    pools = [p for p in policies.pools if p.origin == "Node" and p.name not in names] + list(extra)
    return node_capacity_model(replace(policies, pools=pools))


def delivered_ratios(pc: PoolCapacity, settings: Settings) -> dict[str, Decimal]:
    """The Koordinator amplification ratios the repo delivers to this node (empty when it delivers none)."""
    cc = pc.commit_class
    if cc is None or not settings.render.koordinator or skip_reason(cc.model) is not None:
        return {}
    pct = cc.model.percents()
    return {r: ratio(pct[r]) for r in AMPLIFIED if ratio(pct[r]) > 1}


def amplify(q: Quantity, factor: Decimal) -> Quantity:
    """raw × ratio as Koordinator writes it: ``NewMilliQuantity(int64(float64(q.MilliValue()) * ratio))``."""
    milli = int(float(q.milli_value()) * float(factor))
    return Quantity.from_value(Decimal(milli) / 1000, q.format)


def _annotation_map(pool: Pool, key: str) -> dict[str, str] | None:
    text = pool.annotations.get(key)
    if text is None:
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else None


def _kubelet_prediction(pc: PoolCapacity) -> dict[str, Quantity]:
    out = {r: pc.allocatable[r] for r in RESOURCES if r in pc.allocatable}
    out["pods"] = Quantity.from_value(pc.max_pods)
    for k, v in pc.capacity.items():
        if k.startswith("hugepages-"):
            out[k] = v
        elif is_extended(k):  # nothing reserved: the device plugin's healthy devices (capacity when all are)
            out[k] = pc.allocatable[k]
    return out


def _situation(
    pc: PoolCapacity, r: str, predicted: Quantity, reported: Quantity, model: CapacityModel
) -> causes.Situation:
    return causes.Situation(pc, r, predicted, reported, model.policies.settings, model.under_commit_scales_reserved)


def _missing(pc: PoolCapacity, r: str) -> str:
    """What the node lacks when it reports no ``r``: its whole status.allocatable, or this one resource."""
    if not pc.pool.reported:
        return "the node has no status.allocatable (a dump without status, or a Node not registered yet)"
    return f"the node's status.allocatable has no {r}"


def _plain_differences(
    pc: PoolCapacity,
    model: CapacityModel,
    predicted: dict[str, Quantity],
    reported: dict[str, Quantity],
    keys: list[str],
) -> list[Difference]:
    out = []
    for r in keys:
        p, g = predicted.get(r), reported.get(r)
        if p is not None and g is not None and p == g:
            continue
        if p is None or g is None:
            why = _missing(pc, r) if g is None else "the repo predicts nothing for it"
            out.append(Difference(r, p, g, why, MISSING))
            continue
        cause, text = causes.explain_named(_situation(pc, r, p, g, model))
        out.append(Difference(r, p, g, text, cause))
    return out


def check_node(pc: PoolCapacity, model: CapacityModel) -> NodeCheck:
    pool = pc.pool
    settings = model.policies.settings
    kubelet = _kubelet_prediction(pc)
    reported = dict(pool.reported)
    # Resources the node has (capacity) or reports; a dump trimmed of pods compares no pods.
    keys = sorted((set(kubelet) | set(reported)) & (set(pc.capacity) | set(reported)))
    ratios = delivered_ratios(pc, settings)
    node_ratios = _annotation_map(pool, AMPLIFICATION_RATIO_ANNOTATION)
    raw_text = _annotation_map(pool, RAW_ALLOCATABLE_ANNOTATION)
    notes: list[str] = []

    raw_check: Check | None = None
    raw: dict[str, Quantity] = {}
    if raw_text is not None:
        for k, v in raw_text.items():
            try:
                raw[k] = Quantity.parse(v)
            except QuantityError:
                notes.append(f"{RAW_ALLOCATABLE_ANNOTATION} has an unreadable {k}: {v!r}")
        raw_keys = sorted(k for k in raw if k in kubelet)
        raw_check = Check(
            {k: kubelet[k] for k in raw_keys},
            {k: raw[k] for k in raw_keys},
            _plain_differences(pc, model, kubelet, raw, raw_keys),
        )

    predicted = dict(kubelet)
    for r, factor in ratios.items():
        if r in predicted:
            predicted[r] = amplify(predicted[r], factor)
    plain_keys = [k for k in keys if k not in ratios and not (raw_text is not None and k in AMPLIFIED)]
    differences = _plain_differences(pc, model, predicted, reported, plain_keys)
    for r in keys:
        if r in plain_keys:
            continue
        p, g = predicted.get(r), reported.get(r)
        if p is not None and g is not None and p == g:
            continue
        differences.append(
            Difference(r, p, g, _koordinator_explanation(pc, r, p, g, kubelet, raw, ratios, node_ratios), KOORDINATOR)
        )
    differences.sort(key=lambda d: keys.index(d.resource))
    notes.extend(pc.notes)
    return NodeCheck(
        name=pool.name,
        platform=pool.platform,
        source=pool.source,
        check=Check(
            {k: predicted[k] for k in keys if k in predicted},
            {k: reported[k] for k in keys if k in reported},
            differences,
        ),
        raw=raw_check,
        notes=notes,
    )


def _koordinator_explanation(
    pc: PoolCapacity,
    r: str,
    predicted: Quantity | None,
    reported: Quantity | None,
    kubelet: dict[str, Quantity],
    raw: dict[str, Quantity],
    ratios: dict[str, Decimal],
    node_ratios: dict[str, str] | None,
) -> str:
    if predicted is None or reported is None:
        return _missing(pc, r) if reported is None else "the repo predicts nothing for it"
    lead = causes.delta_words(r, reported - predicted)
    ours = ratios.get(r)
    cls = pc.commit_class.ref if pc.commit_class else "no CommitClass"
    theirs: Decimal | None = None
    if node_ratios and r in node_ratios:
        try:
            theirs = Decimal(node_ratios[r])
        except ArithmeticError:
            theirs = None
    if ours is not None and not raw:
        if reported == kubelet.get(r):
            return (
                f"{lead}: the node reports its kubelet allocatable, so the amplification ×{ours} of {cls} has not "
                f"reached it: {_WEBHOOK} must be on, and manifests/koordinator.yaml applied"
            )
        return f"{lead}: the node has no {RAW_ALLOCATABLE_ANNOTATION}, so Koordinator has not amplified it"
    base = raw.get(r, kubelet.get(r))
    if base is not None and theirs is not None and theirs != ours and theirs > 1 and amplify(base, theirs) == reported:
        want = f"×{ours} ({cls})" if ours is not None else f"no amplification ({cls})"
        return f"{lead}: Koordinator amplifies with the node's ratio ×{theirs}, the repo delivers {want}: manifests/koordinator.yaml not applied, or another nodeConfigs entry matches first?"
    if ours is not None and r in raw and raw[r] != kubelet.get(r) and amplify(raw[r], ours) == reported:
        return f"{lead}: it is ×{ours} of the node's raw allocatable, which itself differs from the prediction (see rawAllocatable)"
    if ours is None and raw and reported != raw.get(r):
        return f"{lead}: Koordinator amplifies this node ({AMPLIFICATION_RATIO_ANNOTATION}: {node_ratios}), but the repo delivers no amplification to it ({cls})"
    return f"{lead}: no known cause reproduces it (Koordinator ratio ×{ours if ours is not None else 1}, node annotation {node_ratios})"


def _fit(pc: PoolCapacity, requested: dict[str, Quantity], count: int) -> tuple[dict[str, Quantity], list[str]]:
    allocatable = {r: pc.committed[r] for r in RESOURCES if r in pc.committed}
    for k, v in pc.capacity.items():
        if k.startswith("hugepages-"):
            allocatable[k] = v
        elif is_extended(k):
            allocatable[k] = pc.committed[k]
    over = [r for r, q in sorted(requested.items()) if r in allocatable and q > allocatable[r]]
    if count > pc.max_pods:
        over.append("pods")
    return allocatable, over


def check_pods(
    model: CapacityModel, pods: list[PodRecord], base: CapacityModel | None
) -> tuple[list[PodFit], list[str]]:
    by_node: dict[str, list[PodRecord]] = {}
    for p in pods:
        if p.holds_resources and p.node is not None:
            by_node.setdefault(p.node, []).append(p)
    known = {pc.pool.name: pc for pc in model.pools}
    base_known = {pc.pool.name: pc for pc in base.pools} if base is not None else {}
    fits: list[PodFit] = []
    for name in sorted(known):
        pc = known[name]
        running = by_node.get(name, [])
        requested: dict[str, Quantity] = {}
        for p in running:
            for r, q in p.requests.items():
                requested[r] = requested[r] + q if r in requested else q
        allocatable, over = _fit(pc, requested, len(running))
        fit = PodFit(name, requested, allocatable, len(running), pc.max_pods, over)
        if name in base_known:
            b_alloc, b_over = _fit(base_known[name], requested, len(running))
            fit.base_allocatable, fit.base_max_pods, fit.base_over = b_alloc, base_known[name].max_pods, b_over
        fits.append(fit)
    notes = []
    unknown = sorted(set(by_node) - set(known))
    if unknown:
        n = sum(len(by_node[u]) for u in unknown)
        notes.append(
            f"{n} pod{'s' if n != 1 else ''} on {len(unknown)} node{'s' if len(unknown) != 1 else ''} not in the "
            f"inventory or --nodes were not checked ({', '.join(unknown[:3])}{', ...' if len(unknown) > 3 else ''})"
        )
    return fits, notes


def verify(
    policies: PolicySet,
    snapshot: list[Pool],
    pods: list[PodRecord] | None = None,
    base: PolicySet | None = None,
    base_ref: str | None = None,
) -> VerifyResult:
    model = node_model(policies, snapshot)
    nodes = _check_nodes(model)
    result = VerifyResult(nodes, base_ref=base_ref, model=model)
    base_model = node_model(replace(base, pools=[]), [pc.pool for pc in model.pools]) if base is not None else None
    if base_model is not None:
        _awaiting(nodes, base_model, base_ref or "the base revision")
    if pods is not None:
        result.pods, result.notes = check_pods(model, pods, base_model)
    return result


def _check_key(pc: PoolCapacity) -> tuple[object, ...] | None:
    """Everything :func:`check_node` reads of a pool of one, for a node without Koordinator's annotations (None:
    one with them). The maps are compared by identity: ``build`` makes equal maps of one model one object."""
    pool = pc.pool
    if AMPLIFICATION_RATIO_ANNOTATION in pool.annotations or RAW_ALLOCATABLE_ANNOTATION in pool.annotations:
        return None
    return (
        id(pc.allocatable),
        id(pc.capacity),
        pc.max_pods,
        tuple(map(id, pc.commit_classes)),
        tuple(pc.notes),
        tuple((k, str(q)) for k, q in pool.reported.items()),
    )


def _check_nodes(model: CapacityModel) -> list[NodeCheck]:
    """:func:`check_node` of every pool. A node that matches is checked once per what the check reads (its
    figures, its report): the nodes of one node group that match share it under their own names. Measured
    (bench/serve.py, 2026-12-06): about a tenth of a 20,000-node serve cycle's CPU was this check, node by node.
    A node that differs is always checked on its own (the explanations may name it)."""
    matched: dict[tuple[object, ...], NodeCheck] = {}
    out = []
    for pc in model.pools:
        key = _check_key(pc)
        seen = matched.get(key) if key is not None else None
        if seen is not None:
            pool = pc.pool
            out.append(
                NodeCheck(pool.name, pool.platform, pool.source, Check(seen.check.predicted, seen.check.reported, []))
            )
            out[-1].notes = list(seen.notes)
            continue
        checked = check_node(pc, model)
        if key is not None and checked.match:
            matched[key] = checked
        out.append(checked)
    return out


def _awaiting(nodes: list[NodeCheck], base_model: CapacityModel, base_ref: str) -> None:
    """Mark the differing nodes whose report matches the base revision's prediction exactly: the difference is the
    change under review, not rolled out yet — the cause of each of their differences. Cost: one check per differing
    node."""
    at_base = {pc.pool.name: pc for pc in base_model.pools}
    for n in nodes:
        pc = at_base.get(n.name)
        if n.match or pc is None or not check_node(pc, base_model).match:
            continue
        n.at_base = True
        cause = (
            f"the node matches the prediction at {base_ref}: the change under review moves it, and has not reached "
            "it yet (it will when rolled out)"
        )
        for check in (n.check, n.raw):
            if check is not None:
                check.differences = [replace(d, explanation=cause, cause=AWAITING) for d in check.differences]
