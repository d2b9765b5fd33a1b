"""The platforms: one module each, found by name; the only place that names a platform.

``renderer/platforms/<name>.py`` (the name with ``_`` written as ``-``) is the platform ``<name>``; modules whose
name starts with ``_`` are the shared machinery. Every list of platform, profile or formula names (the schemas, the
command line's choices, the docs, shell completion) is derived from here.

Public entry points: :func:`get`, :func:`names`, :func:`detect`, :func:`formula`, :func:`formulas`,
:func:`formula_names`, :func:`compute`, :func:`default_for`, the validators the schemas use
(:func:`check_platform_name`, :func:`check_formula_name`, :func:`check_platform_defaults`) and :func:`markdown`
(docs/platforms.md). Cost: the modules are imported once, on first use (about twenty small modules).
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import TYPE_CHECKING

from renderer.capacity.formulas import Formula, FormulaError, FormulaResult, MachineShape
from renderer.capacity.formulas import compute as _compute
from renderer.platforms._base import REGISTRY, Default, Facts, Platform, PoolView, Probe, Release, Signal

if TYPE_CHECKING:
    from renderer.models.settings import Settings

__all__ = [
    "Default",
    "Facts",
    "Platform",
    "PoolView",
    "Probe",
    "Release",
    "Signal",
    "check_formula_name",
    "check_platform_defaults",
    "check_platform_name",
    "compute",
    "default_for",
    "describe",
    "detect",
    "effective",
    "fallback",
    "fallback_name",
    "formula",
    "formula_names",
    "formulas",
    "get",
    "markdown",
    "module_names",
    "names",
    "ordered",
]

_LOADED: list[bool] = []


def module_names() -> list[str]:
    """Every platform name, from the module names alone (imports nothing)."""
    import renderer.platforms as pkg

    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def _load() -> dict[str, Platform]:
    if not _LOADED:
        import renderer.platforms as pkg

        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{mod.name}")
        _LOADED.append(True)
    return REGISTRY


def names() -> list[str]:
    return sorted(_load())


def get(name: str) -> Platform:
    """The platform ``name`` (KeyError for an unknown name)."""
    return _load()[name]


def ordered() -> list[Platform]:
    """The platforms in detection order."""
    return sorted(_load().values(), key=lambda p: (p.order, p.name))


def fallback() -> Platform:
    """The platform of pools that name none."""
    return next(p for p in ordered() if p.fallback)


def fallback_name() -> str:
    return fallback().name


def detect(facts: Facts) -> tuple[str, str]:
    """(platform, evidence) of a Node; the fallback platform with empty evidence when nothing matches."""
    for platform in ordered():
        if platform.fallback:
            continue
        why = platform.detect(facts)
        if why is not None:
            return platform.name, why
    return fallback().name, ""


def formulas() -> dict[str, Formula]:
    """Every formula a policy may name, by name (platforms in name order, each in its own order)."""
    out: dict[str, Formula] = {}
    for name in names():
        for f in get(name).formulas:
            out[f.name] = f
    return out


def formula_names() -> tuple[str, ...]:
    return tuple(formulas())


def formula(name: str) -> Formula:
    found = formulas().get(name)
    if found is None:
        raise FormulaError(f"unknown formula {name!r}; valid formulas: {', '.join(formula_names())}")
    return found


def compute(name: str | Formula, shape: MachineShape) -> FormulaResult:
    """The reservation a named (or given) formula gives a machine of ``shape``. Raises FormulaError."""
    return _compute(formula(name) if isinstance(name, str) else name, shape)


def effective(pool: PoolView, settings: Settings) -> Platform:
    """The platform whose defaults a pool gets: its own, or platformDefaults.generic for a pool that names none."""
    platform = _load().get(pool.platform) or fallback()
    if platform.fallback:
        chosen = settings.platformDefaults.get(platform.name)
        if chosen:
            return get(chosen.split("/", 1)[0])
    return platform


def default_for(pool: PoolView, settings: Settings) -> Default | None:
    """The reservation ``pool``'s platform applies by itself (None: nothing, the kubelet's defaults)."""
    return effective(pool, settings).default(pool, settings)


# -- validators the schemas reference (module-level functions, as the compiled validators need) ---------------


def _suggestion(value: str, choices: list[str]) -> str | None:
    """The choice a misspelt value most likely meant: the same in another case, else a close spelling."""
    import difflib

    folded = [c for c in choices if c.lower() == value.lower()]
    if folded:
        return folded[0]
    close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def check_platform_name(name: str) -> str:
    known = module_names()
    if name not in known:
        meant = _suggestion(name, known)
        if meant is not None:
            raise ValueError(f'the string "{name}" is not a platform ({", ".join(known)}): did you mean "{meant}"?')
        raise ValueError(f'unknown platform "{name}": use one of {", ".join(known)}')
    return name


def check_formula_name(name: str) -> str:
    known = list(formula_names())
    if name not in known:
        meant = _suggestion(name, known)
        listed = ", ".join(known)
        if meant is not None:
            raise ValueError(
                f'the string "{name}" is not a formula ({listed}, or autoSizing.custom): did you mean "{meant}"?'
            )
        raise ValueError(f'unknown formula "{name}": use one of {listed}, or autoSizing.custom')
    return name


def profiles() -> dict[str, list[str]]:
    """platformDefaults keys and the values each takes."""
    out = {n: sorted(get(n).profiles) for n in names() if get(n).profiles}
    generic = fallback().name
    out[generic] = [n for n in names() if n != generic]
    return dict(sorted(out.items()))


def check_platform_defaults(values: dict[str, str]) -> dict[str, str]:
    known = profiles()
    for key, value in values.items():
        if key not in known:
            raise ValueError(
                f'platformDefaults: "{key}" is not a platform with a choice; use one of {", ".join(known)}'
            )
        base = value.split("/", 1)[0] if key == fallback().name else value
        if base not in known[key]:
            raise ValueError(f'platformDefaults.{key}: "{value}" is not one of {", ".join(known[key])}')
    return values


def markdown() -> str:
    """docs/platforms.md, generated from the modules."""
    from renderer.platforms._docs import markdown as render

    return render(ordered())


def describe(name: str) -> str:
    """One platform's section, as plain text for the terminal."""
    from renderer.platforms._docs import section

    return section(get(name))


