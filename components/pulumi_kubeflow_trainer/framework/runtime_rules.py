"""The runtime validating webhooks: rules a TrainingRuntime or ClusterTrainingRuntime must meet."""

from __future__ import annotations

from ..api import constants as c
from ..api.rules import show
from ..api.runtime import ClusterTrainingRuntime, Runtime
from .errors import FieldError
from .interfaces import Verdict

REQUIRED_CONTAINER = {
    c.ANCESTOR_TRAINER: c.NODE,
    c.ANCESTOR_DATASET: c.DATASET_INITIALIZER,
    c.ANCESTOR_MODEL: c.MODEL_INITIALIZER,
}


def deprecation_warning(runtime: Runtime, *, referenced: bool) -> str:
    subject = f'Referenced ClusterTrainingRuntime "{runtime.name}"' if referenced else f'ClusterTrainingRuntime "{runtime.name}"'
    return (
        f"{subject} is deprecated and will be removed in a future release of Kubeflow Trainer. "
        f"See runtime deprecation policy: {c.DEPRECATION_POLICY_URL}"
    )


def validate_runtime(runtime: Runtime) -> Verdict:
    """Skipped for runtimes labelled `trainer.kubeflow.org/webhook-validation: disabled`, as upstream."""
    verdict = Verdict()
    if runtime.labels.get(c.LABEL_WEBHOOK_VALIDATION) == "disabled":
        return verdict
    if isinstance(runtime, ClusterTrainingRuntime) and runtime.is_deprecated:
        verdict.warnings.append(deprecation_warning(runtime, referenced=False))
    spec = runtime.spec.template.spec
    for index, job in enumerate(spec.replicated_jobs or [] if spec else []):
        metadata = job.template.metadata
        ancestor = (metadata.labels or {}).get(c.LABEL_ANCESTOR) if metadata else None
        if ancestor not in REQUIRED_CONTAINER:
            continue
        path = f"spec.template.spec.replicatedJobs[{index}]"
        if job.replicas != 1:
            verdict.errors.append(
                FieldError(f"{path}.replicas", f"Invalid value: {job.replicas}: replicas of the {ancestor} job always must be 1")
            )
        pod_spec = job.template.spec.template.spec
        names = [container.name for container in (pod_spec.containers or [] if pod_spec else [])]
        if REQUIRED_CONTAINER[ancestor] not in names:
            verdict.errors.append(
                FieldError(
                    f"{path}.template.spec.template.spec.containers",
                    f"Invalid value: {show(names)}: must contain the required container for the ancestor: {ancestor} "
                    f"(a container named {REQUIRED_CONTAINER[ancestor]!r})",
                )
            )
    return verdict
