"""`trainjob render|validate|status|run-local`: the library over YAML files, no Pulumi needed."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from .api import constants as c
from .api.jobset import JobSet
from .api.runtime import ClusterTrainingRuntime, TrainingRuntime
from .api.trainjob import TrainJob
from .framework.context import ObjectIndex, RenderContext
from .framework.errors import FieldError, TrainerError, TrainJobInvalidError, error_lines
from .framework.update_rules import validate_update
from .loading import load
from .local import cli as local_cli
from .migration import cli as migration_cli
from .rendering import Renderer
from .ssh import seeded_key_generator
from .status import compute_status
from .watch import cli as watch_cli
from .yamlio import dump_all


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="trainjob", description="Kubeflow Trainer v2, rendered client side.")
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="print the children of every TrainJob as multi-document YAML")
    validate = commands.add_parser("validate", help="check TrainJobs and runtimes like the API server and webhooks")
    status = commands.add_parser("status", help="print each TrainJob with the status derived from its JobSet")
    for command in (render, validate, status):
        command.add_argument(
            "-f", "--filename", action="append", required=True, type=Path, metavar="FILE", help="YAML file or directory"
        )
    for command in (render, validate):
        command.add_argument("--bundled-runtimes", action="store_true", help="also resolve runtimeRefs to the bundled runtimes/")
        command.add_argument(
            "--strict", action="store_true",
            help="refuse what upstream renders but our checks warn about (a container without an image, ...)",
        )
    render.add_argument("--seed", help="derive MPI SSH keys from this seed (reproducible output; never for production)")
    render.add_argument("--no-snapshot", action="store_true", help="omit the <job>-runtime-snapshot ConfigMap")
    render.add_argument("--multikueue-jobset", action="store_true", help="render MultiKueue TrainJobs as JobSets managed by MultiKueue")
    validate.add_argument("--old", action="append", type=Path, metavar="FILE", help="the TrainJobs before the update")
    status.add_argument("--now", type=_moment, help="the time to evaluate deadlines at (RFC 3339; default: now)")
    local_cli.add_arguments(commands.add_parser("run-local", help="run a TrainJob's Pods as local processes"))
    migration_cli.add_arguments(commands.add_parser("migrate", help="Training Operator v1 jobs as TrainJobs (and runtimes)"))
    watch_cli.add_parsers(commands)  # list, get, logs, wait: a cluster's TrainJobs
    return parser


def _moment(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an RFC 3339 time such as 2026-01-02T03:04:05Z") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _runtimes(models: list[Any], with_bundled: bool) -> list[Any]:
    runtimes = [model for model in models if isinstance(model, (TrainingRuntime, ClusterTrainingRuntime))]
    if with_bundled:
        from .blueprints import bundled_runtimes

        given = {(runtime.kind, runtime.name) for runtime in runtimes}
        runtimes += [runtime for runtime in bundled_runtimes() if (runtime.kind, runtime.name) not in given]
    return runtimes


def _renderer(models: list[Any], args: argparse.Namespace, **options: Any) -> Renderer:
    cluster = ObjectIndex.of(model.to_manifest() for model in models if not isinstance(model, TrainJob))
    return Renderer(_runtimes(models, args.bundled_runtimes), context=RenderContext(cluster=cluster, **options), strict=args.strict)


def _trainjobs(models: list[Any]) -> list[TrainJob]:
    return [model for model in models if isinstance(model, TrainJob)]


def run_render(args: argparse.Namespace) -> int:
    models = load(args.filename)
    options: dict[str, Any] = {"runtime_snapshot": not args.no_snapshot, "multikueue_jobset": args.multikueue_jobset}
    if args.seed:
        options["key_generator"] = seeded_key_generator(args.seed)
    renderer = _renderer(models, args, **options)
    manifests = [manifest for trainjob in _trainjobs(models) for manifest in renderer.render(trainjob)]
    _warn(renderer.warnings)
    sys.stdout.write(dump_all(manifests))
    return 0


def run_validate(args: argparse.Namespace) -> int:
    try:
        models = load(args.filename)
        renderer = _renderer(models, args)
    except TrainJobInvalidError as invalid:
        _warn(invalid.warnings)
        return _report(invalid.errors)
    errors: list[FieldError] = []
    warnings = list(renderer.warnings)
    old = {(job.namespace, job.name): job for job in _trainjobs(load(args.old))} if args.old else {}
    for trainjob in _trainjobs(models):
        verdict = renderer.validate(trainjob)
        errors += verdict.errors
        if verdict.errors:
            warnings += verdict.warnings
        else:
            errors += _render_findings(renderer, trainjob)  # the checks of the built JobSet, as warnings
        previous = old.get((trainjob.namespace, trainjob.name))
        if previous is not None:
            jobset = renderer.context.cluster.get("JobSet", trainjob.name, trainjob.metadata.namespace or "")
            errors += validate_update(previous, trainjob, jobset)
    _warn([*warnings, *renderer.warnings])
    return _report(errors)


def _render_findings(renderer: Renderer, trainjob: TrainJob) -> list[FieldError]:
    """Render to find what only the built JobSet shows (its warnings land in renderer.warnings); an
    error of the render is one of validate's, without the source prefix validate does not print."""
    try:
        renderer.render(trainjob)
    except TrainJobInvalidError as invalid:
        return [FieldError(error.path, error.message) for error in invalid.errors]
    return []


def run_status(args: argparse.Namespace) -> int:
    models = load(args.filename)
    now = args.now or datetime.now(timezone.utc)
    jobsets = {(model.metadata.namespace or "", model.metadata.name): model for model in models if isinstance(model, JobSet)}
    documents = []
    for trainjob in _trainjobs(models):
        ref = trainjob.spec.runtime_ref
        supported = ref.api_group == c.GROUP and ref.kind in (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND)
        jobset = jobsets.get((trainjob.metadata.namespace or "", trainjob.name))
        if jobset is None:
            _warn([f"TrainJob/{trainjob.name}: no JobSet named {trainjob.name!r} in the files; status not read from it"])
        manifest = trainjob.to_manifest()
        status = compute_status(manifest, jobset.to_manifest() if jobset else None, runtime_supported=supported, now=now)
        manifest.pop("status", None)
        if status:
            manifest["status"] = status
        documents.append(manifest)
    sys.stdout.write(dump_all(documents))
    return 0


def _report(errors: list[FieldError]) -> int:
    for error in errors:
        print(str(error))
    return 1 if errors else 0


def _warn(warnings: Sequence[str]) -> None:
    for message in dict.fromkeys(warnings):
        print(f"warning: {message}", file=sys.stderr)


COMMANDS = {"render": run_render, "validate": run_validate, "status": run_status, "run-local": local_cli.run,
            "migrate": migration_cli.run, **watch_cli.COMMANDS}


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except TrainerError as error:
        _warn(getattr(error, "warnings", ()))
        print("\n".join(error_lines(error)), file=sys.stderr)
        return 1
    except Exception as error:  # noqa: BLE001 - the CLI promises no tracebacks, whatever the input
        print(f"error: internal error ({type(error).__name__}): {error}; please report it with the input", file=sys.stderr)
        return 2
