"""Settings (.allocatable.yaml at the policy repo root), validated like any policy file."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, WithJsonSchema

from renderer.models.common import DNSLabel, DNSSubdomain, Strict

RuleSeverity = Literal["error", "warning", "info"]


class CommitSettings(Strict):
    underCommitScalesReserved: bool = Field(
        default=True,
        description="below 100%, scale the reserved slices with the class (true) or subtract them unscaled (false)",
    )


RULE_CODE_PATTERN = r"^AL[0-9]{3}$"
_RULE_CODE = re.compile(RULE_CODE_PATTERN)


def _check_rule_code(code: str) -> str:
    if not _RULE_CODE.match(code):
        raise ValueError(f'"{code}" is not a rule code; codes are written ALnnn, e.g. AL203 (see `allocatable rules`)')
    return code


RuleCode = Annotated[
    str,
    AfterValidator(_check_rule_code),
    WithJsonSchema({"type": "string", "pattern": RULE_CODE_PATTERN, "description": "rule code, e.g. AL203"}),
]


class RuleSetting(Strict):
    """One rule's setting: switch it off, or report its findings at another severity."""

    enabled: bool = Field(default=True, description="false: the rule does not run (its suppressions are not checked)")
    severity: RuleSeverity | None = Field(
        default=None, description="report this rule's findings at this severity instead of its default"
    )


class Thresholds(Strict):
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


class KarpenterSettings(Strict):
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


class RenderSettings(Strict):
    """What `allocatable render` produces (see docs/render.md)."""

    koordinator: bool = Field(
        default=True,
        description="render Koordinator resource amplification (ConfigMap slo-controller-config, key "
        "resource-amplification-config) for CommitClasses whose cpu and memory percents are all >= 100",
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
    targets: list[DNSLabel] | None = Field(
        default=None,
        description="targets rendered when --target is not given (default: every target that is on by default)",
    )
    outputDir: str = Field(
        default="rendered",
        min_length=1,
        description="output directory of `allocatable render`, relative to the working directory; must not be "
        "inside the policy directory",
    )


class Limits(Strict):
    maxFileBytes: int = Field(default=8 * 1024 * 1024, gt=0)


class Settings(Strict):
    """Repository settings: rules, thresholds, render targets and commit arithmetic."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"] = "policy.allocatable.dev/v1alpha1"
    kind: Literal["Settings"] = "Settings"
    commit: CommitSettings = Field(default_factory=CommitSettings)
    rules: dict[RuleCode, RuleSetting] = Field(
        default_factory=dict,
        description="per-rule settings by code (`allocatable rules` lists them); unknown codes are reported (AL904)",
    )
    thresholds: Thresholds = Field(default_factory=Thresholds)
    render: RenderSettings = Field(default_factory=RenderSettings)
    limits: Limits = Field(default_factory=Limits)
