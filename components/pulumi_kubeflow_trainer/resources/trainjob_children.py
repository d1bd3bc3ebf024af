"""The children of a TrainJob in the default mode, from its rendered manifests (trainjob.py): the
JobSet and its helpers, keys generated at deploy time, the Kueue label and the wait annotations."""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ..api.trainjob import TrainJob as TrainJobModel
from ..plugins.flux import curve_name
from ..plugins.flux.scripts import format_curve_certificate
from . import children, kueue
from .completion import CompletionWatch, wait_annotations
from .keys import FLUX_CURVE, MPI_SSH, GeneratedKey
from .placeholders import Placeholders

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
# Children that a re-run (`run`) or a move to another runtime revision replaces: what runs the training
# and the gang that schedules it (a finished PodGroup would not schedule new Pods).
_RERUN_KINDS = ("JobSet", "PodGroup")


@dataclass(frozen=True)
class ChildOptions:
    """How the TrainJob component wants its children: from its arguments."""

    name: str  # the component's name: children are `<name>-jobset`, ...
    identity: pulumi.Input[str]  # namespace/name: a new identity means new keys
    queue_name: str | None
    wait_timeout: int | None  # wait_for="completed"
    jobset_hooks: pulumi.ResourceHookBinding | None
    user_suspend: bool | None
    completion_watch: CompletionWatch | None
    run: str | int | None


@dataclass
class Children:
    resources: dict[str, pulumi.Resource] = field(default_factory=dict)
    ssh_key: GeneratedKey | None = None
    jobset: pulumi.CustomResource | None = None
    manifest: dict[str, Any] | None = None  # the JobSet's, as registered
    queue: str | None = None


def register_children(component: pulumi.Resource, trainjob: TrainJobModel, manifests: list[dict[str, Any]],
                      placeholders: Placeholders, options: ChildOptions, revision: str, keep_fixed: bool = False) -> Children:
    """Registers the children; `revision`, the runtime revision rendered, replaces what runs when it changes.
    `keep_fixed`: the JobSet keeps the fixed fields the state has (the engine's ignore_changes takes them
    from there), for a JobSet this library now renders otherwise (TrainJob._rendered_otherwise)."""
    made = Children()
    for manifest in manifests:
        manifest = _with_generated_key(component, trainjob, options, placeholders.reveal(manifest), made)
        child_options = pulumi.ResourceOptions(parent=component, depends_on=list(made.resources.values()))
        if manifest["kind"] in _RERUN_KINDS:
            child_options.replacement_trigger = {"run": options.run, "revision": revision}
            child_options.delete_before_replace = True  # the new one has the same name
        if manifest["kind"] == "JobSet":
            manifest = _label_and_annotate(manifest, options.queue_name, options.wait_timeout)
            manifest = kueue.without_suspend(manifest) if kueue.queue_of(manifest) else manifest
            child_options.hooks = options.jobset_hooks
            if keep_fixed:
                child_options.ignore_changes = list(children.JOBSET_IMMUTABLE_FIELDS)
        child = children.child_name(options.name, trainjob.name, manifest)
        made.resources[child] = resource = children.register(child, manifest, child_options)
        if manifest["kind"] == "JobSet":
            made.jobset, made.queue = resource, kueue.queue_of(manifest)
            made.manifest = manifest
            if options.completion_watch is not None:
                options.completion_watch.resource = resource
    return made


async def register_workload_activation(component: pulumi.Resource, made: Children, options: ChildOptions) -> None:
    """A queued JobSet's Workload `spec.active`, when the user said `suspend` (kueue.py). Not for a JobSet
    known to have no uid, as one a provider renders to a directory has: no Workload is made for it,
    and a patch without a name would stop the preview. (The patch waits for the JobSet anyway: it names
    the Workload after the JobSet's uid.)"""
    if made.jobset is None or made.manifest is None or options.user_suspend is None or not kueue.queue_of(made.manifest):
        return
    metadata: pulumi.Output[Any] = made.jobset.metadata  # type: ignore[attr-defined]  # an output property the SDK sets
    if await metadata.is_known() and not ((await metadata.future()) or {}).get("uid"):
        if options.user_suspend:
            pulumi.log.warn("suspend=True on a queued TrainJob goes on its Kueue Workload (spec.active), which a JobSet "
                            "without a uid (rendered to a directory) never gets: Kueue will queue the rendered JobSet "
                            "and start it once admitted", resource=component)
        return
    queued_options = pulumi.ResourceOptions(parent=component)
    made.resources.update(kueue.queued_children(options.name, made.jobset, made.manifest, options.user_suspend, queued_options))


def _with_generated_key(component: pulumi.Resource, trainjob: TrainJobModel, options: ChildOptions,
                        manifest: dict[str, Any], made: Children) -> dict[str, Any]:
    """The MPI SSH and Flux CURVE Secrets with keys from a GeneratedKey child instead of the render's."""
    if manifest["kind"] != "Secret":
        return manifest
    name, key_options = options.name, pulumi.ResourceOptions(parent=component)
    if manifest.get("type") == "kubernetes.io/ssh-auth":
        made.ssh_key = key = GeneratedKey(f"{name}-ssh-key", MPI_SSH, options.identity, key_options)
        made.resources[f"{name}-ssh-key"] = key
        private: pulumi.Input[str | None] = key.private_key.apply(_b64)  # an Input: mypy cannot solve secret() for an Output
        data = {"ssh-privatekey": pulumi.Output.secret(private), "ssh-publickey": key.public_key.apply(_b64)}
        return {**manifest, "data": data}
    if manifest["metadata"]["name"] == curve_name(trainjob):
        key = GeneratedKey(f"{name}-curve-key", FLUX_CURVE, options.identity, key_options)
        made.resources[f"{name}-curve-key"] = key
        job = trainjob.name
        cert = pulumi.Output.all(key.public_key, key.private_key).apply(lambda keys: _b64(format_curve_certificate(job, *keys)))
        return {**manifest, "data": {"curve.cert": pulumi.Output.secret(cert)}}
    return manifest


def _b64(text: str | None) -> str | None:
    # None only under unit-test mocks, which echo inputs back instead of generating a key.
    return base64.b64encode(text.encode()).decode() if text is not None else None


def _label_and_annotate(manifest: dict[str, Any], queue_name: str | None, wait_timeout: int | None) -> dict[str, Any]:
    """The JobSet with the queue label and the wait annotations; the rendered manifest is left as it is."""
    if not queue_name and wait_timeout is None:
        return manifest
    metadata = dict(manifest["metadata"])
    if queue_name:
        metadata["labels"] = {**(metadata.get("labels") or {}), QUEUE_LABEL: queue_name}
    if wait_timeout is not None:
        metadata["annotations"] = {**(metadata.get("annotations") or {}), **wait_annotations(wait_timeout)}
    return {**manifest, "metadata": metadata}
