"""Amazon EKS: the EKS-optimized AMIs (AL2 ``bootstrap.sh``, AL2023 nodeadm), Bottlerocket, and eksctl's own groups.

Every reservation here is kube-reserved; none sets system-reserved. Sources (awslabs/amazon-eks-ami snapshot
81fec2e895854f599974fe4d3d72f61c0a9aaffa):

- AL2023 nodeadm: ``nodeadm/internal/kubelet/config.go`` ``withDefaultReservedResources`` (l.274-288): cpu 6% of the
  first core, 1% of the second, 0.5% of the next two and 0.25% of each further core, per range in integer millicores
  (``getCPUMillicoresToReserve`` l.410-440); memory ``11 x maxPods + 255`` MiB (``getMemoryMebibytesToReserve``
  l.442-443); ephemeral-storage 1Gi; evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%
  (l.110-114). maxPods is nodeadm's ENI limit (or ``maxPodsExpression``); a ``config.maxPods`` a user sets goes into
  a separate drop-in that changes the kubelet's maxPods but **not** kubeReserved (e2e case
  ``custom-max-pods-expression/scenarios/kubelet-config-max-pods``: 60 ENI pods -> 915Mi while maxPods is 1).
- AL2 ``bootstrap.sh`` (last version at b22890309b36fc112b7ddb05668b6e1541faccbc^, ``templates/al2/runtime/
  bootstrap.sh`` l.510-531): the same values since b56a25d659fb8f66cdad6377a164346c10642f61 (v20200423), with
  MAX_PODS from ``/etc/eks/eni-max-pods.txt``, computed before and independently of ``--use-max-pods`` or a
  ``--max-pods`` kubelet argument. v20191119 to v20200416 (d4eca99551498ca14769fbbdf31cba8988591de9) reserved the
  25/20/10/6/2% memory tiers of ``free -m`` instead, 255Mi at most 1 GiB.
- Bottlerocket (bottlerocket-os/bottlerocket 3b6ad4514e4e8deb63fc63d7e1b50efd3a7bb939, v1.0.8; current core-kit
  a10182f974abd19de803bb7a324b5a0bdeab4ced ``packages/kubernetes-1.31/kubelet-config`` l.84-93,
  ``sources/api/schnauzer/src/helpers/mod.rs`` l.133-137): cpu 60/70/75/80m for 1-4 CPUs, +2.5m per further CPU,
  floored; memory ``11 x max-pods + 255`` MiB from the **final** ``settings.kubernetes.max-pods`` (an override
  changes it); ephemeral-storage 1Gi; no evictionHard unless set (the kubelet's defaults).
- eksctl unmanaged node groups: none before 0.17.0 (``pkg/nodebootstrap/assets/kubelet.yaml`` at tag 0.16.0); the
  memory tiers over the EC2 type's nominal ``SizeInMiB`` from 05aafd2f577e04d3a2f7c7632491d01821c56f79 (0.17.0);
  ``11 x maxPods + 255`` from 43bcd5231c316ac295ee64f105d8a7bfc7594ff5 (0.25.0); the AMI's own bootstrap from
  8f5d0a1516e0795272fd88d31fbf5eb0af0ff946 (0.47.0). These groups kept the kubelet's default eviction.

- Windows nodes (the EKS-optimized Windows AMIs, whose bootstrap script is not public): nothing reserved and no hard
  eviction, as the one published Windows EKS node shows (aws/containers-roadmap#481, 2019-09-16: t2.large, capacity
  and allocatable both cpu 2, memory 8388208Ki, pods 110; tests/real-nodes/eks/windows-t2-large-2019.yaml). Later
  Windows AMIs are not pinned by a published node; a node that differs says so (``unexplained``).

The ``eks`` formula a policy names is Karpenter's and Bottlerocket's reading (``11 x maxPods + 255`` with the
node's maxPods, aws/karpenter-provider-aws@1d927085 ``pkg/providers/instancetype/types.go`` l.678-707); the AMI
defaults read the ENI limit instead (``machineTypes.<type>.eniMaxPods`` in .allocatable.yaml when it differs from
the node's maxPods).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import TYPE_CHECKING

from renderer.platforms._base import (
    Default,
    KubeletFiles,
    Platform,
    PoolView,
    Probe,
    Release,
    Signal,
    profile_of,
    register,
)
from renderer.platforms._formula import (
    MIB,
    Formula,
    Rounding,
    Step,
    Term,
    constant,
    cpu_tiers,
    memory_tiers,
)

if TYPE_CHECKING:
    from renderer.platforms._base import Settings

_EVICTION = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
_MILLI = Rounding("down", Fraction(1, 1000))
_CPU_TIERS = cpu_tiers((1, "0.06"), (2, "0.01"), (4, "0.005"), (None, "0.0025"))

#: nodeadm / bootstrap.sh: whole CPUs x 1000, every range truncated to integer millicores on its own.
_CPU = Term(
    input="cpu",
    whole=Fraction(1),
    at_least=Fraction(1),
    tiers=_CPU_TIERS,
    each_tier=_MILLI,
    rounding=_MILLI,
    unit="m",
    reader="nodeadm (number of CPUs x 1000)",
)
_MEMORY = Term(
    base=Fraction(255 * MIB), per_pod=Fraction(11 * MIB), rounding=Rounding("down", Fraction(MIB)), unit="Mi"
)
_STORAGE = constant("ephemeral-storage", "1Gi")

EKS = Formula(
    name="eks",
    summary="EKS: memory 11 MiB x maxPods + 255 MiB, 6/1/0.5/0.25% cpu tiers in integer millicores, 1Gi storage",
    terms={"kubeReserved": {"cpu": _CPU, "ephemeral-storage": _STORAGE, "memory": _MEMORY}},
    eviction_hard=_EVICTION,
    doc="""\
