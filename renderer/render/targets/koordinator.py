"""``manifests/koordinator.yaml``: Koordinator resource amplification for the over-commit CommitClasses.

Koordinator's slo-controller (koord-manager) sets the node annotation ``node.koordinator.sh/resource-amplification-
ratio`` itself, from the ``resource-amplification-config`` key of its ConfigMap ``slo-controller-config``:
``nodeConfigs[]`` entries with a label selector (``nodeSelector``, a metav1.LabelSelector) and ratios per resource,
the first matching entry winning. That is pool-level and follows nodes the autoscaler adds, so this target renders
that key (one entry per CommitClass selector term) instead of annotating nodes one by one; the slo-controller's
ResourceAmplification plugin manages the node annotation and would overwrite hand-set values anyway.

The object is a *partial* ConfigMap holding only that key, marked for server-side apply: Koordinator's own keys in
the same ConfigMap (colocation-config, ...) stay with whoever manages them (usually its Helm release), and Argo CD
never prunes or deletes the shared ConfigMap.

A class is delivered when its cpu and memory percents are all at least 100 and one is above (Koordinator rejects
ratios below 1, and amplifies cpu and memory only); a class that would advertise less than it allows for any
resource is left out, and the header says why. Each pool's CommitClass in effect is recorded in the annotation
``allocatable.dev/commit-classes``.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from renderer.capacity.koordinator import AMPLIFIED, ratio, skip_reason
from renderer.render.codes import SelectorNotExpressible
from renderer.render.target import Output, RenderContext, Target, register
from renderer.render.yamlout import Literal

if TYPE_CHECKING:
    from renderer.models.common import NodeSelectorTerm

CONFIG_KEY = "resource-amplification-config"
RATIO_ANNOTATION = "node.koordinator.sh/resource-amplification-ratio"
SYNC_OPTIONS = "ServerSideApply=true,Prune=false,Delete=false"
COMMIT_CLASSES_ANNOTATION = "allocatable.dev/commit-classes"


def label_selector(term: NodeSelectorTerm) -> tuple[dict[str, Any] | None, str | None]:
    """(selector, None), or (None, reason) when the term has no label-selector form; (None, None) for an empty term."""
    if term.matchFields:
        return None, "matchFields (node names) has no label-selector form"
    exprs: list[dict[str, Any]] = []
    for e in term.matchExpressions or []:
        if e.operator in ("Gt", "Lt"):
            return None, f"operator {e.operator} (on {e.key}) has no label-selector form"
        expr: dict[str, Any] = {"key": e.key, "operator": e.operator}
        if e.values:
            expr["values"] = sorted(set(e.values))
        exprs.append(expr)
    if not exprs:
        return None, None  # an empty node selector term matches no node; an empty label selector would match all
    return {"matchExpressions": exprs}, None


def to_json(value: Any, indent: int = 0) -> str:
    """JSON text with 2-space indentation; Decimals are written exactly (1.50 stays 1.50)."""
    pad, inner = "  " * indent, "  " * (indent + 1)
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{inner}{json.dumps(k)}: {to_json(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + f"\n{pad}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(f"{inner}{to_json(v, indent + 1)}" for v in value) + f"\n{pad}]"
    if isinstance(value, Decimal):
        return format(value, "f")
    return json.dumps(value, ensure_ascii=False)


@register
class KoordinatorTarget(Target):
    name = "koordinator"
    summary = "Koordinator resource-amplification-config for over-commit classes (manifests/koordinator.yaml)"

    def render(self, ctx: RenderContext) -> list[Output]:
        if not ctx.load.policies.commit_classes:
            return []  # nothing to say to Koordinator (and maybe no Koordinator at all)
        node_configs: list[dict[str, Any]] = []
        notes: list[str] = []
        sources: list[str] = []
        for loaded in sorted(ctx.load.policies.commit_classes, key=lambda c: c.name):
            cc = loaded.model
            skip = skip_reason(cc)
            if skip is not None:
                notes.append(f"CommitClass {cc.metadata.name} is not delivered: {skip}")
                continue
            pct = cc.percents()
            if pct["ephemeral-storage"] != 100:
                notes.append(
                    f"CommitClass {cc.metadata.name}: ephemeral-storage {pct['ephemeral-storage']}% is not delivered "
                    "(Koordinator amplifies cpu and memory only)"
                )
            ratios = {r: ratio(pct[r]) for r in AMPLIFIED}
            entries: list[dict[str, Any]] = []
            failed = False
            for i, term in enumerate(cc.spec.selector):
                selector, reason = label_selector(term)
                if reason is not None:
                    failed = True
                    ctx.report(
                        SelectorNotExpressible,
                        f"selector term {i + 1} uses {reason}, which Koordinator's label selectors cannot express",
                        loaded.source,
                        loaded.ref,
                        ("spec", "selector", i),
                        hint="select by In, NotIn, Exists or DoesNotExist, or set render.koordinator: false",
                    )
                    continue
                if selector is None:
                    continue
                name = cc.metadata.name if len(cc.spec.selector) == 1 else f"{cc.metadata.name}/term-{i + 1}"
                entries.append(
                    {"name": name, "nodeSelector": selector, "enable": True, "resourceAmplificationRatio": ratios}
                )
            if failed:
                continue
            node_configs.extend(entries)
            sources.append(ctx.source(loaded.source, loaded.ref))

        in_effect = {pc.pool.name: pc.commit_class.name for pc in ctx.model.pools if pc.commit_class is not None}
        config = {"enable": False, "nodeConfigs": node_configs}
        settings = ctx.settings_source()
        if settings is not None:
            sources.append(settings)
        doc = {
            "apiVersion": "v1",
            "kind": "ConfigMap",
            "metadata": {
                "name": ctx.settings.koordinatorConfigMap,
                "namespace": ctx.settings.koordinatorNamespace,
                "annotations": {
                    "argocd.argoproj.io/sync-options": SYNC_OPTIONS,
                    COMMIT_CLASSES_ANNOTATION: json.dumps(dict(sorted(in_effect.items())), separators=(",", ":")),
                },
            },
            "data": {CONFIG_KEY: Literal(to_json(config) + "\n")},
        }
        notes.insert(
            0,
            f"partial ConfigMap: only data.{CONFIG_KEY} is managed here (server-side apply); Koordinator's "
            f"slo-controller sets {RATIO_ANNOTATION} on matching nodes",
        )
        # The annotation alone changes nothing the scheduler sees: koord-manager's node mutating webhook rewrites
        # status.allocatable from it, and that webhook is behind the feature gate NodeMutatingWebhook, alpha and
        # off by default (koordinator-sh/koordinator@a7a1b76b:pkg/features/features.go).
        notes.insert(
            1,
            "status.allocatable is amplified only by koord-manager's node mutating webhook: turn on its feature gate "
            "NodeMutatingWebhook (alpha, off by default), e.g. --feature-gates=NodeMutatingWebhook=true",
        )
        return [Output(path="manifests/koordinator.yaml", documents=(doc,), sources=tuple(sources), notes=tuple(notes))]
