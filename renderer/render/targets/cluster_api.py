"""``cluster-api/<namespace>/<kubeadmConfigTemplate>.yaml``: kubelet flags for a Cluster API
``KubeadmConfigTemplate`` (``bootstrap.cluster.x-k8s.io/v1beta2``), and ``cluster-api/kustomization.yaml``, a
kustomize Component that applies them to the template the user already has and rolls them out.

How Cluster API treats a template change (kubernetes-sigs/cluster-api, docs/book/src/tasks/updating-machine-
templates.md): bootstrap templates are to be treated as immutable; editing one in place does not touch existing
Machines, only Machines created later; a rollout happens when the MachineDeployment's
``spec.template.spec.bootstrap.configRef.name`` points to a template with a new name. So what this target renders
rolls out by itself:

- the template carries only ``joinConfiguration.nodeRegistration.kubeletExtraArgs`` (a list of ``{name, value}`` in
  v1beta2, kubelet flag syntax: ``kube-reserved`` = ``cpu=110m,memory=893Mi``, ``eviction-hard`` =
  ``memory.available<100Mi``, ...), and is named ``<kubeadmConfigTemplate>-<hash>``, the hash taken from those
  arguments: a change in the policy is a new name;
- the Component patches the user's template ``<kubeadmConfigTemplate>`` with these arguments (merged by flag name
  into the arguments it already has, through a small OpenAPI schema for the list) and renames it, and re-points every
  MachineDeployment named in ``delivery.clusterAPI.machineDeployments`` to the new name, which makes Cluster API
  roll their Machines;
- the template is marked ``Prune=false`` for Argo CD, so the previous template stays while old MachineSets still
  refer to it.

Without MachineDeployments the template keeps its name (nothing rolls; AL811 says so). All pools of one template
must agree (AL807/AL808); a field without a kubelet flag stops the render (AL809). See docs/cluster-api.md.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from renderer.capacity.kubeletfields import kubelet_fields
from renderer.models.kubelet_elements import JOINED, separator_problems
from renderer.models.nodepool import TEMPLATE_HASH_LENGTH
from renderer.models.record import field_names
from renderer.models.reservationpolicy import ReservationPolicySpec
from renderer.render.codes import FieldNotDeliverable, NotRenderable, RolloutNotTriggered
from renderer.render.delivered import PoolConfig, agree, delivered_pools, group
from renderer.render.target import Output, RenderContext, Target, register

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity
    from renderer.models.nodepool import ClusterAPIDelivery

API_VERSION = "bootstrap.cluster.x-k8s.io/v1beta2"
KIND = "KubeadmConfigTemplate"
MD_GROUP = "cluster.x-k8s.io"
MD_API_VERSION = f"{MD_GROUP}/v1beta2"
SCHEMA_FILE = "kubeletextraargs-openapi.yaml"

# KubeletConfiguration field -> kubelet flag. How a value is written comes from the one table of joined fields
# (renderer.models.kubelet_elements.JOINED: "=" k=v,k=v; "<" signal<threshold,...; "list" a,b); every other field
# is a scalar (booleans as true/false).
FLAG_NAMES: dict[str, str] = {
    "systemReserved": "system-reserved",
    "kubeReserved": "kube-reserved",
    "evictionHard": "eviction-hard",
    "evictionSoft": "eviction-soft",
    "evictionSoftGracePeriod": "eviction-soft-grace-period",
    "evictionMinimumReclaim": "eviction-minimum-reclaim",
    "evictionPressureTransitionPeriod": "eviction-pressure-transition-period",
    "evictionMaxPodGracePeriod": "eviction-max-pod-grace-period",
    "enforceNodeAllocatable": "enforce-node-allocatable",
    "systemReservedCgroup": "system-reserved-cgroup",
    "kubeReservedCgroup": "kube-reserved-cgroup",
    "reservedSystemCPUs": "reserved-cpus",
    "cgroupDriver": "cgroup-driver",
    "cgroupsPerQOS": "cgroups-per-qos",
    "cgroupRoot": "cgroup-root",
    "maxPods": "max-pods",
    "podsPerCore": "pods-per-core",
    "podPidsLimit": "pod-max-pids",
    "imageGCHighThresholdPercent": "image-gc-high-threshold",
    "imageGCLowThresholdPercent": "image-gc-low-threshold",
    "imageMinimumGCAge": "minimum-image-ttl-duration",
    "cpuCFSQuota": "cpu-cfs-quota",
    "cpuCFSQuotaPeriod": "cpu-cfs-quota-period",
    "cpuManagerPolicy": "cpu-manager-policy",
    "cpuManagerReconcilePeriod": "cpu-manager-reconcile-period",
    "topologyManagerPolicy": "topology-manager-policy",
    "topologyManagerScope": "topology-manager-scope",
    "memoryManagerPolicy": "memory-manager-policy",
    "qosReserved": "qos-reserved",
    "featureGates": "feature-gates",
    "clusterDNS": "cluster-dns",
    "clusterDomain": "cluster-domain",
    "containerLogMaxSize": "container-log-max-size",
    "containerLogMaxFiles": "container-log-max-files",
    "serializeImagePulls": "serialize-image-pulls",
    "registryPullQPS": "registry-qps",
    "registryBurst": "registry-burst",
    "eventRecordQPS": "event-qps",
    "eventBurst": "event-burst",
    "kubeAPIQPS": "kube-api-qps",
    "kubeAPIBurst": "kube-api-burst",
    "maxOpenFiles": "max-open-files",
    "protectKernelDefaults": "protect-kernel-defaults",
    "allowedUnsafeSysctls": "allowed-unsafe-sysctls",
    "nodeStatusUpdateFrequency": "node-status-update-frequency",
    "runtimeRequestTimeout": "runtime-request-timeout",
    "volumeStatsAggPeriod": "volume-stats-agg-period",
    "kubeletCgroups": "kubelet-cgroups",
    "systemCgroups": "system-cgroups",
    "hairpinMode": "hairpin-mode",
    "oomScoreAdj": "oom-score-adj",
    "failSwapOn": "fail-swap-on",
}
FLAGS: dict[str, tuple[str, str]] = {f: (flag, JOINED.get(f, "scalar")) for f, flag in FLAG_NAMES.items()}


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def flag_value(style: str, value: Any) -> str:
    if style in ("=", "<"):
        return ",".join(f"{k}{style}{_text(v)}" for k, v in sorted(value.items()))
    if style == "list":
        return ",".join(_text(v) for v in value)
    return _text(value)


def kubelet_extra_args(ctx: RenderContext, pc: PoolCapacity, template: str) -> list[dict[str, str]]:
    policy = pc.policy
    assert policy is not None
    problem = ctx.reporter(NotRenderable, policy.source, policy.ref)
    fields = kubelet_fields(pc, policy.model.spec, problem)
    args: list[dict[str, str]] = []
    for name, value in fields.items():
        flag = FLAGS.get(name)
        if flag is None:
            where = ("spec", name) if name in field_names(ReservationPolicySpec) else ("spec", "kubelet", name)
            ctx.report(
                FieldNotDeliverable,
                f"{name} has no kubelet flag for the kubeletExtraArgs of KubeadmConfigTemplate {template}",
                policy.source,
                policy.ref,
                where,
                hint="remove it for Cluster API pools, or patch it into the template (kubeadm patches)",
            )
            continue
        split = separator_problems(name, value)
        for at, shown, held in split:
            where = ("spec", name) if name in field_names(ReservationPolicySpec) else ("spec", "kubelet", name)
            ctx.report(
                FieldNotDeliverable,
                f"{name} {shown} holds {held}, which the kubelet flag --{flag[0]} of KubeadmConfigTemplate "
                f"{template} splits on: the node would get other values than the policy states",
                policy.source,
                policy.ref,
                (*where, *at),
                hint="write one value per element (a list item or a map key), without the flag's separators",
            )
        if split:
            continue
        args.append({"name": flag[0], "value": flag_value(flag[1], value)})
    return sorted(args, key=lambda a: a["name"])


def content_hash(args: list[dict[str, str]]) -> str:
    data = json.dumps(args, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:TEMPLATE_HASH_LENGTH]


def _by_flag(args: list[dict[str, str]] | None) -> dict[str, str] | None:
    return None if args is None else {a["name"]: a["value"] for a in args}


def _sized(pc: PoolCapacity) -> dict[str, str]:
    spec = pc.policy.model.spec if pc.policy is not None else None
    if spec is None or spec.autoSizing is None or pc.formula is None:
        return {}
    return {"system-reserved": pc.formula.formula, "kube-reserved": pc.formula.formula}


def _delivery(pc: PoolCapacity) -> ClusterAPIDelivery:
    delivery = pc.pool.delivery
    assert delivery is not None and delivery.clusterAPI is not None
    return delivery.clusterAPI


def _schema() -> dict[str, Any]:
    """An OpenAPI definition telling kustomize that kubeletExtraArgs is a list keyed by name, so a patch merges
    arguments by flag name instead of replacing the user's list (cluster-api's CRD declares the list as a map list
    keyed by name and value)."""
    args = {
        "type": "array",
        "items": {"type": "object"},
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        "x-kubernetes-patch-merge-key": "name",
        "x-kubernetes-patch-strategy": "merge",
    }

    def obj(**props: Any) -> dict[str, Any]:
        return {"type": "object", "properties": props}

    return {
        "definitions": {
            "io.x-k8s.cluster.bootstrap.v1beta2.KubeadmConfigTemplate": {
                "x-kubernetes-group-version-kind": [
                    {"group": "bootstrap.cluster.x-k8s.io", "kind": KIND, "version": "v1beta2"}
                ],
                **obj(
                    spec=obj(template=obj(spec=obj(joinConfiguration=obj(nodeRegistration=obj(kubeletExtraArgs=args)))))
                ),
            }
        }
    }


@register
class ClusterAPITarget(Target):
    name = "cluster-api"
    summary = "KubeadmConfigTemplate kubelet flags and the patches that roll them out (cluster-api/)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        pools = delivered_pools(ctx, "clusterAPI")
        if not pools:
            return []
        outputs: list[Output] = []
        patches: list[dict[str, Any]] = []
        for key, members in group(
            pools, lambda pc: f"{_delivery(pc).namespace}/{_delivery(pc).kubeadmConfigTemplate}"
        ).items():
            namespace, template = key.split("/", 1)
            configs = [
                PoolConfig(pc, None if pc.policy is None else kubelet_extra_args(ctx, pc, template)) for pc in members
            ]
            if all(c.content is None for c in configs):
                continue
            configs = [PoolConfig(c.pc, _by_flag(c.content), _sized(c.pc)) for c in configs]
            shared = f"KubeadmConfigTemplate {namespace}/{template}"
            if not agree(
                ctx,
                shared,
                configs,
                sized_hint="one KubeadmConfigTemplate per machine size, or explicit values that fit all",
                hint="one ReservationPolicy with size-independent settings per template, or separate templates",
            ):
                continue
            args = [{"name": k, "value": v} for k, v in sorted(configs[0].content.items())]
            deployments = sorted({md for c in configs for md in _delivery(c.pc).machineDeployments})
            name = f"{template}-{content_hash(args)}" if deployments else template
            if not deployments:
                first = configs[0].pc.pool
                ctx.report(
                    RolloutNotTriggered,
                    f"KubeadmConfigTemplate {namespace}/{template} names no MachineDeployment: a change reaches only "
                    "new Machines",
                    first.source,
                    first.ref,
                    ("spec", "delivery", "clusterAPI"),
                    hint="list them in delivery.clusterAPI.machineDeployments (a change then rolls them)",
                )
            doc = {
                "apiVersion": API_VERSION,
                "kind": KIND,
                "metadata": {
                    "name": name,
                    "namespace": namespace,
                    "annotations": {"argocd.argoproj.io/sync-options": "Prune=false"},
                },
                "spec": {"template": {"spec": {"joinConfiguration": {"nodeRegistration": {"kubeletExtraArgs": args}}}}},
            }
            sources: dict[str, None] = {}
            for c in configs:
                sources.setdefault(ctx.pool_source(c.pc), None)
                if c.pc.policy is not None:
                    sources.setdefault(ctx.source(c.pc.policy.source, c.pc.policy.ref), None)
            rel = f"{namespace}/{template}.yaml"
            outputs.append(
                Output(
                    path=f"cluster-api/{rel}",
                    documents=(doc,),
                    sources=tuple(sorted(sources)),
                    cluster=False,
                    notes=(
                        f"kubelet flags for KubeadmConfigTemplate {namespace}/{template}: a patch applied by "
                        "cluster-api/kustomization.yaml, not an object to apply on its own (docs/cluster-api.md)",
                        f"pools: {', '.join(c.pc.pool.name for c in configs)}",
                    ),
                )
            )
            patches.append(
                {
                    "path": rel,
                    "target": {
                        "group": "bootstrap.cluster.x-k8s.io",
                        "kind": KIND,
                        "name": template,
                        "namespace": namespace,
                    },
                    **({"options": {"allowNameChange": True}} if deployments else {}),
                }
            )
            for md in deployments:
                md_rel = f"{namespace}/{md}.machinedeployment.yaml"
                md_doc = {
                    "apiVersion": MD_API_VERSION,
                    "kind": "MachineDeployment",
                    "metadata": {"name": md, "namespace": namespace},
                    "spec": {"template": {"spec": {"bootstrap": {"configRef": {"name": name}}}}},
                }
                outputs.append(
                    Output(
                        path=f"cluster-api/{md_rel}",
                        documents=(md_doc,),
                        sources=tuple(sorted(sources)),
                        cluster=False,
                        notes=(
                            f"re-points MachineDeployment {namespace}/{md} to {name}: Cluster API rolls its Machines",
                        ),
                    )
                )
                patches.append(
                    {
                        "path": md_rel,
                        "target": {"group": MD_GROUP, "kind": "MachineDeployment", "name": md, "namespace": namespace},
                    }
                )
        if patches:
            component = {
                "apiVersion": "kustomize.config.k8s.io/v1alpha1",
                "kind": "Component",
                "openapi": {"path": SCHEMA_FILE},
                "patches": patches,
            }
            outputs.append(
                Output(
                    path="cluster-api/kustomization.yaml",
                    documents=(component,),
                    cluster=False,
                    notes=(
                        "kustomize Component: include it in the kustomization of your Cluster API objects "
                        "(components: [...]); it patches and renames the templates and re-points the MachineDeployments",
                    ),
                )
            )
            outputs.append(
                Output(
                    path=f"cluster-api/{SCHEMA_FILE}",
                    documents=(_schema(),),
                    cluster=False,
                    notes=("kubeletExtraArgs merge by flag name: the OpenAPI hint kustomize reads for the Component",),
                )
            )
        return outputs
