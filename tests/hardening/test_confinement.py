"""Issue 21, classes 2-4 and 21: reads and writes stay inside the checkout, whatever the pull request commits.

- class 2: the Action's SARIF is written by the safe-path layer: never through a symlink (file or directory)
  committed in the pull request, never into .git/ or .github/, never into a FIFO;
- class 3: a path in the repository that leads out of it through a symlink is refused before it is opened, for
  every reader: ``verify --nodes/--pods``, every command's PATH, the pre-commit hook's policy repos;
- class 4: ``.git/`` and ``.github/`` are no destination: ``render.outputDir`` (also through a symlink), ``render -o``,
  ``init --policy-dir``, ``schema -o``;
- class 21: a policy directory named ``-`` is a directory, never standard input (CLI, hook, Action, Argo CD plugin),
  and the plugin's log carries no raw bidi or control character.

Every case checks the exit code, one line, nothing outside read or printed, nothing written where it must not be. The
CLI runs as a subprocess (``cli``, or the shipped shell) where a process matters: the Action's and the plugin's
scripts, a dump symlinked to /dev/zero (a blocking read bounded by a timeout), standard input (a directory named
``-``); the other checks of classes 3 and 4 run it in this process (``in_process``)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from support.hardening import (
    REPO_ROOT,
    SECRET,
    SETTINGS,
    assert_no_crash,
    cli,
    good_repo,
    in_process,
    pool,
    shown,
    snapshot,
    write,
)
from support.round2 import action_step, action_workspace, git, init_repo, outside_dir, plugin_generate, tree_listing

#: Characters no log line may carry raw: controls, bidi embeddings/overrides/isolates/marks, zero-width, separators.
INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")

NODE = (REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text()


def _one_error_line(res: subprocess.CompletedProcess[str], *fragments: str) -> str:
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("allocatable: error: "), shown(res)
    for fragment in fragments:
        assert fragment in lines[0], shown(res)
    assert SECRET not in res.stdout + res.stderr
    return lines[0]


# --- class 2: the Action's SARIF ------------------------------------------------------------------------------------


def _sarif_cases(ws: Path, outside: Path) -> dict[str, str]:
    """name -> INPUT_SARIF_FILE, after planting what the pull request would commit."""
    (outside / "target.txt").write_text("precious\n")
    (ws / "linked.sarif").symlink_to(outside / "target.txt")
    (ws / "dangling.sarif").symlink_to(outside / "created-by-the-action.txt")
    (ws / "reports").symlink_to(outside)
    (ws / "hop").symlink_to(ws / "reports")
    os.mkfifo(ws / "fifo.sarif")
    (ws / ".github" / "workflows").mkdir(parents=True)
    return {
        "file-symlink": "linked.sarif",
        "dangling-symlink": "dangling.sarif",
        "directory-symlink": "reports/allocatable.sarif",
        "chained-directory-symlink": "hop/new/allocatable.sarif",
        "fifo": "fifo.sarif",
        "github-workflows": ".github/workflows/allocatable.sarif",
        "git-hooks": ".git/hooks/post-checkout",
    }


@pytest.mark.parametrize(
    "case",
    [
        "file-symlink",
        "dangling-symlink",
        "directory-symlink",
        "chained-directory-symlink",
        "fifo",
        "github-workflows",
        "git-hooks",
    ],
)
def test_the_action_never_writes_its_sarif_through_the_pull_requests_tree(tmp_path: Path, case: str) -> None:
    ws = action_workspace(tmp_path)
    outside = outside_dir(tmp_path)
    sarif = _sarif_cases(ws, outside)[case]
    before_outside = tree_listing(outside)
    before_git = snapshot(ws / ".git")
    proc, outputs = action_step(ws, tmp_path, "sarif", INPUT_PATH="policies", INPUT_SARIF_FILE=sarif)
    assert outputs["sarif-file"] == "", proc.stdout + proc.stderr
    assert "::error title=allocatable::refusing to write" in proc.stdout, proc.stdout + proc.stderr
    assert tree_listing(outside) == before_outside
    assert (outside / "target.txt").read_text() == "precious\n"
    assert snapshot(ws / ".git") == before_git
    assert not (ws / ".github" / "workflows" / "allocatable.sarif").exists()


def test_the_action_writes_its_sarif_into_a_new_directory(tmp_path: Path) -> None:
    ws = action_workspace(tmp_path)
    proc, outputs = action_step(
        ws, tmp_path, "sarif", INPUT_PATH="policies", INPUT_SARIF_FILE="reports/lint/allocatable.sarif"
    )
    assert outputs["sarif-file"] == "reports/lint/allocatable.sarif", proc.stdout + proc.stderr
    doc = json.loads((ws / "reports/lint/allocatable.sarif").read_text())
    assert doc["version"] == "2.1.0"


# --- class 3: reads that would leave the repository --------------------------------------------------------------


def _plant_dumps(repo: Path, outside: Path) -> dict[str, str]:
    (outside / "nodes.json").write_text(json.dumps({"apiVersion": "v1", "kind": SECRET}))
    (repo / "linked.json").symlink_to(outside / "nodes.json")
    (repo / "dumps").symlink_to(outside)
    (repo / "a.json").symlink_to("b.json")
    (repo / "b.json").symlink_to(outside / "nodes.json")
    (repo / "up.json").symlink_to(Path("..") / outside.name / "nodes.json")
    (repo / "zero.json").symlink_to("/dev/zero")
    return {
        "file-symlink": "linked.json",
        "directory-symlink": "dumps/nodes.json",
        "chain": "a.json",
        "relative": "up.json",
        "device": "zero.json",
    }


@pytest.mark.parametrize("option", ["--nodes", "--pods"])
@pytest.mark.parametrize("case", ["file-symlink", "directory-symlink", "chain", "relative", "device"])
def test_verify_refuses_a_dump_that_leads_out_of_the_repository(tmp_path: Path, option: str, case: str) -> None:
    repo = init_repo(tmp_path / "repo")
    outside = outside_dir(tmp_path)
    dump = _plant_dumps(repo, outside)[case]
    (repo / "node.yaml").write_text(NODE)
    extra = ["--nodes=node.yaml"] if option == "--pods" else []
    res = cli("verify", *extra, f"{option}={dump}", "policies", cwd=repo, timeout=60)
    line = _one_error_line(res, f"{dump}: leads outside the repository", "refusing to read the dump")
    assert str(outside) not in line  # never says where it leads


def test_verify_reads_a_dump_outside_the_repository_that_the_user_names(tmp_path: Path) -> None:
    """Confinement is about what the tree holds: a path typed on the command line outside the checkout is the
    user's (kubectl get nodes -o json > /tmp/nodes.json)."""
    repo = init_repo(tmp_path / "repo")
    outside = tmp_path / "dumps"
    outside.mkdir()
    (outside / "node.yaml").write_text(NODE)
    res = in_process("verify", f"--nodes={outside / 'node.yaml'}", "policies", cwd=repo)
    assert_no_crash(res)
    assert res.returncode in (0, 1), shown(res)


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "policies"],
        ["lint", "policies"],
        ["explain", "policies"],
        ["render", "policies", "-o", "out"],
        ["render", "--stdout", "policies"],
        ["lint", "policies/pools"],
    ],
    ids=lambda a: "-".join(a[:2]),
)
def test_every_command_refuses_a_policy_path_that_leads_out_of_the_repository(tmp_path: Path, argv: list[str]) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    outside = tmp_path / "outside"
    good_repo(outside / "policies")
    write(outside / "policies", {"pools/secret.yaml": pool(name=SECRET)})
    (repo / "policies").symlink_to(outside / "policies")
    before = snapshot(tmp_path)
    res = in_process(*argv, cwd=repo)
    _one_error_line(res, "leads outside the repository", "refusing to read the policies there")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "hook",
    [["validate"], ["lint"], ["render-check"], ["lint", "policies/pools/web.yaml"], ["validate", "policies"]],
    ids=lambda a: "-".join(a).replace("/", "_"),
)
def test_the_pre_commit_hook_refuses_a_policy_directory_that_is_a_symlink_out(tmp_path: Path, hook: list[str]) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    outside = tmp_path / "outside"
    good_repo(outside)
    write(outside, {"pools/secret.yaml": pool(name=SECRET)})
    (repo / "policies").symlink_to(outside)
    res = in_process("hook", *hook, cwd=repo)
    _one_error_line(res, "policies: leads outside the repository")


