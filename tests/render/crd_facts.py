"""The constraints of the upstream CRDs our delivery targets write into, restated in our own words as JSON Schema
plus checks for their CEL rules, so CI checks the same constraints without shipping upstream files.

Sources (facts read from these files; nothing copied):

- EC2NodeClass, released (no expressions):
  aws/karpenter-provider-aws@v1.14.1:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml
- EC2NodeClass with CEL expressions (the NodeClassCEL change, #9326):
  aws/karpenter-provider-aws@6e13b3e0a07123b420b6034cdc7f53305c93f264:pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml
  (at 1d927085dd81a9df9301e613f371dac5b4d16bfe, after #9461, spec.kubelet accepts any field: these checks are stricter)
- KubeadmConfigTemplate v1beta2:
  kubernetes-sigs/cluster-api@ae7ff047db499ac3858ade268ba38db8c9f128bb:
  bootstrap/kubeadm/config/crd/bases/bootstrap.cluster.x-k8s.io_kubeadmconfigtemplates.yaml
- MachineDeployment v1beta2:
  kubernetes-sigs/cluster-api@ae7ff047db499ac3858ade268ba38db8c9f128bb:core/config/crd/bases/cluster.x-k8s.io_machinedeployments.yaml
- NodeConfig v1alpha1: awslabs/amazon-eks-ami@81fec2e895854f599974fe4d3d72f61c0a9aaffa:nodeadm/crds/node.eks.aws_nodeconfigs.yaml
  and nodeadm/api/v1alpha1/nodeconfig_types.go (kubelet.config is a map of raw KubeletConfiguration values).
"""

from __future__ import annotations

import re
from typing import Any

import jsonschema

from renderer.quantity import Quantity, QuantityError

_DNS_SUBDOMAIN = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"
_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
_INT32 = {"type": "integer", "minimum": -(2**31), "maximum": 2**31 - 1}
_META = {
    "type": "object",
    "required": ["name"],
    "properties": {"name": {"type": "string"}, "namespace": {"type": "string"}},
}

# --- EC2NodeClass (karpenter.k8s.aws/v1) -----------------------------------------------------------------------
EC2_RESERVED_KEYS = ("cpu", "memory", "ephemeral-storage", "pid")
EC2_EVICTION_SIGNALS = (
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "pid.available",
)
# An eviction threshold: empty, a percentage up to 100 with at most two decimals, or a quantity.
_THRESHOLD_PERCENT = re.compile(r"^(\d{1,2}(\.\d{1,2})?|100(\.0{1,2})?)%$")


def _kubelet_schema(expressions: bool) -> dict[str, Any]:
    reserved = dict(_STRING_MAP)
    return {
        "type": "object",
        "additionalProperties": False,  # released v1: the twelve typed fields only
        "properties": {
            "clusterDNS": {"type": "array", "items": {"type": "string"}},
            "cpuCFSQuota": {"type": "boolean"},
            "evictionHard": _STRING_MAP,
            "evictionSoft": _STRING_MAP,
            "evictionSoftGracePeriod": _STRING_MAP,
            "evictionMaxPodGracePeriod": _INT32,
            "imageGCHighThresholdPercent": {"type": "integer", "minimum": 0, "maximum": 100},
            "imageGCLowThresholdPercent": {"type": "integer", "minimum": 0, "maximum": 100},
            "kubeReserved": reserved,
            "systemReserved": reserved,
            # released: a non-negative int32; with expressions: an int (>= 0) or a CEL string
            "maxPods": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "string"}]}
            if expressions
            else {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
            "podsPerCore": {"type": "integer", "minimum": 0, "maximum": 2**31 - 1},
        },
    }


def ec2nodeclass_schema(expressions: bool) -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["apiVersion", "kind", "metadata", "spec"],
        "properties": {
            "apiVersion": {"const": "karpenter.k8s.aws/v1"},
            "kind": {"const": "EC2NodeClass"},
            "metadata": _META,
            "spec": {
                "type": "object",
                "required": ["amiSelectorTerms", "securityGroupSelectorTerms", "subnetSelectorTerms"],
                "properties": {"kubelet": _kubelet_schema(expressions)},
            },
        },
    }


def ec2nodeclass_rule_problems(obj: dict[str, Any], expressions: bool) -> list[str]:
    """The CEL rules of spec and spec.kubelet, restated."""
    spec = obj.get("spec", {})
    out: list[str] = []
    if ("role" in spec) == ("instanceProfile" in spec):
        out.append("spec: exactly one of role and instanceProfile")
    kubelet = spec.get("kubelet", {})
    for part in ("kubeReserved", "systemReserved"):
        for key, value in kubelet.get(part, {}).items():
            if key not in EC2_RESERVED_KEYS:
                out.append(f"{part}: key {key} is not one of {EC2_RESERVED_KEYS}")
            if value.startswith("-"):
                out.append(f"{part}.{key}: negative")
            if not expressions and not _is_quantity(value):
                out.append(f"{part}.{key}: {value!r} is not a quantity (released CRDs accept quantities only)")
    for part in ("evictionHard", "evictionSoft", "evictionSoftGracePeriod"):
        for key, value in kubelet.get(part, {}).items():
            if key not in EC2_EVICTION_SIGNALS:
                out.append(f"{part}: signal {key} is not one of {EC2_EVICTION_SIGNALS}")
            if (
                part != "evictionSoftGracePeriod"
                and value
                and not (_THRESHOLD_PERCENT.match(value) or _is_quantity(value))
            ):
                out.append(f"{part}.{key}: {value!r} is neither a percentage with two decimals nor a quantity")
    soft, grace = set(kubelet.get("evictionSoft", {})), set(kubelet.get("evictionSoftGracePeriod", {}))
    if soft - grace:
        out.append(f"evictionSoft without a grace period: {sorted(soft - grace)}")
    if grace - soft:
        out.append(f"evictionSoftGracePeriod without a soft threshold: {sorted(grace - soft)}")
    high, low = kubelet.get("imageGCHighThresholdPercent"), kubelet.get("imageGCLowThresholdPercent")
    if high is not None and low is not None and not high > low:
        out.append("imageGCHighThresholdPercent must be greater than imageGCLowThresholdPercent")
    return out


