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
