"""pydantic schema of Settings (the runtime records are ``renderer.models.settings``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, WithJsonSchema

from renderer.loading.files import MAX_FILE_BYTES_CEILING
from renderer.models import settings as records
from renderer.models.nodepool import CURRENCY_PATTERN
from renderer.models.schema.common import DNSLabel, DNSSubdomain, NonNegativeQuantity, Strict
from renderer.models.settings import (
    RULE_CODE_PATTERN,
    RuleSeverity,
    check_exclude_pattern,
    check_output_dir,
    check_price_file,
    check_pricing,
    check_rule_code,
)
from renderer.platforms import check_platform_defaults as _check_platform_defaults
from renderer.promql import WORKING_SET, Selectors


class CommitSettings(Strict, records.CommitSettings):
    underCommitScalesReserved: bool = Field(
        default=True,
        description="below 100%, scale the reserved slices with the class (true) or subtract them unscaled (false)",
    )


RuleCode = Annotated[
    str,
    AfterValidator(check_rule_code),
    WithJsonSchema({"type": "string", "pattern": RULE_CODE_PATTERN, "description": "rule code, e.g. AL203"}),
]


class RuleSetting(Strict, records.RuleSetting):
    """One rule's setting: switch it off, or report its findings at another severity."""

    enabled: bool = Field(default=True, description="false: the rule does not run (its suppressions are not checked)")
    severity: RuleSeverity | None = Field(
        default=None, description="report this rule's findings at this severity instead of its default"
    )


class Thresholds(Strict, records.Thresholds):
    """Numbers the lint rules compare with."""

    cpuCommitCeilingPercent: int = Field(
        default=400, gt=0, description="AL203 warns when a CommitClass commits cpu above this percent"
    )
    minCommittedShareOfCapacityPercent: int = Field(
        default=50,
        ge=0,
        le=100,
        description="AL205 warns when a pool advertises less than this share of its capacity (0 turns it off)",
    )


OutputDir = Annotated[str, AfterValidator(check_output_dir)]
PriceFile = Annotated[str, AfterValidator(check_price_file)]
ExcludePattern = Annotated[str, AfterValidator(check_exclude_pattern)]


class KarpenterSettings(Strict, records.KarpenterSettings):
    """How pools delivered through a Karpenter EC2NodeClass are rendered (see docs/karpenter.md)."""

    expressions: bool = Field(
        default=False,
        description="render auto-sizing formulas as CEL expressions Karpenter evaluates per instance type; needs "
        "Karpenter's alpha AWS feature gate NodeClassCEL (off by default, like this setting)",
    )
    kubeletPassthrough: bool = Field(
        default=False,
        description="also render kubelet fields outside Karpenter v1's typed kubelet block (podPidsLimit, "
        "enforceNodeAllocatable, ...); needs a Karpenter release that passes any KubeletConfiguration field "
        "through, and the AL2023 AMI family",
    )


class MonitoringSettings(Strict, records.MonitoringSettings):
    """How the ``monitoring`` target deploys ``allocatable serve`` (see docs/serve.md)."""

    configz: bool = Field(
        default=False,
        description="run serve with --configz: it reads each node's kubelet configuration through the API server's "
        "node proxy and compares it with the fields the repo renders; the ClusterRole then also grants get on "
        "nodes/proxy, which is not read-only: it reaches the whole kubelet API, exec in any container included "
        "(docs/serve.md#kubelet-configuration-configz)",
    )


class RenderSettings(Strict, records.RenderSettings):
    """What `allocatable render` produces (see docs/render.md)."""

    koordinator: bool = Field(
        default=False,
        description="render Koordinator resource amplification (ConfigMap slo-controller-config, key "
        "resource-amplification-config) for CommitClasses whose cpu and memory percents are all >= 100; off unless "
        "the repo opts in (Koordinator installed, koord-manager's NodeMutatingWebhook feature gate on)",
    )
    koordinatorNamespace: DNSLabel = Field(
        default="koordinator-system",
        description="namespace of Koordinator's slo-controller ConfigMap (koord-manager's --config-namespace)",
    )
    koordinatorConfigMap: DNSSubdomain = Field(
        default="slo-controller-config",
        description="name of Koordinator's slo-controller ConfigMap (koord-manager's --slo-config-name)",
    )
    ignitionVersion: Literal["3.2.0", "3.3.0", "3.4.0", "3.5.0"] = Field(
        default="3.2.0",
        description="Ignition spec version of rendered MachineConfigs: 3.2.0 works from OpenShift 4.8, 3.4.0 from 4.14",
    )
    karpenter: KarpenterSettings = Field(default_factory=KarpenterSettings)
    monitoring: MonitoringSettings = Field(default_factory=MonitoringSettings)
    targets: list[DNSLabel] | None = Field(
        default=None,
        description="targets rendered when --target is not given (default: every target that is on by default)",
    )
    outputDir: OutputDir = Field(
        default="rendered",
        min_length=1,
        description="output directory of `allocatable render`, relative to the repository root (the nearest "
        "directory at or above the policy directory that holds .git; outside git, the directory holding the policy "
        "directory), whatever the working directory; must not be inside the policy directory",
    )


