"""One registry for every output format (``renderer.reporters``): a format is a file, and a file needs its golden.

For every report type and every format module found in its package, the format's output on a fixed input must equal
``golden/<report type>/<format>.out`` byte for byte. A new format without its golden file fails here, and so does a
report type with formats but no input below. The goldens are this project's own output, reviewed when written
(``ALLOCATABLE_UPDATE_GOLDEN=1`` rewrites them): they pin the bytes, the unit tests of each format pin the meaning.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from renderer import reporters
from renderer.loading.git import Revision

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
REPO_ROOT = HERE.parents[1]
UPDATE = os.environ.get("ALLOCATABLE_UPDATE_GOLDEN") == "1"


def _findings() -> Any:
    from renderer.pipeline import lint

    done = lint([Path("policies")])
    return reporters.Report(
        "lint", done.findings, files=len(done.load.files), objects=done.load.policies.object_count()
    )


def _explained() -> Any:
    from renderer.pipeline import explain

    done = explain([Path("policies")], pools=["eks-general-purpose", "eks-memory-heavy"])
    assert done.explained is not None, done.missing
    return done.explained


def _verified() -> Any:
    from renderer.pipeline import verify

    done = verify([Path("policies")])
    assert done.result is not None
    done.result.show_all = True  # every node, not only those that differ (there are none)
    return done.result


def _diffed(tmp: Path) -> Any:
    from renderer.capacity.diff import compare
    from renderer.pipeline import lint

    base = tmp / "base"
    shutil.copytree(REPO_ROOT / "policies", base)
    head = tmp / "head"
    shutil.copytree(REPO_ROOT / "policies", head)
    cls = head / "commitclasses" / "high-cpu-density.yaml"
    cls.write_text(cls.read_text(encoding="utf-8").replace("percent: 1000", "percent: 800"), encoding="utf-8")
    (head / "runtimeclasses" / "gvisor.yaml").unlink()
    before, after = lint([Path("base")]), lint([Path("head")])
    assert before.model is not None and after.model is not None
    diffed = compare(
        before.model,
        after.model,
        before.findings,
        after.findings,
        base_label="main (merge-base 0123456789ab)",
        head_label="working tree",
        base_ref="main",
        base_commit="0123456789abcdef0123456789abcdef01234567",
        head_ref=None,
        head_commit=None,
    )
    # read at its merge-base with HEAD, as `diff --base main` reads it since main moved on (every format says so)
    diffed.base_revision = Revision(
        "main",
        "0123456789abcdef0123456789abcdef01234567",
        tmp,
        tip="fedcba9876543210fedcba9876543210fedcba98",
        merge_base_with="HEAD",
    )
    return diffed


def _sized() -> Any:
    from decimal import Decimal

    from renderer.capacity.formulas import MachineShape, compute
    from renderer.quantity import Quantity
    from renderer.reporters.sizing import Sizing

    result = compute("gke", MachineShape(cpus=Decimal(4), memory_bytes=16 * 2**30, max_pods=None))
    return Sizing(result, Decimal(4), Quantity.parse("16Gi"))


def _impact() -> Any:
    from renderer.pipeline import verify

    example = "docs/examples/impact/"
    done = verify([Path(example + "policies")], nodes=example + "snapshot.json", pods=example + "snapshot.json")
    assert done.impact is not None
    return done.impact


def _recommended() -> Any:
    from renderer.pipeline import recommend

    example = Path("docs/examples/recommend")
    done = recommend(
        [example / "policies"],
        usage=sorted(str(p) for p in (example / "usage").glob("*.json")),
        nodes=str(example / "nodes.json"),
    )
    assert done.result is not None
    return done.result


#: What each report type's formats are given. A report type with formats must be here.
INPUTS: dict[str, Callable[[Path], Any]] = {
    "findings": lambda tmp: _findings(),
    "explain": lambda tmp: _explained(),
    "verify": lambda tmp: _verified(),
    "diff": _diffed,
    "sizing": lambda tmp: _sized(),
    "impact": lambda tmp: _impact(),
    "recommend": lambda tmp: _recommended(),
}

#: The argument of the formats that take one (``-o jsonpath=TEMPLATE``), per report type: a template using
#: ``range``, quoted text and a filter on that report's JSON.
ARGUMENTS: dict[tuple[str, str], str] = {
    ("findings", "jsonpath"): '{range .findings[*]}{.path}:{.line}: {.code}{"\\n"}{end}',
    ("explain", "jsonpath"): '{range .pools[*]}{.name}{"\\t"}{.committedAllocatable.cpu}{"\\n"}{end}',
    ("verify", "jsonpath"): '{range .nodes[?(@.match==true)]}{.name}{"\\n"}{end}',
    ("diff", "jsonpath"): '{range .pools[*]}{.name}{"\\t"}{.status}{"\\n"}{end}',
    ("sizing", "jsonpath"): '{.kubeReserved.memory}{"\\n"}',
    ("impact", "jsonpath"): '{range .pools[?(@.newPending>0)]}{.pool}{"\\t"}{.nodesToAdd}{"\\n"}{end}',
    (
        "recommend",
        "jsonpath",
    ): '{range .pools[*].reservations[?(@.slice=="total")]}{.resource}{"\\t"}{.recommended}{"\\n"}{end}',
}

FORMATS = [(report, name) for report in reporters.REPORT_TYPES for name in reporters.names(report)]


def test_every_report_type_is_a_package_of_formats() -> None:
    assert reporters.REPORT_TYPES == ("findings", "explain", "verify", "diff", "sizing", "impact", "recommend")
    for report in reporters.REPORT_TYPES:
        assert (REPO_ROOT / "renderer" / "reporters" / report / "__init__.py").is_file()
        assert reporters.names(report) == sorted(reporters.names(report))
    with pytest.raises(KeyError):
        reporters.names("nope")
    with pytest.raises(KeyError):
        reporters.get("findings", "nope")


@pytest.mark.parametrize(("report", "name"), FORMATS, ids=[f"{r}/{n}" for r, n in FORMATS])
def test_every_format_has_its_golden_output(
    report: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert report in INPUTS, f"report type {report} has formats: add its input to INPUTS in {__file__}"
    golden = GOLDEN / report / f"{name}.out"
    if not UPDATE:
        assert golden.is_file(), (
            f"format {report}/{name} has no golden output: write {golden.relative_to(REPO_ROOT)} "
            "(ALLOCATABLE_UPDATE_GOLDEN=1 writes it; review it before committing)"
        )
    work = tmp_path / "work"
    shutil.copytree(REPO_ROOT / "policies", work / "policies")
    monkeypatch.chdir(work if report == "diff" else REPO_ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    result = INPUTS[report](work)
    out = io.StringIO()
    if reporters.DERIVED.get(name):
        assert (report, name) in ARGUMENTS, f"format {report}/{name} takes an argument: add one to ARGUMENTS"
        name_arg = f"{name}={ARGUMENTS[report, name]}"
    else:
        name_arg = name
    reporters.get(report, name_arg)(result, out)
    text = _stable(report, name, out.getvalue())
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


def _stable(report: str, name: str, text: str) -> str:
    """SARIF carries every rule's descriptor: a rule added or reworded anywhere would change this golden. It keeps
    the descriptors of the rules its results name (``ruleIndex``, which counts all rules, dropped); the rest of the
    document stays byte for byte. The whole catalog is checked by tests/rules/test_lint_reporters.py."""
    if (report, name) != ("findings", "sarif"):
        return text
    import json

    doc = json.loads(text)
    for run in doc["runs"]:
        used = {r["ruleId"] for r in run["results"]}
        run["tool"]["driver"]["rules"] = [r for r in run["tool"]["driver"]["rules"] if r["id"] in used]
        for result in run["results"]:
            result.pop("ruleIndex", None)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def test_kubernetes_formats_come_with_the_json_one() -> None:
    """yaml and jsonpath are made from the json format's document: every report with one has them, none has them
    as a file of its own (they could then say something the JSON does not)."""
    for report in reporters.REPORT_TYPES:
        formats = reporters.names(report)
        assert ("json" in formats) == ({"yaml", "jsonpath"} <= set(formats)), report
        for name in reporters.DERIVED:
            assert not (REPO_ROOT / "renderer" / "reporters" / report / f"{name}.py").exists()


def test_no_golden_without_its_format() -> None:
    formats = {f"{r}/{n}.out" for r, n in FORMATS}
    stray = sorted(p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.out"))
    assert [s for s in stray if s not in formats] == []
