"""Turn pydantic errors into one-line messages that say what to change."""

from __future__ import annotations

import datetime
import types
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import BaseModel

from renderer.models.schema.common import NodeSelectorRequirement, NodeSelectorTerm
from renderer.suggest import closest

Loc = tuple[int | str, ...]

#: What to say about a field every Kubernetes object may carry (ObjectMeta, and status: kubernetes/apimachinery
#: pkg/apis/meta/v1/types.go) but a policy has no use for — instead of guessing at a field name it resembles.
_SERVER_SET = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "selfLink",
    "managedFields",
)
KUBERNETES_FIELDS: dict[Loc, str] = {
    ("metadata", "namespace"): "these objects are cluster-scoped, like Nodes: remove metadata.namespace",
    ("metadata", "generateName"): "a policy is referred to by a fixed name: write metadata.name instead",
    ("metadata", "ownerReferences"): "allocatable reads only name, labels and annotations: remove it",
    ("metadata", "finalizers"): "allocatable reads only name, labels and annotations: remove it",
    **{
        ("metadata", f): f"the API server sets metadata.{f} on stored objects (kubectl get -o yaml): remove it"
        for f in _SERVER_SET
    },
    ("status",): "the API server reports status; a policy file has none: remove it",
}


def _unwrap(tp: Any) -> Any:
    while True:
        origin = get_origin(tp)
        if origin is Annotated:
            tp = get_args(tp)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in get_args(tp) if a is not type(None)]
            tp = args[0] if len(args) == 1 else tp
            if len(args) != 1:
                return tp
        else:
            return tp


def type_at(root: type[BaseModel], loc: Loc) -> Any:
    """The declared type found by following ``loc`` from ``root`` (None when it leaves the schema)."""
    tp: Any = root
    for step in loc:
        tp = _unwrap(tp)
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            field = tp.model_fields.get(str(step))
            if field is None:
                return None
            tp = field.annotation
        elif get_origin(tp) is list and isinstance(step, int):
            tp = get_args(tp)[0]
        elif get_origin(tp) is dict:
            tp = get_args(tp)[1]
        else:
            return None
    return _unwrap(tp)


def describe_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int):
        return f"the number {value}"
    if isinstance(value, float):
        return f"the number {value!r}"
    if isinstance(value, (datetime.date, datetime.datetime)):
        return f"the date {value.isoformat()}"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


_EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "bool_type": "true or false",
    "dict_type": "a mapping",
    "list_type": "a list",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "float_type": "a number",
}


def _where(loc: Loc) -> str:
    out = ""
    for step in loc:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or "the document"


def did_you_mean(value: str, choices: list[str]) -> str | None:
    """``did you mean "In"?`` for a value that differs from one choice only in case (``in``, ``CPU``, ``EKS``,
    ``Commitclass``) or is a close misspelling of one (``renderer.suggest.closest``); None otherwise.
    Cost: O(choices × length²)."""
    close = closest(value, choices)
    return f'did you mean "{close}"?' if close else None


def without_follow_ons(errors: list[Any]) -> list[Any]:
    """Drop errors that only repeat another one.

    A field written at the wrong indentation is reported where it is ("not allowed"); the same field then also
    shows up as missing further down (the proposal's operator/values beside matchExpressions), or, for the
    proposal's spec.nodes, spec.selector is missing. One problem, one line: the "missing" error is dropped.
    """
    misplaced = {
        (tuple(e["loc"][:-1]), str(e["loc"][-1])) for e in errors if e["type"] == "extra_forbidden" and e["loc"]
    }
    if not misplaced:
        return errors

    def repeats(e: Any) -> bool:
        if e["type"] != "missing" or not e["loc"]:
            return False
        loc, name = tuple(e["loc"]), str(e["loc"][-1])
        for parent, extra in misplaced:
            if loc[: len(parent)] == parent and (extra == name or (extra, name) == ("nodes", "selector")):
                return True
        return False

    return [e for e in errors if not repeats(e)]


def translate(root: type[BaseModel], error: Any) -> tuple[Loc, str, str | None, bool]:
    """(field path, message, hint, point-at-key) for one pydantic error dict."""
    etype: str = error["type"]
    loc: Loc = tuple(error["loc"])
    value = error.get("input")
    ctx = error.get("ctx") or {}
    hint: str | None = None
    # pydantic appends "[key]" to dict-key validation locations: the error is about the key itself.
    if loc and loc[-1] == "[key]":
        loc = loc[:-1]
        if etype == "string_type":
            hint = (
                "YAML reads unquoted yes/no/on/off/true/false, numbers and dates as non-strings; put the key in quotes"
            )
            return loc, f"{_where(loc[:-1])}: expected a string as key, got {describe_value(value)}", hint, True
        if etype == "value_error":
            err = ctx.get("error")
            return loc, f"{_where(loc[:-1])}: {err if err is not None else error.get('msg', '')}", None, True

    if etype == "extra_forbidden":
        name = str(loc[-1])
        parent = type_at(root, loc[:-1])
        allowed = sorted(parent.model_fields) if isinstance(parent, type) and issubclass(parent, BaseModel) else []
        where = _where(loc[:-1])
        if parent is NodeSelectorTerm:
            where = f"a node selector term ({where})"
        msg = f'field "{name}" is not allowed in {where}'
        if parent is NodeSelectorTerm and name in NodeSelectorRequirement.model_fields:
            hint = f'move "{name}" into the matchExpressions item above: indent it to line up with "key:"'
        elif name == "nodes" and loc[:-1] == ("spec",):
            hint = "the proposal's spec.nodes.nodeSelectorTerms is written spec.selector: a list of node selector terms"
        elif tuple(loc) in KUBERNETES_FIELDS:
            hint = KUBERNETES_FIELDS[tuple(loc)]
        else:
            hint = did_you_mean(name, allowed)
        if allowed and hint is None:  # the fields to choose from, when no one field is the obvious fix
            msg += f"; allowed: {', '.join(allowed)}"
        return loc, msg, hint, True

    if etype == "missing":
        return loc, f'missing required field "{loc[-1]}" in {_where(loc[:-1])}', None, False

    if etype in _EXPECTED:
        msg = f"{_where(loc)}: expected {_EXPECTED[etype]}, got {describe_value(value)}"
        if etype == "string_type" and isinstance(value, (bool, int, float, datetime.date)):
            hint = (
                "YAML reads unquoted yes/no/on/off/true/false, numbers and dates as non-strings "
                '(the "Norway problem"); put the value in quotes'
            )
        return loc, msg, hint, False

    if etype == "literal_error":
        expected = ctx.get("expected", "")
        choices = [str(a) for a in get_args(type_at(root, loc)) if isinstance(a, str)]
        guess = did_you_mean(value, choices) if isinstance(value, str) else None
        return loc, f"{_where(loc)}: {describe_value(value)} is not allowed; expected {expected}", guess, False

    if etype == "value_error":
        err = ctx.get("error")
        text = str(err) if err is not None else str(error.get("msg", ""))
        return loc, f"{_where(loc)}: {text}", None, False

    if etype in ("greater_than", "greater_than_equal", "less_than", "less_than_equal"):
        sym = {"greater_than": ">", "greater_than_equal": "≥", "less_than": "<", "less_than_equal": "≤"}[etype]
        bound = next(iter(ctx.values()), "?")
        return loc, f"{_where(loc)}: must be {sym} {bound}, got {describe_value(value)}", None, False

    if etype in ("too_short", "too_long"):
        return loc, f"{_where(loc)}: {error.get('msg', '').lower()}", None, False

    return loc, f"{_where(loc)}: {error.get('msg', 'invalid value')}", None, False
