"""What a run builds lazily must be what the whole tree holds: one command's parser, one output format."""

from __future__ import annotations

import argparse

import pytest

from renderer import reporters
from renderer.cli import build_parser

WHOLE = build_parser()
(SUBCOMMANDS,) = [a for a in WHOLE._actions if isinstance(a, argparse._SubParsersAction)]


@pytest.mark.parametrize("name", sorted(SUBCOMMANDS.choices))
def test_a_commands_own_parser_is_its_parser_in_the_whole_tree(name: str) -> None:
    (only,) = [a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(only.choices) == [name]
    assert only.choices[name].format_help() == SUBCOMMANDS.choices[name].format_help()
    assert only.choices[name].format_usage() == SUBCOMMANDS.choices[name].format_usage()


@pytest.mark.parametrize("word", ["_common", "nope", "--help", "-", "lint.x", "..", ""])
def test_anything_but_a_command_name_gets_the_whole_tree(word: str) -> None:
    (sub,) = [a for a in build_parser(word)._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(sub.choices) == list(SUBCOMMANDS.choices)


def test_every_format_is_its_modules_write() -> None:
    import importlib

    for report in reporters.REPORT_TYPES:
        for name in reporters.names(report):
            if name in reporters.DERIVED:  # made from the report's json format (renderer.reporters.derived)
                continue
            module = importlib.import_module(f"renderer.reporters.{report}.{name}")
            assert reporters.get(report, name) is module.write
    assert (
        reporters.names()
        == reporters.names("findings")
        == [
            "github",
            "json",
            "jsonpath",
            "markdown",
            "sarif",
            "text",
            "yaml",
        ]
    )


def test_the_command_list_alone_prints_the_same_help_and_usage() -> None:
    listing = build_parser(listing=True)
    assert listing.format_help() == WHOLE.format_help()
    assert listing.format_usage() == WHOLE.format_usage()


def _modules_after(argv: list[str], cwd: str) -> set[str]:
    """The renderer modules a fresh interpreter has imported after running ``allocatable ARGV`` in ``cwd``."""
    import json
    import subprocess
    import sys

    code = (
        "import io, json, sys, contextlib\n"
        "from renderer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main({argv!r})\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('renderer'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_pricing_is_loaded_only_when_a_report_prices(tmp_path) -> None:
    """docs/cost.md: a lint never imports renderer.cost, even with a pricing block; explain imports it only with one."""
    from support.factory import write_repo

    pool = """
        apiVersion: policy.allocatable.dev/v1alpha1
        kind: NodePool
        metadata: {name: eks-batch}
        spec:
          labels: {node.kubernetes.io/instance-type: c6i.2xlarge}
          capacity: {cpu: "8", memory: 16Gi}
          count: 2
          platform: eks
    """
    priced = write_repo(
        tmp_path / "priced",
        {
            "pools.yaml": pool,
            ".allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\npricing: {region: us-east-1}\n",
        },
    )
    plain = write_repo(tmp_path / "plain", {"pools.yaml": pool})
    assert not any(m.startswith("renderer.cost") for m in _modules_after(["lint", "."], str(priced)))
    assert not any(m.startswith("renderer.cost") for m in _modules_after(["explain", "."], str(plain)))
    assert "renderer.cost.resolve" in _modules_after(["explain", "."], str(priced))
