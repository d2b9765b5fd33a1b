"""Every CEL expression the karpenter target can emit, evaluated with a real CEL implementation over a grid of
instance shapes and compared with ``renderer.capacity.formulas`` (what ``allocatable sizing`` prints), exactly and
after Karpenter's rounding.

The grid: every vCPU count from 1 to 192; memory from 512 MiB to 24 TiB, with every tier edge of both the
1000-MiB (GKE) and the 1024-MiB (AKS) brackets and its neighbours; max pods from 4 to 737 (small ENI limits, the
kubelet's 110, the prefix-delegation cap 250, the largest ENI limit m5.24xlarge has). cpu expressions read only
vcpus, memory expressions only memory_mib and max_pods, so each is checked over the product of the variables it
reads, with the others held at several values.
"""

from __future__ import annotations

import itertools
import re
from decimal import Decimal

import pytest

from renderer import platforms
from renderer.capacity.formulas import MIB, Formula, MachineShape, compute
from renderer.capacity.karpenter import (
    CPU_ROUNDING_MILLI,
    MEMORY_ROUNDING_MIB,
    NotExpressible,
    cel_form,
    expressible,
    not_expressible,
    rounded_up,
)
from renderer.quantity import Quantity
from support.karpenter_cel import context, evaluate, karpenter_quantity


def _every_formula() -> dict[str, Formula]:
    """Every built-in formula object: those a policy may name and every platform default's (release variants)."""
    out: dict[str, Formula] = {}
    for name in platforms.names():
        p = platforms.get(name)
        for f in p.formulas:
            out.setdefault(f.name, f)
        for d in p.defaults:
            if d.formula is not None and d.formula not in out.values():
                out.setdefault(d.formula.name if d.formula.name not in out else f"{d.formula.name}@{d.name}", d.formula)
    return out


ALL = _every_formula()
EXPRESSIBLE = sorted(n for n, f in ALL.items() if expressible(f))
FORMULAS = ("eks", "gke", "aks", "aks-legacy")
VCPUS = tuple(range(1, 193))
_EDGES = [4, 8, 16, 128]
MEMORY_MIB = tuple(
    sorted(
        {512, 600, 999, 1000, 1001, 1024, 1740, 2048, 3750, 7680, 15360, 30720, 61440, 122880, 196608, 262144}
        | {393216, 524288, 786432, 1048576, 1572864, 2097152, 3997696, 6291456, 25165824}
        | {unit * e + d for unit in (1000, 1024) for e in _EDGES for d in (-1, 0, 1)}
    )
)
MAX_PODS = (4, 8, 11, 17, 29, 58, 110, 234, 250, 737)
UNIT = {"cpu": Decimal("0.001"), "memory": Decimal(MIB)}
#: the ENI limit the test context gives every instance: default_enis 4, ips_per_eni 15 -> 4 x 14 + 2
ENI_PODS = 58


def _model(
    formula: Formula, part: str, vcpus: int, memory_mib: int, max_pods: int, itype: str = "test.large"
) -> dict[str, str]:
    shape = MachineShape(
        cpus=Decimal(vcpus),
        memory_bytes=memory_mib * MIB,
        max_pods=max_pods,
        machine_memory_bytes=memory_mib * MIB,
        eni_max_pods=ENI_PODS,
        machine_type=itype,
    )
    result = compute(formula, shape)
    return result.kube_reserved if part == "kubeReserved" else result.system_reserved


def _shapes(resource: str) -> list[tuple[int, int, int]]:
    if resource == "cpu":
        return [(v, m, p) for v in VCPUS for m in (1024, 65536) for p in (29, 110)]
    return [(v, m, p) for v in (1, 16, 96) for m in MEMORY_MIB for p in MAX_PODS]


def _check(
    formula: Formula, part: str, resource: str, expression: str, itypes: tuple[str, ...] = ("test.large",)
) -> int:
    checked = 0
    for itype in itypes:
        for vcpus, memory_mib, max_pods in _shapes(resource):
            ctx = context(vcpus, memory_mib, max_pods, itype)
            got = evaluate(expression, ctx)
            want = Quantity.parse(_model(formula, part, vcpus, memory_mib, max_pods, itype)[resource])
            where = (formula.name, part, resource, vcpus, memory_mib, max_pods, itype, got)
            # Exact: the expression returns the formula's value in Karpenter's unit for the key.
            assert Decimal(got) * UNIT[resource] == want.value, where
            # After Karpenter's rounding: what Karpenter writes equals what the capacity model predicts.
            assert Quantity.parse(karpenter_quantity(resource, got)) == rounded_up(resource, want), where
            checked += 1
    return checked


def test_every_built_in_formula_is_either_expressible_or_says_why() -> None:
    for name, formula in ALL.items():
        reason = not_expressible(formula)
        if reason is None:
            continue
        assert reason and "\n" not in reason, name
    assert {"eks", "gke", "aks", "aks-legacy", "aks-windows", "bottlerocket"} <= set(EXPRESSIBLE)


@pytest.mark.parametrize("name", EXPRESSIBLE)
def test_every_expression_of_every_built_in_formula_equals_the_model(name: str) -> None:
    formula = ALL[name]
    form = cel_form(formula)
    overrides = tuple(t for o in formula.overrides if o.karpenter for t in sorted(o.machine_types))
    for part, resources in form.parts.items():
        for resource, text in resources.items():
            if not form.expression(part, resource):
                continue
            assert _check(formula, part, resource, text, ("test.large", *overrides)) >= 570


@pytest.mark.parametrize("formula", FORMULAS)
@pytest.mark.parametrize("resource", ["cpu", "memory"])
def test_expression_equals_formula_exactly_and_after_karpenter_rounding(formula: str, resource: str) -> None:
    f = platforms.formula(formula)
    form = cel_form(f)
    assert form.expression("kubeReserved", resource)
    assert _check(f, "kubeReserved", resource, form.values[resource]) >= 570


