"""Settings (.allocatable.yaml at the policy repo root), validated like any policy file (schema:
``renderer.models.schema.settings``)."""

from __future__ import annotations

import re
from typing import Literal

from renderer.models.record import Record
from renderer.promql import Selectors
from renderer.quantity import Quantity

RuleSeverity = Literal["error", "warning", "info"]


class CommitSettings(Record):
    underCommitScalesReserved: bool


RULE_CODE_PATTERN = r"^AL[0-9]{3}$"
_RULE_CODE = re.compile(RULE_CODE_PATTERN)


def check_rule_code(code: str) -> str:
    if not _RULE_CODE.match(code):
        raise ValueError(f'"{code}" is not a rule code; codes are written ALnnn, e.g. AL203 (see `allocatable rules`)')
    return code


class RuleSetting(Record):
    """One rule's setting: switch it off, or report its findings at another severity."""

    enabled: bool
    severity: RuleSeverity | None


class Thresholds(Record):
    """Numbers the lint rules compare with."""

    cpuCommitCeilingPercent: int
    minCommittedShareOfCapacityPercent: int


#: Linux's PATH_MAX (4096, with the terminating NUL) and NAME_MAX: longer paths cannot be created anywhere.
_PATH_MAX_BYTES = 4095
_NAME_MAX_BYTES = 255


def check_output_dir(value: str) -> str:
    """A directory path the file system can hold (no NUL or other control character, no over-long name), inside the
    repository (it is relative to the repository root)."""
    bad = next((c for c in value if ord(c) < 0x20 or ord(c) == 0x7F), None)
    if bad is not None:
        name = "a NUL character" if bad == "\0" else f"the control character U+{ord(bad):04X}"
        raise ValueError(
            f"the path contains {name}, which no directory name can hold; write a plain path such as rendered"
        )
    parts = value.replace("\\", "/").split("/")
    if value.startswith(("/", "\\")) or (len(value) > 1 and value[1] == ":") or ".." in parts:
        raise ValueError(
            f'"{value}" leaves the repository; write a path relative to the repository root without ".." (settings '
            "travel with the policies, so a pull request could otherwise make render write, or render --check read, "
            "anywhere); give -o DIR on the command line for another place"
        )
    encoded = value.encode("utf-8", "surrogateescape")
    if len(encoded) > _PATH_MAX_BYTES:
        raise ValueError(
            f"the path is {len(encoded)} bytes long, more than a path can be ({_PATH_MAX_BYTES}); shorten it"
        )
    long_part = next((p for p in encoded.split(b"/") if len(p) > _NAME_MAX_BYTES), None)
    if long_part is not None:
        raise ValueError(
            f"a directory name in the path is {len(long_part)} bytes long, more than a name can be "
            f"({_NAME_MAX_BYTES}); shorten it"
        )
    return value


def check_exclude_pattern(value: str) -> str:
    """One ``exclude:`` entry: a gitignore pattern (https://git-scm.com/docs/gitignore)."""
    from renderer.loading.exclude import compile_patterns

    if not value.strip():
        raise ValueError("an empty pattern excludes nothing; remove it")
    compile_patterns([value])
    return value


class KarpenterSettings(Record):
    """How pools delivered through a Karpenter EC2NodeClass are rendered (see docs/karpenter.md)."""

    expressions: bool
    kubeletPassthrough: bool


class MonitoringSettings(Record):
    """How the ``monitoring`` target deploys ``allocatable serve`` (see docs/serve.md)."""

    configz: bool


class RenderSettings(Record):
    """What `allocatable render` produces (see docs/render.md)."""

    koordinator: bool
    koordinatorNamespace: str
    koordinatorConfigMap: str
    ignitionVersion: Literal["3.2.0", "3.3.0", "3.4.0", "3.5.0"]
    karpenter: KarpenterSettings
    monitoring: MonitoringSettings
    targets: list[str] | None
    outputDir: str


class MachineType(Record):
    """What the platform advertises for one instance type (matched on node.kubernetes.io/instance-type)."""

    memory: Quantity | None
    eniMaxPods: int | None


class ImpactSettings(Record):
    """What the re-packing simulation gates on (`diff --nodes/--pods`, `verify --pods`; see docs/impact.md)."""

    maxNewPendingPods: int
    vmMemoryOverheadPercent: float
    maxMonthlyCostIncrease: float | None


class PricingSettings(Record):
    """Where node prices come from and how reports state them (see docs/cost.md)."""

    source: Literal["builtin", "file"]
    file: str | None
    region: str | None
    regions: dict[str, str]
    purchaseOption: Literal["on-demand", "spot"]
    discountPercent: float
    currency: str
    hoursPerMonth: int
    cpuToMemoryWeight: float | None
    staleAfterDays: int


def check_price_file(value: str) -> str:
    """A price file inside the repository (settings travel with the policies: a pull request must not make the
    reports read a file elsewhere on the runner)."""
    parts = value.replace("\\", "/").split("/")
    if not value or value.startswith(("/", "\\")) or (len(value) > 1 and value[1] == ":") or ".." in parts:
        raise ValueError(
            f'"{value}" leaves the repository; write a path relative to the repository root without ".." (settings '
            "travel with the policies, so a pull request could otherwise make the reports read any file)"
        )
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise ValueError("the path contains a control character; write a plain path such as prices/default.json")
    return value


def check_pricing(value: PricingSettings | None) -> PricingSettings | None:
    if value is None:
        return value
    if value.source == "file" and not value.file:
        raise ValueError("source: file needs file: the path of an OpenCost default.json or price sheet (.csv)")
    if value.source == "builtin" and value.file:
        raise ValueError("file is read with source: file; set source: file, or remove file to use the builtin prices")
    return value


class RecommendSelectors(Record):
    """The label matchers and cgroup ids of ``allocatable recommend``'s queries (``renderer.recommend.queries``)."""

    cadvisor: str
    kubelet: str
    kubeStateMetrics: str
    reservedCgroups: str
    podsCgroups: str
    cpuQuantile: float
    memoryMetric: str
    nodeExporter: str
    nodeExporterNode: str

    def promql(self) -> Selectors:
        """These selectors as the queries and the alerts take them (``renderer.promql``)."""
        return Selectors(
            cadvisor=self.cadvisor,
            kubelet=self.kubelet,
            kube_state_metrics=self.kubeStateMetrics,
            reserved_ids=self.reservedCgroups,
            pods_ids=self.podsCgroups,
            cpu_quantile=f"{self.cpuQuantile:g}",
            memory_metric=self.memoryMetric,
            node_exporter=self.nodeExporter,
            node_exporter_node=self.nodeExporterNode,
        )


class RecommendSettings(Record):
    """``allocatable recommend`` for setups other than kube-prometheus-stack (docs/recommend.md)."""

    selectors: RecommendSelectors


class Limits(Record):
    maxFileBytes: int


class Settings(Record):
    """Repository settings: rules, thresholds, render targets and commit arithmetic."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["Settings"]
    commit: CommitSettings
    rules: dict[str, RuleSetting]
    thresholds: Thresholds
    render: RenderSettings
    limits: Limits
    machineTypes: dict[str, MachineType]
    #: platform -> profile (``renderer/platforms/``): which default reservation its pools get
    platformDefaults: dict[str, str]
    impact: ImpactSettings
    pricing: PricingSettings | None
    recommend: RecommendSettings
    #: gitignore patterns, relative to the policy repo root, the walk leaves out (``renderer.loading.exclude``)
    exclude: list[str]
    respectGitignore: bool
