"""kubectl's JSONPath templates (``-o jsonpath='{range .pools[*]}{.name}{"\\n"}{end}'``) on any JSON value.

kubectl's dialect (https://kubernetes.io/docs/reference/kubectl/jsonpath/, implemented by client-go's
``util/jsonpath``) is a template, not one path: text, and actions in braces holding a path (``.a.b``, ``[0]``,
``[1:3]``, ``[*]``, ``.*``, ``..name``, ``['a','b']``, ``[?(@.x == "y")]``), quoted text (``{"\\t"}``), numbers and
booleans, and ``{range PATH}`` … ``{end}`` blocks whose body is evaluated against each value. Reading a step is a
dict lookup or a list slice (a JSONPath library once did those two, and nothing of kubectl's dialect: its grammar,
union, filter and printing rules are all written here); facts are taken from client-go and checked against kubectl
itself (tests/reporters/test_kubectl_jsonpath.py runs kubectl on the same JSON):

- a step runs over every current value, and a union evaluates each of its branches over all of them in turn
  (``['name','n']`` prints every name, then every n); missing keys give nothing (kubectl's
  ``--allow-missing-template-keys`` default), but an index or slice outside an array is an error, as is indexing
  something that is not an array; a filter compares one value with one value, of the same basic type;
- what an action prints: its results separated by one space; a string as is, an integer in decimal, a float as Go
  formats it, ``true``/``false``, ``null``; a map or list as compact JSON with sorted keys and HTML characters
  escaped (Go's ``json.Marshal``).

Where kubectl's order is that of a Go map (``.*`` and ``..`` over an object, which differs run to run), the order
here is the document's. ``{range}`` without ``{end}`` is an error here (kubectl runs the rest of the template
twice).

Cost: parsing O(template); rendering O(size of the values each step visits) per action and range iteration.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any

from renderer.escaping import json_raw_escapes, plain
from renderer.reporters.jsonpath_template import (
    Action,
    Array,
    Field,
    Filter,
    Literal,
    Node,
    Recursive,
    Step,
    TemplateError,
    Text,
    Union,
    Wildcard,
    parse,
)

__all__ = ["Template", "TemplateError", "go_json", "go_text"]

# --- evaluation ----------------------------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    """The Go type kubectl names in its errors for a JSON value."""
    if isinstance(value, dict):
        return "map[string]interface {}"
    if isinstance(value, list):
        return "[]interface {}"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    return "<nil>"


def _children(value: Any) -> list[Any]:
    """Every member of a map (document order), list or string (its bytes, as Go indexes a string)."""
    if isinstance(value, dict):
        return list(value.values())
    if isinstance(value, list):
        return list(value)
    if isinstance(value, str):
        return list(value.encode("utf-8"))
    return []


def _field(values: list[Any], name: str) -> list[Any]:
    """``.name`` over every current value: the maps that hold the key give its value (a missing key, or a value
    that is no map, gives nothing: kubectl's ``--allow-missing-template-keys``)."""
    return [v[name] for v in values if isinstance(v, dict) and name in v]


def _array(values: list[Any], step: Array) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if value is None:
            continue
        if not isinstance(value, list):
            raise TemplateError(f"{_kind(value)} is not array or slice")
        length = len(value)
        start = 0 if step.start is None else step.start
        if start < 0:
            start += length
        end = length if step.end is None else step.end
        if end < 0 or (end == 0 and step.end_derived):
            end += length
        if end == start:
            return out  # kubectl stops at the first empty selection: the values after it give nothing
        if start >= length or start < 0:
            raise TemplateError(f"array index out of bounds: index {start}, length {length}")
        if end > length or end < 0:
            raise TemplateError(f"array index out of bounds: index {end - 1}, length {length}")
        if start > end:
            raise TemplateError(f"starting index {start} is greater than ending index {end}")
        if step.step is not None and step.step <= 0:
            raise TemplateError("step must be > 0")
        out.extend(value[start : end : step.step])  # bounds checked above, as kubectl checks them
    return out


def _recursive(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if value is None:
            continue
        children = _children(value)
        if children:
            out.append(value)
            out.extend(_recursive(children))
    return out


class _Verbatim(str):
    """Text the template itself holds (``{"\\t"}``): printed as written, never escaped as a value is."""

    __slots__ = ()


def _basic(value: Any) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    return None


def _compare(left: Any, op: str, right: Any) -> bool:
    """Go text/template's comparison (eq, ne, lt, le, gt, ge) of two JSON values, as kubectl's filters use it."""
    k1, k2 = _basic(left), _basic(right)
    if k1 is None or k2 is None:
        raise TemplateError("invalid type for comparison")
    if k1 != k2:
        raise TemplateError("incompatible types for comparison")
    if op in ("==", "!="):
        return bool(left == right) == (op == "==")
    if k1 == "bool":
        raise TemplateError("invalid type for comparison")
    if op == "<":
        return bool(left < right)
    if op == ">":
        return bool(left > right)
    if op == "<=":
        return bool(left < right or left == right)
    return bool(left > right or left == right)


def _filter(values: list[Any], step: Filter) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if not isinstance(value, list):
            raise TemplateError(f"{_kind(value)} is not array or slice and cannot be filtered")
        for item in value:
            if step.op == "exists":
                try:
                    if _walk([item], step.left):
                        out.append(item)
                except TemplateError:
                    pass
                continue
            lefts = _walk([item], step.left)
            if not lefts:
                continue
            if len(lefts) > 1:
                raise TemplateError("can only compare one element at a time")
            rights = _walk([item], step.right)
            if not rights:
                continue
            if len(rights) > 1:
                raise TemplateError("can only compare one element at a time")
            if _compare(lefts[0], step.op, rights[0]):
                out.append(item)
    return out


def _walk(values: list[Any], steps: tuple[Step, ...]) -> list[Any]:
    for step in steps:
        if isinstance(step, Field):
            values = _field(values, step.name)
        elif isinstance(step, Array):
            values = _array(values, step)
        elif isinstance(step, Wildcard):
            values = [c for v in values if v is not None for c in _children(v)]
        elif isinstance(step, Recursive):
            values = _recursive(values)
        elif isinstance(step, Union):
            values = [v for branch in step.branches for v in _walk(values, branch)]
        elif isinstance(step, Filter):
            values = _filter(values, step)
        elif isinstance(step, Literal):
            values = [_Verbatim(step.value)] if isinstance(step.value, str) else [step.value for _ in values]
        else:
            raise TemplateError(f"unrecognized identifier {step.name}")
    return values


# --- printing --------------------------------------------------------------------------------------------------


def _go_float_text(f: float) -> str:
    """Go's ``%v`` of a float64: the shortest form, with an exponent below 1e-4 and from 1e21 on."""
    if f != f or f in (float("inf"), float("-inf")):
        return {"nan": "NaN", "inf": "+Inf", "-inf": "-Inf"}[repr(f)]
    text = repr(f)
    exponent = abs(f) >= 1e21 or (f != 0 and abs(f) < 1e-4)
    if exponent:
        mantissa, _, exp = text.partition("e")
        if not exp:  # repr printed it positionally: write the exponent form
            mantissa, _, exp = f"{Decimal(text):e}".partition("e")
        mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
        sign = "-" if exp.startswith("-") else "+"
        return f"{mantissa}e{sign}{exp.lstrip('+-').zfill(2)}"
    return _positional(text)


def _positional(text: str) -> str:
    value = Decimal(text).normalize()
    out = f"{value:f}"
    return "0" if out in ("-0", "0") and not text.startswith("-") else out


def _go_float_json(f: float) -> str:
    """Go's ``json.Marshal`` of a float64: positional from 1e-6 up to 1e21, else the exponent form ``1e-7``."""
    if f != 0 and (abs(f) < 1e-6 or abs(f) >= 1e21):
        text = _go_float_text(f)
        mantissa, _, exp = text.partition("e")
        sign, digits = exp[0], exp[1:].lstrip("0") or "0"
        return f"{mantissa}e{sign}{digits}"
    return _positional(repr(f))


_HTML = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_HTML_RE = re.compile("[<>&\u2028\u2029]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _go_string(s: str) -> str:
    if _SURROGATE.search(s):  # Go writes what is not valid UTF-8 as U+FFFD
        s = s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    text = json.dumps(s, ensure_ascii=False)
    # Go's HTML escapes, then what JSON would carry raw but no reader should see raw (DEL, C1, bidi, invisible).
    return json_raw_escapes(_HTML_RE.sub(lambda m: _HTML[m.group(0)], text))


def go_json(value: Any) -> str:
    """``value`` as Go's ``json.Marshal`` writes it (compact, keys sorted, HTML characters escaped).
    Cost: O(size of the value)."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{_go_string(k)}:{go_json(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    if isinstance(value, str):
        return _go_string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return _go_float_json(value)
    return str(int(value))


def go_text(value: Any) -> str:
    """One result as kubectl prints it: maps and lists as ``go_json``, everything else as Go's ``%v`` — except that
    a string's control, line-breaking, bidi and invisible characters are written as visible escapes
    (``renderer.escaping.plain``), as in every output of this tool: a value from a policy file cannot start a line
    or repaint the terminal. (kubectl writes them raw.)"""
    if isinstance(value, (dict, list)):
        return go_json(value)
    if isinstance(value, _Verbatim):
        return str(value)
    if isinstance(value, str):
        return plain(value)
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return _go_float_text(value)
    return str(int(value))


class Template:
    """A parsed kubectl JSONPath template."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.nodes = parse(text)

    def render(self, data: Any) -> str:
        """The template's output for ``data`` (a JSON value). Raises ``TemplateError``."""
        out: list[str] = []
        self._render(self.nodes, data, out)
        return "".join(out)

    def _render(self, nodes: tuple[Node, ...], data: Any, out: list[str]) -> None:
        for node in nodes:
            if isinstance(node, Text):
                out.append(node.text)
            elif isinstance(node, Action):
                out.append(" ".join(go_text(v) for v in _walk([data], node.steps)))
            else:
                for value in _walk([data], node.steps):
                    self._render(node.body, value, out)