class MachineType(Strict, records.MachineType):
    """What the platform advertises for one instance type (matched on node.kubernetes.io/instance-type)."""

    memory: NonNegativeQuantity | None = Field(
        default=None,
        description="advertised memory of the instance type (e.g. 16Gi for a Standard_D4s_v5): GKE and AKS size "
        "their reservations from it, not from the node's MemTotal",
    )
    eniMaxPods: int | None = Field(
        default=None,
        ge=1,
        le=100_000,
        description="EKS: the maxPods the AMI computes from the instance's ENI limits (eni-max-pods.txt, nodeadm); "
        "the AL2 and AL2023 AMIs reserve kube-reserved memory for it even when maxPods is overridden",
    )


def _platform_defaults_schema() -> dict[str, object]:
    from renderer import platforms

    choices = platforms.profiles()
    return {
        "type": "object",
        "description": "which default reservation a platform's pools get when no ReservationPolicy selects them, "
        "NodePools and Nodes alike (a Node's own release decides where nothing is set); generic: the platform of "
        "pools whose labels name none (docs/platforms.md)",
        "properties": {k: {"type": "string", "enum": v} for k, v in choices.items()},
        "additionalProperties": False,
    }


PlatformDefaults = Annotated[
    dict[str, str],
    AfterValidator(_check_platform_defaults),
    WithJsonSchema(_platform_defaults_schema()),
]


class ImpactSettings(Strict, records.ImpactSettings):
    """What the re-packing simulation gates on (`diff --nodes/--pods`, `verify --pods`; see docs/impact.md)."""

    maxNewPendingPods: int = Field(
        default=0,
        ge=0,
        description="exit 1 when the change leaves more pods newly Pending than this (0: any pod newly Pending fails)",
    )
    vmMemoryOverheadPercent: float = Field(
        default=0.075,
        ge=0,
        lt=1,
        description="Karpenter's --vm-memory-overhead-percent as your controller runs it (default 0.075): the "
        "provisioner view compares its estimate with real nodes",
    )
    maxMonthlyCostIncrease: float | None = Field(
        default=None,
        ge=0,
        le=1_000_000_000,
        description="exit 1 when the change adds more than this to the monthly bill, in pricing.currency (the fleet "
        "change: nodes the autoscaler adds less nodes freed, priced; needs pricing; docs/cost.md)",
    )


class PricingSettings(Strict, records.PricingSettings):
    """Where node prices come from and how reports state them (see docs/cost.md)."""

    source: Literal["builtin", "file"] = Field(
        default="builtin",
        description="builtin: the dated price snapshot shipped with allocatable (AWS EC2, Azure VMs, Compute Engine; "
        "on-demand Linux, spot where published); file: an OpenCost/Kubecost custom pricing file (file)",
    )
    file: PriceFile | None = Field(
        default=None,
        description="with source: file, an OpenCost default.json (CPU, RAM, GPU $ per hour) or price sheet (.csv: "
        "EndTimestamp,InstanceID,Region,AssetClass,InstanceIDField,InstanceType,MarketPriceHourly,Version), relative "
        "to the repository root",
    )
    region: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="the region prices are looked up in (us-east-1, eastus, us-central1) for pools without a "
        "topology.kubernetes.io/region label",
    )
    regions: dict[Literal["aws", "azure", "gce"], str] = Field(  # type: ignore[assignment]  # keys checked
        default_factory=dict,
        description="per provider, the region when pools of several clouds share the repo (wins over region)",
    )
    purchaseOption: Literal["on-demand", "spot"] = Field(
        default="on-demand", description="which published price a node costs: on-demand or spot"
    )
    discountPercent: float = Field(
        default=0,
        ge=0,
        lt=100,
        description="taken off every builtin or file price (an enterprise discount, a savings plan's average); not "
        "off NodePool spec.price, which is the price paid",
    )
    currency: str = Field(
        default="USD",
        pattern=CURRENCY_PATTERN,
        description="ISO 4217 code every price must be in (the builtin snapshot is USD); a mismatch is an error, "
        "never converted",
    )
    hoursPerMonth: int = Field(
        default=730,
        ge=672,
        le=744,
        description="hours in a month for monthly figures: 730 (365 × 24 / 12), as the clouds' price pages use",
    )
    cpuToMemoryWeight: float | None = Field(
        default=None,
        gt=0,
        le=1000,
        description="how many GiB-hours of memory one core-hour is worth when a node price is split into unit "
        "prices (AWS, Azure, sheets); default: OpenCost's, 0.031611 / 0.004237 (its default.json, GCP us-central1)",
    )
    staleAfterDays: int = Field(
        default=180,
        ge=1,
        le=3650,
        description="reports say so (info) when the builtin prices are older than this many days",
    )


#: The queries' defaults (kube-prometheus-stack's conventions): ``renderer.promql``'s, the one definition.
_QUERIES = Selectors()


