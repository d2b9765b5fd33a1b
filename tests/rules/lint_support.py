"""Helpers for the lint tests: build a policy repo from a case, run `allocatable lint`, read its findings."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from conftest import CliResult, run_cli
from support.factory import write_file, write_repo

# A 16-cpu pool labelled example.com/tier=batch, which most command-level tests commit against.
BATCH_POOL = """
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: batch
spec:
  labels: {example.com/tier: batch}
  capacity: {cpu: "16", memory: 32Gi}
  count: 2
"""

CASES = Path(__file__).parent / "cases"
SHARED = CASES / "_shared.yaml"


@dataclass
class Case:
    code: str
    name: str
    files: dict[str, str]
    settings: dict[str, Any] | None = None
    base: dict[str, str] | None = None  # files at the --base revision
    expect: list[dict[str, Any]] = field(default_factory=list)
    args: list[str] = field(default_factory=list)
    #: files written beside the policy repo (``tmp/<name>``, not under ``policies/``): measured usage for AL216
    inputs: dict[str, str] = field(default_factory=dict)

    @property
    def failing(self) -> bool:
        return bool(self.expect)


def shared_files() -> dict[str, dict[str, str]]:
    data = yaml.safe_load(SHARED.read_text(encoding="utf-8"))
    return {name: dict(files) for name, files in data.items()}


def _expectation(item: Any) -> dict[str, Any]:
    if isinstance(item, str):
        at, _, severity = item.partition(" ")
        return {"at": at, **({"severity": severity} if severity else {})}
    assert isinstance(item, dict) and "at" in item, item
    return dict(item)


def load_cases() -> list[Case]:
    shared = shared_files()
    out: list[Case] = []
    for path in sorted(CASES.glob("AL*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        code = data["rule"]
        assert code == path.stem, f"{path.name} declares rule {code}"
        for raw in data["cases"]:
            files: dict[str, str] = {}
            for name in raw.get("use", []):
                files.update(shared[name])
            files.update(raw.get("files") or {})
            base = None
            if "base" in raw:
                base = {}
                for name in raw["base"].get("use", []):
                    base.update(shared[name])
                base.update(raw["base"].get("files") or {})
            out.append(
                Case(
                    code=code,
                    name=raw["name"],
                    files=files,
                    settings=raw.get("settings"),
                    base=base,
                    expect=[_expectation(e) for e in raw.get("expect") or []],
                    args=list(raw.get("args") or []),
                    inputs=dict(raw.get("inputs") or {}),
                )
            )
    return out


def _write(root: Path, files: dict[str, str], settings: dict[str, Any] | None) -> None:
    if root.exists():
        for p in sorted(root.rglob("*"), reverse=True):
            if p.is_file():
                p.unlink()
    root.mkdir(parents=True, exist_ok=True)
    write_repo(root, files)
    if settings is not None:
        # yaml.safe_dump's layout, not the project writer's: cases (AL904) locate findings in this file's lines
        doc = {"apiVersion": "policy.allocatable.dev/v1alpha1", "kind": "Settings", **settings}
        write_file(root / ".allocatable.yaml", yaml.safe_dump(doc, sort_keys=False), dedent=False)


def git(cwd: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def build_repo(tmp: Path, case: Case) -> Path:
    """Write the case into ``tmp/policies`` (committing the base revision first when there is one)."""
    root = tmp / "policies"
    if case.base is not None:
        git(tmp, "init", "-q", "-b", "main")
        _write(root, case.base, case.settings)
        git(tmp, "add", "-A")
        git(tmp, "commit", "-q", "-m", "base")
    _write(root, case.files, case.settings)
    for name, text in case.inputs.items():
        write_file(tmp / name, text)
    return root


def lint_json(tmp: Path, *args: str) -> tuple[CliResult, list[dict[str, Any]]]:
    res = run_cli("lint", "policies", "-o", "json", *args, cwd=tmp)
    assert res.stdout, res.stderr
    doc = json.loads(res.stdout)
    return res, doc["findings"]


def position_text(tmp: Path, finding: dict[str, Any]) -> str:
    """The source text at a finding's line:column, to the end of the line."""
    lines = (tmp / finding["path"]).read_text(encoding="utf-8").splitlines()
    return lines[finding["line"] - 1][finding["column"] - 1 :].rstrip()
