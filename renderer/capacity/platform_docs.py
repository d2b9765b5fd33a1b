"""docs/platforms.md and ``allocatable platforms NAME``, generated from the platform modules (``renderer/platforms/``).

One section per platform: what it is and where its facts come from (the module's docstring), detection, the defaults
it applies by itself with their eviction, the dated history per release, its formulas (with their Karpenter CEL
form or why there is none), the profiles ``platformDefaults`` takes, where machine memory comes from, and render
notes. Cost: O(platforms x formulas).
"""

from __future__ import annotations

import inspect
import sys

from renderer import platforms as registry
from renderer.capacity.formulas import PARTS, Formula
from renderer.platforms import Default, Platform

HEADER = """\
# Platforms

What each platform reserves by itself, how `allocatable` recognises its nodes, and where every number comes from.
Generated from `renderer/platforms/` (one module per platform) by `allocatable platforms --markdown`;
`tests/platforms/test_docs.py` keeps this file current. A pool that no ReservationPolicy selects gets its platform's
default (shown in `explain` as `platform-default:<name>`); a policy can name any formula below in
`spec.autoSizing.formula`, or write its own (`spec.autoSizing.custom`, [formulas.md](formulas.md)).

A Node's platform comes from its labels, `status.nodeInfo`, `spec.providerID`, its name or a `status.capacity`
resource (the first platform in the order below whose signal matches; a platform's hints never detect it, they rank
the platforms `verify` suggests for a node it cannot explain); a NodePool states it (`spec.platform`). `platformDefaults` in
`.allocatable.yaml` picks a profile per platform for NodePools and Nodes alike (a Node's own release decides where
nothing is set), and `platformDefaults.generic: <platform>` gives pools whose labels name no platform another
platform's defaults; `verify --platform PLATFORM[/PROFILE][:SELECTOR]` does the same for the nodes of one dump.
"""


def _eviction(d: Default) -> str:
    if d.eviction_hard is None:
        return "the kubelet's defaults"
    if not d.eviction_hard:
        return "none"
    return ", ".join(f"{k} {v}" for k, v in d.eviction_hard.items())


def _cel(f: Formula) -> list[str]:
    from renderer.capacity.karpenter import NotExpressible, cel_form

    try:
        form = cel_form(f)
    except NotExpressible as exc:
        return [f"Karpenter CEL: none ({exc})."]
    lines = ["Karpenter CEL (`render.karpenter.expressions`):", ""]
    for part in PARTS:
        for resource, text in form.parts.get(part, {}).items():
            kind = "" if form.expression(part, resource) else " (a fixed value)"
            lines.append(f"- {part}.{resource}: `{text}`{kind}")
    for (part, resource), why in form.missing.items():
        lines.append(f"- {part}.{resource}: computed per pool ({why})")
    return lines


def _doc(platform: Platform) -> str:
    module = sys.modules[type(platform).__module__]
    return inspect.cleandoc(module.__doc__ or "")


def describe(name: str) -> str:
    """One platform's section, for the terminal."""
    return section(registry.get(name))


def section(platform: Platform) -> str:
    """One platform's section (markdown)."""
    out = [f"## {platform.title} (`{platform.name}`)", "", platform.summary[0].upper() + platform.summary[1:] + ".", ""]
    out += [_doc(platform), ""]
    if not platform.published:
        out += [f"**No reservation published.** Checked: {platform.unpublished}.", ""]
    out.append(
        "**Detection**"
        + ("" if platform.signals else ": none verified; choose it with `--platform` or `platformDefaults.generic`")
    )
    out.append("")
    for s in platform.signals:
        out.append(f"- {s.describe()}: {s.source}")
    if platform.signals:
        out.append("")
    if platform.hints:
        out += ["**Hints** (never detect it; rank it first among verify's suggestions for a node carrying them)", ""]
        out += [f"- {s.describe()}: {s.source}" for s in platform.hints]
        out.append("")
    if platform.defaults:
        out += ["**Defaults** (what a pool no policy selects gets)", ""]
        out += ["| default | what | hard eviction | sources |", "|---|---|---|---|"]
        for d in platform.defaults:
            sources = "; ".join(d.sources) or "-"
            os = f" ({d.os} nodes)" if d.os else ""
            out.append(f"| `{d.name}`{os} | {d.title} | {_eviction(d)} | {sources} |")
        out.append("")
    else:
        out += ["**Defaults**: none: nothing reserved, the kubelet's default hard eviction.", ""]
    if platform.history:
        out += ["**History**", "", "| releases | date | default | source | note |", "|---|---|---|---|---|"]
        for r in platform.history:
            out.append(
                f"| {r.releases} | {r.date or '-'} | {f'`{r.default}`' if r.default else 'nothing'} | "
                f"{r.source} | {r.note or ''} |"
            )
        out.append("")
    if platform.profiles:
        out += [
            f"**Profiles** (`platformDefaults.{platform.name}`, `--platform {platform.name}/<profile>`): "
            + ", ".join(f"`{p}`" for p in sorted(platform.profiles)),
            "",
        ]
    out += [f"**Machine memory**: {platform.memory_source}.", ""]
    if platform.recommended:
        out += [
            f"**Lint**: AL207 compares reservations with `{platform.recommended}` (the release's formula where "
            "it has several).",
            "",
        ]
    for f in platform.formulas:
        out += [f"### Formula `{f.name}`", "", f.summary + ".", "", "```text", f.doc or f.summary, "```", ""]
        out += _cel(f)
        out.append("")
    for note in platform.render_notes:
        out += [f"**Render**: {note}.", ""]
    return "\n".join(out).rstrip() + "\n"


def markdown(platforms: list[Platform] | None = None) -> str:
    """docs/platforms.md (every platform, in detection order)."""
    platforms = registry.ordered() if platforms is None else platforms
    rows = ["| platform | detected by | by itself | formulas |", "|---|---|---|---|"]
    for p in platforms:
        detected = p.signals[0].describe() if p.signals else ("fallback" if p.fallback else "`--platform` only")
        reserves = p.summary
        formulas = ", ".join(f"`{f.name}`" for f in p.formulas) or "-"
        rows.append(f"| [{p.title}](#{_anchor(p)}) (`{p.name}`) | {detected} | {reserves} | {formulas} |")
    body = "\n".join(section(p) for p in platforms)
    return f"{HEADER}\n" + "\n".join(rows) + "\n\n" + body


def _anchor(p: Platform) -> str:
    text = f"{p.title} ({p.name})".lower()
    keep = "".join(ch for ch in text if ch.isalnum() or ch in " -")
    return keep.replace(" ", "-")
