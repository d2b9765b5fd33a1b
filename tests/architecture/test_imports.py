"""The package's import graph: no cycles, and no stage imports what composes it.

Edges are every ``import`` statement in ``renderer/`` (module level, inside functions and under TYPE_CHECKING), plus
the plug-in discovery edges: a module that lists a package with ``pkgutil.iter_modules`` imports every module in it.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "renderer"
#: The composers: the command line, its subcommands and the pipeline. Nothing below them may import them.
COMPOSERS = ("renderer.cli", "renderer.commands", "renderer.pipeline", "renderer.__main__")


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
