"""Settings (.allocatable.yaml at the policy repo root), validated like any policy file."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from renderer.models.common import Strict

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
    koordinator: bool = True
    ignitionVersion: Literal["3.2.0", "3.3.0", "3.4.0", "3.5.0"] = "3.2.0"
    targets: list[str] | None = None
    outputDir: str = "rendered"


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