@pytest.mark.parametrize("formula", FORMULAS)
def test_constant_values_are_quantities_and_match_the_formula(formula: str) -> None:
    f = platforms.formula(formula)
    form = cel_form(f)
    for resource, text in form.values.items():
        if form.expression("kubeReserved", resource):
            continue
        for vcpus, memory_mib, max_pods in itertools.product((1, 7, 192), (2048, 262144), (11, 737)):
            got = _model(f, "kubeReserved", vcpus, memory_mib, max_pods)[resource]
            assert Quantity.parse(text) == Quantity.parse(got)


@pytest.mark.parametrize("formula", FORMULAS)
def test_expressions_use_only_karpenter_variables_integers_and_two_argument_max_min(formula: str) -> None:
    form = cel_form(platforms.formula(formula))
    for part, resource in form.expressions:
        expression = form.parts[part][resource]
        code = re.sub(r'"[^"]*"', '""', expression)  # string literals (instance types) aside
        # Integer literals only: a double anywhere would not type-check against the int variables (no coercion).
        assert not re.search(r"\d\.\d|\.\d", code), expression
        names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", code))
        assert names <= {
            "vcpus",
            "memory_mib",
            "max_pods",
            "default_enis",
            "ips_per_eni",
            "instance_type",
            "in",
            "max",
            "min",
        }, names
        # A quantity would be taken as a static value by Karpenter: every expression must fail to parse as one.
        with pytest.raises(ValueError):
            Quantity.parse(expression)
        # Every call passes exactly two arguments (Karpenter registers no other arity).
        for call in re.finditer(r"\b(max|min)\(", expression):
            depth, commas, i = 1, 0, call.end()
            while depth:
                ch = expression[i]
                depth += ch == "("
                depth -= ch == ")"
                commas += ch == "," and depth == 1
                i += 1
            assert commas == 1, expression[call.start() : i]


def test_expressions_never_go_negative_or_overflow_on_the_largest_instance() -> None:
    # u-24tb1.metal: 448 vCPUs, 24 TiB (25165824 MiB), 737 pods — Karpenter's own overflow worst case.
    ctx = context(448, 25165824, 737, "u-24tb1.metal")
    for name in EXPRESSIBLE:
        form = cel_form(ALL[name])
        for part, resource in form.expressions:
            assert evaluate(form.parts[part][resource], ctx) >= 0


def test_real_shapes_karpenter_and_nodeadm_publish() -> None:
    # nodeadm's kube-reserved for an m5.large with 29 pods is 574Mi and 70m
    # (awslabs/amazon-eks-ami@81fec2e895854f599974fe4d3d72f61c0a9aaffa:nodeadm/internal/kubelet/config.go: 11 x maxPods
    # + 255; 6/1/0.5/0.25 % cpu tiers); Karpenter's own test evaluates "11 * max_pods + 255" for 58 pods as 893
    # (aws/karpenter-provider-aws@1d927085dd81a9df9301e613f371dac5b4d16bfe:pkg/cel/environment_test.go).
    form = cel_form(platforms.formula("eks"))
    assert evaluate(form.values["memory"], context(2, 8192, 29)) == 574
    assert evaluate(form.values["cpu"], context(2, 8192, 29)) == 70
    assert evaluate(form.values["memory"], context(16, 65536, 58)) == 893
    # The same file rounds 20 pods x 11 = 220 up to 224Mi, and 60m stays 60m.
    assert karpenter_quantity("memory", 220) == "224Mi" == str(rounded_up("memory", Quantity.parse("220Mi")))
    assert karpenter_quantity("cpu", 60) == "60m" == str(rounded_up("cpu", Quantity.parse("60m")))


@pytest.mark.parametrize(
    ("resource", "exact", "rounded"),
    [("cpu", "75m", "80m"), ("cpu", "0.5", "500m"), ("memory", "893Mi", "896Mi"), ("memory", "1Gi", "1024Mi")],
)
def test_rounding_goes_up_to_karpenters_granularity(resource: str, exact: str, rounded: str) -> None:
    assert rounded_up(resource, Quantity.parse(exact)) == Quantity.parse(rounded)
    assert CPU_ROUNDING_MILLI == 10 and MEMORY_ROUNDING_MIB == 16


def test_openshift_formulas_are_not_expressible_and_say_why() -> None:
    for name in platforms.formula_names():
        formula = platforms.formula(name)
        if formula.on_node:
            assert not expressible(formula)
            with pytest.raises(NotExpressible, match="MemTotal"):
                cel_form(formula)
    assert {n for n in platforms.formula_names() if not expressible(platforms.formula(n))} == {
        n for n in platforms.formula_names() if platforms.formula(n).on_node
    }


def test_every_built_in_expression_stays_in_int64_at_the_bounds() -> None:
    # The compiler's bounds (renderer/capacity/cel_bounds.py): 4096 vCPUs, 2^26 MiB (64 TiB), 2^31-1 pods. The real
    # CEL evaluator checks int64 arithmetic (an overflow raises), so evaluating at the corners proves it here.
    from renderer.capacity.cel_bounds import bounds

    corners = [context(v, m, p) for v in (1, 4096) for m in (0, 2**26) for p in (0, 2**31 - 1)]
    for name in EXPRESSIBLE:
        form = cel_form(ALL[name])
        assert not form.too_large, name
        for part, resource in form.expressions:
            expression = form.parts[part][resource]
            assert bounds(expression).lo >= 0, (name, expression)
            for ctx in corners:
                assert evaluate(expression, ctx) >= 0
