"""The codes of the findings the render stage reports itself (AL801-AL8nn): one class each, whose docstring is its
documentation (the headings of ``renderer.codes.DOC_HEADINGS``), as a lint rule's is. ``allocatable rules`` lists
them with the lint rules, docs/rules.md and SARIF carry their docs, and ``.allocatable.yaml`` configures them under
``rules:`` like a lint rule — except the ones whose ``fixed`` says why not: an error the render cannot go past
(there is no correct file to write while it holds) stays an error.

A target reports ``ctx.report(CODE, message, ...)`` with one of these classes; the severity is the code's own unless
the call says otherwise (AL809 is a warning where a field is left out, an error where it is refused).
"""

from __future__ import annotations

import inspect
from typing import ClassVar

from renderer.codes import CodeInfo, group_of
from renderer.findings import Severity

__all__ = [
    "AutoSizingWithSystemReserved",
    "DeliveredFileRemoved",
    "FieldNotDeliverable",
    "FormulaNotDeliverable",
    "NoKubeletFile",
    "NoMachineConfigPool",
    "NotRenderable",
    "NothingToDeliver",
    "PlatformDefaultKept",
    "PlatformOwnedField",
    "PoolsDisagree",
    "PoolsSharingObjectDisagree",
    "RenderCode",
    "RolloutNotTriggered",
    "SelectorNotExpressible",
    "all_codes",
]


