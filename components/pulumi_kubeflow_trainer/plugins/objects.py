"""Metadata of the objects plugins emit: name, namespace and the owner reference to the TrainJob."""

from __future__ import annotations

from ..api.trainjob import TrainJob
from ..framework.kube import Manifest


def owner_references(trainjob: TrainJob) -> list[Manifest]:
    """The controller's owner reference; only possible when the TrainJob exists in a cluster (has a uid)."""
    if not trainjob.metadata.uid:
        return []
    return [
        {
            "apiVersion": trainjob.api_version,
            "kind": "TrainJob",
            "name": trainjob.name,
            "uid": trainjob.metadata.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
    ]


def child_metadata(trainjob: TrainJob, name: str) -> Manifest:
    metadata: Manifest = {"name": name}
    if trainjob.metadata.namespace:
        metadata["namespace"] = trainjob.metadata.namespace
    owners = owner_references(trainjob)
    if owners:
        metadata["ownerReferences"] = owners
    return metadata


def reserved_env_error_names(trainjob: TrainJob, reserved: frozenset[str] | set[str]) -> list[str]:
    trainer = trainjob.spec.trainer
    return sorted({var.name for var in (trainer.env if trainer and trainer.env else []) if var.name in reserved})
