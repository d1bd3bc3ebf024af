"""`wait_for="completed"`: `pulumi up` waits for the JobSet to finish and fails if it failed, once.

The kubernetes provider does the waiting (`pulumi.com/waitFor` on `status.terminalState`, which
JobSet sets to Completed or Failed). The failure is raised by an `after_create` / `after_update`
resource hook of the JobSet: hooks run only when the JobSet is really created or updated, and never
during preview. So the deployment that waited reports the failure (the JobSet stays in the state, as
it is in the cluster), while later previews and ups that leave the JobSet alone pass, and the
TrainJob's `conditions` keep saying Failed.

A queued TrainJob waits through queueing: its JobSet has no terminal state while Kueue keeps it
suspended, so the provider waits for admission too, within the same timeout. When that wait times
out, an `on_error` hook of the JobSet (`QueuedTimeout`) reads the Workload and, if Kueue still
queues it, logs the error that says so with Kueue's own reason ("TrainJob x: still queued after
600 s: Workload pending in ClusterQueue cq: <Kueue's message>") next to the provider's timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Literal, get_args

import pulumi

from ..status import compute_status
from ..watch.kubeclient import KubeconfigSettings
from .admission import QUEUED_STATES, read_jobset_admission
from .cluster_access import provider_settings

WaitFor = Literal["none", "completed"]
WAIT_FOR: tuple[WaitFor, ...] = get_args(WaitFor)
WAIT_FOR_ANNOTATION = "pulumi.com/waitFor"
TIMEOUT_ANNOTATION = "pulumi.com/timeoutSeconds"


def wait_annotations(timeout_seconds: int) -> dict[str, str]:
    return {WAIT_FOR_ANNOTATION: "jsonpath={.status.terminalState}", TIMEOUT_ANNOTATION: str(timeout_seconds)}


def trainjob_status(trainjob: dict[str, Any], live_status: Any) -> dict[str, Any]:
    """The TrainJob's status as the controller would compute it from the JobSet's `status`.

    Computed as for a TrainJob the Trainer controller manages, whatever its `managedBy`: upstream's
    controller leaves a MultiKueue TrainJob's status to MultiKueue, which copies it from the worker;
    here the JobSet is what MultiKueue dispatched, and its status is the worker's already."""
    jobset = {"status": live_status} if isinstance(live_status, dict) else None
    spec = {key: value for key, value in (trainjob.get("spec") or {}).items() if key != "managedBy"}
    return compute_status({**trainjob, "spec": spec}, jobset, runtime_supported=True, now=datetime.now(timezone.utc))


def failed_condition(status: dict[str, Any]) -> dict[str, Any] | None:
    conditions = status.get("conditions") or []
    return next((cond for cond in conditions if cond.get("type") == "Failed" and cond.get("status") == "True"), None)


def failure_message(name: str, condition: dict[str, Any]) -> str:
    return f"TrainJob {name} failed: {condition.get('reason')}: {condition.get('message')}"


def fail_if_failed(name: str, trainjob: Callable[[], dict[str, Any]]) -> Callable[[pulumi.ResourceHookArgs], None]:
    """The hook body: raises when the JobSet the provider just waited for is Failed."""

    def hook(args: pulumi.ResourceHookArgs) -> None:
        status = trainjob_status(trainjob(), (args.new_outputs or {}).get("status"))
        failed = failed_condition(status)
        if failed is not None:
            raise RuntimeError(failure_message(name, failed))

    return hook


def failure_hooks(
    hook_name: str, name: str, trainjob: Callable[[], dict[str, Any]], queued: QueuedTimeout | None = None,
) -> pulumi.ResourceHookBinding:
    """Hooks for the JobSet of a TrainJob with wait_for="completed" (hook names are unique in a program);
    `queued` for a queued one."""
    hook = pulumi.ResourceHook(hook_name, fail_if_failed(name, trainjob))
    on_error = [pulumi.ErrorHook(f"{hook_name}:queued", queued)] if queued is not None else None
    return pulumi.ResourceHookBinding(after_create=[hook], after_update=[hook], on_error=on_error)


def queued_message(name: str, timeout: int, admission: dict[str, Any]) -> str:
    where = f" in ClusterQueue {admission['clusterQueue']}" if admission.get("clusterQueue") else ""
    why = admission.get("message") or admission.get("reason") or "no reason given"
    return f"TrainJob {name}: still queued after {timeout} s: Workload {admission['state']}{where}: {why}"


class QueuedTimeout:
    """The `on_error` hook of a queued JobSet that `pulumi up` waits for (the module docstring).
    `jobset` is set once the JobSet is registered (its provider says which cluster to read)."""

    def __init__(self, name: str, timeout: int) -> None:
        self.name, self.timeout = name, timeout
        self.jobset: pulumi.CustomResource | None = None

    async def __call__(self, args: pulumi.ErrorHookArgs) -> bool:
        if self.jobset is None or not any("timed out" in error.lower() for error in args.errors):
            return False  # not the wait's timeout: the provider's error says it all
        try:
            metadata = (args.new_inputs or {}).get("metadata") or {}
            settings = await provider_settings(self.jobset).future() or KubeconfigSettings()
            admission = await asyncio.get_running_loop().run_in_executor(
                None, read_jobset_admission, settings, metadata.get("namespace"), metadata.get("name") or args.name)
        except Exception as error:  # noqa: BLE001 - the engine would drop it: an error hook's error is not shown
            pulumi.log.warn(f"TrainJob {self.name}: cannot read its Workload after the timeout: {error!r}")
            return False
        if admission["state"] in QUEUED_STATES:
            # Not attached to the JobSet: its URN resolves once its registration ends, after this hook.
            pulumi.log.error(queued_message(self.name, self.timeout, admission))
        return False  # no retry: the timeout stands
