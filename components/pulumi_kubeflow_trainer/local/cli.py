"""`trainjob run-local -f FILE [-f ...] [--workdir DIR] [--timeout S] [--env NAME=VALUE] [--job NAME]`."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..framework.errors import TrainerError, error_lines
from ..runtime_lookup import add_runtime_lookup_arguments
from .runner import run_local

INTERRUPTED_EXIT = 130  # as a shell reports a command stopped by Ctrl-C


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f", "--filename", action="append", required=True, type=Path, metavar="FILE",
        help="a TrainJob (with its runtime, else a bundled one) or `trainjob render` output; file or directory",
    )
    parser.add_argument("--workdir", type=Path, metavar="DIR", help="where volumes are made (default: a new temporary directory)")
    parser.add_argument("--timeout", type=float, metavar="SECONDS", help="stop everything and fail after this long")
    parser.add_argument("--env", action="append", default=[], type=_env_pair, metavar="NAME=VALUE", help="add to every container's env")
    parser.add_argument("--job", metavar="NAME", help="the TrainJob (or JobSet) to run when the files hold several")
    add_runtime_lookup_arguments(parser)


def _env_pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"{text!r} is not NAME=VALUE")
    return name, value


def run(args: argparse.Namespace) -> int:
    """Runs the TrainJob; 0 when Completed, 1 when Failed, 130 when interrupted."""
    previous = _stop_on_sigterm()
    try:
        result = run_local(args.filename, workdir=args.workdir, env=dict(args.env), timeout=args.timeout, job=args.job,
                           bundled=args.bundled_runtimes)
    except TrainerError as error:
        print("\n".join(error_lines(error)), file=sys.stderr)
        return 1
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    print(f"{result} (work dir: {result.workdir})", file=sys.stderr)
    if result.ok:
        return 0
    return INTERRUPTED_EXIT if result.reason == "Interrupted" else 1


def _stop_on_sigterm() -> Any:
    """A SIGTERM (CI cancelling, `kill`) stops the Pods as Ctrl-C does, instead of orphaning them."""

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, interrupt)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="trainjob run-local", description="Run a TrainJob's Pods as local processes.")
    add_arguments(parser)
    return run(parser.parse_args(argv))
