"""The package's import graph: no cycles, and no stage imports what composes it.

Edges are every ``import`` statement in ``renderer/`` (module level, inside functions and under TYPE_CHECKING), plus
the plug-in discovery edges: a module that lists a package with ``pkgutil.iter_modules`` imports every module in it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "renderer"
#: The composers: the command line, its subcommands and the pipeline. Nothing below them may import them.
COMPOSERS = ("renderer.cli", "renderer.commands", "renderer.pipeline", "renderer.serve", "renderer.__main__")


def _modules() -> dict[str, Path]:
    mods: dict[str, Path] = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        mods[".".join(parts)] = path
    return mods


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        imported: set[str] = set()
        listed: set[str] = (
            set()
        )  # packages whose modules are discovered: import renderer.x as pkg; iter_modules(pkg.__path__)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
                listed.update(a.name for a in node.names if a.asname and f"iter_modules({a.asname}.__path__)" in text)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                imported.add(base)
                imported.update(f"{base}.{alias.name}" for alias in node.names)
        for target in imported & mods.keys():
            if target != name:
                edges[name].add(target)
        for target in listed:
            edges[name].update(m for m in mods if m.rpartition(".")[0] == target and m != name)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycle_inside_renderer() -> None:
    cycles = _cycles(_graph())
    assert not cycles, "import cycles: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_checker_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_stages_never_import_what_composes_them() -> None:
    edges = _graph()
    offenders = sorted(
        f"{module} imports {target}"
        for module, targets in edges.items()
        if not module.startswith(COMPOSERS)
        for target in targets
        if target.startswith(COMPOSERS)
    )
    assert not offenders, offenders


# --- layers ----------------------------------------------------------------------------------------------------------

#: The layers, lowest first; a tuple is one rank whose members may not import each other. A module may import its own
#: layer and any layer of a lower rank, nothing else. ``core`` is every top-level module of ``renderer`` that is not a
#: composer (quantity, findings, labels, escaping, terminal, safepath, ...): they stay where other branches import them.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("core",),
    ("loading",),
    ("platforms",),  # below models: the schemas check platform and formula names, pools are detected as they are read
    ("models",),
    ("cost",),  # prices and their arithmetic: below capacity, so capacity-level reports and reporters price with it
    ("validation",),
    ("capacity",),
    ("lint", "render"),
    ("verify", "integrations"),
    ("impact",),  # simulation: reads pods as verify does (renderer.verify.pods)
    ("recommend",),  # measured usage → reservations and commit percents (may re-pack with impact)
    ("reporters",),
    ("pipeline",),
    ("serve",),  # composes the pipeline cycle after cycle; the only importer of prometheus_client
    ("commands",),
    ("cli",),
)
RANK = {layer: rank for rank, group in enumerate(LAYERS) for layer in group}


def layer_of(module: str) -> str:
    """``renderer.capacity.model`` → ``capacity``; a top-level module is ``core`` (``__main__`` is the cli)."""
    parts = module.split(".")
    if len(parts) == 1:
        return "core"  # renderer/__init__.py
    head = parts[1]
    if head == "__main__":
        return "cli"
    if head in RANK:
        return head
    if len(parts) == 2:
        return "core"
    raise AssertionError(
        f"{module}: package renderer.{head} is in no layer; add it to LAYERS (and docs/architecture.md)"
    )


def layer_offenders(edges: dict[str, set[str]]) -> list[str]:
    out = []
    for module, targets in edges.items():
        mine = layer_of(module)
        for target in targets:
            theirs = layer_of(target)
            if theirs != mine and RANK[theirs] >= RANK[mine]:
                out.append(f"{module} ({mine}) imports {target} ({theirs})")
    return sorted(out)


def test_every_package_is_in_a_layer() -> None:
    for module in _modules():
        layer_of(module)


def test_layers_import_only_downwards() -> None:
    offenders = layer_offenders(_graph())
    assert not offenders, "\n".join(offenders)


def test_the_layer_check_finds_an_upward_and_a_sideways_import() -> None:
    assert layer_offenders({"renderer.lint.rules.x": {"renderer.render.openshift"}}) == [
        "renderer.lint.rules.x (lint) imports renderer.render.openshift (render)"
    ]
    assert layer_offenders({"renderer.models.schemas": {"renderer.render.schemas"}}) != []
    assert layer_offenders({"renderer.quantity": {"renderer.loading.files"}}) != []
    assert layer_offenders({"renderer.verify.compare": {"renderer.render.targets.koordinator"}}) == []
    assert layer_offenders({"renderer.commands.lint": {"renderer.pipeline"}}) == []


# --- private names ---------------------------------------------------------------------------------------------------


def _package(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def private_imports() -> list[str]:
    """``from renderer.a.b import _x`` (or of a module ``renderer.a._b``) in a module outside package ``renderer.a``."""
    mods = _modules()
    out = []
    for name, path in mods.items():
        mine = _package(name, path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = mine.split(".")[: len(mine.split(".")) - node.level + 1]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                if not base.startswith("renderer"):
                    continue
                owner = base if base in mods and mods[base].name == "__init__.py" else base.rpartition(".")[0]
                names = [a.name for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
                private_module = any(p.startswith("_") and not p.startswith("__") for p in base.split("."))
                if owner != mine and (names or private_module):
                    out.append(f"{name} imports {base}{': ' + ', '.join(names) if names else ''}")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    private = any(p.startswith("_") and p != "__main__" for p in parts)
                    if alias.name.startswith("renderer") and private and alias.name.rpartition(".")[0] != mine:
                        out.append(f"{name} imports {alias.name}")
    return sorted(out)


def test_no_private_name_is_imported_across_packages() -> None:
    offenders = private_imports()
    assert not offenders, "\n".join(offenders)


# --- render targets --------------------------------------------------------------------------------------------------

#: The render targets' package: what a target knows that another stage needs (Koordinator's ratios, Cluster
#: Autoscaler's resource tags) lives in ``renderer.capacity``, below every stage that uses it.
TARGETS = "renderer.render.targets"


def target_importers(edges: dict[str, set[str]]) -> list[str]:
    """Modules outside ``renderer.render`` that import a render target module (or the targets package)."""
    return sorted(
        f"{module} imports {target}"
        for module, targets in edges.items()
        if module != "renderer.render" and not module.startswith("renderer.render.")
        for target in targets
        if target == TARGETS or target.startswith(TARGETS + ".")
    )


def test_only_render_imports_the_render_targets() -> None:
    offenders = target_importers(_graph())
    assert not offenders, "move what they need into renderer/capacity/:\n" + "\n".join(offenders)


def test_the_target_check_finds_an_importer_outside_render() -> None:
    assert target_importers({"renderer.verify.compare": {"renderer.render.targets.koordinator"}}) == [
        "renderer.verify.compare imports renderer.render.targets.koordinator"
    ]
    assert target_importers({"renderer.pipeline": {"renderer.render.targets"}}) == [
        "renderer.pipeline imports renderer.render.targets"
    ]
    assert target_importers({"renderer.render.engine": {"renderer.render.targets.koordinator"}}) == []
    assert target_importers({"renderer.renderers": {"renderer.render.targetsx"}}) == []
