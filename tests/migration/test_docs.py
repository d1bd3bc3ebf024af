"""docs/migration.md's generated tables are what migrate() and the env mapping say today."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .table import env_table, examples_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "migration.md"


def generated(name: str) -> str:
    match = re.search(rf"<!-- generated: {name} [^>]*-->\n(.*?)<!-- end: {name} -->", DOC.read_text(encoding="utf-8"), re.DOTALL)
    assert match, f"docs/migration.md has no generated {name}"
    return match.group(1)


def test_the_env_table_is_the_env_mapping() -> None:
    assert generated("env-table") == env_table(), "out of date: python -m tests.migration.table, and paste it"


def test_the_examples_table_is_what_migrate_makes_of_each_example(v1_examples: Path) -> None:
    assert generated("examples-table") == examples_table(v1_examples), "out of date: python -m tests.migration.table"


@pytest.mark.parametrize("line", [line for line in DOC.read_text(encoding="utf-8").splitlines() if "trainjob migrate -f" in line])
def test_the_commands_the_page_shows_take_the_options_it_shows(line: str) -> None:
    from pulumi_kubeflow_trainer.cli import _parser

    usage = line.split("trainjob ", 1)[1].split("#")[0].split("|")[0].split(">")[0]
    words = re.findall(r"(?<![\w-])(--?[a-z][\w-]*)", usage)
    parser = _parser()
    known = {option for action in parser._subparsers._group_actions[0].choices["migrate"]._actions for option in action.option_strings}  # type: ignore[union-attr]
    assert set(words) <= known, words