# -- verify --platform PLATFORM[/PROFILE][:SELECTOR] ---------------------------------------------------------


class Assignment:
    """One ``--platform`` value: the platform (and profile) for the nodes a label selector picks, or for nodes whose
    labels name no platform when there is no selector."""

    def __init__(self, platform: str, profile: str | None, requirements: list[tuple[str, str, tuple[str, ...]]]):
        self.platform = platform
        self.profile = profile
        self.requirements = requirements  # (key, operator, values): =, !=, in, notin, exists, !exists

    @property
    def scoped(self) -> bool:
        return bool(self.requirements)

    def selects(self, labels: dict[str, str]) -> bool:
        for key, op, values in self.requirements:
            present = key in labels
            if op == "exists" and not present:
                return False
            if op == "!exists" and present:
                return False
            if op in ("=", "in") and (not present or labels[key] not in values):
                return False
            if op in ("!=", "notin") and present and labels[key] in values:
                return False
        return True


def _split_selector(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [p.strip() for p in parts]


def _requirement(text: str) -> tuple[str, str, tuple[str, ...]]:
    import re

    m = re.fullmatch(r"([^\s!=(),]+)\s+(in|notin)\s+\(([^()]*)\)", text)
    if m:
        values = tuple(v.strip() for v in m.group(3).split(",") if v.strip())
        if not values:
            raise ValueError(f'"{text}": give at least one value in the parentheses')
        return m.group(1), m.group(2), values
    m = re.fullmatch(r"([^\s!=(),]+)\s*(!=|==|=)\s*([^\s!=(),]*)", text)
    if m:
        return m.group(1), "!=" if m.group(2) == "!=" else "=", (m.group(3),)
    m = re.fullmatch(r"(!?)([^\s!=(),]+)", text)
    if m:
        return m.group(2), "!exists" if m.group(1) else "exists", ()
    raise ValueError(f'"{text}" is not a label selector requirement (key=value, key!=value, key in (a,b), key, !key)')


def parse_assignment(text: str) -> Assignment:
    """``PLATFORM[/PROFILE][:SELECTOR]``; raises ValueError with what to write instead."""
    head, sep, selector = text.partition(":")
    platform, _, profile = head.partition("/")
    known = module_names()
    if platform not in known:
        raise ValueError(f'--platform "{text}": unknown platform "{platform}"; use one of {", ".join(known)}')
    if profile:
        choices = sorted(get(platform).profiles)
        if profile not in choices:
            listed = ", ".join(choices) if choices else "none (it has one default)"
            raise ValueError(f'--platform "{text}": {platform} has no profile "{profile}"; its profiles: {listed}')
    requirements = []
    if sep:
        if not selector.strip():
            raise ValueError(
                f'--platform "{text}": the selector after ":" is empty; e.g. {platform}:node-role.kubernetes.io/worker'
            )
        requirements = [_requirement(r) for r in _split_selector(selector)]
    return Assignment(platform, profile or None, requirements)


def assign(labels: dict[str, str], detected: str, assignments: list[Assignment]) -> tuple[str, str | None] | None:
    """The (platform, profile) ``--platform`` values give a node, or None to keep what was detected."""
    for a in assignments:
        if a.scoped and a.selects(labels):
            return a.platform, a.profile
    for a in assignments:
        if a.scoped:
            continue
        if detected == fallback().name:
            return a.platform, a.profile
        if a.profile and detected == a.platform:
            return a.platform, a.profile
    return None
