"""Every command and option of the `trainjob` CLI is in README's command list, or for the cluster
commands in docs/watching.md's (by its short or long name), so the lists stay true."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from pulumi_kubeflow_trainer import cli

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
WATCHING = (Path(__file__).resolve().parents[1] / "docs" / "watching.md").read_text(encoding="utf-8")
WATCH_COMMANDS = {"list", "get", "logs", "wait"}  # documented in docs/watching.md


def _commands() -> dict[str, argparse.ArgumentParser]:
    subparsers = next(action for action in cli._parser()._actions if isinstance(action, argparse._SubParsersAction))
    return dict(subparsers.choices)


def _documented_usage(command: str) -> str:
    """README's bullet for `trainjob <command> ...`, up to the next bullet."""
    where, text = ("docs/watching.md", WATCHING) if command in WATCH_COMMANDS else ("README", README)
    match = re.search(rf"^- `trainjob {command} (.*?)(?=^- |\Z)", text, re.MULTILINE | re.DOTALL)
    assert match, f"{where} lists no `trainjob {command} ...` bullet"
    return match.group(1)


def test_the_cli_has_the_commands_readme_lists() -> None:
    assert set(_commands()) == {"render", "validate", "status", "run-local", *WATCH_COMMANDS}


def test_every_option_of_every_command_is_in_its_readme_bullet() -> None:
    for command, parser in _commands().items():
        usage = _documented_usage(command)
        options = [action.option_strings for action in parser._actions if action.option_strings and action.dest != "help"]
        missing = [names[-1] for names in options if not any(re.search(rf"{name}(?![\w-])", usage) for name in names)]
        assert not missing, f"README's `trainjob {command}` bullet does not mention {missing}"
