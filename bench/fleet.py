"""Realistic fleet data for the benchmark shapes: Node objects laid out as the API server returns them, label sets as
Karpenter-provisioned EKS nodes carry them, and a kubectl-style YAML emitter.

The Node layout follows what ``kubectl get nodes -o yaml`` prints for an EKS node: metadata with provider
annotations, ~35 labels and managedFields (one entry per field manager, fieldsV1 trees keyed ``f:``/``k:``), spec
with providerID and podCIDR, and a status with addresses, allocatable, capacity, the four kubelet conditions,
daemonEndpoints, images (names and sizeBytes), nodeInfo and attached volumes. Values are generated, deterministic
for a seed, and plausible (instance types, memory as MemTotal a little below the nominal size, EKS max pods).
"""

from __future__ import annotations

import json
import random
from typing import Any

import yaml

# (instance type, vCPUs, memory GiB, EKS max pods, family, size, generation, hypervisor)
INSTANCE_TYPES: tuple[tuple[str, int, int, int], ...] = (
    ("m5.large", 2, 8, 29),
    ("m5.xlarge", 4, 16, 58),
    ("m5.2xlarge", 8, 32, 58),
    ("m5.4xlarge", 16, 64, 234),
    ("c5.2xlarge", 8, 16, 58),
    ("c5.4xlarge", 16, 32, 234),
    ("r5.2xlarge", 8, 64, 58),
    ("r5.4xlarge", 16, 128, 234),
    ("m6i.8xlarge", 32, 128, 234),
    ("m6i.16xlarge", 64, 256, 737),
)
ZONES: tuple[tuple[str, str], ...] = (
    ("us-east-1a", "use1-az4"),
    ("us-east-1b", "use1-az6"),
    ("us-east-1c", "use1-az1"),
)
NODEPOOLS: tuple[str, ...] = ("general", "compute", "memory", "batch", "gpu-adjacent", "ingress", "system", "spot")
TEAMS: tuple[str, ...] = ("platform", "data", "search", "payments", "ml", "edge", "media", "identity")
IMAGES: tuple[tuple[str, int], ...] = (
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni", 70_521_093),
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni-init", 61_220_147),
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy", 32_198_720),
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-ebs-csi-driver", 44_832_110),
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/csi-node-driver-registrar", 9_878_340),
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/livenessprobe", 9_112_009),
    ("602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/pause", 299_010),
    ("public.ecr.aws/aws-observability/aws-for-fluent-bit", 110_330_201),
    ("quay.io/prometheus/node-exporter", 11_923_412),
    ("registry.k8s.io/sig-storage/csi-node-driver-registrar", 10_301_774),
    ("docker.io/datadog/agent", 398_220_871),
    ("ghcr.io/example/payments-api", 187_334_020),
    ("ghcr.io/example/search-indexer", 244_120_993),
    ("ghcr.io/example/ml-serving", 1_802_339_447),
)
CONDITIONS: tuple[tuple[str, str, str, str], ...] = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)


def memory_ki(gib: int, rng: random.Random) -> str:
    """What the kubelet reports as memory capacity: MemTotal, a little below the nominal size."""
    return f"{gib * 1024 * 1024 - rng.randint(150_000, 600_000)}Ki"


def _hex(rng: random.Random, digits: int) -> str:
    return f"{rng.getrandbits(digits * 4):0{digits}x}"


