"""`wait_for="completed"`: `pulumi up` waits for the JobSet to finish and fails if it failed, once.

The kubernetes provider does the waiting (`pulumi.com/waitFor` on `status.terminalState`, which
JobSet sets to Completed or Failed). The failure is raised by an `after_create` / `after_update`
resource hook of the JobSet: hooks run only when the JobSet is really created or updated, and never
during preview. So the deployment that waited reports the failure (the JobSet stays in the state, as
it is in the cluster), while later previews and ups that leave the JobSet alone pass, and the
TrainJob's `conditions` keep saying Failed.

When it failed, the error names the cause from the Pods, their events, the Workload and the PodGroup
(watch/hints.py: OOMKilled, image pull failures, crash loops and failed containers with their last
log lines, unschedulable Pods with the scheduler's message, Kueue's reason). While the provider
waits, a task started by the JobSet's `before_create` / `before_update` hook polls rank 0's log
every TAIL_SECONDS and logs its new lines (`TrainJob mnist node-0: ...`), so a long `up` shows
progress; no resource is added for it. Both read the cluster of the JobSet's provider.

A queued TrainJob waits through queueing: its JobSet has no terminal state while Kueue keeps it
suspended, so the provider waits for admission too, within the same timeout. When that wait times
out, an `on_error` hook of the JobSet (`CompletionWatch`) reads the Workload and, if Kueue still
queues it, logs the error that says so with Kueue's own reason ("TrainJob x: still queued after
600 s: Workload pending in ClusterQueue cq: <Kueue's message>") next to the provider's timeout.

In controller mode (controller_mode.py) the waited-for resource is the TrainJob object, whose status
the controller writes; its hooks are these (the failure with its hints, rank 0's log), reading the
JobSet the controller made, which has the TrainJob's name; not the queued-timeout one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timezone
from typing import Any, Literal, get_args

import pulumi

from ..status import compute_status
from ..watch.kubeclient import KubeAPIError, KubeconfigSettings
from ..watch.progress import RankZeroTail, failure_hints
from .admission import QUEUED_STATES, read_jobset_admission
from .cluster_access import provider_settings

WaitFor = Literal["none", "completed"]
WAIT_FOR: tuple[WaitFor, ...] = get_args(WaitFor)
WAIT_FOR_ANNOTATION = "pulumi.com/waitFor"
TIMEOUT_ANNOTATION = "pulumi.com/timeoutSeconds"
TAIL_SECONDS = 5.0


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


StatusOf = Callable[[Mapping[str, Any]], dict[str, Any]]  # the waited-for resource's outputs -> the TrainJob's status


def status_from_jobset(trainjob: Callable[[], dict[str, Any]]) -> StatusOf:
    """The default mode's: computed from the JobSet's status (`trainjob_status`)."""
    return lambda outputs: trainjob_status(trainjob(), outputs.get("status"))


def own_status(outputs: Mapping[str, Any]) -> dict[str, Any]:
    """Controller mode's: the TrainJob object's status, as the controller wrote it."""
    status = outputs.get("status")
    return status if isinstance(status, dict) else {}


def fail_if_failed(name: str, status_of: StatusOf,
                   watch: CompletionWatch | None = None) -> Callable[[pulumi.ResourceHookArgs], Awaitable[None]]:
    """The hook body: raises when the TrainJob of the resource the provider just waited for is Failed,
    with the causes read from the cluster of `watch.resource`'s provider."""

    async def hook(args: pulumi.ResourceHookArgs) -> None:
        if watch is not None:
            await watch.stop_log_tail()
        failed = failed_condition(status_of(args.new_outputs or {}))
        if failed is None:
            return
        metadata = (args.new_inputs or {}).get("metadata") or {}
        hints: list[str] = []
        if watch is not None and watch.resource is not None:
            settings = await provider_settings(watch.resource).future() or KubeconfigSettings()
            hints = await asyncio.get_running_loop().run_in_executor(
                None, failure_hints, settings, metadata.get("namespace") or "", metadata.get("name") or name)
        raise RuntimeError("\n".join([failure_message(name, failed), *hints]))

    return hook


