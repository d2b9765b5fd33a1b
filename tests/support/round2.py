"""Helpers for the second hardening round (issue 21: the pull request is the attacker): git trees crafted the way
an attacker crafts them (``git hash-object -t tree --literally`` takes what ``git mktree`` refuses), and a
workspace whose secrets live outside the repository."""

from __future__ import annotations

import binascii
import os
import subprocess
from pathlib import Path

from support.hardening import SECRET, good_repo

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str, data: bytes | None = None) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_ENV)
    proc = subprocess.run(["git", "-C", str(repo), *args], input=data, capture_output=True, env=env, check=True)
    return proc.stdout.decode().strip()


def init_repo(repo: Path) -> Path:
    """A git repository holding a good policy repo under ``policies/``, committed."""
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q")
    good_repo(repo / "policies")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "good")
    return repo


def blob(repo: Path, data: bytes) -> str:
    return git(repo, "hash-object", "-w", "--stdin", data=data)


def tree(repo: Path, entries: list[tuple[str, bytes, str]]) -> str:
    """A tree object holding exactly ``entries`` (mode, name, object id), duplicates and odd names included."""
    raw = b"".join(mode.encode() + b" " + name + b"\0" + binascii.unhexlify(sha) for mode, name, sha in entries)
    return git(repo, "hash-object", "-t", "tree", "--literally", "-w", "--stdin", data=raw)


def commit_with_policies(repo: Path, policies_tree: str, branch: str) -> str:
    """A branch whose commit has ``policies`` = ``policies_tree`` (a tree or, mode 120000, a symlink blob)."""
    root = tree(repo, [("40000", b"policies", policies_tree)])
    commit = git(repo, "commit-tree", root, "-m", "hostile")
    git(repo, "branch", "-f", branch, commit)
    return commit


def commit_with_root(repo: Path, entries: list[tuple[str, bytes, str]], branch: str) -> str:
    root = tree(repo, entries)
    commit = git(repo, "commit-tree", root, "-m", "hostile")
    git(repo, "branch", "-f", branch, commit)
    return commit


def outside_dir(tmp_path: Path) -> Path:
    """A directory outside the repository holding a secret (a policy file whose name is SECRET)."""
    outside = tmp_path / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.yaml").write_text(f"apiVersion: v1\nkind: Secret\nmetadata: {{name: {SECRET}}}\n")
    return outside


def tree_listing(root: Path) -> list[str]:
    """Every path below ``root`` (symlinks not followed), for 'nothing was written here' checks."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


# --- the GitHub Action's steps, run as the runner runs them --------------------------------------------------------

RUN_SH = Path(__file__).resolve().parents[2] / ".github" / "action" / "run.sh"


def action_workspace(tmp_path: Path) -> Path:
    """A git checkout holding a good policy repo under policies/ (the workspace the Action runs in)."""
    return init_repo(tmp_path / "ws")


def action_step(ws: Path, tmp: Path, step: str, **env: str) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    """``run.sh STEP`` with the runner's files (GITHUB_OUTPUT, the job summary, RUNNER_TEMP) in ``tmp``; returns
    the process and the step's outputs."""
    import sys

    out = tmp / f"out-{step}"
    out.write_text("")
    full = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "GIT_"))}
    full.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        GITHUB_OUTPUT=str(out),
        GITHUB_STEP_SUMMARY=str(tmp / "summary.md"),
        RUNNER_TEMP=str(tmp),
        HOME=str(tmp),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        NO_COLOR="1",
    )
    full.update(env)
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", f'bash "{RUN_SH}" {step}'],
        cwd=ws,
        env=full,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines() if "=" in line)
    return proc, outputs


# --- the Argo CD plugin's generate command ------------------------------------------------------------------------


def plugin_generate(app: Path, stdin: str = "", **env: str) -> subprocess.CompletedProcess[str]:
    import sys

    import yaml

    plugin = Path(__file__).resolve().parents[2] / "argocd" / "plugin.yaml"
    command = yaml.safe_load(plugin.read_text())["spec"]["generate"]["command"]
    full = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    full.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    full.update({"ARGOCD_APP_NAME": "capacity", "ARGOCD_APP_REVISION": "0" * 40, **env})
    return subprocess.run(
        command, cwd=app, env=full, capture_output=True, text=True, timeout=300, check=False, input=stdin
    )
