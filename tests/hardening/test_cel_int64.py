"""Issue 30, class 4: the Karpenter CEL compiled from ``autoSizing.custom`` stays within CEL's 64-bit integers.

CEL's integer arithmetic is checked (cel-spec doc/langdef.md, "Numeric values": overflow is an error) and a literal
above 2^63-1 does not parse; Karpenter evaluates an EC2NodeClass expression per instance type and an error leaves the
type without a kubelet configuration. Every expression here is evaluated with a real CEL implementation (the
``common-expression-language`` package, cel-rust, through ``tests/support/karpenter_cel.py``), which has
those semantics — the first tests prove it does. Expected values are worked by hand (the reasoning beside each) or
computed with ``decimal`` from the literal the policy states, never with the project's own arithmetic.

The bounds the compiler checks against (``renderer/capacity/cel_bounds.py``): vcpus <= 4096, memory_mib <= 2^26
(64 TiB), max_pods <= 2^31-1.

The CLI runs in this process (``support.hardening.in_process``): these are bad-input checks (exit code, located
lines, no traceback, nothing written), which do not depend on running as a process of its own.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from renderer.capacity.cel_bounds import Overflow, bounds
from renderer.capacity.karpenter import best_below, lossless
from support.hardening import REPO_ROOT, assert_no_crash, in_process, shown, snapshot
from support.karpenter_cel import context, evaluate

cel = pytest.importorskip("cel")

MEMORY_MAX = 2**26
#: The expression the issue reports for ``fraction: 0.123456789123456789`` (one tier over machine memory).
ISSUE_EXPRESSION = "memory_mib * 6172839456172839 / 50000000000000000"


def test_the_evaluator_has_int64_semantics() -> None:
    # 8192 x 6172839456172839 = 5.06e19 > 2^63-1 = 9.22e18: checked arithmetic makes it an evaluation error.
    with pytest.raises(OverflowError):
        evaluate(ISSUE_EXPRESSION, context(2, 8192, 29))
    # 2^63 is not an int literal CEL parses; 2^63-1 is.
    with pytest.raises(ValueError):
        evaluate("9223372036854775808", context(2, 8192, 29))
    assert evaluate("9223372036854775807", context(2, 8192, 29)) == 2**63 - 1
    with pytest.raises(OverflowError):
        evaluate("9223372036854775807 + vcpus", context(1, 8192, 29))


def test_the_bound_check_sees_what_the_evaluator_sees() -> None:
    with pytest.raises(Overflow):
        bounds(ISSUE_EXPRESSION)
    with pytest.raises(Overflow):
        bounds("123456789123456780000 * min(memory_mib, 4096)")
    # 2^26 x 2^36 = 2^62 fits; 2^26 x 2^37 = 2^63 does not.
    assert bounds(f"memory_mib * {2**36}").hi == 2**62
    with pytest.raises(Overflow):
        bounds(f"memory_mib * {2**37}")
    # a clamp keeps the range small: min(..., 4096) x 2^50 = 2^62
    assert bounds(f"min(memory_mib, 4096) * {2**50}").hi == 2**62
    # interval of a difference: memory_mib - 4096 is in [-4096, 2^26 - 4096]; max(.., 0) lifts the floor to 0
    assert bounds("max(memory_mib - 4096, 0)") == (0, MEMORY_MAX - 4096)


def _policy(custom: str) -> str:
    return f"""\
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata:
  name: karpenter-gke-tiers
spec:
  selector:
    - matchExpressions:
        - key: karpenter.sh/nodepool
          operator: In
          values: [general-purpose]
  autoSizing:
    custom:
{custom}
  evictionHard:
    memory.available: 100Mi
    nodefs.available: "10%"
    nodefs.inodesFree: "5%"
"""


def _repo(tmp_path: Path, custom: str) -> Path:
    import shutil

    shutil.copytree(REPO_ROOT / "policies", tmp_path / "policies")
    (tmp_path / "policies" / "reservations" / "karpenter-gke-tiers.yaml").write_text(_policy(custom))
    return tmp_path


def _rendered(tmp_path: Path, custom: str) -> dict[str, str]:
    """The kubeReserved map render writes for EC2NodeClass general."""
    import yaml

    _repo(tmp_path, custom)
    res = in_process("render", "policies", "-o", "out", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 0, shown(res)
    doc = yaml.safe_load((tmp_path / "out" / "karpenter" / "general.yaml").read_text())
    return dict(doc["spec"]["kubelet"]["kubeReserved"])


def _floor(x: Decimal) -> int:
    return int(x.to_integral_value(rounding=ROUND_FLOOR))


MANY_DIGITS = '"0.123456789123456789"'


def test_a_many_digit_fraction_renders_an_expression_that_stays_in_int64(tmp_path: Path) -> None:
    custom = f"""\
      kubeReserved:
        memory:
          of: machineMemory
          tiers:
          - {{fraction: {MANY_DIGITS}}}
