"""Text file contents (env files, systemd units) from Jinja2 templates in ``renderer/render/templates``.

Only for the *contents* of files that are not YAML; YAML is always emitted from data (see yamlout). The environment
is sandboxed, undefined variables are errors, nothing is autoescaped (the output is not HTML), and every value that
reaches the output passes :func:`_finalize`: it must be a short token of letters, digits, ``.``, ``+``, ``-`` or
``_``. A value that could end a line, start a comment, expand a variable or open a quote is refused before any text
is produced, so no policy value can add lines or change the meaning of a rendered file.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

TEMPLATES = Path(__file__).parent / "templates"
_TOKEN = re.compile(r"[A-Za-z0-9._+-]{1,253}")


class TemplateValueError(ValueError):
    """A value that is not allowed in a rendered text file."""


def _finalize(value: Any) -> Any:
    from jinja2 import Undefined

    if isinstance(value, Undefined):
        return value  # StrictUndefined raises when the template turns it into text
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if not isinstance(value, str):
        raise TemplateValueError(f"a {type(value).__name__} cannot be written into a text file")
    if not _TOKEN.fullmatch(value):
        raise TemplateValueError(
            f"{value!r} cannot be written into a text file: only letters, digits, '.', '+', '-' and '_' are allowed"
        )
    return value


@functools.lru_cache(maxsize=1)
def _environment() -> Any:
    from jinja2 import FileSystemLoader, StrictUndefined
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    return ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(str(TEMPLATES)),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        finalize=_finalize,
    )


def render_text(template: str, **values: Any) -> str:
    """Render ``templates/<template>`` with ``values``; raises TemplateValueError for a refused value."""
    return str(_environment().get_template(template).render(**values))