# --- class 4: .git/ and .github/ are no destination ---------------------------------------------------------------


@pytest.mark.parametrize(
    "output_dir",
    [".git", ".git/hooks", ".github/workflows", ".GIT/hooks", "./.git/info", "linked-git/hooks", "linked-github/x"],
)
def test_render_output_dir_in_git_or_github_is_refused(tmp_path: Path, output_dir: str) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    good_repo(repo / "policies")
    (repo / ".github").mkdir()
    (repo / "linked-git").symlink_to(".git")
    (repo / "linked-github").symlink_to(".github")
    (repo / "sub").mkdir()
    (repo / "policies" / ".allocatable.yaml").write_text(SETTINGS + f"render:\n  outputDir: {output_dir}\n")
    before = snapshot(repo)
    res = in_process("render", "policies", cwd=repo)
    _one_error_line(res, "refusing to write into", "choose another directory")
    assert snapshot(repo) == before
    res = in_process("render", "policies", "-o", output_dir, cwd=repo)
    _one_error_line(res, "refusing to write into")
    assert snapshot(repo) == before


@pytest.mark.parametrize(
    "argv",
    [
        ["init", "--policy-dir", ".git", "--no-render"],
        ["init", "--policy-dir", ".git/hooks", "--no-render"],
        ["init", "--policy-dir", ".github/workflows", "--no-render"],
        ["init", "--policy-dir", "x/.Git", "--no-render"],
        ["init", ".git", "--no-render"],
        ["schema", "-o", ".git/hooks"],
        ["schema", "-o", ".github"],
    ],
    ids=lambda a: "-".join(a[:3]).replace("/", "_"),
)
def test_init_and_schema_never_write_into_git_or_github(tmp_path: Path, argv: list[str]) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    before = snapshot(repo)
    res = in_process(*argv, cwd=repo)
    _one_error_line(res, "refusing to write into")
    assert snapshot(repo) == before


