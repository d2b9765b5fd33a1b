"""Settings (.allocatable.yaml at the policy repo root), validated like any policy file."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from renderer.models.common import DNSLabel, DNSSubdomain, Strict

RuleSeverity = Literal["error", "warning", "info"]


class CommitSettings(Strict):
    underCommitScalesReserved: bool = Field(
        default=True,
        description="below 100%, scale the reserved slices with the class (true) or subtract them unscaled (false)",
    )


class RuleSetting(Strict):
    enabled: bool = True
    severity: RuleSeverity | None = None


class Thresholds(Strict):
    cpuCommitCeilingPercent: int = Field(default=400, gt=0)
    minCommittedShareOfCapacityPercent: int = Field(default=50, ge=0, le=100)


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
    rules: dict[str, RuleSetting] = Field(default_factory=dict)
    thresholds: Thresholds = Field(default_factory=Thresholds)
    render: RenderSettings = Field(default_factory=RenderSettings)
    limits: Limits = Field(default_factory=Limits)
