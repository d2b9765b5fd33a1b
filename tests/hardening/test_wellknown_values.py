"""Issue 30, class 11: values of well-known node labels that AL104 must never take for typos, and typos it must
still catch. Real values from the clouds' own lists: EC2 instance types (docs.aws.amazon.com/ec2/latest/
instancetypes), Compute Engine machine types and zones (cloud.google.com/compute/docs/machine-resource,
.../regions-zones), Azure VM sizes (learn.microsoft.com/azure/virtual-machines/sizes) and regions, OCI shapes,
Go's GOOS/GOARCH (`go tool dist list`)."""

from __future__ import annotations

import pytest

from renderer.platforms import known_label_value

TYPE = "node.kubernetes.io/instance-type"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"

REAL = [
    (TYPE, "g6.xlarge"),
    (TYPE, "g6.2xlarge"),
    (TYPE, "m5.large"),
    (TYPE, "m5.xlarge"),
    (TYPE, "t3.nano"),
    (TYPE, "u-24tb1.metal"),
    (TYPE, "c7i.metal-24xl"),
    (TYPE, "m7i-flex.large"),
    (TYPE, "mac2-m2pro.metal"),
    (TYPE, "n2-standard-4"),
    (TYPE, "n2-standard-8"),
    (TYPE, "c3-highcpu-22-lssd"),
    (TYPE, "e2-micro"),
    (TYPE, "a2-highgpu-1g"),
    (TYPE, "n2-custom-8-16384"),
    (TYPE, "Standard_D4s_v5"),
    (TYPE, "Standard_D4s_v4"),
    (TYPE, "Standard_NC24ads_A100_v4"),
    (TYPE, "VM.Standard.E4.Flex"),
    (ZONE, "us-east-1a"),
    (ZONE, "us-east-1b"),
    (ZONE, "ap-southeast-2c"),
    (ZONE, "us-west-2-lax-1a"),
    (ZONE, "use1-az1"),
    (ZONE, "us-central1-a"),
    (ZONE, "europe-west4-b"),
    (ZONE, "eastus-1"),
    (ZONE, "westeurope-3"),
    (REGION, "us-east-1"),
    (REGION, "us-gov-west-1"),
    (REGION, "eu-central-2"),
    (REGION, "us-central1"),
    (REGION, "northamerica-northeast1"),
    (REGION, "eastus"),
    (REGION, "eastus2"),
    ("kubernetes.io/arch", "arm64"),
    ("kubernetes.io/arch", "amd64"),
    ("kubernetes.io/os", "windows"),
    ("karpenter.sh/capacity-type", "on-demand"),
    ("karpenter.sh/capacity-type", "reserved"),
    ("eks.amazonaws.com/capacityType", "CAPACITY_BLOCK"),
    ("karpenter.k8s.aws/instance-size", "48xlarge"),
    ("karpenter.k8s.aws/instance-family", "g6e"),
    ("example.com/generation", "7"),  # a number, whatever the key
]
TYPOS = [
    (TYPE, "g6.xlarg"),
    (TYPE, "m5.lagre"),
    (TYPE, "n2-standad-4"),
    (TYPE, "standard_D4s_v5"),
    (ZONE, "us-esat-1a"),
    (ZONE, "us-east-1aa"),
    (ZONE, "us-centrl1-a"),
    (REGION, "us-esat-1"),
    ("kubernetes.io/arch", "amd46"),
    ("kubernetes.io/os", "linx"),
    ("karpenter.sh/capacity-type", "on-demnad"),
    ("example.com/tier", "wbe"),  # a key of the user's own: edit distance still decides
]


@pytest.mark.parametrize(("key", "value"), REAL)
def test_real_values_are_never_typos(key: str, value: str) -> None:
    assert known_label_value(key, value)


@pytest.mark.parametrize(("key", "value"), TYPOS)
def test_misspelt_values_are_left_to_edit_distance(key: str, value: str) -> None:
    assert not known_label_value(key, value)