"""
    expression = _rendered(tmp_path, custom)["memory"]
    bounds(expression)  # no Overflow
    f = Decimal("0.123456789123456789")
    # by hand: 0.123456789123456789 x 8192 = 1011.358... -> 1011; x 1024 = 126.419... -> 126;
    # x 2^26 = 67108864 x 0.123456789... = 8285044.9... -> 8285044 (and the exact floors from decimal below)
    assert evaluate(expression, context(2, 8192, 29)) == 1011
    assert evaluate(expression, context(2, 1024, 29)) == 126
    for m in (0, 1, 8, 9, 81, 1000, 8100, 65536, 393216, 25165824, MEMORY_MAX - 1, MEMORY_MAX):
        assert evaluate(expression, context(2, m, 29)) == _floor(f * m), m
    assert evaluate(expression, context(2, MEMORY_MAX, 29)) == 8285044


def test_a_tiny_fraction_renders_zero_not_an_unparseable_literal(tmp_path: Path) -> None:
    # 1e-21 x 2^26 = 6.7e-14 < 1: the tier reserves nothing on any instance within the bounds, and the base stays.
    custom = """\
      kubeReserved:
        memory:
          of: machineMemory
          base: 255Mi
          tiers:
          - {fraction: "0.000000000000000000001"}
"""
    expression = _rendered(tmp_path, custom)["memory"]
    bounds(expression)
    for m in (512, 8192, MEMORY_MAX):
        assert evaluate(expression, context(2, m, 29)) == 255


def test_a_per_pod_amount_in_kib_beside_a_tier_fits(tmp_path: Path) -> None:
    # perPod 1001Ki = 1001/1024 Mi and 5 % of memory: the common denominator is lcm(20, 1024) = 5120, the largest
    # product 5005 x (2^31-1) = 1.07e13, far inside int64. By hand at 8192 MiB, 110 pods: 409.6 + 107.53 = 517.13
    # -> 517; at 65536 MiB, 29 pods: 3276.8 + 28.35 = 3305.15 -> 3305.
    custom = """\
      kubeReserved:
        memory:
          of: machineMemory
          perPod: 1001Ki
          tiers:
          - {fraction: 0.05}
"""
    expression = _rendered(tmp_path, custom)["memory"]
    bounds(expression)
    assert evaluate(expression, context(2, 8192, 110)) == 517
    assert evaluate(expression, context(2, 65536, 29)) == 3305
    assert evaluate(expression, context(2, MEMORY_MAX, 2**31 - 1)) >= 0  # the real evaluator: no overflow


def test_whole_per_pod_and_base_stay_outside_the_common_denominator_when_it_would_overflow(tmp_path: Path) -> None:
    # Two 9-digit tiers share the denominator 10^9; with 11Mi per pod inside it, 11 x 10^9 x (2^31-1) = 2.4e19 >
    # 2^63-1, so render writes 11 * max_pods + 255 + (tiers) / 10^9 instead (floor(I + F/d) = I + floor(F/d) for a
    # whole I). By hand at 8192 MiB, 110 pods: 11 x 110 + 255 = 1465; tiers 4096 x 0.123456789 = 505.679007744 plus
    # 4096 x 0.000000001 = 0.000004096 -> 505; total 1970. At 65536 MiB, 29 pods: 574 + floor(505.679007744 +
    # 61440 x 10^-9) = 574 + 505 = 1079.
    custom = """\
      kubeReserved:
        memory:
          of: machineMemory
          perPod: 11Mi
          base: 255Mi
          tiers:
          - {upTo: 4Gi, fraction: 0.123456789}
          - {fraction: 0.000000001}
"""
    expression = _rendered(tmp_path, custom)["memory"]
    bounds(expression)
    assert expression.startswith("11 * max_pods + 255 + "), expression
    assert evaluate(expression, context(2, 8192, 110)) == 1970
    assert evaluate(expression, context(2, 65536, 29)) == 1079
    assert evaluate(expression, context(4096, MEMORY_MAX, 2**31 - 1)) > 0  # the real evaluator: no overflow


def test_an_each_tier_fraction_rounded_up_is_reduced_from_above(tmp_path: Path) -> None:
    # cpu: 60m for the first core, then 0.000123456789123456789 of each further core (0.123456789... millicores)
    # rounded up per tier. By hand at 448 vCPUs: 447 x 0.123456789123456789 = 55.18518... -> 56, total 116m;
    # at 2 vCPUs: 0.1234... -> 1, total 61m; at 1 vCPU: the second tier is empty, 60m.
    custom = """\
      kubeReserved:
        cpu:
          tiers:
          - {upTo: "1", fraction: 0.06}
          - {fraction: "0.000123456789123456789"}
          eachTier: true
          round: up
