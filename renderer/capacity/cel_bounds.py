"""The range of every integer a Karpenter CEL expression can compute, so that render never writes one that leaves
CEL's 64-bit integers.

CEL's integers are int64 and its arithmetic is checked (cel-spec ``doc/langdef.md``, "Numeric values": overflow is
an evaluation error, not a wrap-around), and an integer literal above 2^63-1 does not parse. Karpenter evaluates an
EC2NodeClass expression once per instance type; an error there leaves the instance type without a kubelet
configuration, so Karpenter launches nothing from it. :func:`bounds` reads the expression back (the subset
``renderer.capacity.karpenter`` writes: integer literals, the variables, ``+ - * / ?: <= > in``, two-argument
``max``/``min``, string lists) and computes, by interval arithmetic, the range of every sub-expression over
:data:`VARIABLES`; :class:`Overflow` names the first one outside int64. Interval arithmetic over-approximates
(``x - x`` is not seen as 0), so the check is sound: an expression it accepts cannot overflow for any instance
within the bounds.

The bounds (:data:`VARIABLES`): ``vcpus`` up to 4096 and ``memory_mib`` up to 2^26 MiB (64 TiB), about four and
two times the largest EC2 instances (u7i/u7in ``.224xlarge``: 896 vCPUs, 32 TiB; the project's own largest
machine, ``renderer.models.custom_formula.LARGEST``, is u-24tb1.metal: 448 vCPUs, 24 TiB); ``max_pods`` up to
2^31-1, the kubelet's and the EC2NodeClass's ``maxPods`` being int32; ``default_enis`` and ``ips_per_eni`` from 1
(the primary interface and its primary address) to 2^16, far above any EC2 type.

Pure domain code: no I/O. Cost: O(length of the expression).
"""

from __future__ import annotations

import re
from typing import NamedTuple

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)

#: The range Karpenter's integer variables can take (the module docstring says where each bound comes from).
VARIABLES: dict[str, tuple[int, int]] = {
    "vcpus": (1, 4096),
    "memory_mib": (0, 2**26),
    "max_pods": (0, 2**31 - 1),
    "default_enis": (1, 2**16),
    "ips_per_eni": (1, 2**16),
}
#: How the bounds read in a message.
BOUNDS_TEXT = "instances up to 4096 vCPUs, 64 TiB of memory and 2^31-1 pods"

_TOKEN = re.compile(
    r'\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|("(?:[^"\\]|\\.)*")|(<=|>=|==|!=|&&|\|\||[-+*/%()?:,<>\[\]!]))'
)


class Overflow(ValueError):
    """A sub-expression that can leave int64 (the message names it and its range)."""


class Range(NamedTuple):
    lo: int
    hi: int


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"unexpected text at {pos}: {text[pos : pos + 20]!r}")
        out.append(m.group(m.lastindex or 0))
        pos = m.end()
    return out


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


class _Reader:
    """A recursive-descent reader of the subset, computing ranges (None for booleans and strings)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, want: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (want is not None and tok != want):
            raise ValueError(f"expected {want or 'more'} in {self.text!r}")
        self.i += 1
        return tok

    def check(self, r: Range, what: str) -> Range:
        if r.lo < INT64_MIN or r.hi > INT64_MAX:
            reach = r.hi if r.hi > INT64_MAX else r.lo
            raise Overflow(f"{what} reaches {reach}, outside CEL's 64-bit integers, on {BOUNDS_TEXT}")
        return r

    def conditional(self) -> Range | None:
        cond = self.relation()
        if self.peek() != "?":
            return cond
        self.take("?")
        a = self.conditional()
        self.take(":")
        b = self.conditional()
        if a is None or b is None:
            return None
        return Range(min(a.lo, b.lo), max(a.hi, b.hi))

    def relation(self) -> Range | None:
        left = self.additive()
        while self.peek() in ("<=", ">=", "<", ">", "==", "!=", "in"):
            self.take()
            self.additive()
            left = None
        return left

    def additive(self) -> Range | None:
        left = self.multiplicative()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.multiplicative()
            assert left is not None and right is not None, self.text
            if op == "+":
                left = self.check(Range(left.lo + right.lo, left.hi + right.hi), "a sum")
            else:
                left = self.check(Range(left.lo - right.hi, left.hi - right.lo), "a difference")
        return left

    def multiplicative(self) -> Range | None:
        left = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()
            right = self.unary()
            assert left is not None and right is not None, self.text
            if op == "*":
                corners = [a * b for a in (left.lo, left.hi) for b in (right.lo, right.hi)]
                left = self.check(Range(min(corners), max(corners)), "a product")
            else:
                if right.lo <= 0 <= right.hi:
                    raise Overflow("a division by a value that can be 0")
                corners = [_trunc_div(a, b) for a in (left.lo, left.hi) for b in (right.lo, right.hi)]
                left = self.check(Range(min(corners), max(corners)), "a quotient")
        return left

    def unary(self) -> Range | None:
        if self.peek() == "-":
            self.take()
            r = self.unary()
            assert r is not None, self.text
            return self.check(Range(-r.hi, -r.lo), "a negation")
        return self.primary()

    def primary(self) -> Range | None:
        tok = self.take()
        if tok.isdigit():
            value = int(tok)
            if value > INT64_MAX:
                raise Overflow(f"the literal {tok} is above 2^63-1, which CEL does not parse")
            return Range(value, value)
        if tok.startswith('"'):
            return None
        if tok == "(":
            r = self.conditional()
            self.take(")")
            return r
        if tok == "[":
            while self.peek() != "]":
                self.conditional()
                if self.peek() == ",":
                    self.take(",")
            self.take("]")
            return None
        if tok in ("max", "min") and self.peek() == "(":
            self.take("(")
            a = self.conditional()
            self.take(",")
            b = self.conditional()
            self.take(")")
            assert a is not None and b is not None, self.text
            pick = max if tok == "max" else min
            return Range(pick(a.lo, b.lo), pick(a.hi, b.hi))
        if tok in VARIABLES:
            return Range(*VARIABLES[tok])
        if tok == "instance_type":
            return None
        raise ValueError(f"unknown name {tok!r} in {self.text!r}")


def bounds(expression: str) -> Range:
    """The range of ``expression``'s value over :data:`VARIABLES`; raises :class:`Overflow` when it or any part of
    it can leave int64 (or a literal does not parse)."""
    reader = _Reader(expression)
    r = reader.conditional()
    if reader.peek() is not None:
        raise ValueError(f"unexpected {reader.peek()!r} in {expression!r}")
    if r is None:
        raise ValueError(f"{expression!r} is not an integer expression")
    return r