def failure_hooks(
    hook_name: str, name: str, status_of: StatusOf, watch: CompletionWatch | None = None,
) -> pulumi.ResourceHookBinding:
    """Hooks for the resource `pulumi up` waits for, of a TrainJob with wait_for="completed" (its JobSet;
    the TrainJob object in controller mode; hook names are unique in a program): the failure (with
    hints) after it, rank 0's log during it, and for a queued JobSet (`watch.queued`) whether the
    timeout left it queued."""
    hook = pulumi.ResourceHook(hook_name, fail_if_failed(name, status_of, watch))
    tail: list[Any] | None = [pulumi.ResourceHook(f"{hook_name}:log", watch.start_log_tail)] if watch is not None else None
    on_error = [pulumi.ErrorHook(f"{hook_name}:queued", watch)] if watch is not None and watch.queued else None
    return pulumi.ResourceHookBinding(before_create=tail, before_update=tail, after_create=[hook], after_update=[hook],
                                      on_error=on_error)


def queued_message(name: str, timeout: int, admission: dict[str, Any]) -> str:
    where = f" in ClusterQueue {admission['clusterQueue']}" if admission.get("clusterQueue") else ""
    why = admission.get("message") or admission.get("reason") or "no reason given"
    return f"TrainJob {name}: still queued after {timeout} s: Workload {admission['state']}{where}: {why}"


class CompletionWatch:
    """The cluster reads while `pulumi up` waits for a TrainJob: the `on_error` hook of a queued JobSet
    (`queued`) and the log tail (the module docstring). `resource` is set once the waited-for resource
    (the JobSet, or the TrainJob object in controller mode) is registered: its provider says which
    cluster to read."""

    def __init__(self, name: str, timeout: int, queued: bool = True) -> None:
        self.name, self.timeout, self.queued = name, timeout, queued
        self.resource: pulumi.CustomResource | None = None
        self._tail: asyncio.Task[None] | None = None
        self._reader: RankZeroTail | None = None

    async def start_log_tail(self, args: pulumi.ResourceHookArgs) -> None:
        """Before the JobSet is created or updated (and so waited for): rank 0's log, polled in a task
        of its own until the TrainJob finishes or the wait's timeout passes. Not at preview."""
        if pulumi.runtime.is_dry_run() or self.resource is None:
            return
        metadata = (args.new_inputs or {}).get("metadata") or {}
        settings = await provider_settings(self.resource).future() or KubeconfigSettings()
        self._tail = asyncio.get_running_loop().create_task(
            self._report_log(settings, metadata.get("namespace"), metadata.get("name") or self.name))

    async def _report_log(self, settings: KubeconfigSettings, namespace: str | None, trainjob: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout
        try:
            self._reader = tail = await loop.run_in_executor(None, RankZeroTail, settings, namespace, trainjob)
            while loop.time() < deadline and not tail.finished:
                await asyncio.sleep(TAIL_SECONDS)
                self._report(await loop.run_in_executor(None, tail.poll))
        except KubeAPIError as error:  # the progress only: the wait itself is the provider's
            pulumi.log.info(f"TrainJob {self.name}: no log tail during the wait ({error})")

    async def stop_log_tail(self) -> None:
        """After the wait: the task stopped, and the lines it had not reported yet reported."""
        if self._tail is None:
            return
        self._tail.cancel()
        self._tail = None
        if self._reader is not None:
            try:
                self._report(await asyncio.get_running_loop().run_in_executor(None, self._reader.poll))
            except KubeAPIError:
                pass  # the last lines only: the outcome is the provider's and the failure hook's

    def _report(self, lines: list[str]) -> None:
        for line in lines:
            pulumi.log.info(f"TrainJob {self.name} node-0: {line}")

    async def __call__(self, args: pulumi.ErrorHookArgs) -> bool:
        if self.resource is None or not self.queued or not any("timed out" in error.lower() for error in args.errors):
            return False  # not the wait's timeout: the provider's error says it all
        try:
            metadata = (args.new_inputs or {}).get("metadata") or {}
            settings = await provider_settings(self.resource).future() or KubeconfigSettings()
            admission = await asyncio.get_running_loop().run_in_executor(
                None, read_jobset_admission, settings, metadata.get("namespace"), metadata.get("name") or args.name)
        except Exception as error:  # noqa: BLE001 - the engine would drop it: an error hook's error is not shown
            pulumi.log.warn(f"TrainJob {self.name}: cannot read its Workload after the timeout: {error!r}")
            return False
        if admission["state"] in QUEUED_STATES:
            # Not attached to the JobSet: its URN resolves once its registration ends, after this hook.
            pulumi.log.error(queued_message(self.name, self.timeout, admission))
        return False  # no retry: the timeout stands
