"""`trainjob render|validate|status|runtimes|run-local`: the library over YAML files, no Pulumi needed.

Every command that renders TrainJobs (render, validate, run-local) resolves their runtimes by
runtime_lookup's one rule (the files given, then the bundled runtimes unless --no-bundled-runtimes);
status reads no runtime. Every error names the file and the document it is about."""

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
from .blueprints import list_runtimes
from .framework.context import ObjectIndex, RenderContext
from .framework.errors import FieldError, TrainerError, TrainJobInvalidError, error_lines
from .framework.update_rules import validate_update
from .loading import Document, read
from .local import cli as local_cli
from .migration import cli as migration_cli
from .rendering import Renderer, origins_of
from .runtime_lookup import add_runtime_lookup_arguments
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
    commands.add_parser("runtimes", help="list the bundled runtimes: name, framework, description")
    for command in (render, validate, status):
        command.add_argument(
            "-f", "--filename", action="append", required=True, type=Path, metavar="FILE", help="YAML file or directory"
        )
    for command in (render, validate):
        add_runtime_lookup_arguments(command)
        command.add_argument(
            "--strict", action="store_true",
            help="refuse what upstream renders but our checks warn about (a setting without effect, ...)",
        )
    render.add_argument("--seed", help="derive MPI SSH keys from this seed (reproducible output; never for production)")
    snapshot = render.add_mutually_exclusive_group()
    snapshot.add_argument("--snapshot", dest="snapshot", action="store_true",
                          help="also emit the <job>-runtime-snapshot ConfigMap the Trainer controller reads (as upstream)")
    snapshot.add_argument("--no-snapshot", dest="snapshot", action="store_false", help="omit it: the default (kept for older scripts)")
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


def _runtimes(documents: list[Document]) -> list[Any]:
    return [document.model for document in documents if isinstance(document.model, (TrainingRuntime, ClusterTrainingRuntime))]


def _renderer(documents: list[Document], args: argparse.Namespace, *, admission: bool = False, **options: Any) -> Renderer:
    """`admission`: answer as v2.3.0 admits a TrainJob object (what the API server would refuse in its
    JobSet is a warning), not as this library renders one to deploy it (an error)."""
    cluster = ObjectIndex.of(document.model.to_manifest() for document in documents if not isinstance(document.model, TrainJob))
    return Renderer(
        _runtimes(documents), context=RenderContext(cluster=cluster, **options), strict=args.strict,
        bundled=args.bundled_runtimes, refuse_undeployable=not admission, origins=origins_of(documents),
    )


def _trainjobs(documents: list[Document]) -> list[TrainJob]:
    return [document.model for document in documents if isinstance(document.model, TrainJob)]


def run_render(args: argparse.Namespace) -> int:
    documents = read(args.filename, refuse_undeployable=True)
    options: dict[str, Any] = {"runtime_snapshot": args.snapshot, "multikueue_jobset": args.multikueue_jobset}
    if args.seed:
        options["key_generator"] = seeded_key_generator(args.seed)
    renderer = _renderer(documents, args, **options)
    manifests = [manifest for trainjob in _trainjobs(documents) for manifest in renderer.render(trainjob)]
    _warn(renderer.warnings)
    sys.stdout.write(dump_all(manifests))
    return 0


def run_validate(args: argparse.Namespace) -> int:
    """The API server's and the webhooks' answer to creating the objects of the files (v2.3.0's: what it
    admits but cannot run is a warning; --strict refuses it, and every finding is reported at once)."""
    try:
        documents = read(args.filename, refuse_undeployable=args.strict)
        renderer = _renderer(documents, args, admission=True)
    except TrainJobInvalidError as invalid:
        _warn(invalid.warnings)
        return _report(invalid.errors)
    errors: list[FieldError] = []
    warnings = list(renderer.warnings)
    old = {(job.namespace, job.name): job for job in _trainjobs(read(args.old))} if args.old else {}
    for trainjob in _trainjobs(documents):
        source = renderer.origin(c.TRAINJOB_KIND, trainjob.metadata.namespace or "", trainjob.name)
        verdict = renderer.validate(trainjob)
        errors += [error.within(source) for error in verdict.errors]
        if verdict.errors:
            warnings += verdict.warnings
        else:
            errors += _render_findings(renderer, trainjob)  # the checks of the built JobSet, as warnings
        previous = old.get((trainjob.namespace, trainjob.name))
        if previous is not None:
            jobset = renderer.context.cluster.get("JobSet", trainjob.name, trainjob.metadata.namespace or "")
            errors += [error.within(source) for error in validate_update(previous, trainjob, jobset)]
    _warn([*warnings, *renderer.warnings])
    return _report(errors)


def _render_findings(renderer: Renderer, trainjob: TrainJob) -> list[FieldError]:
    """Render to find what only the built JobSet shows (its warnings land in renderer.warnings)."""
    try:
        renderer.render(trainjob)
    except TrainJobInvalidError as invalid:
        return invalid.errors
    return []


def run_status(args: argparse.Namespace) -> int:
    """The status the controller computes from the JobSet; it reads no runtime (only the runtimeRef's
    kind counts: an unsupported one fails the TrainJob), so no runtime is looked up."""
    documents = read(args.filename)
    now = args.now or datetime.now(timezone.utc)
    jobsets = {(doc.model.metadata.namespace or "", doc.model.metadata.name): doc.model for doc in documents if isinstance(doc.model, JobSet)}
    origins = origins_of(documents)
    output = []
    for trainjob in _trainjobs(documents):
        ref = trainjob.spec.runtime_ref
        supported = ref.api_group == c.GROUP and ref.kind in (c.TRAINING_RUNTIME_KIND, c.CLUSTER_TRAINING_RUNTIME_KIND)
        jobset = jobsets.get((trainjob.metadata.namespace or "", trainjob.name))
        if jobset is None:
            source = origins.get((c.TRAINJOB_KIND, trainjob.metadata.namespace or "", trainjob.name), f"TrainJob/{trainjob.name}")
            _warn([f"{source}: no JobSet named {trainjob.name!r} in the files; status not read from it"])
        manifest = trainjob.to_manifest()
        status = compute_status(manifest, jobset.to_manifest() if jobset else None, runtime_supported=supported, now=now)
        manifest.pop("status", None)
        if status:
            manifest["status"] = status
        output.append(manifest)
    sys.stdout.write(dump_all(output))
    return 0


def run_runtimes(args: argparse.Namespace) -> int:
    """The bundled runtimes, one per line: name, framework and description, in columns."""
    found = list_runtimes()
    width = max(len(bundled.name) for bundled in found)
    frameworks = max(len(bundled.framework) for bundled in found)
    print(f"{'NAME':<{width}}  {'FRAMEWORK':<{frameworks}}  DESCRIPTION")
    for bundled in found:
        print(f"{bundled.name:<{width}}  {bundled.framework:<{frameworks}}  {bundled.description}")
    return 0


def _report(errors: list[FieldError]) -> int:
    """Validate's answer on stdout: one `<file>#<document> (<Kind>/<name>): <path>: <message>` line per error."""
    for error in errors:
        print(error.describe())
    return 1 if errors else 0


def _warn(warnings: Sequence[str]) -> None:
    for message in dict.fromkeys(warnings):
        print(f"warning: {message}", file=sys.stderr)


COMMANDS = {"render": run_render, "validate": run_validate, "status": run_status, "runtimes": run_runtimes,
            "run-local": local_cli.run, "migrate": migration_cli.run, **watch_cli.COMMANDS}


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