def _is_quantity(text: str) -> bool:
    try:
        Quantity.parse(text)
    except (QuantityError, ValueError):
        return False
    return True


# --- KubeadmConfigTemplate (bootstrap.cluster.x-k8s.io/v1beta2) ----------------------------------------------------
_ARG = {
    "type": "object",
    "required": ["name", "value"],
    "additionalProperties": False,
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 256},
        "value": {"type": "string", "minLength": 0, "maxLength": 1024},
    },
}
KUBEADMCONFIGTEMPLATE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "bootstrap.cluster.x-k8s.io/v1beta2"},
        "kind": {"const": "KubeadmConfigTemplate"},
        "metadata": {**_META, "properties": {**_META["properties"], "annotations": _STRING_MAP}},
        "spec": {
            "type": "object",
            "required": ["template"],
            "properties": {
                "template": {
                    "type": "object",
                    "properties": {
                        "spec": {
                            "type": "object",
                            "minProperties": 1,
                            "properties": {
                                "joinConfiguration": {
                                    "type": "object",
                                    "minProperties": 1,
                                    "properties": {
                                        "nodeRegistration": {
                                            "type": "object",
                                            "minProperties": 1,
                                            "additionalProperties": False,
                                            "properties": {
                                                "criSocket": {"type": "string"},
                                                "ignorePreflightErrors": {"type": "array"},
                                                "imagePullPolicy": {"type": "string"},
                                                "imagePullSerial": {"type": "boolean"},
                                                "kubeletExtraArgs": {
                                                    "type": "array",
                                                    "minItems": 1,
                                                    "maxItems": 100,
                                                    "items": _ARG,
                                                },
                                                "name": {"type": "string"},
                                                "taints": {"type": "array"},
                                            },
                                        }
                                    },
                                }
                            },
                        }
                    },
                }
            },
        },
    },
}


def kubeadmconfigtemplate_rule_problems(obj: dict[str, Any]) -> list[str]:
    """kubeletExtraArgs names must be unique (a CEL rule on the list)."""
    args = (
        obj["spec"]["template"]["spec"].get("joinConfiguration", {}).get("nodeRegistration", {}).get("kubeletExtraArgs")
    )
    names = [a["name"] for a in args or []]
    return [f"kubeletExtraArgs name {n} is not unique" for n in sorted(set(names)) if names.count(n) > 1]


# --- MachineDeployment (cluster.x-k8s.io/v1beta2) ----------------------------------------------------------------
_REF = {
    "type": "object",
    "required": ["apiGroup", "kind", "name"],
    "properties": {
        "apiGroup": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": _DNS_SUBDOMAIN},
        "kind": {
            "type": "string",
            "minLength": 1,
            "maxLength": 63,
            "pattern": r"^[a-zA-Z]([-a-zA-Z0-9]*[a-zA-Z0-9])?$",
        },
        "name": {"type": "string", "minLength": 1, "maxLength": 253, "pattern": _DNS_SUBDOMAIN},
    },
}
MACHINEDEPLOYMENT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "metadata", "spec"],
    "properties": {
        "apiVersion": {"const": "cluster.x-k8s.io/v1beta2"},
        "kind": {"const": "MachineDeployment"},
        "metadata": _META,
        "spec": {
            "type": "object",
            "required": ["clusterName", "selector", "template"],
            "properties": {
                "template": {
                    "type": "object",
                    "required": ["spec"],
                    "properties": {
                        "spec": {
                            "type": "object",
                            "required": ["bootstrap", "clusterName", "infrastructureRef"],
                            "properties": {
                                "bootstrap": {"type": "object", "properties": {"configRef": _REF}},
                                "infrastructureRef": _REF,
                            },
                        }
                    },
                }
            },
        },
    },
}

# --- NodeConfig (node.eks.aws/v1alpha1) --------------------------------------------------------------------------
# The CRD types every kubelet.config value as an object (controller-gen's rendering of runtime.RawExtension), which
# nodeadm's own documented examples contradict (shutdownGracePeriod: 30s); nodeadm decodes the document in Go and
# never checks it against the CRD. Restated here as nodeadm reads it: config values are any JSON value.
NODECONFIG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["apiVersion", "kind", "spec"],
    "properties": {
        "apiVersion": {"const": "node.eks.aws/v1alpha1"},
        "kind": {"const": "NodeConfig"},
        "spec": {
            "type": "object",
            "additionalProperties": False,
            "properties": {
                "cluster": {"type": "object"},
                "containerd": {"type": "object"},
                "featureGates": {"type": "object", "additionalProperties": {"type": "boolean"}},
                "instance": {"type": "object"},
                "kubelet": {
                    "type": "object",
                    "additionalProperties": False,
                    "properties": {
                        "config": {"type": "object"},
                        "flags": {"type": "array", "items": {"type": "string"}},
                        "maxPodsExpression": {"type": "string"},
                    },
                },
            },
        },
    },
}


def problems(schema: dict[str, Any], obj: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema)
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(obj)]
