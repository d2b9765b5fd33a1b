"""The formats every report with a JSON form has: ``-o yaml`` and ``-o jsonpath=TEMPLATE`` (kubectl's).

Both start from the document the report's own ``json`` format writes (read back from its text), so they hold
exactly what ``-o json`` holds, in its order, and a new report type gets them by having a ``json.py``. ``yaml``:
one YAML document in kubectl's layout (two-space indent, list items at their key's indentation, no ``---``), keys
in the JSON's order, strings quoted wherever YAML 1.1 would read them as something else, and ASCII only (as
``-o json``: every other character escaped in a double-quoted string); ``jsonpath``: the
template's output (``renderer.reporters.kubectl_jsonpath``), nothing added (no final newline, as kubectl).

Both render the whole text before writing: a template that fails on the data prints nothing. Cost: O(size of the
JSON document) for each, plus what the template visits.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import Any, TextIO

from renderer.reporters.kubectl_jsonpath import Template, TemplateError

__all__ = ["document", "dump_yaml", "template", "writer"]


def document(report: str, result: Any) -> Any:
    """The JSON document of ``result``, as the report's ``json`` format writes it."""
    import importlib

    buffer = io.StringIO()
    importlib.import_module(f"renderer.reporters.{report}.json").write(result, buffer)
    return json.loads(buffer.getvalue())


def dump_yaml(value: Any) -> str:
    """``value`` (a JSON value) as one YAML document in kubectl's layout."""
    import yaml

    options: dict[str, Any] = {
        "sort_keys": False,
        "default_flow_style": False,
        "allow_unicode": False,  # as -o json: ASCII, anything else escaped (no raw bidi or invisible character)
        "width": 2**31 - 1,
    }
    fast = getattr(yaml, "CSafeDumper", None)
    if fast is not None:
        try:
            text: str = yaml.dump(value, Dumper=fast, **options)
            return text
        except UnicodeEncodeError:  # a lone surrogate (JSON's "\ud800"): libyaml cannot encode it; PyYAML escapes it
            pass
    text = yaml.dump(value, Dumper=yaml.SafeDumper, **options)
    return text


def template(text: str | None) -> Template:
    """The parsed template of ``-o jsonpath=TEXT``; a ``ValueError`` saying what is wrong."""
    if not text:
        raise ValueError("jsonpath needs a template, e.g. -o jsonpath='{.pools[*].name}'")
    try:
        return Template(text)
    except TemplateError as exc:
        raise ValueError(f"the jsonpath template does not parse: {exc}") from None


def writer(report: str, name: str, argument: str | None) -> Callable[[Any, TextIO], None]:
    """The ``write(result, out)`` of derived format ``name`` of ``report``."""
    if name == "yaml":
        if argument is not None:
            raise ValueError("yaml takes no argument; write -o yaml")

        def write_yaml(result: Any, out: TextIO) -> None:
            out.write(dump_yaml(document(report, result)))

        return write_yaml
    parsed = template(argument)

    def write_jsonpath(result: Any, out: TextIO) -> None:
        from renderer.loading.files import UsageError

        try:
            text = parsed.render(document(report, result))
        except TemplateError as exc:
            raise UsageError(f"-o jsonpath: {exc}; the template was {parsed.text!r}") from None
        out.write(text)

    return write_jsonpath