def _uuid(rng: random.Random) -> str:
    h = _hex(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def node_labels(i: int, rng: random.Random, extra: dict[str, str] | None = None) -> tuple[dict[str, str], str]:
    """~35 labels of a Karpenter-provisioned EKS node (plus ``extra``), and its name."""
    itype, cpu, mem, _ = INSTANCE_TYPES[i % len(INSTANCE_TYPES)]
    family, size = itype.split(".")
    zone, zone_id = ZONES[i % len(ZONES)]
    pool = NODEPOOLS[i % len(NODEPOOLS)]
    ip = f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"
    name = f"ip-{ip.replace('.', '-')}.ec2.internal"
    spot = pool == "spot" or i % 7 == 0
    labels = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/instance-type": itype,
        "beta.kubernetes.io/os": "linux",
        "failure-domain.beta.kubernetes.io/region": "us-east-1",
        "failure-domain.beta.kubernetes.io/zone": zone,
        "k8s.io/cloud-provider-aws": _hex(rng, 32),
        "karpenter.k8s.aws/ec2nodeclass": "default",
        "karpenter.k8s.aws/instance-category": family[0],
        "karpenter.k8s.aws/instance-cpu": str(cpu),
        "karpenter.k8s.aws/instance-cpu-manufacturer": "intel",
        "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz": "3100",
        "karpenter.k8s.aws/instance-ebs-bandwidth": str(4750 if cpu <= 16 else 10000),
        "karpenter.k8s.aws/instance-encryption-in-transit-supported": "true" if family.endswith("i") else "false",
        "karpenter.k8s.aws/instance-family": family,
        "karpenter.k8s.aws/instance-generation": family[1:].rstrip("i") or "5",
        "karpenter.k8s.aws/instance-hypervisor": "nitro",
        "karpenter.k8s.aws/instance-memory": str(mem * 1024),
        "karpenter.k8s.aws/instance-network-bandwidth": str(750 * cpu // 2),
        "karpenter.k8s.aws/instance-size": size,
        "karpenter.sh/capacity-type": "spot" if spot else "on-demand",
        "karpenter.sh/initialized": "true",
        "karpenter.sh/nodepool": pool,
        "karpenter.sh/registered": "true",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": itype,
        "topology.ebs.csi.aws.com/zone": zone,
        "topology.k8s.aws/zone-id": zone_id,
        "topology.kubernetes.io/region": "us-east-1",
        "topology.kubernetes.io/zone": zone,
        "example.com/team": TEAMS[i % len(TEAMS)],
        "example.com/cost-center": str(1000 + i % 97),
        "example.com/environment": "production" if i % 5 else "staging",
    }
    if i % 11 == 0:
        labels["sandbox.example.com/kata"] = "true"
    labels.update(extra or {})
    return labels, name


def _fields(keys: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {".": {}}
    for k in keys:
        out[f"f:{k}"] = {}
    return out


def node_object(i: int, rng: random.Random, extra_labels: dict[str, str] | None = None) -> dict[str, Any]:
    """One v1 Node as ``kubectl get nodes -o yaml|json`` returns it."""
    _, cpu, mem, max_pods = INSTANCE_TYPES[i % len(INSTANCE_TYPES)]
    zone, _ = ZONES[i % len(ZONES)]
    labels, name = node_labels(i, rng, extra_labels)
    ip = name[3:].split(".")[0].replace("-", ".")
    instance = f"i-{_hex(rng, 17)}"
    created = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}Z"
    heartbeat = "2025-12-02T14:21:07Z"
    pod_cidr = f"100.{64 + (i >> 14) % 64}.{(i >> 6) & 255}.{(i & 63) * 4}/30"
    storage_ki = 104_845_292 if cpu <= 16 else 209_702_892
    alloc_mem = int(memory_ki(mem, rng)[:-2]) - 1_000_000
    capacity = {
        "cpu": str(cpu),
        "ephemeral-storage": f"{storage_ki}Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": memory_ki(mem, rng),
        "pods": str(max_pods),
    }
    allocatable = {
        "cpu": f"{cpu * 1000 - 70 - 10 * cpu}m",
        "ephemeral-storage": str(storage_ki * 1024 * 9 // 10 - 1_073_741_824),
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": f"{alloc_mem}Ki",
        "pods": str(max_pods),
    }
    images = []
    for repo, size in rng.sample(IMAGES, k=rng.randint(1, 3)):
        tag = f"v{rng.randint(1, 3)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}"
        images.append({"names": [f"{repo}@sha256:{_hex(rng, 64)}", f"{repo}:{tag}"], "sizeBytes": size})
    volumes = [f"kubernetes.io/csi/ebs.csi.aws.com^vol-{_hex(rng, 17)}" for _ in range(rng.choice((0, 0, 0, 1, 2)))]
    status: dict[str, Any] = {
        "addresses": [
            {"address": ip, "type": "InternalIP"},
            {"address": name, "type": "InternalDNS"},
            {"address": name, "type": "Hostname"},
        ],
        "allocatable": allocatable,
        "capacity": capacity,
        "conditions": [
            {
                "lastHeartbeatTime": heartbeat,
                "lastTransitionTime": created,
                "message": message,
                "reason": reason,
                "status": state,
                "type": kind,
            }
            for kind, state, reason, message in CONDITIONS
        ],
        "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
        "images": images,
        "nodeInfo": {
            "architecture": "amd64",
            "bootID": _uuid(rng),
            "containerRuntimeVersion": "containerd://1.7.27",
            "kernelVersion": "6.1.134-152.225.amzn2023.x86_64",
            "kubeProxyVersion": "v1.31.7-eks-473151a",
            "kubeletVersion": "v1.31.7-eks-473151a",
            "machineID": _hex(rng, 32),
            "operatingSystem": "linux",
            "osImage": "Amazon Linux 2023.7.20250512",
            "systemUUID": _uuid(rng),
        },
    }
    if volumes:
        status["volumesAttached"] = [{"devicePath": "", "name": v} for v in volumes]
        status["volumesInUse"] = volumes
    annotations = {
        "alpha.kubernetes.io/provided-node-ip": ip,
        "csi.volume.kubernetes.io/nodeid": json.dumps({"ebs.csi.aws.com": instance}, separators=(",", ":")),
        "karpenter.k8s.aws/ec2nodeclass-hash": str(rng.getrandbits(63)),
        "karpenter.k8s.aws/ec2nodeclass-hash-version": "v4",
        "karpenter.sh/nodepool-hash": str(rng.getrandbits(63)),
        "karpenter.sh/nodepool-hash-version": "v3",
        "node.alpha.kubernetes.io/ttl": "0",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
    }
    managed = [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:annotations": {"f:node.alpha.kubernetes.io/ttl": {}}},
                "f:spec": {"f:podCIDR": {}, "f:podCIDRs": {".": {}, f'v:"{pod_cidr}"': {}}},
            },
            "manager": "kube-controller-manager",
            "operation": "Update",
            "time": created,
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:status": {
                    "f:conditions": {
                        f'k:{{"type":"{kind}"}}': {"f:lastHeartbeatTime": {}} for kind, _, _, _ in CONDITIONS
                    },
                    "f:images": {},
                    "f:nodeInfo": {"f:bootID": {}},
                },
            },
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": heartbeat,
        },
    ]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": annotations,
            "creationTimestamp": created,
            "labels": labels,
            "managedFields": managed,
            "name": name,
            "resourceVersion": str(rng.randint(10_000_000, 999_999_999)),
            "uid": _uuid(rng),
        },
        "spec": {
            "podCIDR": pod_cidr,
            "podCIDRs": [pod_cidr],
            "providerID": f"aws:///{zone}/{instance}",
        },
        "status": status,
    }


