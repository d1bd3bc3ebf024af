"""`migrate()`: Training Operator v1 jobs in, TrainJobs (and the TrainingRuntimes generated for them) out."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..framework.errors import FieldError, TrainerError, TrainJobInvalidError
from ..loading import describe, parse
from . import mpi, paddle, pytorch, xgboost
from .assemble import assemble
from .plan import Plan
from .report import Losses, MigratedJob, MigrationResult
from .source import Source, read_documents
from .v1job import JobRefused, V1Job, read_job

CONVERTERS: dict[str, Callable[[V1Job, Losses], Plan]] = {
    "PyTorchJob": pytorch.convert,
    "MPIJob": mpi.convert,
    "XGBoostJob": xgboost.convert,
    "PaddleJob": paddle.convert,
}


def migrate(sources: Source | Iterable[Source]) -> MigrationResult:
    """Each v1 job of `sources` (YAML text, a file or directory path, a manifest dict, or a list of them)
    as a TrainJob, referencing a bundled runtime when one fits and else a TrainingRuntime generated
    for it; with every field v2 has no place for, in `losses`.

    Anything that is not a PyTorchJob, MPIJob, XGBoostJob or PaddleJob (kubeflow.org/v1), TFJobs and
    MXJobs included, and a job v1's own admission refuses, is an error: one TrainJobInvalidError
    names every such document (file and document number) and field. YAML that does not parse is a
    ManifestError.
    """
    errors: list[FieldError] = []
    jobs: list[MigratedJob] = []
    for manifest, where in _listed(read_documents(sources)):
        source = describe(manifest, where) if isinstance(manifest, dict) else where
        try:
            job = read_job(manifest, source)
        except JobRefused as refused:
            errors += [error.within(source) for error in refused.errors]
            continue
        migrated, problems = _migrate_job(job, source)
        errors += problems
        jobs.append(migrated)
    if errors:
        raise TrainJobInvalidError(errors)
    return MigrationResult(tuple(jobs))


def _listed(documents: list[tuple[Any, str]]) -> Iterator[tuple[Any, str]]:
    """Documents, with the items of a `List` (what `kubectl get pytorchjobs -o yaml` prints) in its place."""
    for manifest, where in documents:
        items = manifest.get("items") if isinstance(manifest, dict) and manifest.get("kind") == "List" else None
        if isinstance(items, list) and manifest.get("apiVersion") == "v1":
            yield from ((item, f"{where} items[{index}]") for index, item in enumerate(items))
        else:
            yield manifest, where


def _migrate_job(job: V1Job, source: str) -> tuple[MigratedJob, list[FieldError]]:
    losses = Losses(source)
    plan = CONVERTERS[job.rules.kind](job, losses)
    manifests, runtime, misfits = assemble(plan)
    problems = [error for manifest in manifests for error in _refusals(manifest, source)]
    migrated = MigratedJob(source=source, kind=job.rules.kind, name=job.name, runtime=runtime, generated_because=tuple(misfits),
                           manifests=tuple(manifests), losses=tuple(losses.found))
    return migrated, problems


def _refusals(manifest: dict[str, Any], source: str) -> list[FieldError]:
    """What v2's API rules refuse of a migrated object: something of the v1 job v2 does not accept."""
    try:
        parse(manifest)
    except TrainJobInvalidError as invalid:
        kind = f"the migrated {manifest['kind']}"
        return [FieldError(error.path, f"{error.message} ({kind})", source) for error in invalid.errors]
    except TrainerError as error:
        return [FieldError("", f"{error} (the migrated {manifest['kind']})", source)]
    return []
