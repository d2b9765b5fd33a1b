from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.findings import FieldPath, Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import KUBELET_CONFIGURATION_FIELDS
from renderer.models.kubelet_validation import ELSEWHERE, problems


@register
class KubeletRefusesConfig(Rule):
    """
    ## What it does
    Reports a KubeletConfiguration field that the kubelet refuses, checked the way the kubelet itself reads its
    configuration file: each value must decode into the field's Go type (`int32`, `int64`, a boolean, a
    `metav1.Duration` string, ...; kubernetes `staging/src/k8s.io/kubelet/config/v1beta1/types.go`), then pass
    `ValidateKubeletConfiguration` (`pkg/kubelet/apis/config/validation/validation.go`, both at commit
    001332b0422071acf4860769f18e34b5e9b7c1bc): burst and QPS values not negative, ports from 1 to 65535,
    `oomScoreAdj` from -1000 to 1000, `maxParallelImagePulls` only with `serializeImagePulls: false`,
    `cpuCFSQuotaPeriod` only with its feature gate and from 1ms to 1s, grace periods of 0 or at least 1s, and so
    on. Fields with their own rule (image GC thresholds, enforcement, reservations, eviction, negative pod limits)
    are reported by those rules. The elements of lists and maps are checked one by one, each located at its element
    (`renderer/models/kubelet_elements.py`): feature gate names ("unrecognized feature gate"), `clusterDNS` IP
    addresses (the kubelet drops another entry: "Invalid clusterDNS IP"), `allowedUnsafeSysctls` patterns (the
    kubelet's sysctl regex and 253 characters), `qosReserved` (memory only, a percentage from 0 to 100). Whatever
    passes here also passes `schemas/kubeletconfiguration.json`, which holds the same bounds.

    ## Why is this bad?
    Every render target carries these values to the node unchanged: the KubeletConfiguration file, OpenShift's
    KubeletConfig, Karpenter's EC2NodeClass, Cluster API's kubelet flags, nodeadm's NodeConfig. A value the kubelet
    refuses is a node that never becomes Ready, found after the rollout instead of in review.

    ## Example
    ```yaml
    spec:
      maxPods: 99999999999         # beyond the kubelet's int32
      kubelet:
        eventBurst: 3000000000     # beyond int32
        registryBurst: -5          # must not be negative
        cpuCFSQuotaPeriod: "-5s"   # negative, and needs a feature gate
        serializeImagePulls: "yes" # a string, not a boolean
    ```

    ## Use instead
    ```yaml
    spec:
      maxPods: 250
      kubelet:
        eventBurst: 100
        registryBurst: 10
        serializeImagePulls: false
    ```

    ## Fix
    Write each value as the kubelet's type and range require; the message quotes the kubelet's own rule.
    """

    code = "AL326"
    name = "kubelet-refuses-config"
    severity = "error"
    summary = "a KubeletConfiguration value the kubelet cannot decode or refuses to start with"

    # Complexity: O(ReservationPolicies × fields they set).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            fields: dict[str, Any] = {}
            where: dict[str, FieldPath] = {}
            for name in sorted(KUBELET_CONFIGURATION_FIELDS - ELSEWHERE):
                got = view.get(name)
                if got is not None:
                    fields[name] = got.value
                    where[name] = got.path
            for problem in problems(fields):
                yield self.finding(
                    problem.message,
                    source=rp.source,
                    obj=rp.ref,
                    field_path=where[problem.field] + problem.at,
                    hint=problem.hint,
                )
