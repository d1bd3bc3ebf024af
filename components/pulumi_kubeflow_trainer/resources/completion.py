"""`wait_for="completed"`: `pulumi up` waits for the JobSet to finish and fails if it failed, once.

The kubernetes provider does the waiting (`pulumi.com/waitFor` on `status.terminalState`, which
JobSet sets to Completed or Failed). The failure is raised by an `after_create` / `after_update`
resource hook of the JobSet: hooks run only when the JobSet is really created or updated, and never
during preview. So the deployment that waited reports the failure (the JobSet stays in the state, as
it is in the cluster), while later previews and ups that leave the JobSet alone pass, and the
TrainJob's `conditions` keep saying Failed.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any, Literal, get_args

import pulumi

from ..status import compute_status

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


def failure_hooks(hook_name: str, name: str, trainjob: Callable[[], dict[str, Any]]) -> pulumi.ResourceHookBinding:
    """Hooks for the JobSet of a TrainJob with wait_for="completed" (hook names are unique in a program)."""
    hook = pulumi.ResourceHook(hook_name, fail_if_failed(name, trainjob))
    return pulumi.ResourceHookBinding(after_create=[hook], after_update=[hook])
