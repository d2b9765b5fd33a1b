"""Files of a new policy repo (``allocatable init``), from the templates in ``renderer/scaffold/``.

Templates are plain files shipped as package data. Three tokens are replaced: ``@@VERSION@@`` (this release,
for the pre-commit ``rev`` and the action tag), ``@@REPO@@`` (the GitHub repository that publishes the hooks and
the action) and ``@@POLICY_DIR@@``. No template engine: the workflow template is full of ``${{ }}``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

from renderer import __version__

#: The GitHub repository that publishes this tool's pre-commit hooks and GitHub Action (``owner/name``).
DEFAULT_REPO = "allocatable-dev/allocatable"
_REPO_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$")
_DIR_RE = re.compile(r"^[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*$")

#: destination (with ``{policies}`` for the policy directory) → template file in renderer/scaffold/
FILES: dict[str, str] = {
    "{policies}/.allocatable.yaml": "settings.yaml",
    "{policies}/pools/general.yaml": "nodepool.yaml",
    "{policies}/commitclasses/general-burst.yaml": "commitclass.yaml",
    "{policies}/reservations/general.yaml": "reservationpolicy.yaml",
    "{policies}/runtimeclasses/gvisor.yaml": "runtimeclass.yaml",
    ".pre-commit-config.yaml": "pre-commit-config.yaml",
    ".github/workflows/allocatable.yml": "workflow.yaml",
}


@dataclass(frozen=True)
class ScaffoldFile:
    path: str  # relative to the new repo's root, POSIX
    text: str


def check_repo(repo: str) -> str | None:
    """None when ``repo`` looks like ``owner/name``, else what is wrong with it."""
    return None if _REPO_RE.match(repo) else f'"{repo}" is not a GitHub repository in the form owner/name'


def check_policy_dir(name: str) -> str | None:
    if not _DIR_RE.match(name) or any(part in (".", "..") for part in name.split("/")):
        return f'"{name}" is not a relative directory name (letters, digits, ".", "_", "-" and "/")'
    return None


def template(name: str) -> str:
    return (resources.files("renderer") / "scaffold" / name).read_text(encoding="utf-8")


def files(*, policy_dir: str = "policies", repo: str = DEFAULT_REPO, version: str = __version__) -> list[ScaffoldFile]:
    out = []
    for dest, name in FILES.items():
        text = (
            template(name)
            .replace("@@VERSION@@", version)
            .replace("@@REPO@@", repo)
            .replace("@@POLICY_DIR@@", policy_dir)
        )
        out.append(ScaffoldFile(dest.format(policies=policy_dir), text))
    return out
