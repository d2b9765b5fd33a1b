"""Well-known node labels and the values clouds give them: what AL104 must never take for a typo.

Instance types one character apart are different machines by design (``m5.large``/``m5.xlarge``, ``g6.xlarge``/
``g6.2xlarge``, ``n2-standard-4``/``n2-standard-8``), as are zones (``us-east-1a``/``us-east-1b``), regions
(``eastus``/``eastus2``), architectures and numbers. A value of a well-known key that reads as a real value of that
key — listed, or shaped as each cloud names them — is never a typo.

Sources: Kubernetes' well-known labels (kubernetes.io/docs/reference/labels-annotations-taints), Karpenter's
(karpenter.sh/docs/concepts/scheduling: ``karpenter.k8s.aws/instance-*``), EKS managed node groups
(``eks.amazonaws.com/capacityType``: ON_DEMAND, SPOT, CAPACITY_BLOCK), AKS (``kubernetes.azure.com/scalesetpriority``:
spot, regular), Go's ``GOOS``/``GOARCH`` lists (``go tool dist list``) for ``kubernetes.io/os``/``arch``; the cloud
naming schemes: EC2 ``<family>.<size>`` (docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html),
Compute Engine ``<series>-<type>-<vCPUs>[-lssd]`` and custom types (``renderer.platforms._machines``), Azure
``Standard_<size>`` (the VM size table of ``_machines``), OCI ``VM.``/``BM.`` shapes, EC2 zones
``<region><letter>`` and zone IDs ``use1-az1``, Compute Engine zones ``<region>-<letter>``, Azure zones
``<region>-<n>``. Pure functions; O(length of the value).
"""

from __future__ import annotations

import re

__all__ = ["known_label_value"]

_INSTANCE_TYPE_KEYS = frozenset({"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"})
_ZONE_KEYS = frozenset(
    {
        "topology.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/zone",
        "topology.ebs.csi.aws.com/zone",
        "topology.gke.io/zone",
        "topology.disk.csi.azure.com/zone",
        "topology.k8s.aws/zone-id",
    }
)
_REGION_KEYS = frozenset({"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region"})

#: Keys whose values are a closed list.
_LISTED: dict[str, frozenset[str]] = {
    **dict.fromkeys(
        ("kubernetes.io/arch", "beta.kubernetes.io/arch"),
        frozenset(
            [
                "386",
                "amd64",
                "arm",
                "arm64",
                "loong64",
                "mips",
                "mips64",
                "mips64le",
                "mipsle",
                "ppc64",
                "ppc64le",
                "riscv64",
                "s390x",
                "wasm",
            ]
        ),
    ),
    **dict.fromkeys(
        ("kubernetes.io/os", "beta.kubernetes.io/os"),
        frozenset(
            [
                "aix",
                "android",
                "darwin",
                "dragonfly",
                "freebsd",
                "illumos",
                "ios",
                "js",
                "linux",
                "netbsd",
                "openbsd",
                "plan9",
                "solaris",
                "wasip1",
                "windows",
            ]
        ),
    ),
    "karpenter.sh/capacity-type": frozenset({"on-demand", "spot", "reserved"}),
    "eks.amazonaws.com/capacityType": frozenset({"ON_DEMAND", "SPOT", "CAPACITY_BLOCK"}),
    "kubernetes.azure.com/scalesetpriority": frozenset({"spot", "regular"}),
    "karpenter.k8s.aws/instance-hypervisor": frozenset({"nitro", "xen", ""}),
    "karpenter.k8s.aws/instance-cpu-manufacturer": frozenset({"intel", "amd", "aws", "apple"}),
    "karpenter.k8s.aws/instance-encryption-in-transit-supported": frozenset({"true", "false"}),
    "karpenter.k8s.aws/instance-local-nvme": frozenset(),  # a number
}

