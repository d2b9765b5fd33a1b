"""Karpenter's CEL environment, restated for tests: the variables and the two-argument max/min Karpenter registers
(aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:pkg/cel/environment.go), evaluated with the
``common-expression-language`` package (CEL's no-coercion rules: int and double never mix implicitly, integer
division truncates toward zero, int64 overflow is an error), plus Karpenter's handling of the result
(``formatResourceResult``/``roundUpTo`` in the same file): a double is truncated toward zero, the key's unit is
attached, cpu is rounded up to a multiple of 10 and memory to a multiple of 16.
"""

from __future__ import annotations

from typing import Any

import pytest

cel = pytest.importorskip("cel", reason="common-expression-language is a test dependency (pip install -e '.[test]')")

INT_VARIABLES = ("vcpus", "memory_mib", "max_pods", "default_enis", "ips_per_eni")


def _karpenter_max(a: Any, b: Any) -> Any:
    return _pick(a, b, greater=True)


def _karpenter_min(a: Any, b: Any) -> Any:
    return _pick(a, b, greater=False)


def _pick(a: Any, b: Any, *, greater: bool) -> Any:
    # Karpenter's overloads: (int, int) -> int; any double on either side -> double. Nothing else type-checks.
    for v in (a, b):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"max/min take int or double arguments, got {type(v).__name__}")
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
    return (a if a > b else b) if greater else (a if a < b else b)


def context(vcpus: int, memory_mib: int, max_pods: int, instance_type: str = "test.large") -> Any:
    ctx = cel.Context()
    ctx.add_variable("vcpus", vcpus)
    ctx.add_variable("memory_mib", memory_mib)
    ctx.add_variable("max_pods", max_pods)
    ctx.add_variable("default_enis", 4)
    ctx.add_variable("ips_per_eni", 15)
    ctx.add_variable("instance_type", instance_type)
    ctx.add_function("max", _karpenter_max)
    ctx.add_function("min", _karpenter_min)
    return ctx


def evaluate(expression: str, ctx: Any) -> int:
    """The integer Karpenter takes from ``expression`` (a double is truncated toward zero, as Go's int64() does)."""
    out = cel.evaluate(expression, ctx)
    if isinstance(out, bool) or not isinstance(out, (int, float)):
        raise AssertionError(f"{expression!r} returned {type(out).__name__}; Karpenter requires int or double")
    return int(out)


def karpenter_quantity(resource: str, result: int) -> str:
    """The quantity Karpenter writes for an expression result (formatResourceResult, restated)."""
    if result < 0:
        raise AssertionError(f"negative result {result}: Karpenter drops the entry")
    if resource == "cpu":
        return f"{-(-result // 10) * 10}m"
    if resource == "memory":
        return f"{-(-result // 16) * 16}Mi"
    if resource == "ephemeral-storage":
        return f"{result}Gi"
    return str(result)