def node_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}


# --- kubectl-style YAML --------------------------------------------------------------------------------------------

_RESOLVER = yaml.resolver.Resolver()
_PLAIN_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_")


def _scalar(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    plain = (
        text != ""
        and text[0] in _PLAIN_FIRST
        and text == text.strip()
        and ": " not in text
        and " #" not in text
        and not text.endswith(":")
        and text.isprintable()
        and _RESOLVER.resolve(yaml.ScalarNode, text, (True, False)) == "tag:yaml.org,2002:str"
    )
    return text if plain else json.dumps(text)


def _emit(value: Any, indent: int, out: list[str]) -> None:
    pad = " " * indent
    if isinstance(value, dict):
        for key in sorted(value):
            item = value[key]
            if isinstance(item, dict) and item:
                out.append(f"{pad}{_scalar(key)}:")
                _emit(item, indent + 2, out)
            elif isinstance(item, list) and item:
                out.append(f"{pad}{_scalar(key)}:")
                _emit(item, indent, out)  # sequences in mappings are not indented, as kubectl prints them
            else:
                out.append(f"{pad}{_scalar(key)}: {_inline(item)}")
        return
    for item in value:
        if isinstance(item, dict) and item:
            start = len(out)
            _emit(item, indent + 2, out)
            out[start] = f"{pad}- {out[start][indent + 2 :]}"
        else:
            out.append(f"{pad}- {_inline(item)}")


def _inline(value: object) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _scalar(value)


def to_yaml(value: Any) -> str:
    """``value`` as kubectl prints YAML: keys sorted, 2-space indent, sequences flush with their key."""
    out: list[str] = []
    _emit(value, 0, out)
    return "\n".join(out) + "\n"


def to_json(value: Any) -> str:
    """``value`` as ``kubectl -o json`` prints it: 4-space indent, keys sorted."""
    return json.dumps(value, indent=4, sort_keys=True) + "\n"
