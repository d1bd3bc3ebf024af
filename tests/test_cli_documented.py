"""Every command and option of the `trainjob` CLI is in docs/cli.md's command list (by its short or long
name), so the list stays true."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from pulumi_kubeflow_trainer import cli

CLI_DOC = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")


def _commands() -> dict[str, argparse.ArgumentParser]:
    subparsers = next(action for action in cli._parser()._actions if isinstance(action, argparse._SubParsersAction))
    return dict(subparsers.choices)


def _documented_usage(command: str) -> str:
    """docs/cli.md's bullet for `trainjob <command> ...`, up to the next bullet."""
    match = re.search(rf"^- `trainjob {command}\b(.*?)(?=^- |\Z)", CLI_DOC, re.MULTILINE | re.DOTALL)
    assert match, f"docs/cli.md lists no `trainjob {command} ...` bullet"
    return match.group(1)


def test_the_cli_has_the_commands_the_doc_lists() -> None:
    documented = set(re.findall(r"^- `trainjob ([a-z-]+)", CLI_DOC, re.MULTILINE))
    assert set(_commands()) == documented and {"render", "validate", "status", "runtimes", "run-local"} <= documented


def test_every_option_of_every_command_is_in_its_bullet() -> None:
    for command, parser in _commands().items():
        usage = _documented_usage(command)
        options = [action.option_strings for action in parser._actions if action.option_strings and action.dest != "help"]
        missing = [names[-1] for names in options if not any(re.search(rf"{name}(?![\w-])", usage) for name in names)]
        assert not missing, f"docs/cli.md's `trainjob {command}` bullet does not mention {missing}"
