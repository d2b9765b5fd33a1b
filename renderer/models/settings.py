"""Settings (.allocatable.yaml at the policy repo root), validated like any policy file (schema:
``renderer.models.schema.settings``)."""

from __future__ import annotations

import re
from typing import Literal

from renderer.models.record import Record
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


class KarpenterSettings(Record):
    """How pools delivered through a Karpenter EC2NodeClass are rendered (see docs/karpenter.md)."""

    expressions: bool
    kubeletPassthrough: bool


class RenderSettings(Record):
    """What `allocatable render` produces (see docs/render.md)."""

    koordinator: bool
    koordinatorNamespace: str
    koordinatorConfigMap: str
    ignitionVersion: Literal["3.2.0", "3.3.0", "3.4.0", "3.5.0"]
    karpenter: KarpenterSettings
    targets: list[str] | None
    outputDir: str


class MachineType(Record):
    """What the platform advertises for one instance type (matched on node.kubernetes.io/instance-type)."""

    memory: Quantity


class PlatformDefaults(Record):
    """Which reservation a platform applies to pools no ReservationPolicy selects (see docs/verify.md)."""

    aks: Literal["aks", "aks-legacy"]
    openshift: Literal["openshift", "openshift-static"]


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
    platformDefaults: PlatformDefaults