EKS kube-reserved (nodeadm on AL2023, the AL2 bootstrap.sh, Karpenter's model, Bottlerocket).
  Memory: 11 x maxPods + 255, written "<n>Mi"; the machine's memory is not an input.  The node's maxPods
  (Karpenter and Bottlerocket read the final value; the AMIs read the ENI limit, see the eks platform).
  CPU: 6% of the first core, 1% of the next, 0.5% of the next 2 and 0.25% of each core above 4, in integer
  millicores with every tier truncated separately, written "<n>m" (2 vCPUs -> 70m).  Whole CPUs are counted,
  so fractional cpus input is truncated (minimum 1).
  ephemeral-storage: 1Gi.
  Hard eviction: memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%.
  Example: m5.large (2 vCPUs, 29 pods) -> memory 574Mi, cpu 70m, ephemeral-storage 1Gi.""",
    sources=("awslabs/amazon-eks-ami@81fec2e8:nodeadm/internal/kubelet/config.go",),
    delivery_default="karpenter",
)

#: The AMIs' own reservation: the same arithmetic over the ENI-limited maxPods (before any override).
_ENI = Formula(
    name="eks",
    summary=EKS.summary,
    terms={
        "kubeReserved": {
            "cpu": _CPU,
            "ephemeral-storage": _STORAGE,
            "memory": Term(
                base=Fraction(255 * MIB),
                per_pod=Fraction(11 * MIB),
                pods="eniMaxPods",
                rounding=Rounding("down", Fraction(MIB)),
                unit="Mi",
            ),
        }
    },
    eviction_hard=_EVICTION,
)
_AL2 = Formula(
    name="eks",
    summary=EKS.summary,
    terms={"kubeReserved": {**_ENI.terms["kubeReserved"], "cpu": _CPU._replace(reader="bootstrap.sh (nproc x 1000)")}},
    eviction_hard=_EVICTION,
)
_AL2_2019 = Formula(
    name="eks-al2-2019",
    summary="EKS AL2 AMIs v20191119-v20200416: 25/20/10/6/2% of `free -m` memory (255Mi up to 1 GiB)",
    terms={
        "kubeReserved": {
            "cpu": _AL2.terms["kubeReserved"]["cpu"],
            "ephemeral-storage": _STORAGE,
            "memory": Term(
                input="memory",
                whole=Fraction(MIB),
                steps=(Step(Fraction(1024 * MIB), Fraction(255 * MIB), "255Mi"),),
                tiers=memory_tiers(1024 * MIB),
                each_tier=Rounding("down", Fraction(MIB)),
                rounding=Rounding("down", Fraction(MIB)),
                unit="Mi",
                reader="`free -m`",
            ),
        }
    },
    eviction_hard=_EVICTION,
)
_BOTTLEROCKET = Formula(
    name="bottlerocket",
    summary="Bottlerocket: cpu 60/70/75/80m + 2.5m per further CPU, memory 11 MiB x max-pods + 255 MiB, 1Gi storage",
    terms={
        "kubeReserved": {
            "cpu": Term(
                input="cpu",
                whole=Fraction(1),
                tiers=_CPU_TIERS,
                rounding=_MILLI,
                unit="m",
                reader="Bottlerocket (num_cpus)",
            ),
            "ephemeral-storage": _STORAGE,
            "memory": _MEMORY,
        }
    },
)
_EKSCTL_017 = Formula(
    name="eksctl-0.17",
    summary="eksctl 0.17-0.24 unmanaged groups: 25/20/10/6/2% of the EC2 type's memory, cpu tiers",
    terms={
        "kubeReserved": {
            "cpu": Term(input="cpu", whole=Fraction(1), tiers=_CPU_TIERS, each_tier=_MILLI, rounding=_MILLI, unit="m"),
            "ephemeral-storage": _STORAGE,
            "memory": Term(
                input="machineMemory",
                tiers=memory_tiers(1024 * MIB),
                each_tier=Rounding("down", Fraction(MIB)),
                minimum=None,
                steps=(Step(Fraction(1024 * MIB), Fraction(255 * MIB), "255Mi"),),
                rounding=Rounding("down", Fraction(MIB)),
                unit="Mi",
            ),
        }
    },
)
_EKSCTL_025 = Formula(
    name="eksctl-0.25",
    summary="eksctl 0.25-0.46 unmanaged groups: memory 11 MiB x maxPods + 255 MiB, cpu tiers",
    terms={
        "kubeReserved": {
            "cpu": _EKSCTL_017.terms["kubeReserved"]["cpu"],
            "ephemeral-storage": _STORAGE,
            "memory": _MEMORY,
        }
    },
)

_AMI = "awslabs/amazon-eks-ami"
_BOTTLEROCKET_OS = re.compile(r"^Bottlerocket OS (\d+)\.(\d+)\.(\d+)")
#: EKS Auto Mode's managed instances: osImage "Bottlerocket (EKS Auto) 2025.3.14 (aws-k8s-1.30)" as `kubectl get node
#: -o wide` shows one (awsdocs/amazon-eks-user-guide@fa53b399fa7e740627268ced4283186437890899:latest/ug/automode/
#: auto-migrate-fargate.adoc). AWS publishes no kubelet reservation for them (automode-learn-instances.adoc: "AWS
#: determines the operating system and image"), and no published node pins one here.
_EKS_AUTO = re.compile(r"^Bottlerocket \(EKS Auto\)")
_WINDOWS_NODE = "https://github.com/aws/containers-roadmap/issues/481 (kubectl get node -o json, 2019-09-16)"


def _windows(pool: PoolView) -> bool:
    """A Windows node: its os labels, status.nodeInfo.operatingSystem, or a Windows Server osImage."""
    labels = pool.labels
    return (
        "windows" in (labels.get("kubernetes.io/os"), labels.get("beta.kubernetes.io/os"))
        or pool.node_info.get("operatingSystem") == "windows"
        or pool.node_info.get("osImage", "").startswith("Windows")
    )


def _who(default: str | None) -> str:
    return {
        "eks": "nodeadm",
        "eks-al2": "bootstrap.sh",
        "eks-al2-2019": "bootstrap.sh",
    }.get(default or "", "the AMI")


def _eni_max_pods(probe: Probe) -> str | None:
    """The AMIs compute kube-reserved memory from the ENI limit, not from a maxPods override."""
    formula = probe.formula
    if formula is None or probe.resource != "memory" or formula.platform not in (None, "eks"):
        return None
    term = formula.terms.get("kubeReserved", {}).get("memory")
    if term is None or term.per_pod != 11 * MIB:
        return None
    step = 11 * MIB
    d = probe.delta.int_value()
    if d == 0 or d % step:
        return None
    pods = probe.max_pods - d // step
    if pods < 1:
        return None
    itype = probe.pool.instance_type or "<instance-type>"
    who = _who(probe.default_name)
    return (
        f"kube-reserved memory was computed for maxPods {pods} (11Mi x {pods} + 255Mi), while the node runs "
        f"{probe.max_pods} pods: {who} computes it from the instance's ENI limit, before a maxPods override; set "
        f"machineTypes: {{{itype}: {{eniMaxPods: {pods}}}}} in .allocatable.yaml"
    )


@register
class Eks(Platform):
    title = "Amazon EKS"
    summary = "EKS-optimized AMIs (AL2023 nodeadm, AL2 bootstrap.sh), Bottlerocket, Karpenter, eksctl"
    order = 20
    signals = (
        Signal("label", "eks.amazonaws.com/nodegroup", "EKS managed node groups label their nodes"),
        Signal("label", "eks.amazonaws.com/compute-type", "EKS (Fargate and Auto Mode nodes)"),
        Signal("label", "karpenter.k8s.aws/instance-family", "Karpenter's AWS provider labels the nodes it launches"),
        Signal("label", "alpha.eksctl.io/nodegroup-name", "eksctl node groups"),
        Signal("kubeletVersion", r"-eks-", "EKS kubelet builds (v1.30.4-eks-a737599)"),
        Signal("osImage", r"^Bottlerocket OS .*\(aws-k8s", "Bottlerocket's aws-k8s variants (BUILDSYS_PRETTY_NAME)"),
        Signal(
            "resource",
            "vpc.amazonaws.com/",
            "the Amazon VPC resource controller, which EKS runs for Windows nodes (vpc.amazonaws.com/PrivateIPv4Address) "
            "and security groups for pods (vpc.amazonaws.com/pod-eni): aws/amazon-vpc-resource-controller-k8s",
        ),
    )
    hints = (
        Signal("providerID", "aws://", "the AWS cloud provider (also self-managed clusters and OpenShift on AWS)"),
        Signal("label", "k8s.io/cloud-provider-aws", "the AWS cloud controller manager labels the nodes it manages"),
        Signal("label-prefix", "topology.k8s.aws/", "the AWS cloud controller manager (topology.k8s.aws/zone-id)"),
        Signal("label-prefix", "eks.amazonaws.com/", "EKS labels (capacityType, nodegroup-image, compute-type)"),
        Signal("resource", "attachable-volumes-aws-ebs", "the in-tree EBS volume limit of nodes on EC2"),
    )
    formulas = (EKS,)
    recommended = "eks"
    deliveries = frozenset({"bottlerocket", "clusterAPI", "karpenter", "nodeadm"})
    # nodeadm writes its own config.json (kubeReserved for the machine, evictionHard, the ENI maxPods) and the
    # NodeConfig's spec.kubelet.config as the drop-in 40-nodeadm.conf, with --config-dir on the kubelet
    # (awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go "Writing user kubelet config to drop-in file";
    # e2e nodeadm/test/e2e/cases/custom-max-pods-expression, kubelet 1.29 and later; up to 1.28 nodeadm merged the
    # user's fields into config.json itself).
    kubelet_files = KubeletFiles(
        base="/etc/kubernetes/kubelet/config.json",
        directory="/etc/kubernetes/kubelet/config.json.d",
        platform_file="/etc/kubernetes/kubelet/config.json",
        ours="/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf",
        writer="nodeadm",
        sets_max_pods=True,
        delivery="nodeadm",
        # every AL2023 EKS AMI boots with nodeadm, whatever passes it the NodeConfig (a launch template, Karpenter)
        os_image="Amazon Linux 2023",
        source="awslabs/amazon-eks-ami nodeadm/internal/kubelet/config.go",
    )
    asg_tags = True
    memory_source = (
        "not an input of the AMIs' formulas; eksctl 0.17-0.24 read the EC2 type's nominal memory (machineTypes)"
    )
    defaults = (
        Default(
            "eks",
            "AL2023 nodeadm: cpu tiers, 11 MiB x ENI maxPods + 255 MiB, 1Gi; evictionHard 100Mi / 10% / 5%",
            _ENI,
            _EVICTION,
            (f"{_AMI}@81fec2e8:nodeadm/internal/kubelet/config.go",),
        ),
        Default(
            "eks-al2",
            "AL2 bootstrap.sh: as nodeadm, MAX_PODS from eni-max-pods.txt before any --max-pods",
            _AL2,
            _EVICTION,
            (f"{_AMI}@b2289030^:templates/al2/runtime/bootstrap.sh",),
        ),
        Default(
            "eks-al2-2019",
            "AL2 v20191119-v20200416: memory tiers of `free -m` (255Mi up to 1 GiB), cpu tiers, 1Gi",
            _AL2_2019,
            _EVICTION,
            (f"{_AMI}@d4eca995 (#367)",),
        ),
        Default(
            "bottlerocket",
            "Bottlerocket v1.0.8+: cpu 60/70/75/80m + 2.5m per CPU, 11 MiB x max-pods + 255 MiB, 1Gi; kubelet eviction",
            _BOTTLEROCKET,
            None,
            ("bottlerocket-os/bottlerocket@3b6ad451", "bottlerocket-os/bottlerocket-core-kit@a10182f9"),
        ),
        Default(
            "eks-al2-2018",
            "AL2 AMIs before v20191119: nothing reserved; kubelet eviction",
            sources=(f"{_AMI} (no kubeReserved before d4eca995)",),
        ),
        Default("bottlerocket-1.0.7", "Bottlerocket before v1.0.8: nothing reserved; kubelet eviction"),
        Default(
            "eks-windows",
            "EKS Windows AMIs: nothing reserved, no hard eviction (a published node)",
            None,
            {},
            (_WINDOWS_NODE,),
            os="windows",
        ),
        Default(
            "eksctl-0.16",
            "eksctl unmanaged groups before 0.17: nothing reserved; kubelet eviction",
            sources=("eksctl-io/eksctl 0.16.0:pkg/nodebootstrap/assets/kubelet.yaml",),
        ),
        Default(
            "eksctl-0.17",
            "eksctl 0.17-0.24: memory tiers of the EC2 type's memory; kubelet eviction",
            _EKSCTL_017,
            None,
            ("eksctl-io/eksctl@05aafd2f:pkg/nodebootstrap/reserved.go",),
        ),
        Default(
            "eksctl-0.25",
            "eksctl 0.25-0.46: 11 MiB x maxPods + 255 MiB; kubelet eviction",
            _EKSCTL_025,
            None,
            ("eksctl-io/eksctl@43bcd523",),
        ),
    )
    profiles = {d.name: d.title for d in defaults}
    history = (
        Release(
            "AL2 AMIs before v20191119",
            "",
            "eks-al2-2018",
            f"{_AMI} (no kubeReserved before d4eca995)",
        ),
        Release(
            "AL2 AMIs v20191119 to v20200416",
            "2019-11-12",
            "eks-al2-2019",
            f"{_AMI}@d4eca99551498ca14769fbbdf31cba8988591de9 (#367), 9d5ed533",
        ),
        Release(
            "AL2 AMIs v20200423 to the AL2 removal",
            "2020-04-07",
            "eks-al2",
            f"{_AMI}@b56a25d659fb8f66cdad6377a164346c10642f61 (#419); removal b2289030 (#2645, 2026-03-04)",
        ),
        Release(
            "AL2023 nodeadm",
            "2024-02-12",
            "eks",
            f"{_AMI}@6c054415972f747a79f8f4e395e47198c755f70f; maxPodsExpression 6826d213 (2025-10-03)",
        ),
        Release(
            "Bottlerocket before v1.0.8",
            "",
            "bottlerocket-1.0.7",
            "bottlerocket-os/bottlerocket v1.0.7 packages/kubernetes-1.19/kubelet-config",
        ),
        Release(
            "Bottlerocket v1.0.8 and later",
            "2021-03-29",
            "bottlerocket",
            "bottlerocket-os/bottlerocket@3b6ad4514e4e8deb63fc63d7e1b50efd3a7bb939",
        ),
        Release(
            "Windows AMIs (as published on a 2019 node)",
            "2019-09-16",
            "eks-windows",
            _WINDOWS_NODE,
            "capacity = allocatable; later Windows AMIs are not pinned by a published node",
        ),
        Release("eksctl before 0.17.0 (unmanaged groups)", "", "eksctl-0.16", "eksctl-io/eksctl tag 0.16.0"),
        Release(
            "eksctl 0.17.0 to 0.24",
            "2020-03-26",
            "eksctl-0.17",
            "eksctl-io/eksctl@05aafd2f577e04d3a2f7c7632491d01821c56f79",
        ),
        Release(
            "eksctl 0.25.0 to 0.46",
            "2020-07-20",
            "eksctl-0.25",
            "eksctl-io/eksctl@43bcd5231c316ac295ee64f105d8a7bfc7594ff5",
        ),
        Release(
            "eksctl 0.47.0 and later",
            "2021-03-29",
            "eks-al2",
            "eksctl-io/eksctl@8f5d0a1516e0795272fd88d31fbf5eb0af0ff946 (the AMI's bootstrap)",
        ),
    )
    causes = (_eni_max_pods,)
    render_notes = (
        "EKS pools take their kubelet settings through a delivery: karpenter (EC2NodeClass), nodeadm (NodeConfig "
        "user data) or clusterAPI; kubelet/<pool>.yaml suits a custom bootstrap",
    )

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        chosen, why = profile_of(pool, settings, self.name)
        if chosen is not None:
            return self.default_named(chosen).because(why)
        image = pool.node_info.get("osImage", "")
        if _windows(pool):
            return self.default_named("eks-windows").because(f"a Windows node{f' (osImage {image})' if image else ''}")
        m = _BOTTLEROCKET_OS.match(image)
        if m is not None:
            version = tuple(int(g) for g in m.groups())
            name = "bottlerocket" if version >= (1, 0, 8) else "bottlerocket-1.0.7"
            return self.default_named(name).because(f"osImage {image}")
        if _EKS_AUTO.match(image):
            return self.default_named("eks").because(
                f"osImage {image}: EKS Auto Mode, whose reservation AWS does not publish (nodeadm's is the nearest)"
            )
        if image.startswith("Amazon Linux 2023"):
            return self.default_named("eks").because(f"osImage {image}: nodeadm")
        if image.startswith("Amazon Linux 2"):
            return self.default_named("eks-al2").because(f"osImage {image}: bootstrap.sh")
        return self.default_named("eks").because("EKS nodeadm / bootstrap defaults")

    def alternatives(self, pool: PoolView, settings: Settings) -> list[Default]:
        """A Windows node's only default is the Windows one; a Linux node's are all but it."""
        windows = _windows(pool)
        return [d for d in self.defaults if (d.os == "windows") == windows]

    def unexplained(self, pool: PoolView) -> str | None:
        image = pool.node_info.get("osImage", "")
        if _windows(pool):
            return (
                f"EKS Windows: unpublished reservation ({'osImage ' + image if image else 'a Windows node'}): the "
                "Windows AMIs' bootstrap script is not public, and the published Windows node reserves nothing; state "
                "the node's own values in a ReservationPolicy for its pool to predict it"
            )
        if not _EKS_AUTO.match(image):
            return None
        return (
            f"EKS Auto Mode: unpublished reservation (osImage {image}): AWS manages these instances' kubelet and "
            "publishes no reservation for them; state the node's own values in a ReservationPolicy for its pool to "
            "predict it"
        )
