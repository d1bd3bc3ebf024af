"""Kueue and the TrainJob component (issue 13): what Pulumi applies to a queued JobSet so that Pulumi
and Kueue share it without undoing each other.

Kueue changes a queued JobSet behind Pulumi's back: its webhook sets `spec.suspend` on create, and on
admission its controller unsuspends the JobSet and merges the ResourceFlavor's node labels and
tolerations into the pod templates (restoring them, and suspending again, on eviction). Pulumi
applies its JobSet with server-side apply, as the pulumi-kubernetes field manager, and only the
fields it renders: Kueue's writes are Updates that the API server records under Kueue's own field
manager, and `pulumi preview` diffs Pulumi's inputs, not the live object. So as long as Pulumi's
manifest names none of those fields, previews show nothing and `pulumi up` sends nothing that could
revert Kueue (the cluster test checks the live fields, field managers and resourceVersion).

The one field both want is `spec.suspend`. Kueue unsuspends a suspended JobSet whose Workload is
admitted, so a `suspend: true` that Pulumi applied to the JobSet would not hold (and, once Kueue's
manager owns the field, would conflict). For a queued TrainJob the component therefore leaves
`spec.suspend` of the JobSet to Kueue and says what the user wants on the JobSet's Workload instead:
`spec.active` (Kueue's own way to stop a workload: deactivated, it is evicted and its JobSet
suspended; reactivated, it queues again and starts when admitted). That is a server-side apply
patch of the one field, on the Workload Kueue names after the JobSet's name and uid.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from ..watch.kubeclient import KubeAPIError, KubeconfigSettings
from ..watch.kueue_state import QUEUE_LABEL, WORKLOAD_API_VERSION, workload_name
from .cluster_access import provider_settings

__all__ = ["QUEUE_LABEL", "WORKLOAD_API_VERSION", "queue_of", "queued_children", "without_suspend", "workload_name"]
PATCH_FORCE = "pulumi.com/patchForce"  # pulumi-kubernetes: the server-side apply of a Patch resource is forced


def queue_of(jobset: dict[str, Any]) -> str | None:
    return ((jobset.get("metadata") or {}).get("labels") or {}).get(QUEUE_LABEL)


def without_suspend(jobset: dict[str, Any]) -> dict[str, Any]:
    """The JobSet Pulumi applies when Kueue queues it: `spec.suspend` is Kueue's (module docstring)."""
    spec = {key: value for key, value in (jobset.get("spec") or {}).items() if key != "suspend"}
    return {**jobset, "spec": spec}


def workload_activation(
    name: str, jobset: pulumi.CustomResource, jobset_name: str, namespace: pulumi.Input[str | None],
    active: bool, opts: pulumi.ResourceOptions,
) -> pulumi.CustomResource:
    """`spec.active` of the JobSet's Workload, applied once the JobSet (and so its uid) exists.

    The Workload is Kueue's: created by it, deleted with the JobSet. Kueue creates it with
    `spec.active: true` under its own field manager, so the apply is forced (PATCH_FORCE) to take that
    one field over when the user's `suspend` changes; nothing else of the Workload is touched.
    Destroying the patch gives the field up."""
    uid = jobset.metadata.apply(lambda metadata: (metadata or {}).get("uid"))  # type: ignore[attr-defined]
    metadata = {"name": uid.apply(lambda value: workload_name(jobset_name, value) if value else None),
                "namespace": namespace, "annotations": {PATCH_FORCE: "true"}}
    wait = pulumi.ResourceHookBinding(before_create=[workload_wait_hook()])
    patch = k8s.apiextensions.CustomResourcePatch(
        name, api_version=WORKLOAD_API_VERSION, kind="Workload", metadata=metadata, spec={"active": active},
        opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[jobset], hooks=wait)),
    )
    _registry(pulumi.runtime.get_root_resource()).append((name, opts.parent, patch))
    return patch


