"""``karpenter/<ec2NodeClass>.yaml``: the kubelet block of a Karpenter EC2NodeClass (``karpenter.k8s.aws/v1``).

One partial EC2NodeClass per class that NodePools name in ``spec.delivery.karpenter.ec2NodeClass``, holding only
``spec.kubelet``: the class itself (AMI, subnets, role, ...) stays the user's. It is applied on top of that class
either by server-side apply (Argo CD: ``ServerSideApply=true``, the annotation it carries; ``kubectl apply
--server-side``) or as a kustomize patch (``karpenter/kustomization.yaml`` is a Component to include next to the
user's class). See docs/karpenter.md.

What goes in: explicit reservations as quantities; evictionHard/evictionSoft/grace periods, maxPods and podsPerCore
as the policy says; a formula's values

- as CEL expressions Karpenter evaluates per instance type, when ``render.karpenter.expressions`` is on and the
  formula has a CEL form (renderer/capacity/karpenter.py; Karpenter needs its ``NodeClassCEL`` feature gate);
- otherwise as the values computed for the pools, which all pools of the class must share (AL808 when they do not);
  formula ``eks`` without maxPods/podsPerCore is Karpenter's own default and is left out instead.

Pools of one class that would render different blocks are refused (AL807). Fields outside Karpenter v1's typed
kubelet block are left out with a warning unless ``render.karpenter.kubeletPassthrough`` is on (AL809).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from renderer.capacity.karpenter import NotExpressible, TooLarge, cel_form, not_expressible
from renderer.capacity.kubeletfields import RESERVED_ORDER, eviction_hard, plain
from renderer.render.codes import FieldNotDeliverable, NotRenderable
from renderer.render.delivered import PoolConfig, agree, delivered_pools, group
from renderer.render.nodeadm_defaults import report_kept_defaults
from renderer.render.target import Output, RenderContext, Target, register

if TYPE_CHECKING:
    from renderer.capacity.formulas import Formula
    from renderer.capacity.model import PoolCapacity, Reserved

API_VERSION = "karpenter.k8s.aws/v1"
KIND = "EC2NodeClass"
SYNC_OPTIONS = "ServerSideApply=true,Prune=false,Delete=false"

# Karpenter v1's typed kubelet fields (EC2NodeClass.spec.kubelet in every v1 release so far); newer releases pass any
# KubeletConfiguration field through on AL2023 (render.karpenter.kubeletPassthrough).
TYPED_FIELDS = frozenset(
    {
        "clusterDNS",
        "maxPods",
        "podsPerCore",
        "systemReserved",
        "kubeReserved",
        "evictionHard",
        "evictionSoft",
        "evictionSoftGracePeriod",
        "evictionMaxPodGracePeriod",
        "imageGCHighThresholdPercent",
        "imageGCLowThresholdPercent",
        "cpuCFSQuota",
    }
)
# The eviction signals the v1 CRD accepts (a CEL rule on evictionHard/evictionSoft/evictionSoftGracePeriod).
EVICTION_SIGNALS = (
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "pid.available",
)
# A threshold is a percentage with at most two decimals (up to 100%) or a quantity (the v1 CRD's value pattern).
_PERCENT = re.compile(r"^(\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%$")
_SPEC_FIELDS = ("evictionSoft", "evictionSoftGracePeriod", "maxPods", "podsPerCore")
_OTHER_SPEC_FIELDS = (
    "enforceNodeAllocatable",
    "systemReservedCgroup",
    "kubeReservedCgroup",
    "reservedSystemCPUs",
    "cgroupDriver",
    "cgroupsPerQOS",
    "podPidsLimit",
)


def default_note(formula: str) -> str:
    return (
        f"kubeReserved is left to Karpenter: formula {formula} is Karpenter's own default (cpu 6/1/0.5/0.25 % tiers, "
        "memory 11 MiB x ENI-limited max pods + 255 MiB, ephemeral-storage 1Gi)"
    )


def _ordered(values: dict[str, Reserved]) -> list[str]:
    return sorted(values, key=lambda k: (RESERVED_ORDER.index(k) if k in RESERVED_ORDER else 99, k))


class _Pool:
    """The kubelet block one pool would give its EC2NodeClass."""

    def __init__(self, ctx: RenderContext, pc: PoolCapacity) -> None:
        self.ctx = ctx
        self.pc = pc
        self.sized: dict[str, str] = {}
        self.eks_default: str | None = None  # the formula left to Karpenter, when it is Karpenter's own default
        self.kubelet = self._kubelet()

    def _reserved(self, part: str, values: dict[str, Reserved], formula: Formula | None) -> dict[str, str]:
        expressions = self.ctx.settings.karpenter.expressions
        form = None
        if formula is not None and expressions:
            try:
                form = cel_form(formula)
                too_large = {k: form.missing[k] for k in form.too_large}
            except TooLarge as exc:
                form, too_large = None, exc.which
            except NotExpressible:
                form, too_large = None, {}
            for (where, key), why in too_large.items():
                if where == part:
                    self._refuse_expression(part, key, why)
        spec = self.pc.policy.model.spec if self.pc.policy else None
        pods_set = spec is not None and (spec.maxPods is not None or spec.podsPerCore is not None)
        out: dict[str, str] = {}
        for key in _ordered(values):
            r = values[key]
            if r.source.startswith("formula:") and formula is not None:
                if form is not None and key in form.parts.get(part, {}):
                    out[key] = form.parts[part][key]
                    continue
                if (
                    formula.delivery_default == "karpenter"
                    and part == "kubeReserved"
                    and not expressions
                    and not pods_set
                ):
                    self.eks_default = formula.name
                    continue
                self.sized[f"{part}.{key}"] = formula.name
            out[key] = str(r.quantity)
        return out

    def _refuse_expression(self, part: str, key: str, why: str) -> None:
        """A formula value whose CEL form would leave int64: the node would get no kubelet configuration at all."""
        policy = self.pc.policy
        assert policy is not None
        auto = policy.model.spec.autoSizing
        custom = auto is not None and auto.custom is not None
        self.ctx.report(
            FieldNotDeliverable,
            f"{part}.{why} (EC2NodeClass {self.class_name}: Karpenter would fail to evaluate it and launch nothing)",
            policy.source,
            policy.ref,
            ("spec", "autoSizing", "custom", part, key) if custom else ("spec", "autoSizing"),
            hint="change the formula as the message says, or turn off render.karpenter.expressions for this class",
        )

    def _kubelet(self) -> dict[str, Any]:
        pc, ctx = self.pc, self.ctx
        policy = pc.policy
        assert policy is not None
        spec = policy.model.spec
        formula = pc.formula.spec if pc.formula is not None else None
        fields: dict[str, Any] = {}
        for part, values in (("systemReserved", pc.system_reserved), ("kubeReserved", pc.kube_reserved)):
            rendered = self._reserved(part, values, formula)
            if rendered:
                fields[part] = rendered
        eh = eviction_hard(pc, platform_formula_ok=True)
        if eh is not None:
            fields["evictionHard"] = eh
        for name in _SPEC_FIELDS:
            value = getattr(spec, name)
            if value is not None:
                fields[name] = dict(sorted(value.items())) if isinstance(value, dict) else value
        left_out: list[str] = []
        passthrough = ctx.settings.karpenter.kubeletPassthrough
        for name in _OTHER_SPEC_FIELDS:
            value = getattr(spec, name)
            if value is None:
                continue
            if passthrough:
                fields[name] = list(value) if isinstance(value, list) else value
            else:
                left_out.append(name)
        problem = ctx.reporter(NotRenderable, policy.source, policy.ref)
        for name, value in (spec.kubelet or {}).items():
            if name in TYPED_FIELDS or passthrough:
                fields[name] = plain(value, ("spec", "kubelet", name), problem)
            else:
                left_out.append(f"kubelet.{name}")
        if left_out:
            ctx.report(
                FieldNotDeliverable,
                f"{', '.join(left_out)} left out of EC2NodeClass {self.class_name}: Karpenter v1's kubelet block has "
                "no such field",
                policy.source,
                policy.ref,
                ("spec",),
                hint="set render.karpenter.kubeletPassthrough if your Karpenter passes them through (AL2023), or use "
                "the class's userData",
                severity="warning",
            )
        self._check_eviction(fields)
        return dict(sorted(fields.items()))

    @property
    def class_name(self) -> str:
        delivery = self.pc.pool.delivery
        assert delivery is not None and delivery.karpenter is not None
        return delivery.karpenter.ec2NodeClass

    def _check_eviction(self, fields: dict[str, Any]) -> None:
        policy = self.pc.policy
        assert policy is not None
        for name in ("evictionHard", "evictionSoft", "evictionSoftGracePeriod"):
            for signal, value in (fields.get(name) or {}).items():
                if signal not in EVICTION_SIGNALS:
                    reason = f"signal {signal} is not one Karpenter accepts ({', '.join(EVICTION_SIGNALS)})"
                elif name != "evictionSoftGracePeriod" and str(value).endswith("%") and not _PERCENT.match(value):
                    reason = f"{value} has more than two decimals, which Karpenter's EC2NodeClass rejects"
                else:
                    continue
                self.ctx.report(
                    FieldNotDeliverable,
                    f"{name}: {reason} (EC2NodeClass {self.class_name})",
                    policy.source,
                    policy.ref,
                    ("spec", name, signal),
                    hint="use another signal or value for Karpenter pools",
                )


@register
class KarpenterTarget(Target):
    name = "karpenter"
    summary = "EC2NodeClass kubelet blocks for pools delivered through Karpenter (karpenter/<ec2NodeClass>.yaml)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        pools = delivered_pools(ctx, "karpenter")
        if not pools:
            return []
        outputs: list[Output] = []
        patches: list[dict[str, Any]] = []
        for name, members in group(pools, _class_name).items():
            configs: list[PoolConfig] = []
            notes: set[str] = set()
            for pc in members:
                if pc.policy is None:
                    configs.append(PoolConfig(pc, None))
                    continue
                built = _Pool(ctx, pc)
                configs.append(PoolConfig(pc, built.kubelet, built.sized))
                if built.eks_default:
                    notes.add(default_note(built.eks_default))
                report_kept_defaults(
                    ctx, pc, built.kubelet, f"EC2NodeClass {name}", kube_reserved_default=bool(built.eks_default)
                )
            if all(c.content is None for c in configs):
                continue
            shared = f"EC2NodeClass {name}"
            if not agree(
                ctx,
                shared,
                configs,
                sized_hint=_sized_hint(configs),
                hint="one ReservationPolicy per EC2NodeClass, or separate EC2NodeClasses",
            ):
                continue
            kubelet = configs[0].content
            doc = {
                "apiVersion": API_VERSION,
                "kind": KIND,
                "metadata": {"name": name, "annotations": {"argocd.argoproj.io/sync-options": SYNC_OPTIONS}},
                "spec": {"kubelet": kubelet},
            }
            sources: dict[str, None] = {}
            for c in configs:
                sources.setdefault(ctx.pool_source(c.pc), None)
                if c.pc.policy is not None:
                    sources.setdefault(ctx.source(c.pc.policy.source, c.pc.policy.ref), None)
            header = [
                f"partial EC2NodeClass: only spec.kubelet, applied onto your class {name} by server-side apply or as "
                "the kustomize patch in karpenter/kustomization.yaml (docs/karpenter.md)",
                f"pools: {', '.join(c.pc.pool.name for c in configs)}",
                *sorted(notes),
            ]
            path = f"karpenter/{name}.yaml"
            outputs.append(Output(path=path, documents=(doc,), sources=tuple(sorted(sources)), notes=tuple(header)))
            patches.append(
                {"path": f"{name}.yaml", "target": {"group": "karpenter.k8s.aws", "kind": KIND, "name": name}}
            )
        if patches:
            component = {
                "apiVersion": "kustomize.config.k8s.io/v1alpha1",
                "kind": "Component",
                "patches": patches,
            }
            outputs.append(
                Output(
                    path="karpenter/kustomization.yaml",
                    documents=(component,),
                    cluster=False,
                    notes=("kustomize Component: include it next to your EC2NodeClasses to patch their spec.kubelet",),
                )
            )
        return outputs


def _class_name(pc: PoolCapacity) -> str:
    delivery = pc.pool.delivery
    assert delivery is not None and delivery.karpenter is not None
    return delivery.karpenter.ec2NodeClass


def _sized_hint(configs: list[PoolConfig]) -> str:
    """How to deliver a formula whose values differ between the pools of one class."""
    formulas = {
        c.pc.formula.spec.name: c.pc.formula.spec
        for c in configs
        if c.sized and c.pc.formula is not None and c.pc.formula.spec is not None
    }
    for name in sorted(formulas):
        reason = not_expressible(formulas[name])
        if reason is not None:
            return f"formula {name} has no CEL form ({reason}): one EC2NodeClass per instance size, or explicit values"
    return (
        "set render.karpenter.expressions (Karpenter evaluates the formula per instance type), or separate "
        "EC2NodeClasses"
    )
