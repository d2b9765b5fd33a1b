"""Files of a new policy repo (``allocatable init``), from the templates in ``renderer/scaffold/``.

Templates are plain files shipped as package data. Tokens replaced: ``@@VERSION@@`` (this version),
``@@REPO@@`` (the GitHub repository that publishes the hooks and the action), ``@@POLICY_DIR@@``, ``@@SCHEMAS@@``
(the relative path from the file to the JSON Schemas written beside the policies, for editors), and in the
workflow ``@@ACTION_REF@@`` with its ``@@ACTION_COMMENT@@``. No template engine: the workflow template is full of
``${{ }}``.

A new repo must work from its first commit, so nothing may point at a release that does not exist: the editors'
``yaml-language-server`` lines point at the JSON Schemas ``init`` writes into ``<policy dir>/.schemas/`` (a hidden
directory, which the policy loader does not read; ``allocatable schema -o <policy dir>/.schemas`` refreshes them). When this
version is a published release (``PUBLISHED_RELEASES``), the pre-commit config pins its hooks (``rev: vX.Y.Z``) and
the workflow its action tag. Otherwise the pre-commit hooks run the installed tool (``repo: local``, ``language:
system``: no download, works offline) and the workflow follows the action's default branch, each with a comment
on how to pin a release once there is one.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from importlib import resources

from renderer import __version__

#: The GitHub repository that publishes this tool's pre-commit hooks and GitHub Action (``owner/name``).
DEFAULT_REPO = "allocatable-dev/allocatable"
#: Versions published as tagged releases (``vX.Y.Z``) of DEFAULT_REPO. None yet: add each release when it is tagged.
PUBLISHED_RELEASES: frozenset[str] = frozenset()
#: The branch the workflow follows while no release exists.
DEFAULT_BRANCH = "main"
_REPO_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$")
_DIR_RE = re.compile(r"^[A-Za-z0-9._-]+(?:/[A-Za-z0-9._-]+)*$")

#: The CI workflow init writes: the only file it puts below .github/ (safepath refuses every other destination there).
WORKFLOW = ".github/workflows/allocatable.yml"
#: destination (with ``{policies}`` for the policy directory) → template file in renderer/scaffold/
FILES: dict[str, str] = {
    "{policies}/.allocatable.yaml": "settings.yaml",
    "{policies}/pools/general.yaml": "nodepool.yaml",
    "{policies}/commitclasses/general-burst.yaml": "commitclass.yaml",
    "{policies}/reservations/general.yaml": "reservationpolicy.yaml",
    "{policies}/runtimeclasses/gvisor.yaml": "runtimeclass.yaml",
    ".pre-commit-config.yaml": "pre-commit-config.yaml",
    WORKFLOW: "workflow.yaml",
}


#: The rendered tree's directory (``render.outputDir`` in the settings template), and the ``.gitattributes`` that keeps
#: it LF: rendered files are compared byte for byte (``render --check``), and git with ``core.autocrlf=true`` (the
#: Windows installer's default) would check them out with CRLF (https://git-scm.com/docs/gitattributes, "eol").
RENDERED_DIR = "rendered"
GITATTRIBUTES = ".gitattributes"
GITATTRIBUTES_LINE = f"{RENDERED_DIR}/** text eol=lf"
_GITATTRIBUTES_TEXT = (
    "# Written by allocatable init: the rendered tree is byte for byte what `allocatable render` writes, with LF line\n"
    "# endings, on every checkout (core.autocrlf included), so `allocatable render --check` compares equal.\n"
    f"{GITATTRIBUTES_LINE}\n"
)

#: Where the JSON Schemas go (all that `allocatable schema` writes), inside the policy directory.
SCHEMA_DIR = ".schemas"

#: The pre-commit config used instead of ``pre-commit-config.yaml`` while this version has no published release.
LOCAL_HOOKS_TEMPLATE = "pre-commit-config-local.yaml"


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


def is_released(version: str) -> bool:
    return version in PUBLISHED_RELEASES


def files(
    *,
    policy_dir: str = "policies",
    repo: str = DEFAULT_REPO,
    version: str = __version__,
    released: bool | None = None,
) -> list[ScaffoldFile]:
    """The new repo's files; ``released`` (default: whether ``version`` is published) picks pinned or local hooks."""
    pinned = is_released(version) if released is None else released
    action_ref = f"v{version}" if pinned else DEFAULT_BRANCH
    action_comment = (
        ""
        if pinned
        else f"# No release of allocatable is published yet: this follows {DEFAULT_BRANCH}. Pin a release tag "
        "(@vX.Y.Z) or a commit SHA once one exists.\n      "
    )
    schemas = f"{policy_dir}/{SCHEMA_DIR}"
    out = []
    for dest, name in FILES.items():
        if name == "pre-commit-config.yaml" and not pinned:
            name = LOCAL_HOOKS_TEMPLATE
        text = (
            template(name)
            .replace("@@ACTION_COMMENT@@", action_comment)
            .replace("@@ACTION_REF@@", action_ref)
            .replace("@@VERSION@@", version)
            .replace("@@REPO@@", repo)
            .replace("@@POLICY_DIR@@", policy_dir)
        )
        path = dest.format(policies=policy_dir)
        text = text.replace("@@SCHEMAS@@", posixpath.relpath(schemas, posixpath.dirname(path) or "."))
        out.append(ScaffoldFile(path, text))
    out.append(ScaffoldFile(GITATTRIBUTES, _GITATTRIBUTES_TEXT))
    from renderer.models.schema.jsonschema import generate
    from renderer.render.schemas import rendered_schemas

    out += [ScaffoldFile(f"{schemas}/{name}", text) for name, text in sorted(generate(rendered_schemas()).items())]
    return out
