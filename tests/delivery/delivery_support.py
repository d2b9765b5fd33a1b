"""Helpers for the delivery tests: temporary git repos holding small policy repos."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from support import factory
from support.factory import (
    STATIC_RESERVATIONS,
    Document,
    node_pool,
    reservation_policy,
    settings,
    write_repo,
    yaml_text,
)

REPO_ROOT = Path(__file__).resolve().parents[2]

SETTINGS = yaml_text(settings())

#: What every delivery pool declares besides cpu and memory.
POOL_CAPACITY = {"ephemeral-storage": "100Gi", "pods": "110"}


def pool(name: str, *, tier: str = "general", cpu: str = "8", count: int = 3) -> Document:
    return node_pool(name, tier=tier, cpu=cpu, count=count, capacity=POOL_CAPACITY)


def commit_class(name: str, *, tier: str = "general", percent: int = 150) -> Document:
    return factory.commit_class(name, tier=tier, percents={"cpu": percent})


def reservation(name: str = "static") -> Document:
    return reservation_policy(name, **STATIC_RESERVATIONS)


def greedy_class(*, tier: str, percent: int) -> str:
    """A CommitClass named greedy that over-commits memory (AL201) on the given tier."""
    return f"""
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: greedy
spec:
  selector:
  - matchExpressions:
    - key: example.com/tier
      operator: In
      values: [{tier}]
  resources:
  - name: memory
    percent: {percent}
"""


def git(repo: Path, *args: str, check: bool = True) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", HOME=str(repo), GIT_CONFIG_GLOBAL=os.devnull)
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env, check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def init_repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Test")
    git(path, "config", "user.email", "test@example.com")
    git(path, "config", "commit.gpgsign", "false")
    return path


def commit_all(repo: Path, message: str = "change") -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)
    return git(repo, "rev-parse", "HEAD").strip()


def policy_repo(path: Path, files: dict[str, str] | None = None) -> Path:
    """A git repo with policies/ (one pool, one class, one reservation policy) committed on main."""
    init_repo(path)
    write_repo(
        path,
        files
        or {
            "policies/.allocatable.yaml": SETTINGS,
            "policies/pools.yaml": pool("general"),
            "policies/classes.yaml": commit_class("burst"),
            "policies/reservations.yaml": reservation(),
        },
    )
    commit_all(path, "initial policies")
    return path


def snapshot_checkout(dest: Path) -> Path:
    """This checkout's working tree (tracked and untracked files, not ignored ones) committed into a fresh repo.

    ``pre-commit try-repo`` and ``uses: ./`` see committed content only (try-repo adds uncommitted changes to
    tracked files, never untracked ones); a snapshot makes the tests exercise exactly the files on disk, whether
    or not they are committed yet, and leaves the real checkout alone."""
    import shutil

    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    init_repo(dest)
    for name in filter(None, listing.split("\0")):
        src = REPO_ROOT / name
        if not src.is_file():  # deleted in the work tree but still in the index
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target)
    commit_all(dest, "snapshot of the checkout")
    return dest


def clean_env(**extra: str) -> dict[str, str]:
    """The environment for child processes: no GIT_* from the caller, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(extra)
    return env