async def wait_for_workload(args: pulumi.ResourceHookArgs) -> None:
    """Before the patch is first applied: wait until Kueue has made the Workload. A server-side apply
    creates what does not exist, and a Workload requires no field, so a patch that came first would
    make a stub Workload of its own, which Kueue then replaces with an active one (seen in CI: a
    TrainJob created with suspend=True started). Reads the cluster of the patch's kubernetes provider
    (cluster_access.py), off the event loop."""
    metadata = (args.new_inputs or {}).get("metadata") or {}
    name, namespace = metadata.get("name"), metadata.get("namespace") or "default"
    if not name:
        return
    settings = await _settings_of(args)
    await asyncio.get_running_loop().run_in_executor(None, _wait_for, settings, namespace, name)


def _wait_for(settings: KubeconfigSettings, namespace: str, name: str) -> None:
    try:
        api = settings.api()
        deadline = time.monotonic() + WORKLOAD_WAIT_SECONDS
        while api.get(WORKLOAD_API_VERSION, "Workload", namespace, name) is None:
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kueue made no Workload {namespace}/{name} within {WORKLOAD_WAIT_SECONDS} s: "
                                   "is the JobSet's queue (kueue.x-k8s.io/queue-name) managed by Kueue?")
            time.sleep(0.25)
    except KubeAPIError as error:  # no kubeconfig to read, or credentials it cannot use: apply at once
        pulumi.log.warn(f"cannot wait for Kueue's Workload {namespace}/{name} ({error}); applying spec.active at once")


async def _settings_of(args: pulumi.ResourceHookArgs) -> KubeconfigSettings:
    """The provider settings of the patch the hook runs for (registered by workload_activation); the
    ambient kubeconfig for one not registered (under unit-test mocks). Found by its name and its
    parent's URN: its own URN resolves only once its registration ends, after this hook."""
    for name, parent, patch in _registry(pulumi.runtime.get_root_resource()):
        if name != args.name:
            continue
        parent_urn = await parent.urn.future() if parent is not None else None
        if parent_urn is None or child_urn(parent_urn, args.type, name) == args.urn:
            return await provider_settings(patch).future() or KubeconfigSettings()  # made here: Outputs cost the program
    return KubeconfigSettings()


def child_urn(parent_urn: str, typ: str, name: str) -> str:
    """The URN of a resource `typ` named `name` whose parent has `parent_urn` (urn:pulumi:stack::project::type::name)."""
    prefix, parent_type = parent_urn.split("::")[:2], parent_urn.split("::")[2]
    return "::".join([*prefix, f"{parent_type}${typ}", name])


_Registered = tuple[str, "pulumi.Resource | None", pulumi.Resource]


def _registry(root: pulumi.Resource | None) -> list[_Registered]:
    """The program's Workload patches (name, parent, patch), kept on the root resource (None only
    under unit-test mocks: then a list of no one's)."""
    if root is None:
        return []
    if not hasattr(root, _PATCHES):
        setattr(root, _PATCHES, [])
    found: list[_Registered] = getattr(root, _PATCHES)
    return found


def workload_wait_hook() -> pulumi.ResourceHook:
    """The `before_create` hook of every Workload patch of the program, created once per program and
    kept on its root resource (as resources/record.py's update-rules hook)."""
    root = pulumi.runtime.get_root_resource()
    hook = getattr(root, _WAIT_HOOK, None)
    if hook is None:
        hook = pulumi.ResourceHook("kubeflow-trainer-workload-wait", wait_for_workload)
        if root is not None:  # None only under unit-test mocks
            setattr(root, _WAIT_HOOK, hook)
    return hook


WORKLOAD_WAIT_SECONDS = 60
_WAIT_HOOK = "_kubeflow_trainer_workload_wait_hook"
_PATCHES = "_kubeflow_trainer_workload_patches"


def queued_children(
    name: str, jobset: pulumi.CustomResource, manifest: dict[str, Any], suspend: bool | None,
    opts: pulumi.ResourceOptions,
) -> dict[str, pulumi.Resource]:
    """What a queued TrainJob adds next to its JobSet: the Workload's `spec.active` when the user said
    `suspend` (True or False); nothing otherwise, nor for a JobSet without a queue."""
    if queue_of(manifest) is None or suspend is None:
        return {}
    metadata = manifest["metadata"]
    child = f"{name}-workload-active"
    return {child: workload_activation(child, jobset, metadata["name"], metadata.get("namespace"), not suspend, opts)}
