"""The TrainJob component: renders the TrainJob client side and registers its children."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import base64

import pulumi

from ..api import constants as c
from ..api.runtime import ClusterTrainingRuntime, Runtime, TrainingRuntime
from ..api.trainjob import TrainJob as TrainJobModel
from ..framework.context import ObjectIndex, RenderContext
from ..framework.errors import TrainerError
from ..framework.render import Renderer
from ..functions import FunctionTrainer
from ..loading import parse
from ..ssh import SSHKeyPair
from ..status import compute_status
from . import children
from .errors import invalid_input
from .inputs import as_manifest, merge_into
from .placeholders import Placeholders
from .runtime import TYPE_PREFIX, RuntimeComponent, declared_runtimes, runtime_key
from .record import TrainJobRecord
from .sshkey import MPISSHKey

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
WAIT_FOR = ("none", "completed")
_DEFERRED_KEY = SSHKeyPair("generated at deploy time", "generated at deploy time\n")


class TrainJob(pulumi.ComponentResource):
    """A TrainJob rendered by this library: the JobSet and its helpers are this component's children.

    `manifest` is a TrainJob as a dict, model or YAML text; keyword arguments override its parts.
    `runtime` is a runtime component, model or manifest; when omitted, `spec.runtimeRef` is resolved
    among the runtimes declared in this program, then the runtimes bundled with the library.
    """

    trainjob: TrainJobModel
    resources: dict[str, pulumi.Resource]
    jobset_name: pulumi.Output[str]
    namespace: pulumi.Output[str | None]
    ssh_public_key: pulumi.Output[str | None]
    conditions: pulumi.Output[list[dict[str, Any]]]
    jobs_status: pulumi.Output[list[dict[str, Any]]]

    def __init__(
        self,
        name: str,
        manifest: Any = None,
        *,
        runtime: Any = None,
        trainer: Any = None,
        dataset: Any = None,
        model: Any = None,
        runtime_ref: str | None = None,
        runtime_patches: list[Any] | None = None,
        job_name: str | None = None,
        namespace: pulumi.Input[str] | None = None,
        suspend: bool | None = None,
        managed_by: str | None = None,
        active_deadline_seconds: int | None = None,
        queue_name: str | None = None,
        wait_for: str = "none",
        wait_timeout_seconds: int = 24 * 3600,
        runtime_snapshot: bool = False,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        super().__init__(f"{TYPE_PREFIX}:TrainJob", name, None, opts)
        self._placeholders = Placeholders()
        try:
            if wait_for not in WAIT_FOR:
                raise TrainerError(f"wait_for: {wait_for!r} is not one of {', '.join(WAIT_FOR)}")
            runtime_model = _runtime_model(runtime)
            # A function trainer's command depends on the runtime's launcher: it is added once resolved.
            function_trainer = trainer if isinstance(trainer, FunctionTrainer) else None
            overrides = {
                "metadata.name": job_name,
                "metadata.namespace": namespace,
                "spec.runtimeRef.name": runtime_ref,
                "spec.trainer": None if function_trainer else trainer,
                "spec.initializer.dataset": dataset,
                "spec.initializer.model": model,
                "spec.runtimePatches": runtime_patches,
                "spec.suspend": suspend,
                "spec.managedBy": managed_by,
                "spec.activeDeadlineSeconds": active_deadline_seconds,
            }
            document = _trainjob_document(manifest, name, overrides, runtime_model)
            self.trainjob = parse(self._placeholders.hide(document), f"TrainJob {name}")  # type: ignore[assignment]
            runtime_model = self._resolve_runtime(runtime_model)
            if function_trainer is not None:
                merge_into(document, "spec.trainer", function_trainer.to_manifest(runtime_model))
                self.trainjob = parse(self._placeholders.hide(document), f"TrainJob {name}")  # type: ignore[assignment]
            manifests = self._render(runtime_model, runtime_snapshot)
        except TrainerError as error:
            raise invalid_input(self, error) from None
        self.resources = self._register_children(name, manifests, queue_name, wait_for, wait_timeout_seconds)
        self._set_outputs(wait_for)

    def _resolve_runtime(self, given: Runtime | None) -> Runtime:
        if given is not None:
            if isinstance(given, TrainingRuntime) and self._placeholders.is_token(self.trainjob.metadata.namespace):
                # The namespace is known at deploy time only; the runtime is taken to be in it.
                metadata = given.metadata.model_copy(update={"namespace": self.trainjob.metadata.namespace})
                return given.model_copy(update={"metadata": metadata})
            return given
        from ..blueprints import bundled_runtimes

        declared = declared_runtimes()
        names = {runtime_key(runtime) for runtime in declared}
        candidates = declared + [runtime for runtime in bundled_runtimes() if runtime_key(runtime) not in names]
        return Renderer(candidates, context=RenderContext()).resolve(self.trainjob).runtime

    def _render(self, runtime: Runtime, runtime_snapshot: bool) -> list[dict[str, Any]]:
        context = RenderContext(
            key_generator=lambda _trainjob: _DEFERRED_KEY,
            cluster=ObjectIndex(closed_world=False),
            runtime_snapshot=runtime_snapshot,
            multikueue_jobset=True,
        )
        return Renderer([runtime], context=context).render(self.trainjob)

    def _register_children(
        self, name: str, manifests: list[dict[str, Any]], queue_name: str | None, wait_for: str, timeout: int
    ) -> dict[str, pulumi.Resource]:
        spec = self._placeholders.reveal(self.trainjob.spec.to_manifest())
        record = TrainJobRecord(f"{name}-record", self._identity(), spec, pulumi.ResourceOptions(parent=self))
        registered: dict[str, pulumi.Resource] = {f"{name}-record": record}
        self._ssh_key: MPISSHKey | None = None
        self._jobset: pulumi.Resource | None = None
        for manifest in manifests:
            manifest = self._placeholders.reveal(manifest)
            if manifest["kind"] == "Secret" and manifest.get("type") == "kubernetes.io/ssh-auth":
                manifest = self._with_ssh_key(name, manifest)
            if manifest["kind"] == "JobSet":
                _label_and_annotate(manifest, queue_name, wait_for, timeout)
            child = children.child_name(name, self.trainjob.name, manifest)
            options = pulumi.ResourceOptions(parent=self, depends_on=list(registered.values()))
            registered[child] = children.register(child, manifest, options)
            if manifest["kind"] == "JobSet":
                self._jobset = registered[child]
        return registered

    def _identity(self) -> pulumi.Output[str]:
        """`namespace/name` of the TrainJob: a new identity means a new key and a new record."""
        return pulumi.Output.concat(self._placeholders.reveal(self.trainjob.namespace), "/", self.trainjob.name)

    def _with_ssh_key(self, name: str, manifest: dict[str, Any]) -> dict[str, Any]:
        self._ssh_key = MPISSHKey(f"{name}-ssh-key", self._identity(), pulumi.ResourceOptions(parent=self))

        def encode(text: str | None) -> str | None:
            # None only under unit-test mocks, which echo inputs back instead of generating a key.
            return base64.b64encode(text.encode()).decode() if text is not None else None

        data = {
            "ssh-privatekey": pulumi.Output.secret(self._ssh_key.private_key_pem.apply(encode)),
            "ssh-publickey": self._ssh_key.public_key_openssh.apply(encode),
        }
        return {**manifest, "data": data}

    def _set_outputs(self, wait_for: str) -> None:
        jobset = self._jobset
        self.jobset_name = pulumi.Output.from_input(self.trainjob.name)
        self.namespace = pulumi.Output.from_input(self._placeholders.reveal(self.trainjob.metadata.namespace))
        self.ssh_public_key = self._ssh_key.public_key_openssh if self._ssh_key else pulumi.Output.from_input(None)
        status = jobset.status.apply(lambda live: self._status(live, wait_for)) if isinstance(jobset, children.ObservedResource) else pulumi.Output.from_input({})
        self.conditions = status.apply(lambda s: s.get("conditions") or [])
        self.jobs_status = status.apply(lambda s: s.get("jobsStatus") or [])
        self.register_outputs(
            {
                "jobset_name": self.jobset_name,
                "namespace": self.namespace,
                "ssh_public_key": self.ssh_public_key,
                "conditions": self.conditions,
                "jobs_status": self.jobs_status,
            }
        )

    def _status(self, live: Any, wait_for: str) -> dict[str, Any]:
        jobset = {"status": live} if isinstance(live, dict) else None
        status = compute_status(self.trainjob.to_manifest(), jobset, runtime_supported=True, now=datetime.now(timezone.utc))
        failed = next((cond for cond in status.get("conditions") or [] if cond["type"] == "Failed" and cond["status"] == "True"), None)
        if wait_for == "completed" and failed is not None:
            raise pulumi.RunError(f"TrainJob {self.trainjob.name} failed: {failed.get('reason')}: {failed.get('message')}")
        return status


def _runtime_model(runtime: Any) -> Runtime | None:
    if runtime is None or isinstance(runtime, (TrainingRuntime, ClusterTrainingRuntime)):
        return runtime
    if isinstance(runtime, RuntimeComponent):
        return runtime.model
    model = parse(as_manifest(runtime, "runtime"), "runtime")
    if not isinstance(model, (TrainingRuntime, ClusterTrainingRuntime)):
        raise TrainerError(f"runtime: expected a TrainingRuntime or ClusterTrainingRuntime, got a {model.kind}")
    return model


def _trainjob_document(manifest: Any, name: str, overrides: dict[str, Any], runtime: Runtime | None) -> dict[str, Any]:
    """The TrainJob manifest: `manifest`, then the keyword arguments over it, then the runtime reference."""
    document = as_manifest(manifest, f"TrainJob {name}")
    document.setdefault("apiVersion", c.API_VERSION_UPSTREAM)
    document.setdefault("kind", "TrainJob")
    document.setdefault("metadata", {}).setdefault("name", name)
    for path, value in overrides.items():
        if isinstance(value, list):
            value = [as_manifest(item, path) if not isinstance(item, str) else item for item in value]
        elif value is not None and not isinstance(value, (str, bool, int, pulumi.Output)):
            value = as_manifest(value, path)
        merge_into(document, path, value)
    _reference_runtime(document, runtime)
    return document


def _reference_runtime(document: dict[str, Any], runtime: Runtime | None) -> None:
    if runtime is None:
        return
    ref = document.setdefault("spec", {}).setdefault("runtimeRef", {})
    ref.setdefault("name", runtime.name)
    ref.setdefault("kind", runtime.kind)
    if ref["name"] != runtime.name or ref["kind"] != runtime.kind:
        raise TrainerError(
            f"spec.runtimeRef: Invalid value: {ref['kind']} {ref['name']!r}: the runtime given is {runtime.kind} "
            f"{runtime.name!r}; drop runtimeRef or make it name the runtime"
        )


def _label_and_annotate(manifest: dict[str, Any], queue_name: str | None, wait_for: str, timeout: int) -> None:
    metadata = manifest["metadata"]
    if queue_name:
        metadata.setdefault("labels", {})[QUEUE_LABEL] = queue_name
    if wait_for == "completed":
        # JobSet sets status.terminalState (Completed or Failed) when it finishes; the status output
        # then turns Failed into an error, so `pulumi up` neither hangs nor reports a failed run as done.
        annotations = metadata.setdefault("annotations", {})
        annotations["pulumi.com/waitFor"] = "jsonpath={.status.terminalState}"
        annotations["pulumi.com/timeoutSeconds"] = str(timeout)
