"""``allocatable init [DIR]``: scaffold a policy repo — example policies, settings, pre-commit and CI."""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from pathlib import Path

NAME = "init"
ORDER = 5
HELP = "create a new policy repo: example policies, .allocatable.yaml, pre-commit config and a CI workflow"
DESCRIPTION = (
    "Write a small, commented policy repo into DIR (default: the current directory): one NodePool, CommitClass, "
    "ReservationPolicy and RuntimeClass under the policy directory with its .allocatable.yaml, a "
    ".pre-commit-config.yaml and a GitHub workflow that run this tool (pinned to a published release when this "
    "version is one, else running the installed tool, with a comment on how to pin a release later); then render "
    "the policies once so every check passes from the first commit. Existing files are never overwritten unless "
    "--force is given. The files it writes and the next steps go to stderr."
)
EXIT_CODES = {0: "created (and rendered)", 1: "created, but rendering the example policies failed"}


def register(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    from renderer.integrations.scaffold import DEFAULT_REPO

    parser.add_argument("dir", nargs="?", type=Path, default=Path("."), metavar="DIR", help="repository root")
    parser.add_argument(
        "--policy-dir", default="policies", metavar="NAME", help="policy directory inside DIR (default: policies)"
    )
    parser.add_argument(
        "--repo",
        default=DEFAULT_REPO,
        metavar="OWNER/NAME",
        help=f"GitHub repository of the hooks and the action, for forks and mirrors (default: {DEFAULT_REPO})",
    )
    parser.add_argument("--force", action="store_true", help="overwrite files that already exist")
    parser.add_argument("--no-render", action="store_true", help="do not render the example policies")


def _fail(message: str) -> int:
    from renderer.commands.common import error

    return error(message)


def run(args: argparse.Namespace) -> int:
    from renderer import __version__
    from renderer.integrations.scaffold import (
        GITATTRIBUTES,
        GITATTRIBUTES_LINE,
        WORKFLOW,
        check_policy_dir,
        check_repo,
        files,
        is_released,
    )
    from renderer.loading.files import display_path

    for problem in (check_repo(args.repo), check_policy_dir(args.policy_dir)):
        if problem:
            return _fail(problem)
    root: Path = args.dir
    if root.exists() and not root.is_dir():
        return _fail(f"{root.as_posix()} exists and is not a directory; choose a directory")
    planned = files(policy_dir=args.policy_dir, repo=args.repo)
    attributes = _existing_gitattributes(root, args.force)
    if attributes is not None:  # the repo's own: kept; the next steps say what to add when it lacks the line
        planned = [f for f in planned if f.path != GITATTRIBUTES]
    clashes = [f.path for f in planned if (root / f.path).exists() or (root / f.path).is_symlink()]
    if clashes and not args.force:
        return _fail(
            f"refusing to overwrite existing file{'s' if len(clashes) != 1 else ''} in {root.as_posix()}: "
            f"{', '.join(clashes)}; use --force to overwrite them"
        )
    blocked = [
        f.path
        for f in planned
        for parent in (root / f.path).parents
        if parent != root and parent.is_relative_to(root) and parent.exists() and not parent.is_dir()
    ]
    if blocked:
        return _fail(f"cannot create {', '.join(sorted(set(blocked)))}: a parent path is a file; move it away")
    from renderer.render.output import write_files

    # all or nothing, never through a symlinked directory: the render writer's own code (an OutputError, a UserError:
    # one line, exit 2)
    write_files(
        root,
        {f.path: f.text.encode("utf-8") for f in planned},
        overwrite=args.force,
        allowed=[WORKFLOW],  # the one file init itself puts under .github/; never a --policy-dir there
    )
    for f in planned:
        verb = "overwrote" if f.path in clashes else "created"
        sys.stderr.write(f"{verb} {display_path((root / f.path).absolute())}\n")
    policies = root / args.policy_dir
    code = 0
    if not args.no_render:
        code = _render(root, args.policy_dir)
    shown = display_path(policies.absolute())
    sys.stderr.write(
        "\nNext steps:\n"
        f"  1. describe your nodes in {shown}/pools/ (or drop `kubectl get nodes -o yaml` output there)\n"
        f"  2. allocatable lint {shown} && allocatable explain {shown}\n"
        f"  3. allocatable render {shown} after each change, and commit the result (CI checks it is current)\n"
        "  4. pre-commit install            (the hooks in .pre-commit-config.yaml"
        + (")\n" if is_released(__version__) else "; they run the allocatable on your PATH)\n")
    )
    if attributes is not None and GITATTRIBUTES_LINE not in attributes.splitlines():
        sys.stderr.write(
            f"  5. add `{GITATTRIBUTES_LINE}` to {display_path((root / GITATTRIBUTES).absolute())} (kept as it was), "
            "so render --check compares equal on a CRLF checkout\n"
        )
    return code


def _existing_gitattributes(root: Path, force: bool) -> str | None:
    """The text of the repo's own ``.gitattributes`` (None: there is none, or --force replaces it). A repo's
    attributes are not init's to replace; one that cannot be read as a regular file is left alone too."""
    from renderer import safepath
    from renderer.integrations.scaffold import GITATTRIBUTES

    path = root / GITATTRIBUTES
    if force or not (path.exists() or path.is_symlink()):
        return None
    try:
        return safepath.read_regular(path, 1 << 20, follow=False).decode("utf-8", "replace")
    except (safepath.FileProblem, OSError):
        return ""


def _render(root: Path, policy_dir: str) -> int:
    """Render once, exactly as `allocatable render POLICY_DIR` from the repository root would."""
    import os

    from renderer.commands import render
    from renderer.commands.common import invoke

    old = os.getcwd()
    os.chdir(root)
    try:
        code = invoke(render, [policy_dir])
    finally:
        os.chdir(old)
    if code != 0:
        sys.stdout.flush()
        sys.stderr.write("init: rendering the example policies failed; see the messages above\n")
    return code
