"""The HTML pages of the reporters that share one look (``diff -o html``, ``impact``'s ``html``): one Jinja2
environment over ``renderer/reporters/templates/`` — ``page.html.j2`` (the stylesheet, header and footer every page
extends), one template per page, and the sections pages include (``impact_section.html.j2``).

Autoescape is on and every value passes through ``renderer.escaping.plain`` first (control characters and
bidirectional overrides as visible escapes), so text from a policy repo or a snapshot is never markup. The pages
are inline CSS and SVG only: no script, no external style, font or image. Cost: the size of the page.
"""

from __future__ import annotations

from typing import Any

from renderer.escaping import plain

__all__ = ["render"]


def _visible(value: Any) -> Any:
    """Every value a template prints: text made plain, then autoescaped; markup a template made itself (a macro's
    output) passes as it is."""
    from markupsafe import Markup

    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return plain(value)
    return value


def render(template: str, **context: Any) -> str:
    """``templates/<template>`` rendered with ``context`` (undefined names are errors, never empty text)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    env = Environment(
        loader=PackageLoader("renderer.reporters", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        finalize=_visible,
        keep_trailing_newline=True,
    )
    return env.get_template(template).render(**context)