class RecommendSelectors(Strict, records.RecommendSelectors):
    """The label matchers and cgroup ids of `allocatable recommend`'s queries (defaults: kube-prometheus-stack)."""

    cadvisor: str = Field(
        default=_QUERIES.cadvisor,
        min_length=1,
        max_length=1000,
        description="label matchers of the cAdvisor series (container_memory_working_set_bytes, "
        "container_cpu_usage_seconds_total); they must carry a node label",
    )
    kubelet: str = Field(
        default=_QUERIES.kubelet,
        min_length=1,
        max_length=1000,
        description="label matchers of the kubelet's own metrics (kubelet_running_pods)",
    )
    kubeStateMetrics: str = Field(
        default=_QUERIES.kube_state_metrics,
        min_length=1,
        max_length=1000,
        description="label matchers of kube-state-metrics (kube_pod_container_resource_requests)",
    )
    reservedCgroups: str = Field(
        default=_QUERIES.reserved_ids,
        min_length=1,
        max_length=1000,
        description="regular expression of the cgroup ids (the id label) of the system slice, the kubelet's and "
        "the container runtime's services",
    )
    podsCgroups: str = Field(
        default=_QUERIES.pods_ids,
        min_length=1,
        max_length=1000,
        description="regular expression of the pods' parent cgroup id (systemd and cgroupfs drivers)",
    )
    cpuQuantile: float = Field(
        default=float(_QUERIES.cpu_quantile),
        gt=0,
        le=1,
        description="the quantile of the pods' cpu usage over requests, per node and day, the cpu commit percent "
        "follows",
    )
    memoryMetric: Literal["container_memory_working_set_bytes", "container_memory_rss"] = Field(
        default=WORKING_SET,
        description="the cAdvisor memory series: the working set (what the kubelet's eviction reads) or the RSS (what "
        "OpenShift's SystemMemoryExceedsReservation alert reads)",
    )
    nodeExporter: str = Field(
        default=_QUERIES.node_exporter,
        min_length=1,
        max_length=1000,
        description="label matchers of node-exporter (node_pressure_memory_*, node_vmstat_oom_kill): PSI and OOM "
        "kills where the kubelet's cAdvisor has none",
    )
    nodeExporterNode: Literal["podInfo", "instance"] = Field(
        default="podInfo",
        description="how node-exporter's series get their node: podInfo joins them on namespace and pod with "
        "kube-state-metrics' kube_pod_info (kubernetes-mixin's node_namespace_pod:kube_pod_info: rule); instance "
        "takes the instance label (kube-prometheus relabels it to the node name)",
    )


class RecommendSettings(Strict, records.RecommendSettings):
    """`allocatable recommend` for setups other than kube-prometheus-stack (docs/recommend.md)."""

    selectors: RecommendSelectors = Field(default_factory=RecommendSelectors)


class Limits(Strict, records.Limits):
    maxFileBytes: int = Field(
        default=256 * 1024 * 1024,
        gt=0,
        le=MAX_FILE_BYTES_CEILING,
        description="larger files are refused (AL006), at most 1 GiB; each document, or List item, is bounded at 8 MiB "
        "anyway",
    )


class Settings(Strict, records.Settings):
    """Repository settings: rules, thresholds, render targets and commit arithmetic."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"] = "policy.allocatable.dev/v1alpha1"
    kind: Literal["Settings"] = "Settings"
    commit: CommitSettings = Field(default_factory=CommitSettings)
    rules: dict[RuleCode, RuleSetting] = Field(  # type: ignore[assignment]  # the schema's own records
        default_factory=dict,
        description="per-rule settings by code (`allocatable rules` lists them); unknown codes are reported (AL904)",
    )
    thresholds: Thresholds = Field(default_factory=Thresholds)
    render: RenderSettings = Field(default_factory=RenderSettings)
    limits: Limits = Field(default_factory=Limits)
    machineTypes: dict[str, MachineType] = Field(  # type: ignore[assignment]  # the schema's own records
        default_factory=dict,
        description="advertised memory per instance type (node.kubernetes.io/instance-type), for the formulas "
        "platforms compute from it (gke, aks, aks-legacy); Compute Engine predefined types are built in",
    )
    platformDefaults: PlatformDefaults = Field(default_factory=dict)
    impact: ImpactSettings = Field(default_factory=ImpactSettings)
    pricing: Annotated[PricingSettings | None, AfterValidator(check_pricing)] = Field(
        default=None,
        description="price every report (explain, diff, the impact report and the PR comment) in this currency; "
        "absent: no report prices (docs/cost.md)",
    )
    recommend: RecommendSettings = Field(default_factory=RecommendSettings)
    exclude: list[ExcludePattern] = Field(
        default_factory=list,
        description="paths under the policy repo that are not policies (a Helm chart, kustomize files), as gitignore "
        'patterns relative to this file\'s directory: "charts/", "kustomization.yaml", "/top-only.yaml", '
        '"**/generated/"; --exclude adds more (docs/lint.md)',
    )
    respectGitignore: bool = Field(
        default=True,
        description="inside a git work tree, leave out what .gitignore and .git/info/exclude ignore, as ruff does",
    )
