"""Output formats of `allocatable lint`: text, json, github workflow commands and SARIF (read by sarif-tools)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from lint_support import BATCH_POOL as POOL
from lint_support import git

from conftest import KOORDINATOR_ON, run_cli
from renderer.findings import Finding
from renderer.reporters import Report
from renderer.reporters.findings.github import annotation, escape_data, escape_property
from renderer.reporters.findings.github import write as write_github
from renderer.reporters.findings.text import summary
from renderer.reporters.findings.text import write as write_text
from support.factory import write_repo

CLASS = """
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: batch
spec:
  selector:
  - matchExpressions:
    - {key: example.com/tier, operator: In, values: [batch]}
  resources:
  - name: cpu
    percent: 1000
  - name: memory
    percent: 120
"""
RUNTIME = """
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: kata
handler: kata-qemu
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with the policy repo in a subdirectory, the tool run from another subdirectory."""
    git(tmp_path, "init", "-q", "-b", "main")
    write_repo(
        tmp_path / "infra" / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": CLASS, "rc.yaml": RUNTIME}
    )
    (tmp_path / "ci").mkdir()
    return tmp_path


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def _report() -> Report:
    findings = [
        Finding("AL203", "warning", "cpu at 1000%", "policies/b.yaml", 3, 5, "CommitClass/b"),
        Finding("AL201", "error", "memory at 120%", "policies/b.yaml", 4, 5, "CommitClass/b", hint="set 100"),
        Finding("AL204", "info", "under", "policies/c.yaml", 1, 1, None),
    ]
    return Report("lint", findings, files=2, objects=2)


def test_text_groups_by_file_and_is_plain_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    out = io.StringIO()
    write_text(_report(), out)
    assert out.getvalue() == (
        "policies/b.yaml:3:5: warning: cpu at 1000% [AL203] (CommitClass/b)\n"
        "policies/b.yaml:4:5: error: memory at 120%; set 100 [AL201] (CommitClass/b)\n"
        "\n"
        "policies/c.yaml:1:1: info: under [AL204]\n"
    )
    assert summary(_report()) == "lint: 2 objects in 2 files: 1 error, 1 warning, 1 info"


def test_text_is_coloured_on_a_terminal_unless_no_color(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    tty = _Tty()
    write_text(_report(), tty)
    assert "\033[1;31merror:\033[0m" in tty.getvalue()
    assert "\033[1;33mwarning:\033[0m" in tty.getvalue()
    monkeypatch.setenv("NO_COLOR", "1")
    plain = _Tty()
    write_text(_report(), plain)
    assert "\033[" not in plain.getvalue()


def test_lint_text_output_from_the_cli(project: Path) -> None:
    res = run_cli("lint", "../infra/policies", cwd=project / "ci")
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    assert res.stderr == "lint: 3 objects in 3 files: 1 error, 2 warnings\n"
    assert "\033[" not in res.stdout
    assert lines[0].startswith("../infra/policies/cc.yaml:11:14: warning: cpu committed at 1000%")
    assert lines[0].endswith("[AL203] (CommitClass/batch)")
    assert lines[1].startswith("../infra/policies/cc.yaml:13:14: error: memory over-committed at 120%")
    assert lines[2] == ""
    assert lines[3].startswith('../infra/policies/rc.yaml:5:10: warning: sandboxed handler "kata-qemu"')


def test_json_shape(project: Path) -> None:
    res = run_cli("lint", "../infra/policies", "-o", "json", cwd=project / "ci")
    doc = json.loads(res.stdout)
    assert set(doc) == {"version", "files", "objects", "findings"}
    assert doc["version"] == 1 and doc["files"] == 3 and doc["objects"] == 3
    for f in doc["findings"]:
        assert set(f) >= {"code", "severity", "message", "path", "line", "column", "object"}
        assert f["line"] > 0 and f["column"] > 0
    assert [f["code"] for f in doc["findings"]] == ["AL203", "AL201", "AL211"]


def test_github_escaping() -> None:
    assert escape_data("50%\r\nnext") == "50%25%0D%0Anext"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    f = Finding("AL201", "error", "memory at 120%,\nsee: docs", "dir,x/a:b.yaml", 7, 3, "CommitClass/x")
    assert annotation(f, "dir,x/a:b.yaml") == (
        "::error file=dir%2Cx/a%3Ab.yaml,line=7,col=3,title=AL201::memory at 120%25,%0Asee: docs (CommitClass/x)"
    )
    info = Finding("AL204", "info", "under", "a.yaml", 0, 0, None)
    assert annotation(info, "a.yaml") == "::notice file=a.yaml,title=AL204::under"


def test_github_paths_are_relative_to_the_repository_root(project: Path) -> None:
    res = run_cli("lint", "../infra/policies", "-o", "github", cwd=project / "ci")
    assert res.exit_code == 1
    lines = res.stdout.splitlines()  # the most severe first, then in file order
    assert lines[0].startswith("::error file=infra/policies/cc.yaml,line=13,col=14,title=AL201::")
    assert lines[1].startswith("::warning file=infra/policies/cc.yaml,line=11,col=14,title=AL203::cpu committed")
    assert lines[2].startswith("::warning file=infra/policies/rc.yaml,line=5,col=10,title=AL211::")
    assert len(lines) == 3 and res.stderr.startswith("lint: 3 objects in 3 files")
    out = io.StringIO()
    write_github(Report("lint", [], files=0, objects=0), out)
    assert out.getvalue() == ""


# GitHub shows at most 10 annotations of each level per step and 50 per job (actions/toolkit,
# docs/problem-matchers.md, "Limitations"); the expected counts below follow from those two numbers by hand.


def _many(errors: int, warnings: int, infos: int) -> Report:
    found = [Finding("AL201", "error", f"e{i}", f"p/e{i:02}.yaml", 1, 1) for i in range(errors)]
    found += [Finding("AL203", "warning", f"w{i}", f"p/w{i:02}.yaml", 1, 1) for i in range(warnings)]
    found += [Finding("AL204", "info", f"i{i}", f"p/i{i:02}.yaml", 1, 1) for i in range(infos)]
    return Report("lint", sorted(found, key=Finding.sort_key), files=len(found), objects=len(found))


def _github(report: Report, monkeypatch: pytest.MonkeyPatch, budget: str | None = None) -> list[str]:
    if budget is None:
        monkeypatch.delenv("ALLOCATABLE_GITHUB_ANNOTATIONS", raising=False)
    else:
        monkeypatch.setenv("ALLOCATABLE_GITHUB_ANNOTATIONS", budget)
    out = io.StringIO()
    write_github(report, out)
    return out.getvalue().splitlines()


def _commands(lines: list[str]) -> list[str]:
    """The workflow commands GitHub obeys: those outside ``::stop-commands::TOKEN`` … ``::TOKEN::``."""
    obeyed, stop = [], ""
    for line in lines:
        if stop:
            stop = "" if line == f"::{stop}::" else stop
        elif line.startswith("::stop-commands::"):
            stop = line.removeprefix("::stop-commands::")
        elif line.startswith("::"):
            obeyed.append(line)
    return obeyed


def test_github_annotations_stay_within_githubs_limits_most_severe_first(monkeypatch: pytest.MonkeyPatch) -> None:
    lines = _github(_many(25, 12, 4), monkeypatch)
    obeyed = _commands(lines)
    levels = [ln.split(" ", 1)[0] for ln in obeyed]
    # 10 of 25 errors, 10 of 12 warnings, the 4 notices, then the summary notice: 25 annotations
    assert levels == ["::error"] * 10 + ["::warning"] * 10 + ["::notice"] * 5
    assert [ln.rsplit("::", 1)[1] for ln in obeyed[:10]] == [f"e{i}" for i in range(10)]  # file order in a level
    assert obeyed[-1] == (
        "::notice title=allocatable::17 of 41 findings are not annotated (15 errors, 2 warnings): GitHub shows 10 "
        "annotations of each level per step and 50 per job; they follow in this log; `-o sarif` gives every "
        "finding to code scanning, and the allocatable action lists them all in the job summary"
    )
    # the 17 left out are in the log, as -o text writes them, where GitHub reads no command
    rest = lines[len(obeyed) :]
    assert rest[0].startswith("::stop-commands::") and rest[-1] == f"::{rest[0].removeprefix('::stop-commands::')}::"
    assert rest[1:-1] == [f"p/e{i:02}.yaml:1:1: error: e{i} [AL201]" for i in range(10, 25)] + [
        f"p/w{i:02}.yaml:1:1: warning: w{i} [AL203]" for i in (10, 11)
    ]


def test_github_keeps_a_notice_free_for_its_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    obeyed = _commands(_github(_many(0, 0, 12), monkeypatch))
    assert len(obeyed) == 10  # 9 of 12 findings and the summary: GitHub shows 10 notices per step
    assert obeyed[-1].startswith("::notice title=allocatable::3 of 12 findings are not annotated (3 notices)")
    obeyed = _commands(_github(_many(3, 0, 11), monkeypatch))  # one notice too many costs two: 9 and the summary
    assert len(obeyed) == 3 + 10
    assert obeyed[-1].startswith("::notice title=allocatable::2 of 14 findings are not annotated (2 notices)")
    # nothing left out: no summary, no stopped stretch
    assert _github(_many(10, 10, 10), monkeypatch) == _commands(_github(_many(10, 10, 10), monkeypatch))
    assert len(_github(_many(10, 10, 10), monkeypatch)) == 30


def test_github_annotation_budget_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    obeyed = _commands(_github(_many(8, 3, 0), monkeypatch, budget="5"))
    assert [ln.split(" ", 1)[0] for ln in obeyed] == ["::error"] * 4 + ["::notice"]
    assert "7 of 11 findings are not annotated (4 errors, 3 warnings)" in obeyed[-1]
    lines = _github(_many(2, 0, 0), monkeypatch, budget="0")
    assert _commands(lines) == []
    assert lines[1].startswith("2 of 2 findings are not annotated (2 errors)") and len(lines) == 5
    assert len(_github(_many(2, 0, 0), monkeypatch, budget="1")) == 1 + 4  # the summary, then the stopped stretch


@pytest.mark.parametrize("value", ["51", "-1", "ten", "1e3", "٣"])
def test_a_bad_annotation_budget_is_one_line_and_exit_2(
    project: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("ALLOCATABLE_GITHUB_ANNOTATIONS", value)
    res = run_cli("lint", "../infra/policies", "-o", "github", cwd=project / "ci")
    assert res.exit_code == 2 and res.stdout == ""
    assert res.stderr.splitlines()[-1].startswith("allocatable: error: ALLOCATABLE_GITHUB_ANNOTATIONS must be")
    monkeypatch.setenv("ALLOCATABLE_GITHUB_ANNOTATIONS", "7")
    assert run_cli("lint", "../infra/policies", "-o", "text", cwd=project / "ci").exit_code == 1  # other formats


def test_github_left_out_lines_cannot_be_commands(monkeypatch: pytest.MonkeyPatch) -> None:
    found = [Finding("AL201", "error", "m", f"::error file=x::pwned{i}.yaml", 1, 1) for i in range(12)]
    lines = _github(Report("lint", found, files=12, objects=12), monkeypatch)
    obeyed = _commands(lines)
    assert len(obeyed) == 11 and obeyed[-1].startswith("::notice title=allocatable::2 of 12 findings")
    assert all(ln.startswith("::error file=%3A%3Aerror file=x%3A%3Apwned") for ln in obeyed[:10])
    assert "::error file=x::pwned11.yaml:1:1: error: m [AL201]" in lines  # shown, inside the stopped stretch


def _sarif(project: Path, *args: str) -> dict[str, Any]:
    res = run_cli("lint", "../infra/policies", "-o", "sarif", *args, cwd=project / "ci")
    assert res.exit_code == 1, res.stderr
    doc: dict[str, Any] = json.loads(res.stdout)
    return doc


def test_sarif_loads_in_sarif_tools_with_repo_relative_locations(project: Path) -> None:
    from sarif import loader

    path = project / "out.sarif"
    path.write_text(json.dumps(_sarif(project)), encoding="utf-8")
    sarif_file = loader.load_sarif_file(str(path))
    records = sorted(sarif_file.get_records(), key=lambda r: (r["Location"], int(r["Line"]), r["Code"]))
    assert [(r["Tool"], r["Location"], int(r["Line"]), r["Code"], r["Severity"]) for r in records] == [
        ("allocatable", "infra/policies/cc.yaml", 11, "AL203", "warning"),
        ("allocatable", "infra/policies/cc.yaml", 13, "AL201", "error"),
        ("allocatable", "infra/policies/rc.yaml", 5, "AL211", "warning"),
    ]
    assert sarif_file.get_rules_by_id("AL201")[0]["name"] == "memory-over-commit"


def test_sarif_has_every_field_code_scanning_requires(project: Path) -> None:
    from renderer.reporters.catalog import catalog

    doc = _sarif(project)
    assert doc["version"] == "2.1.0" and doc["$schema"].startswith("https://")
    (run,) = doc["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "allocatable" and driver["version"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == sorted(catalog())
    for r in rules:
        assert r["name"] and r["shortDescription"]["text"] and r["fullDescription"]["text"]
        assert r["help"]["text"] and r["help"]["markdown"].startswith("## What it does")
        assert r["defaultConfiguration"]["level"] in ("error", "warning", "note")
    assert run["results"]
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        assert res["message"]["text"]
        (location,) = res["locations"]
        physical = location["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert physical["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not uri.startswith(("/", "..")) and "\\" not in uri
        region = physical["region"]
        assert region["startLine"] >= 1 and region["startColumn"] >= 1
        assert region["endLine"] == region["startLine"] and region["endColumn"] > region["startColumn"]
        assert res["partialFingerprints"] and all(res["partialFingerprints"].values())
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {"AL203": "warning", "AL201": "error", "AL211": "warning"}


def test_sarif_fingerprints_survive_moved_lines(project: Path) -> None:
    before = {r["ruleId"]: r for r in _sarif(project)["runs"][0]["results"]}
    cc = project / "infra" / "policies" / "cc.yaml"
    cc.write_text("# a new comment line on top\n" + cc.read_text(encoding="utf-8"), encoding="utf-8")
    after = {r["ruleId"]: r for r in _sarif(project)["runs"][0]["results"]}
    for code in ("AL201", "AL203"):
        line_before = before[code]["locations"][0]["physicalLocation"]["region"]["startLine"]
        line_after = after[code]["locations"][0]["physicalLocation"]["region"]["startLine"]
        assert line_after == line_before + 1
        assert after[code]["partialFingerprints"] == before[code]["partialFingerprints"]
    assert before["AL201"]["partialFingerprints"] != before["AL203"]["partialFingerprints"]


def test_sarif_outside_git_is_relative_to_the_working_directory(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {**KOORDINATOR_ON, "pool.yaml": POOL, "cc.yaml": CLASS})
    res = run_cli("lint", "-o", "sarif", cwd=tmp_path)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(res.stdout)["runs"][0]["results"]
    }
    assert uris == {"policies/cc.yaml"}
