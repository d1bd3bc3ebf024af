"""Command line: `python -m pulumi_kubeflow_trainer.initializers dataset|model [--output DIR]`.

Failures end as one redacted line on stderr (also written to the Kubernetes termination log when
it exists) and exit status 1; usage errors exit 2. No traceback is printed: initializer logs are
read by people who need the cause, and a traceback can carry request details.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from .config import DEFAULT_OUTPUT_DIRS, INITIALIZER_KINDS, InitializerSettings, load_settings
from .errors import InitializerError, one_line, redact_secrets
from .patterns import resolve_path_filter
from .storage_uri import S3Location, parse_storage_uri

EXIT_FAILURE = 1
EXIT_INTERRUPTED = 130
TERMINATION_LOG = "/dev/termination-log"

# Redacted from every message, whether or not the run got as far as reading its settings.
_SECRET_ENV_NAMES = (
    "ACCESS_KEY_ID",
    "SECRET_ACCESS_KEY",
    "SESSION_TOKEN",
    "ACCESS_TOKEN",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "HF_TOKEN",
)


def build_parser(kind: str | None = None) -> argparse.ArgumentParser:
    """The parser for `main` (kind chosen by argument) or for one console script (kind fixed)."""
    program = "python -m pulumi_kubeflow_trainer.initializers" if kind is None else f"trainjob-{kind}-initializer"
    parser = argparse.ArgumentParser(
        prog=program,
        description="Download a dataset or model for a TrainJob (configured by STORAGE_URI and related env vars).",
    )
    if kind is None:
        parser.add_argument("kind", choices=INITIALIZER_KINDS, help="which initializer to run")
    parser.add_argument(
        "--output",
        help="target directory (default: "
        + ", ".join(f"{name}: {path}" for name, path in DEFAULT_OUTPUT_DIRS.items())
        + ")",
    )
    parser.add_argument("--workers", type=int, help="parallel downloads (default: env WORKERS, else 16)")
    return parser


def create_source(settings: InitializerSettings, stream: TextIO | None = None) -> Any:
    """The S3 or Hub source for STORAGE_URI; each imports its client library only here."""
    location = parse_storage_uri(settings.storage_uri, settings.kind)
    if isinstance(location, S3Location):
        from .s3_source import S3Source

        return S3Source(settings, location, resolve_path_filter(settings, "s3"), stream)
    from .hub_source import HubSource

    return HubSource(settings, location, resolve_path_filter(settings, "hf"), stream)


def run_initializer(
    kind: str,
    output: str | None = None,
    workers: int | None = None,
    environ: Mapping[str, str] | None = None,
    stream: TextIO | None = None,
) -> int:
    """Run one initializer and return the exit status."""
    environ = os.environ if environ is None else environ
    stream = stream or sys.stderr
    source = None
    try:
        settings = load_settings(kind, environ, output, workers)
        source = create_source(settings, stream)
        source.download()
        return 0
    except InitializerError as error:
        message, status = str(error), EXIT_FAILURE
    except KeyboardInterrupt:
        message, status = "interrupted", EXIT_INTERRUPTED
    except Exception as error:  # noqa: BLE001 - an unexpected bug still ends as one line
        message, status = f"unexpected {type(error).__name__}: {error}", EXIT_FAILURE
    secrets = [environ.get(name) for name in _SECRET_ENV_NAMES]
    secrets += getattr(source, "runtime_secrets", [])
    line = one_line(redact_secrets(f"{kind} initializer failed: {message}", secrets))
    print(line, file=stream, flush=True)
    write_termination_message(line)
    return status


def write_termination_message(line: str, path: str = TERMINATION_LOG) -> None:
    """Let `kubectl describe pod` show the cause (only where Kubernetes mounted the file)."""
    if not os.path.exists(path):
        return
    try:
        with open(path, "w", encoding="utf-8") as termination_log:
            termination_log.write(line + "\n")
    except OSError:
        pass


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace | int:
    try:
        return parser.parse_args(argv)
    except SystemExit as exit_request:  # --help or a usage error
        return int(exit_request.code or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m pulumi_kubeflow_trainer.initializers dataset|model [--output DIR] [--workers N]`."""
    arguments = _parse(build_parser(), argv)
    if isinstance(arguments, int):
        return arguments
    return run_initializer(arguments.kind, arguments.output, arguments.workers)


def _main_for(kind: str, argv: Sequence[str] | None) -> int:
    arguments = _parse(build_parser(kind), argv)
    if isinstance(arguments, int):
        return arguments
    return run_initializer(kind, arguments.output, arguments.workers)


def dataset_main(argv: Sequence[str] | None = None) -> int:
    """Console script `trainjob-dataset-initializer [--output DIR] [--workers N]`."""
    return _main_for("dataset", argv)


def model_main(argv: Sequence[str] | None = None) -> int:
    """Console script `trainjob-model-initializer [--output DIR] [--workers N]`."""
    return _main_for("model", argv)
