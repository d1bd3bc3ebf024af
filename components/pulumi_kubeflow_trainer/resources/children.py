"""Child resources from rendered manifests, through a kind -> factory table."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib.metadata import version
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..framework.kube import Manifest

Factory = Callable[[str, Manifest, pulumi.ResourceOptions], pulumi.CustomResource]

# JobSet fields the JobSet webhook refuses to change on a live object: a change replaces the JobSet,
# deleted first because the new one has the same name. `spec.suspend` stays an in-place update.
JOBSET_IMMUTABLE_FIELDS = [
    "spec.replicatedJobs",
    "spec.network",
    "spec.successPolicy",
    "spec.failurePolicy",
    "spec.startupPolicy",
    "spec.managedBy",
    "spec.coordinator",
    "spec.volumeClaimPolicies",
]
_PROVIDER_VERSION = version("pulumi_kubernetes")


def fixed_fields(manifest: Mapping[str, Any]) -> dict[str, Any]:
    """The JobSet's fields that a change replaces it for (JOBSET_IMMUTABLE_FIELDS), by path."""
    spec = manifest.get("spec") or {}
    return {path: spec.get(path.removeprefix("spec.")) for path in JOBSET_IMMUTABLE_FIELDS}


def observed_resource(
    name: str, manifest: Manifest, opts: pulumi.ResourceOptions, *,
    replace_on_changes: list[str] | None = None, delete_before_replace: bool | None = None,
) -> pulumi.CustomResource:
    """A custom resource (JobSet, PodGroup, runtime) whose Output `status` is the live object's status.

    A plain `pulumi.CustomResource`, not a subclass: the SDK records the call stack below the third
    `__init__` it finds, so from here that is the stack of the user's `TrainJob(...)` call (the
    useful source position), not our internals, and every state write is that much smaller.
    """
    props = {
        "apiVersion": manifest["apiVersion"],
        "kind": manifest["kind"],
        "metadata": manifest["metadata"],
        "spec": manifest.get("spec"),
        "status": None,
    }
    own = pulumi.ResourceOptions(
        version=_PROVIDER_VERSION, replace_on_changes=replace_on_changes, delete_before_replace=delete_before_replace
    )
    opts = pulumi.ResourceOptions.merge(opts, own)
    return pulumi.CustomResource(f"kubernetes:{manifest['apiVersion']}:{manifest['kind']}", name, props, opts)


def _secret(name: str, manifest: Manifest, opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    immutable = pulumi.ResourceOptions(
        additional_secret_outputs=["data", "stringData"],
        replace_on_changes=["data"] if manifest.get("immutable") else None,
        delete_before_replace=bool(manifest.get("immutable")),
    )
    return k8s.core.v1.Secret(
        name,
        metadata=manifest["metadata"],
        type=manifest.get("type"),
        immutable=manifest.get("immutable"),
        data=manifest.get("data"),
        opts=pulumi.ResourceOptions.merge(opts, immutable),
    )


def _config_map(name: str, manifest: Manifest, opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    return k8s.core.v1.ConfigMap(name, metadata=manifest["metadata"], data=manifest.get("data"), opts=opts)


def _jobset(name: str, manifest: Manifest, opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    return observed_resource(name, manifest, opts, replace_on_changes=JOBSET_IMMUTABLE_FIELDS, delete_before_replace=True)


def _custom(name: str, manifest: Manifest, opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    return observed_resource(name, manifest, opts)


FACTORIES: dict[str, Factory] = {
    "v1/Secret": _secret,
    "v1/ConfigMap": _config_map,
    "jobset.x-k8s.io/v1alpha2/JobSet": _jobset,
}


def register(name: str, manifest: Manifest, opts: pulumi.ResourceOptions) -> pulumi.CustomResource:
    factory = FACTORIES.get(f"{manifest['apiVersion']}/{manifest['kind']}", _custom)
    return factory(name, manifest, opts)


def child_name(component: str, trainjob: str, manifest: Manifest) -> str:
    """Unique per component: `<component>-jobset`, `<component>-podgroup`, `<component>-mpi-hostfile`, ..."""
    object_name = manifest["metadata"]["name"]
    if object_name == trainjob:
        return f"{component}-{manifest['kind'].lower()}"
    return f"{component}-{object_name.removeprefix(trainjob + '-')}"