_EC2_SIZE = r"(nano|micro|small|medium|large|xlarge|[0-9]+xlarge|metal(-[0-9]+xl)?)"
_EC2_FAMILY = r"[a-z][a-z0-9]*(-[a-z0-9]+)*"
_POINT = r"(east|west|north|south|central|northeast|northwest|southeast|southwest)"
_AWS_REGION = rf"[a-z]{{2}}(-gov|-iso[a-z]?)?-{_POINT}-[0-9]+"
_GCP_REGION = rf"[a-z]+-{_POINT}[0-9]+"
_SHAPES: dict[str, tuple[re.Pattern[str], ...]] = {
    "instance-type": (
        re.compile(rf"{_EC2_FAMILY}\.{_EC2_SIZE}"),  # EC2: m5.large, g6.2xlarge, u-24tb1.metal, c7i.metal-24xl
        # Compute Engine: n2-standard-8, c3-highcpu-22-lssd, e2-micro, a2-highgpu-1g, n2-custom-8-16384
        re.compile(
            r"[a-z][0-9][a-z0-9]?-(standard|highmem|highcpu|megamem|ultramem|hypermem|highgpu|megagpu|ultragpu|"
            r"edgegpu|standardlssd|highlssd|custom|micro|small|medium)(-[0-9]+[a-z]?)*(-lssd|-metal|-nolssd)?(-ext)?"
        ),
        re.compile(r"(Standard|Basic)_[A-Z][A-Za-z0-9_-]*"),  # Azure: Standard_D4s_v5, Standard_NC24ads_A100_v4
        re.compile(r"(VM|BM)\.[A-Za-z0-9]+(\.[A-Za-z0-9]+)*"),  # OCI: VM.Standard.E4.Flex
    ),
    "zone": (
        re.compile(rf"{_AWS_REGION}([a-z]|-[a-z]+-[0-9]+[a-z]?)"),  # EC2: us-east-1a, local zones us-west-2-lax-1a
        re.compile(r"[a-z]{3,4}[0-9]+-(az|[a-z]{3}[0-9]+-az)[0-9]+"),  # EC2 zone IDs: use1-az1
        re.compile(rf"{_GCP_REGION}-[a-z]"),  # Compute Engine: us-central1-a
        re.compile(r"[a-z]+[0-9]*-[0-9]+|[0-9]"),  # Azure: eastus-1 (and 0 for a VM outside zones)
    ),
    "region": (
        re.compile(_AWS_REGION),  # us-east-1, ap-southeast-2, us-gov-west-1
        re.compile(_GCP_REGION),  # europe-west4, us-central1
        re.compile(r"[a-z]+[0-9]*"),  # Azure: eastus, eastus2, westeurope
    ),
    "karpenter.k8s.aws/instance-family": (re.compile(_EC2_FAMILY),),
    "karpenter.k8s.aws/instance-size": (re.compile(_EC2_SIZE),),
    "karpenter.k8s.aws/instance-category": (re.compile(r"[a-z]{1,4}"),),
    "karpenter.k8s.aws/instance-gpu-name": (re.compile(r"[a-z0-9-]+"),),
    "karpenter.k8s.aws/instance-gpu-manufacturer": (re.compile(r"[a-z]+"),),
    "karpenter.k8s.aws/instance-accelerator-name": (re.compile(r"[a-z0-9-]+"),),
    "karpenter.k8s.aws/instance-accelerator-manufacturer": (re.compile(r"[a-z]+"),),
}


def _shapes_of(key: str) -> tuple[re.Pattern[str], ...]:
    if key in _INSTANCE_TYPE_KEYS:
        return _SHAPES["instance-type"]
    if key in _ZONE_KEYS:
        return _SHAPES["zone"]
    if key in _REGION_KEYS:
        return _SHAPES["region"]
    return _SHAPES.get(key, ())


def known_label_value(key: str, value: str) -> bool:
    """``value`` reads as a real value of the well-known ``key`` (listed, or shaped as a cloud names them), or is a
    number (numbers one digit apart are different values by design, whatever the key): never a typo."""
    if re.fullmatch(r"[0-9]+(\.[0-9]+)?", value):
        return True
    listed = _LISTED.get(key)
    if listed and value in listed:
        return True
    if key in _INSTANCE_TYPE_KEYS:
        from renderer.platforms._machines import azure_vm_sizes, gce_machine_memory_mib

        if value in azure_vm_sizes() or gce_machine_memory_mib(value) is not None:
            return True
    return any(p.fullmatch(value) for p in _shapes_of(key))
