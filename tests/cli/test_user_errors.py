"""One base class for the errors a user fixes (``renderer.errors.UserError``), and one way the command line says
them: ``allocatable: error: <line>`` on stderr, control characters escaped, exit 2 — whichever command and stage
raises it. Anything else is this tool's own fault and says "internal error".

The messages each error class carries are pinned where they are raised (tests/test_corpus.py, tests/cli,
tests/hardening); here, that the family is one type and is printed one way.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_cli
from renderer.errors import UserError

RENDERER = REPO_ROOT / "renderer"


def _raising(monkeypatch: pytest.MonkeyPatch, exc: BaseException) -> None:
    def explain(*args: object, **kwargs: object) -> None:
        raise exc

    monkeypatch.setattr("renderer.pipeline.explain", explain)


def test_a_user_error_from_any_stage_is_one_line_and_exit_2(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _raising(monkeypatch, UserError("nodes must be a list; give kubectl get nodes -o json", "dump.json:3:7"))
    res = run_cli("explain", str(tmp_path))
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == "allocatable: error: dump.json:3:7: nodes must be a list; give kubectl get nodes -o json\n"


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("renderer.verify.snapshot", "SnapshotError"),
        ("renderer.recommend.source", "UsageInputError"),
        ("renderer.render.dirtree", "OutputError"),
        ("renderer.stdio", "InputError"),
        ("renderer.loading.files", "UsageError"),
    ],
)
def test_every_kind_is_said_the_same_way_with_control_characters_escaped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, module: str, name: str
) -> None:
    import importlib

    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, UserError)
    _raising(monkeypatch, cls("node \x1b[31mred\x1b[0m: bad"))
    res = run_cli("explain", str(tmp_path))
    assert res.exit_code == 2
    assert res.stderr == "allocatable: error: node \\x1b[31mred\\x1b[0m: bad\n"  # an escape sequence is shown, not run


def test_anything_else_is_an_internal_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    _raising(monkeypatch, ZeroDivisionError("division by zero"))
    res = run_cli("explain", str(tmp_path))
    assert res.exit_code == 2
    assert res.stderr.startswith("allocatable: error: internal error: ZeroDivisionError: division by zero; ")


def test_where_and_message_are_kept_apart_and_the_line_is_unchanged() -> None:
    from renderer.cost.errors import PricingError

    err = PricingError("prices.csv:6", "instance m5.xlarge priced twice; keep one row")
    assert (err.where, err.message) == ("prices.csv:6", "instance m5.xlarge priced twice; keep one row")
    assert str(err) == "prices.csv:6: instance m5.xlarge priced twice; keep one row"
    plain = UserError("--cpus must be a number greater than 0, got 0")
    assert plain.where is None and str(plain) == plain.message


def _direct_exception_classes() -> dict[str, str]:
    """``class NameError(Exception)`` anywhere in renderer/: name → module path."""
    found = {}
    for path in sorted(RENDERER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and node.name.endswith("Error"):
                bases = {b.id for b in node.bases if isinstance(b, ast.Name)}
                if "Exception" in bases:
                    found[node.name] = path.relative_to(REPO_ROOT).as_posix()
    return found


def test_a_new_error_class_for_users_derives_from_the_one_base() -> None:
    # An error a user is told about derives from UserError (the CLI's one handler); the only other *Error straight
    # from Exception is StreamError, a failed write to stdout/stderr, which cannot be said on the stream that failed
    # (renderer.cli says it on the other). Internal signals (ValueError subclasses such as QuantityError, PodError)
    # are caught and located by their callers.
    assert _direct_exception_classes() == {"UserError": "renderer/errors.py", "StreamError": "renderer/stdio.py"}