def test_init_still_writes_its_own_workflow(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    res = in_process("init", "--no-render", cwd=repo)
    assert res.returncode == 0, shown(res)
    assert (repo / ".github/workflows/allocatable.yml").is_file()


# --- class 21: a directory named "-"; bidi characters in the plugin's log ----------------------------------------

_STDIN_POLICY = pool(name="read-from-stdin")


def _dash_repo(root: Path) -> Path:
    good_repo(root / "-")
    return root


@pytest.mark.parametrize(
    "argv", [["validate", "./-"], ["lint", "./-"], ["explain", "./-"], ["render", "--stdout", "./-"]]
)
def test_a_policy_directory_named_dash_is_a_directory_on_the_command_line(tmp_path: Path, argv: list[str]) -> None:
    _dash_repo(tmp_path)
    res = subprocess.run(
        [*__import__("sys").executable.split(), "-m", "renderer", *argv],
        cwd=tmp_path,
        input=_STDIN_POLICY,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert_no_crash(res)
    assert res.returncode in (0, 1), shown(res)
    assert "<stdin>" not in res.stdout + res.stderr and "read-from-stdin" not in res.stdout + res.stderr


def test_the_hook_checks_a_policy_directory_named_dash(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    _dash_repo(tmp_path)
    res = cli("hook", "validate", "-/pools/web.yaml", cwd=tmp_path)
    assert res.returncode == 0 and "<stdin>" not in res.stdout + res.stderr, shown(res)


@pytest.mark.parametrize("env", [{}, {"ARGOCD_ENV_POLICY_PATH": "-"}], ids=["discovered", "named"])
def test_the_plugin_renders_a_policy_directory_named_dash(tmp_path: Path, env: dict[str, str]) -> None:
    app = tmp_path / "app"
    _dash_repo(app)
    res = plugin_generate(app, stdin=_STDIN_POLICY, **env)
    assert res.returncode == 0, shown(res)
    assert "kind: ConfigMap" in res.stdout and "read-from-stdin" not in res.stdout


def test_the_action_lints_a_policy_directory_named_dash(tmp_path: Path) -> None:
    ws = action_workspace(tmp_path)
    good_repo(ws / "-")
    write(ws / "-", {"pools/web.yaml": pool(count="-1")})
    proc, outputs = action_step(ws, tmp_path, "lint", INPUT_PATH="-", INPUT_SARIF_FILE="")
    assert outputs["lint-exit"] == "2" and "file=-/pools/web.yaml" in proc.stdout, proc.stdout + proc.stderr


@pytest.mark.parametrize(
    "name",
    ["\u202eevil", "a\u2066b\u2069c", "esc\x1b[31mred", "line\u2028break", "zero\u200bwidth\ufeffbom"],
    ids=["rlo", "isolate", "escape", "line-separator", "bom"],
)
def test_the_plugins_log_carries_no_raw_bidi_or_control_character(tmp_path: Path, name: str) -> None:
    app = tmp_path / "app"
    good_repo(app / "policies")
    for variable in ("ARGOCD_ENV_POLICY_PATH", "ARGOCD_APP_NAME", "ARGOCD_ENV_TARGETS"):
        res = plugin_generate(app, **{variable: name})
        assert res.stderr, shown(res)
        for line in res.stderr.splitlines():
            assert line.startswith(("allocatable-cmp: ", "allocatable: ")), repr(line)
            if line.startswith("allocatable-cmp: "):
                assert line.isascii() and line.isprintable(), repr(line)  # the plugin's own log: "?" for the rest
            else:  # the tool's own error line: escapes (renderer.escaping.plain)
                assert not INVISIBLE.search(line), repr(line)
