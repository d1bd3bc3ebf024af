"""What plugins share about the objects they emit: their metadata (name, namespace, the owner reference to
the TrainJob), the webhook's reserved-env rule, and the findings a render reports beside errors."""

from __future__ import annotations

from ..api.rules import show
from ..api.trainjob import Trainer, TrainJob
from .errors import FieldError
from .kube import Manifest


class Check(str):
    """A warning about something upstream renders but a check of ours would refuse (a job a patch
    invents, a setting that has no effect after render): the render goes on, the message is a
    `warning:`, and strict mode (`render(..., strict=True)`, `--strict`) refuses it as the FieldError
    it carries."""

    error: FieldError

    def __new__(cls, error: FieldError) -> Check:
        check = super().__new__(cls, f"{error}")
        check.error = error
        return check


class Refused(Check):
    """Something the API server (or the JobSet webhook) would refuse in the objects rendered: a negative
    node count, a container without an image, an extended resource requested without an equal limit.
    Where this library creates those objects (`render()`, `trainjob render`, the components) it stops
    the render; where a TrainJob object is only admitted, as v2.3.0's webhooks admit it (`trainjob
    validate` without --strict), it is a warning."""


def owner_references(trainjob: TrainJob) -> list[Manifest]:
    """The controller's owner reference; only possible when the TrainJob exists in a cluster (has a uid)."""
    metadata = trainjob.metadata
    if not metadata.uid:
        return []
    return [
        {
            "apiVersion": trainjob.api_version,
            "kind": "TrainJob",
            "name": metadata.name or "",
            "uid": metadata.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def child_metadata(trainjob: TrainJob, name: str) -> Manifest:
    metadata: Manifest = {"name": name}
    source = trainjob.metadata
    if source.namespace:
        metadata["namespace"] = source.namespace
    if source.uid:
        metadata["ownerReferences"] = owner_references(trainjob)
    return metadata


def reserved_env_error(trainer: Trainer | None, reserved: frozenset[str], runtime: str) -> FieldError | None:
    """The webhook's answer to env vars the framework sets itself (PET_*, OMPI_*, ...)."""
    names = sorted({var.name for var in (trainer.env if trainer and trainer.env else []) if var.name in reserved})
    if not names:
        return None
    return FieldError(
        "spec.trainer.env",
        f"Invalid value: {show(names)}: must not have reserved envs, invalid envs configured: "
        f"[{' '.join(names)}]; the {runtime} runtime sets them",
    )
