"""Every command of the `trainjob` CLI is in README's command table, and every option of every command
(by its short or long name) in the command's reference bullet in docs/ (`- `trainjob <command> ...``), so
both stay true."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from pulumi_kubeflow_trainer import cli

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text(encoding="utf-8")
DOCS = "\n".join(path.read_text(encoding="utf-8") for path in sorted((REPO / "docs").glob("*.md")))


def _commands() -> dict[str, argparse.ArgumentParser]:
    subparsers = next(action for action in cli._parser()._actions if isinstance(action, argparse._SubParsersAction))
    return dict(subparsers.choices)


def _documented_usage(command: str) -> str:
    """The docs' bullet for `trainjob <command> ...`, up to the next bullet or heading."""
    match = re.search(rf"^- `trainjob {command}\b(.*?)(?=^- |^#|\Z)", DOCS, re.MULTILINE | re.DOTALL)
    assert match, f"no page of docs/ has a `- `trainjob {command} ...`` bullet"
    return match.group(1)


def test_readme_lists_every_command_of_the_cli() -> None:
    rows = "\n".join(line.split(" | ")[0] for line in README.splitlines() if line.startswith("| `trainjob "))
    listed = set(re.findall(r"`trainjob ([a-z-]+)", rows))
    assert listed == set(_commands()), "README's command table and the CLI differ"


def test_every_option_of_every_command_is_in_its_bullet() -> None:
    for command, parser in _commands().items():
        usage = _documented_usage(command)
        options = [action.option_strings for action in parser._actions if action.option_strings and action.dest != "help"]
        missing = [names[-1] for names in options if not any(re.search(rf"{name}(?![\w-])", usage) for name in names)]
        assert not missing, f"the docs' `trainjob {command}` bullet does not mention {missing}"