"""
    expression = _rendered(tmp_path, custom)["cpu"]
    bounds(expression)
    assert evaluate(expression, context(448, 8192, 29)) == 116
    assert evaluate(expression, context(2, 8192, 29)) == 61
    assert evaluate(expression, context(1, 8192, 29)) == 60
    f = Decimal("0.000123456789123456789") * 1000
    for v in range(1, 4097, 7):
        want = 60 + int((f * (v - 1)).to_integral_value(rounding=ROUND_CEILING))
        assert evaluate(expression, context(v, 8192, 29)) == want, v


def _refused(tmp_path: Path, custom: str) -> list[str]:
    _repo(tmp_path, custom)
    before = snapshot(tmp_path)
    res = in_process("render", "policies", "-o", "out", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 1, shown(res)
    assert snapshot(tmp_path) == before  # nothing written
    return [ln for ln in res.stdout.splitlines() if "[AL809]" in ln]


def test_a_clamped_many_digit_fraction_is_refused_with_the_precision_that_fits(tmp_path: Path) -> None:
    # min makes the tier share one denominator with the clamp, so the fraction cannot be reduced on its own: the
    # expression is memory_mib x numerator / 10^k. By hand: with 12 places, 0.123456789123 = 123456789123 / 10^12,
    # and 123456789123 x 2^26 = 8.28e18 < 2^63-1 = 9.22e18; with 13 places, 0.1234567891235 = 246913578247 /
    # (2 x 10^12) and 246913578247 x 2^26 = 1.66e19 > 2^63-1. So: at most 12 decimal places.
    custom = f"""\
      kubeReserved:
        memory:
          of: machineMemory
          tiers:
          - {{fraction: {MANY_DIGITS}}}
          min: 256Mi
"""
    errors = _refused(tmp_path, custom)
    assert len(errors) == 1, errors
    line = errors[0]
    # located at the term: spec.autoSizing.custom.kubeReserved.memory (line 14 of the policy _policy writes)
    assert line.startswith("policies/reservations/karpenter-gke-tiers.yaml:14:9: error: kubeReserved.memory:"), line
    assert "at most 12 decimal places" in line, line


def test_a_fraction_beside_a_per_pod_kib_amount_is_refused_with_the_precision_that_fits(tmp_path: Path) -> None:
    # perPod 1001Ki (1001/1024 Mi) and a tier of 0.0000000001 (10^-10): common denominator lcm(20, 10^10, 2^10) =
    # 2^10 x 5^10 = 10^10, and the per-pod product 10^10 x 1001/1024 x (2^31-1) = 9775390625 x (2^31-1) = 2.1e19
    # > 2^63-1 = 9.22e18. With 9 places the tier rounds to 0, leaving lcm(20, 1024) = 5120 (see the 5 % test
    # above): at most 9 decimal places. (10^-9 itself fits: lcm = 2^10 x 5^9 = 2e9, 1955078125 x (2^31-1) = 4.2e18.)
    custom = """\
      kubeReserved:
        memory:
          of: machineMemory
          perPod: 1001Ki
          tiers:
          - {upTo: 8Gi, fraction: 0.05}
          - {fraction: "0.0000000001"}
"""
    errors = _refused(tmp_path, custom)
    assert len(errors) == 1 and "at most 9 decimal places" in errors[0], errors


@settings(max_examples=200, deadline=None)
@given(
    num=st.integers(min_value=0, max_value=10**18),
    den=st.integers(min_value=1, max_value=10**18),
    n=st.integers(min_value=1, max_value=400),
)
def test_best_below_is_the_largest_fraction_of_small_denominator_and_floors_alike(num: int, den: int, n: int) -> None:
    c = Fraction(num % den, den)  # in [0, 1)
    got = best_below(c, n)
    assert got <= c and got.denominator <= n
    # maximal: no fraction with a denominator up to n lies strictly between got and c (brute force over q)
    assert got == max(Fraction((c * q).numerator // (c * q).denominator, q) for q in range(1, n + 1))
    for x in range(n + 1):
        assert (c * x) // 1 == (got * x) // 1


@settings(max_examples=200, deadline=None)
@given(
    num=st.integers(min_value=0, max_value=10**18),
    den=st.integers(min_value=1, max_value=10**18),
    n=st.integers(min_value=1, max_value=300),
    mode=st.sampled_from(["down", "up", "half-up"]),
)
def test_lossless_rounds_every_value_in_range_alike(num: int, den: int, n: int, mode: str) -> None:
    c = Fraction(num, den)
    expr = f"min(memory_mib, {n})"  # the range 0..n
    got = lossless(c, expr, mode)
    assert got.denominator <= 2 * n or got == c

    def rounded(f: Fraction, x: int) -> int:
        v = f * x
        if mode == "down":
            return v.numerator // v.denominator
        if mode == "up":
            return -((-v.numerator) // v.denominator)
        h = v + Fraction(1, 2)
        return h.numerator // h.denominator

    for x in range(n + 1):
        assert rounded(c, x) == rounded(got, x), (x, mode)