class RenderCode:
    """One code of the render stage. Subclasses set the class variables; the docstring is the documentation."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity]
    summary: ClassVar[str]
    #: Why ``.allocatable.yaml`` cannot switch it off or re-grade it (None: it can, as a lint rule).
    fixed: ClassVar[str | None] = None

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def info(cls) -> CodeInfo:
        return CodeInfo(cls.code, cls.name, cls.severity, cls.summary, cls.doc(), group_of(cls.code), cls.fixed)


_CODES: dict[str, type[RenderCode]] = {}


def _register(cls: type[RenderCode]) -> type[RenderCode]:
    if cls.code in _CODES:
        raise RuntimeError(f"render code {cls.code} defined twice")
    _CODES[cls.code] = cls
    return cls


def all_codes() -> dict[str, type[RenderCode]]:
    """Every render code, by code."""
    return dict(sorted(_CODES.items()))


_NO_CORRECT_FILE = "render has no correct file to write while it holds, so it stops"


@_register
class PoolsDisagree(RenderCode):
    """
    ## What it does
    Stops the render when the pools of one OpenShift MachineConfigPool would get different kubelet configurations
    (different ReservationPolicies, a formula whose values differ between their sizes, or one pool without a
    policy while another has one). The message names both pools and the first difference.

    ## Why is this bad?
    A MachineConfigPool has exactly one KubeletConfig and one node-sizing env file: every node of the pool gets the
    same. Picking one pool's settings would silently give the other pool's nodes reservations that are not the ones
    its policy states.

    ## Example
    ```yaml
    # two NodePools in MachineConfigPool worker, 16 and 64 CPUs, both selected by a policy with
    # autoSizing.formula: aks (a static reservation that depends on the node size)
    spec:
      machineConfigPool: worker
    ```

    ## Use instead
    ```yaml
    spec:
      machineConfigPool: worker-large   # a MachineConfigPool of its own for the larger machines
    ```

    ## Fix
    Select the pools of one MachineConfigPool with the same ReservationPolicy and settings that do not depend on
    the node size (OpenShift's own auto sizing computes on each node), or move them to separate MachineConfigPools.
    """

    code = "AL801"
    name = "machine-config-pool-disagrees"
    severity = "error"
    summary = "the pools of one MachineConfigPool would render different kubelet configurations"
    fixed = "a MachineConfigPool has one kubelet configuration and render cannot choose between two"


@_register
class SelectorNotExpressible(RenderCode):
    """
    ## What it does
    Stops the render when a CommitClass delivered through Koordinator (`render.koordinator: true`) has a selector
    term that uses `Gt`, `Lt` or `matchFields`.

    ## Why is this bad?
    Koordinator's `resource-amplification-config` selects nodes with label selectors, which have `In`, `NotIn`,
    `Exists` and `DoesNotExist` only. There is no entry that selects the same nodes, so the class's over-commit
    cannot be delivered as written.

    ## Example
    ```yaml
    selector:
    - matchExpressions:
      - {key: example.com/cores, operator: Gt, values: ["32"]}
    ```

    ## Use instead
    ```yaml
    selector:
    - matchExpressions:
      - {key: example.com/size, operator: In, values: [large, xlarge]}
    ```

    ## Fix
    Select the nodes by labels with `In`, `NotIn`, `Exists` or `DoesNotExist`, or set `render.koordinator: false`
    in `.allocatable.yaml` if Koordinator does not deliver this repo's classes.
    """

    code = "AL802"
    name = "koordinator-selector-not-expressible"
    severity = "error"
    summary = "a CommitClass selector term has no Koordinator label-selector form (Gt, Lt, matchFields)"
    fixed = "Koordinator's label selectors cannot select the same nodes, so " + _NO_CORRECT_FILE


@_register
class PlatformOwnedField(RenderCode):
    """
    ## What it does
    Warns that a kubelet field the Machine Config Operator owns (`cgroupDriver`, `clusterDNS`, `clusterDomain`,
    `featureGates`, `failSwapOn`, `memorySwap`, `staticPodPath`) was left out of an OpenShift KubeletConfig.
    Lint rule AL321 reports the same field as an error; this code appears only when that rule is turned off.

    ## Why is this bad?
    The operator rejects a KubeletConfig that sets one of these fields, so render leaves it out: the policy says
    something the OpenShift nodes will not get.

    ## Example
    ```yaml
    spec:
      kubelet:
        cgroupDriver: systemd
    ```

    ## Use instead
    ```yaml
    spec:
      kubelet: {}   # the operator sets cgroupDriver on OpenShift nodes
    ```

    ## Fix
    Remove the field from the policy, or select only non-OpenShift pools with it.
    """

    code = "AL803"
    name = "machine-config-operator-field-left-out"
    severity = "warning"
    summary = "a kubelet field the Machine Config Operator owns is left out of a KubeletConfig"


@_register
class AutoSizingWithSystemReserved(RenderCode):
    """
    ## What it does
    Stops the render when a ReservationPolicy for OpenShift pools uses an OpenShift auto-sizing formula and sets
    `systemReserved` cpu, memory or ephemeral-storage too (lint rule AL319 reports it first).

    ## Why is this bad?
    The Machine Config Operator rejects the KubeletConfig ("autoSizingReserved and systemdReserved cannot be set
    together"), so the pool's nodes would keep their old configuration.

    ## Example
    ```yaml
    spec:
      autoSizing: {formula: openshift}
      systemReserved: {memory: 2Gi}
    ```

    ## Use instead
    ```yaml
    spec:
      autoSizing:
        formula: openshift
        fallback: {memory: 2Gi}   # used only where auto sizing is off
    ```

    ## Fix
    Drop `systemReserved` cpu/memory/ephemeral-storage, or set them as `autoSizing.fallback`.
    """

    code = "AL804"
    name = "auto-sizing-with-system-reserved"
    severity = "error"
    summary = "OpenShift auto sizing and systemReserved cpu/memory/ephemeral-storage in one KubeletConfig"
    fixed = "the Machine Config Operator rejects such a KubeletConfig, so " + _NO_CORRECT_FILE


@_register
class NotRenderable(RenderCode):
    """
    ## What it does
    Stops the render at a value that has no form in the file it would go into: a date or a non-string key in
    `spec.kubelet`, an auto-sizing fallback other than cpu, memory and ephemeral-storage, a negative fallback, a
    MachineConfigPool name that is not a DNS-1123 label, a rendered file name longer than file systems take.

    ## Why is this bad?
    Writing the value anyway would give a file the kubelet, the operator or the file system refuses, or one that
    means something else than the policy.

    ## Example
    ```yaml
    spec:
      autoSizing:
        formula: openshift
        fallback: {pods: "110"}   # the node-sizing env file has no such key
    ```

    ## Use instead
    ```yaml
    spec:
      autoSizing:
        formula: openshift
        fallback: {memory: 1Gi}
    ```

    ## Fix
    Change the value the message names as its hint says.
    """

    code = "AL805"
    name = "not-renderable"
    severity = "error"
    summary = "a value has no form in the rendered file (type, key, name)"
    fixed = "the value has no form in the rendered file, so " + _NO_CORRECT_FILE


@_register
class NoMachineConfigPool(RenderCode):
    """
    ## What it does
    Warns about an OpenShift pool that a ReservationPolicy selects but that names no MachineConfigPool
    (`spec.machineConfigPool`; for an inventory Node, a `node-role.kubernetes.io/<pool>` label): nothing is
    rendered for it.

    ## Why is this bad?
    OpenShift delivers kubelet settings per MachineConfigPool only. The policy's reservations reach none of the
    pool's nodes, while `explain` counts them.

    ## Example
    ```yaml
    kind: NodePool
    spec:
      platform: openshift
    ```

    ## Use instead
    ```yaml
    kind: NodePool
    spec:
      platform: openshift
      machineConfigPool: worker
    ```

    ## Fix
    Set `spec.machineConfigPool`.
    """

    code = "AL806"
    name = "no-machine-config-pool"
    severity = "warning"
    summary = "an OpenShift pool with a ReservationPolicy names no MachineConfigPool; nothing is rendered for it"


@_register
class PoolsSharingObjectDisagree(RenderCode):
    """
    ## What it does
    Stops the render when pools delivered through one object — a Karpenter EC2NodeClass, a Cluster API
    KubeadmConfigTemplate — would get different kubelet settings. The message names both pools and the first
    difference.

    ## Why is this bad?
    The object holds one kubelet configuration for every node built from it; picking one pool's settings would give
    the other pool's nodes what its policy does not say.

    ## Example
    ```yaml
    # NodePools m5 and r5 both with delivery.karpenter.ec2NodeClass: general, selected by different
    # ReservationPolicies
    delivery:
      karpenter: {ec2NodeClass: general}
    ```

    ## Use instead
    ```yaml
    delivery:
      karpenter: {ec2NodeClass: general-memory}   # a class of its own
    ```

    ## Fix
    Select the pools of one object with the same ReservationPolicy, or point them at separate objects.
    """

    code = "AL807"
    name = "shared-delivery-disagrees"
    severity = "error"
    summary = "pools sharing an EC2NodeClass or KubeadmConfigTemplate would render different kubelet settings"
    fixed = "one object carries one kubelet configuration and render cannot choose between two"


@_register
class FormulaNotDeliverable(RenderCode):
    """
    ## What it does
    Stops the render when a formula gives the pools of one EC2NodeClass or KubeadmConfigTemplate different values
    (they differ in size) and the object can hold only one value.

    ## Why is this bad?
    Every node built from the object gets the same value: the smaller or the larger pool would reserve what the
    formula does not give it.

    ## Example
    ```yaml
    # m5.2xlarge and r5.4xlarge pools of EC2NodeClass general, policy autoSizing.formula: eks, and
    # render.karpenter.expressions: false
    ```

    ## Use instead
    ```yaml
    render:
      karpenter:
        expressions: true   # Karpenter evaluates the formula per instance type
    ```

    ## Fix
    As the hint says: for Karpenter, turn on `render.karpenter.expressions`; otherwise give each size its own
    object, or write explicit values that fit all sizes.
    """

    code = "AL808"
    name = "formula-not-deliverable"
    severity = "error"
    summary = "a formula gives the pools of one EC2NodeClass or KubeadmConfigTemplate different values"
    fixed = "one object carries one value for every node built from it and render cannot choose between two"


@_register
class FieldNotDeliverable(RenderCode):
    """
    ## What it does
    Reports a kubelet setting that has no form in the object that delivers it: a field outside Karpenter v1's typed
    kubelet block is left out (a warning); an eviction signal or value the EC2NodeClass rejects, or a field without
    a kubelet flag for Cluster API's `kubeletExtraArgs`, stops the render (an error); for the platforms' own APIs
    (GKE, AKS, Bottlerocket, Talos) it repeats what lint rule AL327 reports, when lint did not run or AL327 is off.

    ## Why is this bad?
    The nodes do not get the setting the policy states: where that changes allocatable, what `explain` shows is
    not what the nodes advertise.

    ## Example
    ```yaml
    # a pool delivered through Karpenter
    spec:
      podPidsLimit: 4096
    ```

    ## Use instead
    ```yaml
    render:
      karpenter:
        kubeletPassthrough: true   # your Karpenter passes KubeletConfiguration fields through (AL2023)
    ```

    ## Fix
    Remove the field from the policy of those pools, or deliver it another way (the hint names one).
    """

    code = "AL809"
    name = "field-not-deliverable"
    severity = "error"
    summary = "a kubelet setting has no form in the delivery object (left out: warning; refused: error)"
    fixed = (
        "it is an error where the delivery object refuses the field and a warning where render leaves it out; "
        "remove the field from the policy of those pools"
    )


@_register
class PlatformDefaultKept(RenderCode):
    """
    ## What it does
    Warns when a policy for pools delivered through nodeadm or Karpenter leaves a `kubeReserved` key or an
    allocatable-reducing eviction signal unset.

    ## Why is this bad?
    nodeadm writes its own `kubeReserved` and `evictionHard`, and the kubelet merges drop-in maps key by key: a key
    the policy leaves out keeps nodeadm's value. For a pool delivered by nodeadm `explain` counts that value (the
    kubelet's merge of `config.json` and `40-nodeadm.conf`, named in a note), but the policy no longer says what
    the nodes reserve; for a Karpenter pool `explain` counts only what the policy says, so its allocatable is not
    what the nodes advertise.

    ## Example
    ```yaml
    spec:
      kubeReserved: {cpu: 100m}
    ```

    ## Use instead
    ```yaml
    spec:
      kubeReserved: {cpu: 100m, memory: 893Mi, ephemeral-storage: 1Gi}
    ```

    ## Fix
    Set every key of `kubeReserved` (cpu, memory, ephemeral-storage) and every eviction signal that reduces
    allocatable (`"0%"` turns a threshold off), or use `autoSizing.formula: eks`.
    """

    code = "AL810"
    name = "nodeadm-default-kept"
    severity = "warning"
    summary = "a kubeReserved key or eviction signal left unset keeps nodeadm's value, which explain does not count"


@_register
class RolloutNotTriggered(RenderCode):
    """
    ## What it does
    Warns when a Cluster API pool's `delivery.clusterAPI` names no MachineDeployment: the rendered
    KubeadmConfigTemplate keeps its name.

    ## Why is this bad?
    Cluster API applies a changed template only to Machines created later; existing Machines keep the old kubelet
    flags until something replaces them.

    ## Example
    ```yaml
    delivery:
      clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet-prod}
    ```

    ## Use instead
    ```yaml
    delivery:
      clusterAPI: {kubeadmConfigTemplate: md-0, namespace: fleet-prod, machineDeployments: [md-0]}
    ```

    ## Fix
    List the MachineDeployments that use the template, so a change renames it and rolls them.
    """

    code = "AL811"
    name = "cluster-api-rollout-not-triggered"
    severity = "warning"
    summary = "a Cluster API template names no MachineDeployment, so a change reaches only new Machines"


@_register
class NoKubeletFile(RenderCode):
    """
    ## What it does
    Warns about a NodePool with a ReservationPolicy whose platform's nodes read no KubeletConfiguration file a user
    supplies (GKE, AKS, Talos) and that names no `spec.delivery`: no `kubelet/<pool>.yaml` is rendered for it.

    ## Why is this bad?
    A file nothing reads would look delivered. The policy's settings reach the nodes only through the platform's
    own API.

    ## Example
    ```yaml
    kind: NodePool
    spec:
      platform: gke
    ```

    ## Use instead
    ```yaml
    kind: NodePool
    spec:
      platform: gke
      delivery:
        gkeSystemConfig: {format: gcloud}
    ```

    ## Fix
    Add `spec.delivery` with one of the ways the message names.
    """

    code = "AL812"
    name = "no-kubelet-file"
    severity = "warning"
    summary = "the pool's platform reads no KubeletConfiguration file and the pool names no delivery"


@_register
class NothingToDeliver(RenderCode):
    """
    ## What it does
    Warns about a pool delivered through its platform's own API (GKE, AKS, Bottlerocket, Talos) whose policy sets
    nothing that API carries (everything equals what the platform reserves by itself): no file is rendered.

    ## Why is this bad?
    An empty file would look like a delivery; the nodes keep the platform's values either way.

    ## Example
    ```yaml
    spec:
      autoSizing: {formula: gke}   # what GKE reserves by itself
    ```

    ## Use instead
    ```yaml
    spec:
      podPidsLimit: 4096   # something the API carries
    ```

    ## Fix
    Remove `spec.delivery`, or select the pool with a policy that sets what the API takes.
    """

    code = "AL813"
    name = "nothing-to-deliver"
    severity = "warning"
    summary = "nothing in a delivered pool's policy has a place in its API: no file is rendered"


@_register
class DeliveredFileRemoved(RenderCode):
    """
    ## What it does
    Names every file a render would remove that delivered a pool's kubelet settings (a kubelet, nodeadm,
    Karpenter, Cluster API, OpenShift or platform-API file), with its pools and why it goes: an **info** when its
    pools were deleted; a **warning** naming the new file when another file delivers the pool's settings now (its
    platform or `spec.delivery` changed, an EC2NodeClass was renamed); an **error** that stops the render when a
    pool that still exists would get no file at all — no ReservationPolicy selects it any more, two do, its
    platform reads none, or its target is not rendered in this run.

    ## Why is this bad?
    A pool whose delivered file disappears loses its reservations on the next roll-out of its nodes, and nothing
    in a "1 stale removed" summary says so: a one-letter typo in a selector is enough.

    ## Example
    ```yaml
    kind: ReservationPolicy
    spec:
      selector:
      - matchExpressions:
        - {key: example.com/teir, operator: In, values: [batch]}   # selects nothing now
    ```

    ## Use instead
    ```yaml
    kind: ReservationPolicy
    spec:
      selector:
      - matchExpressions:
        - {key: example.com/tier, operator: In, values: [batch]}
    ```

    ## Fix
    Make a ReservationPolicy select the pool again. When the pool really should go back to its platform's defaults,
    delete the file yourself (and commit that): the render then follows.
    """

    code = "AL814"
    name = "delivered-file-removed"
    severity = "error"
    summary = "a render would remove a file that delivered a pool's kubelet settings"
    fixed = (
        "a render may never remove a pool's delivered file unseen; where the removal is deliberate, delete the file "
        "yourself"
    )
