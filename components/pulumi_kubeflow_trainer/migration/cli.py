"""`trainjob migrate -f FILE... [--strict] [-o yaml|json]`: v1 jobs to TrainJobs on stdout, what v2 has
no place for on stderr (one `lost:` line per field), for `kubectl apply -f -` or the components."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..yamlio import dump_all
from .migrate import migrate


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-f", "--filename", action="append", required=True, type=Path, metavar="FILE",
        help="PyTorchJob, MPIJob, XGBoostJob or PaddleJob YAML (kubeflow.org/v1); file or directory",
    )
    parser.add_argument("--strict", action="store_true", help="fail, printing no manifests, when any field is lost")
    parser.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml",
                        help="yaml: multi-document YAML (default); json: one List object")


def run(args: argparse.Namespace) -> int:
    """0 when every job migrated (losses are listed on stderr); 1 with --strict and losses. Errors
    (TrainerError: unknown kinds, TFJob/MXJob, bad YAML) are the caller's to print."""
    result = migrate(args.filename)
    for loss in result.losses:
        print(f"lost: {loss.describe()}", file=sys.stderr)
    if args.strict and result.losses:
        print(f"error: {len(result.losses)} field(s) of the v1 jobs have no place in v2 (listed above); nothing printed "
              "(--strict): migrate without --strict to take the manifests anyway", file=sys.stderr)
        return 1
    if args.output == "json":
        listing = {"apiVersion": "v1", "kind": "List", "items": result.manifests}
        sys.stdout.write(json.dumps(listing, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(dump_all(result.manifests))
    return 0
