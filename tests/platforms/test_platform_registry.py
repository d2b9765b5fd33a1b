"""The platform registry: discovery by module name, one module per platform and the only place naming it, and every
list of names (schemas, command line, docs) derived from it."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_cli
from renderer import platforms

PACKAGE = REPO_ROOT / "renderer"
MODULES = sorted(p for p in (PACKAGE / "platforms").glob("*.py") if not p.name.startswith("_"))


def test_every_module_is_one_platform_named_after_it() -> None:
    assert [p.stem.replace("_", "-") for p in MODULES] == platforms.module_names() == platforms.names()
    for name in platforms.names():
        p = platforms.get(name)
        assert type(p).__module__ == f"renderer.platforms.{name.replace('-', '_')}"
        assert p.title and p.summary and "\n" not in p.summary
        assert p.history, f"{name}: no dated history"
    assert [p.name for p in platforms.ordered() if p.fallback] == [platforms.fallback_name()]


def test_every_platform_module_has_its_test() -> None:
    here = Path(__file__).parent
    missing = [p.stem for p in MODULES if not (here / f"test_{p.stem}.py").is_file()]
    assert not missing, f"platform modules without tests/platforms/test_<module>.py: {missing}"


def test_history_names_defaults_the_module_declares_and_cites_a_source() -> None:
    for name in platforms.names():
        p = platforms.get(name)
        declared = {d.name for d in p.defaults}
        for r in p.history:
            assert r.source, (name, r)
            assert not r.default or r.default in declared, (name, r.default)
            assert not r.date or (len(r.date) == 10 and r.date[4] == "-"), (name, r.date)
        for d in p.defaults:
            assert d.sources or d.formula is None, (name, d.name)
        if not p.published:
            assert p.unpublished and not p.defaults and not p.formulas, name


def test_formula_default_and_profile_names_are_unique() -> None:
    formulas = [f.name for n in platforms.names() for f in platforms.get(n).formulas]
    assert len(formulas) == len(set(formulas))
    defaults = [d.name for n in platforms.names() for d in platforms.get(n).defaults]
    assert len(defaults) == len(set(defaults))
    for n in platforms.names():
        p = platforms.get(n)
        assert set(p.profiles) >= {d.name for d in p.defaults} or not p.profiles, n


def _names() -> set[str]:
    names = set(platforms.names()) | set(platforms.formula_names())
    for n in platforms.names():
        p = platforms.get(n)
        names |= {d.name for d in p.defaults} | set(p.profiles)
    #: "kind" is also the Kubernetes object field of that name (`key != "kind"` in the readers): not a platform switch
    return names - {"kind"}


def _signal_keys() -> set[str]:
    return {
        s.pattern
        for n in platforms.names()
        for s in platforms.get(n).signals
        if s.kind in ("label", "label-prefix", "providerID") and "=" not in s.pattern
    }


def _switch_constants(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants a comparison, a startswith/endswith or a Literal[...] tests against."""
    found: list[tuple[int, str]] = []

    def strings(node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return []

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                found += [(node.lineno, s) for s in strings(side)]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in ("startswith", "endswith"):
                for arg in node.args:
                    found += [(node.lineno, s) for s in strings(arg)]
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "Literal":
            found += [(node.lineno, s) for s in strings(node.slice)]
    return found


def test_a_platform_is_named_only_in_its_own_module() -> None:
    # No string switch on a platform, profile or formula name, nor on a platform's detection label or providerID,
    # anywhere but the platform's own module: capacity/, verify/, lint/, render/ ask the registry instead.
    names, keys = _names(), _signal_keys()
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent == PACKAGE / "platforms" and not path.name.startswith("_"):
            continue
        for line, text in _switch_constants(ast.parse(path.read_text(encoding="utf-8"))):
            if text in names or text in keys:
                offenders.append(f"{path.relative_to(REPO_ROOT)}:{line}: {text!r}")
    assert not offenders, "platform knowledge outside renderer/platforms/<name>.py:\n" + "\n".join(offenders)


def test_the_confinement_check_finds_a_switch() -> None:
    # the check above is not vacuous: it sees the kind of switch the platforms replaced
    tree = ast.parse('if pool.platform == "openshift" or name.startswith("aks") or x in ("eks",):\n    pass\n')
    assert {s for _, s in _switch_constants(tree)} == {"openshift", "aks", "eks"}


def test_schemas_take_their_lists_from_the_registry() -> None:
    nodepool = json.loads((REPO_ROOT / "schemas" / "nodepool.json").read_text(encoding="utf-8"))
    text = json.dumps(nodepool)
    for name in platforms.module_names():
        assert f'"{name}"' in text
    policy = json.dumps(json.loads((REPO_ROOT / "schemas" / "reservationpolicy.json").read_text(encoding="utf-8")))
    for name in platforms.formula_names():
        assert f'"{name}"' in policy
    settings = json.loads((REPO_ROOT / "schemas" / "settings.json").read_text(encoding="utf-8"))
    assert f'"{platforms.fallback_name()}"' in json.dumps(settings)
    for name, choices in platforms.profiles().items():
        for choice in choices:
            assert f'"{choice}"' in json.dumps(settings), (name, choice)


def test_the_command_line_takes_its_lists_from_the_registry() -> None:
    sizing = run_cli("sizing", "--help").stdout
    for name in platforms.formula_names():
        assert name in sizing
    listing = run_cli("platforms").stdout
    for name in platforms.names():
        assert f"  {name} " in listing


def test_docs_platforms_md_is_current() -> None:
    res = run_cli("platforms", "--markdown")
    assert res.exit_code == 0, res.stderr
    current = (REPO_ROOT / "docs" / "platforms.md").read_text(encoding="utf-8")
    assert res.stdout == current, (
        "docs/platforms.md is out of date: run `allocatable platforms --markdown > docs/platforms.md`"
    )


def test_platforms_command() -> None:
    one = run_cli("platforms", "k3s")
    assert one.exit_code == 0 and "imagefs.available 5%" in one.stdout and "9bb7c27c" in one.stdout
    doc = json.loads(run_cli("platforms", "-o", "json").stdout)
    assert [d["name"] for d in doc] == [p.name for p in platforms.ordered()]
    bad = run_cli("platforms", "nope")
    assert bad.exit_code == 2 and 'unknown platform "nope"' in bad.stderr and bad.stdout == ""


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("nope", 'unknown platform "nope"'),
        ("openshift/nope", 'openshift has no profile "nope"'),
        ("kind:", "the selector after"),
        ("kind:a in ()", "at least one value"),
        ("kind:=x", "not a label selector requirement"),
    ],
)
def test_verify_platform_values_are_checked(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        platforms.parse_assignment(value)


def test_verify_platform_selectors() -> None:
    a = platforms.parse_assignment("openshift/rosa:node-role.kubernetes.io/worker,env in (prod, stage),!spot")
    assert (a.platform, a.profile, a.scoped) == ("openshift", "rosa", True)
    assert a.selects({"node-role.kubernetes.io/worker": "", "env": "prod"})
    assert not a.selects({"node-role.kubernetes.io/worker": "", "env": "dev"})
    assert not a.selects({"node-role.kubernetes.io/worker": "", "env": "prod", "spot": "true"})
    b = platforms.parse_assignment("kind:kubernetes.io/hostname=kind-worker")
    assert platforms.assign({"kubernetes.io/hostname": "kind-worker"}, "eks", [b]) == ("kind", None)
    assert platforms.assign({"kubernetes.io/hostname": "other"}, "eks", [b]) is None
    # unscoped: only nodes whose labels name no platform, plus the profile for nodes of that platform
    c = platforms.parse_assignment("openshift/rosa")
    assert platforms.assign({}, platforms.fallback_name(), [c]) == ("openshift", "rosa")
    assert platforms.assign({}, "openshift", [c]) == ("openshift", "rosa")
    assert platforms.assign({}, "eks", [c]) is None


def test_verify_platform_by_selector_and_profile_on_the_command_line(tmp_path: Path) -> None:
    # Two unlabelled nodes that reserve nothing (allocatable = capacity): kind's defaults reproduce both. Scoped to
    # one node by hostname, only that one matches; unscoped, both do.
    import yaml

    def node(name: str) -> dict[str, object]:
        cap = {"cpu": "4", "memory": "8Gi", "ephemeral-storage": "100Gi", "pods": "110"}
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": cap, "allocatable": cap},
        }

    dump = tmp_path / "nodes.yaml"
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [node("a"), node("b")]}), "utf-8")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".allocatable.yaml").write_text("apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n", "utf-8")
    scoped = run_cli(
        "verify", str(repo), "--nodes", str(dump), "-o", "json", "--platform", "kind:kubernetes.io/hostname=a"
    )
    nodes = {n["name"]: n for n in json.loads(scoped.stdout)["nodes"]}
    assert (nodes["a"]["platform"], nodes["a"]["match"]) == ("kind", True)
    assert (nodes["b"]["platform"], nodes["b"]["match"]) == (platforms.fallback_name(), False)
    both = run_cli("verify", str(repo), "--nodes", str(dump), "--platform", "kind")
    assert both.exit_code == 0, both.stdout
    bad = run_cli("verify", str(repo), "--nodes", str(dump), "--platform", "kind:=")
    assert bad.exit_code == 2 and "not a label selector requirement" in bad.stderr and bad.stdout == ""
